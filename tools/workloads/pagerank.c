// SPDX-License-Identifier: GPL-2.0
/*
 * PageRank by pull iterations (each vertex sums its neighbours'
 * rank / degree), damping factor 0.85 as in Page et al. 1998.
 */
#include <math.h>

#include "wl.h"

#define PR_DAMPING 0.85

size_t wl_pagerank_bytes(unsigned int scale)
{
	return 2 * ((1ULL << scale) * sizeof(double) + 64);
}

uint64_t wl_pagerank(struct wl_arena *a, const struct wl_graph *g, unsigned int iters)
{
	double *rank = wl_alloc(a, (size_t)g->n * sizeof(double));
	double *next = wl_alloc(a, (size_t)g->n * sizeof(double));
	double base = (1.0 - PR_DAMPING) / g->n, sum = 0, *t;
	uint32_t v, k;
	unsigned int it;

	for (v = 0; v < g->n; v++)
		rank[v] = 1.0 / g->n;
	for (it = 0; it < iters; it++) {
		for (v = 0; v < g->n; v++) {
			double in = 0;

			for (k = g->off[v]; k < g->off[v + 1]; k++) {
				uint32_t u = g->adj[k];

				in += rank[u] / (double)(g->off[u + 1] - g->off[u]);
			}
			next[v] = base + PR_DAMPING * in;
		}
		t = rank;
		rank = next;
		next = t;
		wl_progress("pagerank iteration", it + 1, iters);
	}
	wl_progress_end();
	for (v = 0; v < g->n; v++)
		sum += rank[v];
	return (uint64_t)llround(sum * 1e6);
}
