// SPDX-License-Identifier: GPL-2.0
/*
 * Hits and misses from latencies alone.
 *
 * threshold_from_data() first asks whether there are two classes, with
 * Otsu's method on log2(latency): the cut of the log-latency histogram that
 * maximises the between-class variance. The two classes must have mean
 * log-latencies at least MIN_SEPARATION_LOG2 apart (x4), else the data are
 * one class (e.g. every access a hit) and there is no threshold. Then the
 * threshold goes in the middle (geometric) of the largest gap between
 * consecutive sorted latencies that lies between the two class means.
 * Searching the largest gap only there keeps a few stray samples in the tail
 * (interrupts, preemption) from being taken for the miss class; placing the
 * cut mid-gap keeps it away from both clusters. A class smaller than about
 * 1% of the accesses is not reliably found: use the model threshold then.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define OTSU_BINS		512
#define MIN_SEPARATION_LOG2	2.0

/**
 * threshold_from_data() - a hit/miss threshold derived from @lat alone.
 * @lat:	latencies in ns (any order).
 * @n:		how many.
 *
 * Return: the threshold in ns (an access is a miss if its latency is above
 * it), or 0 if the data show no second class.
 */
uint64_t threshold_from_data(const uint64_t *lat, size_t n)
{
	double lo = INFINITY, hi = 0, width, sum_all = 0, sum0 = 0, best = -1;
	double mu0, mu1, best_mu0 = 0, best_mu1 = 0, c, x, a, b, gap = -1, cut = 0;
	uint64_t *hist, *sorted, w0 = 0, w1;
	size_t i, k;

	if (n < 2)
		return 0;
	for (i = 0; i < n; i++) {
		x = log2((double)(lat[i] ? lat[i] : 1));
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
	}
	if (hi - lo < MIN_SEPARATION_LOG2)
		return 0;
	hist = calloc(OTSU_BINS, sizeof(*hist));
	if (!hist)
		return 0;
	width = (hi - lo) / OTSU_BINS;
	for (i = 0; i < n; i++) {
		x = log2((double)(lat[i] ? lat[i] : 1));
		k = (size_t)((x - lo) / width);
		hist[k < OTSU_BINS ? k : OTSU_BINS - 1]++;
	}
	for (k = 0; k < OTSU_BINS; k++)
		sum_all += (lo + ((double)k + 0.5) * width) * (double)hist[k];
	for (k = 0; k + 1 < OTSU_BINS; k++) {
		c = lo + ((double)k + 0.5) * width;
		w0 += hist[k];
		sum0 += c * (double)hist[k];
		w1 = n - w0;
		if (!w0 || !w1)
			continue;
		mu0 = sum0 / (double)w0;
		mu1 = (sum_all - sum0) / (double)w1;
		x = (double)w0 * (double)w1 * (mu1 - mu0) * (mu1 - mu0);
		if (x > best) {
			best = x;
			best_mu0 = mu0;
			best_mu1 = mu1;
		}
	}
	free(hist);
	if (best < 0 || best_mu1 - best_mu0 < MIN_SEPARATION_LOG2)
		return 0;

	/* Largest gap between the class means; cut in its middle. */
	sorted = malloc(n * sizeof(*sorted));
	if (!sorted)
		return (uint64_t)exp2((best_mu0 + best_mu1) / 2);
	memcpy(sorted, lat, n * sizeof(*sorted));
	cxu_sort_u64(sorted, n);
	for (i = 0; i + 1 < n; i++) {
		a = log2((double)(sorted[i] ? sorted[i] : 1));
		b = log2((double)(sorted[i + 1] ? sorted[i + 1] : 1));
		if (a < best_mu0 || b > best_mu1)
			continue;
		if (b - a > gap) {
			gap = b - a;
			cut = (a + b) / 2;
		}
	}
	free(sorted);
	if (gap < 0)
		cut = (best_mu0 + best_mu1) / 2;
	return (uint64_t)exp2(cut);
}
