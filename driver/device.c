// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt power on/off: backing memory, the device model and the char device.
 *
 * Power-on builds a struct cxd_live in a fixed order and unwinds in reverse on
 * error. Power-off is the reverse: mark the device dead so no new open
 * succeeds, remove the char device, release memory. It refuses with -EBUSY
 * while any file of the device is open (an mmap holds its file open).
 */
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include <cxdvirt/params.h>

#include "compat.h"
#include "cxdvirt.h"
#include "../hotplug/node.h"

/**
 * cxd_model_apply_runtime() - copy the settings that may change while a
 * device is powered (NAND timing, prefetch, write policy) from @c into @m,
 * as the table lists them (CXD_PARAMS_TO_MODEL()); the replacement policy
 * and CFLRU window are cxd_apply_policy()'s. O(1).
 * Context: caller holds the device's lock (cxd_model_lock()).
 */
void cxd_model_apply_runtime(struct cxd_model *m, const struct cxd_cfg *c)
{
	CXD_PARAMS_TO_MODEL(m, c);
}

/*
 * Steps of a policy switch per device-lock hold. A step visits one line,
 * set or ghost slot in O(1) (a few ns), so a hold stays in the tens of us
 * however large the cache.
 */
#define CXD_RESHAPE_STEPS	8192

/* Run the reshape just begun on @l's cache to its end. Called under @l->lock. */
static void cxd_reshape_run(struct cxd_live *l)
{
	struct cxd_cache *c = &l->model.cache;

	if (!cxd_cache_reshaping(c))
		return;
	l->reshaping = true;
	while (!cxd_cache_reshape_step(c, CXD_RESHAPE_STEPS)) {
		spin_unlock(&l->lock);
		cond_resched();
		spin_lock(&l->lock);
	}
	l->reshaping = false;
	wake_up_all(&l->reshape_wq);
}

/**
 * cxd_apply_policy() - switch powered device @l to the replacement policy
 * and CFLRU window of @c, keeping residency and dirty state.
 * @l:	powered device.
 * @c:	its configuration.
 *
 * Each is O(cache lines) of work, done in steps of CXD_RESHAPE_STEPS with
 * @l->lock dropped (and cond_resched()) between steps; meanwhile model
 * users sleep in cxd_model_lock() instead of spinning on the lock.
 *
 * Context: process, may sleep; caller holds cxd_cfg_mutex (one switch at a
 * time), not @l->lock.
 */
void cxd_apply_policy(struct cxd_live *l, const struct cxd_cfg *c)
{
	cxd_model_lock(l);
	if (!cxd_cache_set_policy_begin(&l->model.cache, c->policy))
		cxd_reshape_run(l);
	if (!cxd_cache_set_cflru_window_begin(&l->model.cache,
					      c->cflru_window_pct))
		cxd_reshape_run(l);
	spin_unlock(&l->lock);
}

/*
 * Drop the device's reference on each runtime page. A page the kernel
 * still holds (a pipe that vmsplice()d it, I/O in flight) is freed by its
 * last put_page(), not here; it leaves the device's address_space first,
 * under the page lock, which is what set_page_dirty_lock() at the end of
 * such I/O takes before it follows page->mapping.
 * Context: process, may sleep; no mapping of the device is left.
 */
static void cxd_free_pages(struct cxd_live *l)
{
	struct page *page;
	u64 i;

	if (!l->pages)
		return;
	for (i = 0; i < l->npages; i++) {
		page = l->pages[i];
		if (page) {
			lock_page(page);
			page_folio(page)->mapping = NULL;
			unlock_page(page);
			put_page(page);
		}
		if (!(i % 1024))
			cond_resched();	/* millions of pages for a large device */
	}
	kvfree(l->pages);
	l->pages = NULL;
}

/*
 * Runtime backing: one zeroed page per device page, on cfg.backing_node.
 * Each page belongs to the device's address_space at index = device page,
 * as a page-cache page would (device-dax does the same with its pages): a
 * shared futex in the mapping is keyed by (inode, index), and dirtying
 * the page is a no-op of the pseudo inode (noop_dirty_folio).
 */
