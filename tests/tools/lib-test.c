// SPDX-License-Identifier: GPL-2.0
/*
 * The tools' library (tools/lib/) on its own: the one size rule, nearest
 * ranks, the histogram against a sort of the same latencies, the JSON
 * summary's keys. Prints TAP; run by test-lib.sh.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxu_lat.h"
#include "cxu_num.h"

static int n_tests, n_fail;

static void ok(int cond, const char *fmt, const char *arg)
{
	n_tests++;
	if (!cond)
		n_fail++;
	printf("%sok %d - ", cond ? "" : "not ", n_tests);
	printf(fmt, arg);
	putchar('\n');
}

static void sizes(void)
{
	static const struct {
		const char *s;
		int ret;
		uint64_t v;
	} t[] = {
		{ "4096", 0, 4096 }, { "0x1000", 0, 4096 }, { "0X1000", 0, 4096 },
		{ "4K", 0, 4096 }, { "4k", 0, 4096 }, { "64M", 0, 64ull << 20 },
		{ "1G", 0, 1ull << 30 }, { "2t", 0, 2ull << 40 }, { "0", 0, 0 },
		{ "0100", 0, 100 }, { "0x10K", 0, 16384 },
		{ "16777215T", 0, 16777215ull << 40 },
		{ "16777216T", -ERANGE, 0 }, { "18446744073709551616", -ERANGE, 0 },
		{ "", -EINVAL, 0 }, { "abc", -EINVAL, 0 }, { "-1", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 }, { " 5", -EINVAL, 0 }, { "5 ", -EINVAL, 0 },
		{ "1e9", -EINVAL, 0 }, { "1.5G", -EINVAL, 0 }, { "0x", -EINVAL, 0 },
		{ "1K1", -EINVAL, 0 }, { "1KB", -EINVAL, 0 }, { "1P", -EINVAL, 0 },
		{ "K", -EINVAL, 0 },
	};
	uint64_t v;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		v = 0;
		ret = cxu_parse_size(t[i].s, &v);
		ok(ret == t[i].ret && (ret || v == t[i].v), "size '%s'", t[i].s);
	}
	ok(cxu_parse_u64("4K", &v) == -EINVAL, "a number takes no suffix: '%s'", "4K");
}

/* Every rank of n = 1..3000 at several quantiles is ceil(q * n), in 1..n. */
static void ranks(void)
{
	static const uint32_t q[] = { 0, 1, 500000, 900000, 990000, 999000,
				      999900, 999990, 1000000 };
	uint64_t n, r, bad = 0;
	size_t i;

	ok(cxu_rank(0, CXU_P50) == 0, "rank of no values is %s", "0");
	for (n = 1; n <= 3000; n++) {
		for (i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
			r = cxu_rank(n, q[i]);
			if (r < 1 || r > n ||
			    (q[i] && (r * CXU_PPM < n * q[i] ||
				      (r - 1) * CXU_PPM >= n * q[i])))
				bad++;
		}
	}
	ok(!bad, "nearest ranks of %s", "n = 1..3000");
	ok(cxu_rank(UINT64_C(10000000000000), CXU_P999) == UINT64_C(9990000000000),
	   "rank without rounding at %s values", "10^13");
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The histogram gives the summary of the sorted array, large values too. */
static void hist(void)
{
	const size_t n = 200000;
	uint64_t *v = malloc(n * sizeof(*v)), st = 88172645463325252ull;
	struct cxu_lat_summary a, b;
	struct cxu_lat_hist h;
	int err = 0;
	size_t i;

	if (!v || cxu_lat_hist_init(&h)) {
		ok(0, "%s", "allocation");
		return;
	}
	for (i = 0; i < n; i++) {
		/* 0.2% above CXU_LAT_EXACT_NS: P99.9 and P99.99 fall there */
		v[i] = xorshift(&st) % 500 == 0 ? CXU_LAT_EXACT_NS + xorshift(&st) % 5000000 :
						   3000 + xorshift(&st) % 97000;
		err |= cxu_lat_hist_add(&h, v[i]);
	}
	cxu_sort_u64(v, n);
	cxu_lat_summarize(v, n, &a);
	cxu_lat_hist_summarize(&h, &b);
	ok(!err && a.count == b.count && a.p50_ns == b.p50_ns && a.p90_ns == b.p90_ns &&
	   a.p99_ns == b.p99_ns && a.p999_ns == b.p999_ns && a.p9999_ns == b.p9999_ns &&
	   a.max_ns == b.max_ns, "histogram summary = sorted summary (%s)", "200000 values");
	ok(a.p9999_ns >= CXU_LAT_EXACT_NS && a.p99_ns < CXU_LAT_EXACT_NS,
	   "the test reaches the large values (%s)", "P99.99");
	ok(a.mean_ns > 0 && (a.mean_ns - b.mean_ns) / a.mean_ns < 1e-12 &&
	   (b.mean_ns - a.mean_ns) / a.mean_ns < 1e-12, "means agree%s", "");
	cxu_lat_hist_free(&h);
	cxu_lat_hist_summarize(&h, &b);
	ok(b.count == 0 && b.p50_ns == 0 && b.max_ns == 0, "empty histogram: %s", "zeros");
	free(v);
}

static void json(void)
{
	struct cxu_lat_summary s = { .count = 3, .mean_ns = 2.5, .p50_ns = 2,
				     .p90_ns = 3, .p99_ns = 3, .p999_ns = 3,
				     .p9999_ns = 3, .max_ns = 3 };
	struct json_object *o = cxu_lat_json(&s, 0);

	ok(o && !strcmp(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			"{\"count\":3,\"mean\":2.5,\"p50\":2,\"p90\":3,\"p99\":3,\"p999\":3,\"max\":3}"),
	   "JSON summary, plain keys: %s", json_object_to_json_string(o));
	json_object_put(o);
	o = cxu_lat_json(&s, CXU_LAT_JSON_NS | CXU_LAT_JSON_P9999);
	ok(o && !strcmp(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			"{\"count\":3,\"mean_ns\":2.5,\"p50_ns\":2,\"p90_ns\":3,\"p99_ns\":3,"
			"\"p999_ns\":3,\"p9999_ns\":3,\"max_ns\":3}"),
	   "JSON summary, _ns keys and P99.99: %s", json_object_to_json_string(o));
	json_object_put(o);
}

int main(void)
{
	sizes();
	ranks();
	hist();
	json();
	printf("1..%d\n", n_tests);
	return n_fail != 0;
}
