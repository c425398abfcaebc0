// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-bench: a first latency probe of a cxdvirt device.
 *
 *	cxdvirt-bench --device /dev/cxdvirtN [--pages N] [--passes P]
 *		[--pattern chase|seq] [--seed S] [--write-ratio R]
 *		[--evict] [--evict-pages E] [--threshold auto|model|data|NS]
 *		[--no-reset] [--json]
 *
 * Sequence: map the working set (and the eviction region), write the chase
 * into it (this faults every working-set page), reset the device counters,
 * then per measured pass: an optional untimed eviction pass, a counter
 * snapshot, the timed pass, a second snapshot. Only the measured passes'
 * counter deltas are compared with the latency classification.
 *
 * --device may be a regular file (mmap of a file) for a sanity run on any
 * host: there are no device counters then, and the report says so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "bench.h"

#ifndef JSON_C_TO_STRING_NOSLASHESCAPE
#define JSON_C_TO_STRING_NOSLASHESCAPE 0
#endif

#define MAX_NOTES	8

enum thr_mode { THR_AUTO, THR_MODEL, THR_DATA, THR_USER };

struct opts {
	const char *device;
	uint64_t pages;
	unsigned int passes;
	enum pattern pattern;
	uint64_t seed;
	double write_ratio;
	bool evict;
	uint64_t evict_pages;	/* 0: from the device's cache_size */
	enum thr_mode thr_mode;
	uint64_t thr_user_ns;
	bool no_reset;
	bool json;
};

/* Everything the report needs. */
struct result {
	struct dev_info di;
	bool is_file;
	uint64_t capacity;		/* bytes, 0 if unknown */
	struct timer_cost timer;
	uint64_t thr_ns;		/* 0: every access is a hit */
	const char *thr_source;		/* "model", "data", "user", "none" */
	uint64_t model_miss_ns;		/* mean modeled miss, 0 if unknown */
	uint64_t data_thr_ns;		/* Otsu threshold, 0 if none */
	struct lat_summary hits, misses, all;
	uint64_t classified_misses;
	bool have_delta;		/* device counters for measured passes */
	struct dev_stats delta;
	uint64_t *pass_classified;	/* [passes] */
	struct dev_stats *pass_delta;	/* [passes] */
	const char *notes[MAX_NOTES];
	char note_buf[MAX_NOTES][160];
	unsigned int nnotes;
};

static const char *const usage_text =
	"usage: " PROG " --device PATH [options]\n"
	"\n"
	"Time each page access of a working set mapped from a cxdvirt device\n"
	"(or a regular file), split the accesses into hits and misses, and\n"
	"compare with the device's own miss counter.\n"
	"\n"
	"  -d, --device PATH        /dev/cxdvirtN, or a regular file\n"
	"  -n, --pages N            working-set pages (default 1024)\n"
	"  -p, --passes P           measured passes (default 3)\n"
	"      --pattern chase|seq  visiting order (default chase: a seeded\n"
	"                           random cycle through all pages)\n"
	"  -s, --seed S             seed of the chase and the write choices (1)\n"
	"  -w, --write-ratio R      fraction of accesses that write, 0..1 (0)\n"
	"  -e, --evict              before each measured pass, read an eviction\n"
	"                           region so the working set leaves the cache\n"
	"      --evict-pages E      pages per eviction pass (default: the\n"
	"                           device's cache_size / page size); the region\n"
	"                           mapped is 2 x E pages after the working set\n"
	"      --threshold T        auto (default: model if known, else data),\n"
	"                           model (half the mean modeled miss time),\n"
	"                           data (derived from the latencies), or ns\n"
	"      --no-reset           do not reset the device counters\n"
	"  -j, --json               JSON report\n"
	"  -h, --help, -V, --version\n"
	"\n"
	"Latencies include the cost of clock_gettime(), which is measured and\n"
	"printed but not subtracted. Exit status: 0 ok, 1 error, 2 usage.\n";

/**
 * err_msg() - print "cxdvirt-bench: <message>" and a newline to stderr.
 * @fmt:	printf format.
 */
