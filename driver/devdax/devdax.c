// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt devdax mode: /dev/cxdvirtN, a devdax-style character device.
 *
 * Power-on gives the device a private inode on the module's pseudo
 * filesystem (one address_space for every mapping, whatever device node it
 * is opened through), its backing (runtime pages, a reserved range given
 * ZONE_DEVICE pages, or a NAND image, image.c) and the char device. mmap() maps the device with
 * fault.c's vm_operations; scan.c tracks the mappings.
 *
 * Power-off refuses with -EBUSY while any file of the device is open (an
 * mmap holds its file open): struct cxd_live, "Open files".
 */
#include <linux/cdev.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/ioport.h>
#include <linux/log2.h>
#include <linux/memremap.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/pagemap.h>
#include <linux/pseudo_fs.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "cxdvirt.h"
#include "devdax.h"

#define CXD_FS_MAGIC	0x63786476	/* "cxdv" */

static struct vfsmount *cxd_mnt;

static int cxd_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, CXD_FS_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type cxd_fs_type = {
	.name		 = CXD_NAME,
	.init_fs_context = cxd_fs_init_fs_context,
	.kill_sb	 = kill_anon_super,
};

/*
 * Take every page out of the device's address_space, under its page lock
 * (set_page_dirty_lock() at the end of I/O takes it before it follows
 * page->mapping), and drop the device's reference on each runtime page. A
 * runtime page the kernel still holds (a pipe that vmsplice()d it, I/O in
 * flight) is freed by its last put_page(), not here. A reserved range's
 * ZONE_DEVICE pages keep their reference (the pgmap's base count of 1,
 * never dropped: MEMORY_DEVICE_GENERIC pages are not freed to an
 * allocator) until memunmap_pages() (cxd_resv_put()).
 * Context: process, may sleep; no mapping of the device is left.
 */
static void cxd_free_pages(struct cxd_live *live)
{
	struct page *page;
	u64 i;

	if (!live->pages)
		return;
	for (i = 0; i < live->npages; i++) {
		page = live->pages[i];
		if (page) {
			lock_page(page);
			page_folio(page)->mapping = NULL;
			unlock_page(page);
			if (!live->resv)
				put_page(page);
		}
		if (!(i % 1024))
			cond_resched();	/* millions of pages for a large device */
	}
	kvfree(live->pages);
	live->pages = NULL;
}

/* Page @i of the device belongs to its address_space at index @i. */
static void cxd_page_own(struct cxd_live *live, u64 i)
{
	page_folio(live->pages[i])->mapping = live->inode->i_mapping;
	page_folio(live->pages[i])->index = i;
}

/*
 * Runtime backing: one zeroed page per device page, on cfg.backing_node.
 * Each page belongs to the device's address_space at index = device page,
 * as a page-cache page would (device-dax does the same with its pages): a
 * shared futex in the mapping is keyed by (inode, index), and dirtying
 * the page is a no-op of the pseudo inode (noop_dirty_folio).
 */
