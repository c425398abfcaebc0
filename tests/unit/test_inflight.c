// SPDX-License-Identifier: GPL-2.0
/*
 * Lines in flight (cxd_cache_hold(), CXD_ACC_HOLD): a line whose fault has
 * not mapped it yet is never evicted, whatever the policy; a miss that finds
 * only held lines reports busy and changes nothing; and the release tells
 * the holder whether its line is still the one it filled.
 *
 * The interleavings are the module's: each "thread" is an access with
 * CXD_ACC_HOLD whose release comes later, as a fault's does after its PTE
 * insert.
 */
#include "cxd_test.h"

struct tmodel {
	struct cxd_model m;
	void *mem;
};

static void tmodel_init(struct tmodel *t, uint64_t npages, uint32_t nlines,
			uint32_t ways, enum cxd_policy policy)
{
	struct cxd_model_cfg cfg = {
		.npages = npages, .nlines = nlines, .ways = ways,
		.policy = policy, .nand = default_cfg(),
	};

	t->mem = junk_alloc(cxd_model_cfg_state_size(&cfg));
	assert_int_equal(cxd_model_init_cfg(&t->m, &cfg, t->mem), 0);
}

static void tmodel_free(struct tmodel *t)
{
	free(t->mem);
}

/* Two held lines of a 2-line cache: a third miss is busy under any policy. */
static void test_held_not_evicted(void **state)
{
	struct cxd_access a;
	struct tmodel t;
	int p;

	(void)state;
	for (p = 0; p < CXD_POLICY_NR; p++) {
		tmodel_init(&t, 64, 2, 0, p);
		cxd_model_access(&t.m, 1, CXD_ACC_HOLD, 0, &a);
		assert_false(a.busy);
		cxd_model_access(&t.m, 2, CXD_ACC_HOLD, 0, &a);
		assert_false(a.busy);
		assert_int_equal(a.nvictims, 0);
		cxd_model_access(&t.m, 3, CXD_ACC_HOLD, 0, &a);
		assert_true(a.busy);
		assert_int_equal(a.nvictims, 0);
		assert_false(cxd_cache_resident(&t.m.cache, 3));
		assert_int_equal(t.m.stats.misses, 2);	/* the busy one not counted */
		/* The holders' releases succeed: nobody took their lines. */
		assert_int_equal(cxd_cache_release(&t.m.cache, 2), 0);
		/* Now page 2 is the only evictable line. */
		cxd_model_access(&t.m, 3, CXD_ACC_HOLD, 0, &a);
		assert_false(a.busy);
		assert_int_equal(a.nvictims, 1);
		assert_int_equal(a.victims[0].page, 2);
		assert_int_equal(cxd_cache_release(&t.m.cache, 1), 0);
		assert_int_equal(cxd_cache_release(&t.m.cache, 3), 0);
		assert_int_equal(cxd_cache_release(&t.m.cache, 3), -1);	/* not held */
		tmodel_free(&t);
	}
}

/*
 * The review's livelock under LIFO: T1 fills P and, before it maps P, T2's
 * miss evicts the newest line. Without holds that is P; with P held, T2
 * takes the other line.
 */
static void test_lifo_skips_inflight(void **state)
{
	struct cxd_access a;
	struct tmodel t;

	(void)state;
	tmodel_init(&t, 64, 4, 0, CXD_POLICY_LIFO);
	cxd_model_access(&t.m, 10, 0, 0, &a);
	cxd_model_access(&t.m, 11, 0, 0, &a);
	cxd_model_access(&t.m, 12, 0, 0, &a);
	cxd_model_access(&t.m, 13, CXD_ACC_HOLD, 0, &a);	/* T1: P = 13 */
	cxd_model_access(&t.m, 14, CXD_ACC_HOLD, 0, &a);	/* T2 */
	assert_int_equal(a.nvictims, 1);
	assert_int_not_equal(a.victims[0].page, 13);
	assert_int_equal(a.victims[0].page, 12);	/* newest unheld */
	assert_int_equal(cxd_cache_release(&t.m.cache, 13), 0);
	assert_int_equal(cxd_cache_release(&t.m.cache, 14), 0);
	tmodel_free(&t);
}

/* One way per set: the only line of the set held makes the set busy. */
static void test_ways1_busy(void **state)
{
	struct cxd_access a;
	struct tmodel t;

	(void)state;
	tmodel_init(&t, 64, 4, 1, CXD_POLICY_FIFO);
	cxd_model_access(&t.m, 1, CXD_ACC_HOLD, 0, &a);	/* set 1 */
	cxd_model_access(&t.m, 5, CXD_ACC_HOLD, 0, &a);	/* set 1 too */
	assert_true(a.busy);
	cxd_model_access(&t.m, 2, CXD_ACC_HOLD, 0, &a);	/* set 2: free */
	assert_false(a.busy);
	assert_int_equal(cxd_cache_release(&t.m.cache, 1), 0);
	cxd_model_access(&t.m, 5, CXD_ACC_HOLD, 0, &a);
	assert_false(a.busy);
	assert_int_equal(a.victims[0].page, 1);
	tmodel_free(&t);
}

