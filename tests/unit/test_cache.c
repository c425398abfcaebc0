// SPDX-License-Identifier: GPL-2.0
/*
 * DRAM cache: shape validation, policy names, FIFO behaviour, dirty bits.
 */
#include "cxd_test.h"

struct cache_fix {
	struct cxd_cache c;
	void *mem;
	uint64_t misses, hits, evictions, dirty_evictions;
};

static struct cache_fix *cache_new(uint64_t npages, uint32_t nlines)
{
	struct cache_fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->mem = junk_alloc(cxd_cache_state_size_ways(npages, nlines, 0));
	assert_int_equal(cxd_cache_init_ways(&f->c, npages, nlines, 0,
					CXD_POLICY_FIFO, f->mem), 0);
	return f;
}

static void cache_free(struct cache_fix *f)
{
	free(f->mem);
	free(f);
}

/* One access as the model does it, counted at cache level. */
static void access_page(struct cache_fix *f, uint64_t page, bool write)
{
	bool vd = true;
	uint64_t v;

	if (cxd_cache_resident(&f->c, page)) {
		f->hits++;
		cxd_cache_touch(&f->c, page);
	} else {
		f->misses++;
		v = cache_insert(&f->c, page, &vd);
		if (v != CXD_NO_PAGE) {
			f->evictions++;
			f->dirty_evictions += vd;
		} else {
			assert_false(vd);
		}
	}
	if (write)
		assert_int_equal(cxd_cache_set_dirty(&f->c, page), 0);
}

static void test_state_size(void **state)
{
	(void)state;
	assert_int_equal(cxd_cache_state_size_ways(10, 0, 0), 0);
	assert_int_equal(cxd_cache_state_size_ways(0, 0, 0), 0);
	assert_int_equal(cxd_cache_state_size_ways(0, 1, 0), 0);
	assert_int_equal(cxd_cache_state_size_ways(10, 11, 0), 0);
	assert_int_equal(cxd_cache_state_size_ways((1ull << 32) + 1, 1, 0), 0);
	assert_true(cxd_cache_state_size_ways(1ull << 32, 1, 0) > 0);
	assert_int_equal(cxd_cache_state_size_ways(~0ull, 1, 0), 0);
	/*
	 * lop 40 + lines 3 * 24 (struct cxd_line) + ghost 16 + dirty_seq 16
	 * + one set 44, padded to 48
	 */
	assert_int_equal(cxd_cache_state_size_ways(10, 3, 0), 192);
	/* lop 16 + 72 + 16 + 16 + 48 */
	assert_int_equal(cxd_cache_state_size_ways(3, 3, 0), 168);
	assert_int_equal(cxd_cache_state_size_ways(1, 1, 0), 8 + 24 + 8 + 8 + 48);
	assert_int_equal(cxd_cache_state_size_ways((1ull << 32) - 1, 1, 0),
			 (((1ull << 32) - 1) * 4 + 4) + 24 + 8 + 8 + 48);
	assert_int_equal(cxd_cache_state_size_ways(16384, 2048, 0),
			 16384 * 4 + 2048 * (24 + 4 + 4) + 48);
	/* set-associative: one 44-byte set per @ways lines */
	assert_int_equal(cxd_cache_state_size_ways(16384, 2048, 4),
			 16384 * 4 + 2048 * (24 + 4 + 4) + 512 * 44);
	assert_int_equal(cxd_cache_state_size_ways(16384, 2048, 2048),
			 cxd_cache_state_size_ways(16384, 2048, 0));
	assert_int_equal(cxd_cache_state_size_ways(16384, 2048, 3), 0);
	assert_int_equal(cxd_cache_state_size_ways(16384, 2048, 4096), 0);
	assert_int_equal(cxd_cache_state_size_ways((1ull << 32) - 1, 1u << 31, 0), 0);
}

static void test_init_errors(void **state)
{
	struct cxd_cache c;
	uint64_t mem[32];

	(void)state;
	assert_int_equal(cxd_cache_init_ways(&c, 10, 0, 0, CXD_POLICY_FIFO, mem), -1);
	assert_int_equal(cxd_cache_init_ways(&c, 10, 11, 0, CXD_POLICY_FIFO, mem), -1);
	assert_int_equal(cxd_cache_init_ways(&c, 10, 3, 0, CXD_POLICY_NR, mem), -1);
	assert_int_equal(cxd_cache_init_ways(&c, 10, 3, 0, (enum cxd_policy)-1, mem),
			 -1);
	assert_int_equal(cxd_cache_init_ways(&c, 10, 3, 0, CXD_POLICY_FIFO, mem), 0);
	assert_int_equal(c.npages, 10);
	assert_int_equal(c.nlines, 3);
	assert_int_equal(c.used, 0);
	assert_int_equal(c.policy, CXD_POLICY_FIFO);
}

