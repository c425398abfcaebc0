// SPDX-License-Identifier: GPL-2.0
/*
 * Exact miss-latency percentiles for cxdvirt-sim without keeping every
 * latency: a count per ns value below LAT_EXACT_NS (1.05 ms; a miss of
 * the presets takes 6-100 us), and a list of the rare larger ones. The
 * percentiles are the same nearest-rank values a sort of all latencies
 * gives, at O(1) per miss instead of 8 bytes and a sort.
 */
#include <stdlib.h>

#include "sim.h"

/**
 * lat_init() - an empty distribution.
 * @h: to initialise.
 *
 * Return: 0, or -1 out of memory.
 */
int lat_init(struct lat_hist *h)
{
	*h = (struct lat_hist){ 0 };
	h->exact = calloc(LAT_EXACT_NS, sizeof(*h->exact));
	return h->exact ? 0 : -1;
}

/**
 * lat_add_big() - the slow path of lat_add() for @ns >= LAT_EXACT_NS.
 * @h:  distribution (n, sum and max already counted).
 * @ns: the latency.
 *
 * Return: 0, or -1 out of memory.
 */
int lat_add_big(struct lat_hist *h, uint64_t ns)
{
	uint64_t *nb;

	if (h->nbig == h->capbig) {
		h->capbig = h->capbig ? 2 * h->capbig : 1024;
		nb = realloc(h->big, h->capbig * sizeof(*nb));
		if (!nb)
			return -1;
		h->big = nb;
	}
	h->big[h->nbig++] = ns;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/** lat_finish() - sort the large latencies; call once before lat_pct(). */
void lat_finish(struct lat_hist *h)
{
	qsort(h->big, h->nbig, sizeof(*h->big), cmp_u64);
}

/**
 * lat_pct() - nearest-rank percentile.
 * @h: distribution after lat_finish().
 * @q: quantile, 0..1.
 *
 * Return: the smallest latency (ns) with at least ceil(q * n) latencies at
 * or below it (rank clamped to 1..n); 0 if @h is empty.
 */
uint64_t lat_pct(const struct lat_hist *h, double q)
{
	uint64_t k, seen = 0, v;

	if (!h->n)
		return 0;
	k = (uint64_t)(q * (double)h->n + 0.999999);
	if (k < 1)
		k = 1;
	if (k > h->n)
		k = h->n;
	for (v = 0; v < LAT_EXACT_NS; v++) {
		seen += h->exact[v];
		if (seen >= k)
			return v;
	}
	return h->big[k - seen - 1];
}

/** lat_free() - release @h's memory. */
void lat_free(struct lat_hist *h)
{
	free(h->exact);
	free(h->big);
	*h = (struct lat_hist){ 0 };
}
