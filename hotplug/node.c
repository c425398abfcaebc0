// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt node mode: a device's physical range as memory of a CPU-less NUMA
 * node, through the kernel's own drivers.
 *
 * Power-on registers a platform device named "hmem" whose resource is the
 * device's range (reserved at boot with memmap=SIZE$ADDR) and whose platform
 * data (struct memregion_info) names the target node. The stock dax_hmem
 * driver binds to it and creates a dax region with one dax device (daxN.0)
 * covering the range. `daxctl reconfigure-device --mode=system-ram daxN.0`
 * hands it to kmem, which hot-adds the range to the target node; daxctl
 * onlines it as ZONE_MOVABLE. Kernels that default to auto-online may do
 * the binding and onlining themselves (see docs/numa-mode.md).
 *
 * Before the dax device exists, the node's abstract distance is set from
 * the modeled device (hotplug/tier.c), so ours decides the node's memory
 * tier. The class device cxdvirtN shows the node's state in files of its
 * own (the groups at the end of this file).
 *
 * Rules that keep teardown safe:
 * - Power-off refuses (-EBUSY) while any memory block of the range is
 *   online. Removing the dax device then would leave the memory online and
 *   the range unusable until reboot (kmem cannot hot-remove online memory).
 *   The check and the removal cannot be made atomic with the kernel's own
 *   lock (lock_device_hotplug() is not exported, and kmem's removal takes
 *   it), so a memory notifier closes the gap: once power-off has checked,
 *   onlining any block of the range is refused (MEM_GOING_ONLINE returns
 *   -EBUSY), and the check itself fails while an online of the range is
 *   between MEM_GOING_ONLINE and MEM_ONLINE (cxd_node_close()).
 * - A powered node-mode device holds a configfs dependency on its item, so
 *   rmdir fails with -EBUSY until the device is powered off.
 *
 * Locking: every function here except the sysfs files' show functions (and
 * cxd_node_dax_name_get(), cxd_node_get_state()) runs under cxd_cfg_mutex,
 * which also protects cxd_nodes. The sysfs files only read fields fixed at
 * attach, and are removed (device_del()) before detach.
 */
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/ioport.h>
#include <linux/kmod.h>
#include <linux/memory.h>
#include <linux/memory_hotplug.h>
#include <linux/memory-tiers.h>
#include <linux/memregion.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmstat.h>

#include <cxdvirt/params.h>

#include "compat.h"
#include "cxdvirt.h"
#include "node.h"
#include "nodelat.h"
#include "tier.h"

/**
 * struct cxd_node - a powered node-mode device.
 * @list:	entry in cxd_nodes.
 * @owner:	the configured device.
 * @start:	first byte of the range.
 * @size:	bytes; a multiple of the memory block size.
 * @nid:	target node.
 * @id:		memregion id: the N of hmem.N and of the dax region.
 * @adistance:	abstract distance of @mtype.
 * @pdev:	the "hmem" platform device dax_hmem binds to.
 * @mtype:	our memory type, set on @nid before kmem can bind (kernels
 *		before 6.7; NULL on newer ones, where kmem owns it).
 * @res_name:	name of the range in /proc/iomem.
 * @lat:	node-mode latency state (hotplug/nodelat.c), NULL when
 *		node_latency is off.
 * @closing:	power-off checked the range offline: refuse to online it
 *		(under cxd_node_hp_lock).
 * @onlining:	an online of part of the range is under way, between
 *		MEM_GOING_ONLINE and MEM_ONLINE or MEM_CANCEL_ONLINE (under
 *		cxd_node_hp_lock; onlines are serialized by the kernel's
 *		mem_hotplug_lock, so one flag is enough).
 */
struct cxd_node {
	struct list_head list;
	struct cxd_dev *owner;
	u64 start;
	u64 size;
	int nid;
	int id;
	int adistance;
	struct platform_device *pdev;
	struct memory_dev_type *mtype;
	char res_name[CXD_NAME_MAX + sizeof(CXD_NAME ":")];
	struct cxd_nodelat *lat;
	bool closing;
	bool onlining;
};

