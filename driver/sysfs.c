// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt sysfs: /sys/class/cxdvirt/cxdvirtN/ shows a powered device's state,
 * and stats/ its counters, one value per file (see docs/interface.md).
 * Counters are read as one consistent snapshot under the device lock.
 * Histograms print one line per non-empty bucket; die_busy_ns, whose size
 * grows with the geometry (up to 4096 dies), is a binary attribute of
 * fixed-width text lines so that it is not bound by one page.
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>

#include "compat.h"
#include "cxdvirt.h"
#include "../hotplug/node.h"

static inline struct cxd_live *dev_live(struct device *dev)
{
	return container_of(dev, struct cxd_live, dev);
}

static ssize_t name_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", config_item_name(&dev_live(dev)->cdev_owner->item));
}
static DEVICE_ATTR_RO(name);

static ssize_t capacity_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%llu\n", dev_live(dev)->npages * CXD_HOST_PAGE_SIZE);
}
static DEVICE_ATTR_RO(capacity);

static ssize_t cache_size_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct cxd_live *l = dev_live(dev);

	return sysfs_emit(buf, "%llu\n",
			  (u64)l->model.cache.nlines * CXD_HOST_PAGE_SIZE);
}
static DEVICE_ATTR_RO(cache_size);

static ssize_t cache_used_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct cxd_live *l = dev_live(dev);
	u64 used;

	spin_lock(&l->lock);
	used = l->model.cache.used;
	spin_unlock(&l->lock);
	return sysfs_emit(buf, "%llu\n", used * CXD_HOST_PAGE_SIZE);
}
static DEVICE_ATTR_RO(cache_used);

static struct attribute *cxd_dev_attrs[] = {
	&dev_attr_name.attr,
	&dev_attr_capacity.attr,
	&dev_attr_cache_size.attr,
	&dev_attr_cache_used.attr,
	NULL,
};

static const struct attribute_group cxd_dev_group = {
	.attrs = cxd_dev_attrs,
};

/* CXD_STAT_ATTR() - a read-only stats/ file showing one 64-bit counter. */
#define CXD_STAT_ATTR(_name, _expr)					\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct cxd_live *l = dev_live(dev);				\
	u64 v;								\
									\
	spin_lock(&l->lock);						\
	v = (_expr);							\
	spin_unlock(&l->lock);						\
	return sysfs_emit(buf, "%llu\n", v);				\
}									\
static DEVICE_ATTR_RO(_name)

CXD_STAT_ATTR(misses, l->model.stats.misses);
CXD_STAT_ATTR(read_misses, l->model.stats.read_misses);
CXD_STAT_ATTR(write_misses, l->model.stats.write_misses);
CXD_STAT_ATTR(write_allocs, l->model.stats.write_allocs);
CXD_STAT_ATTR(unwritten_skips, l->model.stats.unwritten_skips);
CXD_STAT_ATTR(minor_hits, l->model.stats.hits);
CXD_STAT_ATTR(evictions, l->model.stats.evictions);
CXD_STAT_ATTR(clean_evictions, l->model.stats.clean_evictions);
CXD_STAT_ATTR(drain_evictions, l->model.stats.drain_evictions);
CXD_STAT_ATTR(dirty_evictions, l->model.stats.dirty_evictions);
CXD_STAT_ATTR(writebacks, l->model.stats.writebacks);
CXD_STAT_ATTR(erases, l->model.nand.erases);
CXD_STAT_ATTR(prefetch_issued, l->model.stats.prefetch_issued);
CXD_STAT_ATTR(prefetch_useful, l->model.stats.prefetch_useful);
CXD_STAT_ATTR(prefetch_late, l->model.stats.prefetch_late);
CXD_STAT_ATTR(prefetch_late_ns, l->model.stats.prefetch_late_ns);
CXD_STAT_ATTR(prefetch_polluting, l->model.stats.prefetch_polluting);
CXD_STAT_ATTR(ftl_host_writes, l->model.ftl_stats.host_writes);
CXD_STAT_ATTR(ftl_nand_writes, l->model.ftl_stats.nand_writes);
CXD_STAT_ATTR(gc_runs, l->model.ftl_stats.gc_runs);
CXD_STAT_ATTR(gc_pages_moved, l->model.ftl_stats.gc_moved);
CXD_STAT_ATTR(gc_stalls, l->model.ftl_stats.gc_stalls);
CXD_STAT_ATTR(gc_stall_ns, l->model.ftl_stats.gc_stall_ns);
CXD_STAT_ATTR(miss_ns_total, l->miss_ns_total);
CXD_STAT_ATTR(fault_model_ns_total, l->fault_model_ns_total);
CXD_STAT_ATTR(fault_unmap_ns_total, l->fault_unmap_ns_total);
CXD_STAT_ATTR(fault_unmaps, l->fault_unmaps);
CXD_STAT_ATTR(model_ns_total, l->model.stats.model_miss_ns);
CXD_STAT_ATTR(queue_ns_total, l->model.stats.queue_ns);
CXD_STAT_ATTR(elapsed_ns, ktime_get_ns() - l->stats_t0_ns);
CXD_STAT_ATTR(scan_passes, l->scan_passes);
CXD_STAT_ATTR(scan_touched, l->scan_touched);
CXD_STAT_ATTR(pinned_evictions, l->pinned_evictions);

