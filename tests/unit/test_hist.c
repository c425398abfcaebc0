// SPDX-License-Identifier: GPL-2.0
/*
 * Log2 latency histogram: bucket boundaries and counting.
 */
#include "cxd_test.h"

static void test_bucket_boundaries(void **state)
{
	(void)state;
	assert_int_equal(cxd_hist_bucket(0), 0);
	assert_int_equal(cxd_hist_bucket(1), 0);
	assert_int_equal(cxd_hist_bucket(1023), 0);
	assert_int_equal(cxd_hist_bucket(1024), 1);
	assert_int_equal(cxd_hist_bucket(2047), 1);
	assert_int_equal(cxd_hist_bucket(2048), 2);
	assert_int_equal(cxd_hist_bucket(3414), 2);
	assert_int_equal(cxd_hist_bucket(4095), 2);
	assert_int_equal(cxd_hist_bucket(4096), 3);
	assert_int_equal(cxd_hist_bucket(6414), 3);
	assert_int_equal(cxd_hist_bucket(100000), 7);	/* [65536, 131072) */
	assert_int_equal(cxd_hist_bucket((1ull << 31) - 1), 21);
	assert_int_equal(cxd_hist_bucket(1ull << 31), 22);
	assert_int_equal(cxd_hist_bucket((1ull << 32) - 1), 22);
	assert_int_equal(cxd_hist_bucket(1ull << 32), 23);
	assert_int_equal(cxd_hist_bucket(1ull << 40), 23);
	assert_int_equal(cxd_hist_bucket(~0ull), CXD_HIST_BUCKETS - 1);
}

static void test_lower_bounds(void **state)
{
	unsigned int i;

	(void)state;
	assert_int_equal(cxd_hist_lower_ns(0), 0);
	assert_int_equal(cxd_hist_lower_ns(1), 1024);
	assert_int_equal(cxd_hist_lower_ns(2), 2048);
	assert_int_equal(cxd_hist_lower_ns(10), 1ull << 19);
	assert_int_equal(cxd_hist_lower_ns(23), 1ull << 32);
	assert_int_equal(cxd_hist_lower_ns(CXD_HIST_BUCKETS), ~0ull);
	for (i = 1; i < CXD_HIST_BUCKETS; i++) {
		assert_int_equal(cxd_hist_bucket(cxd_hist_lower_ns(i)), i);
		assert_int_equal(cxd_hist_bucket(cxd_hist_lower_ns(i) - 1),
				 i - 1);
		assert_int_equal(cxd_hist_lower_ns(i),
				 2 * cxd_hist_lower_ns(i - 1) +
				 (i == 1 ? 1024 : 0));
	}
}

static void test_add(void **state)
{
	struct cxd_hist h;
	unsigned int i;
	uint64_t total = 0;

	(void)state;
	memset(&h, 0, sizeof(h));
	cxd_hist_add(&h, 0);
	cxd_hist_add(&h, 1023);
	cxd_hist_add(&h, 1024);
	cxd_hist_add(&h, 6414);
	cxd_hist_add(&h, 7000);
	cxd_hist_add(&h, ~0ull);
	assert_int_equal(h.count[0], 2);
	assert_int_equal(h.count[1], 1);
	assert_int_equal(h.count[2], 0);
	assert_int_equal(h.count[3], 2);
	assert_int_equal(h.count[CXD_HIST_BUCKETS - 1], 1);
	for (i = 0; i < CXD_HIST_BUCKETS; i++)
		total += h.count[i];
	assert_int_equal(total, 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_boundaries),
		cmocka_unit_test(test_lower_bounds),
		cmocka_unit_test(test_add),
	};

	return cmocka_run_group_tests_name("hist", tests, NULL, NULL);
}