static int cxd_alloc_pages(struct cxd_dev *d, struct cxd_live *l)
{
	gfp_t gfp = GFP_HIGHUSER | __GFP_ZERO | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	int node = d->cfg.backing_node;
	u64 i;

	if (node != NUMA_NO_NODE)
		gfp |= __GFP_THISNODE;
	l->pages = kvcalloc(l->npages, sizeof(*l->pages), GFP_KERNEL);
	if (!l->pages)
		return -ENOMEM;
	for (i = 0; i < l->npages; i++) {
		l->pages[i] = alloc_pages_node(node, gfp, 0);
		if (!l->pages[i]) {
			cxd_warn(d, "power: cannot allocate %llu bytes of backing memory on node %d",
				 d->cfg.capacity, node);
			cxd_free_pages(l);
			return -ENOMEM;
		}
		page_folio(l->pages[i])->mapping = l->inode->i_mapping;
		page_folio(l->pages[i])->index = i;
		if (!(i % 1024))
			cond_resched();
	}
	return 0;
}

struct cxd_cover {
	u64 next;	/* first byte not yet covered */
	bool gap;
};

static int cxd_cover_one(struct resource *r, void *arg)
{
	struct cxd_cover *c = arg;

	if (r->start > c->next)
		c->gap = true;
	c->next = max_t(u64, c->next, r->end + 1);
	return 0;
}

/**
 * cxd_check_reserved_range() - is [@start, @start + @size) usable as a
 * device's physical range: no System RAM, and every byte inside a reserved
 * entry of the memory map (memmap=SIZE$ADDR)? region_intersects() does not
 * see holes, so coverage is walked resource by resource.
 * @d:		device, for the log line.
 * @start:	first byte.
 * @size:	bytes.
 * Context: process. Return: 0, or -EINVAL with one log line saying why.
 */