/*
 * CXD_HIST_ATTR() - a read-only stats/ file showing the histogram @_expr
 * (a struct cxd_hist of device @l), one "LOW_NS COUNT" line per non-empty
 * log2 bucket, from one snapshot taken under the device lock.
 */
#define CXD_HIST_ATTR(_name, _expr)					\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct cxd_live *l = dev_live(dev);				\
	struct cxd_hist h;						\
									\
	spin_lock(&l->lock);						\
	h = (_expr);							\
	spin_unlock(&l->lock);						\
	return cxd_hist_emit(&h, buf);					\
}									\
static DEVICE_ATTR_RO(_name)

static int cxd_hist_emit(const struct cxd_hist *h, char *buf)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < CXD_HIST_BUCKETS; i++)
		if (h->count[i])
			n += sysfs_emit_at(buf, n, "%llu %llu\n",
					   cxd_hist_lower_ns(i), h->count[i]);
	return n;
}

CXD_HIST_ATTR(miss_latency_hist, l->miss_hist);
CXD_HIST_ATTR(model_latency_hist, l->model.stats.miss_hist);
CXD_HIST_ATTR(queue_latency_hist, l->model.stats.queue_hist);

/* die_busy_ns: bytes per line; a divisor of PAGE_SIZE, see below. */
#define CXD_DIE_LINE	32
/* Dies copied per lock hold. */
#define CXD_DIE_BATCH	16

/*
 * die_busy_ns - one line per die, "CH DIE BUSY_NS" in fixed-width fields
 * ("%2u %2u %25llu\n", CXD_DIE_LINE bytes), channel-major. BUSY_NS is the
 * die's tR + tPROG + tBERS time (ns) since power-on or reset, summed over
 * its planes. Fixed-width lines let a read at any offset find its dies
 * without rendering the file from the start; a line is never split between
 * two page-sized reads, so every line is one consistent value.
 */
static ssize_t die_busy_ns_read(struct file *file, struct kobject *kobj,
				CXD_BIN_ATTR_CONST struct bin_attribute *attr,
				char *buf, loff_t off, size_t count)
{
	struct cxd_live *l = dev_live(kobj_to_dev(kobj));
	const struct cxd_nand_cfg *nc = &l->model.nand.cfg;
	u32 dies = nc->dies_per_channel;	/* structural: fixed while powered */
	u64 ndies = (u64)nc->channels * dies;
	u64 busy[CXD_DIE_BATCH], first, last, i, j, n;
	char line[CXD_DIE_LINE + 1];
	size_t done = 0, from, len;

	if (off < 0 || off >= ndies * CXD_DIE_LINE || !count)
		return 0;
	first = off / CXD_DIE_LINE;
	last = min_t(u64, ndies, DIV_ROUND_UP(off + count, CXD_DIE_LINE));
	for (i = first; i < last; i += n) {
		n = min_t(u64, CXD_DIE_BATCH, last - i);
		spin_lock(&l->lock);
		for (j = 0; j < n; j++)
			busy[j] = l->model.nand.die_busy[i + j];
		spin_unlock(&l->lock);
		for (j = 0; j < n; j++) {
			snprintf(line, sizeof(line), "%2u %2u %25llu\n",
				 (u32)((i + j) / dies), (u32)((i + j) % dies),
				 busy[j]);
			from = (i + j == first) ? off % CXD_DIE_LINE : 0;
			len = min_t(size_t, CXD_DIE_LINE - from, count - done);
			memcpy(buf + done, line + from, len);
			done += len;
		}
	}
	return done;
}
static CXD_BIN_ATTR_CONST struct bin_attribute bin_attr_die_busy_ns =
	__BIN_ATTR_RO(die_busy_ns, 0);