/**
 * struct cxd_node_state - what node mode shows in sysfs.
 * @online_bytes:	bytes of the range in online memory blocks.
 * @movable_bytes:	of those, bytes in ZONE_MOVABLE.
 * @node_used_bytes:	pages of the target node in use (managed - free),
 *			bytes; the node holds only this device's memory.
 */
struct cxd_node_state {
	u64 online_bytes;
	u64 movable_bytes;
	u64 node_used_bytes;
};

static LIST_HEAD(cxd_nodes);
/*
 * Protects cxd_nodes for the memory notifier (changes also hold
 * cxd_cfg_mutex, which the notifier cannot take: power-on may online memory
 * under it) and each node's @closing and @onlining.
 */
static DEFINE_SPINLOCK(cxd_node_hp_lock);

/*
 * Testing only: power-off sleeps this long between its check that the range
 * is offline and the removal, so a test can try to online memory in between.
 */
static unsigned int node_off_delay_ms;
module_param(node_off_delay_ms, uint, 0644);
MODULE_PARM_DESC(node_off_delay_ms,
		 "testing only: node-mode power-off waits this many ms between its offline check and the removal (default 0)");

/*
 * Memory notifier: refuse to online blocks of a range whose power-off has
 * checked it offline, and track onlines under way (see cxd_node_close()).
 * Context: process, under the kernel's mem_hotplug_lock (write).
 */
static int cxd_node_mem_notify(struct notifier_block *nb, unsigned long action,
			       void *data)
{
	const struct memory_notify *mn = data;
	u64 start = PFN_PHYS(mn->start_pfn);
	u64 end = start + PFN_PHYS(mn->nr_pages);
	int ret = NOTIFY_OK;
	struct cxd_node *n;

	if (action != MEM_GOING_ONLINE && action != MEM_ONLINE &&
	    action != MEM_CANCEL_ONLINE)
		return NOTIFY_DONE;
	spin_lock(&cxd_node_hp_lock);
	list_for_each_entry(n, &cxd_nodes, list) {
		if (end <= n->start || start >= n->start + n->size)
			continue;
		if (action != MEM_GOING_ONLINE) {
			n->onlining = false;
		} else if (n->closing) {
			pr_info_ratelimited(CXD_NAME ": %s: power-off under way: refusing to online [0x%llx-0x%llx]\n",
					    config_item_name(&n->owner->item),
					    start, end - 1);
			ret = notifier_from_errno(-EBUSY);
		} else {
			n->onlining = true;
		}
	}
	spin_unlock(&cxd_node_hp_lock);
	return ret;
}

static struct notifier_block cxd_node_mem_nb = {
	.notifier_call = cxd_node_mem_notify,
};

/*
 * Can node @nid take a node-mode device? It must be possible (node ids are
 * fixed at boot: SRAT proximity domains, hotplug ranges, CXL windows) and
 * must have no memory yet, so that everything on it comes from the device.
 * Return NULL if so, else the reason.
 * Context: any; the answer can change with memory hotplug.
 */
static const char *cxd_node_check_target(int nid)
{
	if (nid < 0 || nid >= MAX_NUMNODES)
		return "not a node number";
	if (!node_possible(nid))
		return "not a possible node (node ids are fixed at boot)";
	if (node_state(nid, N_MEMORY))
		return "already has memory";
	return NULL;
}

/*
 * cxd_mode_ops.param_check: node mode's parameters, as they are written.
 * target_node: -1 (none) or a node that can take a device; node_latency:
 * on only where this kernel supports it.
 */
static const char *cxd_node_param_check(int id, u64 v, int *err)
{
	switch (id) {
	case CXD_PARAM_target_node:
		*err = -EINVAL;
		if ((s64)v == NUMA_NO_NODE)
			return NULL;
		return cxd_node_check_target((int)(s64)v);
	case CXD_PARAM_node_latency:
		*err = -EOPNOTSUPP;
		if (v && !cxd_nodelat_supported())
			return "not supported on this kernel (Linux 6.1 and 6.12 are; 7.x does not export the TLB flush and page-range walk eviction needs)";
		return NULL;
	}
	return NULL;
}

