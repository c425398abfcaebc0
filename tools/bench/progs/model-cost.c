// SPDX-License-Identifier: GPL-2.0
/*
 * model-cost: drive N misses through the device model, for counting the
 * model's instructions per miss under callgrind (tools/bench/model-cost.sh).
 *
 *   model-cost POLICY NLINES NMISSES [PREFETCH]
 *
 * The device has 4 * NLINES pages (NLINES a power of two) behind the znand
 * preset. Pages are visited in the order p(i) = i * A mod npages (A odd: a
 * permutation, so no page repeats): the first NLINES accesses fill the
 * cache, then NMISSES more (at most 3 * NLINES) each miss and evict. Every
 * fourth access is a write, so a quarter of the victims are dirty and are
 * written back. Accesses are serial: each arrives when the previous one
 * completed.
 *
 * With PREFETCH (a prefetcher name, degree 4), a prefetched page may be
 * used before it is evicted: then an access is a hit, and the figure is per
 * access (misses and prefetch hits) rather than per miss.
 *
 * Under valgrind the fill runs uninstrumented (callgrind
 * --instr-atstart=no); instrumentation starts after it, so a run's Ir is
 * the NMISSES misses plus a fixed cost (teardown), which two runs with
 * different NMISSES cancel.
 *
 *   model-cost ftl CAPACITY_MIB PAGES_PER_BLOCK NWRITES
 *
 * The FTL's cost per write-back: a CAPACITY_MIB device, one channel, one
 * die, one plane, 4 KiB NAND pages, PAGES_PER_BLOCK pages per block,
 * op_pct 7, ftl=page, preconditioned (cxd_model_ftl_fill()), behind a
 * 1-line cache: every access is a write miss to a random page (a fixed
 * LCG), and evicts the previous one, dirty, so every access is one
 * write-back. Uninstrumented, it first writes back four times the plane's
 * spare pages, so that GC runs and its write amplification has settled,
 * then runs NWRITES more; the write amplification of those goes to
 * standard error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION do { } while (0)
#endif

#include <cxdvirt/model.h>

#define STEP	0x9e3779b1ull

static int ftl_cost(int argc, char **argv)
{
	struct cxd_model_cfg mc = { 0 };
	const struct cxd_preset *p = cxd_preset_find("znand");
	uint64_t mib, ppb, n, warm, i, x = 1, now = 0, host, nand;
	struct cxd_access r;
	struct cxd_model m;
	size_t size;
	void *mem;

	if (argc != 5) {
		fprintf(stderr, "usage: model-cost ftl CAPACITY_MIB PAGES_PER_BLOCK NWRITES\n");
		return 2;
	}
	mib = strtoull(argv[2], NULL, 0);
	ppb = strtoull(argv[3], NULL, 0);
	n = strtoull(argv[4], NULL, 0);
	mc.npages = mib << 8;
	mc.nlines = 1;
	mc.policy = CXD_POLICY_FIFO;
	mc.nand = p->nand;
	mc.nand.channels = 1;
	mc.nand.dies_per_channel = 1;
	mc.nand.planes_per_die = 1;
	mc.nand.nand_page_size = 4096;
	mc.nand.pages_per_block = (uint32_t)ppb;
	mc.ftl.mode = CXD_FTL_PAGE;
	mc.ftl.op_pct = 7;
	mc.ftl.gc_low = CXD_FTL_GC_LOW;
	mc.ftl.gc_high = CXD_FTL_GC_HIGH;
	size = cxd_model_cfg_state_size(&mc);
	mem = size ? aligned_alloc(8, (size + 7) & ~(size_t)7) : NULL;
	if (!mem || cxd_model_init_cfg(&m, &mc, mem)) {
		fprintf(stderr, "model-cost: cannot set up the FTL model\n");
		return 1;
	}
	cxd_model_ftl_fill(&m);
	warm = 4 * (mc.npages * mc.ftl.op_pct / 100);
	for (i = 0; i < warm + n; i++) {
		if (i == warm) {
			cxd_model_reset_stats(&m);
			CALLGRIND_START_INSTRUMENTATION;
		}
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		cxd_model_access(&m, (x >> 24) % mc.npages, CXD_ACC_WRITE, now,
				 &r);
		now = r.done_ns;
	}
	host = m.ftl_stats.host_writes;
	nand = m.ftl_stats.nand_writes;
	free(mem);
	if (host != n) {
		fprintf(stderr, "model-cost: %llu write-backs, expected %llu\n",
			(unsigned long long)host, (unsigned long long)n);
		return 1;
	}
	fprintf(stderr, "write amplification %.3f\n", (double)nand / host);
	return 0;
}

int main(int argc, char **argv)
{
	struct cxd_model_cfg mc = { 0 };
	const struct cxd_preset *p = cxd_preset_find("znand");
	uint64_t nlines, nmiss, i, now = 0, misses;
	struct cxd_access r;
	struct cxd_model m;
	int pol, pf = CXD_PF_NONE;
	size_t size;
	void *mem;

	if (argc > 1 && !strcmp(argv[1], "ftl"))
		return ftl_cost(argc, argv);
	if (argc < 4 || argc > 5 || (pol = cxd_policy_parse(argv[1])) < 0 ||
	    (argc == 5 && (pf = cxd_prefetch_parse(argv[4])) < 0)) {
		fprintf(stderr, "usage: model-cost POLICY NLINES NMISSES [PREFETCH]\n");
		return 2;
	}
	nlines = strtoull(argv[2], NULL, 0);
	nmiss = strtoull(argv[3], NULL, 0);
	if (!nlines || (nlines & (nlines - 1)) || nmiss > 3 * nlines ||
	    4 * nlines >= (1ull << 32)) {
		fprintf(stderr,
			"model-cost: NLINES: a power of two below 2^30; NMISSES: at most 3 * NLINES\n");
		return 2;
	}
	mc.npages = 4 * nlines;
	mc.nlines = (uint32_t)nlines;
	mc.ways = 0;
	mc.policy = pol;
	mc.nand = p->nand;
	size = cxd_model_cfg_state_size(&mc);
	mem = aligned_alloc(8, (size + 7) & ~(size_t)7);
	if (!size || !mem || cxd_model_init_cfg(&m, &mc, mem)) {
		fprintf(stderr, "model-cost: cannot set up the model\n");
		return 1;
	}
	cxd_model_set_seed(&m, 1);
	m.prefetch = pf;
	m.prefetch_degree = 4;

	for (i = 0; i < nlines + nmiss; i++) {
		if (i == nlines)
			CALLGRIND_START_INSTRUMENTATION;
		cxd_model_access(&m, (i * STEP) & (mc.npages - 1),
				 i % 4 == 3 ? CXD_ACC_WRITE : 0, now, &r);
		now = r.done_ns;
	}
	misses = m.stats.misses;
	free(mem);
	if (pf == CXD_PF_NONE && misses != nlines + nmiss) {
		fprintf(stderr, "model-cost: %llu misses, expected %llu\n",
			(unsigned long long)misses,
			(unsigned long long)(nlines + nmiss));
		return 1;
	}
	return 0;
}