static int cxd_alloc_pages(struct cxd_dev *d, struct cxd_live *live)
{
	gfp_t gfp = GFP_HIGHUSER | __GFP_ZERO | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
	int node = d->cfg.backing_node;
	u64 i;

	if (node != NUMA_NO_NODE)
		gfp |= __GFP_THISNODE;
	live->pages = kvcalloc(live->npages, sizeof(*live->pages), GFP_KERNEL);
	if (!live->pages)
		return -ENOMEM;
	for (i = 0; i < live->npages; i++) {
		live->pages[i] = alloc_pages_node(node, gfp, 0);
		if (!live->pages[i]) {
			cxd_warn(d, "power: cannot allocate %llu bytes of backing memory on node %d",
				 d->cfg.p.capacity, node);
			cxd_free_pages(live);
			return -ENOMEM;
		}
		cxd_page_own(live, i);
		if (!(i % 1024))
			cond_resched();
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

/**
 * struct cxd_resv - a devdax device's reserved range (memmap=SIZE$ADDR),
 * claimed in /proc/iomem and given ZONE_DEVICE struct pages. Allocated
 * apart from struct cxd_live: it outlives its power cycle while the kernel
 * still holds one of its pages (cxd_resv_put()).
 * @res:	the claim in /proc/iomem, or NULL.
 * @name:	@res's name, "cxdvirt:NAME"; lives as long as @res.
 * @mapped:	memremap_pages() is done: @pgmap's pages exist.
 * @node:	entry of cxd_held, while the range waits for its pages.
 * @work:	polls a held range until its pages are let go.
 * @pgmap:	the pages; last, as it ends in a flexible array.
 */
struct cxd_resv {
	struct resource *res;
	char name[CXD_NAME_MAX + sizeof(CXD_NAME ":")];
	bool mapped;
	struct list_head node;
	struct delayed_work work;
	struct dev_pagemap pgmap;
};

/*
 * Ranges whose pages the kernel still held at power-off (cxd_resv_put()),
 * polled on the module's own workqueue (cxd_wq): module unload destroys it,
 * which waits for a poll that took its range off the list and is still
 * releasing it.
 */
static LIST_HEAD(cxd_held);
static DEFINE_MUTEX(cxd_held_mutex);

/* A held range is checked again this often, jiffies. */
#define CXD_HELD_POLL	HZ

/* The first page of @r that someone besides the range holds, or -1. */
static s64 cxd_resv_held_page(struct cxd_resv *r)
{
	u64 pfn = PHYS_PFN(r->pgmap.range.start), i;
	u64 n = PHYS_PFN(range_len(&r->pgmap.range));

	if (!r->mapped)
		return -1;
	for (i = 0; i < n; i++) {
		if (page_ref_count(pfn_to_page(pfn + i)) > 1)
			return i;
		if (!(i % 1024))
			cond_resched();
	}
	return -1;
}

/* Remove @r's pages, give up its claim and free it. Context: may sleep. */
static void cxd_resv_free(struct cxd_resv *r)
{
	if (r->mapped)
		memunmap_pages(&r->pgmap);
	if (r->res)
		release_mem_region(r->res->start, resource_size(r->res));
	kfree(r);
}

static void cxd_resv_poll(struct work_struct *work)
{
	struct cxd_resv *r = container_of(to_delayed_work(work),
					  struct cxd_resv, work);
	bool taken;

	if (cxd_resv_held_page(r) >= 0) {
		queue_delayed_work(cxd_wq, &r->work, CXD_HELD_POLL);
		return;
	}
	mutex_lock(&cxd_held_mutex);
	taken = list_empty(&r->node);	/* module unload has it */
	list_del_init(&r->node);
	mutex_unlock(&cxd_held_mutex);
	if (taken)
		return;
	pr_info(CXD_NAME ": %s: the kernel let go of the range's last held page: range released\n",
		r->name);
	cxd_resv_free(r);
}

/*
 * Power-off's end of a reserved range (from the device's release). Its
 * struct pages must outlive every reference to them, and a page the
 * kernel still holds (a pipe with a vmsplice()d page, I/O in flight) has
 * no callback when it is let go (MEMORY_DEVICE_GENERIC pages are never
 * freed). So such a range stays claimed, with its pages, and is polled
 * every CXD_HELD_POLL until they are all let go; power-off itself goes
 * ahead. Module unload ends the polling (cxd_devdax_exit()).
 */
static void cxd_resv_put(struct cxd_dev *d, struct cxd_resv *r)
{
	s64 held = cxd_resv_held_page(r);

	if (held < 0) {
		cxd_resv_free(r);
		return;
	}
	cxd_warn(d, "power: device page %lld of the reserved range is still held by the kernel (vmsplice, I/O in flight): the range stays claimed until it is let go",
		 held);
	INIT_DELAYED_WORK(&r->work, cxd_resv_poll);
	mutex_lock(&cxd_held_mutex);
	list_add_tail(&r->node, &cxd_held);
	queue_delayed_work(cxd_wq, &r->work, CXD_HELD_POLL);
	mutex_unlock(&cxd_held_mutex);
}

/*
 * Reserved-range backing: a physical range reserved at boot with
 * memmap=SIZE$ADDR. It must be reserved memory (not System RAM, not a hole),
 * and free. It gets struct pages, in ZONE_DEVICE, as device-dax gives its
 * range (memremap_pages(), MEMORY_DEVICE_GENERIC: a write-back direct
 * mapping, pages with a base reference count of 1 that the kernel can pin),
 * and from then on is mapped exactly like runtime backing. It is zeroed at
 * every power-on, like runtime backing. The struct pages (64 bytes per
 * 4 KiB page) come from System RAM of the powering CPU's node
 * (NUMA_NO_NODE), as the range's own node may have no memory online; the
 * node only decides where their NR_FILE_MAPPED count goes.
 */
static int cxd_claim_range(struct cxd_dev *d, struct cxd_live *live)
{
	u64 start = d->cfg.phys_addr, size = d->cfg.p.capacity;
	struct cxd_resv *r;
	void *va;
	u64 i;

	/*
	 * First: a node-mode device's memory may already be System RAM
	 * (kmem). A devdax device's range stays claimed in /proc/iomem as
	 * long as its pages exist, and is found busy below.
	 */
	if (cxd_range_owner(start, size, CXD_MODE_NODE)) {
		cxd_warn(d, "power: phys_addr range [0x%llx, +%llu) overlaps a node-mode device",
			 start, size);
		return -EINVAL;
	}
	if (cxd_check_reserved_range(d, start, size))
		return -EINVAL;
	live->pages = kvcalloc(live->npages, sizeof(*live->pages), GFP_KERNEL);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!live->pages || !r) {
		kfree(r);
		return -ENOMEM;
	}
	INIT_LIST_HEAD(&r->node);
	live->resv = r;
	snprintf(r->name, sizeof(r->name), CXD_NAME ":%s",
		 config_item_name(&d->item));
	r->res = request_mem_region(start, size, r->name);
	if (!r->res) {
		cxd_warn(d, "power: phys_addr range [0x%llx, +%llu) is busy (another device or driver owns part of it, or the kernel still holds a page of it from an earlier power cycle)",
			 start, size);
		return -EINVAL;
	}
	r->pgmap.type = MEMORY_DEVICE_GENERIC;
	r->pgmap.range.start = start;
	r->pgmap.range.end = start + size - 1;
	r->pgmap.nr_range = 1;
	va = memremap_pages(&r->pgmap, NUMA_NO_NODE);
	if (IS_ERR(va)) {
		cxd_warn(d, "power: cannot give phys_addr range [0x%llx, +%llu) struct pages (memremap_pages: %ld)",
			 start, size, PTR_ERR(va));
		return PTR_ERR(va);
	}
	r->mapped = true;
	cxd_clear_range(va, size);
	for (i = 0; i < live->npages; i++) {
		live->pages[i] = pfn_to_page(PHYS_PFN(start) + i);
		cxd_page_own(live, i);
		if (!(i % 1024))
			cond_resched();
	}
	return 0;
}

static void cxd_release_backing(struct cxd_live *live)
{
	cxd_img_close(live, false);	/* a power-on that failed half-way */
	cxd_free_pages(live);
	if (live->resv) {
		cxd_resv_put(live->cfg_dev, live->resv);
		live->resv = NULL;
	}
}

static int cxd_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct cxd_live *live = file->private_data;

	/*
	 * VM_MAYSHARE, not VM_SHARED: for a file opened read-only the kernel
	 * clears VM_SHARED (and VM_MAYWRITE) from a MAP_SHARED mapping, which
	 * is still shared. devdax (check_vma()) tests VM_MAYSHARE too.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE)) {
		pr_info_ratelimited(CXD_NAME "%d: %s[%d]: MAP_PRIVATE is not supported, use MAP_SHARED\n",
				    MINOR(live->dev.devt), current->comm,
				    task_pid_nr(current));
		return -EINVAL;
	}
	if (cxd_vma_track(live, vma))
		return -ENOMEM;
	vma->vm_ops = &cxd_vm_ops;
	/*
	 * Device pages (runtime or ZONE_DEVICE) are mapped by the core as
	 * normal, refcounted pages (->fault returns them), which
	 * get_user_pages() can pin (O_DIRECT, shared futexes, vmsplice).
	 * The mappings carry VM_MIXEDMAP, as device-dax's VMAs are special
	 * to mm: mlock() neither splits nor locks them, NUMA balancing
	 * leaves them alone (the pages are not on the LRU; there is nothing
	 * to lock or migrate). Not VM_PFNMAP, not VM_DONTEXPAND:
	 * MADV_DONTNEED zaps, and mremap may grow the mapping (faults past
	 * the device's end raise SIGBUS), as with device-dax; from 6.12 (at
	 * the latest) mm refuses to grow a VM_MIXEDMAP mapping in place
	 * (ENOMEM), see docs/interface.md.
	 */
	vm_flags_set(vma, VM_MIXEDMAP | VM_DONTDUMP);
	return 0;
}

