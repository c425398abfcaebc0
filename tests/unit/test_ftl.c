// SPDX-License-Identifier: GPL-2.0
/*
 * The page-mapped FTL: capacity and over-provisioning arithmetic at the
 * edges, mapping invariants, write amplification of greedy GC against the
 * analytic model (Desnoyers, SYSTOR 2012), and GC stalling demand misses.
 */
#include <math.h>

#include "cxd_test.h"

struct ftl_fix {
	struct cxd_model m;
	struct cxd_model_cfg cfg;
	void *mem;
	uint64_t now, x;
};

static struct cxd_model_cfg ftl_cfg(uint32_t ch, uint32_t dies,
				    uint64_t npages, uint32_t ppb,
				    uint32_t op)
{
	struct cxd_model_cfg cfg = {
		.npages = npages,
		.nlines = 1,
		.policy = CXD_POLICY_FIFO,
		.nand = test_cfg(ch, dies, 4096),
		.ftl = {
			.mode = CXD_FTL_PAGE,
			.op_pct = op,
			.gc_low = CXD_FTL_GC_LOW,
			.gc_high = CXD_FTL_GC_HIGH,
		},
	};

	cfg.nand.pages_per_block = ppb;
	cfg.nand.t_bers_ns = 1000000;
	return cfg;
}

static struct ftl_fix *ftl_new(const struct cxd_model_cfg *cfg)
{
	struct ftl_fix *f = calloc(1, sizeof(*f));
	size_t sz = cxd_model_cfg_state_size(cfg);

	assert_non_null(f);
	assert_true(sz > 0);
	f->cfg = *cfg;
	f->mem = junk_alloc(sz);
	assert_int_equal(cxd_model_init_cfg(&f->m, cfg, f->mem), 0);
	f->x = 42;
	return f;
}

static void ftl_free(struct ftl_fix *f)
{
	free(f->mem);
	free(f);
}

static uint64_t rnd(struct ftl_fix *f)
{
	f->x = f->x * 6364136223846793005ull + 1442695040888963407ull;
	return f->x >> 24;
}

/*
 * GC buckets of plane @u: each full block is in exactly one bucket, the
 * one of its valid count, each list is circular both ways, and no full
 * block has fewer valid pages than minv.
 */
static void check_buckets(const struct cxd_ftl *t, uint64_t u)
{
	uint64_t base = u * t->blocks, full = 0, seen = 0, v, b, n;

	for (b = 0; b < t->blocks; b++)
		if (t->state[base + b] == 2) {
			full++;
			assert_true(t->valid[base + b] >= t->minv[u]);
		}
	for (v = 0; v <= t->ppb; v++) {
		b = t->bhead[u * (t->ppb + 1) + v];
		if (b == ~0u)
			continue;
		n = 0;
		do {
			assert_int_equal(t->state[base + b], 2);
			assert_int_equal(t->valid[base + b], v);
			assert_int_equal(t->bprev[base + t->bnext[base + b]], b);
			b = t->bnext[base + b];
			assert_true(++n <= t->blocks);
		} while (b != t->bhead[u * (t->ppb + 1) + v]);
		seen += n;
	}
	assert_int_equal(seen, full);
}

/*
 * Every mapped page maps back; per-block valid counts, free counts and GC
 * buckets match.
 */
static void check_maps(const struct ftl_fix *f)
{
	const struct cxd_ftl *t = &f->m.priv->ftl;
	uint64_t nblk = (uint64_t)t->units * t->blocks, b, i, n, mapped = 0;
	uint64_t valid = 0, u, nfree;

	for (i = 0; i < f->cfg.npages; i++) {
		if (t->l2p[i] == ~0u)
			continue;
		assert_int_equal(t->p2l[t->l2p[i]], i);
		mapped++;
	}
	for (b = 0; b < nblk; b++) {
		n = 0;
		for (i = 0; i < t->ppb; i++)
			n += t->p2l[b * t->ppb + i] != ~0u;
		assert_int_equal(n, t->valid[b]);
		valid += n;
	}
	assert_int_equal(valid, mapped);
	for (u = 0; u < t->units; u++) {
		nfree = 0;
		for (b = 0; b < t->blocks; b++)
			nfree += t->state[u * t->blocks + b] == 0;
		assert_int_equal(nfree, t->nfree[u]);
		check_buckets(t, u);
	}
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(cxd_ftl_name(CXD_FTL_OFF), "off");
	assert_string_equal(cxd_ftl_name(CXD_FTL_PAGE), "page");
	assert_null(cxd_ftl_name(CXD_FTL_NR));
	assert_int_equal(cxd_ftl_parse("page"), CXD_FTL_PAGE);
	assert_int_equal(cxd_ftl_parse("off"), CXD_FTL_OFF);
	assert_int_equal(cxd_ftl_parse("Page"), -1);
}

