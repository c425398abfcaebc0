// SPDX-License-Identifier: GPL-2.0
/*
 * The one parser and formatter of parameter values (driver/model/param.c),
 * which configfs, cxdvirt-dev and cxdvirt-sim share, and the one model
 * setup (driver/model/setup.c) of the module and the simulator.
 */
#include "cxd_test.h"
#include <cxdvirt/params.h>

/* The table's rows, by id. */
static const struct cxd_param rows[] = { CXD_PARAMS_SHARED(CXD_P_DESC_) };

static const struct cxd_param *row(int id)
{
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].id == id)
			return &rows[i];
	fail_msg("no row %d", id);
	return NULL;
}

/* Parse NUL-terminated @s for @id; the reason or NULL, value in *@v. */
static const char *parse(int id, const char *s, uint64_t *v)
{
	return cxd_param_parse(row(id), s, strlen(s), v);
}

static void test_numbers(void **state)
{
	uint64_t v = 7;
	int64_t sv = 7;

	(void)state;
	assert_int_equal(cxd_parse_u64("0100", 4, false, &v), 0);
	assert_int_equal(v, 100);			/* not octal */
	assert_int_equal(cxd_parse_u64("0x100", 5, false, &v), 0);
	assert_int_equal(v, 256);
	assert_int_equal(cxd_parse_u64("0XfF\n", 5, false, &v), 0);
	assert_int_equal(v, 255);			/* one newline dropped */
	assert_int_equal(cxd_parse_u64("18446744073709551615", 20, false, &v), 0);
	assert_int_equal(v, ~0ull);
	v = 7;
	assert_int_equal(cxd_parse_u64("18446744073709551616", 20, false, &v),
			 CXD_PARSE_RANGE);
	assert_int_equal(v, 7);				/* unchanged */
	assert_int_equal(cxd_parse_u64("", 0, false, &v), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_u64("\n", 1, false, &v), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_u64("0x", 2, false, &v), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_u64("0x0x5", 5, false, &v), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_u64("-1", 2, false, &v), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_u64("+1", 2, false, &v), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_u64(" 1", 2, false, &v), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_u64("1\n\n", 3, false, &v), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_u64("1\0" "2", 3, false, &v),
			 CXD_PARSE_SYNTAX);		/* an embedded NUL */
	assert_int_equal(cxd_parse_u64("4K", 2, false, &v), CXD_PARSE_SYNTAX);
	assert_int_equal(v, 7);

	assert_int_equal(cxd_parse_s64("-1", 2, &sv), 0);
	assert_int_equal(sv, -1);
	assert_int_equal(cxd_parse_s64("-9223372036854775808", 20, &sv), 0);
	assert_true(sv == INT64_MIN);
	assert_int_equal(cxd_parse_s64("9223372036854775808", 19, &sv),
			 CXD_PARSE_RANGE);
	assert_int_equal(cxd_parse_s64("--1", 3, &sv), CXD_PARSE_SYNTAX);
}

static void test_flags(void **state)
{
	bool on = true;

	(void)state;
	assert_int_equal(cxd_parse_flag("0", 1, &on), 0);
	assert_false(on);
	assert_int_equal(cxd_parse_flag("on\n", 3, &on), 0);
	assert_true(on);
	assert_int_equal(cxd_parse_flag("off", 3, &on), 0);
	assert_false(on);
	assert_int_equal(cxd_parse_flag("1", 1, &on), 0);
	assert_true(on);
	/* what kstrtobool took: yes, 1abc, and 0x1 as off */
	assert_int_equal(cxd_parse_flag("yes", 3, &on), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_flag("1abc", 4, &on), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_flag("0x1", 3, &on), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_flag("", 0, &on), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_flag("on\n\n", 4, &on), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_flag("1\0", 2, &on), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_flag("o", 1, &on), CXD_PARSE_SYNTAX);
	assert_true(on);			/* unchanged */
}