/**
 * cxd_open() - open /dev/cxdvirtN: count the file, and point it at the
 * device's private address_space, so that every mapping, through any device
 * node, is reached by unmap_mapping_pages().
 * @inode:	the device node's inode.
 * @file:	the new file.
 *
 * The file counts once, in open_count (struct cxd_live, "Open files"): the
 * open that makes it 1 pins the configfs item, so rmdir fails with -EBUSY
 * while the device is open, and power-off fails with -EBUSY while it is not
 * zero.
 *
 * Context: process, may sleep; takes open_mutex, then configfs's locks.
 * Return: 0, or -ENODEV once power-off has begun or while the configfs
 * folder is being removed.
 */
static int cxd_open(struct inode *inode, struct file *file)
{
	struct cxd_live *live = container_of(inode->i_cdev, struct cxd_live, cdev);
	bool first;
	int ret = 0;

	mutex_lock(&live->open_mutex);
	first = !live->open_count;	/* changes only under @open_mutex */
	if (first && cxd_dev_pin(live->cfg_dev))
		ret = -ENODEV;
	if (!ret) {
		spin_lock(&live->open_lock);
		if (live->dead)
			ret = -ENODEV;
		else
			live->open_count++;
		spin_unlock(&live->open_lock);
		if (ret && first)
			cxd_dev_unpin(live->cfg_dev);
	}
	mutex_unlock(&live->open_mutex);
	if (ret)
		return ret;
	file->private_data = live;
	file->f_mapping = live->inode->i_mapping;
	return 0;
}