/*
 * One plane of 4096 logical pages, 64 pages per block, gc_high 3: op 5%
 * gives ceil(ceil(4096 * 1.05) / 64) = ceil(4301 / 64) = 68 blocks, 256
 * spare pages = 4 blocks = gc_high + 1: exactly enough. op 4% gives
 * ceil(4260 / 64) = 67 blocks, 3 spare: refused.
 */
static void test_capacity_edges(void **state)
{
	struct cxd_model_cfg cfg = ftl_cfg(1, 1, 4096, 64, 5);
	struct ftl_fix *f;

	(void)state;
	assert_int_equal(cfg.ftl.gc_high, 3);
	assert_null(cxd_ftl_check(&cfg));
	f = ftl_new(&cfg);
	assert_int_equal(f->m.priv->ftl.blocks, 68);
	assert_int_equal(f->m.priv->ftl.lpp, 4096);
	assert_int_equal(f->m.priv->ftl.nfree[0], 67);
	ftl_free(f);

	cfg.ftl.op_pct = 4;
	assert_non_null(cxd_ftl_check(&cfg));
	assert_int_equal(cxd_model_cfg_state_size(&cfg), 0);
	cfg.ftl.op_pct = 5;
	cfg.ftl.gc_high = 4;		/* needs 5 spare blocks */
	assert_non_null(cxd_ftl_check(&cfg));
	cfg.ftl.gc_high = 3;
	cfg.nand.pages_per_block = 1;
	assert_non_null(cxd_ftl_check(&cfg));
	cfg.nand.pages_per_block = 0;
	assert_non_null(cxd_ftl_check(&cfg));
	cfg.nand.pages_per_block = 64;
	cfg.ftl.op_pct = 101;
	assert_non_null(cxd_ftl_check(&cfg));
	cfg.ftl.op_pct = 5;
	cfg.ftl.gc_low = 0;
	assert_non_null(cxd_ftl_check(&cfg));
	cfg.ftl.gc_low = 3;		/* not below gc_high */
	assert_non_null(cxd_ftl_check(&cfg));
	cfg.ftl.gc_low = 2;
	assert_null(cxd_ftl_check(&cfg));
	/* off: nothing is checked and nothing is allocated */
	cfg.ftl.mode = CXD_FTL_OFF;
	cfg.ftl.op_pct = 1000;
	assert_null(cxd_ftl_check(&cfg));
	cfg.ftl.op_pct = 0;
	cfg.ftl.gc_low = cfg.ftl.gc_high = 0;
	assert_int_equal(cxd_model_cfg_state_size(&cfg),
			 fa_state_size(4096, 1, &cfg.nand));
	/*
	 * Rounding up at both steps: 1001 pages, op 10% need 1101.1, so
	 * 1102 physical pages, ceil(1102 / 3) = 368 blocks (1101 would fit
	 * in 367).
	 */
	cfg = ftl_cfg(1, 1, 1001, 3, 10);
	f = ftl_new(&cfg);
	assert_int_equal(f->m.priv->ftl.lpp, 1001);
	assert_int_equal(f->m.priv->ftl.blocks, 368);
	ftl_free(f);
	/* logical pages per plane: 4096 pages over 8 x 4 dies = 128 */
	cfg = ftl_cfg(8, 4, 4096, 16, 70);
	f = ftl_new(&cfg);
	assert_int_equal(f->m.priv->ftl.units, 32);
	assert_int_equal(f->m.priv->ftl.lpp, 128);
	assert_int_equal(f->m.priv->ftl.blocks, 14);	/* ceil(218 / 16) */
	ftl_free(f);
}

