// SPDX-License-Identifier: GPL-2.0
/*
 * lackey: keep the data accesses of a valgrind lackey log that fall in one
 * address range (a devdax workload's arena), as cxdvirt-sim text trace
 * lines of byte offsets into that range: `R 0xOFFSET` or `W 0xOFFSET`, one
 * per 4 KiB page an access touches (an access that straddles a page
 * boundary gives two lines, as cxdvirt-sim's own lackey reader does).
 * Instruction fetches and valgrind's `==PID==` lines are dropped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl.h"

static void emit(char rw, unsigned long long addr, unsigned long long size,
		 unsigned long long base, unsigned long long len)
{
	unsigned long long p, last = (addr + (size ? size : 1) - 1) >> 12;

	for (p = addr >> 12; p <= last; p++) {
		unsigned long long a = p == addr >> 12 ? addr : p << 12;

		if (a >= base && a - base < len)
			printf("%c 0x%llx\n", rw, a - base);
	}
}

int wl_lackey_main(int argc, char **argv)
{
	unsigned long long addr, size, lines = 0, kept = 0;
	uint64_t base, len;
	char buf[256], *end;

	if (argc != 3) {
		fprintf(stderr, "usage: cxdvirt-wl lackey BASE LEN < lackey.log > trace\n");
		return 2;
	}
	/* the range must not wrap: BASE + LEN < 2^64 */
	if (wl_parse_num("lackey BASE", argv[1], 0, UINT64_MAX, &base) ||
	    wl_parse_num("lackey LEN", argv[2], 1, UINT64_MAX - base, &len))
		return wl_usage_err(NULL);
	while (fgets(buf, sizeof(buf), stdin)) {
		char kind;

		lines++;
		if (buf[0] != ' ' || buf[1] == ' ' || buf[2] != ' ')
			continue;	/* I lines, ==PID== lines, blank */
		kind = buf[1];
		if (kind != 'L' && kind != 'S' && kind != 'M')
			continue;
		addr = strtoull(buf + 3, &end, 16);
		if (*end != ',') {
			fprintf(stderr, "cxdvirt-wl lackey: line %llu: %s", lines, buf);
			return 1;
		}
		size = strtoull(end + 1, NULL, 10);
		if (addr + size <= base || addr >= base + len)
			continue;
		kept++;
		emit(kind == 'S' ? 'W' : 'R', addr, size, base, len);
		if (kind == 'M')
			emit('W', addr, size, base, len);
	}
	fprintf(stderr, "cxdvirt-wl lackey: %llu lines, %llu accesses in the range\n", lines, kept);
	return fflush(stdout) ? 1 : 0;
}
