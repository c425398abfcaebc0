// SPDX-License-Identifier: GPL-2.0
/*
 * Numbers and sizes on the command line, and their human-readable forms
 * (the rule is in cxu_num.h; the parser is the module's and the model's,
 * cxd_parse_u64() in driver/model/param.c).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cxdvirt/params.h>

#include "cxu_num.h"

/* The project's one number parser (driver/model/param.c), errno-style. */
static int to_errno(int ret)
{
	return ret == CXD_PARSE_RANGE ? -ERANGE : ret ? -EINVAL : 0;
}

int cxu_parse_size(const char *s, uint64_t *out)
{
	return to_errno(cxd_parse_u64(s, strlen(s), true, out));
}

int cxu_parse_u64(const char *s, uint64_t *out)
{
	return to_errno(cxd_parse_u64(s, strlen(s), false, out));
}

int cxu_parse_s64(const char *s, int64_t *out)
{
	return to_errno(cxd_parse_s64(s, strlen(s), out));
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
