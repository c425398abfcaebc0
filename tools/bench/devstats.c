// SPDX-License-Identifier: GPL-2.0
/*
 * The device's own counters, from /sys/class/cxdvirt/<basename of the
 * device node>/ (cxu_sysfs_root(): CXDVIRT_SYSFS moves it), falling back
 * to /sys/dev/char/MAJ:MIN/ for a node with another name; its NAND timing
 * from configfs (cxu_dev_path()). A regular file has none; the caller says
 * so. The reads are the tools' library's (tools/lib/cxu_devfs.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench.h"
#include "cxu_devfs.h"

/* @dir/@rel into @path; an error if it does not fit. */
static int dir_path(const char *dir, const char *rel, char *path, size_t len)
{
	int n = snprintf(path, len, "%s/%s", dir, rel);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int read_u64(const char *dir, const char *rel, uint64_t *v)
{
	char path[4096 + 64];
	int ret;

	ret = dir_path(dir, rel, path, sizeof(path));
	return ret ? ret : cxu_read_u64(path, v);
}

/* A configfs attribute of device @name holding one number. */
static int attr_u64(const char *name, const char *attr, uint64_t *v)
{
	char path[4096];
	int ret;

	ret = cxu_dev_path(name, attr, path, sizeof(path));
	return ret ? ret : cxu_read_u64(path, v);
}

static bool has_stats(const char *dir)
{
	char path[4096 + 16];

	snprintf(path, sizeof(path), "%s/stats/misses", dir);
	return !access(path, R_OK);
}

static void devinfo_fill(struct dev_info *di);

/* The shortest modeled miss, from the device's configfs NAND timing. */
static void min_miss(struct dev_info *di)
{
	uint64_t tr, nps, mbps, xfer;

	di->min_miss_ns = 0;
	if (!di->name[0])
		return;
	if (attr_u64(di->name, "t_read_ns", &tr) || attr_u64(di->name, "nand_page_size", &nps) ||
	    attr_u64(di->name, "channel_mbps", &mbps) || !mbps)
		return;
	xfer = (nps * 1000 + mbps - 1) / mbps;
	di->min_miss_ns = nps > (uint64_t)sysconf(_SC_PAGESIZE) ? xfer : tr + xfer;
}

/**
 * devinfo_find() - locate the sysfs directory of the device node @node.
 * @node:	the device node (its basename names the sysfs directory).
 * @rdev:	its device number, for the /sys/dev/char fallback.
 * @di:		filled; @di->have_stats is false if nothing was found.
 */
void devinfo_find(const char *node, dev_t rdev, struct dev_info *di)
{
	char *copy = strdup(node);

	memset(di, 0, sizeof(*di));
	if (copy) {
		snprintf(di->dir, sizeof(di->dir), "%s/%s", cxu_sysfs_root(), basename(copy));
		free(copy);
		di->have_stats = has_stats(di->dir);
	}
	if (!di->have_stats) {
		snprintf(di->dir, sizeof(di->dir), "/sys/dev/char/%u:%u",
			 major(rdev), minor(rdev));
		di->have_stats = has_stats(di->dir);
	}
	if (di->have_stats)
		devinfo_fill(di);
}

/**
 * devinfo_find_node() - locate the sysfs directory of the node-mode device
 * whose memory is NUMA node @node.
 * @node:	the node (a node:N target's N).
 * @di:		filled as by devinfo_find(); @di->have_stats is false if no
 *		powered device in cxu_sysfs_root() has `mode` node and
 *		`target_node` @node (plain memory then: no counters).
 *
 * Its counters count the faults of the memory bound to @node the same way
 * a devdax device's count those of its mapping (docs/numa-mode.md).
 */
void devinfo_find_node(int node, struct dev_info *di)
{
	char path[4096 + 64], mode[16];
	struct dirent *de;
	uint64_t tn;
	DIR *d;

	memset(di, 0, sizeof(*di));
	d = opendir(cxu_sysfs_root());
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "cxdvirt", 7))
			continue;
		snprintf(di->dir, sizeof(di->dir), "%s/%s", cxu_sysfs_root(), de->d_name);
		if (dir_path(di->dir, "mode", path, sizeof(path)) ||
		    cxu_read_file(path, mode, sizeof(mode)) || strcmp(mode, "node") ||
		    read_u64(di->dir, "target_node", &tn) || tn != (uint64_t)node ||
		    !has_stats(di->dir))
			continue;
		di->have_stats = true;
		devinfo_fill(di);
		break;
	}
	closedir(d);
	if (!di->have_stats)
		di->dir[0] = '\0';
}