/* One write access per step through a 1-line cache: one write-back each. */
static void write_random(struct ftl_fix *f, uint64_t n)
{
	struct cxd_access r;
	uint64_t i;

	for (i = 0; i < n; i++) {
		cxd_model_access(&f->m, rnd(f) % f->cfg.npages, CXD_ACC_WRITE,
				 f->now, &r);
		f->now = r.done_ns;
	}
}

static void test_map_invariants(void **state)
{
	struct cxd_model_cfg cfg = ftl_cfg(2, 2, 8192, 32, 20);
	struct ftl_fix *f = ftl_new(&cfg);

	(void)state;
	check_maps(f);
	cxd_model_ftl_fill(&f->m);
	check_maps(f);
	assert_int_equal(f->m.ftl_stats.host_writes, 0);	/* not counted */
	assert_int_equal(f->m.nand.erases, 0);
	write_random(f, 50000);
	check_maps(f);
	assert_int_equal(f->m.ftl_stats.host_writes, f->m.stats.writebacks);
	assert_int_equal(f->m.ftl_stats.nand_writes,
			 f->m.ftl_stats.host_writes + f->m.ftl_stats.gc_moved);
	assert_true(f->m.ftl_stats.gc_runs > 0);
	/* every GC erases one block; in-place erases are off with an FTL */
	assert_int_equal(f->m.nand.erases, f->m.ftl_stats.gc_runs);
	cxd_model_reset_stats(&f->m);
	assert_int_equal(f->m.ftl_stats.gc_runs, 0);
	ftl_free(f);
}

/* Principal branch of Lambert's W on (-1/e, 0), by Newton's method. */
static double lambert_w0(double x)
{
	double w = -0.5, e;
	int i;

	for (i = 0; i < 200; i++) {
		e = exp(w);
		w -= (w * e - x) / (e * (w + 1));
	}
	return w;
}

/*
 * Uniform random writes at steady state: greedy GC's write amplification
 * against the closed form for greedy cleaning under uniform traffic,
 * A = alpha / (alpha + W(-alpha e^-alpha)), alpha = physical / logical
 * pages (Desnoyers, "Analytic modeling of SSD write performance", SYSTOR
 * 2012; also Xiang and Kurkoski, arXiv:1110.4245). Within 10%.
 */
static void waf_case(uint32_t op, uint32_t ppb)
{
	struct cxd_model_cfg cfg = ftl_cfg(1, 1, 16384, ppb, op);
	struct ftl_fix *f = ftl_new(&cfg);
	double alpha, model, waf;

	cxd_model_ftl_fill(&f->m);
	write_random(f, 10 * 16384);		/* reach steady state */
	cxd_model_reset_stats(&f->m);
	write_random(f, 20 * 16384);
	check_maps(f);
	alpha = (double)f->m.priv->ftl.blocks * ppb / 16384.0;
	model = alpha / (alpha + lambert_w0(-alpha * exp(-alpha)));
	waf = (double)f->m.ftl_stats.nand_writes / f->m.ftl_stats.host_writes;
	print_message("op %u%%, %u pages/block: alpha %.4f, WAF %.3f, model %.3f\n",
		      op, ppb, alpha, waf, model);
	assert_true(fabs(waf - model) <= 0.10 * model);
	ftl_free(f);
}

static void test_waf_greedy_model(void **state)
{
	(void)state;
	waf_case(28, 64);
	waf_case(15, 64);
	waf_case(50, 128);
}

/* Nearest-rank P99 of @v[n] (sorted here). */
static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t p99(uint64_t *v, uint64_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[(n * 99 + 99) / 100 - 1];
}

/*
 * A full device (every page mapped, 30% over-provisioning, 32 pages per
 * block), random reads and writes half and half, 1 us between accesses:
 * with the FTL, misses wait behind GC on their die (each GC about 3 ms);
 * the same run without an FTL (an erase in place per block opened) has a
 * miss P99 of about 1 ms (tBERS).
 */
