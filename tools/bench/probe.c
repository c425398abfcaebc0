// SPDX-License-Identifier: GPL-2.0
/*
 * The latency probe: the pages each thread visits, the chase built in them,
 * timed passes and eviction passes.
 *
 * Layout of the mapping (pages of p->page bytes):
 *   [0, span)                        the threads' regions; region r has
 *                                    r->nslots slots, slot k at page
 *                                    r->first + k * r->stride
 *   [span, span + 2 * nevict)        eviction region, two halves used in turn
 *
 * A dependent pattern (chase, seq, stride) stores in word 0 of each page the
 * byte offset of the next page to visit, so each access depends on the one
 * before. The random pattern, and any pattern with --cold (pages untouched
 * before the timed pass), visit pages through an index array instead.
 *
 * One access = one page: a store to word 1 for a write access, then a read
 * of word 0 and of the next words up to the access size. Each access is
 * bracketed by two timer reads (timer.c); the timer's cost is measured
 * separately and never subtracted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define barrier()	__asm__ __volatile__("" ::: "memory")

const char *pattern_name(enum pattern p)
{
	switch (p) {
	case PATTERN_SEQ:
		return "seq";
	case PATTERN_RANDOM:
		return "random";
	case PATTERN_STRIDE:
		return "stride";
	case PATTERN_CHASE:
		break;
	}
	return "chase";
}

/**
 * rng_next() - splitmix64: the next 64-bit pseudo-random number.
 * @state:	the generator state, advanced; seed it with any value.
 *
 * Same sequence on every platform, so a seed reproduces a run.
 */
uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/** rng_below() - uniform in [0, n), n >= 1, without modulo bias. */
uint64_t rng_below(uint64_t *state, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, r;

	do
		r = rng_next(state);
	while (r >= limit);
	return r % n;
}

/**
 * region_init() - the slots of one region and their cyclic visiting order:
 * a Fisher-Yates shuffle seeded with @seed for PATTERN_CHASE, 0, 1, 2, ...
 * otherwise.
 *
 * Return: 0 or -ENOMEM.
 */
int region_init(struct region *r, uint64_t first, uint64_t stride, uint64_t nslots,
		enum pattern pat, uint64_t seed)
{
	uint64_t i, j, t, st = seed;

	r->first = first;
	r->stride = stride;
	r->nslots = nslots;
	r->order = malloc(nslots * sizeof(*r->order));
	if (!r->order)
		return -ENOMEM;
	for (i = 0; i < nslots; i++)
		r->order[i] = i;
	if (pat == PATTERN_CHASE) {
		for (i = nslots - 1; i > 0; i--) {
			j = rng_below(&st, i + 1);
			t = r->order[i];
			r->order[i] = r->order[j];
			r->order[j] = t;
		}
	}
	return 0;
}

void region_free(struct region *r)
{
	free(r->order);
	r->order = NULL;
}

/** region_off() - byte offset in the mapping of slot @slot of @r. */
uint64_t region_off(const struct probe *p, const struct region *r, uint64_t slot)
{
	return (r->first + slot * r->stride) * p->page;
}

/**
 * region_build() - write the visiting order into the region: word 0 of each
 * page gets the byte offset of the next page (0 for the random pattern).
 * This writes, and so faults in, every page of the region.
 */
void region_build(struct probe *p, struct region *r, enum pattern pat)
{
	uint64_t i, n = r->nslots;

	for (i = 0; i < n; i++) {
		volatile uint64_t *w = (volatile uint64_t *)(p->base + region_off(p, r, r->order[i]));

		w[0] = pat == PATTERN_RANDOM ? 0 : region_off(p, r, r->order[(i + 1) % n]);
		w[1] = 0;
	}
}

/**
 * probe_evict() - read word 0 of every page of eviction half @pass % 2,
 * untimed, so that (for FIFO- or LRU-like policies, with nevict >= the
 * cache's lines) the working set is pushed out of the device cache. The
 * halves alternate so that each eviction pass touches pages that are not
 * resident (the previous pass's half was itself pushed out by the other).
 */
void probe_evict(struct probe *p, unsigned int pass)
{
	uint8_t *half = p->base + (p->span + (pass % 2) * p->nevict) * p->page;
	uint64_t i, sink = 0;

	for (i = 0; i < p->nevict; i++)
		sink += *(volatile uint64_t *)(half + i * p->page);
	barrier();
	(void)sink;
}

/*
 * The timed loop, specialised by the compiler for each (timer, dependent)
 * pair through the constant arguments of the always-inline function.
 */
static inline __attribute__((always_inline)) void
pass_loop(const struct pass_args *a, bool tsc, bool dep)
{
	uint8_t *base = a->p->base;
	uint64_t off = a->start, t0, t1, i, x, sink = 0;
	unsigned int j;
	volatile uint64_t *w;

	for (i = 0; i < a->n; i++) {
		if (!dep)
			off = region_off(a->p, a->r, a->idx[i]);
		w = (volatile uint64_t *)(base + off);
		t0 = tsc ? tsc_ticks() : clock_ticks();
		barrier();
		if (a->is_write[i])
			w[1] = i;
		x = w[0];
		for (j = 1; j < a->words; j++)
			sink += w[j];
		barrier();
		t1 = tsc ? tsc_ticks() : clock_ticks();
		a->lat[i] = t1 - t0;
		if (dep)
			off = x;
		else
			sink += x;
	}
	__asm__ __volatile__("" :: "r"(sink));
}

/** probe_pass() - one thread's timed pass (see struct pass_args). */
void probe_pass(struct pass_args *a)
{
	bool dep = !a->cold && a->pat != PATTERN_RANDOM;

	a->t_begin = now_ns();
	if (a->tsc)
		dep ? pass_loop(a, true, true) : pass_loop(a, true, false);
	else
		dep ? pass_loop(a, false, true) : pass_loop(a, false, false);
	a->t_end = now_ns();
}