/*
 * Checks before anything changes. Each failure logs one line and returns
 * -EINVAL.
 */
static int cxd_node_validate(struct cxd_dev *d)
{
	const struct cxd_cfg *c = &d->cfg;
	u64 start = c->phys_addr, size = c->p.capacity;
	u64 block = memory_block_size_bytes();
	struct range plug = mhp_get_pluggable_range(true);
	struct cxd_dev *owner;
	struct cxd_node *n;
	const char *why;

	if (!start) {
		cxd_warn(d, "power: mode node needs phys_addr, a range reserved at boot with memmap=SIZE$ADDR");
		return -EINVAL;
	}
	if (start % block || size % block) {
		cxd_warn(d, "power: phys_addr 0x%llx and capacity %llu must be multiples of the memory block size (%llu)",
			 start, size, block);
		return -EINVAL;
	}
	if (c->target_node == NUMA_NO_NODE) {
		cxd_warn(d, "power: mode node needs target_node");
		return -EINVAL;
	}
	why = cxd_node_check_target(c->target_node);
	if (why) {
		cxd_warn(d, "power: target_node %d: %s", c->target_node, why);
		return -EINVAL;
	}
	/*
	 * The first node-mode device, in power-on order, that has the node or
	 * an overlapping range (the core's table, range.c) is named. A
	 * devdax-mode device's range is found busy below.
	 */
	owner = cxd_range_owner(start, size, CXD_MODE_NODE);
	list_for_each_entry(n, &cxd_nodes, list) {
		if (n->nid == c->target_node) {
			cxd_warn(d, "power: target_node %d is used by device %s",
				 n->nid, config_item_name(&n->owner->item));
			return -EINVAL;
		}
		if (n->owner == owner) {
			cxd_warn(d, "power: phys_addr range [0x%llx, +%llu) overlaps device %s",
				 start, size, config_item_name(&n->owner->item));
			return -EINVAL;
		}
	}
	if (start < plug.start || start + size - 1 > plug.end) {
		cxd_warn(d, "power: phys_addr range [0x%llx, +%llu) is outside what memory hotplug can add",
			 start, size);
		return -EINVAL;
	}
	if (cxd_check_reserved_range(d, start, size))
		return -EINVAL;
	/*
	 * Nobody may own any part of it: a trial claim fails on any busy
	 * resource inside (a devdax-mode device, a driver). It is released at
	 * once because kmem claims the range itself later.
	 */
	if (!request_mem_region(start, size, CXD_NAME)) {
		cxd_warn(d, "power: phys_addr range [0x%llx, +%llu) is busy (another device or driver owns part of it)",
			 start, size);
		return -EINVAL;
	}
	release_mem_region(start, size);
	return 0;
}

static void cxd_node_blocks(const struct cxd_node *n, u64 *online,
			    u64 *movable);

/*
 * Kernels with IORESOURCE_DAX_KMEM (6.3+: dax_hmem marks its region for
 * kmem) bind kmem at once, and with memory auto-online (Debian 6.12:
 * MHP_DEFAULT_ONLINE_TYPE_ONLINE_AUTO) the memory comes up online before
 * power-on returns, as ZONE_NORMAL unless the policy says online_movable.
 * Normal-zone memory takes unmovable allocations and may never offline, so
 * the device could never be powered off. A module cannot read the policy
 * (/sys/devices/system/memory/auto_online_blocks) cleanly beforehand, so
 * this only reports what happened; tools set the policy first.
 */
static void cxd_node_check_auto_online(struct cxd_node *n)
{
	u64 online, movable;

	cxd_node_blocks(n, &online, &movable);
	if (online > movable)
		cxd_warn(n->owner, "power: the kernel onlined %llu MiB of node %d outside ZONE_MOVABLE (auto_online_blocks policy): it may never offline; write offline or online_movable to /sys/devices/system/memory/auto_online_blocks before power-on",
			 (online - movable) >> 20, n->nid);
}

/* dax_hmem bound to @pdev? */
static bool cxd_hmem_bound(struct platform_device *pdev)
{
	bool bound;

	device_lock(&pdev->dev);
	bound = pdev->dev.driver;
	device_unlock(&pdev->dev);
	return bound;
}