static void test_gc_stalls_misses(void **state)
{
	struct cxd_model_cfg cfg = ftl_cfg(2, 2, 8192, 32, 30);
	uint64_t *lat, n, i, p[2], stalls = 0;
	struct cxd_access r;
	struct ftl_fix *f;
	unsigned int k;

	(void)state;
	cfg.nlines = 256;
	lat = calloc(200000, sizeof(*lat));
	assert_non_null(lat);
	for (k = 0; k < 2; k++) {
		cfg.ftl.mode = k ? CXD_FTL_OFF : CXD_FTL_PAGE;
		f = ftl_new(&cfg);
		cxd_model_ftl_fill(&f->m);
		n = 0;
		for (i = 0; i < 200000; i++) {
			uint64_t pg = rnd(f) % cfg.npages;

			cxd_model_access(&f->m, pg,
					 rnd(f) % 2 ? CXD_ACC_WRITE : 0,
					 f->now, &r);
			if (!r.hit)
				lat[n++] = r.done_ns - f->now;
			f->now = r.done_ns + 1000;
		}
		p[k] = p99(lat, n);
		if (!k) {
			stalls = f->m.ftl_stats.gc_stalls;
			assert_true(f->m.ftl_stats.gc_stall_ns > 0);
			check_maps(f);
		} else {
			assert_int_equal(f->m.ftl_stats.gc_runs, 0);
			assert_int_equal(f->m.ftl_stats.gc_stalls, 0);
		}
		ftl_free(f);
	}
	print_message("miss p99: ftl=page %llu ns, ftl=off %llu ns; %llu GC stalls\n",
		      (unsigned long long)p[0], (unsigned long long)p[1],
		      (unsigned long long)stalls);
	assert_true(stalls > 0);
	assert_true(p[0] > p[1]);
	free(lat);
}

/*
 * GC's trigger, target, victims and timing on one plane (4096 pages, 64
 * pages per block, 68 blocks, gc_low 2, gc_high 3). The preconditioning
 * fills blocks 0..63 and leaves 4 free. Pages 0 and 1 written back in turn
 * (a 1-line cache, write misses) take one new physical page each: the 1st
 * write-back opens a block (3 free), the 65th another (2 free: not below
 * gc_low), the 129th a third (1 free): the plane starts collecting, one
 * block per write-back. The 129th reclaims the first block they filled,
 * which holds no valid page (erased, nothing moved; 2 free: still below
 * gc_high); the 130th the second one, which holds one valid page, the
 * 128th write-back's (moved; 3 free: done). The 131st reclaims nothing.
 *
 * The 129th write-back comes with a demand read of page 2 at T, the die
 * idle: program [T, P = T + xfer + tPROG), then the GC from P: tBERS. The
 * read starts at the end of the GC; the stall counted is the GC's span. A
 * second read arriving at T starts after the first one's tR: again the
 * same span (it waited behind that GC too), not the time after the GC.
 * The 130th write-back (of page 2, its line evicted by the read of page 3)
 * comes with a read at U, the die idle again: the GC, tR + tPROG + tBERS,
 * runs after the program.
 */
static void test_gc_trigger_and_stall(void **state)
{
	struct cxd_model_cfg cfg = ftl_cfg(1, 1, 4096, 64, 5);
	const uint64_t bers = cfg.nand.t_bers_ns;
	const uint64_t gc2 = T_R + T_PROG + bers;
	struct cxd_access r;
	struct ftl_fix *f;
	uint64_t t, i;

	(void)state;
	f = ftl_new(&cfg);
	cxd_model_ftl_fill(&f->m);
	assert_int_equal(f->m.priv->ftl.nfree[0], 4);
	for (i = 0; i <= 128; i++) {
		cxd_model_access(&f->m, i % 2, CXD_ACC_WRITE, f->now, &r);
		f->now = r.done_ns;
		assert_int_equal(f->m.stats.writebacks, i);
		assert_int_equal(f->m.ftl_stats.gc_runs, 0);
		assert_int_equal(f->m.priv->ftl.nfree[0], i == 0 ? 4 : i <= 64 ? 3 : 2);
	}
	t = f->now + 10 * bers;
	cxd_model_access(&f->m, 2, 0, t, &r);
	assert_int_equal(f->m.stats.writebacks, 129);
	assert_int_equal(f->m.ftl_stats.gc_runs, 1);
	assert_int_equal(f->m.ftl_stats.gc_moved, 0);
	assert_int_equal(f->m.priv->ftl.nfree[0], 2);
	assert_int_equal(f->m.priv->ftl.gc_on[0], 1);
	assert_int_equal(r.read.start_ns, t + XFER_4K + T_PROG + bers);
	assert_int_equal(f->m.ftl_stats.gc_stalls, 1);
	assert_int_equal(f->m.ftl_stats.gc_stall_ns, bers);
	cxd_model_access(&f->m, 3, 0, t, &r);
	assert_int_equal(r.read.start_ns, t + XFER_4K + T_PROG + bers + T_R);
	assert_int_equal(f->m.ftl_stats.gc_stalls, 2);
	assert_int_equal(f->m.ftl_stats.gc_stall_ns, 2 * bers);
	check_maps(f);

	/* page 2 was read clean: make it dirty so its eviction writes back */
	cxd_model_access(&f->m, 3, CXD_ACC_WRITE, r.done_ns, &r);
	t = r.done_ns + 10 * bers;
	cxd_model_access(&f->m, 4, 0, t, &r);
	assert_int_equal(f->m.stats.writebacks, 130);
	assert_int_equal(f->m.ftl_stats.gc_runs, 2);
	assert_int_equal(f->m.ftl_stats.gc_moved, 1);
	assert_int_equal(f->m.priv->ftl.nfree[0], 3);
	assert_int_equal(f->m.priv->ftl.gc_on[0], 0);
	assert_int_equal(r.read.start_ns, t + XFER_4K + T_PROG + gc2);
	assert_int_equal(f->m.ftl_stats.gc_stall_ns, 2 * bers + gc2);
	check_maps(f);
	ftl_free(f);
}