void err_msg(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int usage_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_err(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fputs(PROG ": ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fputs("Try '" PROG " --help'.\n", stderr);
	return EXIT_USAGE;
}

static void note(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nnotes >= MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(r->note_buf[r->nnotes], sizeof(r->note_buf[0]), fmt, ap);
	va_end(ap);
	r->notes[r->nnotes] = r->note_buf[r->nnotes];
	r->nnotes++;
}

/* A whole decimal or 0x-hex number, nothing else. */
static int parse_num(const char *s, uint64_t *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || *s == ' ' || *s == '\t')
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && !s[2])
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static void on_sigbus(int sig)
{
	static const char msg[] = PROG ": SIGBUS: an access beyond the end of "
		"the device or file (check --pages and --evict-pages)\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(EXIT_ERR);
	_exit(EXIT_ERR);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	enum { OPT_PATTERN = 256, OPT_EVICT_PAGES, OPT_THRESHOLD, OPT_NO_RESET };
	static const struct option lopts[] = {
		{ "device",	 required_argument, NULL, 'd' },
		{ "pages",	 required_argument, NULL, 'n' },
		{ "passes",	 required_argument, NULL, 'p' },
		{ "pattern",	 required_argument, NULL, OPT_PATTERN },
		{ "seed",	 required_argument, NULL, 's' },
		{ "write-ratio", required_argument, NULL, 'w' },
		{ "evict",	 no_argument,	    NULL, 'e' },
		{ "evict-pages", required_argument, NULL, OPT_EVICT_PAGES },
		{ "threshold",	 required_argument, NULL, OPT_THRESHOLD },
		{ "no-reset",	 no_argument,	    NULL, OPT_NO_RESET },
		{ "json",	 no_argument,	    NULL, 'j' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ "version",	 no_argument,	    NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	char *end;
	int c;

	*o = (struct opts){ .pages = 1024, .passes = 3, .seed = 1 };
	while ((c = getopt_long(argc, argv, "d:n:p:s:w:ejhV", lopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o->device = optarg;
			break;
		case 'n':
			if (parse_num(optarg, &o->pages) || !o->pages)
				return usage_err("--pages %s: expected a page count >= 1", optarg);
			break;
		case 'p':
			if (parse_num(optarg, &v) || !v || v > 1000000)
				return usage_err("--passes %s: expected 1..1000000", optarg);
			o->passes = (unsigned int)v;
			break;
		case OPT_PATTERN:
			if (!strcmp(optarg, "chase"))
				o->pattern = PATTERN_CHASE;
			else if (!strcmp(optarg, "seq"))
				o->pattern = PATTERN_SEQ;
			else
				return usage_err("--pattern %s: expected chase or seq", optarg);
			break;
		case 's':
			if (parse_num(optarg, &o->seed))
				return usage_err("--seed %s: expected a number", optarg);
			break;
		case 'w':
			errno = 0;
			o->write_ratio = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->write_ratio >= 0.0) ||
			    o->write_ratio > 1.0)
				return usage_err("--write-ratio %s: expected 0..1", optarg);
			break;
		case 'e':
			o->evict = true;
			break;
		case OPT_EVICT_PAGES:
			if (parse_num(optarg, &o->evict_pages) || !o->evict_pages)
				return usage_err("--evict-pages %s: expected a page count >= 1",
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
			else if (!parse_num(optarg, &o->thr_user_ns) && o->thr_user_ns)
				o->thr_mode = THR_USER;
			else
				return usage_err("--threshold %s: expected auto, model, data or ns",
						 optarg);
			break;
		case OPT_NO_RESET:
			o->no_reset = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		case 'V':
			printf(PROG " " CXDVIRT_VERSION "\n");
			exit(EXIT_OK);
		default:
			return usage_err(NULL);
		}
	}
	if (optind < argc)
		return usage_err("unexpected '%s'", argv[optind]);
	if (!o->device)
		return usage_err("--device is required");
	return 0;
}

/* Fill the per-pass write decisions: each access writes with probability R. */
static void write_choices(const struct opts *o, unsigned int pass, uint8_t *w)
{
	uint64_t st = o->seed ^ (0x5851f42d4c957f2dull * (pass + 1)), i;

	for (i = 0; i < o->pages; i++)
		w[i] = o->write_ratio > 0 &&
		       (double)(rng_next(&st) >> 11) * 0x1.0p-53 < o->write_ratio;
}

/* Pick the threshold (r->thr_ns) per the mode and what is known. */
static void pick_threshold(const struct opts *o, struct result *r,
			   const uint64_t *lat, size_t n)
{
	r->data_thr_ns = threshold_from_data(lat, n);
	if (r->have_delta && r->delta.misses && r->delta.model_ns_total)
		r->model_miss_ns = r->delta.model_ns_total / r->delta.misses;

	switch (o->thr_mode) {
	case THR_USER:
		r->thr_ns = o->thr_user_ns;
		r->thr_source = "user";
		return;
	case THR_MODEL:
	case THR_AUTO:
		if (r->model_miss_ns) {
			r->thr_ns = r->model_miss_ns / 2;
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

/* Split @lat into hits and misses at r->thr_ns, summarise each. */
static int classify(const struct opts *o, struct result *r, uint64_t *lat, size_t n)
{
	uint64_t *hit = malloc(n * sizeof(*hit)), *miss = malloc(n * sizeof(*miss));
	size_t nh = 0, nm = 0, i;
	unsigned int p;

	if (!hit || !miss) {
		free(hit);
		free(miss);
		return -ENOMEM;
	}
	for (p = 0; p < o->passes; p++) {
		r->pass_classified[p] = 0;
		for (i = p * o->pages; i < (p + 1) * o->pages; i++) {
			if (r->thr_ns && lat[i] > r->thr_ns) {
				miss[nm++] = lat[i];
				r->pass_classified[p]++;
			} else {
				hit[nh++] = lat[i];
			}
		}
	}
	r->classified_misses = nm;
	sort_u64(hit, nh);
	sort_u64(miss, nm);
	summarize(hit, nh, &r->hits);
	summarize(miss, nm, &r->misses);
	sort_u64(lat, n);
	summarize(lat, n, &r->all);
	free(hit);
	free(miss);
	return 0;
}

/* Agreement of the classified and the counted misses: 1 - |a-b| / max. */
static double agreement(uint64_t a, uint64_t b)
{
	uint64_t hi = a > b ? a : b, d = a > b ? a - b : b - a;

	return hi ? 1.0 - (double)d / (double)hi : 1.0;
}

static const char *pattern_name(enum pattern p)
{
	return p == PATTERN_SEQ ? "seq" : "chase";
}

static struct json_object *summary_json(const struct lat_summary *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "count", json_object_new_uint64(s->count));
	json_object_object_add(o, "p50_ns", json_object_new_uint64(s->p50_ns));
	json_object_object_add(o, "p99_ns", json_object_new_uint64(s->p99_ns));
	json_object_object_add(o, "p999_ns", json_object_new_uint64(s->p999_ns));
	json_object_object_add(o, "max_ns", json_object_new_uint64(s->max_ns));
	return o;
}

static struct json_object *stats_json(const struct dev_stats *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "misses", json_object_new_uint64(s->misses));
	json_object_object_add(o, "minor_hits", json_object_new_uint64(s->minor_hits));
	json_object_object_add(o, "evictions", json_object_new_uint64(s->evictions));
	json_object_object_add(o, "dirty_evictions",
			       json_object_new_uint64(s->dirty_evictions));
	json_object_object_add(o, "writebacks", json_object_new_uint64(s->writebacks));
	json_object_object_add(o, "miss_ns_total", json_object_new_uint64(s->miss_ns_total));
	json_object_object_add(o, "model_ns_total",
			       json_object_new_uint64(s->model_ns_total));
	return o;
}

static void report_json(const struct opts *o, const struct result *r,
			const struct probe *pr)
{
	struct json_object *root = json_object_new_object(), *x, *arr;
	unsigned int i;

	json_object_object_add(root, "device", json_object_new_string(o->device));
	json_object_object_add(root, "kind", json_object_new_string(r->is_file ?
							"file" : "device"));
	if (r->di.name[0])
		json_object_object_add(root, "name", json_object_new_string(r->di.name));
	if (r->capacity)
		json_object_object_add(root, "capacity", json_object_new_uint64(r->capacity));
	if (r->di.cache_size)
		json_object_object_add(root, "cache_size",
				       json_object_new_uint64(r->di.cache_size));

	x = json_object_new_object();
	json_object_object_add(x, "pages", json_object_new_uint64(o->pages));
	json_object_object_add(x, "page_size", json_object_new_uint64(pr->page));
	json_object_object_add(x, "passes", json_object_new_int((int)o->passes));
	json_object_object_add(x, "pattern", json_object_new_string(pattern_name(o->pattern)));
	json_object_object_add(x, "seed", json_object_new_uint64(o->seed));
	json_object_object_add(x, "write_ratio", json_object_new_double(o->write_ratio));
	json_object_object_add(x, "evict_pages", json_object_new_uint64(pr->nevict));
	json_object_object_add(root, "config", x);

	x = json_object_new_object();
	json_object_object_add(x, "clock", json_object_new_string("CLOCK_MONOTONIC"));
	json_object_object_add(x, "overhead_min_ns", json_object_new_uint64(r->timer.min_ns));
	json_object_object_add(x, "overhead_median_ns",
			       json_object_new_uint64(r->timer.median_ns));
	json_object_object_add(x, "resolution_ns",
			       json_object_new_uint64(r->timer.resolution_ns));
	json_object_object_add(x, "subtracted", json_object_new_boolean(0));
	json_object_object_add(root, "timer", x);

	x = json_object_new_object();
	json_object_object_add(x, "ns", json_object_new_uint64(r->thr_ns));
	json_object_object_add(x, "source", json_object_new_string(r->thr_source));
	json_object_object_add(x, "model_miss_ns", json_object_new_uint64(r->model_miss_ns));
	json_object_object_add(x, "data_ns", json_object_new_uint64(r->data_thr_ns));
	json_object_object_add(root, "threshold", x);

	json_object_object_add(root, "hits", summary_json(&r->hits));
	json_object_object_add(root, "misses", summary_json(&r->misses));
	json_object_object_add(root, "all", summary_json(&r->all));

	if (r->have_delta) {
		json_object_object_add(root, "device_stats", stats_json(&r->delta));
		x = json_object_new_object();
		json_object_object_add(x, "classified_misses",
				       json_object_new_uint64(r->classified_misses));
		json_object_object_add(x, "device_misses",
				       json_object_new_uint64(r->delta.misses));
		json_object_object_add(x, "ratio", json_object_new_double(
			agreement(r->classified_misses, r->delta.misses)));
		json_object_object_add(root, "agreement", x);
	} else {
		json_object_object_add(root, "device_stats", NULL);
		json_object_object_add(root, "agreement", NULL);
	}

	arr = json_object_new_array();
	for (i = 0; i < o->passes; i++) {
		x = json_object_new_object();
		json_object_object_add(x, "pass", json_object_new_int((int)i));
		json_object_object_add(x, "classified_misses",
				       json_object_new_uint64(r->pass_classified[i]));
		if (r->have_delta) {
			json_object_object_add(x, "device_misses",
					       json_object_new_uint64(r->pass_delta[i].misses));
			json_object_object_add(x, "device_minor_hits",
					       json_object_new_uint64(r->pass_delta[i].minor_hits));
		}
		json_object_array_add(arr, x);
	}
	json_object_object_add(root, "passes", arr);

	arr = json_object_new_array();
	for (i = 0; i < r->nnotes; i++)
		json_object_array_add(arr, json_object_new_string(r->notes[i]));
	json_object_object_add(root, "notes", arr);

	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
		JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

static void print_row(const char *what, const struct lat_summary *s)
{
	printf("  %-7s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n",
	       what, s->count, s->p50_ns, s->p99_ns, s->p999_ns, s->max_ns);
}

static void report_text(const struct opts *o, const struct result *r,
			const struct probe *pr)
{
	unsigned int i;

	printf("%s%s%s%s: %" PRIu64 " pages of %zu bytes x %u passes, %s, seed %" PRIu64
	       ", write ratio %.2f, evict %" PRIu64 " pages/pass\n",
	       o->device, r->di.name[0] ? " (" : "", r->di.name, r->di.name[0] ? ")" : "",
	       o->pages, pr->page, o->passes, pattern_name(o->pattern), o->seed,
	       o->write_ratio, pr->nevict);
	if (r->di.cache_size)
		printf("cache: %" PRIu64 " lines of %zu bytes; working set %" PRIu64 " pages\n",
		       r->di.cache_size / pr->page, pr->page, o->pages);
	printf("timer: clock_gettime(CLOCK_MONOTONIC) pair costs min %" PRIu64
	       " ns, median %" PRIu64 " ns (resolution %" PRIu64 " ns); not subtracted\n",
	       r->timer.min_ns, r->timer.median_ns, r->timer.resolution_ns);
	if (!strcmp(r->thr_source, "model"))
		printf("threshold: %" PRIu64 " ns = half the mean modeled miss (%" PRIu64
		       " ns); from the data alone: %" PRIu64 " ns\n",
		       r->thr_ns, r->model_miss_ns, r->data_thr_ns);
	else if (!strcmp(r->thr_source, "data"))
		printf("threshold: %" PRIu64 " ns, derived from the data (Otsu, log scale)\n",
		       r->thr_ns);
	else if (!strcmp(r->thr_source, "user"))
		printf("threshold: %" PRIu64 " ns (--threshold); from the data: %" PRIu64 " ns\n",
		       r->thr_ns, r->data_thr_ns);
	else
		printf("threshold: none: the latencies show one class; all accesses are hits\n");
	printf("\n  %-7s %10s %10s %10s %10s %10s   (ns)\n", "", "count", "p50", "p99",
	       "p99.9", "max");
	print_row("hits", &r->hits);
	print_row("misses", &r->misses);
	print_row("all", &r->all);
	putchar('\n');
	if (r->have_delta) {
		printf("device (measured passes): misses %" PRIu64 ", minor_hits %" PRIu64
		       ", evictions %" PRIu64 ", writebacks %" PRIu64 "\n",
		       r->delta.misses, r->delta.minor_hits, r->delta.evictions,
		       r->delta.writebacks);
		printf("misses: classified %" PRIu64 ", device %" PRIu64 ", agreement %.1f%%\n",
		       r->classified_misses, r->delta.misses,
		       100.0 * agreement(r->classified_misses, r->delta.misses));
		for (i = 0; i < o->passes; i++)
			printf("  pass %u: classified %" PRIu64 ", device misses %" PRIu64
			       ", minor_hits %" PRIu64 "\n", i, r->pass_classified[i],
			       r->pass_delta[i].misses, r->pass_delta[i].minor_hits);
	} else {
		printf("misses: classified %" PRIu64 "; no device counters to compare\n",
		       r->classified_misses);
	}
	for (i = 0; i < r->nnotes; i++)
		printf("note: %s\n", r->notes[i]);
}

int main(int argc, char **argv)
{
	struct result r = { .thr_source = "none" };
	struct dev_stats before, after, d;
	uint64_t *lat = NULL, need;
	uint8_t *wr = NULL;
	struct probe pr = { 0 };
	struct opts o;
	struct stat st;
	unsigned int p;
	int fd, ret, rc = EXIT_ERR;
	size_t n;

	ret = parse_opts(argc, argv, &o);
	if (ret)
		return ret;

	fd = open(o.device, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err_msg("%s: %s%s", o.device, strerror(errno),
			(errno == EACCES || errno == EPERM) && geteuid() ? ": needs root" : "");
		return EXIT_ERR;
	}
	if (fstat(fd, &st)) {
		err_msg("%s: %s", o.device, strerror(errno));
		goto out;
	}
	if (S_ISREG(st.st_mode)) {
		r.is_file = true;
		r.capacity = (uint64_t)st.st_size;
		memset(&r.di, 0, sizeof(r.di));
		note(&r, "%s is a regular file: no device counters", o.device);
	} else if (S_ISCHR(st.st_mode)) {
		devinfo_find(o.device, st.st_rdev, &r.di);
		r.capacity = r.di.capacity;
		if (!r.di.have_stats)
			note(&r, "no sysfs stats found for %s: no device counters", o.device);
	} else {
		err_msg("%s: not a character device or regular file", o.device);
		goto out;
	}

	if (o.evict && !o.evict_pages) {
		if (!r.di.cache_size) {
			usage_err("--evict: give --evict-pages (the cache size of %s is unknown)",
				  o.device);
			rc = EXIT_USAGE;
			goto out;
		}
		o.evict_pages = r.di.cache_size / (uint64_t)sysconf(_SC_PAGESIZE);
	}
	if (o.evict_pages > UINT64_MAX / 4 / 65536 || o.pages > UINT64_MAX / 4 / 65536) {
		usage_err("--pages or --evict-pages too large");
		rc = EXIT_USAGE;
		goto out;
	}
	need = (o.pages + 2 * o.evict_pages) * (uint64_t)sysconf(_SC_PAGESIZE);
	if (r.capacity && need > r.capacity) {
		err_msg("%s: needs %" PRIu64 " bytes (%" PRIu64 " working-set + 2 x %" PRIu64
			" eviction pages), has %" PRIu64, o.device, need, o.pages,
			o.evict_pages, r.capacity);
		goto out;
	}
	if (o.pages > SIZE_MAX / sizeof(*lat) / o.passes) {
		err_msg("--pages x --passes too large");
		goto out;
	}
	n = (size_t)o.pages * o.passes;
	lat = malloc(n * sizeof(*lat));
	wr = malloc(o.pages);
	r.pass_classified = calloc(o.passes, sizeof(*r.pass_classified));
	r.pass_delta = calloc(o.passes, sizeof(*r.pass_delta));
	if (!lat || !wr || !r.pass_classified || !r.pass_delta) {
		err_msg("out of memory");
		goto out;
	}
	memset(lat, 0, n * sizeof(*lat));	/* fault the log in before timing */
	signal(SIGBUS, on_sigbus);

	timer_measure(&r.timer);
	ret = probe_map(&pr, fd, o.pages, o.evict_pages);
	if (ret) {
		err_msg("%s: mmap of %" PRIu64 " bytes: %s", o.device, need, strerror(-ret));
		goto out;
	}
	if (probe_build(&pr, o.pattern, o.seed)) {
		err_msg("out of memory");
		goto out;
	}

	if (r.di.have_stats && !o.no_reset) {
		ret = devstats_reset(&r.di);
		if (ret)
			note(&r, "counters not reset (%s%s); deltas are used anyway",
			     strerror(-ret), geteuid() ? ": needs root" : "");
	}
	r.have_delta = r.di.have_stats;
	for (p = 0; p < o.passes; p++) {
		if (o.evict)
			probe_evict(&pr, p);
		write_choices(&o, p, wr);
		if (r.have_delta && devstats_read(&r.di, &before))
			r.have_delta = false;
		probe_pass(&pr, wr, lat + (size_t)p * o.pages);
		if (r.have_delta && devstats_read(&r.di, &after))
			r.have_delta = false;
		if (r.have_delta) {
			devstats_sub(&after, &before, &d);
			r.pass_delta[p] = d;
			devstats_add(&r.delta, &d);
		}
	}
	if (r.di.have_stats && !r.have_delta)
		note(&r, "device counters could not be read during the run");

	pick_threshold(&o, &r, lat, n);
	if (classify(&o, &r, lat, n)) {
		err_msg("out of memory");
		goto out;
	}
	if (o.json)
		report_json(&o, &r, &pr);
	else
		report_text(&o, &r, &pr);
	rc = EXIT_OK;
out:
	probe_unmap(&pr);
	close(fd);
	free(lat);
	free(wr);
	free(r.pass_classified);
	free(r.pass_delta);
	return rc;
}