static int cxd_hmem_add(struct cxd_node *n)
{
	struct memregion_info mri = { .target_node = n->nid };
	struct resource res = DEFINE_RES_MEM_NAMED(n->start, n->size,
						   n->res_name);
	struct platform_device *pdev;
	int ret;

	cxd_memregion_info_set_range(&mri, n->start, n->start + n->size - 1);
	pdev = platform_device_alloc("hmem", n->id);
	if (!pdev)
		return -ENOMEM;
	/* The device's own node: an online node near the target. */
	set_dev_node(&pdev->dev, numa_map_to_online_node(n->nid));
	ret = platform_device_add_data(pdev, &mri, sizeof(mri));
	if (!ret)
		ret = platform_device_add_resources(pdev, &res, 1);
	if (!ret)
		ret = platform_device_add(pdev);
	if (ret) {
		platform_device_put(pdev);
		return ret;
	}
	n->pdev = pdev;
	return 0;
}

/*
 * Power on device @d in node mode.
 * @d:	device, mode node, not powered.
 * @live:	its runtime state under construction; live->node is set on success.
 *
 * Validates the configuration (range reserved, free, aligned to the memory
 * block size; target node possible and empty; neither used by another
 * device), sets the target node's memory type, then registers the "hmem"
 * platform device and waits for dax_hmem to bind (loading it if needed).
 *
 * Context: process, may sleep; caller holds cxd_cfg_mutex; called from the
 * configfs power store.
 * Return: 0; -EINVAL for a bad configuration or when dax_hmem does not bind
 * (one log line says why); -ENOMEM; -ENOENT if the item is being removed.
 */
static int cxd_node_register(struct cxd_dev *d, struct cxd_live *live)
{
	struct cxd_node *n;
	int ret;

	lockdep_assert_held(&cxd_cfg_mutex);
	ret = cxd_node_validate(d);
	if (ret)
		return ret;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	n->owner = d;
	n->start = d->cfg.phys_addr;
	n->size = d->cfg.p.capacity;
	n->nid = d->cfg.target_node;
	snprintf(n->res_name, sizeof(n->res_name), CXD_NAME ":%s",
		 config_item_name(&d->item));

	/* rmdir must wait for power-off: see the top of this file. */
	ret = cxd_dev_pin_unlocked(d);
	if (ret)
		goto err_free;

	n->adistance = cxd_tier_adistance(&d->cfg.p.nand);
	ret = cxd_tier_set(n->nid, n->adistance, &n->mtype);
	if (ret)
		goto err_undepend;

	n->id = memregion_alloc(GFP_KERNEL);
	if (n->id < 0) {
		ret = n->id;
		goto err_mtype;
	}
	/* Hooks first: the memory may come up online as soon as it is added. */
	if (d->cfg.node_latency) {
		ret = cxd_nodelat_start(live, config_item_name(&d->item), n->start,
					n->size, d->cfg.scan_interval_ms,
					&n->lat);
		if (ret)
			goto err_region;
	}
	ret = cxd_hmem_add(n);
	if (ret) {
		cxd_warn(d, "power: cannot register platform device hmem.%d: %d",
			 n->id, ret);
		goto err_lat;
	}
	if (!cxd_hmem_bound(n->pdev)) {
		/* No udev in some setups: load the driver; it binds on load. */
		request_module("dax_hmem");
		if (!cxd_hmem_bound(n->pdev)) {
			cxd_warn(d, "power: dax_hmem did not bind to hmem.%d (is the dax_hmem module available?)",
				 n->id);
			ret = -EINVAL;
			goto err_pdev;
		}
	}
	spin_lock(&cxd_node_hp_lock);
	list_add_tail(&n->list, &cxd_nodes);
	spin_unlock(&cxd_node_hp_lock);
	live->node = n;
	cxd_node_check_auto_online(n);
	pr_info(CXD_NAME ": %s: range [0x%llx-0x%llx] registered as hmem.%d for node %d (abstract distance %d, node_latency %s)\n",
		config_item_name(&d->item), n->start, n->start + n->size - 1,
		n->id, n->nid, n->adistance, n->lat ? "on" : "off");
	return 0;

err_pdev:
	platform_device_unregister(n->pdev);
err_lat:
	if (n->lat)
		cxd_nodelat_stop(n->lat);
err_region:
	memregion_free(n->id);
err_mtype:
	cxd_tier_clear(n->nid, n->mtype);
err_undepend:
	cxd_dev_unpin(d);
err_free:
	kfree(n);
	return ret;
}

