// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-sim: replay a trace through the cxdvirt device model (the same
 * code the module runs) on one serial clock, and report hit ratio, miss
 * latency percentiles, prefetch metrics and die utilisation.
 *
 * The options are in options.c, the replay in replay.c (what --faults and
 * --think do), the trace formats in trace*.c.
 *
 * Usage: see sim_usage() in options.c, docs/tools.md (options, trace
 * formats) and docs/model.md (what the model does).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <json-c/json.h>

#include "cxu_lat.h"
#include "cxu_msg.h"
#include <cxdvirt/params.h>

#include "sim.h"

#define MAX_COMPARE	32

/* Do paths @a and @b name one existing file? */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return strcmp(a, "-") && strcmp(b, "-") && !stat(a, &sa) &&
	       !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* @clk (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID) in seconds, for --timing. */
static double now_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------- output -- */

/*
 * Prefetch metrics after ATC'23 (MQSim_CXL): coverage = misses removed by
 * prefetch / misses without it = useful / (useful + misses); accuracy =
 * useful / issued; lateness = late / useful; pollution = prefetched pages
 * evicted unused / issued.
 */
static json_object *metrics_json(const struct sim_cfg *cfg,
				 const struct metrics *x)
{
	json_object *o = json_object_new_object(), *c, *l, *p, *e, *d;
	const struct cxd_model_stats *s = &x->st;
	const struct cxd_param *pp;
	size_t i;

	c = json_object_new_object();
	json_object_object_add(c, "preset", json_object_new_string(cfg->preset));
	for (i = 0; (pp = sim_param_at(i)); i++) {
		uint64_t v = sim_get(cfg, pp->id);

		json_object_object_add(c, pp->name,
			pp->type == CXD_PT_ENUM ?
			json_object_new_string(pp->names(v) ? pp->names(v) : "?") :
			pp->type == CXD_PT_BOOL ? json_object_new_boolean(v) :
			json_object_new_uint64(v));
	}
	json_object_object_add(c, "capacity_pages", json_object_new_uint64(x->npages));
	json_object_object_add(c, "think_ns", json_object_new_uint64(cfg->think_ns));
	json_object_object_add(c, "faults", json_object_new_boolean(cfg->faults));
	json_object_object_add(c, "xfer_ns",
			       json_object_new_uint64(cxd_nand_xfer_ns(&cfg->nand)));
	json_object_object_add(c, "model_state_bytes",
			       json_object_new_uint64(x->state_bytes));
	json_object_object_add(o, "config", c);

	json_object_object_add(o, "accesses", json_object_new_uint64(x->accesses));
	json_object_object_add(o, "reads", json_object_new_uint64(x->reads));
	json_object_object_add(o, "writes", json_object_new_uint64(x->writes));
	json_object_object_add(o, "hits", json_object_new_uint64(s->hits));
	json_object_object_add(o, "native_hits", json_object_new_uint64(x->native_hits));
	json_object_object_add(o, "misses", json_object_new_uint64(s->misses));
	json_object_object_add(o, "hit_ratio",
			       json_object_new_double(ratio(s->hits + x->native_hits,
							    x->accesses)));
	json_object_object_add(o, "read_misses", json_object_new_uint64(s->read_misses));
	json_object_object_add(o, "write_misses", json_object_new_uint64(s->write_misses));
	json_object_object_add(o, "write_allocs", json_object_new_uint64(s->write_allocs));
	json_object_object_add(o, "unwritten_skips",
			       json_object_new_uint64(s->unwritten_skips));
	json_object_object_add(o, "elapsed_ns", json_object_new_uint64(x->elapsed_ns));

	l = cxu_lat_json(&x->lat, 0);
	json_object_object_add(o, "miss_latency_ns", l);

	e = json_object_new_object();
	json_object_object_add(e, "total", json_object_new_uint64(s->evictions));
	json_object_object_add(e, "clean", json_object_new_uint64(s->clean_evictions));
	json_object_object_add(e, "dirty", json_object_new_uint64(s->dirty_evictions));
	json_object_object_add(e, "writebacks", json_object_new_uint64(s->writebacks));
	json_object_object_add(e, "drain_evictions",
			       json_object_new_uint64(s->drain_evictions));
	json_object_object_add(e, "erases", json_object_new_uint64(x->erases));
	json_object_object_add(o, "evictions", e);

	p = json_object_new_object();
	json_object_object_add(p, "issued", json_object_new_uint64(s->prefetch_issued));
	json_object_object_add(p, "useful", json_object_new_uint64(s->prefetch_useful));
	json_object_object_add(p, "late", json_object_new_uint64(s->prefetch_late));
	json_object_object_add(p, "polluting",
			       json_object_new_uint64(s->prefetch_polluting));
	json_object_object_add(p, "coverage", json_object_new_double(
		ratio(s->prefetch_useful, s->prefetch_useful + s->misses)));
	json_object_object_add(p, "accuracy", json_object_new_double(
		ratio(s->prefetch_useful, s->prefetch_issued)));
	json_object_object_add(p, "lateness", json_object_new_double(
		ratio(s->prefetch_late, s->prefetch_useful)));
	json_object_object_add(p, "pollution", json_object_new_double(
		ratio(s->prefetch_polluting, s->prefetch_issued)));
	json_object_object_add(o, "prefetch", p);

	if (cfg->ftl.mode != CXD_FTL_OFF) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, "op_pct", json_object_new_uint64(cfg->ftl.op_pct));
		json_object_object_add(f, "host_writes",
				       json_object_new_uint64(x->ftl.host_writes));
		json_object_object_add(f, "nand_writes",
				       json_object_new_uint64(x->ftl.nand_writes));
		json_object_object_add(f, "waf", json_object_new_double(
			ratio(x->ftl.nand_writes, x->ftl.host_writes)));
		json_object_object_add(f, "gc_runs", json_object_new_uint64(x->ftl.gc_runs));
		json_object_object_add(f, "gc_pages_moved",
				       json_object_new_uint64(x->ftl.gc_moved));
		json_object_object_add(f, "gc_stalls", json_object_new_uint64(x->ftl.gc_stalls));
		json_object_object_add(f, "gc_stall_ns",
				       json_object_new_uint64(x->ftl.gc_stall_ns));
		json_object_object_add(o, "ftl", f);
	}

	d = json_object_new_object();
	json_object_object_add(d, "utilization_mean", json_object_new_double(x->util_mean));
	json_object_object_add(d, "utilization_max", json_object_new_double(x->util_max));
	json_object_object_add(o, "dies", d);
	return o;
}