static void test_suffixes(void **state)
{
	uint64_t v;

	(void)state;
	assert_int_equal(cxd_parse_u64("4K", 2, true, &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(cxd_parse_u64("64m", 3, true, &v), 0);
	assert_int_equal(v, 64ull << 20);
	assert_int_equal(cxd_parse_u64("1G\n", 3, true, &v), 0);
	assert_int_equal(v, 1ull << 30);
	assert_int_equal(cxd_parse_u64("16T", 3, true, &v), 0);
	assert_int_equal(v, 16ull << 40);
	assert_int_equal(cxd_parse_u64("0x10M", 5, true, &v), 0);
	assert_int_equal(v, 16ull << 20);
	assert_int_equal(cxd_parse_u64("16777216T", 9, true, &v),
			 CXD_PARSE_RANGE);		/* 2^64 */
	assert_int_equal(cxd_parse_u64("K", 1, true, &v), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_u64("4KB", 3, true, &v), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_u64("4P", 2, true, &v), CXD_PARSE_SYNTAX);
	assert_int_equal(cxd_parse_u64("4 K", 3, true, &v), CXD_PARSE_SYNTAX);
}

static void test_param_parse(void **state)
{
	uint64_t v;

	(void)state;
	assert_null(parse(CXD_PARAM_cache_size, "8M", &v));
	assert_int_equal(v, 8ull << 20);
	assert_string_equal(parse(CXD_PARAM_cache_size, "8 M", &v),
		"not a valid number (decimal or 0x-hex, optional K/M/G/T suffix)");
	/* no suffix where the row takes none */
	assert_string_equal(parse(CXD_PARAM_t_read_ns, "3K", &v),
			    "not a valid number (decimal or 0x-hex)");
	assert_string_equal(parse(CXD_PARAM_channels, "4294967296", &v),
			    "value too large");
	assert_null(parse(CXD_PARAM_channels, "4294967295", &v));
	assert_null(parse(CXD_PARAM_policy, "s3fifo\n", &v));
	assert_int_equal(v, CXD_POLICY_S3FIFO);
	assert_string_equal(parse(CXD_PARAM_policy, "S3FIFO", &v), "unknown");
	assert_string_equal(parse(CXD_PARAM_policy, "1", &v), "unknown");
	/* write_alloc also takes its index (CXD_P_NUMALIAS) */
	assert_null(parse(CXD_PARAM_write_alloc, "nofetch", &v));
	assert_int_equal(v, CXD_WA_NOFETCH);
	assert_null(parse(CXD_PARAM_write_alloc, "0", &v));
	assert_int_equal(v, CXD_WA_FETCH);
	assert_string_equal(parse(CXD_PARAM_write_alloc, "2", &v), "unknown");
	assert_string_equal(parse(CXD_PARAM_write_alloc, "0x1", &v), "unknown");
	assert_string_equal(parse(CXD_PARAM_write_alloc, "01", &v), "unknown");
	assert_null(parse(CXD_PARAM_write_alloc, "1\n", &v));
	assert_int_equal(v, CXD_WA_NOFETCH);
	/* one trailing newline, not two, whatever the type */
	assert_null(parse(CXD_PARAM_t_read_ns, "5\n", &v));
	assert_non_null(parse(CXD_PARAM_t_read_ns, "5\n\n", &v));
	assert_non_null(parse(CXD_PARAM_ftl_fill, "on\n\n", &v));
	assert_non_null(parse(CXD_PARAM_policy, "lru\n\n", &v));
	assert_null(parse(CXD_PARAM_xfer_model, "nvmevirt", &v));
	assert_int_equal(v, CXD_XFER_NVMEVIRT);
	assert_null(parse(CXD_PARAM_ftl_fill, "on", &v));
	assert_int_equal(v, 1);
	assert_null(parse(CXD_PARAM_skip_unwritten, "0", &v));
	assert_int_equal(v, 0);
	assert_string_equal(parse(CXD_PARAM_ftl_fill, "0x1", &v), "unknown");
	assert_string_equal(parse(CXD_PARAM_ftl_fill, "yes", &v), "unknown");
}

/* A node number (the module's backing_node, target_node): signed decimal. */
static void test_int(void **state)
{
	static const struct cxd_param node = {
		.name = "backing_node", .type = CXD_PT_INT, .min = -1,
		.max = CXD_P_S32_MAX, .unit = "",
	};
	uint64_t v;

	(void)state;
	assert_null(cxd_param_parse(&node, "-1\n", 3, &v));
	assert_int_equal((int64_t)v, -1);
	assert_null(cxd_param_parse(&node, "12", 2, &v));
	assert_int_equal(v, 12);
	assert_non_null(cxd_param_parse(&node, "0x1", 3, &v));
	assert_non_null(cxd_param_parse(&node, "-0x1", 4, &v));
	assert_non_null(cxd_param_parse(&node, "2147483648", 10, &v));
	assert_non_null(cxd_param_parse(&node, "-1\n\n", 4, &v));
}

static void test_format(void **state)
{
	char b[CXD_PARAM_FMT_LEN];

	(void)state;
	assert_string_equal(cxd_param_format(row(CXD_PARAM_capacity),
					     64ull << 30, b, sizeof(b)), "64G");
	assert_string_equal(cxd_param_format(row(CXD_PARAM_capacity),
					     2ull << 40, b, sizeof(b)), "2T");
	assert_string_equal(cxd_param_format(row(CXD_PARAM_capacity),
					     4096 + 512, b, sizeof(b)), "4608");
	assert_string_equal(cxd_param_format(row(CXD_PARAM_capacity),
					     6144, b, sizeof(b)), "6K");
	assert_string_equal(cxd_param_format(row(CXD_PARAM_capacity), 0, b,
					     sizeof(b)), "0");
	assert_string_equal(cxd_param_format(row(CXD_PARAM_t_read_ns), 4096,
					     b, sizeof(b)), "4096");
	assert_string_equal(cxd_param_format(row(CXD_PARAM_seed), ~0ull, b,
					     sizeof(b)), "18446744073709551615");
	assert_string_equal(cxd_param_format(row(CXD_PARAM_policy),
					     CXD_POLICY_2Q, b, sizeof(b)), "2q");
	assert_string_equal(cxd_param_format(row(CXD_PARAM_policy), 99, b,
					     sizeof(b)), "99");
	/* cut to fit */
	assert_string_equal(cxd_param_format(row(CXD_PARAM_seed), 123456, b,
					     4), "123");
}

/* Every value the formatter writes reads back as itself. */
static void test_round_trip(void **state)
{
	static const uint64_t vals[] = { 0, 1, 4095, 4096, 1ull << 20,
					 3ull << 30, 5ull << 40, ~0ull };
	char b[CXD_PARAM_FMT_LEN];
	uint64_t v;
	size_t i, k;

	(void)state;
	for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
			if (rows[k].type == CXD_PT_ENUM && vals[i] > rows[k].max)
				continue;
			if (rows[k].type == CXD_PT_BOOL && vals[i] > 1)
				continue;
			if (rows[k].type == CXD_PT_U32 && vals[i] >> 32)
				continue;
			cxd_param_format(&rows[k], vals[i], b, sizeof(b));
			if (rows[k].type == CXD_PT_BOOL)
				continue;	/* shown as a number, read as 0/1 */
			assert_null(cxd_param_parse(&rows[k], b, strlen(b), &v));
			assert_int_equal(v, vals[i]);
		}
	}
}