/*
 * Walk the range one memory block at a time. pfn_to_online_page() is NULL
 * for a block that is offline or not added (kmem not bound).
 */
static void cxd_node_blocks(const struct cxd_node *n, u64 *online,
			    u64 *movable)
{
	u64 block = memory_block_size_bytes();
	u64 addr;

	*online = 0;
	*movable = 0;
	for (addr = n->start; addr < n->start + n->size; addr += block) {
		struct page *page = pfn_to_online_page(PHYS_PFN(addr));

		if (!page)
			continue;
		*online += block;
		if (page_zonenum(page) == ZONE_MOVABLE)
			*movable += block;
	}
}

struct cxd_dax_name {
	char *buf;
	size_t len;
};

/*
 * Copy the name here: device_for_each_child() holds a reference on @dev
 * only during this call, and the dax device may be destroyed right after.
 */
static int cxd_find_dax(struct device *dev, void *data)
{
	struct cxd_dax_name *name = data;

	if (dev->bus && !strcmp(dev->bus->name, "dax")) {
		strscpy(name->buf, dev_name(dev), name->len);
		return 1;
	}
	return 0;
}

/*
 * The dax device dax_hmem created, e.g. "dax0.0".
 * @live:		powered node-mode device.
 * @buf:	receives the name, or "" if there is none (daxctl destroyed it).
 * @len:	size of @buf.
 *
 * Context: process (sysfs show); the platform device lives while @live->node
 * does.
 */
static void cxd_node_dax_name_get(const struct cxd_live *live, char *buf,
				  size_t len)
{
	struct cxd_dax_name name = { .buf = buf, .len = len };

	buf[0] = '\0';
	device_for_each_child(&live->node->pdev->dev, &name, cxd_find_dax);
}

/*
 * May powered node-mode device @live be powered off (cxd_mode_ops.close)? If
 * so, from now on no memory block of its range can be onlined.
 * @live:	powered node-mode device.
 *
 * Marks the range closing (the memory notifier refuses MEM_GOING_ONLINE for
 * it from then on), then checks that no online of the range is under way
 * and that no block of it is online. With both true, the range stays
 * offline until cxd_node_unregister() has removed it. Otherwise the mark is
 * dropped again and onlining works as before.
 *
 * Context: process; caller holds cxd_cfg_mutex. Node-mode latency needs
 * nothing more: with the memory offline no PTE maps it, and accesses still
 * queued on tasks keep their own references (hotplug/nodelat.c).
 * Return: 0 (cxd_node_unregister() comes next), or -EBUSY (one log line)
 * while part of the range is online or being onlined.
 */
static int cxd_node_close(struct cxd_live *live)
{
	struct cxd_node *n = live->node;
	u64 online = 0, movable;
	bool onlining;
	char dax[32];

	spin_lock(&cxd_node_hp_lock);
	n->closing = true;
	onlining = n->onlining;
	spin_unlock(&cxd_node_hp_lock);
	/* An online that finished before the mark is seen here. */
	if (!onlining)
		cxd_node_blocks(n, &online, &movable);
	if (!onlining && !online) {
		if (node_off_delay_ms)
			msleep(node_off_delay_ms);
		return 0;
	}
	spin_lock(&cxd_node_hp_lock);
	n->closing = false;
	spin_unlock(&cxd_node_hp_lock);
	cxd_node_dax_name_get(live, dax, sizeof(dax));
	if (onlining)
		cxd_warn(n->owner, "power: memory of the range is being onlined on node %d: offline it first (daxctl offline-memory %s)",
			 n->nid, dax);
	else
		cxd_warn(n->owner, "power: %llu MiB of the range are online memory of node %d: offline it first (daxctl offline-memory %s)",
			 online >> 20, n->nid, dax);
	return -EBUSY;
}

