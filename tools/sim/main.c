// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-sim: replay a trace through the cxdvirt device model (the same
 * code the module runs) on one serial clock, and report hit ratio, miss
 * latency percentiles, prefetch metrics and die utilisation.
 *
 * With --faults the replay mimics the module's fault path instead of a
 * device that sees every access: a page is mapped from its demand access
 * until it is evicted, and an access to a mapped page is a native hit that
 * never reaches the model (a write to a read-only mapped page only marks
 * the line dirty, as ->pfn_mkwrite does). This is exactly what the module
 * sees from one process with its accessed-bit scan off.
 *
 * Time: the first access arrives at 0; each next one arrives think_ns after
 * the previous one completed (done_ns of cxd_model_access()). So a trace is
 * one thread of dependent accesses; the optional thread field is parsed
 * and counted but does not change the timing.
 *
 * Usage: see usage() below, docs/tools.md (options, trace formats) and
 * docs/model.md (what the model does).
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
#include "cxu_num.h"
#include "sim.h"

#define MAX_COMPARE	32

struct metrics {
	uint64_t accesses, reads, writes, elapsed_ns, npages, native_hits;
	struct cxd_model_stats st;
	struct cxd_ftl_stats ftl;
	uint64_t erases;
	struct cxu_lat_summary lat;	/* miss latencies */
	uint64_t lat_sum;		/* their sum, ns */
	uint64_t state_bytes;	/* the model's state: see docs/model.md */
	double util_mean, util_max;
};

static void usage(FILE *out)
{
	fputs(
"usage: cxdvirt-sim [options] TRACE\n"
"       cxdvirt-sim [--format F] --convert OUT TRACE\n"
"Replay TRACE (`R|W ADDRESS [THREAD]` per line; 0x.. = byte address,\n"
"decimal = 4 KiB page number; # comments) through the device model.\n"
"TRACE may also be a binary trace, valgrind lackey output or cxdvirt_miss\n"
"tracepoint lines; - is standard input.\n"
"\n"
"  --format F             auto (default), text, binary, lackey, tracepoint\n"
"  --convert OUT          write TRACE as a binary trace to OUT, no replay\n"
"  --lackey-instr         lackey: replay instruction fetches (I) as reads\n"
"  --dev NAME             tracepoint: replay only the misses of device NAME\n"
"  --timing               print load and replay time (accesses/s) on stderr\n"
"  --preset NAME          NAND preset: znand (default), femu, tlc\n"
"  --capacity SIZE        device size (default: the trace's extent)\n"
"  --cache SIZE           cache size (default 8M); SIZE takes K/M/G/T\n"
"  --ways N               lines per set, 0 = fully associative (default)\n"
"  --policy P             fifo lifo clock lru s3fifo random cflru 2q\n"
"                         (default fifo)\n"
"  --seed N               random policy seed (default 0)\n"
"  --cflru-window PCT     CFLRU clean-first window, % of a set (default 25)\n"
"  --prefetch M           none next stride bop leap fdp (default none)\n"
"  --degree N             prefetch degree 1..16 (default 1)\n"
"  --distance N           stride prefetch distance (default 1)\n"
"  --bop-score-max N --bop-round-max N --bop-bad-score N\n"
"  --leap-split N --leap-window-max N\n"
"  --fdp-interval N --fdp-accuracy-high PM --fdp-accuracy-low PM\n"
"  --fdp-lateness PM --fdp-pollution PM\n"
"                         learned prefetchers' parameters (docs/model.md;\n"
"                         PM: per mille)\n"
"  --write-alloc M        fetch (default) or nofetch\n"
"  --writeback M          evict (default) or drain (background, 95% -> 85%)\n"
"  --skip-unwritten       never-written pages cost no tR\n"
"  --think NS             time between accesses (default 0)\n"
"  --faults               only accesses that would fault in the module reach\n"
"                         the model (mapped pages are native hits)\n"
"  --t-read NS --t-prog NS --t-bers NS --channels N --dies N --planes N\n"
"  --page-size SIZE --mbps N --pages-per-block N --xfer exact|nvmevirt\n"
"  --stripe channel|die|plane\n"
"  --ftl off|page         page-mapped FTL with greedy GC (default off)\n"
"  --op-pct N --gc-low N --gc-high N\n"
"                         FTL over-provisioning % (7), GC start/target in\n"
"                         free blocks per plane (2, 3)\n"
"  --ftl-fill             map every page first (start from a full device)\n"
"                         override the preset's NAND figures\n"
"  --compare KEY=V1,V2..  run once per value (KEY: any option name above)\n"
"  --json                 JSON output\n"
"  -h, --help             this text\n", out);
}

