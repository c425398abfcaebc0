// SPDX-License-Identifier: GPL-2.0
/*
 * Prefetch through the whole model: next-N and stride, timing of prefetch
 * reads, late hits, pollution, victims reported to the caller.
 */
#include "cxd_test.h"

struct pf_fix {
	struct cxd_model m;
	void *mem;
};

static struct pf_fix *pf_new(uint64_t npages, uint32_t nlines, uint32_t ways,
			     const struct cxd_nand_cfg *nand,
			     enum cxd_policy pol, enum cxd_prefetch_mode mode,
			     uint32_t degree)
{
	struct cxd_model_cfg cfg = {
		.npages = npages,
		.nlines = nlines,
		.ways = ways,
		.policy = pol,
		.nand = *nand,
	};
	struct pf_fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->mem = junk_alloc(cxd_model_cfg_state_size(&cfg));
	assert_int_equal(cxd_model_init_cfg(&f->m, &cfg, f->mem), 0);
	f->m.prefetch = mode;
	f->m.prefetch_degree = degree;
	return f;
}

static void pf_free(struct pf_fix *f)
{
	free(f->mem);
	free(f);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(cxd_prefetch_name(CXD_PF_NONE), "none");
	assert_string_equal(cxd_prefetch_name(CXD_PF_NEXT), "next");
	assert_string_equal(cxd_prefetch_name(CXD_PF_STRIDE), "stride");
	assert_null(cxd_prefetch_name(CXD_PF_NR));
	assert_int_equal(cxd_prefetch_parse("next"), CXD_PF_NEXT);
	assert_int_equal(cxd_prefetch_parse("stride"), CXD_PF_STRIDE);
	assert_int_equal(cxd_prefetch_parse("none"), CXD_PF_NONE);
	assert_int_equal(cxd_prefetch_parse("next\n"), -1);
	assert_int_equal(cxd_prefetch_parse(NULL), -1);
}

/* Tagged next-N: timing, late hit, re-trigger on first use. */
static void test_next_timing(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct pf_fix *f = pf_new(1024, 64, 0, &c, CXD_POLICY_FIFO,
				  CXD_PF_NEXT, 2);
	struct cxd_access r;

	(void)state;
	cxd_model_access(&f->m, 0, 0, 0, &r);
	assert_false(r.hit);
	assert_int_equal(r.done_ns, T_R + XFER_4K);
	assert_int_equal(r.nprefetched, 2);
	assert_int_equal(r.prefetched[0], 1);
	assert_int_equal(r.prefetched[1], 2);
	/* other channels: in parallel with the demand read */
	assert_int_equal(r.prefetch_done_ns[0], T_R + XFER_4K);
	assert_int_equal(r.prefetch_done_ns[1], T_R + XFER_4K);
	assert_int_equal(r.nvictims, 0);
	assert_int_equal(f->m.stats.prefetch_issued, 2);
	assert_int_equal(f->m.stats.misses, 1);

	/* page 1 while its read is in flight: late, waits for the rest */
	cxd_model_access(&f->m, 1, 0, 1000, &r);
	assert_true(r.hit);
	assert_true(r.prefetch_hit);
	assert_true(r.late);
	assert_int_equal(r.done_ns, T_R + XFER_4K);
	/* first use re-triggers: 2 is resident, 3 is fetched */
	assert_int_equal(r.nprefetched, 1);
	assert_int_equal(r.prefetched[0], 3);
	assert_int_equal(r.prefetch_done_ns[0], 1000 + T_R + XFER_4K);
	assert_int_equal(f->m.stats.prefetch_useful, 1);
	assert_int_equal(f->m.stats.prefetch_late, 1);
	assert_int_equal(f->m.stats.prefetch_late_ns, T_R + XFER_4K - 1000);

	/* page 2 long after: a timely prefetch hit */
	cxd_model_access(&f->m, 2, 0, 100000, &r);
	assert_true(r.hit);
	assert_true(r.prefetch_hit);
	assert_false(r.late);
	assert_int_equal(r.done_ns, 100000);
	/* page 2 again: an ordinary hit, no trigger */
	cxd_model_access(&f->m, 2, 0, 200000, &r);
	assert_true(r.hit);
	assert_false(r.prefetch_hit);
	assert_int_equal(r.nprefetched, 0);
	assert_int_equal(f->m.stats.hits, 3);
	assert_int_equal(f->m.stats.prefetch_useful, 2);
	assert_int_equal(f->m.stats.prefetch_issued, 4);
	pf_free(f);
}

