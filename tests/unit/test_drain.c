// SPDX-License-Identifier: GPL-2.0
/*
 * Background write-back drain (writeback = drain): watermarks, victims,
 * write-backs, set-associative round robin, random on non-full sets.
 */
#include "cxd_test.h"

struct fixture {
	struct cxd_model m;
	void *mem;
};

static struct fixture *make(uint64_t npages, uint32_t nlines, uint32_t ways,
			    enum cxd_policy policy)
{
	struct cxd_model_cfg cfg = {
		.npages = npages, .nlines = nlines, .ways = ways,
		.policy = policy, .nand = default_cfg(),
	};
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->mem = junk_alloc(cxd_model_cfg_state_size(&cfg));
	assert_int_equal(cxd_model_init_cfg(&f->m, &cfg, f->mem), 0);
	return f;
}

static void drop(struct fixture *f)
{
	free(f->mem);
	free(f);
}

static void write_pages(struct cxd_model *m, uint64_t first, uint64_t n,
			struct cxd_access *last)
{
	uint64_t p;

	for (p = first; p < first + n; p++)
		cxd_model_access(m, p, CXD_ACC_WRITE, p * 1000000, last);
}

/* Off by default: no drain is asked for, even with a full cache. */
static void test_off_by_default(void **state __attribute__((unused)))
{
	struct fixture *f = make(1024, 100, 0, CXD_POLICY_FIFO);
	struct cxd_access acc;

	write_pages(&f->m, 0, 100, &acc);
	assert_false(acc.drain);
	assert_int_equal(f->m.stats.drain_evictions, 0);
	drop(f);
}

/* 100 lines, 95% -> 85%: the 96th line asks for a drain of 11 dirty lines. */
static void test_watermarks(void **state __attribute__((unused)))
{
	struct fixture *f = make(1024, 100, 0, CXD_POLICY_FIFO);
	struct cxd_victim out[64];
	struct cxd_access acc;
	uint32_t n, i;

	f->m.writeback = CXD_WB_DRAIN;
	write_pages(&f->m, 0, 95, &acc);
	assert_false(acc.drain);
	write_pages(&f->m, 95, 1, &acc);
	assert_true(acc.drain);

	n = cxd_model_drain(&f->m, 200000000, out, 64);
	assert_int_equal(n, 11);
	assert_int_equal(f->m.cache.used, 85);
	for (i = 0; i < n; i++) {	/* FIFO: the oldest pages, all dirty */
		assert_int_equal(out[i].page, i);
		assert_true(out[i].dirty);
		assert_false(cxd_cache_resident(&f->m.cache, i));
	}
	assert_int_equal(f->m.stats.drain_evictions, 11);
	assert_int_equal(f->m.stats.evictions, 11);
	assert_int_equal(f->m.stats.dirty_evictions, 11);
	assert_int_equal(f->m.stats.writebacks, 11);

	/* Below the low mark: nothing more to drain. */
	assert_int_equal(cxd_model_drain(&f->m, 300000000, out, 64), 0);

	/* The next miss finds a free line: no victim on the miss path. */
	cxd_model_access(&f->m, 500, 0, 400000000, &acc);
	assert_false(acc.hit);
	assert_int_equal(acc.nvictims, 0);
	assert_false(acc.drain);
	drop(f);
}

/*
 * The drain's write-backs are programmed at the drain's time and occupy the
 * NAND: on one channel with one die, two dirty victims drained at T take
 * the channel for two transfers and the die for tPROG twice (the second
 * program's transfer overlaps the first tPROG). A read on that die arriving
 * at T starts when the second program ends and completes after tR and its
 * own transfer.
 */