/*
 * Greedy at every step, and bounded: on a full plane under random
 * write-backs (1 and 2 dies, 8 and 64 pages per block, low and high
 * over-provisioning), each GC takes a block with the fewest valid pages of
 * all full blocks (a brute-force scan before each write-back agrees), one
 * block per write-back at most, and the plane never runs out of free
 * blocks (the FTL's own checks and check_maps()).
 */
static void greedy_case(uint32_t dies, uint32_t ppb, uint32_t op)
{
	struct cxd_model_cfg cfg = ftl_cfg(1, dies, 4096, ppb, op);
	struct ftl_fix *f = ftl_new(&cfg);
	const struct cxd_ftl *t = &f->m.priv->ftl;
	uint64_t i, u, b, runs, minv[2], moved, pg, prev = ~0ull, wu = 0;
	struct cxd_access r;

	cxd_model_ftl_fill(&f->m);
	for (i = 0; i < 20000; i++) {
		for (u = 0; u < t->units; u++) {
			minv[u] = ~0ull;
			for (b = 0; b < t->blocks; b++)
				if (t->state[u * t->blocks + b] == 2 &&
				    t->valid[u * t->blocks + b] < minv[u])
					minv[u] = t->valid[u * t->blocks + b];
		}
		runs = f->m.ftl_stats.gc_runs;
		moved = f->m.ftl_stats.gc_moved;
		/* the 1-line cache writes back the page written before */
		if (prev != ~0ull)
			cxd_nand_die_of(&f->m.nand, prev, &wu);
		pg = rnd(f) % cfg.npages;
		cxd_model_access(&f->m, pg, CXD_ACC_WRITE, f->now, &r);
		f->now = r.done_ns;
		prev = pg;
		assert_true(f->m.ftl_stats.gc_runs - runs <= 1);
		/*
		 * The victim had no more valid pages than any block full
		 * before the write-back (which can only lower counts).
		 */
		if (f->m.ftl_stats.gc_runs > runs)
			assert_true(f->m.ftl_stats.gc_moved - moved <= minv[wu]);
		for (u = 0; u < t->units; u++)
			assert_true(t->nfree[u] >= 1 || t->wp[u] < t->ppb);
		if (i % 4096 == 0)
			check_maps(f);
	}
	check_maps(f);
	assert_true(f->m.ftl_stats.gc_runs > 1000);
	ftl_free(f);
}

static void test_gc_greedy_bounded(void **state)
{
	(void)state;
	greedy_case(1, 8, 7);
	greedy_case(1, 64, 7);
	greedy_case(2, 8, 30);
	greedy_case(1, 2, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_capacity_edges),
		cmocka_unit_test(test_map_invariants),
		cmocka_unit_test(test_waf_greedy_model),
		cmocka_unit_test(test_gc_stalls_misses),
		cmocka_unit_test(test_gc_trigger_and_stall),
		cmocka_unit_test(test_gc_greedy_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
