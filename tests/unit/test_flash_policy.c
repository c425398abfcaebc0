// SPDX-License-Identifier: GPL-2.0
/*
 * The flash-aware policies: CFLRU (Park et al., CASES 2006) and 2Q (Johnson
 * and Shasha, VLDB 1994). Short traces checked by hand, CFLRU against LRU on
 * a write-heavy trace, set associativity and O(1) bookkeeping.
 */
#include "cxd_test.h"

struct fp_fix {
	struct cxd_cache c;
	void *mem;
};

static struct fp_fix *fp_new(uint64_t npages, uint32_t nlines, uint32_t ways,
			     enum cxd_policy p)
{
	struct fp_fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->mem = junk_alloc(cxd_cache_state_size_ways(npages, nlines, ways));
	assert_int_equal(cxd_cache_init_ways(&f->c, npages, nlines, ways, p,
					     f->mem), 0);
	return f;
}

static void fp_free(struct fp_fix *f)
{
	free(f->mem);
	free(f);
}

/* A miss: insert @page, return the victim (CXD_NO_PAGE if none). */
static uint64_t ins(struct fp_fix *f, uint64_t page)
{
	assert_false(cxd_cache_resident(&f->c, page));
	return cache_insert(&f->c, page, NULL);
}

/* Every queue of every set links exactly the set's resident lines. */
static void check_queues(const struct cxd_cache *c)
{
	const struct cxd_queue *qs[3];
	uint32_t s, l, n, total = 0, i;

	for (s = 0; s < c->nsets; s++) {
		qs[0] = &c->sets[s].main;
		qs[1] = &c->sets[s].small;
		qs[2] = &c->sets[s].aux;
		n = 0;
		for (i = 0; i < 3; i++) {
			uint32_t len = 0;

			for (l = qs[i]->head; l != CXD_NO_LINE; l = c->lines[l].next) {
				assert_int_equal(l / c->ways, s);
				assert_int_equal(c->lines[l].page % c->nsets, s);
				len++;
			}
			assert_int_equal(len, qs[i]->len);
			n += len;
		}
		assert_int_equal(n, c->sets[s].used);
		total += n;
	}
	assert_int_equal(total, c->used);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(cxd_policy_name(CXD_POLICY_CFLRU), "cflru");
	assert_string_equal(cxd_policy_name(CXD_POLICY_2Q), "2q");
	assert_int_equal(cxd_policy_parse("cflru"), CXD_POLICY_CFLRU);
	assert_int_equal(cxd_policy_parse("2q"), CXD_POLICY_2Q);
	assert_int_equal(cxd_policy_parse("2Q"), -1);
}

/*
 * CFLRU, 4 lines, window 50% (2 lines). LRU order is written oldest first;
 * [window | working region].
 */
static void test_cflru_hand_trace(void **state)
{
	struct fp_fix *f = fp_new(64, 4, 0, CXD_POLICY_CFLRU);
	uint64_t p;

	(void)state;
	assert_int_equal(f->c.cflru_window, 1);	/* 25% of 4 */
	assert_int_equal(cxd_cache_set_cflru_window(&f->c, 101), -1);
	assert_int_equal(cxd_cache_set_cflru_window(&f->c, 50), 0);
	assert_int_equal(f->c.cflru_window, 2);
	for (p = 0; p < 4; p++)
		assert_int_equal(ins(f, p), CXD_NO_PAGE);
	/* [0 1 | 2 3]; 0 dirtied by a write that skips the policy */
	assert_int_equal(cxd_cache_set_dirty(&f->c, 0), 0);
	/* LRU would evict 0; CFLRU the oldest clean line of the window: 1 */
	assert_int_equal(ins(f, 4), 1);		/* [0d 2 | 3 4] */
	assert_int_equal(ins(f, 5), 2);		/* [0d 3 | 4 5] */
	cxd_cache_touch(&f->c, 3);		/* [0d 4 | 5 3] */
	assert_int_equal(cxd_cache_set_dirty(&f->c, 4), 0);	/* [0d 4d | 5 3] */
	/* no clean line in the window: the least recent line, dirty 0 */
	assert_int_equal(ins(f, 6), 0);		/* [4d 5 | 3 6] */
	assert_true(cxd_cache_dirty(&f->c, 4));
	assert_int_equal(ins(f, 7), 5);		/* [4d 3 | 6 7] */
	assert_int_equal(ins(f, 8), 3);		/* [4d 6 | 7 8] */
	assert_int_equal(ins(f, 9), 6);		/* [4d 7 | 8 9] */
	check_queues(&f->c);
	/*
	 * A window of 0 is LRU. Rebuilding the list puts the old window's
	 * clean lines before its dirty ones: [7 4d 8 9].
	 */
	assert_int_equal(cxd_cache_set_cflru_window(&f->c, 0), 0);
	check_queues(&f->c);
	assert_int_equal(ins(f, 10), 7);
	assert_int_equal(ins(f, 11), 4);
	fp_free(f);
}