/* Prefetch reads queue behind the demand read on a shared die/channel. */
static void test_prefetch_after_demand(void **state)
{
	struct cxd_nand_cfg c = test_cfg(1, 1, 4096);
	struct pf_fix *f = pf_new(1024, 64, 0, &c, CXD_POLICY_FIFO,
				  CXD_PF_NEXT, 2);
	struct cxd_access r;

	(void)state;
	cxd_model_access(&f->m, 10, 0, 0, &r);
	assert_int_equal(r.done_ns, T_R + XFER_4K);
	assert_int_equal(r.read.start_ns, 0);
	assert_int_equal(r.prefetch_done_ns[0], T_R + 2 * XFER_4K);
	assert_int_equal(r.prefetch_done_ns[1], T_R + 3 * XFER_4K);
	assert_int_equal(f->m.nand.die_busy[0], 3 * T_R);
	/* a demand miss right after queues behind the prefetches */
	cxd_model_access(&f->m, 50, 0, 0, &r);
	assert_int_equal(r.read.start_ns, 3 * T_R);
	assert_int_equal(r.done_ns, T_R + 4 * XFER_4K);
	assert_int_equal(f->m.stats.queue_ns, 3 * T_R);
	pf_free(f);
}

/* Victims of prefetches are reported; untouched ones count as polluting. */
static void test_victims_and_pollution(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct pf_fix *f = pf_new(1024, 2, 0, &c, CXD_POLICY_FIFO,
				  CXD_PF_NEXT, 1);
	struct cxd_access r;

	(void)state;
	cxd_model_access(&f->m, 0, CXD_ACC_WRITE, 0, &r);
	assert_int_equal(r.nprefetched, 1);
	assert_int_equal(f->m.cache.used, 2);
	cxd_model_access(&f->m, 10, 0, 1000000, &r);
	assert_int_equal(r.nvictims, 2);
	assert_int_equal(r.victims[0].page, 0);
	assert_true(r.victims[0].dirty);
	assert_false(r.victims[0].prefetched);
	assert_int_equal(r.victims[1].page, 1);
	assert_false(r.victims[1].dirty);
	assert_true(r.victims[1].prefetched);
	assert_int_equal(acc_victim(&r), 0);
	assert_true(acc_victim_dirty(&r));
	assert_int_equal(r.prefetched[0], 11);
	assert_true(cxd_cache_resident(&f->m.cache, 10));
	assert_true(cxd_cache_resident(&f->m.cache, 11));
	assert_int_equal(f->m.stats.prefetch_polluting, 1);
	assert_int_equal(f->m.stats.evictions, 2);
	assert_int_equal(f->m.stats.dirty_evictions, 1);
	assert_int_equal(f->m.stats.clean_evictions, 1);
	assert_int_equal(f->m.stats.writebacks, 1);
	pf_free(f);

	/* LIFO: prefetches never evict the demand page */
	f = pf_new(1024, 2, 0, &c, CXD_POLICY_LIFO, CXD_PF_NEXT, 1);
	cxd_model_access(&f->m, 0, 0, 0, &r);
	cxd_model_access(&f->m, 5, 0, 1000000, &r);
	assert_int_equal(r.nvictims, 2);
	assert_int_equal(r.victims[0].page, 1);
	assert_int_equal(r.victims[1].page, 0);
	assert_true(cxd_cache_resident(&f->m.cache, 5));
	assert_true(cxd_cache_resident(&f->m.cache, 6));
	pf_free(f);

	/* direct-mapped: a prefetch whose only line is the demand's is dropped */
	f = pf_new(1024, 4, 1, &c, CXD_POLICY_FIFO, CXD_PF_NEXT, 4);
	cxd_model_access(&f->m, 0, 0, 0, &r);
	assert_int_equal(r.nprefetched, 3);
	assert_int_equal(r.nvictims, 0);
	assert_true(cxd_cache_resident(&f->m.cache, 0));
	assert_false(cxd_cache_resident(&f->m.cache, 4));
	pf_free(f);
}