/*
 * The review's lost write-back: T1 write-misses P; T2's miss evicts P (a
 * write-back); T3's prefetch brings P back clean; T1 then finds P resident
 * and would keep a writable PTE on a clean line. With P held, T2 cannot
 * evict it, and T1's release confirms the line is its own, still dirty.
 */
static void test_identity_after_refill(void **state)
{
	struct cxd_access a;
	struct tmodel t;

	(void)state;
	tmodel_init(&t, 64, 2, 0, CXD_POLICY_FIFO);
	t.m.prefetch = CXD_PF_NEXT;
	t.m.prefetch_degree = 1;
	cxd_model_access(&t.m, 20, CXD_ACC_WRITE | CXD_ACC_HOLD, 0, &a); /* T1 */
	/* its own prefetch of 21 filled the second line */
	cxd_model_access(&t.m, 30, 0, 0, &a);			/* T2 */
	assert_int_equal(a.nvictims >= 1, 1);
	assert_int_not_equal(a.victims[0].page, 20);
	assert_int_equal(t.m.stats.writebacks, 0);
	cxd_model_access(&t.m, 19, 0, 0, &a);		/* T3: prefetches 20 */
	assert_true(cxd_cache_dirty(&t.m.cache, 20));
	assert_int_equal(cxd_cache_release(&t.m.cache, 20), 0);
	tmodel_free(&t);
}

/* The background drain leaves held lines alone. */
static void test_drain_skips_held(void **state)
{
	struct cxd_victim v[8];
	struct cxd_access a;
	struct tmodel t;
	uint32_t n, i;

	(void)state;
	tmodel_init(&t, 64, 4, 0, CXD_POLICY_LRU);
	t.m.drain_low_pct = 0;
	for (i = 0; i < 4; i++)
		cxd_model_access(&t.m, i, i == 0 ? CXD_ACC_HOLD : 0, 0, &a);
	n = cxd_model_drain(&t.m, 0, v, 8);
	assert_int_equal(n, 3);
	for (i = 0; i < n; i++)
		assert_int_not_equal(v[i].page, 0);
	assert_true(cxd_cache_resident(&t.m.cache, 0));
	tmodel_free(&t);
}

/*
 * A held line passed over goes back at the newest end of its queue (it is
 * in flight, i.e. just inserted): under FIFO, once released it is evicted
 * after the lines that were newer than it, not before them.
 */
static void test_passed_over_requeued_at_tail(void **state)
{
	static const uint64_t after[] = { 3, 4, 1, 5 };
	struct cxd_access a;
	struct tmodel t;
	unsigned int i;

	(void)state;
	tmodel_init(&t, 64, 4, 0, CXD_POLICY_FIFO);
	cxd_model_access(&t.m, 1, CXD_ACC_HOLD, 0, &a);
	for (i = 2; i <= 4; i++)
		cxd_model_access(&t.m, i, 0, 0, &a);
	cxd_model_access(&t.m, 5, 0, 0, &a);	/* 1 held: 2 goes; 3 4 1 5 */
	assert_int_equal(a.nvictims, 1);
	assert_int_equal(a.victims[0].page, 2);
	assert_int_equal(cxd_cache_release(&t.m.cache, 1), 0);
	for (i = 0; i < 4; i++) {
		cxd_model_access(&t.m, 6 + i, 0, 0, &a);
		assert_int_equal(a.nvictims, 1);
		assert_int_equal(a.victims[0].page, after[i]);
	}
	tmodel_free(&t);
}

/* A policy switch keeps holds. */
static void test_policy_switch_keeps_hold(void **state)
{
	struct cxd_access a;
	struct tmodel t;

	(void)state;
	tmodel_init(&t, 64, 2, 0, CXD_POLICY_S3FIFO);
	cxd_model_access(&t.m, 1, CXD_ACC_HOLD, 0, &a);
	cxd_model_access(&t.m, 2, 0, 0, &a);
	assert_int_equal(cxd_cache_set_policy(&t.m.cache, CXD_POLICY_FIFO), 0);
	cxd_model_access(&t.m, 3, 0, 0, &a);
	assert_int_equal(a.victims[0].page, 2);
	assert_int_equal(cxd_cache_release(&t.m.cache, 1), 0);
	tmodel_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held_not_evicted),
		cmocka_unit_test(test_lifo_skips_inflight),
		cmocka_unit_test(test_ways1_busy),
		cmocka_unit_test(test_identity_after_refill),
		cmocka_unit_test(test_drain_skips_held),
		cmocka_unit_test(test_policy_switch_keeps_hold),
		cmocka_unit_test(test_passed_over_requeued_at_tail),
	};

	return cmocka_run_group_tests_name("inflight", tests, NULL, NULL);
}
