// SPDX-License-Identifier: GPL-2.0
/*
 * Latency percentiles, summaries and their JSON form (cxu_lat.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cxu_lat.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void cxu_sort_u64(uint64_t *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_u64);
}

uint64_t cxu_rank(uint64_t n, uint32_t q_ppm)
{
	unsigned __int128 r;

	if (!n)
		return 0;
	r = ((unsigned __int128)n * q_ppm + CXU_PPM - 1) / CXU_PPM;
	if (r < 1)
		return 1;
	return r > n ? n : (uint64_t)r;
}

uint64_t cxu_pct_sorted(const uint64_t *sorted, size_t n, uint32_t q_ppm)
{
	return n ? sorted[cxu_rank(n, q_ppm) - 1] : 0;
}

/* The percentiles of a summary: quantile, field, JSON keys. */
static const struct {
	uint32_t q_ppm;
	size_t off;
	const char *key, *key_ns;
	unsigned int flag;	/* 0, or the cxu_lat_json() flag it needs */
} pcts[] = {
	{ CXU_P50, offsetof(struct cxu_lat_summary, p50_ns), "p50", "p50_ns", 0 },
	{ CXU_P90, offsetof(struct cxu_lat_summary, p90_ns), "p90", "p90_ns", 0 },
	{ CXU_P99, offsetof(struct cxu_lat_summary, p99_ns), "p99", "p99_ns", 0 },
	{ CXU_P999, offsetof(struct cxu_lat_summary, p999_ns), "p999", "p999_ns", 0 },
	{ CXU_P9999, offsetof(struct cxu_lat_summary, p9999_ns), "p9999", "p9999_ns",
	  CXU_LAT_JSON_P9999 },
};

#define NR_PCTS	(sizeof(pcts) / sizeof(pcts[0]))

static uint64_t *pct_field(struct cxu_lat_summary *s, size_t i)
{
	return (uint64_t *)((char *)s + pcts[i].off);
}

static uint64_t pct_get(const struct cxu_lat_summary *s, size_t i)
{
	return *(const uint64_t *)((const char *)s + pcts[i].off);
}

void cxu_lat_summarize(const uint64_t *sorted, size_t n,
		       struct cxu_lat_summary *s)
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
	for (i = 0; i < NR_PCTS; i++)
		*pct_field(s, i) = cxu_pct_sorted(sorted, n, pcts[i].q_ppm);
	s->max_ns = sorted[n - 1];
}

struct json_object *cxu_lat_json(const struct cxu_lat_summary *s,
				 unsigned int flags)
{
	struct json_object *o = json_object_new_object();
	bool ns = flags & CXU_LAT_JSON_NS;
	size_t i;

	if (!o)
		return NULL;
	json_object_object_add(o, "count", json_object_new_uint64(s->count));
	json_object_object_add(o, ns ? "mean_ns" : "mean",
			       json_object_new_double(s->mean_ns));
	for (i = 0; i < NR_PCTS; i++) {
		if (pcts[i].flag && !(flags & pcts[i].flag))
			continue;
		json_object_object_add(o, ns ? pcts[i].key_ns : pcts[i].key,
				       json_object_new_uint64(pct_get(s, i)));
	}
	json_object_object_add(o, ns ? "max_ns" : "max",
			       json_object_new_uint64(s->max_ns));
	return o;
}

int cxu_lat_hist_init(struct cxu_lat_hist *h)
{
	*h = (struct cxu_lat_hist){ 0 };
	h->exact = calloc(CXU_LAT_EXACT_NS, sizeof(*h->exact));
	return h->exact ? 0 : -ENOMEM;
}

int cxu_lat_hist_add_big(struct cxu_lat_hist *h, uint64_t ns)
{
	uint64_t *nb;

	if (h->nbig == h->capbig) {
		nb = realloc(h->big, (h->capbig ? 2 * h->capbig : 1024) * sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		h->big = nb;
		h->capbig = h->capbig ? 2 * h->capbig : 1024;
	}
	h->big[h->nbig++] = ns;
	return 0;
}

void cxu_lat_hist_summarize(struct cxu_lat_hist *h, struct cxu_lat_summary *s)
{
	uint64_t rank, seen = 0, v = 0;
	size_t i;

	memset(s, 0, sizeof(*s));
	s->count = h->n;
	if (!h->n)
		return;
	s->mean_ns = (double)h->sum / (double)h->n;
	s->max_ns = h->max;
	cxu_sort_u64(h->big, h->nbig);
	/* One walk up the counts: the ranks ascend with the quantiles. */
	for (i = 0; i < NR_PCTS; i++) {
		rank = cxu_rank(h->n, pcts[i].q_ppm);
		while (v < CXU_LAT_EXACT_NS && seen + h->exact[v] < rank)
			seen += h->exact[v++];
		*pct_field(s, i) = v < CXU_LAT_EXACT_NS ? v : h->big[rank - seen - 1];
	}
}

void cxu_lat_hist_free(struct cxu_lat_hist *h)
{
	free(h->exact);
	free(h->big);
	*h = (struct cxu_lat_hist){ 0 };
}