/* CFLRU with window 0 evicts exactly as LRU, on any trace. */
static void test_cflru_window0_is_lru(void **state)
{
	struct fp_fix *a = fp_new(512, 32, 8, CXD_POLICY_CFLRU);
	struct fp_fix *b = fp_new(512, 32, 8, CXD_POLICY_LRU);
	uint64_t x = 12345, p, va, vb;
	unsigned int i;

	(void)state;
	assert_int_equal(cxd_cache_set_cflru_window(&a->c, 0), 0);
	for (i = 0; i < 20000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		p = (x >> 33) % 128;
		if (cxd_cache_resident(&a->c, p)) {
			assert_true(cxd_cache_resident(&b->c, p));
			cxd_cache_touch(&a->c, p);
			cxd_cache_touch(&b->c, p);
		} else {
			va = cache_insert(&a->c, p, NULL);
			vb = cache_insert(&b->c, p, NULL);
			assert_int_equal(va, vb);
		}
		if (i % 3 == 0) {
			cxd_cache_set_dirty(&a->c, p);
			cxd_cache_set_dirty(&b->c, p);
		}
	}
	check_queues(&a->c);
	fp_free(a);
	fp_free(b);
}

/*
 * 2Q, 4 lines: Kin = 1 line, Kout = 2 ghosts. A1in and Am written oldest
 * first, A1out as the ghost ring's live entries.
 */
static void test_2q_hand_trace(void **state)
{
	struct fp_fix *f = fp_new(64, 4, 0, CXD_POLICY_2Q);
	uint64_t p;

	(void)state;
	assert_int_equal(f->c.a1in_cap, 1);
	assert_int_equal(f->c.ghost_cap, 2);
	for (p = 0; p < 4; p++)
		assert_int_equal(ins(f, p), CXD_NO_PAGE);	/* A1in 0 1 2 3 */
	assert_int_equal(ins(f, 4), 0);		/* A1in 1 2 3 4, A1out 0 */
	assert_int_equal(ins(f, 0), 1);		/* 0 -> Am; A1out 1 */
	assert_int_equal(f->c.sets[0].main.len, 1);
	assert_int_equal(ins(f, 1), 2);		/* Am 0 1; A1in 3 4; A1out 2 */
	cxd_cache_touch(&f->c, 0);		/* Am 1 0 */
	cxd_cache_touch(&f->c, 3);		/* A1in: ignored */
	assert_int_equal(ins(f, 5), 3);		/* A1in 4 5; A1out 2 3 */
	assert_int_equal(ins(f, 6), 4);		/* A1in 5 6; A1out 3 4 (2 gone) */
	assert_int_equal(ins(f, 2), 5);		/* 2 is new again: A1in 6 2 */
	assert_int_equal(f->c.sets[0].main.len, 2);
	assert_int_equal(ins(f, 4), 6);		/* ghost: Am 1 0 4; A1in 2 */
	assert_int_equal(f->c.sets[0].main.len, 3);
	/* A1in at Kin: Am's least recent (1; 0 was touched) goes */
	assert_int_equal(ins(f, 7), 1);		/* Am 0 4; A1in 2 7 */
	cxd_cache_touch(&f->c, 0);		/* Am 4 0 */
	assert_int_equal(ins(f, 8), 2);		/* A1in over Kin: 2 goes */
	check_queues(&f->c);
	fp_free(f);
}

/*
 * 2Q resists scans: 18 hot pages, each followed by 3 pages never seen
 * again, over a 64-line cache. A hot page comes back after 72 other pages:
 * LRU never keeps it. In 2Q it is ghosted out of A1in after about 64 and
 * comes back while still in A1out (32 ghosts), enters Am and stays, since
 * the scan keeps A1in above Kin.
 */
