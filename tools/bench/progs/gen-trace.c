// SPDX-License-Identifier: GPL-2.0
/*
 * gen-trace: synthetic traces for `make bench-sim` (tools/bench/sim-speed.sh).
 *
 *   gen-trace [--text] OUT N PAGES SHAPE [WRITE_PCT [SEED]]
 *
 * N accesses over PAGES 4 KiB pages, written as a cxdvirt-sim binary trace
 * (tools/sim/trace_bin.c), or as `R|W PAGE` text lines with --text.
 * SHAPE:
 *   uniform   every page equally likely;
 *   hotcold   90% of the accesses to the first 10% of the pages, the rest
 *             uniform over all of them (the classic 90/10 skew).
 * WRITE_PCT (default 0) of the accesses are writes. SEED (default 1) seeds
 * splitmix64, so the same arguments give the same file. The generator is
 * tools/sim/gen.c, which cxdvirt-sim sweep's generated traces use too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/sim.h"

static int usage(void)
{
	fprintf(stderr, "usage: gen-trace [--text] OUT N PAGES uniform|hotcold [WRITE_PCT [SEED]]\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint64_t n, pages, wpct = 0, seed, i;
	struct trace t;
	bool text = false;
	int shape, ret;
	FILE *f;

	if (argc > 1 && !strcmp(argv[1], "--text")) {
		text = true;
		argc--;
		argv++;
	}
	if (argc < 5 || argc > 7)
		return usage();
	n = strtoull(argv[2], NULL, 0);
	pages = strtoull(argv[3], NULL, 0);
	shape = trace_shape_parse(argv[4]);
	if (shape < 0)
		return usage();
	if (argc > 5)
		wpct = strtoull(argv[5], NULL, 0);
	seed = argc > 6 ? strtoull(argv[6], NULL, 0) : 1;
	if (wpct > 100)
		return usage();
	ret = trace_gen(&t, shape, n, pages, (unsigned int)wpct, seed, 1, 0);
	if (ret == -ENOMEM) {
		fprintf(stderr, "gen-trace: out of memory\n");
		return 1;
	}
	if (ret)
		return usage();
	if (!text) {
		ret = trace_write_binary(argv[1], &t) ? 1 : 0;
		free(t.buf);
		return ret;
	}
	f = fopen(argv[1], "w");
	if (!f) {
		fprintf(stderr, "gen-trace: %s: %s\n", argv[1], strerror(errno));
		free(t.buf);
		return 1;
	}
	for (i = 0; i < t.n; i++)
		fprintf(f, "%c %" PRIu64 "\n", t.recs[i] & TRACE_WRITE ? 'W' : 'R',
			trace_page(t.recs[i]));
	free(t.buf);
	if (fclose(f)) {
		fprintf(stderr, "gen-trace: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