/* Degree is clamped to CXD_MAX_PREFETCH_DEGREE; pages past the end skipped. */
static void test_degree_bounds(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct pf_fix *f = pf_new(1024, 64, 0, &c, CXD_POLICY_FIFO,
				  CXD_PF_NEXT, 100);
	struct cxd_access r;
	unsigned int i;

	(void)state;
	cxd_model_access(&f->m, 0, 0, 0, &r);
	assert_int_equal(r.nprefetched, CXD_MAX_PREFETCH_DEGREE);
	assert_int_equal(r.prefetched[15], 16);
	cxd_model_access(&f->m, 1020, 0, 0, &r);
	assert_int_equal(r.nprefetched, 3);
	f->m.prefetch_degree = 0;	/* counts as 1 */
	cxd_model_access(&f->m, 500, 0, 0, &r);
	assert_int_equal(r.nprefetched, 1);
	/* a full cache of prefetches: at most 1 + 16 victims */
	cxd_model_access(&f->m, 600, 0, 0, &r);
	assert_int_equal(f->m.cache.used, 17 + 4 + 2 + 2);
	f->m.prefetch_degree = 16;
	cxd_model_access(&f->m, 200, 0, 0, &r);	/* 17 lines more: 42 */
	cxd_model_access(&f->m, 300, 0, 0, &r);	/* 59 */
	f->m.prefetch_degree = 4;
	cxd_model_access(&f->m, 400, 0, 0, &r);	/* 64: full */
	assert_int_equal(f->m.cache.used, 64);
	assert_int_equal(f->m.stats.evictions, 0);
	f->m.prefetch_degree = 16;
	cxd_model_access(&f->m, 700, 0, 0, &r);
	assert_true(r.nvictims <= CXD_MAX_VICTIMS);
	/* FIFO: the demand miss evicts page 0, its 16 prefetches 1..16 */
	assert_false(r.hit);
	assert_int_equal(r.nvictims, CXD_MAX_VICTIMS);
	assert_int_equal(r.nprefetched, 16);
	for (i = 0; i < CXD_MAX_VICTIMS; i++) {
		assert_int_equal(r.victims[i].page, i);
		assert_false(r.victims[i].dirty);
		/* 1..16 were prefetched by the first access, never used */
		assert_int_equal(r.victims[i].prefetched, i > 0);
		assert_false(cxd_cache_resident(&f->m.cache, i));
	}
	for (i = 0; i < 16; i++) {
		assert_int_equal(r.prefetched[i], 701 + i);
		assert_true(cxd_cache_resident(&f->m.cache, 701 + i));
	}
	assert_int_equal(acc_victim(&r), 0);
	assert_true(cxd_cache_resident(&f->m.cache, 700));
	assert_int_equal(f->m.cache.used, 64);
	assert_int_equal(f->m.stats.evictions, CXD_MAX_VICTIMS);
	assert_int_equal(f->m.stats.prefetch_polluting, 16);
	pf_free(f);
}

/*
 * The degree is clamped before resident pages are skipped: with degree 100,
 * next-N looks at page+1 .. page+16 only, so resident pages among them
 * shorten the batch instead of pushing it further out.
 */
