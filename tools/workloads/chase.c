// SPDX-License-Identifier: GPL-2.0
/*
 * Pointer chase in the style of memory-latency benchmarks (lmbench's
 * lat_mem_rd, MIO): 64-byte elements, each holding the index of the next,
 * linked into one random cycle so that every load depends on the one
 * before and no prefetcher can guess the next page.
 */
#include "wl.h"

#define CHASE_ELEM 64
#define CHASE_PER_PAGE (4096 / CHASE_ELEM)

struct chase_elem {
	uint64_t next;
	unsigned char pad[CHASE_ELEM - sizeof(uint64_t)];
};

size_t wl_chase_bytes(uint64_t pages)
{
	return pages * 4096 + pages * CHASE_PER_PAGE * sizeof(uint32_t) + 2 * 64;
}

uint64_t wl_chase(struct wl_arena *a, uint64_t pages, uint64_t steps, uint64_t seed)
{
	uint64_t n = pages * CHASE_PER_PAGE, i, at = 0;
	struct chase_elem *e = wl_alloc(a, n * sizeof(*e));
	uint32_t *order = wl_alloc(a, n * sizeof(uint32_t));

	/* Sattolo's algorithm: a uniformly random cyclic permutation. */
	for (i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	for (i = n - 1; i > 0; i--) {
		uint64_t j = wl_rand_below(&seed, i);
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < n; i++)
		e[order[i]].next = order[(i + 1) % n];
	for (i = 0; i < steps; i++) {
		at = e[at].next;
		if ((i & 0xffff) == 0)
			wl_progress("chase", i, steps);
	}
	wl_progress("chase", steps, steps);
	wl_progress_end();
	return at;
}
