// SPDX-License-Identifier: GPL-2.0
/*
 * Hits and misses from latencies alone, and percentiles.
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
 *
 * Percentiles are nearest-rank over the sorted values: Pq is the value at
 * rank ceil(q/100 * n), computed in integers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define OTSU_BINS		512
#define MIN_SEPARATION_LOG2	2.0

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/** sort_u64() - sort @n values ascending (qsort). */
void sort_u64(uint64_t *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_u64);
}

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
	sort_u64(sorted, n);
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

/**
 * quantile_rank() - nearest rank: the value at rank ceil(q * n) of @n
 * ascending values (q in [0, 1]); 0 if @n is 0.
 */
uint64_t quantile_rank(const uint64_t *sorted, size_t n, double q)
{
	double x = q * (double)n;
	size_t r;

	if (!n)
		return 0;
	r = (size_t)x;
	if ((double)r < x - 1e-9)
		r++;
	if (r > n)
		r = n;
	return sorted[r ? r - 1 : 0];
}

/* Pq in 1/100000 units with exact integer ranks: ceil(n * q / 100000). */
static uint64_t rank(const uint64_t *sorted, size_t n, unsigned int q)
{
	size_t r = (size_t)(((unsigned __int128)n * q + 99999) / 100000);

	return sorted[r ? r - 1 : 0];
}

/**
 * summarize() - count, mean, P50, P90, P99, P99.9, P99.99 and max of @n
 * sorted latencies (ns).
 * @sorted:	ascending.
 * @s:		the summary; all zero if @n is 0.
 */
void summarize(const uint64_t *sorted, size_t n, struct lat_summary *s)
{
	long double sum = 0;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->count = n;
	if (!n)
		return;
	for (i = 0; i < n; i++)
		sum += sorted[i];
	s->mean_ns = (double)(sum / n);
	s->p50_ns = rank(sorted, n, 50000);
	s->p90_ns = rank(sorted, n, 90000);
	s->p99_ns = rank(sorted, n, 99000);
	s->p999_ns = rank(sorted, n, 99900);
	s->p9999_ns = rank(sorted, n, 99990);
	s->max_ns = sorted[n - 1];
}