/* Text rows: label and a formatter over one run. */
struct row {
	const char *label;
	void (*fmt)(char *buf, size_t len, const struct sim_cfg *c,
		    const struct metrics *x);
};

#define ROW_U64(_name, _expr)						\
static void row_##_name(char *b, size_t n, const struct sim_cfg *c,	\
			const struct metrics *x)			\
{									\
	(void)c;							\
	snprintf(b, n, "%" PRIu64, (uint64_t)(_expr));			\
}
#define ROW_PCT(_name, _num, _den)					\
static void row_##_name(char *b, size_t n, const struct sim_cfg *c,	\
			const struct metrics *x)			\
{									\
	(void)c;							\
	snprintf(b, n, "%.2f%%", 100.0 * ratio((_num), (_den)));	\
}

static void row_setting(char *b, size_t n, const struct sim_cfg *c,
			const struct metrics *x)
{
	(void)x;
	snprintf(b, n, "%s/%s/%s", c->preset, cxd_policy_name(c->policy),
		 cxd_prefetch_name(c->prefetch));
}

ROW_U64(accesses, x->accesses)
ROW_U64(hits, x->st.hits)
ROW_U64(native_hits, x->native_hits)
ROW_U64(misses, x->st.misses)
ROW_PCT(hit_ratio, x->st.hits + x->native_hits, x->accesses)
ROW_U64(read_misses, x->st.read_misses)
ROW_U64(write_misses, x->st.write_misses)
ROW_U64(lat_mean, x->lat.count ? x->lat_sum / x->lat.count : 0)
ROW_U64(p50, x->lat.p50_ns)
ROW_U64(p90, x->lat.p90_ns)
ROW_U64(p99, x->lat.p99_ns)
ROW_U64(p999, x->lat.p999_ns)
ROW_U64(lat_max, x->lat.max_ns)
ROW_U64(evictions, x->st.evictions)
ROW_U64(dirty, x->st.dirty_evictions)
ROW_U64(pf_issued, x->st.prefetch_issued)
ROW_U64(pf_useful, x->st.prefetch_useful)
ROW_U64(pf_late, x->st.prefetch_late)
ROW_U64(pf_polluting, x->st.prefetch_polluting)
ROW_PCT(coverage, x->st.prefetch_useful, x->st.prefetch_useful + x->st.misses)
ROW_PCT(accuracy, x->st.prefetch_useful, x->st.prefetch_issued)
ROW_PCT(lateness, x->st.prefetch_late, x->st.prefetch_useful)
ROW_PCT(pollution, x->st.prefetch_polluting, x->st.prefetch_issued)
ROW_U64(elapsed, x->elapsed_ns)
ROW_U64(ftl_host, x->ftl.host_writes)
ROW_U64(ftl_nand, x->ftl.nand_writes)
ROW_U64(gc_runs, x->ftl.gc_runs)
ROW_U64(gc_moved, x->ftl.gc_moved)
ROW_U64(gc_stalls, x->ftl.gc_stalls)
ROW_U64(gc_stall_ns, x->ftl.gc_stall_ns)