/* A number (@suffix: a size in bytes), by the tools' one rule (cxu_num.h). */
static int parse_u64(const char *s, uint64_t *v, bool suffix)
{
	if (!s)
		return -1;
	return (suffix ? cxu_parse_size(s, v) : cxu_parse_u64(s, v)) ? -1 : 0;
}

static int parse_u32(const char *s, uint32_t *v, bool suffix)
{
	uint64_t x;

	if (parse_u64(s, &x, suffix) || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/**
 * sim_set() - set one configuration key.
 * @cfg: configuration.
 * @key: option name without the dashes ("policy", "page-size", ...).
 * @val: value text; NULL for the flag skip-unwritten.
 *
 * Return: 0, or -1 (bad key or value; nothing printed).
 */
int sim_set(struct sim_cfg *cfg, const char *key, const char *val)
{
	const struct cxd_preset *p;
	uint64_t v64;
	int v;

	if (!strcmp(key, "skip-unwritten")) {
		cfg->skip_unwritten = !val || strcmp(val, "0");
		return 0;
	}
	if (!strcmp(key, "faults")) {
		cfg->faults = !val || strcmp(val, "0");
		return 0;
	}
	if (!strcmp(key, "ftl-fill")) {
		cfg->ftl_fill = !val || strcmp(val, "0");
		return 0;
	}
	if (!val)
		return -1;
	if (!strcmp(key, "preset")) {
		p = cxd_preset_find(val);
		if (!p)
			return -1;
		cfg->nand = p->nand;
		cfg->preset = p->name;
		return 0;
	}
	if (!strcmp(key, "policy")) {
		v = cxd_policy_parse(val);
		if (v < 0)
			return -1;
		cfg->policy = v;
		return 0;
	}
	if (!strcmp(key, "prefetch")) {
		v = cxd_prefetch_parse(val);
		if (v < 0)
			return -1;
		cfg->prefetch = v;
		return 0;
	}
	if (!strcmp(key, "stripe")) {
		v = cxd_stripe_parse(val);
		if (v < 0)
			return -1;
		cfg->nand.stripe = v;
		return 0;
	}
	if (!strcmp(key, "writeback")) {
		v = cxd_writeback_parse(val);
		if (v < 0)
			return -1;
		cfg->writeback = v;
		return 0;
	}
	if (!strcmp(key, "write-alloc")) {
		if (!strcmp(val, "fetch"))
			cfg->write_alloc = CXD_WA_FETCH;
		else if (!strcmp(val, "nofetch"))
			cfg->write_alloc = CXD_WA_NOFETCH;
		else
			return -1;
		return 0;
	}
	if (!strcmp(key, "ftl")) {
		v = cxd_ftl_parse(val);
		if (v < 0)
			return -1;
		cfg->ftl.mode = v;
		return 0;
	}
	if (!strcmp(key, "op-pct"))
		return parse_u32(val, &cfg->ftl.op_pct, false);
	if (!strcmp(key, "gc-low"))
		return parse_u32(val, &cfg->ftl.gc_low, false);
	if (!strcmp(key, "gc-high"))
		return parse_u32(val, &cfg->ftl.gc_high, false);
	if (!strcmp(key, "xfer")) {
		if (!strcmp(val, "exact"))
			cfg->nand.xfer_model = CXD_XFER_EXACT;
		else if (!strcmp(val, "nvmevirt"))
			cfg->nand.xfer_model = CXD_XFER_NVMEVIRT;
		else
			return -1;
		return 0;
	}
	if (!strcmp(key, "capacity"))
		return parse_u64(val, &cfg->capacity, true);
	if (!strcmp(key, "cache"))
		return parse_u64(val, &cfg->cache, true);
	if (!strcmp(key, "ways"))
		return parse_u32(val, &cfg->ways, false);
	if (!strcmp(key, "seed"))
		return parse_u64(val, &cfg->seed, false);
	if (!strcmp(key, "cflru-window"))
		return parse_u32(val, &cfg->cflru_window_pct, false) ||
		       cfg->cflru_window_pct > 100 ? -1 : 0;
	{
		static const struct {
			const char *key;
			size_t off;
		} pfk[] = {
			{ "bop-score-max", offsetof(struct cxd_pf_params, bop_score_max) },
			{ "bop-round-max", offsetof(struct cxd_pf_params, bop_round_max) },
			{ "bop-bad-score", offsetof(struct cxd_pf_params, bop_bad_score) },
			{ "leap-split", offsetof(struct cxd_pf_params, leap_split) },
			{ "leap-window-max", offsetof(struct cxd_pf_params, leap_window_max) },
			{ "fdp-interval", offsetof(struct cxd_pf_params, fdp_interval) },
			{ "fdp-accuracy-high", offsetof(struct cxd_pf_params, fdp_acc_high) },
			{ "fdp-accuracy-low", offsetof(struct cxd_pf_params, fdp_acc_low) },
			{ "fdp-lateness", offsetof(struct cxd_pf_params, fdp_late) },
			{ "fdp-pollution", offsetof(struct cxd_pf_params, fdp_poll) },
		};
		size_t k;

		for (k = 0; k < sizeof(pfk) / sizeof(pfk[0]); k++)
			if (!strcmp(key, pfk[k].key))
				return parse_u32(val, (uint32_t *)((char *)&cfg->pf +
								  pfk[k].off), false);
	}
	if (!strcmp(key, "degree"))
		return parse_u32(val, &cfg->degree, false);
	if (!strcmp(key, "distance"))
		return parse_u32(val, &cfg->distance, false);
	if (!strcmp(key, "think"))
		return parse_u64(val, &cfg->think_ns, false);
	if (!strcmp(key, "t-read"))
		return parse_u64(val, &cfg->nand.t_read_ns, false);
	if (!strcmp(key, "t-prog"))
		return parse_u64(val, &cfg->nand.t_prog_ns, false);
	if (!strcmp(key, "t-bers"))
		return parse_u64(val, &cfg->nand.t_bers_ns, false);
	if (!strcmp(key, "channels"))
		return parse_u32(val, &cfg->nand.channels, false);
	if (!strcmp(key, "dies"))
		return parse_u32(val, &cfg->nand.dies_per_channel, false);
	if (!strcmp(key, "planes"))
		return parse_u32(val, &cfg->nand.planes_per_die, false);
	if (!strcmp(key, "page-size"))
		return parse_u32(val, &cfg->nand.nand_page_size, true);
	if (!strcmp(key, "mbps"))
		return parse_u32(val, &cfg->nand.channel_mbps, false);
	if (!strcmp(key, "pages-per-block"))
		return parse_u32(val, &cfg->nand.pages_per_block, false);
	(void)v64;
	return -1;
}

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

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

/* One run of @t under @cfg. Return: 0 or -1 (message printed). */
static int run(const struct sim_cfg *cfg, const struct trace *t,
	       struct metrics *out)
{
	struct cxd_model_cfg mc = {
		.nlines = (uint32_t)(cfg->cache / CXD_HOST_PAGE_SIZE),
		.ways = cfg->ways,
		.policy = cfg->policy,
		.nand = cfg->nand,
		.ftl = cfg->ftl,
	};
	const char *why;
	uint64_t i, j, now = 0, ndies, page, rec;
	uint8_t *mapped = NULL;	/* --faults: 0 unmapped, 1 read-only, 2 writable */
	const uint64_t *recs = t->recs;
	struct cxu_lat_hist lat;
	struct cxd_access r;
	bool write;
	struct cxd_model m;
	uint32_t planes;
	double u;
	void *mem;

	if (cfg->cache / CXD_HOST_PAGE_SIZE > CXD_MAX_LINES || !mc.nlines) {
		cxu_err("cache size out of range");
		return -1;
	}
	mc.npages = cfg->capacity / CXD_HOST_PAGE_SIZE;
	if (!mc.npages) {
		mc.npages = t->max_page + 1;
		if (mc.npages < mc.nlines)
			mc.npages = mc.nlines;
	}
	if (t->n && t->max_page >= mc.npages) {
		cxu_err("page %" PRIu64 " beyond the capacity (%" PRIu64 " pages)",
			t->max_page, mc.npages);
		return -1;
	}
	if (cxd_nand_cfg_valid(&mc.nand)) {
		cxu_err("NAND configuration out of range");
		return -1;
	}
	why = cxd_ftl_check(&mc);
	if (why) {
		cxu_err("--ftl page: %s", why);
		return -1;
	}
	if (!cxd_model_cfg_state_size(&mc)) {
		cxu_err("bad cache shape (lines %u, ways %u, pages %" PRIu64 ")",
			mc.nlines, mc.ways, mc.npages);
		return -1;
	}
	mem = aligned_alloc(8, (cxd_model_cfg_state_size(&mc) + 7) & ~7ul);
	if (cfg->faults)
		mapped = calloc(mc.npages, 1);
	if (cxu_lat_hist_init(&lat) || !mem || (cfg->faults && !mapped) ||
	    cxd_model_init_cfg(&m, &mc, mem)) {
		cxu_err("cannot set up the model");
		free(mem);
		cxu_lat_hist_free(&lat);
		free(mapped);
		return -1;
	}
	cxd_model_set_seed(&m, cfg->seed);
	if (cxd_cache_set_cflru_window(&m.cache, cfg->cflru_window_pct)) {
		cxu_err("--cflru-window out of range [0, 100]");
		free(mem);
		cxu_lat_hist_free(&lat);
		free(mapped);
		return -1;
	}
	why = cxd_pf_params_check(&cfg->pf);
	if (why) {
		cxu_err("prefetcher parameters: %s", why);
		free(mem);
		cxu_lat_hist_free(&lat);
		free(mapped);
		return -1;
	}
	m.pf = cfg->pf;
	m.prefetch = cfg->prefetch;
	m.prefetch_degree = cfg->degree;
	m.prefetch_distance = cfg->distance;
	m.write_alloc = cfg->write_alloc;
	m.skip_unwritten = cfg->skip_unwritten;
	m.writeback = cfg->writeback;
	if (cfg->ftl_fill)
		cxd_model_ftl_fill(&m);

	memset(out, 0, sizeof(*out));
	for (i = 0; i < t->n; i++) {
		rec = recs[i];
		page = trace_page(rec);
		write = rec & TRACE_WRITE;
		/* a binary trace's records are checked here, not at load */
		if (page >= mc.npages) {
			cxu_err(
				"access %" PRIu64 ": page %" PRIu64 " beyond the capacity (%" PRIu64 " pages)",
				i + 1, page, mc.npages);
			goto fail;
		}
		/*
		 * The model state of accesses a few ahead, in three steps
		 * (page table entry, line, its queue neighbours): hints only.
		 */
		if (i + 16 < t->n)
			cxd_cache_warm(&m.cache, trace_page(recs[i + 16]), CXD_WARM_PAGE);
		if (i + 8 < t->n)
			cxd_cache_warm(&m.cache, trace_page(recs[i + 8]), CXD_WARM_LINE);
		if (i + 4 < t->n)
			cxd_cache_warm(&m.cache, trace_page(recs[i + 4]), CXD_WARM_LINKS);
		if (write)
			out->writes++;
		else
			out->reads++;
		if (mapped && mapped[page] && (!write || mapped[page] == 2)) {
			out->native_hits++;
			now += cfg->think_ns;
			continue;
		}
		if (mapped && mapped[page]) {	/* write to a read-only PTE */
			cxd_cache_set_dirty(&m.cache, page);
			mapped[page] = 2;
			out->native_hits++;
			now += cfg->think_ns;
			continue;
		}
		cxd_model_access(&m, page, write ? CXD_ACC_WRITE : 0, now, &r);
		if (!r.hit && cxu_lat_hist_add(&lat, r.done_ns - now)) {
			cxu_err("out of memory");
			goto fail;
		}
		if (mapped) {
			for (j = 0; j < r.nvictims; j++)
				mapped[r.victims[j].page] = 0;
			mapped[page] = write ? 2 : 1;
		}
		/* The module drains in a worker right away; so does the replay. */
		while (r.drain) {
			struct cxd_victim dv[64];
			uint32_t k, n = cxd_model_drain(&m, now, dv, 64);

			for (k = 0; mapped && k < n; k++)
				mapped[dv[k].page] = 0;
			if (n < 64)
				break;
		}
		now = r.done_ns + cfg->think_ns;
	}
	out->accesses = t->n;
	out->elapsed_ns = now;
	out->npages = mc.npages;
	out->st = m.stats;
	out->ftl = m.ftl_stats;
	out->erases = m.nand.erases;
	out->state_bytes = cxd_model_cfg_state_size(&mc);
	cxu_lat_hist_summarize(&lat, &out->lat);
	out->lat_sum = lat.sum;

	ndies = (uint64_t)mc.nand.channels * mc.nand.dies_per_channel;
	planes = cxd_nand_planes(&mc.nand);
	for (i = 0; i < ndies; i++) {
		u = ratio(m.nand.die_busy[i], now * planes);
		out->util_mean += u / (double)ndies;
		if (u > out->util_max)
			out->util_max = u;
	}
	free(mem);
	cxu_lat_hist_free(&lat);
	free(mapped);
	return 0;
fail:
	free(mem);
	cxu_lat_hist_free(&lat);
	free(mapped);
	return -1;
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

	c = json_object_new_object();
	json_object_object_add(c, "preset", json_object_new_string(cfg->preset));
	json_object_object_add(c, "policy",
			       json_object_new_string(cxd_policy_name(cfg->policy)));
	json_object_object_add(c, "cache_bytes", json_object_new_uint64(cfg->cache));
	json_object_object_add(c, "capacity_pages", json_object_new_uint64(x->npages));
	json_object_object_add(c, "ways", json_object_new_uint64(cfg->ways));
	json_object_object_add(c, "cflru_window_pct",
			       json_object_new_uint64(cfg->cflru_window_pct));
	json_object_object_add(c, "ftl",
			       json_object_new_string(cxd_ftl_name(cfg->ftl.mode)));
	json_object_object_add(c, "prefetch",
			       json_object_new_string(cxd_prefetch_name(cfg->prefetch)));
	json_object_object_add(c, "degree", json_object_new_uint64(cfg->degree));
	json_object_object_add(c, "distance", json_object_new_uint64(cfg->distance));
	json_object_object_add(c, "write_alloc", json_object_new_string(
		cfg->write_alloc == CXD_WA_NOFETCH ? "nofetch" : "fetch"));
	json_object_object_add(c, "skip_unwritten",
			       json_object_new_boolean(cfg->skip_unwritten));
	json_object_object_add(c, "writeback", json_object_new_string(
		cxd_writeback_name(cfg->writeback)));
	json_object_object_add(c, "think_ns", json_object_new_uint64(cfg->think_ns));
	json_object_object_add(c, "faults", json_object_new_boolean(cfg->faults));
	json_object_object_add(c, "t_read_ns", json_object_new_uint64(cfg->nand.t_read_ns));
	json_object_object_add(c, "t_prog_ns", json_object_new_uint64(cfg->nand.t_prog_ns));
	json_object_object_add(c, "channel_mbps",
			       json_object_new_uint64(cfg->nand.channel_mbps));
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
			       json_object_new_double(ratio(s->hits, x->accesses)));
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
ROW_U64(misses, x->st.misses)
ROW_PCT(hit_ratio, x->st.hits, x->accesses)
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

static const struct option long_opts[] = {
	{ "preset", required_argument, NULL, 0 },
	{ "capacity", required_argument, NULL, 0 },
	{ "cache", required_argument, NULL, 0 },
	{ "ways", required_argument, NULL, 0 },
	{ "policy", required_argument, NULL, 0 },
	{ "seed", required_argument, NULL, 0 },
	{ "cflru-window", required_argument, NULL, 0 },
	{ "prefetch", required_argument, NULL, 0 },
	{ "degree", required_argument, NULL, 0 },
	{ "distance", required_argument, NULL, 0 },
	{ "write-alloc", required_argument, NULL, 0 },
	{ "writeback", required_argument, NULL, 0 },
	{ "stripe", required_argument, NULL, 0 },
	{ "skip-unwritten", no_argument, NULL, 0 },
	{ "faults", no_argument, NULL, 0 },
	{ "think", required_argument, NULL, 0 },
	{ "t-read", required_argument, NULL, 0 },
	{ "t-prog", required_argument, NULL, 0 },
	{ "t-bers", required_argument, NULL, 0 },
	{ "channels", required_argument, NULL, 0 },
	{ "dies", required_argument, NULL, 0 },
	{ "planes", required_argument, NULL, 0 },
	{ "page-size", required_argument, NULL, 0 },
	{ "mbps", required_argument, NULL, 0 },
	{ "pages-per-block", required_argument, NULL, 0 },
	{ "xfer", required_argument, NULL, 0 },
	{ "format", required_argument, NULL, 'f' },
	{ "convert", required_argument, NULL, 'o' },
	{ "lackey-instr", no_argument, NULL, 'i' },
	{ "dev", required_argument, NULL, 'd' },
	{ "timing", no_argument, NULL, 't' },
	{ "bop-score-max", required_argument, NULL, 0 },
	{ "bop-round-max", required_argument, NULL, 0 },
	{ "bop-bad-score", required_argument, NULL, 0 },
	{ "leap-split", required_argument, NULL, 0 },
	{ "leap-window-max", required_argument, NULL, 0 },
	{ "fdp-interval", required_argument, NULL, 0 },
	{ "fdp-accuracy-high", required_argument, NULL, 0 },
	{ "fdp-accuracy-low", required_argument, NULL, 0 },
	{ "fdp-lateness", required_argument, NULL, 0 },
	{ "fdp-pollution", required_argument, NULL, 0 },
	{ "ftl", required_argument, NULL, 0 },
	{ "op-pct", required_argument, NULL, 0 },
	{ "gc-low", required_argument, NULL, 0 },
	{ "gc-high", required_argument, NULL, 0 },
	{ "ftl-fill", no_argument, NULL, 0 },
	{ "compare", required_argument, NULL, 'c' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	struct sim_cfg base = {
		.cache = 8ull << 20,
		.policy = CXD_POLICY_FIFO,
		.prefetch = CXD_PF_NONE,
		.degree = 1,
		.distance = 1,
		.cflru_window_pct = CXD_CFLRU_WINDOW_PCT,
		.ftl = {
			.mode = CXD_FTL_OFF,
			.op_pct = CXD_FTL_OP_PCT,
			.gc_low = CXD_FTL_GC_LOW,
			.gc_high = CXD_FTL_GC_HIGH,
		},
	};
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
	int opt, idx, ret = 0;

	cxu_set_prog("cxdvirt-sim");
	cxd_pf_params_default(&base.pf);
	sim_set(&base, "preset", "znand");
	while ((opt = getopt_long(argc, argv, "h", long_opts, &idx)) != -1) {
		switch (opt) {
		case 0:
			if (sim_set(&base, long_opts[idx].name, optarg)) {
				fprintf(stderr, "cxdvirt-sim: --%s: bad value '%s'\n",
					long_opts[idx].name, optarg ? optarg : "");
				return 2;
			}
			break;
		case 'f':
			if (trace_format_parse(optarg) < 0) {
				fprintf(stderr, "cxdvirt-sim: --format: bad value '%s'\n",
					optarg);
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
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}

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
			cfgs[n] = base;
			cvals[n] = tok;
			if (sim_set(&cfgs[n], ckey, tok)) {
				fprintf(stderr, "cxdvirt-sim: --compare %s: bad value '%s'\n",
					ckey, tok);
				return 2;
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
		if (run(&cfgs[i], &t, &xs[i])) {
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
