// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt sysfs: /sys/class/cxdvirt/cxdvirtN/ shows a powered device's state,
 * and stats/ its counters, one value per file (see docs/interface.md).
 * Counters are read as one consistent snapshot under the device lock.
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/sysfs.h>

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
CXD_STAT_ATTR(minor_hits, l->model.stats.hits);
CXD_STAT_ATTR(evictions, l->model.stats.evictions);
CXD_STAT_ATTR(dirty_evictions, l->model.stats.dirty_evictions);
CXD_STAT_ATTR(writebacks, l->model.stats.writebacks);
CXD_STAT_ATTR(miss_ns_total, l->miss_ns_total);
CXD_STAT_ATTR(model_ns_total, l->model.stats.model_miss_ns);
CXD_STAT_ATTR(scan_passes, l->scan_passes);
CXD_STAT_ATTR(scan_touched, l->scan_touched);

static ssize_t miss_latency_hist_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	struct cxd_live *l = dev_live(dev);
	struct cxd_hist h;
	unsigned int i;
	int n = 0;

	spin_lock(&l->lock);
	h = l->miss_hist;
	spin_unlock(&l->lock);
	for (i = 0; i < CXD_HIST_BUCKETS; i++)
		if (h.count[i])
			n += sysfs_emit_at(buf, n, "%llu %llu\n",
					   cxd_hist_lower_ns(i), h.count[i]);
	return n;
}
static DEVICE_ATTR_RO(miss_latency_hist);

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
	l->scan_passes = 0;
	l->scan_touched = 0;
	spin_unlock(&l->lock);
	return count;
}
static DEVICE_ATTR_WO(reset);

static struct attribute *cxd_stats_attrs[] = {
	&dev_attr_misses.attr,
	&dev_attr_minor_hits.attr,
	&dev_attr_evictions.attr,
	&dev_attr_dirty_evictions.attr,
	&dev_attr_writebacks.attr,
	&dev_attr_miss_ns_total.attr,
	&dev_attr_model_ns_total.attr,
	&dev_attr_miss_latency_hist.attr,
	&dev_attr_scan_passes.attr,
	&dev_attr_scan_touched.attr,
	&dev_attr_reset.attr,
	NULL,
};

static const struct attribute_group cxd_stats_group = {
	.name = "stats",
	.attrs = cxd_stats_attrs,
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

const struct attribute_group *cxd_dev_groups[] = {
	&cxd_dev_group,
	&cxd_stats_group,
	&cxd_node_group,
	NULL,
};