/*
 * The last file of the device (its last mapping gone too): power-off and
 * rmdir may go ahead. @live outlives this call: the file still holds the cdev.
 */
static int cxd_release(struct inode *inode, struct file *file)
{
	struct cxd_live *live = file->private_data;
	bool last;

	mutex_lock(&live->open_mutex);
	spin_lock(&live->open_lock);
	last = !--live->open_count;
	spin_unlock(&live->open_lock);
	if (last)
		cxd_dev_unpin(live->cfg_dev);
	mutex_unlock(&live->open_mutex);
	return 0;
}

/*
 * msync(MS_SYNC)/fsync: with a NAND image, write the range's dirty lines
 * back (cxd_img_flush()): the program's persistence barrier, as the flush
 * command of a memory-semantic SSD's block interface. With host RAM there
 * is nothing to persist to, and the device keeps device-dax's behaviour
 * (no ->fsync there: MS_SYNC fails with EINVAL).
 */
static int cxd_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	struct cxd_live *live = file->private_data;

	if (!live->img)
		return -EINVAL;
	return cxd_img_flush(live, start, end);
}

static const struct file_operations cxd_fops = {
	.owner		= THIS_MODULE,
	.open		= cxd_open,
	.release	= cxd_release,
	.mmap		= cxd_mmap,
	.fsync		= cxd_fsync,
	CXD_FOPS_MAP_SYNC,
	.llseek		= noop_llseek,
};

/* Slots per cache line with a NAND image (struct cxd_live, @pslots). */
#define CXD_PSLOTS_PER_LINE	4

/*
 * The fault path's page locks (struct cxd_live, @pslots): one slot per
 * device page, or with a NAND image (@image) CXD_PSLOTS_PER_LINE per cache
 * line, so that host memory per device page does not grow with capacity.
 */
static int cxd_alloc_pslots(struct cxd_live *live, bool image)
{
	u64 n = image ? (u64)live->model.cache.nlines * CXD_PSLOTS_PER_LINE :
			live->npages;

	n = roundup_pow_of_two(max_t(u64, n, 64));
	if (image)
		n = min_t(u64, n, roundup_pow_of_two(live->npages));
	live->pslots = kvcalloc(n, sizeof(*live->pslots), GFP_KERNEL);
	if (!live->pslots)
		return -ENOMEM;
	live->pslot_mask = n - 1;
	return 0;
}

/*
 * Power-on (cxd_mode_ops.attach): the open count's locks and the stopped
 * scan, backing, char device, then the scan started.
 */
