// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-sim's replay: one trace through the cxdvirt device model (the same
 * code the module runs) on one serial clock, into the metrics the report
 * prints.
 *
 * With --faults the replay mimics the module's fault path instead of a
 * device that sees every access: a page is mapped from its demand access
 * until it is evicted, and an access to a mapped page is a native hit that
 * never reaches the model (a write to a read-only mapped page only marks
 * the line dirty, as ->page_mkwrite does). This is exactly what the module
 * sees from one process with its accessed-bit scan off.
 *
 * Time: the first access arrives at 0; each next one arrives think_ns after
 * the previous one completed (done_ns of cxd_model_access()). So a trace is
 * one thread of dependent accesses; the optional thread field is parsed
 * and counted but does not change the timing.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cxu_lat.h"
#include "cxu_msg.h"
#include <cxdvirt/params.h>

#include "sim.h"

/**
 * sim_check() - the checks sim_run() makes before it replays anything.
 * @cfg:      the configuration.
 * @max_page: the trace's highest page (0 for an empty trace).
 * @npages:   out: the device's capacity in pages (@cfg's, or the trace's
 *            extent and at least the cache when @cfg's capacity is 0).
 * @msize:    out: the model's state in bytes.
 *
 * Return: NULL, or why the run would fail (a static string, valid until
 * the next call).
 */
const char *sim_check(const struct sim_cfg *cfg, uint64_t max_page,
		      uint64_t *npages, size_t *msize)
{
	static char why[128];

	if (cfg->p.cache_size % CXD_HOST_PAGE_SIZE ||
	    cfg->p.capacity % CXD_HOST_PAGE_SIZE)
		return "--cache-size and --capacity must be multiples of 4K, as in configfs";
	*npages = cfg->p.capacity / CXD_HOST_PAGE_SIZE;
	if (!*npages) {
		*npages = max_page + 1;
		if (*npages < cfg->p.cache_size / CXD_HOST_PAGE_SIZE)
			*npages = cfg->p.cache_size / CXD_HOST_PAGE_SIZE;
	}
	if (max_page >= *npages) {
		snprintf(why, sizeof(why),
			 "page %" PRIu64 " beyond the capacity (%" PRIu64 " pages)",
			 max_page, *npages);
		return why;
	}
	/* The module's power-on checks (driver/model/setup.c). */
	return cxd_model_setup_check(&cfg->p, *npages, msize);
}

/**
 * sim_run() - one replay of a trace.
 * @cfg: configuration; its cache shape, NAND, FTL, prefetcher and drain
 *       settings are checked here, together.
 * @t:   the trace; each page (4 KiB) must be below the capacity (@cfg's,
 *       or the trace's extent when that is 0).
 * @out: filled on success: counts, times in ns, sizes in bytes.
 *
 * Return: 0, or -1 after printing what is wrong.
 */
int sim_run(const struct sim_cfg *cfg, const struct trace *t,
	    struct metrics *out)
{
	uint64_t i, j, now = 0, ndies, page, rec, npages;
	uint8_t *mapped = NULL;	/* --faults: 0 unmapped, 1 read-only, 2 writable */
	const uint64_t *recs = t->recs;
	struct cxu_lat_hist lat;
	struct cxd_access r;
	const char *why;
	bool write;
	struct cxd_model m;
	uint32_t planes;
	size_t msize;
	double u;
	void *mem;

	why = sim_check(cfg, t->n ? t->max_page : 0, &npages, &msize);
	if (why) {
		cxu_err("%s", why);
		return -1;
	}
	mem = aligned_alloc(8, (msize + 7) & ~(size_t)7);
	if (cfg->faults)
		mapped = calloc(npages, 1);
	if (cxu_lat_hist_init(&lat) || !mem || (cfg->faults && !mapped) ||
	    cxd_model_setup(&m, &cfg->p, npages, mem)) {
		cxu_err("cannot set up the model");
		free(mem);
		cxu_lat_hist_free(&lat);
		free(mapped);
		return -1;
	}

	memset(out, 0, sizeof(*out));
	if (cfg->power_fail_at > t->n) {
		cxu_err("--power-fail-at %" PRIu64 ": beyond the trace (%" PRIu64 " accesses)",
			cfg->power_fail_at, t->n);
		goto fail;
	}
	for (i = 0; i < t->n; i++) {
		if (cfg->power_fail_at && i == cfg->power_fail_at)
			break;	/* the power fails before access i + 1 */
		rec = recs[i];
		page = trace_page(rec);
		write = rec & TRACE_WRITE;
		/* a binary trace's records are checked here, not at load */
		if (page >= npages) {
			cxu_err(
				"access %" PRIu64 ": page %" PRIu64 " beyond the capacity (%" PRIu64 " pages)",
				i + 1, page, npages);
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
	out->accesses = i;
	if (cfg->power_fail_at) {
		/* What the module's power_fail keeps and loses, by the same
		 * function: a volatile cache loses every dirty line, GPF
		 * flushes within its budget. */
		uint64_t ndirty, nsaved;

		out->lost_pages = malloc(((uint64_t)m.cache.nlines + 1) *
					 sizeof(uint64_t));
		if (!out->lost_pages) {
			cxu_err("out of memory");
			goto fail;
		}
		ndirty = cxd_model_power_fail(&m, now, out->lost_pages, &nsaved);
		out->lines_saved = nsaved;
		out->lines_lost = ndirty - nsaved;
		memmove(out->lost_pages, out->lost_pages + nsaved,
			out->lines_lost * sizeof(uint64_t));
	}
	out->elapsed_ns = now;
	out->npages = npages;
	out->st = m.stats;
	out->ftl = m.ftl_stats;
	out->erases = m.nand.erases;
	out->state_bytes = msize;
	cxu_lat_hist_summarize(&lat, &out->lat);
	out->lat_sum = lat.sum;

	ndies = (uint64_t)cfg->p.nand.channels * cfg->p.nand.dies_per_channel;
	planes = cxd_nand_planes(&cfg->p.nand);
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