/*
 * Undo cxd_node_register() for @live.
 * @live:	powered node-mode device whose memory is offline (cxd_node_close()
 *	returned 0), or whose power-on is being undone; its sysfs files are
 *	already removed.
 *
 * Unregisters the platform device (dax_hmem's devm teardown removes the dax
 * device; a bound kmem removes the offline memory), frees the memregion id,
 * clears the node's memory type and drops the configfs dependency.
 *
 * Context: process; caller holds cxd_cfg_mutex.
 */
static void cxd_node_unregister(struct cxd_live *live)
{
	struct cxd_node *n = live->node;

	lockdep_assert_held(&cxd_cfg_mutex);
	/* Still closing: nothing onlines the range until it is removed. */
	if (n->lat)
		cxd_nodelat_stop(n->lat);
	platform_device_unregister(n->pdev);
	spin_lock(&cxd_node_hp_lock);
	list_del(&n->list);
	spin_unlock(&cxd_node_hp_lock);
	memregion_free(n->id);
	/* After the unbind: kmem's own clear must find our type still set. */
	cxd_tier_clear(n->nid, n->mtype);
	cxd_dev_unpin(n->owner);
	pr_info(CXD_NAME ": %s: hmem.%d for node %d unregistered\n",
		config_item_name(&n->owner->item), n->id, n->nid);
	live->node = NULL;
	kfree(n);
}

/*
 * Online state and use of node-mode device @live.
 * @live:	powered node-mode device.
 * @st:	filled in; see struct cxd_node_state.
 *
 * A snapshot: memory may be onlined or offlined at any time.
 * Context: process (sysfs show).
 */
static void cxd_node_get_state(const struct cxd_live *live,
			       struct cxd_node_state *st)
{
	const struct cxd_node *n = live->node;
	u64 used = 0;
	int z;

	cxd_node_blocks(n, &st->online_bytes, &st->movable_bytes);
	if (node_online(n->nid) && NODE_DATA(n->nid)) {
		pg_data_t *pgdat = NODE_DATA(n->nid);

		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &pgdat->node_zones[z];
			unsigned long managed = zone_managed_pages(zone);
			unsigned long free = zone_page_state(zone, NR_FREE_PAGES);

			used += managed - min(free, managed);
		}
	}
	st->node_used_bytes = used << PAGE_SHIFT;
}

/* ------------------------------------------------------------- sysfs -- */

/*
 * The class device's node-mode files: where the device's memory went, and
 * node_latency/ (hotplug/nodelat.c) with "enabled" and the counters of
 * struct cxd_nodelat_stats. Only a device powered in node mode has them;
 * mode, every device's, is in driver/sysfs.c.
 */
static ssize_t target_node_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  cxd_dev_to_live(dev)->cfg_dev->cfg.target_node);
}
static DEVICE_ATTR_RO(target_node);

static ssize_t dax_device_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	char name[32];

	cxd_node_dax_name_get(cxd_dev_to_live(dev), name, sizeof(name));
	return sysfs_emit(buf, "%s\n", name);
}
static DEVICE_ATTR_RO(dax_device);

static ssize_t adistance_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", cxd_dev_to_live(dev)->node->adistance);
}
static DEVICE_ATTR_RO(adistance);

static ssize_t online_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct cxd_live *live = cxd_dev_to_live(dev);
	struct cxd_node_state st;
	const char *s;

	cxd_node_get_state(live, &st);
	if (!st.online_bytes)
		s = "offline";
	else if (st.online_bytes == live->npages * CXD_HOST_PAGE_SIZE)
		s = "online";
	else
		s = "partial";
	return sysfs_emit(buf, "%s\n", s);
}
static DEVICE_ATTR_RO(online);

/* CXD_NODE_ATTR() - a read-only file showing one field of cxd_node_state. */
#define CXD_NODE_ATTR(_name)						\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct cxd_node_state st;					\
									\
	cxd_node_get_state(cxd_dev_to_live(dev), &st);				\
	return sysfs_emit(buf, "%llu\n", st._name);			\
}									\
static DEVICE_ATTR_RO(_name)