static int cxd_devdax_attach(struct cxd_dev *d, struct cxd_live *live)
{
	const struct cxd_cfg *c = &d->cfg;
	int ret;

	mutex_init(&live->open_mutex);
	spin_lock_init(&live->open_lock);
	cxd_scan_init(live);
	live->inode = alloc_anon_inode(cxd_mnt->mnt_sb);
	if (IS_ERR(live->inode)) {
		ret = PTR_ERR(live->inode);
		live->inode = NULL;
		return ret;
	}

	/* RAM backing beyond the host's memory: fail at once, not after taking every free page. */
	if (!*c->nand_backing && !c->phys_addr && live->npages > totalram_pages()) {
		cxd_warn(d, "power: RAM backing needs %llu bytes, more than the host's memory (%llu bytes): use a NAND image (nand_backing)",
			 c->p.capacity, (u64)totalram_pages() << PAGE_SHIFT);
		return -EINVAL;
	}
	ret = cxd_alloc_pslots(live, *c->nand_backing);
	if (ret)
		return ret;
	if (*c->nand_backing)
		ret = cxd_img_open(d, live);
	else if (c->phys_addr)
		ret = cxd_claim_range(d, live);
	else
		ret = cxd_alloc_pages(d, live);
	if (ret)
		return ret;

	cdev_init(&live->cdev, &cxd_fops);
	live->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&live->cdev, &live->dev);
	if (ret) {
		cxd_warn(d, "power: cannot add /dev/" CXD_NAME "%d: %d",
			 d->index, ret);
		return ret;
	}
	cxd_scan_set_interval(live, c->scan_interval_ms);
	cxd_fentry_get();	/* stays attached until unload */
	return 0;
}

/*
 * Power-off may go (cxd_mode_ops.close) once no file is open: none is
 * mapped then, and no fault can run. From then on no open succeeds.
 */
static int cxd_devdax_close(struct cxd_live *live)
{
	spin_lock(&live->open_lock);
	if (live->open_count) {
		spin_unlock(&live->open_lock);
		cxd_warn(live->cfg_dev, "power: device is open or mapped (%u users)",
			 live->open_count);
		return -EBUSY;
	}
	live->dead = true;
	spin_unlock(&live->open_lock);
	return 0;
}

static void cxd_devdax_detach(struct cxd_live *live)
{
	cdev_device_del(&live->cdev, &live->dev);
	/* now, not at release: the next power-on must find the image whole */
	cxd_img_close(live, live->power_failing);
}

/* The last reference is gone (cxd_mode_ops.release). */
static void cxd_devdax_release(struct cxd_live *live)
{
	cxd_release_backing(live);
	kvfree(live->pslots);
	if (live->inode)
		iput(live->inode);
}

static const struct cxd_mode_ops cxd_devdax_ops = {
	.attach		= cxd_devdax_attach,
	.close		= cxd_devdax_close,
	.detach		= cxd_devdax_detach,
	.evict		= cxd_evict_page,	/* fault.c */
	.release	= cxd_devdax_release,
	.scan_interval	= cxd_scan_set_interval,	/* scan.c */
};

/**
 * cxd_devdax_init() - module load: the pseudo filesystem that gives every device its private inode, the
 * NAND images' flush at host shutdown (cxd_img_init()), the mode, and the
 * check of the page-table walk the scan needs (cxd_scan_selftest()).
 * Context: module init, in the loading process.
 * Return: 0, or kern_mount()'s or cxd_img_init()'s negative errno.
 */
int cxd_devdax_init(void)
{
	int ret;

	cxd_mnt = kern_mount(&cxd_fs_type);
	if (IS_ERR(cxd_mnt))
		return PTR_ERR(cxd_mnt);
	ret = cxd_img_init();
	if (ret) {
		kern_unmount(cxd_mnt);
		return ret;
	}
	cxd_mode_register(CXD_MODE_DEVDAX, &cxd_devdax_ops);
	cxd_scan_selftest();
	return 0;
}

/**
 * cxd_devdax_exit() - module unload; no device is powered. A reserved range
 * whose page the kernel still holds (cxd_resv_put()) is released if it has
 * been let go meanwhile, else left claimed, with its pages, until reboot:
 * they refer to no code of the module.
 */
void cxd_devdax_exit(void)
{
	struct cxd_resv *r;

	for (;;) {
		mutex_lock(&cxd_held_mutex);
		r = list_first_entry_or_null(&cxd_held, struct cxd_resv, node);
		if (r)
			list_del_init(&r->node);
		mutex_unlock(&cxd_held_mutex);
		if (!r)
			break;
		cancel_delayed_work_sync(&r->work);
		if (cxd_resv_held_page(r) < 0)
			cxd_resv_free(r);
		else
			pr_warn(CXD_NAME ": %s: a page is still held by the kernel at unload: the range stays claimed until reboot\n",
				r->name);
	}
	cxd_img_exit();
	kern_unmount(cxd_mnt);
}
