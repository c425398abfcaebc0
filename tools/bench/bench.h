/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt-bench: declarations shared by the command's files.
 *
 *   main.c      options, the run's sequence per target, worker threads
 *   target.c    what is measured: a device or file (mmap), anonymous memory,
 *               shared anonymous memory (shmem), anonymous memory bound to a
 *               NUMA node (libnuma)
 *   probe.c     the page set of each thread, building the chase, timed and
 *               eviction passes
 *   timer.c     clock_gettime() and rdtscp timers, calibration, overhead
 *   classify.c  hit/miss threshold from the latencies alone
 *   devstats.c  the device's sysfs counters (absent for other targets)
 *   report.c    text, JSON and CSV reports
 *   plot.c      latency CDF: data file and gnuplot PNG
 *
 * Messages, number parsing, the sysfs reads and the percentiles are the
 * tools' library (tools/lib/: cxu_msg.h, cxu_num.h, cxu_devfs.h, cxu_lat.h).
 */
#ifndef CXDVIRT_BENCH_H
#define CXDVIRT_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cxu_lat.h"
#include "cxu_msg.h"
#include "cxu_num.h"

#ifndef CXDVIRT_VERSION
#define CXDVIRT_VERSION "0.2.0"
#endif

#define PROG "cxdvirt-bench"

#define MAX_NOTES	12
#define MAX_THREADS	256
#define MAX_TARGETS	16

/* ----------------------------------------------------------- timer.c -- */

enum timer_kind {
	TIMER_CLOCK,	/* clock_gettime(CLOCK_MONOTONIC), ns */
	TIMER_TSC,	/* rdtscp, ticks converted with a calibrated rate */
};

/**
 * struct timer_info - the timer of a run and what it costs.
 * @kind:		which timer.
 * @ns_per_tick:	1.0 for TIMER_CLOCK; calibrated for TIMER_TSC.
 * @tsc_ghz:		ticks per ns (TIMER_TSC), 0 otherwise.
 * @calib_spread:	relative difference of two calibrations (TIMER_TSC).
 * @invariant_tsc:	CPUID reports an invariant TSC.
 * @min_ns, @median_ns:	cost of one back-to-back timer pair, ns; never
 *			subtracted from a latency.
 * @resolution_ns:	clock_getres() of CLOCK_MONOTONIC.
 */
struct timer_info {
	enum timer_kind kind;
	double ns_per_tick;
	double tsc_ghz;
	double calib_spread;
	bool invariant_tsc;
	uint64_t min_ns;
	uint64_t median_ns;
	uint64_t resolution_ns;
};

int timer_setup(struct timer_info *ti, enum timer_kind kind);
uint64_t now_ns(void);

static inline uint64_t clock_ticks(void)
{
	return now_ns();
}