int cxd_check_reserved_range(struct cxd_dev *d, u64 start, u64 size)
{
	struct cxd_cover c = { .next = start };

	if (region_intersects(start, size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		cxd_warn(d, "power: phys_addr range [0x%llx, +%llu) overlaps System RAM: reserve it with memmap=SIZE$ADDR",
			 start, size);
		return -EINVAL;
	}
	walk_iomem_res_desc(IORES_DESC_RESERVED, IORESOURCE_MEM, start,
			    start + size - 1, &c, cxd_cover_one);
	if (c.gap || c.next < start + size) {
		cxd_warn(d, "power: phys_addr range [0x%llx, +%llu) is not entirely reserved memory (memmap=SIZE$ADDR)",
			 start, size);
		return -EINVAL;
	}
	return 0;
}

#define CXD_CLEAR_CHUNK	(2ul << 20)

/*
 * Zero @size bytes at @va, 2 MiB at a time with a reschedule point between:
 * a reserved range keeps whatever an earlier power cycle, or its time as
 * node-mode System RAM, left in it, and that must not reach the next user.
 */
static void cxd_clear_range(void *va, u64 size)
{
	u64 off, n;

	for (off = 0; off < size; off += n) {
		n = min_t(u64, size - off, CXD_CLEAR_CHUNK);
		memset(va + off, 0, n);
		cond_resched();
	}
}

/*
 * Reserved-range backing: a physical range reserved at boot with
 * memmap=SIZE$ADDR. It must be reserved memory (not System RAM, not a hole),
 * and free. It is zeroed at every power-on, like runtime backing. Mapping
 * it write-back once registers a WB memtype for the range, so PFN mappings
 * of it inherit WB instead of UC- (x86 PAT).
 */
static int cxd_claim_range(struct cxd_dev *d, struct cxd_live *l)
{
	u64 start = d->cfg.phys_addr, size = d->cfg.capacity;

	/* First: a node device's memory may already be System RAM (kmem). */
	if (cxd_node_range_taken(start, size)) {
		cxd_warn(d, "power: phys_addr range [0x%llx, +%llu) overlaps a node-mode device",
			 start, size);
		return -EINVAL;
	}
	if (cxd_check_reserved_range(d, start, size))
		return -EINVAL;
	snprintf(l->res_name, sizeof(l->res_name), CXD_NAME ":%s",
		 config_item_name(&d->item));
	l->res = request_mem_region(start, size, l->res_name);
	if (!l->res) {
		cxd_warn(d, "power: phys_addr range [0x%llx, +%llu) is busy (another device or driver owns part of it)",
			 start, size);
		return -EINVAL;
	}
	l->wb_map = memremap(start, size, MEMREMAP_WB);
	if (!l->wb_map) {
		cxd_warn(d, "power: cannot map phys_addr range write-back");
		release_mem_region(start, size);
		l->res = NULL;
		return -ENOMEM;
	}
	l->phys = start;
	cxd_clear_range(l->wb_map, size);
	return 0;
}

static void cxd_release_backing(struct cxd_live *l)
{
	cxd_free_pages(l);
	if (l->wb_map) {
		memunmap(l->wb_map);
		l->wb_map = NULL;
	}
	if (l->res) {
		release_mem_region(l->res->start, resource_size(l->res));
		l->res = NULL;
	}
}

/* Last reference to the powered device is gone: free what is left. */
static void cxd_live_release(struct device *dev)
{
	struct cxd_live *l = container_of(dev, struct cxd_live, dev);

	cxd_release_backing(l);
	if (l->inode)
		iput(l->inode);
	kvfree(l->pflags);
	kvfree(l->model_mem);
	config_item_put(&l->cdev_owner->item);
	kfree(l);
}

/*
 * Node mode: no char device (the memory is reached as NUMA memory), only the
 * class device for sysfs, added once the range is registered.
 */
static int cxd_power_on_node(struct cxd_dev *d, struct cxd_live *l)
{
	int ret;

	l->dev.devt = 0;
	ret = cxd_node_attach(d, l);
	if (ret)
		return ret;
	ret = device_add(&l->dev);
	if (ret) {
		cxd_warn(d, "power: cannot add " CXD_NAME "%d: %d", d->index, ret);
		cxd_node_detach(l);
		return ret;
	}
	d->live = l;
	return 0;
}

/**
 * cxd_power_on() - bring device @d up as /dev/cxdvirt<index>, or in node
 * mode as a dax device for its target node (hotplug/node.c).
 * Context: process; caller holds cxd_cfg_mutex; @d is not powered.
 * Return: 0; -EINVAL for an inconsistent configuration or an unusable
 * phys_addr range (one log line says why); -ENOMEM; or the error of
 * creating the char device.
 */
int cxd_power_on(struct cxd_dev *d)
{
	struct cxd_cfg *c = &d->cfg;
	struct cxd_live *l;
	size_t msize;
	struct cxd_model_cfg mc;
	const char *why;
	int ret;

	if (c->cache_size > c->capacity) {
		cxd_warn(d, "power: cache_size %llu larger than capacity %llu",
			 c->cache_size, c->capacity);
		return -EINVAL;
	}
	if (cxd_nand_cfg_valid(&c->nand)) {
		cxd_warn(d, "power: invalid NAND geometry or timing");
		return -EINVAL;
	}
	mc.npages = c->capacity / CXD_HOST_PAGE_SIZE;
	mc.nlines = c->cache_size / CXD_HOST_PAGE_SIZE;
	mc.ways = c->ways;
	mc.policy = c->policy;
	mc.nand = c->nand;
	mc.ftl = c->ftl;
	why = cxd_ftl_check(&mc);
	if (why) {
		cxd_warn(d, "power: ftl: %s", why);
		return -EINVAL;
	}
	msize = cxd_model_cfg_state_size(&mc);
	if (!msize) {
		cxd_warn(d, "power: invalid cache shape (ways %u must divide the %u cache lines)",
			 c->ways, mc.nlines);
		return -EINVAL;
	}

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	/* Keep @d's memory until the last file of this power cycle is gone. */
	l->cdev_owner = d;
	config_item_get(&d->item);
	l->npages = c->capacity / CXD_HOST_PAGE_SIZE;
	spin_lock_init(&l->lock);
	init_waitqueue_head(&l->reshape_wq);
	spin_lock_init(&l->open_lock);
	cxd_scan_init(l);
	INIT_WORK(&l->drain_work, cxd_drain_work);
	device_initialize(&l->dev);
	l->dev.class = cxd_class;
	l->dev.devt = MKDEV(MAJOR(cxd_devt_base), d->index);
	l->dev.release = cxd_live_release;
	dev_set_drvdata(&l->dev, l);
	ret = dev_set_name(&l->dev, CXD_NAME "%d", d->index);
	if (ret)
		goto err_put;

	ret = -ENOMEM;
	l->model_mem = kvzalloc(msize, GFP_KERNEL);
	l->pflags = kvcalloc(l->npages, sizeof(*l->pflags), GFP_KERNEL);
	if (!l->model_mem || !l->pflags)
		goto err_put;
	if (cxd_model_init_cfg(&l->model, &mc, l->model_mem)) {
		cxd_warn(d, "power: model rejected the configuration");
		ret = -EINVAL;
		goto err_put;
	}
	cxd_model_apply_runtime(&l->model, c);
	/* Not visible yet: the (empty) cache may switch at once. */
	cxd_cache_set_policy(&l->model.cache, c->policy);
	cxd_cache_set_cflru_window(&l->model.cache, c->cflru_window_pct);
	cxd_model_set_seed(&l->model, c->seed);
	if (c->ftl_fill)
		cxd_model_ftl_fill(&l->model);
	l->stats_t0_ns = ktime_get_ns();

	if (c->mode == CXD_MODE_NODE) {
		ret = cxd_power_on_node(d, l);
		if (ret)
			goto err_put;
		return 0;
	}

	l->inode = alloc_anon_inode(cxd_mnt->mnt_sb);
	if (IS_ERR(l->inode)) {
		ret = PTR_ERR(l->inode);
		l->inode = NULL;
		goto err_put;
	}

	ret = c->phys_addr ? cxd_claim_range(d, l) : cxd_alloc_pages(d, l);
	if (ret)
		goto err_put;

	cdev_init(&l->cdev, &cxd_fops);
	l->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&l->cdev, &l->dev);
	if (ret) {
		cxd_warn(d, "power: cannot add /dev/" CXD_NAME "%d: %d",
			 d->index, ret);
		goto err_put;
	}
	d->live = l;
	cxd_scan_set_interval(l, c->scan_interval_ms);
	return 0;

err_put:
	put_device(&l->dev);
	return ret;
}

/**
 * cxd_power_off() - tear down powered device @d.
 * Context: process; caller holds cxd_cfg_mutex; @d is powered.
 * Return: 0, or -EBUSY (nothing changes) while a file of the device is open
 * or mapped, or, in node mode, while part of its range is online memory.
 */
int cxd_power_off(struct cxd_dev *d)
{
	struct cxd_live *l = d->live;

	if (l->node) {
		if (cxd_node_close(l))
			return -EBUSY;
		cxd_scan_stop(l);
		device_del(&l->dev);
		cxd_node_detach(l);
		d->live = NULL;
		put_device(&l->dev);
		return 0;
	}

	spin_lock(&l->open_lock);
	if (l->open_count) {
		spin_unlock(&l->open_lock);
		cxd_warn(d, "power: device is open or mapped (%u users)",
			 l->open_count);
		return -EBUSY;
	}
	l->dead = true;
	spin_unlock(&l->open_lock);
	cxd_scan_stop(l);
	cancel_work_sync(&l->drain_work);

	/* No file is open, so no mapping exists and no fault can run. */
	cdev_device_del(&l->cdev, &l->dev);
	d->live = NULL;
	put_device(&l->dev);
	return 0;
}
