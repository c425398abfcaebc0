/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency percentiles and their summary, for every tool.
 *
 * One rule: the Pq of n values is the nearest rank, the value at rank
 * ceil(q * n) in ascending order (rank 1 is the smallest), computed in
 * integers from q in parts per million. Two sources: a sorted array
 * (cxdvirt-bench keeps every latency) or an exact histogram (cxdvirt-sim
 * replays 10^8 accesses and keeps counts); both give the same values.
 */
#ifndef CXU_LAT_H
#define CXU_LAT_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* Quantiles in parts per million. */
#define CXU_P50		500000u
#define CXU_P90		900000u
#define CXU_P99		990000u
#define CXU_P999	999000u
#define CXU_P9999	999900u
#define CXU_PPM		1000000u

/**
 * cxu_sort_u64() - sort @n values ascending.
 * @v:	the values.
 * @n:	how many.
 */
void cxu_sort_u64(uint64_t *v, size_t n);

/**
 * cxu_rank() - the nearest rank of quantile @q_ppm among @n values.
 * @n:		how many values.
 * @q_ppm:	quantile in parts per million, 0..CXU_PPM.
 *
 * Return: ceil(@q_ppm * @n / 10^6) clamped to 1..@n; 0 if @n is 0.
 */
uint64_t cxu_rank(uint64_t n, uint32_t q_ppm);

/**
 * cxu_pct_sorted() - quantile @q_ppm of @n ascending values.
 * @sorted:	the values, ascending (cxu_sort_u64()).
 * @n:		how many.
 * @q_ppm:	quantile in parts per million.
 *
 * Return: the value at cxu_rank(@n, @q_ppm); 0 if @n is 0.
 */
uint64_t cxu_pct_sorted(const uint64_t *sorted, size_t n, uint32_t q_ppm);

/**
 * struct cxu_lat_summary - count, mean and percentiles of latencies.
 * @count:	latencies.
 * @mean_ns:	their mean, ns.
 * @p50_ns:	P50 (nearest rank), ns; likewise @p90_ns to @p9999_ns.
 * @p90_ns:	P90, ns.
 * @p99_ns:	P99, ns.
 * @p999_ns:	P99.9, ns.
 * @p9999_ns:	P99.99, ns.
 * @max_ns:	the largest, ns.
 *
 * All zero when @count is 0.
 */
struct cxu_lat_summary {
	uint64_t count;
	double mean_ns;
	uint64_t p50_ns;
	uint64_t p90_ns;
	uint64_t p99_ns;
	uint64_t p999_ns;
	uint64_t p9999_ns;
	uint64_t max_ns;
};

/**
 * cxu_lat_summarize() - summarise @n ascending latencies.
 * @sorted:	latencies in ns, ascending.
 * @n:		how many.
 * @s:		the summary.
 */
void cxu_lat_summarize(const uint64_t *sorted, size_t n,
		       struct cxu_lat_summary *s);

/* cxu_lat_json() flags. */
#define CXU_LAT_JSON_NS		0x1	/* keys end in _ns: "p50_ns" */
#define CXU_LAT_JSON_P9999	0x2	/* include P99.99 */

/**
 * cxu_lat_json() - @s as a JSON object: count, mean, p50, p90, p99, p999,
 * [p9999], max, in this order (values in ns).
 * @s:		the summary.
 * @flags:	CXU_LAT_JSON_*.
 *
 * Return: a new json-c object (the caller owns it), or NULL out of memory.
 */
struct json_object *cxu_lat_json(const struct cxu_lat_summary *s,
				 unsigned int flags);

/*
 * An exact latency distribution without keeping every latency: a count per
 * ns value below CXU_LAT_EXACT_NS (1.05 ms; a modeled miss takes 6-100 us)
 * and a list of the rare larger ones. O(1) per latency instead of 8 bytes
 * and a sort.
 */
#define CXU_LAT_EXACT_NS	(1u << 20)

/**
 * struct cxu_lat_hist - exact distribution of latencies.
 * @exact:	[CXU_LAT_EXACT_NS] counts of each latency below
 *		CXU_LAT_EXACT_NS ns.
 * @big:	the latencies >= CXU_LAT_EXACT_NS, sorted by
 *		cxu_lat_hist_summarize().
 * @nbig:	entries in @big.
 * @capbig:	allocated entries of @big.
 * @n:		latencies added.
 * @sum:	their sum, ns.
 * @max:	the largest, ns.
 *
 * Memory: 8 bytes per distinct ns value below CXU_LAT_EXACT_NS actually
 * used (calloc'd pages stay untouched otherwise), 8 bytes per latency above.
 */
struct cxu_lat_hist {
	uint64_t *exact;
	uint64_t *big;
	uint64_t nbig, capbig;
	uint64_t n, sum, max;
};

/**
 * cxu_lat_hist_init() - an empty distribution.
 * @h:	to initialise.
 *
 * Return: 0, or -ENOMEM.
 */
int cxu_lat_hist_init(struct cxu_lat_hist *h);

/**
 * cxu_lat_hist_add_big() - the slow path of cxu_lat_hist_add() for
 * @ns >= CXU_LAT_EXACT_NS.
 * @h:	distribution (n, sum and max already counted).
 * @ns:	the latency.
 *
 * Return: 0, or -ENOMEM.
 */
int cxu_lat_hist_add_big(struct cxu_lat_hist *h, uint64_t ns);

/**
 * cxu_lat_hist_add() - add one latency.
 * @h:	distribution.
 * @ns:	the latency, ns.
 *
 * Return: 0, or -ENOMEM.
 */
static inline int cxu_lat_hist_add(struct cxu_lat_hist *h, uint64_t ns)
{
	h->n++;
	h->sum += ns;
	if (ns > h->max)
		h->max = ns;
	if (ns < CXU_LAT_EXACT_NS) {
		h->exact[ns]++;
		return 0;
	}
	return cxu_lat_hist_add_big(h, ns);
}

/**
 * cxu_lat_hist_summarize() - the summary of @h: the same values
 * cxu_lat_summarize() gives for all of @h's latencies sorted.
 * @h:	distribution; its large latencies get sorted.
 * @s:	the summary.
 */
void cxu_lat_hist_summarize(struct cxu_lat_hist *h, struct cxu_lat_summary *s);

/** cxu_lat_hist_free() - release @h's memory; @h is empty afterwards. */
void cxu_lat_hist_free(struct cxu_lat_hist *h);

#endif /* CXU_LAT_H */
