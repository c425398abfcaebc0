// SPDX-License-Identifier: GPL-2.0
/*
 * Synthetic traces: the generator of gen-trace (tools/bench/progs/) and of
 * the trace generators in a `cxdvirt-sim sweep` grid (sweep.c). One
 * source, so that a grid's `uniform ...` line and the gen-trace command
 * with the same numbers replay the same accesses.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* splitmix64 (Steele, Lea, Flood 2014), as in java.util.SplittableRandom. */
static uint64_t next(uint64_t *rng)
{
	uint64_t z = (*rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [0, n) by multiply-shift (Lemire); n < 2^32. */
static uint64_t below(uint64_t *rng, uint64_t n)
{
	return ((next(rng) >> 32) * n) >> 32;
}

/**
 * trace_scatter_valid() - whether @scatter is a valid scatter span for a
 * working set of @pages pages: 0 (off), or a power of two >= @pages and
 * <= 2^32 (4 KiB pages).
 */
bool trace_scatter_valid(uint64_t scatter, uint64_t pages)
{
	return !scatter || (!(scatter & (scatter - 1)) && scatter >= pages &&
			    scatter <= (1ull << 32));
}

/*
 * Page @k of the working set placed in [0, @span), @span a power of two:
 * three rounds of xor-shift and multiplication by an odd constant, each a
 * bijection of k-bit numbers, so distinct pages stay distinct, and the high
 * bits move into the low ones (which a set-associative cache indexes).
 */
static uint64_t scatter_page(uint64_t k, uint64_t span, uint64_t seed)
{
	uint64_t mask = span - 1, x = k;
	unsigned int bits = 0, r;

	while ((1ull << bits) < span)
		bits++;
	if (!bits)
		return 0;
	for (r = 0; r < 3; r++) {
		x ^= (seed * 0x9e3779b97f4a7c15ull + r) & mask;
		x ^= x >> ((bits + 1) / 2);
		x = (x * 0xbf58476d1ce4e5b9ull) & mask;
	}
	return x;
}

/**
 * trace_shape_parse() - a shape's name.
 * @name: "uniform" or "hotcold".
 *
 * Return: enum trace_shape, or -1 for any other name.
 */
int trace_shape_parse(const char *name)
{
	if (!strcmp(name, "uniform"))
		return TRACE_UNIFORM;
	if (!strcmp(name, "hotcold"))
		return TRACE_HOTCOLD;
	return -1;
}

/**
 * trace_gen() - a synthetic trace in memory.
 * @t:     filled on success (free with trace_free()).
 * @shape: TRACE_UNIFORM: every page equally likely; TRACE_HOTCOLD: 90% of
 *         the accesses to the first 10% of the pages, the rest uniform
 *         over all of them.
 * @n:     accesses, >= 1.
 * @pages: 4 KiB pages the accesses spread over, 1 to 2^32 - 1.
 * @wpct:  percent of the accesses that are writes, 0 to 100.
 * @seed:  seed of splitmix64: the same arguments give the same trace.
 * @threads: 1 to TRACE_THREAD_MAX + 1: access i belongs to thread
 *         i % @threads (round-robin), every thread drawing from the same
 *         distribution over all @pages. With 1, the trace is the one the
 *         earlier single-thread generator wrote.
 * @scatter: 0: page k of the working set is device page k. Else a power
 *         of two >= @pages and <= 2^32 (pages): page k is scatter_page(k),
 *         a seeded bijection of [0, @scatter), so the working set lies
 *         scattered over @scatter pages (the draws are the same).
 *
 * Return: 0; -EINVAL for an argument out of range, -ENOMEM (nothing
 * printed either way).
 */
int trace_gen(struct trace *t, enum trace_shape shape, uint64_t n,
	      uint64_t pages, unsigned int wpct, uint64_t seed,
	      uint32_t threads, uint64_t scatter)
{
	uint64_t i, page, hot, rng = seed, *recs;
	bool w;

	memset(t, 0, sizeof(*t));
	if (!n || !pages || pages >= (1ull << 32) || wpct > 100 ||
	    (shape != TRACE_UNIFORM && shape != TRACE_HOTCOLD) ||
	    n > SIZE_MAX / sizeof(*recs) || !threads ||
	    threads > TRACE_THREAD_MAX + 1 || !trace_scatter_valid(scatter, pages))
		return -EINVAL;
	hot = pages / 10 ? pages / 10 : 1;
	recs = malloc(n * sizeof(*recs));
	if (!recs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		page = shape == TRACE_HOTCOLD && below(&rng, 100) < 90 ?
		       below(&rng, hot) : below(&rng, pages);
		w = wpct && below(&rng, 100) < wpct;
		if (scatter)
			page = scatter_page(page, scatter, seed);
		recs[i] = trace_pack(page, w, (uint32_t)(i % threads));
		if (page > t->max_page)
			t->max_page = page;
	}
	t->recs = recs;
	t->buf = recs;
	t->n = n;
	t->ndiscards = 0;
	t->threads = n < threads ? (uint32_t)n : threads;
	return 0;
}