static ssize_t reset_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	struct cxd_live *l = dev_live(dev);
	bool v;

	if (kstrtobool(buf, &v) || !v)
		return -EINVAL;
	spin_lock(&l->lock);
	cxd_model_reset_stats(&l->model);
	memset(&l->miss_hist, 0, sizeof(l->miss_hist));
	l->miss_ns_total = 0;
	l->fault_model_ns_total = 0;
	l->fault_unmap_ns_total = 0;
	l->fault_unmaps = 0;
	l->scan_passes = 0;
	l->scan_touched = 0;
	l->pinned_evictions = 0;
	l->stats_t0_ns = ktime_get_ns();
	spin_unlock(&l->lock);
	return count;
}
static DEVICE_ATTR_WO(reset);

static struct attribute *cxd_stats_attrs[] = {
	&dev_attr_misses.attr,
	&dev_attr_read_misses.attr,
	&dev_attr_write_misses.attr,
	&dev_attr_write_allocs.attr,
	&dev_attr_unwritten_skips.attr,
	&dev_attr_minor_hits.attr,
	&dev_attr_evictions.attr,
	&dev_attr_clean_evictions.attr,
	&dev_attr_drain_evictions.attr,
	&dev_attr_dirty_evictions.attr,
	&dev_attr_writebacks.attr,
	&dev_attr_erases.attr,
	&dev_attr_prefetch_issued.attr,
	&dev_attr_prefetch_useful.attr,
	&dev_attr_prefetch_late.attr,
	&dev_attr_prefetch_late_ns.attr,
	&dev_attr_prefetch_polluting.attr,
	&dev_attr_ftl_host_writes.attr,
	&dev_attr_ftl_nand_writes.attr,
	&dev_attr_gc_runs.attr,
	&dev_attr_gc_pages_moved.attr,
	&dev_attr_gc_stalls.attr,
	&dev_attr_gc_stall_ns.attr,
	&dev_attr_miss_ns_total.attr,
	&dev_attr_fault_model_ns_total.attr,
	&dev_attr_fault_unmap_ns_total.attr,
	&dev_attr_fault_unmaps.attr,
	&dev_attr_model_ns_total.attr,
	&dev_attr_queue_ns_total.attr,
	&dev_attr_pinned_evictions.attr,
	&dev_attr_elapsed_ns.attr,
	&dev_attr_miss_latency_hist.attr,
	&dev_attr_model_latency_hist.attr,
	&dev_attr_queue_latency_hist.attr,
	&dev_attr_scan_passes.attr,
	&dev_attr_scan_touched.attr,
	&dev_attr_reset.attr,
	NULL,
};

static CXD_BIN_ATTR_CONST struct bin_attribute *CXD_BIN_ATTR_CONST cxd_stats_bin_attrs[] = {
	&bin_attr_die_busy_ns,
	NULL,
};

static const struct attribute_group cxd_stats_group = {
	.name = "stats",
	.attrs = cxd_stats_attrs,
	.bin_attrs = cxd_stats_bin_attrs,
};

/*
 * Node mode (hotplug/node.c): where the device's memory went. Shown only for
 * a device powered in node mode; mode is shown for every device.
 */
static ssize_t mode_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_live(dev)->node ? "node" : "devdax");
}
static DEVICE_ATTR_RO(mode);

static ssize_t target_node_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  dev_live(dev)->cdev_owner->cfg.target_node);
}
static DEVICE_ATTR_RO(target_node);

static ssize_t dax_device_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	char name[32];

	cxd_node_dax_name_get(dev_live(dev), name, sizeof(name));
	return sysfs_emit(buf, "%s\n", name);
}
static DEVICE_ATTR_RO(dax_device);