static void test_degree_clamp_window(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct pf_fix *f = pf_new(1024, 64, 0, &c, CXD_POLICY_FIFO,
				  CXD_PF_NEXT, 4);
	struct cxd_access r;
	unsigned int i;

	(void)state;
	cxd_model_access(&f->m, 203, 0, 0, &r);	/* 204 .. 207 prefetched */
	assert_int_equal(r.nprefetched, 4);
	f->m.prefetch_degree = 100;
	cxd_model_access(&f->m, 200, 0, 0, &r);
	/* 201, 202, then 208 .. 216: 203 .. 207 are resident */
	assert_int_equal(r.nprefetched, 11);
	assert_int_equal(r.prefetched[0], 201);
	assert_int_equal(r.prefetched[1], 202);
	for (i = 2; i < 11; i++)
		assert_int_equal(r.prefetched[i], 206 + i);
	assert_false(cxd_cache_resident(&f->m.cache, 217));
	pf_free(f);
}

/* Stride: detection after a repeated stride, distance, interleaving. */
static void test_stride(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct pf_fix *f = pf_new(4096, 256, 0, &c, CXD_POLICY_FIFO,
				  CXD_PF_STRIDE, 2);
	struct cxd_access r;

	(void)state;
	cxd_model_access(&f->m, 0, 0, 0, &r);
	assert_int_equal(r.nprefetched, 0);
	cxd_model_access(&f->m, 3, 0, 0, &r);
	assert_int_equal(r.nprefetched, 0);
	cxd_model_access(&f->m, 6, 0, 0, &r);
	assert_int_equal(r.nprefetched, 2);
	assert_int_equal(r.prefetched[0], 9);
	assert_int_equal(r.prefetched[1], 12);
	cxd_model_access(&f->m, 9, 0, 1000000, &r);
	assert_true(r.prefetch_hit);
	assert_int_equal(r.nprefetched, 1);
	assert_int_equal(r.prefetched[0], 15);

	/* negative stride, distance 2 */
	f->m.prefetch_distance = 2;
	cxd_model_access(&f->m, 1000, 0, 0, &r);
	cxd_model_access(&f->m, 998, 0, 0, &r);
	cxd_model_access(&f->m, 996, 0, 0, &r);
	assert_int_equal(r.nprefetched, 2);
	assert_int_equal(r.prefetched[0], 992);
	assert_int_equal(r.prefetched[1], 990);

	/* two interleaved streams are told apart */
	f->m.prefetch_distance = 1;
	cxd_model_access(&f->m, 2000, 0, 0, &r);
	cxd_model_access(&f->m, 3000, 0, 0, &r);
	cxd_model_access(&f->m, 2005, 0, 0, &r);
	cxd_model_access(&f->m, 3007, 0, 0, &r);
	cxd_model_access(&f->m, 2010, 0, 0, &r);
	assert_int_equal(r.nprefetched, 2);
	assert_int_equal(r.prefetched[0], 2015);
	cxd_model_access(&f->m, 3014, 0, 0, &r);
	assert_int_equal(r.nprefetched, 2);
	assert_int_equal(r.prefetched[0], 3021);
	assert_int_equal(r.prefetched[1], 3028);

	/* near page 0 a negative stride stops at the start */
	cxd_model_access(&f->m, 35, 0, 0, &r);
	cxd_model_access(&f->m, 25, 0, 0, &r);
	cxd_model_access(&f->m, 15, 0, 0, &r);
	assert_int_equal(r.nprefetched, 1);
	assert_int_equal(r.prefetched[0], 5);
	pf_free(f);
}

/*
 * The stride table holds CXD_PF_STREAMS streams; a new stream replaces the
 * least recently used one. Train 16 streams (1000 pages apart, stride 2 +
 * k), start a 17th: stream 0, the oldest, is forgotten, stream 15 is kept.
 */
