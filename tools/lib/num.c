// SPDX-License-Identifier: GPL-2.0
/*
 * Numbers and sizes on the command line, and their human-readable forms
 * (the rule is in cxu_num.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cxu_num.h"

/*
 * Parse the digits at *sp (decimal, or hex after "0x"), advance *sp past
 * them. Return 0, -EINVAL if there is no digit, -ERANGE on overflow.
 */
static int parse_digits(const char **sp, uint64_t *out)
{
	const char *s = *sp;
	uint64_t v = 0;
	int base = 10, d, n = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; *s; s++, n++) {
		d = cxu_hex_digit(*s);
		if (d < 0 || d >= base)
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -ERANGE;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (!n)
		return -EINVAL;
	*sp = s;
	*out = v;
	return 0;
}

int cxu_parse_size(const char *s, uint64_t *out)
{
	static const char suffixes[] = "KMGT";
	const char *p = s;
	uint64_t v;
	unsigned int shift = 0;
	const char *sfx;
	int ret;

	ret = parse_digits(&p, &v);
	if (ret)
		return ret;
	if (*p) {
		char c = *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;

		sfx = strchr(suffixes, c);
		if (!sfx || p[1])
			return -EINVAL;
		shift = 10 * (unsigned int)(sfx - suffixes + 1);
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = v << shift;
	return 0;
}

int cxu_parse_u64(const char *s, uint64_t *out)
{
	const char *p = s;
	uint64_t v;
	int ret;

	ret = parse_digits(&p, &v);
	if (ret)
		return ret;
	if (*p)
		return -EINVAL;
	*out = v;
	return 0;
}

int cxu_parse_s64(const char *s, int64_t *out)
{
	bool neg = s[0] == '-';
	uint64_t v;
	int ret;

	ret = cxu_parse_u64(s + neg, &v);
	if (ret)
		return ret;
	if (neg) {
		if (v > (uint64_t)INT64_MAX + 1)
			return -ERANGE;
		*out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	} else {
		if (v > (uint64_t)INT64_MAX)
			return -ERANGE;
		*out = (int64_t)v;
	}
	return 0;
}

const char *cxu_fmt_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB",
					     "PiB", "EiB" };
	unsigned int u = 0;

	while (u + 1 < sizeof(units) / sizeof(units[0]) &&
	       bytes >= (1ull << (10 * (u + 1))))
		u++;
	if (!u || !(bytes & ((1ull << (10 * u)) - 1)))
		snprintf(buf, len, "%llu %s",
			 (unsigned long long)(bytes >> (10 * u)), units[u]);
	else
		snprintf(buf, len, "%.2f %s",
			 (double)bytes / (double)(1ull << (10 * u)), units[u]);
	return buf;
}

const char *cxu_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	if (ns < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.2f us", (double)ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", (double)ns / 1e9);
	return buf;
}
