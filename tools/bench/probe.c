// SPDX-License-Identifier: GPL-2.0
/*
 * The latency probe: map the device, build a pointer chase through the
 * working set, then time each page access of a pass.
 *
 * Layout of the mapping (pages of p->page bytes):
 *   [0, npages)                     working set; word 0 of each page holds
 *                                   the byte offset of the next page to visit
 *   [npages, npages + 2 * nevict)   eviction region, two halves used in turn
 *
 * One access = one page: a read of word 0 (the next offset), preceded by a
 * store to word 1 for a write access, so a write that misses takes a single
 * write fault. Each access is bracketed by clock_gettime(CLOCK_MONOTONIC);
 * the timer's own cost is measured separately and not subtracted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <time.h>

#include "bench.h"

#define barrier()	__asm__ __volatile__("" ::: "memory")
#define TIMER_SAMPLES	100000

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

/* Uniform in [0, n), n >= 1, without modulo bias. */
static uint64_t rng_below(uint64_t *state, uint64_t n)
{
	uint64_t limit = UINT64_MAX - UINT64_MAX % n, r;

	do
		r = rng_next(state);
	while (r >= limit);
	return r % n;
}

/**
 * probe_map() - map the working set and the eviction region of @fd,
 * MAP_SHARED from offset 0.
 * @p:		the probe, filled.
 * @npages:	working-set pages.
 * @nevict:	pages per eviction half (0: none).
 *
 * Return: 0 or -errno.
 */
int probe_map(struct probe *p, int fd, uint64_t npages, uint64_t nevict)
{
	uint64_t total = npages + 2 * nevict;
	void *m;

	memset(p, 0, sizeof(*p));
	p->page = (size_t)sysconf(_SC_PAGESIZE);
	if (total > SIZE_MAX / p->page)
		return -EOVERFLOW;
	p->map_len = (size_t)total * p->page;
	m = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	p->base = m;
	p->npages = npages;
	p->nevict = nevict;
	return 0;
}

/** probe_unmap() - undo probe_map(). */
void probe_unmap(struct probe *p)
{
	if (p->base)
		munmap(p->base, p->map_len);
	p->base = NULL;
}

/**
 * probe_build() - write the visiting order into the working set: word 0 of
 * each page gets the byte offset of the next page. This writes (and so
 * faults in) every working-set page.
 * @p:		a mapped probe.
 * @pat:	PATTERN_CHASE: a Fisher-Yates shuffle seeded with @seed, linked
 *		into one cycle through all pages; PATTERN_SEQ: 0, 1, 2, ...
 * @seed:	the shuffle's seed.
 *
 * Return: 0 or -ENOMEM.
 */
int probe_build(struct probe *p, enum pattern pat, uint64_t seed)
{
	uint64_t *order, i, j, t, st = seed, n = p->npages;

	order = malloc(n * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		order[i] = i;
	if (pat == PATTERN_CHASE) {
		for (i = n - 1; i > 0; i--) {
			j = rng_below(&st, i + 1);
			t = order[i];
			order[i] = order[j];
			order[j] = t;
		}
	}
	for (i = 0; i < n; i++) {
		volatile uint64_t *w = (volatile uint64_t *)(p->base + order[i] * p->page);

		w[0] = order[(i + 1) % n] * p->page;
		w[1] = 0;
	}
	p->start = order[0] * p->page;
	p->pattern = pat;
	free(order);
	return 0;
}

/**
 * probe_evict() - read word 0 of every page of eviction half @pass % 2,
 * untimed, so that (for FIFO- or LRU-like policies, with nevict >= the
 * cache's lines) the working set is pushed out of the device cache. The
 * halves alternate so that each eviction pass touches pages that are not
 * resident (the previous pass's half was itself pushed out by the other).
 * @p:		a built probe with nevict > 0.
 * @pass:	the measured pass this precedes.
 */
void probe_evict(struct probe *p, unsigned int pass)
{
	uint8_t *half = p->base + (p->npages + (pass % 2) * p->nevict) * p->page;
	uint64_t i, sink = 0;

	for (i = 0; i < p->nevict; i++)
		sink += *(volatile uint64_t *)(half + i * p->page);
	barrier();
	(void)sink;
}

/**
 * probe_pass() - one measured pass: visit every working-set page once, in
 * the built order, timing each access.
 * @p:		a built probe.
 * @is_write:	[npages] nonzero: the i-th access is a write (store to word 1
 *		before the read of word 0).
 * @lat_ns:	[npages] latency of the i-th access, ns, timer cost included.
 */
void probe_pass(struct probe *p, const uint8_t *is_write, uint64_t *lat_ns)
{
	uint64_t off = p->start, t0, t1, i;
	volatile uint64_t *w;

	for (i = 0; i < p->npages; i++) {
		w = (volatile uint64_t *)(p->base + off);
		t0 = now_ns();
		barrier();
		if (is_write[i])
			w[1] = i;
		off = w[0];
		barrier();
		t1 = now_ns();
		lat_ns[i] = t1 - t0;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/**
 * timer_measure() - the cost of the timing itself: back-to-back
 * clock_gettime(CLOCK_MONOTONIC) pairs, as in probe_pass() without the
 * access.
 * @tc:	min and median pair cost (ns), and the clock's resolution (ns).
 */
void timer_measure(struct timer_cost *tc)
{
	uint64_t *d = malloc(TIMER_SAMPLES * sizeof(*d)), t0, t1;
	struct timespec res;
	size_t i;

	memset(tc, 0, sizeof(*tc));
	if (!clock_getres(CLOCK_MONOTONIC, &res))
		tc->resolution_ns = (uint64_t)res.tv_sec * 1000000000ull +
				    (uint64_t)res.tv_nsec;
	if (!d)
		return;
	for (i = 0; i < TIMER_SAMPLES; i++) {
		t0 = now_ns();
		barrier();
		t1 = now_ns();
		d[i] = t1 - t0;
	}
	qsort(d, TIMER_SAMPLES, sizeof(*d), cmp_u64);
	tc->min_ns = d[0];
	tc->median_ns = d[TIMER_SAMPLES / 2];
	free(d);
}
