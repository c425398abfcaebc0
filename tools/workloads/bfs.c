// SPDX-License-Identifier: GPL-2.0
/*
 * Breadth-first search, top-down, one queue (the textbook algorithm).
 */
#include "wl.h"

size_t wl_bfs_bytes(unsigned int scale)
{
	return 2 * ((1ULL << scale) * sizeof(uint32_t) + 64);
}

uint64_t wl_bfs(struct wl_arena *a, const struct wl_graph *g, uint32_t root)
{
	uint32_t *parent = wl_alloc(a, (size_t)g->n * sizeof(uint32_t));
	uint32_t *queue = wl_alloc(a, (size_t)g->n * sizeof(uint32_t));
	uint64_t head = 0, tail = 0, v;

	for (v = 0; v < g->n; v++)
		parent[v] = UINT32_MAX;
	parent[root] = root;
	queue[tail++] = root;
	while (head < tail) {
		uint32_t u = queue[head++], k;

		for (k = g->off[u]; k < g->off[u + 1]; k++) {
			uint32_t w = g->adj[k];

			if (parent[w] == UINT32_MAX) {
				parent[w] = u;
				queue[tail++] = w;
			}
		}
		if ((head & 0xfff) == 0)
			wl_progress("bfs", head, g->n);
	}
	wl_progress("bfs", tail, tail);
	wl_progress_end();
	return tail;
}