static ssize_t adistance_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", cxd_node_adistance(dev_live(dev)));
}
static DEVICE_ATTR_RO(adistance);

static ssize_t online_show(struct device *dev, struct device_attribute *attr,
			   char *buf)
{
	struct cxd_live *l = dev_live(dev);
	struct cxd_node_state st;
	const char *s;

	cxd_node_get_state(l, &st);
	if (!st.online_bytes)
		s = "offline";
	else if (st.online_bytes == l->npages * CXD_HOST_PAGE_SIZE)
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
	cxd_node_get_state(dev_live(dev), &st);				\
	return sysfs_emit(buf, "%llu\n", st._name);			\
}									\
static DEVICE_ATTR_RO(_name)

CXD_NODE_ATTR(online_bytes);
CXD_NODE_ATTR(movable_bytes);
CXD_NODE_ATTR(node_used_bytes);

static struct attribute *cxd_node_attrs[] = {
	&dev_attr_mode.attr,
	&dev_attr_target_node.attr,
	&dev_attr_dax_device.attr,
	&dev_attr_adistance.attr,
	&dev_attr_online.attr,
	&dev_attr_online_bytes.attr,
	&dev_attr_movable_bytes.attr,
	&dev_attr_node_used_bytes.attr,
	NULL,
};

static umode_t cxd_node_visible(struct kobject *kobj, struct attribute *a,
				int n)
{
	struct cxd_live *l = dev_live(kobj_to_dev(kobj));

	if (a == &dev_attr_mode.attr || l->node)
		return a->mode;
	return 0;
}

static const struct attribute_group cxd_node_group = {
	.attrs = cxd_node_attrs,
	.is_visible = cxd_node_visible,
};

/*
 * Node-mode latency (hotplug/nodelat.c): node_latency/ holds "enabled" and
 * the counters of struct cxd_nodelat_stats; only for node-mode devices.
 */
static ssize_t enabled_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  dev_live(dev)->cdev_owner->cfg.node_latency ? 1 : 0);
}
static DEVICE_ATTR_RO(enabled);

#define CXD_NODELAT_ATTR(_name)						\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct cxd_nodelat_stats st;					\
									\
	cxd_node_get_lat_stats(dev_live(dev), &st);			\
	return sysfs_emit(buf, "%llu\n", st._name);			\
}									\
static DEVICE_ATTR_RO(_name)

CXD_NODELAT_ATTR(tracked_mms);
CXD_NODELAT_ATTR(first_touches);
CXD_NODELAT_ATTR(hint_faults);
CXD_NODELAT_ATTR(evicted_ptes);
CXD_NODELAT_ATTR(evictions_unmapped);
CXD_NODELAT_ATTR(late_writebacks);
CXD_NODELAT_ATTR(thp_untracked_pages);
CXD_NODELAT_ATTR(kernel_accesses);
CXD_NODELAT_ATTR(events_dropped);
CXD_NODELAT_ATTR(pending);

static struct attribute *cxd_nodelat_attrs[] = {
	&dev_attr_enabled.attr,
	&dev_attr_tracked_mms.attr,
	&dev_attr_first_touches.attr,
	&dev_attr_hint_faults.attr,
	&dev_attr_evicted_ptes.attr,
	&dev_attr_evictions_unmapped.attr,
	&dev_attr_late_writebacks.attr,
	&dev_attr_thp_untracked_pages.attr,
	&dev_attr_kernel_accesses.attr,
	&dev_attr_events_dropped.attr,
	&dev_attr_pending.attr,
	NULL,
};

static umode_t cxd_nodelat_visible(struct kobject *kobj, struct attribute *a,
				   int n)
{
	return dev_live(kobj_to_dev(kobj))->node ? a->mode : 0;
}

static const struct attribute_group cxd_nodelat_group = {
	.name = "node_latency",
	.attrs = cxd_nodelat_attrs,
	.is_visible = cxd_nodelat_visible,
};

const struct attribute_group *cxd_dev_groups[] = {
	&cxd_dev_group,
	&cxd_stats_group,
	&cxd_node_group,
	&cxd_nodelat_group,
	NULL,
};
