// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt sysfs: /sys/class/cxdvirt/cxdvirtN/ shows a powered device's state,
 * and stats/ its counters, one value per file (see docs/interface.md); node
 * mode adds its own files (hotplug/node.c).
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
#include "devdax/devdax.h"

static ssize_t name_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", config_item_name(&cxd_dev_to_live(dev)->cfg_dev->item));
}
static DEVICE_ATTR_RO(name);

static ssize_t capacity_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%llu\n", cxd_dev_to_live(dev)->npages * CXD_HOST_PAGE_SIZE);
}
static DEVICE_ATTR_RO(capacity);

static ssize_t cache_size_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct cxd_live *live = cxd_dev_to_live(dev);

	return sysfs_emit(buf, "%llu\n",
			  (u64)live->model.cache.nlines * CXD_HOST_PAGE_SIZE);
}
static DEVICE_ATTR_RO(cache_size);

static ssize_t cache_used_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct cxd_live *live = cxd_dev_to_live(dev);
	u64 used;

	spin_lock(&live->lock);
	used = live->model.cache.used;
	spin_unlock(&live->lock);
	return sysfs_emit(buf, "%llu\n", used * CXD_HOST_PAGE_SIZE);
}
static DEVICE_ATTR_RO(cache_used);

/* Host pages holding device pages of a NAND image now; 0 without one. */
static ssize_t image_pages_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct cxd_live *live = cxd_dev_to_live(dev);

	return sysfs_emit(buf, "%llu\n", live->img ? cxd_img_pages(live) : 0);
}
static DEVICE_ATTR_RO(image_pages);

/* Node mode adds its own files (hotplug/node.c); mode is every device's. */
static ssize_t mode_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", cxd_dev_to_live(dev)->node ? "node" : "devdax");
}
static DEVICE_ATTR_RO(mode);

static struct attribute *cxd_dev_attrs[] = {
	&dev_attr_name.attr,
	&dev_attr_capacity.attr,
	&dev_attr_cache_size.attr,
	&dev_attr_cache_used.attr,
	&dev_attr_image_pages.attr,
	&dev_attr_mode.attr,
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
	struct cxd_live *live = cxd_dev_to_live(dev);				\
	u64 v;								\
									\
	spin_lock(&live->lock);						\
	v = (_expr);							\
	spin_unlock(&live->lock);						\
	return sysfs_emit(buf, "%llu\n", v);				\
}									\
static DEVICE_ATTR_RO(_name)

CXD_STAT_ATTR(misses, live->model.stats.misses);
CXD_STAT_ATTR(read_misses, live->model.stats.read_misses);
CXD_STAT_ATTR(write_misses, live->model.stats.write_misses);
CXD_STAT_ATTR(write_allocs, live->model.stats.write_allocs);
CXD_STAT_ATTR(unwritten_skips, live->model.stats.unwritten_skips);
CXD_STAT_ATTR(minor_hits, live->model.stats.hits);
CXD_STAT_ATTR(evictions, live->model.stats.evictions);
CXD_STAT_ATTR(clean_evictions, live->model.stats.clean_evictions);
CXD_STAT_ATTR(drain_evictions, live->model.stats.drain_evictions);
CXD_STAT_ATTR(discards, live->model.stats.discards);
CXD_STAT_ATTR(dirty_discards, live->model.stats.dirty_discards);
CXD_STAT_ATTR(dirty_evictions, live->model.stats.dirty_evictions);
CXD_STAT_ATTR(writebacks, live->model.stats.writebacks);
CXD_STAT_ATTR(erases, live->model.nand.erases);
CXD_STAT_ATTR(prefetch_issued, live->model.stats.prefetch_issued);
CXD_STAT_ATTR(prefetch_useful, live->model.stats.prefetch_useful);
CXD_STAT_ATTR(prefetch_late, live->model.stats.prefetch_late);
CXD_STAT_ATTR(prefetch_late_ns, live->model.stats.prefetch_late_ns);
CXD_STAT_ATTR(prefetch_polluting, live->model.stats.prefetch_polluting);
CXD_STAT_ATTR(ftl_host_writes, live->model.ftl_stats.host_writes);
CXD_STAT_ATTR(ftl_nand_writes, live->model.ftl_stats.nand_writes);
CXD_STAT_ATTR(gc_runs, live->model.ftl_stats.gc_runs);
CXD_STAT_ATTR(gc_pages_moved, live->model.ftl_stats.gc_moved);
CXD_STAT_ATTR(gc_stalls, live->model.ftl_stats.gc_stalls);
CXD_STAT_ATTR(gc_stall_ns, live->model.ftl_stats.gc_stall_ns);
CXD_STAT_ATTR(miss_ns_total, live->miss_ns_total);
CXD_STAT_ATTR(fault_model_ns_total, live->fault_model_ns_total);
CXD_STAT_ATTR(fault_unmap_ns_total, live->fault_unmap_ns_total);
CXD_STAT_ATTR(fault_unmaps, live->fault_unmaps);
CXD_STAT_ATTR(miss_entry_ns_total, live->miss_entry_ns_total);
CXD_STAT_ATTR(miss_entry_stamped, live->miss_entry_stamped);
CXD_STAT_ATTR(minor_faults, live->minor_faults);
CXD_STAT_ATTR(miss_tail_ns, READ_ONCE(live->miss_tail_ns));
CXD_STAT_ATTR(minor_fault_ns_total, live->minor_fault_ns_total);
CXD_STAT_ATTR(model_ns_total, live->model.stats.model_miss_ns);
CXD_STAT_ATTR(queue_ns_total, live->model.stats.queue_ns);
CXD_STAT_ATTR(mshr_waits, live->model.stats.mshr_waits);
CXD_STAT_ATTR(mshr_wait_ns_total, live->model.stats.mshr_wait_ns);
CXD_STAT_ATTR(elapsed_ns, ktime_get_ns() - live->stats_t0_ns);
CXD_STAT_ATTR(scan_passes, live->scan_passes);
CXD_STAT_ATTR(scan_touched, live->scan_touched);
CXD_STAT_ATTR(scan_ns_total, live->scan_ns_total);
CXD_STAT_ATTR(pinned_evictions, live->pinned_evictions);
CXD_STAT_ATTR(pinned_released, live->pinned_released);
CXD_STAT_ATTR(io_reads, live->io_reads);
CXD_STAT_ATTR(io_writes, live->io_writes);
CXD_STAT_ATTR(io_overruns, live->io_overruns);
CXD_STAT_ATTR(io_over_ns, live->io_over_ns);
CXD_STAT_ATTR(io_errors, live->io_errors);
CXD_STAT_ATTR(dirty_shutdowns, live->dirty_shutdowns);
CXD_STAT_ATTR(lines_lost, live->lines_lost);