CXD_NODE_ATTR(online_bytes);
CXD_NODE_ATTR(movable_bytes);
CXD_NODE_ATTR(node_used_bytes);

static struct attribute *cxd_node_attrs[] = {
	&dev_attr_target_node.attr,
	&dev_attr_dax_device.attr,
	&dev_attr_adistance.attr,
	&dev_attr_online.attr,
	&dev_attr_online_bytes.attr,
	&dev_attr_movable_bytes.attr,
	&dev_attr_node_used_bytes.attr,
	NULL,
};

static const struct attribute_group cxd_node_group = {
	.attrs = cxd_node_attrs,
};

/*
 * Node-mode latency (hotplug/nodelat.c): node_latency/ holds "enabled" and
 * the counters of struct cxd_nodelat_stats; only for node-mode devices.
 */
static ssize_t enabled_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  cxd_dev_to_live(dev)->cfg_dev->cfg.node_latency ? 1 : 0);
}
static DEVICE_ATTR_RO(enabled);

/*
 * How this kernel makes an evicted page non-resident (compat.h):
 * "prot-none" (6.1, 6.12) or "device-exclusive" (7.2); "none" where node
 * latency is not supported.
 */
static ssize_t mechanism_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", !CXD_NODE_LATENCY ? "none" :
			  CXD_NL_EXCLUSIVE ? "device-exclusive" : "prot-none");
}
static DEVICE_ATTR_RO(mechanism);

#define CXD_NODELAT_ATTR(_name)						\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct cxd_nodelat_stats st;					\
									\
	cxd_nodelat_get_stats(cxd_dev_to_live(dev)->node->lat, &st);	\
	return sysfs_emit(buf, "%llu\n", st._name);			\
}									\
static DEVICE_ATTR_RO(_name)

CXD_NODELAT_ATTR(tracked_mms);
CXD_NODELAT_ATTR(first_touches);
CXD_NODELAT_ATTR(hint_faults);
CXD_NODELAT_ATTR(file_maps);
CXD_NODELAT_ATTR(faultaround_limited);
CXD_NODELAT_ATTR(faultaround_pages);
CXD_NODELAT_ATTR(arrivals);
CXD_NODELAT_ATTR(departures);
CXD_NODELAT_ATTR(departures_discarded);
CXD_NODELAT_ATTR(anon_maps);
CXD_NODELAT_ATTR(remote_accesses);
CXD_NODELAT_ATTR(promotions_refused);
CXD_NODELAT_ATTR(evicted_ptes);
CXD_NODELAT_ATTR(evicted_unmaps);
CXD_NODELAT_ATTR(evictions_unmapped);
CXD_NODELAT_ATTR(evictions_moved);
CXD_NODELAT_ATTR(fork_rearmed);
CXD_NODELAT_ATTR(mprotect_rearmed);
CXD_NODELAT_ATTR(late_writebacks);
CXD_NODELAT_ATTR(evictions_uncovered);
CXD_NODELAT_ATTR(scan_rearmed);
CXD_NODELAT_ATTR(scan_walks);
CXD_NODELAT_ATTR(scan_lookups);
CXD_NODELAT_ATTR(thp_untracked_pages);
CXD_NODELAT_ATTR(hugetlb_untracked_pages);
CXD_NODELAT_ATTR(thp_refused_pages);
CXD_NODELAT_ATTR(thp_collapse_refused);
CXD_NODELAT_ATTR(probes_missed);
CXD_NODELAT_ATTR(waited_accesses);
CXD_NODELAT_ATTR(waited_ns_total);
CXD_NODELAT_ATTR(kernel_accesses);
CXD_NODELAT_ATTR(events_dropped);
CXD_NODELAT_ATTR(pending);