static void test_drain_nand_timing(void **state __attribute__((unused)))
{
	struct cxd_model_cfg cfg = {
		.npages = 1024, .nlines = 10, .ways = 0,
		.policy = CXD_POLICY_FIFO, .nand = test_cfg(1, 1, 4096),
	};
	struct cxd_victim out[10];
	struct cxd_access acc;
	const uint64_t t = 100000000;
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->mem = junk_alloc(cxd_model_cfg_state_size(&cfg));
	assert_int_equal(cxd_model_init_cfg(&f->m, &cfg, f->mem), 0);
	f->m.writeback = CXD_WB_DRAIN;
	write_pages(&f->m, 0, 10, &acc);	/* 95% of 10 is 9: drain */
	assert_true(acc.drain);
	assert_int_equal(f->m.nand.die_busy[0], 10 * T_R);

	/* 85% of 10 lines is 8: two victims, pages 0 and 1, both dirty */
	assert_int_equal(cxd_model_drain(&f->m, t, out, 10), 2);
	assert_int_equal(out[0].page, 0);
	assert_int_equal(out[1].page, 1);
	assert_true(out[0].dirty && out[1].dirty);
	assert_int_equal(f->m.nand.chan_free[0], t + 2 * XFER_4K);
	assert_int_equal(f->m.nand.die_free[0], t + XFER_4K + 2 * T_PROG);
	assert_int_equal(f->m.nand.die_busy[0], 10 * T_R + 2 * T_PROG);

	/* a read miss at T waits for both programs, then pays tR + transfer */
	cxd_model_access(&f->m, 500, 0, t, &acc);
	assert_false(acc.hit);
	assert_int_equal(acc.nvictims, 0);
	assert_int_equal(acc.read.start_ns, t + XFER_4K + 2 * T_PROG);
	assert_int_equal(acc.done_ns,
			 t + XFER_4K + 2 * T_PROG + T_R + XFER_4K);
	drop(f);
}

/* @max bounds one call; repeated calls reach the low mark. */
static void test_batches(void **state __attribute__((unused)))
{
	struct fixture *f = make(1024, 100, 0, CXD_POLICY_LRU);
	struct cxd_victim out[4];
	struct cxd_access acc;
	uint32_t total = 0, n;

	f->m.writeback = CXD_WB_DRAIN;
	f->m.drain_low_pct = 50;
	write_pages(&f->m, 0, 100, &acc);
	while ((n = cxd_model_drain(&f->m, 200000000, out, 4)) == 4)
		total += n;
	total += n;
	assert_int_equal(total, 50);
	assert_int_equal(f->m.cache.used, 50);
	drop(f);
}

/* 4 sets of 4 ways, drained to half: two lines from every set. */
static void test_sets_round_robin(void **state __attribute__((unused)))
{
	struct fixture *f = make(1024, 16, 4, CXD_POLICY_FIFO);
	struct cxd_victim out[16];
	struct cxd_access acc;
	uint32_t per_set[4] = { 0 }, i, n;

	f->m.writeback = CXD_WB_DRAIN;
	f->m.drain_low_pct = 50;
	write_pages(&f->m, 0, 16, &acc);
	n = cxd_model_drain(&f->m, 100000000, out, 16);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++)
		per_set[out[i].page % 4]++;
	for (i = 0; i < 4; i++)
		assert_int_equal(per_set[i], 2);
	drop(f);
}

/* random on sets that are no longer full never picks a free line. */
static void test_random_partial_sets(void **state __attribute__((unused)))
{
	struct fixture *f = make(4096, 64, 8, CXD_POLICY_RANDOM);
	struct cxd_victim out[64];
	struct cxd_access acc;
	bool seen[4096] = { false };
	uint32_t n, i;

	f->m.writeback = CXD_WB_DRAIN;
	f->m.drain_low_pct = 75;
	write_pages(&f->m, 0, 64, &acc);
	n = cxd_model_drain(&f->m, 100000000, out, 64);
	assert_int_equal(n, 16);
	f->m.drain_low_pct = 10;	/* now drain sets that are not full */
	n += cxd_model_drain(&f->m, 100000000, out + n, 64 - n);
	assert_int_equal(n, 64 - 6);
	for (i = 0; i < n; i++) {
		assert_true(out[i].page < 64);
		assert_false(seen[out[i].page]);	/* each page once */
		seen[out[i].page] = true;
		assert_false(cxd_cache_resident(&f->m.cache, out[i].page));
	}
	assert_int_equal(f->m.cache.used, 6);
	drop(f);
}

static void test_names(void **state __attribute__((unused)))
{
	assert_string_equal(cxd_writeback_name(CXD_WB_EVICT), "evict");
	assert_string_equal(cxd_writeback_name(CXD_WB_DRAIN), "drain");
	assert_null(cxd_writeback_name(CXD_WB_NR));
	assert_int_equal(cxd_writeback_parse("drain"), CXD_WB_DRAIN);
	assert_int_equal(cxd_writeback_parse("evict"), CXD_WB_EVICT);
	assert_int_equal(cxd_writeback_parse("drai"), -1);
	assert_int_equal(cxd_writeback_parse("drainx"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_by_default),
		cmocka_unit_test(test_watermarks),
		cmocka_unit_test(test_drain_nand_timing),
		cmocka_unit_test(test_batches),
		cmocka_unit_test(test_sets_round_robin),
		cmocka_unit_test(test_random_partial_sets),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