/* The name, capacity, cache size and shortest miss of a found device. */
static void devinfo_fill(struct dev_info *di)
{
	char path[4096 + 64];

	if (dir_path(di->dir, "name", path, sizeof(path)) ||
	    cxu_read_file(path, di->name, sizeof(di->name)))
		di->name[0] = '\0';
	if (read_u64(di->dir, "capacity", &di->capacity))
		di->capacity = 0;
	if (read_u64(di->dir, "cache_size", &di->cache_size))
		di->cache_size = 0;
	min_miss(di);
}

/**
 * devstats_read() - read every counter of the device.
 * @di:	from devinfo_find() with @have_stats.
 * @s:	the counters (counts; *_ns_total in ns).
 *
 * Return: 0, or -errno of the first counter that could not be read.
 */
int devstats_read(const struct dev_info *di, struct dev_stats *s)
{
	static const struct {
		const char *file;
		size_t off;
		bool optional;	/* newer counter: 0 if the module lacks it */
	} fields[] = {
		{ "stats/misses",		offsetof(struct dev_stats, misses), false },
		{ "stats/minor_hits",		offsetof(struct dev_stats, minor_hits), false },
		{ "stats/evictions",		offsetof(struct dev_stats, evictions), false },
		{ "stats/dirty_evictions",	offsetof(struct dev_stats, dirty_evictions), false },
		{ "stats/writebacks",		offsetof(struct dev_stats, writebacks), false },
		{ "stats/miss_ns_total",	offsetof(struct dev_stats, miss_ns_total), false },
		{ "stats/model_ns_total",	offsetof(struct dev_stats, model_ns_total), false },
		{ "stats/fault_model_ns_total",	offsetof(struct dev_stats, fault_model_ns_total), true },
		{ "stats/fault_unmap_ns_total",	offsetof(struct dev_stats, fault_unmap_ns_total), true },
		{ "stats/fault_unmaps",		offsetof(struct dev_stats, fault_unmaps), true },
	};
	size_t i;
	int ret;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		ret = read_u64(di->dir, fields[i].file,
			       (uint64_t *)((char *)s + fields[i].off));
		if (ret && !(fields[i].optional && ret == -ENOENT))
			return ret;
	}
	return 0;
}

/**
 * devstats_reset() - zero the device's counters (write 1 to stats/reset).
 *
 * Return: 0 or -errno (-EACCES when not root).
 */
int devstats_reset(const struct dev_info *di)
{
	char path[4096 + 64];
	int ret;

	ret = dir_path(di->dir, "stats/reset", path, sizeof(path));
	return ret ? ret : cxu_write_file(path, "1");
}

/** devstats_sub() - @out = @a - @b, counter by counter. */
void devstats_sub(const struct dev_stats *a, const struct dev_stats *b,
		  struct dev_stats *out)
{
	out->misses = a->misses - b->misses;
	out->minor_hits = a->minor_hits - b->minor_hits;
	out->evictions = a->evictions - b->evictions;
	out->dirty_evictions = a->dirty_evictions - b->dirty_evictions;
	out->writebacks = a->writebacks - b->writebacks;
	out->miss_ns_total = a->miss_ns_total - b->miss_ns_total;
	out->model_ns_total = a->model_ns_total - b->model_ns_total;
	out->fault_model_ns_total = a->fault_model_ns_total - b->fault_model_ns_total;
	out->fault_unmap_ns_total = a->fault_unmap_ns_total - b->fault_unmap_ns_total;
	out->fault_unmaps = a->fault_unmaps - b->fault_unmaps;
}

/** devstats_add() - @acc += @d, counter by counter. */
void devstats_add(struct dev_stats *acc, const struct dev_stats *d)
{
	acc->misses += d->misses;
	acc->minor_hits += d->minor_hits;
	acc->evictions += d->evictions;
	acc->dirty_evictions += d->dirty_evictions;
	acc->writebacks += d->writebacks;
	acc->miss_ns_total += d->miss_ns_total;
	acc->model_ns_total += d->model_ns_total;
	acc->fault_model_ns_total += d->fault_model_ns_total;
	acc->fault_unmap_ns_total += d->fault_unmap_ns_total;
	acc->fault_unmaps += d->fault_unmaps;
}