static void row_waf(char *b, size_t n, const struct sim_cfg *c,
		    const struct metrics *x)
{
	(void)c;
	snprintf(b, n, "%.3f", ratio(x->ftl.nand_writes, x->ftl.host_writes));
}

static void row_util(char *b, size_t n, const struct sim_cfg *c,
		     const struct metrics *x)
{
	(void)c;
	snprintf(b, n, "%.2f%% / %.2f%%", 100.0 * x->util_mean,
		 100.0 * x->util_max);
}

static const struct row rows[] = {
	{ "setting (preset/policy/prefetch)", row_setting },
	{ "accesses", row_accesses },
	{ "hits", row_hits },
	{ "native hits (--faults)", row_native_hits },
	{ "misses", row_misses },
	{ "hit ratio", row_hit_ratio },
	{ "read misses", row_read_misses },
	{ "write misses", row_write_misses },
	{ "miss latency mean (ns)", row_lat_mean },
	{ "miss latency p50 (ns)", row_p50 },
	{ "miss latency p90 (ns)", row_p90 },
	{ "miss latency p99 (ns)", row_p99 },
	{ "miss latency p99.9 (ns)", row_p999 },
	{ "miss latency max (ns)", row_lat_max },
	{ "evictions", row_evictions },
	{ "dirty evictions", row_dirty },
	{ "prefetch issued", row_pf_issued },
	{ "prefetch useful", row_pf_useful },
	{ "prefetch late", row_pf_late },
	{ "prefetch polluting", row_pf_polluting },
	{ "prefetch coverage", row_coverage },
	{ "prefetch accuracy", row_accuracy },
	{ "prefetch lateness", row_lateness },
	{ "prefetch pollution", row_pollution },
	{ "die utilization mean / max", row_util },
	{ "elapsed (ns)", row_elapsed },
};

/* Shown when any run of the table has an FTL. */
static const struct row ftl_rows[] = {
	{ "ftl host writes", row_ftl_host },
	{ "ftl nand writes", row_ftl_nand },
	{ "write amplification", row_waf },
	{ "gc runs", row_gc_runs },
	{ "gc pages moved", row_gc_moved },
	{ "misses stalled by gc", row_gc_stalls },
	{ "gc stall (ns)", row_gc_stall_ns },
};