#if defined(__x86_64__) || defined(__i386__)
#define HAVE_TSC 1
static inline uint64_t tsc_ticks(void)
{
	uint32_t lo, hi, aux;

	__asm__ __volatile__("rdtscp\n\tlfence" : "=a"(lo), "=d"(hi), "=c"(aux) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}
#else
#define HAVE_TSC 0
static inline uint64_t tsc_ticks(void)
{
	return 0;
}
#endif

/* ---------------------------------------------------------- target.c -- */

enum target_kind {
	TGT_DEVICE,	/* a character device, /dev/cxdvirtN */
	TGT_FILE,	/* a regular file */
	TGT_ANON,	/* private anonymous memory, default policy */
	TGT_NODE,	/* private anonymous memory bound to one NUMA node */
	TGT_SHM,	/* MAP_SHARED | MAP_ANONYMOUS memory (shmem), default policy */
};

/**
 * struct dev_info - where a device's sysfs state lives.
 * @have_stats:	a sysfs directory with stats/ was found.
 * @dir:	that directory (".../cxdvirtN").
 * @name:	its configfs name ("" if unknown).
 * @capacity:	bytes, 0 if unknown.
 * @cache_size:	bytes, 0 if unknown.
 * @min_miss_ns: the shortest modeled miss from the configfs NAND timing:
 *		one NAND-page transfer when a NAND page holds several host
 *		pages (the rest can come from the page register), else
 *		tR + transfer; 0 if unknown.
 */
struct dev_info {
	bool have_stats;
	char dir[4096];
	char name[64];
	uint64_t capacity;
	uint64_t cache_size;
	uint64_t min_miss_ns;	/* shortest modeled miss, 0 if unknown */
};

/**
 * struct target - one thing a run measures.
 * @spec:	as given (path, "anon", "shm", "node:N").
 * @label:	name used in reports and plots (--label, or from @spec).
 * @kind:	what it is.
 * @node:	NUMA node of TGT_NODE.
 * @fd:		open device or file, -1 otherwise.
 * @di:		sysfs state of a device.
 * @capacity:	bytes that can be mapped, 0: no limit.
 */
struct target {
	const char *spec;
	char label[96];
	enum target_kind kind;
	int node;
	int fd;
	struct dev_info di;
	uint64_t capacity;
};

/**
 * target_is_memory() - whether a target is memory the tool allocates itself
 * (anon, shm, node) rather than a device or file it maps.
 * @t:	the target.
 *
 * Such memory has no device counters; its placement is checked with
 * move_pages() after the run, and its eviction region must be written once
 * before the passes (docs/tools.md).
 *
 * Return: true for TGT_ANON, TGT_SHM and TGT_NODE.
 */
static inline bool target_is_memory(const struct target *t)
{
	return t->kind == TGT_ANON || t->kind == TGT_SHM || t->kind == TGT_NODE;
}

int target_parse(const char *spec, struct target *t);
int target_open(struct target *t, char *why, size_t len);
void target_close(struct target *t);
const char *target_kind_name(enum target_kind k);
void *target_map(struct target *t, size_t len, bool thp, int *err);
int target_node_check(const struct target *t, void *base, size_t len,
		      size_t page, uint64_t *on, uint64_t *total);

/* ----------------------------------------------------------- probe.c -- */

enum pattern {
	PATTERN_CHASE,	/* random cyclic permutation, one cycle, dependent */
	PATTERN_SEQ,	/* slot 0, 1, 2, ..., dependent */
	PATTERN_RANDOM,	/* independent uniform random slots, with repetition */
	PATTERN_STRIDE,	/* slot 0, 1, 2, ... with --stride pages between slots */
};

const char *pattern_name(enum pattern p);

/**
 * struct region - the pages one thread visits.
 * @first:	page index (in the mapping) of slot 0.
 * @stride:	pages between consecutive slots.
 * @nslots:	slots (pages) of the region.
 * @order:	[nslots] visiting order of a cyclic pattern (slot numbers).
 */
struct region {
	uint64_t first;
	uint64_t stride;
	uint64_t nslots;
	uint64_t *order;
};

/**
 * struct probe - one mapping of a target and the regions built in it.
 * @base, @map_len:	the mapping.
 * @page:		page size in bytes (the device's line).
 * @span:		pages used by the regions (the eviction region follows).
 * @nevict:		pages of each of the two eviction halves (0: none).
 */
struct probe {
	uint8_t *base;
	size_t map_len;
	size_t page;
	uint64_t span;
	uint64_t nevict;
};

uint64_t rng_next(uint64_t *state);
uint64_t rng_below(uint64_t *state, uint64_t n);
int region_init(struct region *r, uint64_t first, uint64_t stride, uint64_t nslots,
		enum pattern pat, uint64_t seed);
void region_free(struct region *r);
void region_build(struct probe *p, struct region *r, enum pattern pat);
uint64_t region_off(const struct probe *p, const struct region *r, uint64_t slot);
void probe_evict(struct probe *p, unsigned int pass);

/**
 * struct pass_args - one thread's timed pass.
 * @p, @r:	where.
 * @pat:	how.
 * @cold:	the pages hold no chase: visit r->order through an index.
 * @idx:	[n] slot per access for PATTERN_RANDOM and @cold, else NULL.
 * @start:	byte offset of the first page of a dependent pass.
 * @is_write:	[n] nonzero: the access stores to word 1 first.
 * @words:	words read per access (access size / 8), >= 1.
 * @n:		accesses.
 * @tsc:	use rdtscp, else clock_gettime().
 * @lat:	[n] out: latency of each access in timer ticks.
 * @t_begin, @t_end: out: the pass's start and end, CLOCK_MONOTONIC ns.
 */
struct pass_args {
	struct probe *p;
	struct region *r;
	enum pattern pat;
	bool cold;
	const uint64_t *idx;
	uint64_t start;
	const uint8_t *is_write;
	unsigned int words;
	uint64_t n;
	bool tsc;
	uint64_t *lat;
	uint64_t t_begin, t_end;	/* out: CLOCK_MONOTONIC around the pass */
};

void probe_pass(struct pass_args *a);

/* -------------------------------------------------------- classify.c -- */

uint64_t threshold_from_data(const uint64_t *lat, size_t n);

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
	uint64_t fault_model_ns_total;	/* 0 on a module without the stage counters */
	uint64_t fault_unmap_ns_total;
	uint64_t fault_unmaps;
};

