// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-bench: latency of a cxdvirt device, of NUMA-node memory and of
 * plain memory, access by access.
 *
 *	cxdvirt-bench --target SPEC [--target SPEC...] [options]
 *	cxdvirt-bench --device /dev/cxdvirtN [options]	(the same as --target)
 *
 * Per target: map the working set (and the eviction region), write the
 * visiting order into it (this faults every working-set page in; not with
 * --cold), reset the device counters, then per pass: an optional untimed
 * eviction pass, a counter snapshot, every thread's timed pass, a second
 * snapshot. Warm-up passes run the same way and are not reported. Only the
 * measured passes' counter deltas are compared with the classification.
 * Targets run one after the other; the report lists each.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

static const char *const usage_text =
	"usage: " PROG " --target SPEC [--target SPEC...] [options]\n"
	"       " PROG " --plot-from CDF --plot FILE.png [--title T]\n"
	"\n"
	"Time each page access of a working set, split the accesses into hits\n"
	"and misses, and compare with a cxdvirt device's own miss counter.\n"
	"\n"
	"Targets (repeatable; run one after the other):\n"
	"  -t, --target SPEC        /dev/cxdvirtN or a regular file (mmap),\n"
	"                           anon (plain anonymous memory), shm (shared\n"
	"                           anonymous memory: shmem), node:N\n"
	"                           (anonymous memory bound to NUMA node N)\n"
	"  -d, --device PATH        the same as --target PATH\n"
	"  -L, --label NAME         name of the target given before it, in\n"
	"                           reports and plots (default: SPEC)\n"
	"Working set and pattern:\n"
	"  -n, --pages N            pages per thread (default 1024)\n"
	"  -p, --passes P           measured passes (default 3)\n"
	"      --warmup W           unreported passes before them (default 1\n"
	"                           with --evict, else 0)\n"
	"      --pattern NAME       chase (default: a seeded random cycle, each\n"
	"                           access dependent on the last), seq (slots\n"
	"                           0, 1, 2, ..., dependent), random (independent\n"
	"                           uniform draws), stride (seq with --stride\n"
	"                           pages between slots, 2 unless given)\n"
	"      --stride S           pages between consecutive slots (default 1;\n"
	"                           stride pattern: default 2)\n"
	"      --offset PAGES       first page of the working set (default 0)\n"
	"  -s, --seed S             seed of the order and the write choices (1)\n"
	"  -w, --write-ratio R      fraction of accesses that write, 0..1 (0)\n"
	"      --access-size B      bytes read per access, 8..page (default 8)\n"
	"      --cold               time the first touch: no chase is built, the\n"
	"                           pages are untouched before the first pass\n"
	"      --thp                allow transparent huge pages for anon, shm\n"
	"                           and node (shm: as shmem_enabled allows)\n"
	"Threads:\n"
	"  -T, --threads N          worker threads, each pinned to one CPU (1)\n"
	"      --shared             all threads visit one region (default:\n"
	"                           disjoint regions)\n"
	"      --thread-step PAGES  distance between the threads' regions\n"
	"                           (default pages x stride)\n"
	"Device:\n"
	"  -e, --evict              before each pass, read an eviction region so\n"
	"                           the working set leaves the cache\n"
	"      --evict-pages E      pages per eviction pass (default: the\n"
	"                           device's cache_size / page size)\n"
	"      --threshold T        auto (default: model if known, else data),\n"
	"                           model (half the mean modeled miss time),\n"
	"                           data (derived from the latencies), or ns\n"
	"      --no-reset           do not reset the device counters\n"
	"Timing and output:\n"
	"      --timer clock|rdtscp clock_gettime(CLOCK_MONOTONIC) (default) or\n"
	"                           rdtscp calibrated against it\n"
	"  -j, --json               JSON report\n"
	"      --csv                CSV report (one row per target and class)\n"
	"      --plot FILE.png      latency CDF, one line per target (gnuplot)\n"
	"      --cdf FILE           write the CDF points (input of --plot-from)\n"
	"      --plot-from FILE     plot a saved --cdf file; run nothing\n"
	"      --title TEXT         plot title\n"
	"  -h, --help, -V, --version\n"
	"\n"
	"Latencies include the cost of the timer, which is measured and printed\n"
	"but not subtracted. Exit status: 0 ok, 1 error, 2 usage.\n";