static struct attribute *cxd_nodelat_attrs[] = {
	&dev_attr_enabled.attr,
	&dev_attr_mechanism.attr,
	&dev_attr_tracked_mms.attr,
	&dev_attr_first_touches.attr,
	&dev_attr_hint_faults.attr,
	&dev_attr_file_maps.attr,
	&dev_attr_faultaround_limited.attr,
	&dev_attr_faultaround_pages.attr,
	&dev_attr_arrivals.attr,
	&dev_attr_departures.attr,
	&dev_attr_departures_discarded.attr,
	&dev_attr_anon_maps.attr,
	&dev_attr_remote_accesses.attr,
	&dev_attr_promotions_refused.attr,
	&dev_attr_evicted_ptes.attr,
	&dev_attr_evicted_unmaps.attr,
	&dev_attr_evictions_unmapped.attr,
	&dev_attr_evictions_moved.attr,
	&dev_attr_fork_rearmed.attr,
	&dev_attr_mprotect_rearmed.attr,
	&dev_attr_late_writebacks.attr,
	&dev_attr_evictions_uncovered.attr,
	&dev_attr_scan_rearmed.attr,
	&dev_attr_scan_walks.attr,
	&dev_attr_scan_lookups.attr,
	&dev_attr_thp_untracked_pages.attr,
	&dev_attr_hugetlb_untracked_pages.attr,
	&dev_attr_thp_refused_pages.attr,
	&dev_attr_thp_collapse_refused.attr,
	&dev_attr_probes_missed.attr,
	&dev_attr_waited_accesses.attr,
	&dev_attr_waited_ns_total.attr,
	&dev_attr_kernel_accesses.attr,
	&dev_attr_events_dropped.attr,
	&dev_attr_pending.attr,
	NULL,
};

static const struct attribute_group cxd_nodelat_group = {
	.name = "node_latency",
	.attrs = cxd_nodelat_attrs,
};

static const struct attribute_group *cxd_node_groups[] = {
	&cxd_node_group,
	&cxd_nodelat_group,
	NULL,
};


/* ------------------------------------------------------- power on/off -- */

/*
 * cxd_mode_ops.attach: no char device (the memory is reached as NUMA
 * memory), only the class device with the node-mode files, added once the
 * range is registered.
 */
static int cxd_node_attach(struct cxd_dev *d, struct cxd_live *live)
{
	int ret;

	live->dev.devt = 0;
	live->dev.groups = cxd_node_groups;
	ret = cxd_node_register(d, live);
	if (ret)
		return ret;
	ret = device_add(&live->dev);
	if (ret) {
		cxd_warn(d, "power: cannot add " CXD_NAME "%d: %d", d->index, ret);
		cxd_node_unregister(live);
		return ret;
	}
	return 0;
}

/*
 * cxd_mode_ops.scan_interval: node mode has no mappings of its own (its
 * memory is reached as NUMA memory), so only node-mode latency's scan of
 * the node's pages (hotplug/nodelat.c) follows the interval, reading it
 * before each pass.
 */
static void cxd_node_scan_interval(struct cxd_live *live, unsigned int ms)
{
	WRITE_ONCE(live->scan_interval_ms, ms);
}

/* cxd_mode_ops.detach, once cxd_node_close() returned 0. */
static void cxd_node_detach(struct cxd_live *live)
{
	device_del(&live->dev);
	cxd_node_unregister(live);
}

static const struct cxd_mode_ops cxd_node_ops = {
	.attach		= cxd_node_attach,
	.close		= cxd_node_close,
	.detach		= cxd_node_detach,
	.param_check	= cxd_node_param_check,
	.scan_interval	= cxd_node_scan_interval,
};

/**
 * cxd_node_init() - module load: let kmem ask us for our nodes' tiers, watch
 * memory onlining (cxd_node_mem_notify()), and register the mode.
 * Context: module init.
 * Return: 0 or a negative errno from registering
 * either.
 */
int cxd_node_init(void)
{
	int ret = register_memory_notifier(&cxd_node_mem_nb);

	if (ret)
		return ret;
	ret = cxd_tier_init();
	if (ret) {
		unregister_memory_notifier(&cxd_node_mem_nb);
		return ret;
	}
	cxd_mode_register(CXD_MODE_NODE, &cxd_node_ops);
	return 0;
}

/** cxd_node_exit() - module unload; no node-mode device is powered. */
void cxd_node_exit(void)
{
	cxd_tier_exit();
	unregister_memory_notifier(&cxd_node_mem_nb);
}

