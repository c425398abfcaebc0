/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt-bench: declarations shared by the command's files.
 *
 *   main.c      options, the run's sequence, the report (text or JSON)
 *   probe.c     the mapping, the pointer chase, timed and eviction passes,
 *               the timer's own overhead
 *   classify.c  hit/miss threshold and percentiles
 *   devstats.c  the device's sysfs counters (absent for a regular file)
 */
#ifndef CXDVIRT_BENCH_H
#define CXDVIRT_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef CXDVIRT_VERSION
#define CXDVIRT_VERSION "0.1.0"
#endif

#define PROG "cxdvirt-bench"

#define EXIT_OK		0
#define EXIT_ERR	1
#define EXIT_USAGE	2

void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ----------------------------------------------------------- probe.c -- */

enum pattern {
	PATTERN_CHASE,	/* random cyclic permutation, one cycle */
	PATTERN_SEQ,	/* page 0, 1, 2, ... */
};

/**
 * struct probe - one mapping of the device and what is built in it.
 * @base:	start of the MAP_SHARED mapping.
 * @map_len:	its length in bytes.
 * @page:	page size in bytes (the device's line: one host page).
 * @npages:	working-set pages, at the start of the mapping.
 * @nevict:	pages of each of the two eviction halves that follow the
 *		working set (0: no eviction region).
 * @start:	byte offset of the first page the chase visits.
 * @pattern:	visiting order.
 */
struct probe {
	uint8_t *base;
	size_t map_len;
	size_t page;
	uint64_t npages;
	uint64_t nevict;
	uint64_t start;
	enum pattern pattern;
};

/**
 * struct timer_cost - what a back-to-back pair of clock_gettime() calls
 * costs, in ns; not subtracted from any latency.
 */
struct timer_cost {
	uint64_t min_ns;
	uint64_t median_ns;
	uint64_t resolution_ns;
};

uint64_t rng_next(uint64_t *state);
int probe_map(struct probe *p, int fd, uint64_t npages, uint64_t nevict);
void probe_unmap(struct probe *p);
int probe_build(struct probe *p, enum pattern pat, uint64_t seed);
void probe_evict(struct probe *p, unsigned int pass);
void probe_pass(struct probe *p, const uint8_t *is_write, uint64_t *lat_ns);
void timer_measure(struct timer_cost *tc);

/* -------------------------------------------------------- classify.c -- */

/**
 * struct lat_summary - percentiles (nearest rank) of a set of latencies.
 * All times in ns; zero when @count is 0.
 */
struct lat_summary {
	uint64_t count;
	uint64_t p50_ns;
	uint64_t p99_ns;
	uint64_t p999_ns;
	uint64_t max_ns;
};

uint64_t threshold_from_data(const uint64_t *lat, size_t n);
void summarize(const uint64_t *sorted, size_t n, struct lat_summary *s);
void sort_u64(uint64_t *v, size_t n);

/* -------------------------------------------------------- devstats.c -- */

/**
 * struct dev_stats - counters of a cxdvirt device (docs/interface.md).
 * Counts, except *_ns_total (ns).
 */
struct dev_stats {
	uint64_t misses;
	uint64_t minor_hits;
	uint64_t evictions;
	uint64_t dirty_evictions;
	uint64_t writebacks;
	uint64_t miss_ns_total;
	uint64_t model_ns_total;
};

/**
 * struct dev_info - where a device's sysfs state lives.
 * @have_stats:	a sysfs directory with stats/ was found.
 * @dir:	that directory (".../cxdvirtN").
 * @name:	its configfs name ("" if unknown).
 * @capacity:	bytes, 0 if unknown.
 * @cache_size:	bytes, 0 if unknown.
 */
struct dev_info {
	bool have_stats;
	char dir[4096];
	char name[64];
	uint64_t capacity;
	uint64_t cache_size;
};

void devinfo_find(const char *path, dev_t rdev, struct dev_info *di);
int devstats_read(const struct dev_info *di, struct dev_stats *s);
int devstats_reset(const struct dev_info *di);
void devstats_sub(const struct dev_stats *a, const struct dev_stats *b,
		  struct dev_stats *out);
void devstats_add(struct dev_stats *acc, const struct dev_stats *d);

#endif /* CXDVIRT_BENCH_H */
