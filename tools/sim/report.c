// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-sim's report: the metrics of one or more replays as a text table
 * (one column per run) or as JSON.
 */
#include <inttypes.h>
#include <stdio.h>

#include <json-c/json.h>

#include "cxu_lat.h"
#include <cxdvirt/params.h>

#include "sim.h"

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
	json_object_object_add(c, "hit_ns", json_object_new_uint64(cfg->hit_ns));
	json_object_object_add(c, "warmup", json_object_new_uint64(cfg->warmup));
	json_object_object_add(c, "warmup_pct", json_object_new_uint64(cfg->warmup_pct));
	json_object_object_add(c, "xfer_ns",
			       json_object_new_uint64(cxd_nand_xfer_ns(&cfg->p.nand)));
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
	json_object_object_add(o, "threads_replayed", json_object_new_uint64(x->threads));
	/* 4 KiB per access over the elapsed time, MB/s (10^6 bytes/s) */
	json_object_object_add(o, "bandwidth_mbps", json_object_new_double(
		ratio(x->accesses * CXD_HOST_PAGE_SIZE * 1000, x->elapsed_ns)));
	l = json_object_new_object();
	json_object_object_add(l, "mean", json_object_new_double(
		ratio(x->acc_sum, x->accesses)));
	json_object_object_add(l, "first_tenth", json_object_new_uint64(x->acc_first_ns));
	json_object_object_add(l, "last_tenth", json_object_new_uint64(x->acc_last_ns));
	json_object_object_add(o, "access_latency_ns", l);
	json_object_object_add(o, "model_miss_ns", json_object_new_uint64(s->model_miss_ns));
	json_object_object_add(o, "queue_ns", json_object_new_uint64(s->queue_ns));
	json_object_object_add(o, "mshr_waits", json_object_new_uint64(s->mshr_waits));
	json_object_object_add(o, "mshr_wait_ns", json_object_new_uint64(s->mshr_wait_ns));

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

	d = json_object_new_object();
	json_object_object_add(d, "records", json_object_new_uint64(x->discard_records));
	json_object_object_add(d, "lines", json_object_new_uint64(s->discards));
	json_object_object_add(d, "dirty", json_object_new_uint64(s->dirty_discards));
	json_object_object_add(o, "discards", d);

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

	if (cfg->power_fail_at) {
		json_object *pf = json_object_new_object(), *pg = json_object_new_array();
		uint64_t k;

		json_object_object_add(pf, "at", json_object_new_uint64(cfg->power_fail_at));
		json_object_object_add(pf, "persistence",
				       json_object_new_string(cxd_persistence_name(cfg->p.persistence)));
		json_object_object_add(pf, "lines_saved", json_object_new_uint64(x->lines_saved));
		json_object_object_add(pf, "lines_lost", json_object_new_uint64(x->lines_lost));
		json_object_object_add(pf, "bytes_lost",
				       json_object_new_uint64(x->lines_lost * CXD_HOST_PAGE_SIZE));
		for (k = 0; k < x->lines_lost; k++)
			json_object_array_add(pg, json_object_new_uint64(x->lost_pages[k]));
		json_object_object_add(pf, "pages", pg);
		json_object_object_add(o, "power_fail", pf);
	}
	if (cfg->p.ftl.mode != CXD_FTL_OFF) {
		json_object *f = json_object_new_object();

		json_object_object_add(f, "op_pct", json_object_new_uint64(cfg->p.ftl.op_pct));
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
	snprintf(b, n, "%s/%s/%s", c->preset, cxd_policy_name(c->p.policy),
		 cxd_prefetch_name(c->p.prefetch));
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
ROW_U64(acc_mean, x->accesses ? x->acc_sum / x->accesses : 0)
ROW_U64(mshr_waits, x->st.mshr_waits)

static void row_bw(char *b, size_t n, const struct sim_cfg *c,
		   const struct metrics *x)
{
	(void)c;
	snprintf(b, n, "%.1f", ratio(x->accesses * CXD_HOST_PAGE_SIZE * 1000,
				     x->elapsed_ns));
}
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

static void row_pf_at(char *b, size_t n, const struct sim_cfg *c,
		      const struct metrics *x)
{
	(void)x;
	snprintf(b, n, "%" PRIu64, c->power_fail_at);
}

ROW_U64(discard_records, x->discard_records)
ROW_U64(discards, x->st.discards)
ROW_U64(dirty_discards, x->st.dirty_discards)

/* Shown when a run's trace has discard records. */
static const struct row discard_rows[] = {
	{ "discard records", row_discard_records },
	{ "lines discarded", row_discards },
	{ "dirty lines discarded", row_dirty_discards },
};

ROW_U64(lines_saved, x->lines_saved)
ROW_U64(lines_lost, x->lines_lost)
ROW_U64(bytes_lost, x->lines_lost * CXD_HOST_PAGE_SIZE)

/* Shown when a run has --power-fail-at. */
static const struct row pf_rows[] = {
	{ "power failure after access", row_pf_at },
	{ "dirty lines kept (GPF)", row_lines_saved },
	{ "dirty lines lost", row_lines_lost },
	{ "bytes lost", row_bytes_lost },
};

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
	{ "access latency mean (ns)", row_acc_mean },
	{ "bandwidth, 4 KiB per access (MB/s)", row_bw },
	{ "mshr waits", row_mshr_waits },
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

/**
 * sim_print_text() - the text report on standard output.
 * @ckey:  the --compare key, or NULL for one run without a header line.
 * @cvals: with @ckey: the value of each run, the column headers.
 * @cfgs:  the configuration of each run ...
 * @xs:    ... and its metrics, @n of each.
 * @n:     number of runs (columns), >= 1.
 *
 * One row per metric; the FTL rows only when a run has an FTL.
 */
void sim_print_text(const char *ckey, char **cvals,
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
	bool ftl = false, pf = false, disc = false;

	for (j = 0; j < n; j++)
		ftl |= cfgs[j].p.ftl.mode != CXD_FTL_OFF;
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		printf("%-34s", rows[i].label);
		for (j = 0; j < n; j++) {
			rows[i].fmt(buf, sizeof(buf), &cfgs[j], &xs[j]);
			printf(" %20s", buf);
		}
		printf("\n");
	}
	for (j = 0; j < n; j++)
		disc |= xs[j].discard_records != 0;
	for (i = 0; disc && i < sizeof(discard_rows) / sizeof(discard_rows[0]);
	     i++) {
		printf("%-34s", discard_rows[i].label);
		for (j = 0; j < n; j++) {
			discard_rows[i].fmt(buf, sizeof(buf), &cfgs[j], &xs[j]);
			printf(" %20s", buf);
		}
		printf("\n");
	}
	for (j = 0; j < n; j++)
		pf |= cfgs[j].power_fail_at != 0;
	for (i = 0; pf && i < sizeof(pf_rows) / sizeof(pf_rows[0]); i++) {
		printf("%-34s", pf_rows[i].label);
		for (j = 0; j < n; j++) {
			pf_rows[i].fmt(buf, sizeof(buf), &cfgs[j], &xs[j]);
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

/**
 * sim_print_json() - the JSON report.
 * @out:     where to (standard output, or a sweep job's file).
 * @ckey:    the --compare key, or NULL for one run (its object at the top).
 * @cvals:   with @ckey: the value of each run, its "value".
 * @cfgs:    the configuration of each run ...
 * @xs:      ... and its metrics, @n of each.
 * @n:       number of runs, >= 1.
 *
 * With @ckey, {"compare": KEY, "runs": [...], "threads": N}; without, the
 * one run's object plus "threads": the trace's distinct thread numbers
 * with an access (@xs[0].threads; every run replays the same trace). A run holds its
 * configuration, counts, times in ns and ratios as fractions (hit_ratio
 * 0.5, not 50).
 */
void sim_print_json(FILE *out, const char *ckey, char **cvals,
		    const struct sim_cfg *cfgs, const struct metrics *xs,
		    unsigned int n)
{
	json_object *root, *arr;
	unsigned int i;

	if (ckey) {
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
			       json_object_new_uint64(xs[0].threads));
	fprintf(out, "%s\n", json_object_to_json_string_ext(root,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}