static void test_policy_names(void **state)
{
	(void)state;
	assert_string_equal(cxd_policy_name(CXD_POLICY_FIFO), "fifo");
	assert_string_equal(cxd_policy_name(CXD_POLICY_LIFO), "lifo");
	assert_string_equal(cxd_policy_name(CXD_POLICY_CLOCK), "clock");
	assert_string_equal(cxd_policy_name(CXD_POLICY_LRU), "lru");
	assert_string_equal(cxd_policy_name(CXD_POLICY_S3FIFO), "s3fifo");
	assert_string_equal(cxd_policy_name(CXD_POLICY_RANDOM), "random");
	assert_null(cxd_policy_name(CXD_POLICY_NR));
	assert_null(cxd_policy_name((enum cxd_policy)-1));
	assert_int_equal(cxd_policy_parse("fifo"), CXD_POLICY_FIFO);
	assert_int_equal(cxd_policy_parse("lifo"), CXD_POLICY_LIFO);
	assert_int_equal(cxd_policy_parse("clock"), CXD_POLICY_CLOCK);
	assert_int_equal(cxd_policy_parse("lru"), CXD_POLICY_LRU);
	assert_int_equal(cxd_policy_parse("s3fifo"), CXD_POLICY_S3FIFO);
	assert_int_equal(cxd_policy_parse("random"), CXD_POLICY_RANDOM);
	assert_int_equal(cxd_policy_parse("fifo\n"), -1);
	assert_int_equal(cxd_policy_parse("FIFO"), -1);
	assert_int_equal(cxd_policy_parse("fif"), -1);
	assert_int_equal(cxd_policy_parse("fifo "), -1);
	assert_int_equal(cxd_policy_parse(""), -1);
	assert_int_equal(cxd_policy_parse("lrux"), -1);
	assert_int_equal(cxd_policy_parse(NULL), -1);
}

static void test_empty_after_init(void **state)
{
	struct cache_fix *f = cache_new(100, 10);
	uint64_t p;

	(void)state;
	for (p = 0; p < 100; p++) {
		assert_false(cxd_cache_resident(&f->c, p));
		assert_false(cxd_cache_dirty(&f->c, p));
	}
	assert_false(cxd_cache_resident(&f->c, 100));
	assert_false(cxd_cache_resident(&f->c, CXD_NO_PAGE));
	assert_int_equal(f->c.used, 0);
	cache_free(f);
}

static void test_working_set_fits(void **state)
{
	struct cache_fix *f = cache_new(1000, 64);
	unsigned int pass;
	uint64_t p;

	(void)state;
	for (pass = 0; pass < 10; pass++)
		for (p = 0; p < 64; p++)
			access_page(f, 500 + p, false);
	assert_int_equal(f->misses, 64);
	assert_int_equal(f->hits, 9 * 64);
	assert_int_equal(f->evictions, 0);
	assert_int_equal(f->c.used, 64);
	cache_free(f);
}

static void test_cyclic_scan_thrashes(void **state)
{
	struct cache_fix *f = cache_new(1000, 64);
	unsigned int pass;
	uint64_t p;

	(void)state;
	for (pass = 0; pass < 10; pass++)
		for (p = 0; p < 65; p++)
			access_page(f, p, false);
	assert_int_equal(f->misses, 10 * 65);
	assert_int_equal(f->hits, 0);
	assert_int_equal(f->evictions, 10 * 65 - 64);
	assert_int_equal(f->c.used, 64);
	cache_free(f);
}

static void test_fifo_victim_order(void **state)
{
	struct cache_fix *f = cache_new(100, 3);
	bool vd;

	(void)state;
	assert_int_equal(cache_insert(&f->c, 10, &vd), CXD_NO_PAGE);
	assert_int_equal(cache_insert(&f->c, 11, &vd), CXD_NO_PAGE);
	assert_int_equal(cache_insert(&f->c, 12, &vd), CXD_NO_PAGE);
	assert_false(vd);
	assert_int_equal(f->c.used, 3);
	assert_int_equal(cache_insert(&f->c, 13, &vd), 10);
	assert_false(cxd_cache_resident(&f->c, 10));
	assert_true(cxd_cache_resident(&f->c, 13));
	assert_int_equal(cache_insert(&f->c, 14, &vd), 11);
	/* FIFO ignores hits: 12 is still the oldest */
	cxd_cache_touch(&f->c, 12);
	cxd_cache_touch(&f->c, 99);	/* absent: no-op */
	assert_int_equal(cache_insert(&f->c, 15, &vd), 12);
	assert_int_equal(cache_insert(&f->c, 16, NULL), 13);
	/* a re-inserted page goes to the back */
	assert_int_equal(cache_insert(&f->c, 10, &vd), 14);
	assert_int_equal(cache_insert(&f->c, 17, &vd), 15);
	assert_int_equal(cache_insert(&f->c, 18, &vd), 16);
	assert_int_equal(cache_insert(&f->c, 19, &vd), 10);
	assert_int_equal(f->c.used, 3);
	cache_free(f);
}

