// SPDX-License-Identifier: GPL-2.0
/*
 * The device's own counters, from /sys/class/cxdvirt/<basename of the
 * device node>/ (root overridable with CXDVIRT_SYSFS), falling back to
 * /sys/dev/char/MAJ:MIN/ for a node with another name. A regular file has
 * none; the caller says so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench.h"

static int read_text(const char *dir, const char *rel, char *buf, size_t len)
{
	char path[4096 + 64];
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read(fd, buf, len - 1);
	close(fd);
	if (r < 0)
		return -EIO;
	while (r && (buf[r - 1] == '\n' || buf[r - 1] == ' '))
		r--;
	buf[r] = '\0';
	return 0;
}

static int read_u64(const char *dir, const char *rel, uint64_t *v)
{
	char buf[64], *end;
	int ret;

	ret = read_text(dir, rel, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	*v = strtoull(buf, &end, 0);
	if (errno || end == buf || *end)
		return -EINVAL;
	return 0;
}

static bool has_stats(const char *dir)
{
	char path[4096 + 16];

	snprintf(path, sizeof(path), "%s/stats/misses", dir);
	return !access(path, R_OK);
}

/* The shortest modeled miss, from the device's configfs NAND timing. */
static void min_miss(struct dev_info *di)
{
	const char *root = getenv("CXDVIRT_CONFIGFS");
	uint64_t tr, nps, mbps, xfer;
	char dir[4096 + 96];

	di->min_miss_ns = 0;
	if (!root || !*root)
		root = "/sys/kernel/config/cxdvirt";
	if (!di->name[0])
		return;
	snprintf(dir, sizeof(dir), "%s/%s", root, di->name);
	if (read_u64(dir, "t_read_ns", &tr) || read_u64(dir, "nand_page_size", &nps) ||
	    read_u64(dir, "channel_mbps", &mbps) || !mbps)
		return;
	xfer = (nps * 1000 + mbps - 1) / mbps;
	di->min_miss_ns = nps > (uint64_t)sysconf(_SC_PAGESIZE) ? xfer : tr + xfer;
}

/**
 * devinfo_find() - locate the sysfs directory of the device node @path.
 * @path:	the device node (its basename names the sysfs directory).
 * @rdev:	its device number, for the /sys/dev/char fallback.
 * @di:		filled; @di->have_stats is false if nothing was found.
 */
void devinfo_find(const char *path, dev_t rdev, struct dev_info *di)
{
	const char *root = getenv("CXDVIRT_SYSFS");
	char *copy = strdup(path);

	memset(di, 0, sizeof(*di));
	if (!root || !*root)
		root = "/sys/class/cxdvirt";
	if (copy) {
		snprintf(di->dir, sizeof(di->dir), "%s/%s", root, basename(copy));
		free(copy);
		di->have_stats = has_stats(di->dir);
	}
	if (!di->have_stats) {
		snprintf(di->dir, sizeof(di->dir), "/sys/dev/char/%u:%u",
			 major(rdev), minor(rdev));
		di->have_stats = has_stats(di->dir);
	}
	if (!di->have_stats)
		return;
	if (read_text(di->dir, "name", di->name, sizeof(di->name)))
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
	char path[4096 + 16];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/stats/reset", di->dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "1", 1) != 1)
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
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