/* The setup's checks, in order, and that a good setup is a clean model. */
static void test_setup(void **state)
{
	struct cxd_params p;
	struct cxd_model m;
	size_t size = 0;
	void *mem;

	(void)state;
	CXD_PARAMS_DEFAULTS(&p, CXD_PARAMS_SHARED);
	assert_null(cxd_model_setup_check(&p, 16384, &size));
	assert_int_equal(size, cxd_model_cfg_state_size(&(struct cxd_model_cfg){
		.npages = 16384, .nlines = 2048, .nand = p.nand, .ftl = p.ftl }));
	assert_string_equal(cxd_model_setup_check(&p, 1024, &size),
			    "cache_size larger than capacity");
	p.cache_size = 4097;
	assert_string_equal(cxd_model_setup_check(&p, 16384, &size),
			    "cache_size not a multiple of 4K");
	p.cache_size = 64 << 10;
	p.ways = 3;
	assert_string_equal(cxd_model_setup_check(&p, 16384, &size),
			    "ways does not divide the cache's lines (cache_size / 4K)");
	p.ways = 4;
	p.drain_low_pct = p.drain_high_pct;
	assert_string_equal(cxd_model_setup_check(&p, 16384, &size),
			    "drain_low_pct not below drain_high_pct");
	p.drain_low_pct = 10;
	p.pf.bop_bad_score = p.pf.bop_score_max;
	assert_string_equal(cxd_model_setup_check(&p, 16384, &size),
			    "bop_bad_score not below bop_score_max");
	p.pf.bop_bad_score = 1;
	p.nand.channels = 0;	/* each row within the table's bounds */
	assert_string_equal(cxd_model_setup_check(&p, 16384, &size),
			    "channels out of range");
	p.nand.channels = 8;
	p.cflru_window_pct = 101;
	assert_string_equal(cxd_model_setup_check(&p, 16384, &size),
			    "cflru_window_pct out of range");
	p.cflru_window_pct = 25;
	p.capacity = 0;		/* npages stands for capacity */
	assert_null(cxd_model_setup_check(&p, 16384, &size));

	p.policy = CXD_POLICY_CFLRU;
	p.cflru_window_pct = 40;
	p.seed = 5;
	p.prefetch = CXD_PF_STRIDE;
	p.prefetch_degree = 3;
	p.nand.t_read_ns = 7777;
	assert_null(cxd_model_setup_check(&p, 16384, &size));
	mem = aligned_alloc(8, (size + 7) & ~(size_t)7);
	assert_non_null(mem);
	assert_null(cxd_model_setup(&m, &p, 16384, mem));
	assert_int_equal(m.cache.nlines, 16);
	assert_int_equal(m.cache.ways, 4);
	assert_int_equal(m.cache.policy, CXD_POLICY_CFLRU);
	assert_int_equal(m.cache.cflru_window_pct, 40);
	assert_int_equal(m.cache.rng, 5);
	assert_int_equal(m.prefetch, CXD_PF_STRIDE);
	assert_int_equal(m.prefetch_degree, 3);
	assert_int_equal(m.drain_low_pct, 10);
	assert_int_equal(m.nand.cfg.t_read_ns, 7777);
	assert_int_equal(m.stats.misses, 0);
	free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_suffixes),
		cmocka_unit_test(test_param_parse),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_setup),
	};

	return cmocka_run_group_tests_name("param", tests, NULL, NULL);
}