void devinfo_find(const char *path, dev_t rdev, struct dev_info *di);
void devinfo_find_node(int node, struct dev_info *di);
int devstats_read(const struct dev_info *di, struct dev_stats *s);
int devstats_reset(const struct dev_info *di);
void devstats_sub(const struct dev_stats *a, const struct dev_stats *b,
		  struct dev_stats *out);
void devstats_add(struct dev_stats *acc, const struct dev_stats *d);

/* ---------------------------------------------------------- report.c -- */

enum thr_mode { THR_AUTO, THR_MODEL, THR_DATA, THR_USER };

struct opts {
	struct target targets[MAX_TARGETS];
	unsigned int ntargets;
	uint64_t pages;
	unsigned int passes;
	unsigned int warmup;
	bool warmup_set;
	enum pattern pattern;
	uint64_t stride;
	uint64_t offset;
	unsigned int threads;
	bool shared;
	uint64_t thread_step;	/* 0: pages * stride (disjoint, contiguous) */
	uint64_t seed;
	double write_ratio;
	bool evict;
	uint64_t evict_pages;	/* 0: from the device's cache_size */
	enum thr_mode thr_mode;
	uint64_t thr_user_ns;
	bool no_reset;
	bool cold;
	bool thp;
	unsigned int access_bytes;
	enum timer_kind timer;
	bool json;
	bool csv;
	const char *plot;
	const char *cdf;
	const char *plot_from;
	const char *title;
};

/* What one target's run gave. */
struct result {
	struct target *t;
	uint64_t evict_pages;
	size_t page;
	uint64_t thr_ns;		/* 0: every access is a hit */
	const char *thr_source;		/* "model", "data", "user", "none" */
	uint64_t model_miss_ns;		/* mean modeled miss, 0 if unknown */
	double model_mean_ns;		/* the same, not rounded */
	double kernel_miss_mean_ns;	/* miss_ns_total / misses, 0 if unknown */
	/*
	 * The module's own time per miss, ns: the median over the passes of
	 * (miss_ns_total - model_ns_total) / misses of the pass. One slow
	 * miss (a 4 ms timer tick inside a fault) moves the mean of a whole
	 * run by hundreds of ns, a pass's figure only.
	 */
	double kernel_own_median_ns;
	double kernel_model_mean_ns;	/* fault_model_ns_total / misses */
	double kernel_unmap_mean_ns;	/* fault_unmap_ns_total / misses */
	double unmaps_per_miss;		/* fault_unmaps / misses */
	uint64_t data_thr_ns;		/* Otsu threshold, 0 if none */
	struct cxu_lat_summary hits, misses, all;
	struct cxu_lat_summary *thread_all;	/* [threads] */
	uint64_t classified_misses;
	bool have_delta;		/* device counters for measured passes */
	struct dev_stats delta;
	uint64_t *pass_classified;	/* [passes] */
	struct dev_stats *pass_delta;	/* [passes] */
	uint64_t *pass_ns;		/* [passes] wall time of each pass */
	double bandwidth_mbps;		/* bytes accessed / wall time, 10^6 B/s */
	uint64_t accesses;
	uint64_t *sorted;		/* all latencies, ascending (for the CDF) */
	size_t nsorted;
	bool node_checked;
	uint64_t node_pages_on, node_pages_total;
	const char *notes[MAX_NOTES];
	char note_buf[MAX_NOTES][200];
	unsigned int nnotes;
};

void note(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
double agreement(uint64_t a, uint64_t b);
void report_text(const struct opts *o, const struct timer_info *ti,
		 struct result *res, unsigned int n);
void report_json(const struct opts *o, const struct timer_info *ti,
		 struct result *res, unsigned int n);
void report_csv(const struct opts *o, struct result *res, unsigned int n);

/* ------------------------------------------------------------ plot.c -- */

int cdf_write(const char *path, struct result *res, unsigned int n);
int plot_png(const char *png, const char *cdf_path, const char *title);

#endif /* CXDVIRT_BENCH_H */