static void print_text(const char *ckey, char **cvals,
		       const struct sim_cfg *cfgs, const struct metrics *xs,
		       unsigned int n)
{
	char buf[64];
	unsigned int i, j;

	if (ckey) {
		printf("%-34s", ckey);
		for (j = 0; j < n; j++)
			printf(" %20s", cvals[j]);
		printf("\n");
	}
	bool ftl = false;

	for (j = 0; j < n; j++)
		ftl |= cfgs[j].ftl.mode != CXD_FTL_OFF;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		printf("%-34s", rows[i].label);
		for (j = 0; j < n; j++) {
			rows[i].fmt(buf, sizeof(buf), &cfgs[j], &xs[j]);
			printf(" %20s", buf);
		}
		printf("\n");
	}
	for (i = 0; ftl && i < sizeof(ftl_rows) / sizeof(ftl_rows[0]); i++) {
		printf("%-34s", ftl_rows[i].label);
		for (j = 0; j < n; j++) {
			ftl_rows[i].fmt(buf, sizeof(buf), &cfgs[j], &xs[j]);
			printf(" %20s", buf);
		}
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	struct sim_cfg base;
	struct sim_cfg cfgs[MAX_COMPARE];
	struct metrics xs[MAX_COMPARE];
	char *compare = NULL, *cvals[MAX_COMPARE], *ckey = NULL, *s, *tok;
	unsigned int n = 1, i;
	bool json = false, timing = false;
	struct trace_opts topts = { 0 };
	const char *convert = NULL;
	double t0, t1, c0, c1;
	struct trace t;
	json_object *root, *arr;
	const struct option *long_opts;
	int opt, idx, ret = 0, nex = 0;
	const char **ex_name, **ex_val, *preset = NULL;
	struct sim_cfg defaults;

	cxu_set_prog("cxdvirt-sim");
	/* The table's defaults, as a new configfs device has them. */
	memset(&base, 0, sizeof(base));
	CXD_PARAMS_DEFAULTS(&base, CXD_PARAMS_SHARED);
	base.capacity = 0;	/* the trace's extent */
	base.preset = "default";
	long_opts = sim_build_opts();
	/*
	 * The device options are applied after the loop: --preset first,
	 * then the others in their order, so an explicit NAND setting wins
	 * over the preset wherever it is given (as in cxdvirt-dev create).
	 */
	ex_name = calloc(argc, sizeof(*ex_name));
	ex_val = calloc(argc, sizeof(*ex_val));
	if (!ex_name || !ex_val)
		return 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", long_opts, &idx)) != -1) {
		switch (opt) {
		case 0:
			if (!strcmp(long_opts[idx].name, "preset")) {
				preset = optarg;
				break;
			}
			ex_name[nex] = long_opts[idx].name;
			ex_val[nex++] = optarg;
			break;
		case 'f':
			if (trace_format_parse(optarg) < 0) {
				cxu_err("--format: bad value '%s'", optarg);
				return 2;
			}
			topts.format = trace_format_parse(optarg);
			break;
		case 'o':
			convert = optarg;
			break;
		case 'i':
			topts.lackey_instr = true;
			break;
		case 'd':
			topts.dev = optarg;
			break;
		case 't':
			timing = true;
			break;
		case 'c':
			compare = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			sim_usage(stdout, &base);
			return 0;
		default:
			return cxu_usage_err(NULL, "unrecognized option '%s'",
					     argv[optind - 1]);
		}
	}
	if (optind != argc - 1)
		return cxu_usage_err(NULL, optind == argc ? "no TRACE given" :
				     "one TRACE only");
	defaults = base;
	if (sim_apply_opts(&base, preset, ex_name, ex_val, nex))
		return 2;

	cfgs[0] = base;
	if (compare) {
		ckey = compare;
		s = strchr(compare, '=');
		if (!s || s == compare || !s[1]) {
			cxu_err("--compare wants KEY=V1,V2,...");
			return 2;
		}
		*s++ = 0;
		n = 0;
		for (tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
			if (n == MAX_COMPARE) {
				cxu_err("at most %d values",
					MAX_COMPARE);
				return 2;
			}
			cvals[n] = tok;
			if (!strcmp(ckey, "preset")) {
				/* Each preset, under the explicit settings. */
				cfgs[n] = defaults;
				if (sim_apply_opts(&cfgs[n], tok, ex_name,
						   ex_val, nex))
					return 2;
			} else {
				cfgs[n] = base;
				if (sim_set(&cfgs[n], ckey, tok)) {
					cxu_err("--compare %s: bad value '%s'%s",
						ckey, tok, sim_why);
					return 2;
				}
			}
			n++;
		}
		if (!n) {
			cxu_err("--compare wants values");
			return 2;
		}
	}

	t0 = now_s(CLOCK_MONOTONIC);
	c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	if (trace_load(argv[optind], &topts, &t))
		return 1;
	t1 = now_s(CLOCK_MONOTONIC);
	c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	if (timing)
		fprintf(stderr, "cxdvirt-sim: load: %s, %" PRIu64 " accesses, %.3f s, cpu %.3f s\n",
			trace_format_name(t.format), t.n, t1 - t0, c1 - c0);
	if (convert) {
		if (same_file(convert, argv[optind])) {
			cxu_err("--convert: %s is the input",
				convert);
			trace_free(&t);
			return 2;
		}
		ret = trace_write_binary(convert, &t) ? 1 : 0;
		if (!ret)
			fprintf(stderr, "cxdvirt-sim: %s: %" PRIu64 " accesses, max page %" PRIu64 ", %u threads\n",
				convert, t.n, t.max_page, t.threads);
		trace_free(&t);
		return ret;
	}
	for (i = 0; i < n; i++) {
		t0 = now_s(CLOCK_MONOTONIC);
		c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
		if (sim_run(&cfgs[i], &t, &xs[i])) {
			trace_free(&t);
			return 1;
		}
		t1 = now_s(CLOCK_MONOTONIC);
		c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
		if (timing)
			fprintf(stderr, "cxdvirt-sim: replay %u: %.3f s, cpu %.3f s, %.2f M accesses/s (cpu)\n",
				i + 1, t1 - t0, c1 - c0,
				c1 > c0 ? (double)t.n / (c1 - c0) / 1e6 : 0.0);
	}

	if (json) {
		if (compare) {
			root = json_object_new_object();
			arr = json_object_new_array();
			json_object_object_add(root, "compare",
					       json_object_new_string(ckey));
			for (i = 0; i < n; i++) {
				json_object *o = metrics_json(&cfgs[i], &xs[i]);

				json_object_object_add(o, "value",
						       json_object_new_string(cvals[i]));
				json_object_array_add(arr, o);
			}
			json_object_object_add(root, "runs", arr);
		} else {
			root = metrics_json(&cfgs[0], &xs[0]);
		}
		json_object_object_add(root, "threads",
				       json_object_new_uint64(t.threads));
		printf("%s\n", json_object_to_json_string_ext(root,
				JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(root);
	} else {
		print_text(compare ? ckey : NULL, cvals, cfgs, xs, n);
	}
	trace_free(&t);
	return ret;
}
