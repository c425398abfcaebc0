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
 * splitmix64, so the same arguments give the same file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/sim.h"

static uint64_t rng;

/* splitmix64 (Steele, Lea, Flood 2014), as in java.util.SplittableRandom. */
static uint64_t next(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) by multiply-shift (Lemire); n < 2^32. */
static uint64_t below(uint64_t n)
{
	return ((next() >> 32) * n) >> 32;
}

static int usage(void)
{
	fprintf(stderr, "usage: gen-trace [--text] OUT N PAGES uniform|hotcold [WRITE_PCT [SEED]]\n");
	return 2;
}

int main(int argc, char **argv)
{
	uint64_t n, pages, i, page, hot, wpct = 0, *recs;
	struct trace t = { 0 };
	bool text = false, hc, w;
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
	hc = !strcmp(argv[4], "hotcold");
	if (!hc && strcmp(argv[4], "uniform"))
		return usage();
	if (argc > 5)
		wpct = strtoull(argv[5], NULL, 0);
	rng = argc > 6 ? strtoull(argv[6], NULL, 0) : 1;
	if (!n || !pages || pages >= (1ull << 32) || wpct > 100)
		return usage();
	hot = pages / 10 ? pages / 10 : 1;

	recs = malloc(n * sizeof(*recs));
	if (!recs) {
		fprintf(stderr, "gen-trace: out of memory\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		page = hc && below(100) < 90 ? below(hot) : below(pages);
		w = wpct && below(100) < wpct;
		recs[i] = trace_pack(page, w, 0);
		if (page > t.max_page)
			t.max_page = page;
	}
	t.recs = recs;
	t.n = n;
	t.threads = 1;
	if (!text) {
		i = trace_write_binary(argv[1], &t) ? 1 : 0;
		free(recs);
		return (int)i;
	}
	f = fopen(argv[1], "w");
	if (!f) {
		fprintf(stderr, "gen-trace: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < n; i++)
		fprintf(f, "%c %" PRIu64 "\n", recs[i] & TRACE_WRITE ? 'W' : 'R',
			trace_page(recs[i]));
	free(recs);
	if (fclose(f)) {
		fprintf(stderr, "gen-trace: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