static void test_2q_scan_resistance(void **state)
{
	static const enum cxd_policy pols[] = { CXD_POLICY_2Q, CXD_POLICY_LRU };
	uint64_t hits[2] = { 0, 0 }, p, scan;
	unsigned int i, j, k;
	struct fp_fix *f;

	(void)state;
	for (k = 0; k < 2; k++) {
		f = fp_new(100000, 64, 0, pols[k]);
		scan = 1000;
		for (i = 0; i < 900; i++) {
			p = i % 18;
			if (cxd_cache_resident(&f->c, p)) {
				hits[k]++;
				cxd_cache_touch(&f->c, p);
			} else {
				cache_insert(&f->c, p, NULL);
			}
			for (j = 0; j < 3; j++)
				ins(f, scan++);
		}
		check_queues(&f->c);
		fp_free(f);
	}
	assert_int_equal(hits[1], 0);
	/* 2Q: every hot access after the first two rounds hits */
	assert_true(hits[0] >= 900 - 2 * 18);
}

/* A write-heavy trace through the model: CFLRU writes back less than LRU. */
static void test_cflru_fewer_writebacks(void **state)
{
	static const enum cxd_policy pols[] = { CXD_POLICY_CFLRU, CXD_POLICY_LRU };
	struct cxd_model_cfg cfg = {
		.npages = 1024,
		.nlines = 64,
		.nand = default_cfg(),
	};
	uint64_t wb[2], miss[2], now = 0, x, p;
	struct cxd_access r;
	struct cxd_model m;
	unsigned int k, i;
	void *mem;

	(void)state;
	for (k = 0; k < 2; k++) {
		cfg.policy = pols[k];
		mem = junk_alloc(cxd_model_cfg_state_size(&cfg));
		assert_int_equal(cxd_model_init_cfg(&m, &cfg, mem), 0);
		x = 99;
		for (i = 0; i < 50000; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			/* 80% of the accesses to 96 pages, half of them writes */
			p = (x >> 40) % 10 < 8 ? (x >> 20) % 96 : (x >> 20) % 1024;
			cxd_model_access(&m, p, (x >> 50) & 1 ? CXD_ACC_WRITE : 0,
					 now, &r);
			now = r.done_ns;
		}
		wb[k] = m.stats.writebacks;
		miss[k] = m.stats.misses;
		assert_int_equal(m.stats.writebacks, m.stats.dirty_evictions);
		free(mem);
	}
	print_message("cflru: %llu write-backs, %llu misses; lru: %llu, %llu\n",
		      (unsigned long long)wb[0], (unsigned long long)miss[0],
		      (unsigned long long)wb[1], (unsigned long long)miss[1]);
	assert_true(wb[0] < wb[1]);
}

/* Set associative: victims stay in the page's set; switches keep state. */
static void test_sets_and_switch(void **state)
{
	static const enum cxd_policy pols[] = { CXD_POLICY_CFLRU, CXD_POLICY_2Q };
	uint64_t p, v, x = 7;
	struct fp_fix *f;
	unsigned int k, i, q;

	(void)state;
	for (k = 0; k < 2; k++) {
		f = fp_new(4096, 64, 8, pols[k]);
		for (i = 0; i < 20000; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			p = (x >> 33) % 512;
			if (cxd_cache_resident(&f->c, p)) {
				cxd_cache_touch(&f->c, p);
			} else {
				v = cache_insert(&f->c, p, NULL);
				if (v != CXD_NO_PAGE)
					assert_int_equal(v % 8, p % 8);
			}
			if ((x >> 60) & 1)
				cxd_cache_set_dirty(&f->c, p);
			if (i % 5000 == 4999) {
				/* round trip through every policy */
				for (q = 0; q < CXD_POLICY_NR; q++) {
					assert_int_equal(cxd_cache_set_policy(&f->c, q), 0);
					check_queues(&f->c);
				}
				assert_int_equal(cxd_cache_set_policy(&f->c, pols[k]), 0);
				assert_int_equal(f->c.used, 64);
			}
		}
		check_queues(&f->c);
		fp_free(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_cflru_hand_trace),
		cmocka_unit_test(test_cflru_window0_is_lru),
		cmocka_unit_test(test_2q_hand_trace),
		cmocka_unit_test(test_2q_scan_resistance),
		cmocka_unit_test(test_cflru_fewer_writebacks),
		cmocka_unit_test(test_sets_and_switch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