static void on_sigbus(int sig)
{
	static const char msg[] = PROG ": SIGBUS: an access beyond the end of "
		"the device or file (check --pages, --stride, --offset and --evict-pages)\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(EXIT_ERR);
	_exit(EXIT_ERR);
}

static int add_target(struct opts *o, const char *spec)
{
	if (o->ntargets >= MAX_TARGETS)
		return cxu_usage_err(NULL, "at most %d targets", MAX_TARGETS);
	if (target_parse(spec, &o->targets[o->ntargets]))
		return cxu_usage_err(NULL, "--target %s: expected a path, anon, shm or node:N",
				     spec);
	o->ntargets++;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	enum {
		OPT_PATTERN = 256, OPT_EVICT_PAGES, OPT_THRESHOLD, OPT_NO_RESET,
		OPT_WARMUP, OPT_STRIDE, OPT_OFFSET, OPT_ACCESS, OPT_COLD, OPT_THP,
		OPT_SHARED, OPT_TSTEP, OPT_TIMER, OPT_CSV, OPT_PLOT, OPT_CDF,
		OPT_PLOT_FROM, OPT_TITLE,
	};
	static const struct option lopts[] = {
		{ "target",	 required_argument, NULL, 't' },
		{ "device",	 required_argument, NULL, 'd' },
		{ "label",	 required_argument, NULL, 'L' },
		{ "pages",	 required_argument, NULL, 'n' },
		{ "passes",	 required_argument, NULL, 'p' },
		{ "warmup",	 required_argument, NULL, OPT_WARMUP },
		{ "pattern",	 required_argument, NULL, OPT_PATTERN },
		{ "stride",	 required_argument, NULL, OPT_STRIDE },
		{ "offset",	 required_argument, NULL, OPT_OFFSET },
		{ "seed",	 required_argument, NULL, 's' },
		{ "write-ratio", required_argument, NULL, 'w' },
		{ "access-size", required_argument, NULL, OPT_ACCESS },
		{ "cold",	 no_argument,	    NULL, OPT_COLD },
		{ "thp",	 no_argument,	    NULL, OPT_THP },
		{ "threads",	 required_argument, NULL, 'T' },
		{ "shared",	 no_argument,	    NULL, OPT_SHARED },
		{ "thread-step", required_argument, NULL, OPT_TSTEP },
		{ "evict",	 no_argument,	    NULL, 'e' },
		{ "evict-pages", required_argument, NULL, OPT_EVICT_PAGES },
		{ "threshold",	 required_argument, NULL, OPT_THRESHOLD },
		{ "no-reset",	 no_argument,	    NULL, OPT_NO_RESET },
		{ "timer",	 required_argument, NULL, OPT_TIMER },
		{ "json",	 no_argument,	    NULL, 'j' },
		{ "csv",	 no_argument,	    NULL, OPT_CSV },
		{ "plot",	 required_argument, NULL, OPT_PLOT },
		{ "cdf",	 required_argument, NULL, OPT_CDF },
		{ "plot-from",	 required_argument, NULL, OPT_PLOT_FROM },
		{ "title",	 required_argument, NULL, OPT_TITLE },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ "version",	 no_argument,	    NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	bool stride_set = false;
	uint64_t v;
	char *end;
	int c, ret;

	memset(o, 0, sizeof(*o));
	o->pages = 1024;
	o->passes = 3;
	o->seed = 1;
	o->stride = 1;
	o->threads = 1;
	o->access_bytes = 8;
	while ((c = getopt_long(argc, argv, "t:d:L:n:p:s:w:T:ejhV", lopts, NULL)) != -1) {
		switch (c) {
		case 't':
		case 'd':
			ret = add_target(o, optarg);
			if (ret)
				return ret;
			break;
		case 'L':
			if (!o->ntargets)
				return cxu_usage_err(NULL, "--label %s: names the --target given before it",
						     optarg);
			snprintf(o->targets[o->ntargets - 1].label, sizeof(o->targets[0].label),
				 "%s", optarg);
			break;
		case 'n':
			if (cxu_parse_u64(optarg, &o->pages) || !o->pages)
				return cxu_usage_err(NULL, "--pages %s: expected a page count >= 1", optarg);
			break;
		case 'p':
			if (cxu_parse_u64(optarg, &v) || !v || v > 1000000)
				return cxu_usage_err(NULL, "--passes %s: expected 1..1000000", optarg);
			o->passes = (unsigned int)v;
			break;
		case OPT_WARMUP:
			if (cxu_parse_u64(optarg, &v) || v > 1000)
				return cxu_usage_err(NULL, "--warmup %s: expected 0..1000", optarg);
			o->warmup = (unsigned int)v;
			o->warmup_set = true;
			break;
		case OPT_PATTERN:
			if (!strcmp(optarg, "chase"))
				o->pattern = PATTERN_CHASE;
			else if (!strcmp(optarg, "seq"))
				o->pattern = PATTERN_SEQ;
			else if (!strcmp(optarg, "random"))
				o->pattern = PATTERN_RANDOM;
			else if (!strcmp(optarg, "stride"))
				o->pattern = PATTERN_STRIDE;
			else
				return cxu_usage_err(NULL, "--pattern %s: expected chase, seq, random or stride",
						     optarg);
			break;
		case OPT_STRIDE:
			if (cxu_parse_u64(optarg, &o->stride) || !o->stride || o->stride > (1ull << 32))
				return cxu_usage_err(NULL, "--stride %s: expected 1..2^32 pages", optarg);
			stride_set = true;
			break;
		case OPT_OFFSET:
			if (cxu_parse_u64(optarg, &o->offset) || o->offset > (1ull << 40))
				return cxu_usage_err(NULL, "--offset %s: expected a page number", optarg);
			break;
		case 's':
			if (cxu_parse_u64(optarg, &o->seed))
				return cxu_usage_err(NULL, "--seed %s: expected a number", optarg);
			break;
		case 'w':
			errno = 0;
			o->write_ratio = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->write_ratio >= 0.0) ||
			    o->write_ratio > 1.0)
				return cxu_usage_err(NULL, "--write-ratio %s: expected 0..1", optarg);
			break;
		case OPT_ACCESS:
			if (cxu_parse_u64(optarg, &v) || v < 8 || v % 8 ||
			    v > (uint64_t)sysconf(_SC_PAGESIZE))
				return cxu_usage_err(NULL, "--access-size %s: expected a multiple of 8, 8..page size",
						     optarg);
			o->access_bytes = (unsigned int)v;
			break;
		case OPT_COLD:
			o->cold = true;
			break;
		case OPT_THP:
			o->thp = true;
			break;
		case 'T':
			if (cxu_parse_u64(optarg, &v) || !v || v > MAX_THREADS)
				return cxu_usage_err(NULL, "--threads %s: expected 1..%d", optarg, MAX_THREADS);
			o->threads = (unsigned int)v;
			break;
		case OPT_SHARED:
			o->shared = true;
			break;
		case OPT_TSTEP:
			if (cxu_parse_u64(optarg, &o->thread_step) || !o->thread_step ||
			    o->thread_step > (1ull << 40))
				return cxu_usage_err(NULL, "--thread-step %s: expected a page count >= 1", optarg);
			break;
		case 'e':
			o->evict = true;
			break;
		case OPT_EVICT_PAGES:
			if (cxu_parse_u64(optarg, &o->evict_pages) || !o->evict_pages)
				return cxu_usage_err(NULL, "--evict-pages %s: expected a page count >= 1",
						     optarg);
			o->evict = true;
			break;
		case OPT_THRESHOLD:
			if (!strcmp(optarg, "auto"))
				o->thr_mode = THR_AUTO;
			else if (!strcmp(optarg, "model"))
				o->thr_mode = THR_MODEL;
			else if (!strcmp(optarg, "data"))
				o->thr_mode = THR_DATA;
			else if (!cxu_parse_u64(optarg, &o->thr_user_ns) && o->thr_user_ns)
				o->thr_mode = THR_USER;
			else
				return cxu_usage_err(NULL, "--threshold %s: expected auto, model, data or ns",
						     optarg);
			break;
		case OPT_NO_RESET:
			o->no_reset = true;
			break;
		case OPT_TIMER:
			if (!strcmp(optarg, "clock"))
				o->timer = TIMER_CLOCK;
			else if (!strcmp(optarg, "rdtscp") || !strcmp(optarg, "tsc"))
				o->timer = TIMER_TSC;
			else
				return cxu_usage_err(NULL, "--timer %s: expected clock or rdtscp", optarg);
			break;
		case 'j':
			o->json = true;
			break;
		case OPT_CSV:
			o->csv = true;
			break;
		case OPT_PLOT:
			o->plot = optarg;
			break;
		case OPT_CDF:
			o->cdf = optarg;
			break;
		case OPT_PLOT_FROM:
			o->plot_from = optarg;
			break;
		case OPT_TITLE:
			o->title = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		case 'V':
			printf(PROG " " CXDVIRT_VERSION "\n");
			exit(EXIT_OK);
		default:
			return cxu_usage_err(NULL, NULL);
		}
	}
	if (optind < argc)
		return cxu_usage_err(NULL, "unexpected '%s'", argv[optind]);
	if (o->plot_from) {
		if (!o->plot || o->ntargets)
			return cxu_usage_err(NULL, "--plot-from needs --plot and no --target");
		return 0;
	}
	if (!o->ntargets)
		return cxu_usage_err(NULL, "--target (or --device) is required");
	if (o->json && o->csv)
		return cxu_usage_err(NULL, "--json and --csv exclude each other");
	if (o->pattern == PATTERN_STRIDE && !stride_set)
		o->stride = 2;
	if (o->cold && (o->evict || (o->warmup_set && o->warmup)))
		return cxu_usage_err(NULL, "--cold times the first touch: no --evict, no --warmup");
	if (!o->warmup_set)
		o->warmup = o->evict ? 1 : 0;
	if (o->pages > (1ull << 36) / o->stride)
		return cxu_usage_err(NULL, "--pages x --stride too large");
	return 0;
}

