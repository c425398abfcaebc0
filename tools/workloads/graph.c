// SPDX-License-Identifier: GPL-2.0
/*
 * Kronecker (R-MAT) graph generator and its CSR form. The generator
 * follows the Graph 500 specification's description (initiator
 * A = 0.57, B = 0.19, C = 0.19, D = 0.05; edge factor; scrambled vertex
 * numbers); the code is ours.
 */
#include <stdlib.h>

#include "wl.h"

/* Initiator probabilities scaled to 2^32 (Graph 500 specification). */
#define KRON_A 2448131359ULL	/* 0.57 * 2^32 */
#define KRON_AB 3264175145ULL	/* 0.76 * 2^32 */
#define KRON_ABC 4080218931ULL	/* 0.95 * 2^32 */

/* A fixed bijection of [0, 2^scale): odd multiplier, xor-shift, mask. */
static uint32_t scramble(uint32_t v, unsigned int scale)
{
	uint64_t mask = (1ULL << scale) - 1;
	uint64_t x = v;

	x = (x * 0x9e3779b1ULL) & mask;
	x ^= x >> (scale / 2 + 1);
	x = (x * 0x85ebca6bULL) & mask;
	return (uint32_t)x;
}

size_t wl_kronecker_bytes(unsigned int scale, unsigned int ef)
{
	uint64_t n = 1ULL << scale, e = (uint64_t)ef * n;

	/* edge list, offsets, adjacency (both directions), alignment slack */
	return e * 2 * sizeof(uint32_t) + (n + 1) * sizeof(uint32_t) +
	       e * 2 * sizeof(uint32_t) + 4 * 64;
}

void wl_kronecker(struct wl_arena *a, struct wl_graph *g, unsigned int scale,
		  unsigned int ef, uint64_t seed)
{
	uint64_t n = 1ULL << scale, e = (uint64_t)ef * n, i, m = 0;
	uint32_t *src, *dst, *pos;
	unsigned int b;

	src = wl_alloc(a, e * sizeof(uint32_t));
	dst = wl_alloc(a, e * sizeof(uint32_t));
	for (i = 0; i < e; i++) {
		uint32_t u = 0, v = 0;

		for (b = 0; b < scale; b++) {
			uint64_t r = wl_rand(&seed) >> 32;

			u <<= 1;
			v <<= 1;
			if (r >= KRON_ABC) {
				u |= 1;
				v |= 1;
			} else if (r >= KRON_AB) {
				u |= 1;
			} else if (r >= KRON_A) {
				v |= 1;
			}
		}
		src[i] = scramble(u, scale);
		dst[i] = scramble(v, scale);
		if ((i & 0xffff) == 0)
			wl_progress("generate edges", i, e);
	}
	wl_progress("generate edges", e, e);
	wl_progress_end();

	g->n = (uint32_t)n;
	g->off = wl_alloc(a, (n + 1) * sizeof(uint32_t));
	for (i = 0; i <= n; i++)
		g->off[i] = 0;
	for (i = 0; i < e; i++) {
		if (src[i] == dst[i])
			continue;
		g->off[src[i] + 1]++;
		g->off[dst[i] + 1]++;
		m += 2;
	}
	for (i = 0; i < n; i++)
		g->off[i + 1] += g->off[i];
	g->m = m;
	g->adj = wl_alloc(a, m * sizeof(uint32_t));
	/* Fill: off[v] walks forward as v's neighbours are placed, then is
	 * restored from its neighbour's start.
	 */
	pos = g->off;
	for (i = 0; i < e; i++) {
		if (src[i] == dst[i])
			continue;
		g->adj[pos[src[i]]++] = dst[i];
		g->adj[pos[dst[i]]++] = src[i];
	}
	for (i = n; i > 0; i--)
		g->off[i] = g->off[i - 1];
	g->off[0] = 0;
}