static void test_insert_noop_cases(void **state)
{
	struct cache_fix *f = cache_new(10, 2);
	bool vd = true;

	(void)state;
	assert_int_equal(cache_insert(&f->c, 1, &vd), CXD_NO_PAGE);
	assert_false(vd);
	cxd_cache_set_dirty(&f->c, 1);
	/* already resident: nothing changes, dirty bit kept */
	vd = true;
	assert_int_equal(cache_insert(&f->c, 1, &vd), CXD_NO_PAGE);
	assert_false(vd);
	assert_int_equal(f->c.used, 1);
	assert_true(cxd_cache_dirty(&f->c, 1));
	/* out of range */
	assert_int_equal(cache_insert(&f->c, 10, &vd), CXD_NO_PAGE);
	assert_false(cxd_cache_resident(&f->c, 10));
	assert_int_equal(f->c.used, 1);
	cache_free(f);
}

static void test_dirty_tracking(void **state)
{
	struct cache_fix *f = cache_new(100, 2);
	bool vd;

	(void)state;
	assert_int_equal(cxd_cache_set_dirty(&f->c, 5), -1);	/* absent */
	assert_int_equal(cxd_cache_set_dirty(&f->c, 100), -1);	/* range */
	assert_int_equal(cxd_cache_set_dirty(&f->c, CXD_NO_PAGE), -1);
	assert_false(cxd_cache_resident(&f->c, 5));
	assert_int_equal(f->c.used, 0);

	cache_insert(&f->c, 5, &vd);
	assert_false(cxd_cache_dirty(&f->c, 5));	/* inserted clean */
	assert_int_equal(cxd_cache_set_dirty(&f->c, 5), 0);
	assert_true(cxd_cache_dirty(&f->c, 5));
	assert_int_equal(cxd_cache_set_dirty(&f->c, 5), 0);	/* idempotent */
	cache_insert(&f->c, 6, &vd);
	assert_false(cxd_cache_dirty(&f->c, 6));

	vd = false;
	assert_int_equal(cache_insert(&f->c, 7, &vd), 5);
	assert_true(vd);
	assert_false(cxd_cache_dirty(&f->c, 5));
	/* the recycled line is clean */
	assert_false(cxd_cache_dirty(&f->c, 7));
	vd = true;
	assert_int_equal(cache_insert(&f->c, 8, &vd), 6);
	assert_false(vd);
	/* 5 comes back clean */
	assert_int_equal(cache_insert(&f->c, 5, &vd), 7);
	assert_false(vd);
	assert_false(cxd_cache_dirty(&f->c, 5));
	cache_free(f);
}

static void test_writeback_counting(void **state)
{
	struct cache_fix *f = cache_new(1000, 16);
	uint64_t p;

	(void)state;
	/* write every even page of a 32-page scan, twice round */
	for (p = 0; p < 64; p++)
		access_page(f, p % 32, (p % 2) == 0);
	assert_int_equal(f->misses, 64);
	assert_int_equal(f->evictions, 64 - 16);
	assert_int_equal(f->dirty_evictions, (64 - 16) / 2);
	cache_free(f);
}

static void test_full_cache_no_eviction(void **state)
{
	struct cache_fix *f = cache_new(8, 8);
	uint64_t p;

	(void)state;
	for (p = 0; p < 40; p++)
		access_page(f, (p * 3) % 8, true);
	assert_int_equal(f->misses, 8);
	assert_int_equal(f->evictions, 0);
	assert_int_equal(f->c.used, 8);
	cache_free(f);
}

static void test_set_policy(void **state)
{
	struct cache_fix *f = cache_new(100, 3);
	bool vd;

	(void)state;
	cache_insert(&f->c, 1, &vd);
	cache_insert(&f->c, 2, &vd);
	cxd_cache_set_dirty(&f->c, 2);
	assert_int_equal(cxd_cache_set_policy(&f->c, CXD_POLICY_NR), -1);
	assert_int_equal(cxd_cache_set_policy(&f->c, (enum cxd_policy)-1), -1);
	assert_int_equal(f->c.policy, CXD_POLICY_FIFO);
	assert_int_equal(cxd_cache_set_policy(&f->c, CXD_POLICY_FIFO), 0);
	assert_true(cxd_cache_resident(&f->c, 1));
	assert_true(cxd_cache_dirty(&f->c, 2));
	assert_int_equal(f->c.used, 2);
	cache_insert(&f->c, 3, &vd);
	assert_int_equal(cache_insert(&f->c, 4, &vd), 1);
	assert_int_equal(cache_insert(&f->c, 5, &vd), 2);
	assert_true(vd);
	cache_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_size),
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_policy_names),
		cmocka_unit_test(test_empty_after_init),
		cmocka_unit_test(test_working_set_fits),
		cmocka_unit_test(test_cyclic_scan_thrashes),
		cmocka_unit_test(test_fifo_victim_order),
		cmocka_unit_test(test_insert_noop_cases),
		cmocka_unit_test(test_dirty_tracking),
		cmocka_unit_test(test_writeback_counting),
		cmocka_unit_test(test_full_cache_no_eviction),
		cmocka_unit_test(test_set_policy),
	};

	return cmocka_run_group_tests_name("cache", tests, NULL, NULL);
}