/*
 * CXD_HIST_ATTR() - a read-only stats/ file showing the histogram @_expr
 * (a struct cxd_hist of device @live), one "LOW_NS COUNT" line per non-empty
 * log2 bucket, from one snapshot taken under the device lock.
 */
#define CXD_HIST_ATTR(_name, _expr)					\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	struct cxd_live *live = cxd_dev_to_live(dev);				\
	struct cxd_hist h;						\
									\
	spin_lock(&live->lock);						\
	h = (_expr);							\
	spin_unlock(&live->lock);						\
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

CXD_HIST_ATTR(miss_latency_hist, live->miss_hist);
CXD_HIST_ATTR(model_latency_hist, live->model.stats.miss_hist);
CXD_HIST_ATTR(queue_latency_hist, live->model.stats.queue_hist);

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
	struct cxd_live *live = cxd_dev_to_live(kobj_to_dev(kobj));
	const struct cxd_nand_cfg *nc = &live->model.nand.cfg;
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
		spin_lock(&live->lock);
		for (j = 0; j < n; j++)
			busy[j] = live->model.nand.die_busy[i + j];
		spin_unlock(&live->lock);
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
	struct cxd_live *live = cxd_dev_to_live(dev);
	bool v;

	/* the flags' strict rule (cxd_parse_flag()): 1 or on resets */
	if (cxd_parse_flag(buf, count, &v) || !v)
		return -EINVAL;
	spin_lock(&live->lock);
	cxd_model_reset_stats(&live->model);
	memset(&live->miss_hist, 0, sizeof(live->miss_hist));
	live->miss_ns_total = 0;
	live->fault_model_ns_total = 0;
	live->fault_unmap_ns_total = 0;
	live->fault_unmaps = 0;
	live->miss_entry_ns_total = 0;
	live->miss_entry_stamped = 0;
	live->minor_faults = 0;
	live->minor_fault_ns_total = 0;
	live->scan_passes = 0;
	live->scan_touched = 0;
	live->scan_ns_total = 0;
	live->pinned_evictions = 0;
	live->pinned_released = 0;
	live->io_reads = 0;
	live->io_writes = 0;
	live->io_overruns = 0;
	live->io_over_ns = 0;
	live->io_errors = 0;
	live->stats_t0_ns = ktime_get_ns();
	live->stats_gen++;
	spin_unlock(&live->lock);
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
	&dev_attr_discards.attr,
	&dev_attr_dirty_discards.attr,
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
	&dev_attr_miss_entry_ns_total.attr,
	&dev_attr_miss_entry_stamped.attr,
	&dev_attr_minor_faults.attr,
	&dev_attr_miss_tail_ns.attr,
	&dev_attr_minor_fault_ns_total.attr,
	&dev_attr_model_ns_total.attr,
	&dev_attr_queue_ns_total.attr,
	&dev_attr_mshr_waits.attr,
	&dev_attr_mshr_wait_ns_total.attr,
	&dev_attr_pinned_evictions.attr,
	&dev_attr_pinned_released.attr,
	&dev_attr_io_reads.attr,
	&dev_attr_io_writes.attr,
	&dev_attr_io_overruns.attr,
	&dev_attr_io_over_ns.attr,
	&dev_attr_io_errors.attr,
	&dev_attr_dirty_shutdowns.attr,
	&dev_attr_lines_lost.attr,
	&dev_attr_elapsed_ns.attr,
	&dev_attr_miss_latency_hist.attr,
	&dev_attr_model_latency_hist.attr,
	&dev_attr_queue_latency_hist.attr,
	&dev_attr_scan_passes.attr,
	&dev_attr_scan_touched.attr,
	&dev_attr_scan_ns_total.attr,
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

const struct attribute_group *cxd_dev_groups[] = {
	&cxd_dev_group,
	&cxd_stats_group,
	NULL,
};