/* ------------------------------------------------------------------------ */

struct worker {
	pthread_t tid;
	unsigned int k;
	int cpu;
	pthread_barrier_t *start, *done;
	volatile bool *quit;
	struct pass_args a;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;

	if (w->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	for (;;) {
		pthread_barrier_wait(w->start);
		if (*w->quit)
			break;
		probe_pass(&w->a);
		pthread_barrier_wait(w->done);
	}
	return NULL;
}

/* The CPUs this process may run on, in order; returns how many. */
static int allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int i, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (i = 0; i < CPU_SETSIZE && n < max; i++)
		if (CPU_ISSET(i, &set))
			cpus[n++] = i;
	return n;
}

/* Each access of thread @k in pass @p (warm-ups negative) writes with probability R. */
static void write_choices(const struct opts *o, int p, unsigned int k, uint8_t *w, uint64_t n)
{
	uint64_t st = o->seed ^ (0x5851f42d4c957f2dull * (uint64_t)(p + 1)) ^
		      (0x9e3779b97f4a7c15ull * k), i;

	for (i = 0; i < n; i++)
		w[i] = o->write_ratio > 0 &&
		       (double)(rng_next(&st) >> 11) * 0x1.0p-53 < o->write_ratio;
}

static void random_slots(const struct opts *o, int p, unsigned int k, uint64_t *idx,
			 uint64_t n, uint64_t nslots)
{
	uint64_t st = o->seed ^ (0xd1b54a32d192ed03ull * (uint64_t)(p + 1000)) ^
		      (0x9e3779b97f4a7c15ull * (k + 7)), i;

	for (i = 0; i < n; i++)
		idx[i] = rng_below(&st, nslots);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * r->kernel_own_median_ns from the per-pass device counters (passes
 * without misses do not count); 0 if no pass had a miss.
 */
static void own_median(const struct opts *o, struct result *r)
{
	unsigned int i, n = 0;
	double *v = calloc(o->passes, sizeof(*v));

	if (!v)
		return;
	for (i = 0; i < o->passes; i++) {
		const struct dev_stats *d = &r->pass_delta[i];

		if (d->misses)
			v[n++] = ((double)d->miss_ns_total - (double)d->model_ns_total) /
				 (double)d->misses;
	}
	if (n) {
		qsort(v, n, sizeof(v[0]), cmp_double);
		r->kernel_own_median_ns = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	}
	free(v);
}

/* Pick the threshold (r->thr_ns) per the mode and what is known. */
static void pick_threshold(const struct opts *o, struct result *r,
			   const uint64_t *lat, size_t n)
{
	r->data_thr_ns = threshold_from_data(lat, n);
	if (r->have_delta && r->delta.misses && r->delta.model_ns_total) {
		r->model_miss_ns = r->delta.model_ns_total / r->delta.misses;
		r->model_mean_ns = (double)r->delta.model_ns_total / (double)r->delta.misses;
		r->kernel_miss_mean_ns = (double)r->delta.miss_ns_total / (double)r->delta.misses;
		r->kernel_model_mean_ns = (double)r->delta.fault_model_ns_total / (double)r->delta.misses;
		r->kernel_unmap_mean_ns = (double)r->delta.fault_unmap_ns_total / (double)r->delta.misses;
		r->unmaps_per_miss = (double)r->delta.fault_unmaps / (double)r->delta.misses;
		own_median(o, r);
	}

	switch (o->thr_mode) {
	case THR_USER:
		r->thr_ns = o->thr_user_ns;
		r->thr_source = "user";
		return;
	case THR_MODEL:
	case THR_AUTO:
		if (r->model_miss_ns) {
			/*
			 * Half the mean modeled miss; or half the shortest one
			 * when that is less (page-register reads of large NAND
			 * pages make the modeled misses bimodal).
			 */
			r->thr_ns = r->model_miss_ns / 2;
			if (r->t->di.min_miss_ns && r->t->di.min_miss_ns < r->model_miss_ns)
				r->thr_ns = r->t->di.min_miss_ns / 2;
			r->thr_source = "model";
			return;
		}
		if (o->thr_mode == THR_MODEL)
			note(r, "no modeled miss time (%s): threshold derived from the data",
			     r->have_delta ? "the device counted no miss" : "no device counters");
		break;
	case THR_DATA:
		break;
	}
	r->thr_ns = r->data_thr_ns;
	r->thr_source = r->thr_ns ? "data" : "none";
}

/*
 * Split the latencies into hits and misses at r->thr_ns and summarise.
 * @lat[k]: thread k's [passes][n] latencies in ns.
 */
static int classify(const struct opts *o, struct result *r, uint64_t **lat, uint64_t n)
{
	size_t total = (size_t)n * o->passes * o->threads, nh = 0, nm = 0, na = 0;
	uint64_t *hit = malloc(total * sizeof(*hit)), *miss = malloc(total * sizeof(*miss));
	uint64_t *all = malloc(total * sizeof(*all)), i, *l;
	unsigned int p, k;

	if (!hit || !miss || !all) {
		free(hit);
		free(miss);
		free(all);
		return -ENOMEM;
	}
	for (p = 0; p < o->passes; p++) {
		r->pass_classified[p] = 0;
		for (k = 0; k < o->threads; k++) {
			l = lat[k] + (size_t)p * n;
			for (i = 0; i < n; i++) {
				all[na++] = l[i];
				if (r->thr_ns && l[i] > r->thr_ns) {
					miss[nm++] = l[i];
					r->pass_classified[p]++;
				} else {
					hit[nh++] = l[i];
				}
			}
		}
	}
	r->classified_misses = nm;
	cxu_sort_u64(hit, nh);
	cxu_sort_u64(miss, nm);
	cxu_sort_u64(all, na);
	cxu_lat_summarize(hit, nh, &r->hits);
	cxu_lat_summarize(miss, nm, &r->misses);
	cxu_lat_summarize(all, na, &r->all);
	r->sorted = all;
	r->nsorted = na;
	for (k = 0; k < o->threads; k++) {
		size_t m = (size_t)n * o->passes;

		memcpy(hit, lat[k], m * sizeof(*hit));
		cxu_sort_u64(hit, m);
		cxu_lat_summarize(hit, m, &r->thread_all[k]);
	}
	free(hit);
	free(miss);
	return 0;
}

/* Everything one target's run allocates. */
struct run {
	struct probe pr;
	struct region *reg;		/* [threads], or one when shared */
	unsigned int nreg;
	uint64_t **lat;			/* [threads][passes * n] */
	uint64_t **idx;			/* [threads][n] or NULL */
	uint8_t **wr;			/* [threads][n] */
	struct worker *w;
};

static void run_free(struct run *u, unsigned int threads)
{
	unsigned int k;

	if (u->pr.base)
		munmap(u->pr.base, u->pr.map_len);
	for (k = 0; u->reg && k < u->nreg; k++)
		region_free(&u->reg[k]);
	for (k = 0; k < threads; k++) {
		if (u->lat)
			free(u->lat[k]);
		if (u->idx)
			free(u->idx[k]);
		if (u->wr)
			free(u->wr[k]);
	}
	free(u->reg);
	free(u->lat);
	free(u->idx);
	free(u->wr);
	free(u->w);
}

/**
 * run_target() - measure one target.
 * Return: EXIT_OK, EXIT_ERR or EXIT_USAGE.
 */
static int run_target(const struct opts *o, const struct timer_info *ti,
		      struct target *t, struct result *r)
{
	uint64_t n = o->pages, tstep, span = 0, need, e, first, i, t0, t1;
	unsigned int T = o->threads, k, p, nrun;
	struct dev_stats before, after, d;
	pthread_barrier_t bstart, bdone;
	volatile bool quit = false;
	struct run u = { 0 };
	int cpus[MAX_THREADS], ncpu, ret, rc = EXIT_ERR;
	char why[512];
	bool dev = t->kind == TGT_DEVICE, indexed;

	r->t = t;
	r->thr_source = "none";
	ret = target_open(t, why, sizeof(why));
	if (ret) {
		cxu_err("%s", why);
		return ret;
	}
	r->page = (size_t)sysconf(_SC_PAGESIZE);
	if (t->kind == TGT_FILE)
		note(r, "%s is a regular file: no device counters", t->spec);
	else if (dev && !t->di.have_stats)
		note(r, "no sysfs stats found for %s: no device counters", t->spec);

	e = o->evict_pages;
	if (o->evict && !e) {
		if (!t->di.cache_size) {
			cxu_usage_err(NULL, "--evict: give --evict-pages (the cache size of %s is unknown)",
				      t->spec);
			rc = EXIT_USAGE;
			goto out;
		}
		e = t->di.cache_size / r->page;
	}
	if (e > (1ull << 36)) {
		cxu_usage_err(NULL, "--evict-pages too large");
		rc = EXIT_USAGE;
		goto out;
	}
	r->evict_pages = e;
	tstep = o->thread_step ? o->thread_step : n * o->stride;
	u.nreg = o->shared ? 1 : T;
	for (k = 0; k < u.nreg; k++) {
		first = o->offset + k * tstep;
		if (first + (n - 1) * o->stride + 1 > span)
			span = first + (n - 1) * o->stride + 1;
	}
	if (!o->shared && T > 1 && tstep < n * o->stride && tstep % o->stride == 0 &&
	    tstep / o->stride < n)
		note(r, "--thread-step %" PRIu64 " makes the threads' regions overlap", tstep);
	need = (span + 2 * e) * r->page;
	if (t->capacity && need > t->capacity) {
		cxu_err("%s: needs %" PRIu64 " bytes (%" PRIu64 " pages of regions + 2 x %" PRIu64
			" eviction pages), has %" PRIu64, t->spec, need, span, e, t->capacity);
		goto out;
	}

	u.reg = calloc(u.nreg, sizeof(*u.reg));
	u.lat = calloc(T, sizeof(*u.lat));
	u.idx = calloc(T, sizeof(*u.idx));
	u.wr = calloc(T, sizeof(*u.wr));
	u.w = calloc(T, sizeof(*u.w));
	r->pass_classified = calloc(o->passes, sizeof(*r->pass_classified));
	r->pass_delta = calloc(o->passes, sizeof(*r->pass_delta));
	r->pass_ns = calloc(o->passes, sizeof(*r->pass_ns));
	r->thread_all = calloc(T, sizeof(*r->thread_all));
	if (!u.reg || !u.lat || !u.idx || !u.wr || !u.w || !r->pass_classified ||
	    !r->pass_delta || !r->pass_ns || !r->thread_all)
		goto oom;
	indexed = o->cold || o->pattern == PATTERN_RANDOM;
	for (k = 0; k < T; k++) {
		u.lat[k] = malloc((size_t)n * o->passes * sizeof(**u.lat));
		u.wr[k] = malloc(n);
		if (indexed)
			u.idx[k] = malloc(n * sizeof(**u.idx));
		if (!u.lat[k] || !u.wr[k] || (indexed && !u.idx[k]))
			goto oom;
		memset(u.lat[k], 0, (size_t)n * o->passes * sizeof(**u.lat));	/* fault it in */
	}
	for (k = 0; k < u.nreg; k++)
		if (region_init(&u.reg[k], o->offset + k * tstep, o->stride, n, o->pattern,
				k ? o->seed + k : o->seed))
			goto oom;

	u.pr.page = r->page;
	u.pr.span = span;
	u.pr.nevict = e;
	u.pr.map_len = (size_t)need;
	u.pr.base = target_map(t, u.pr.map_len, o->thp, &ret);
	if (!u.pr.base) {
		cxu_err("%s: mmap of %" PRIu64 " bytes: %s", t->spec, need, strerror(-ret));
		goto out;
	}
	if (!o->cold)
		for (k = 0; k < u.nreg; k++)
			region_build(&u.pr, &u.reg[k], o->pattern);
	/*
	 * Anonymous memory: a read of an untouched page maps the shared zero
	 * page, which is on no node and evicts nothing. Write the eviction
	 * region once so its pages are real (node-mode) memory. A shmem read
	 * fault allocates a real page, but shm is written the same way, so
	 * that its setup (first touches, dirty pages) is anon's.
	 */
	if (o->evict && target_is_memory(t))
		for (i = 0; i < 2 * e; i++)
			*(volatile uint64_t *)(u.pr.base + (span + i) * r->page) = i;

	/* Per-thread pass arguments that do not change between passes. */
	for (k = 0; k < T; k++) {
		struct region *rg = &u.reg[o->shared ? 0 : k];
		uint64_t rot = o->shared ? (uint64_t)k * n / T : 0;

		u.w[k].a = (struct pass_args){
			.p = &u.pr, .r = rg, .pat = o->pattern, .cold = o->cold,
			.idx = u.idx[k], .start = region_off(&u.pr, rg, rg->order[rot]),
			.is_write = u.wr[k], .words = o->access_bytes / 8, .n = n,
			.tsc = ti->kind == TIMER_TSC,
		};
		if (o->cold)
			for (i = 0; i < n; i++)
				u.idx[k][i] = rg->order[(i + rot) % n];
	}

	if (t->di.have_stats && !o->no_reset) {
		ret = devstats_reset(&t->di);
		if (ret)
			note(r, "counters not reset (%s%s); deltas are used anyway",
			     strerror(-ret), geteuid() ? ": needs root" : "");
	}

	ncpu = allowed_cpus(cpus, MAX_THREADS);
	pthread_barrier_init(&bstart, NULL, T + 1);
	pthread_barrier_init(&bdone, NULL, T + 1);
	for (k = 0; k < T; k++) {
		u.w[k].k = k;
		u.w[k].cpu = ncpu ? cpus[k % (unsigned int)ncpu] : -1;
		u.w[k].start = &bstart;
		u.w[k].done = &bdone;
		u.w[k].quit = &quit;
		if (pthread_create(&u.w[k].tid, NULL, worker_main, &u.w[k])) {
			cxu_err("cannot start thread %u", k);
			exit(EXIT_ERR);
		}
	}
	if (T > (unsigned int)ncpu && ncpu)
		note(r, "%u threads on %d CPUs: threads share CPUs", T, ncpu);

	r->have_delta = t->di.have_stats;
	nrun = o->warmup + o->passes;
	for (p = 0; p < nrun; p++) {
		int pass = (int)p - (int)o->warmup;	/* < 0: warm-up */

		if (o->evict)
			probe_evict(&u.pr, p);
		for (k = 0; k < T; k++) {
			write_choices(o, pass, k, u.wr[k], n);
			if (o->pattern == PATTERN_RANDOM && !o->cold)
				random_slots(o, pass, k, u.idx[k], n, u.w[k].a.r->nslots);
			u.w[k].a.lat = u.lat[k] + (size_t)(pass < 0 ? 0 : pass) * n;
		}
		if (pass >= 0 && r->have_delta && devstats_read(&t->di, &before))
			r->have_delta = false;
		pthread_barrier_wait(&bstart);
		pthread_barrier_wait(&bdone);
		if (pass < 0)
			continue;
		/* Wall time: the first thread's start to the last one's end. */
		t0 = UINT64_MAX;
		t1 = 0;
		for (k = 0; k < T; k++) {
			t0 = u.w[k].a.t_begin < t0 ? u.w[k].a.t_begin : t0;
			t1 = u.w[k].a.t_end > t1 ? u.w[k].a.t_end : t1;
		}
		r->pass_ns[pass] = t1 - t0;
		if (r->have_delta && devstats_read(&t->di, &after))
			r->have_delta = false;
		if (r->have_delta) {
			devstats_sub(&after, &before, &d);
			r->pass_delta[pass] = d;
			devstats_add(&r->delta, &d);
		}
	}
	quit = true;
	pthread_barrier_wait(&bstart);
	for (k = 0; k < T; k++)
		pthread_join(u.w[k].tid, NULL);
	pthread_barrier_destroy(&bstart);
	pthread_barrier_destroy(&bdone);
	if (t->di.have_stats && !r->have_delta)
		note(r, "device counters could not be read during the run");

	/* Not shm: a read fault of shmem allocates a page, which has a node. */
	if (o->cold && o->write_ratio == 0 && (t->kind == TGT_NODE || t->kind == TGT_ANON)) {
		note(r, "read first touches of anonymous memory map the shared zero page: placement not checked");
	} else if (target_is_memory(t)) {
		if (!target_node_check(t, u.pr.base, (size_t)span * r->page, r->page,
				       &r->node_pages_on, &r->node_pages_total))
			r->node_checked = true;
		if (r->node_checked && t->kind == TGT_NODE &&
		    r->node_pages_on < r->node_pages_total)
			note(r, "only %" PRIu64 " of %" PRIu64 " sampled pages are on node %d",
			     r->node_pages_on, r->node_pages_total, t->node);
	}

	/* Ticks to ns. */
	if (ti->kind == TIMER_TSC)
		for (k = 0; k < T; k++)
			for (i = 0; i < n * o->passes; i++)
				u.lat[k][i] = (uint64_t)llround((double)u.lat[k][i] * ti->ns_per_tick);

	{
		size_t total = (size_t)n * o->passes * T;
		uint64_t *flat = malloc(total * sizeof(*flat)), sum_ns = 0;

		if (!flat)
			goto oom;
		for (k = 0; k < T; k++)
			memcpy(flat + (size_t)k * n * o->passes, u.lat[k],
			       (size_t)n * o->passes * sizeof(*flat));
		pick_threshold(o, r, flat, total);
		free(flat);
		if (classify(o, r, u.lat, n))
			goto oom;
		r->accesses = total;
		for (p = 0; p < o->passes; p++)
			sum_ns += r->pass_ns[p];
		r->bandwidth_mbps = sum_ns ? (double)total * o->access_bytes * 1000.0 /
					     (double)sum_ns : 0;
	}
	rc = EXIT_OK;
	goto out;
oom:
	cxu_err("out of memory");
	rc = EXIT_ERR;
out:
	run_free(&u, o->threads);
	target_close(t);
	return rc;
}

int main(int argc, char **argv)
{
	static struct result res[MAX_TARGETS];
	struct timer_info ti;
	struct opts o;
	unsigned int i;
	int ret, rc = EXIT_OK;

	cxu_set_prog(PROG);
	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret;
	if (o.plot_from) {
		ret = plot_png(o.plot, o.plot_from, o.title);
		return ret ? EXIT_ERR : EXIT_OK;
	}
	ret = timer_setup(&ti, o.timer);
	if (ret == -ENOTSUP) {
		cxu_err("--timer rdtscp: this CPU has no usable rdtscp");
		return EXIT_USAGE;
	} else if (ret) {
		cxu_err("out of memory");
		return EXIT_ERR;
	}
	signal(SIGBUS, on_sigbus);

	for (i = 0; i < o.ntargets; i++) {
		ret = run_target(&o, &ti, &o.targets[i], &res[i]);
		if (ret)
			return ret;
	}
	if (o.json)
		report_json(&o, &ti, res, o.ntargets);
	else if (o.csv)
		report_csv(&o, res, o.ntargets);
	else
		report_text(&o, &ti, res, o.ntargets);
	fflush(stdout);
	if (o.cdf && cdf_write(o.cdf, res, o.ntargets)) {
		cxu_err("%s: cannot write the CDF: %s", o.cdf, strerror(errno));
		rc = EXIT_ERR;
	}
	if (o.plot) {
		char tmp[] = "/tmp/cxdvirt-bench-cdf.XXXXXX";
		const char *path = o.cdf;
		int fd = -1;

		if (!path) {
			fd = mkstemp(tmp);
			if (fd < 0 || cdf_write(tmp, res, o.ntargets)) {
				cxu_err("cannot write a temporary CDF file: %s", strerror(errno));
				rc = EXIT_ERR;
			}
			path = tmp;
		}
		if (rc == EXIT_OK && plot_png(o.plot, path, o.title))
			rc = EXIT_ERR;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
	}
	for (i = 0; i < o.ntargets; i++) {
		free(res[i].pass_classified);
		free(res[i].pass_delta);
		free(res[i].pass_ns);
		free(res[i].thread_all);
		free(res[i].sorted);
	}
	return rc;
}