static void test_stride_table_lru(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct pf_fix *f = pf_new(65536, 1024, 0, &c, CXD_POLICY_FIFO,
				  CXD_PF_STRIDE, 1);
	struct cxd_access r;
	uint64_t k, base, s;

	(void)state;
	for (k = 0; k < CXD_PF_STREAMS; k++) {
		base = 1000 * k;
		s = 2 + k;
		cxd_model_access(&f->m, base, 0, 0, &r);
		cxd_model_access(&f->m, base + s, 0, 0, &r);
		cxd_model_access(&f->m, base + 2 * s, 0, 0, &r);
		assert_int_equal(r.nprefetched, 1);
		assert_int_equal(r.prefetched[0], base + 3 * s);
	}
	cxd_model_access(&f->m, 50000, 0, 0, &r);	/* stream 17 */
	assert_int_equal(r.nprefetched, 0);

	/* stream 15 still knows its stride: its first use prefetches on */
	base = 15000;
	s = 17;
	cxd_model_access(&f->m, base + 3 * s, 0, 0, &r);
	assert_true(r.prefetch_hit);
	assert_int_equal(r.nprefetched, 1);
	assert_int_equal(r.prefetched[0], base + 4 * s);
	/* stream 0 was replaced: the same access starts from scratch */
	cxd_model_access(&f->m, 0 + 3 * 2, 0, 0, &r);
	assert_true(r.prefetch_hit);
	assert_int_equal(r.nprefetched, 0);
	pf_free(f);
}

/* Strides up to CXD_PF_WINDOW pages are tracked, larger ones are not. */
static void test_stride_window(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct pf_fix *f = pf_new(65536, 1024, 0, &c, CXD_POLICY_FIFO,
				  CXD_PF_STRIDE, 1);
	struct cxd_access r;
	const uint64_t w = CXD_PF_WINDOW;

	(void)state;
	cxd_model_access(&f->m, 1000, 0, 0, &r);
	cxd_model_access(&f->m, 1000 + w, 0, 0, &r);
	cxd_model_access(&f->m, 1000 + 2 * w, 0, 0, &r);
	assert_int_equal(r.nprefetched, 1);
	assert_int_equal(r.prefetched[0], 1000 + 3 * w);

	cxd_model_access(&f->m, 10000, 0, 0, &r);
	cxd_model_access(&f->m, 10000 + w + 1, 0, 0, &r);
	cxd_model_access(&f->m, 10000 + 2 * (w + 1), 0, 0, &r);
	assert_int_equal(r.nprefetched, 0);
	pf_free(f);
}

/* A cyclic scan with next-N: every page after the first per pass is useful. */
static void test_sequential_coverage(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct pf_fix *f = pf_new(4096, 64, 0, &c, CXD_POLICY_FIFO,
				  CXD_PF_NEXT, 4);
	struct cxd_access r;
	uint64_t p, now = 0;

	(void)state;
	for (p = 0; p < 1000; p++) {
		cxd_model_access(&f->m, p, 0, now, &r);
		now = r.done_ns + 100000;
	}
	assert_int_equal(f->m.stats.misses, 1);
	assert_int_equal(f->m.stats.prefetch_useful, 999);
	assert_int_equal(f->m.stats.prefetch_issued, 1003);
	assert_int_equal(f->m.stats.prefetch_late, 0);
	pf_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_next_timing),
		cmocka_unit_test(test_prefetch_after_demand),
		cmocka_unit_test(test_victims_and_pollution),
		cmocka_unit_test(test_degree_bounds),
		cmocka_unit_test(test_degree_clamp_window),
		cmocka_unit_test(test_stride),
		cmocka_unit_test(test_stride_table_lru),
		cmocka_unit_test(test_stride_window),
		cmocka_unit_test(test_sequential_coverage),
	};

	return cmocka_run_group_tests_name("prefetch", tests, NULL, NULL);
}
