// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: the stride prefetcher. A table of CXD_PF_STREAMS
 * streams, each the last page and stride of a run of accesses within
 * CXD_PF_WINDOW pages, trains on every access; once a stream's stride
 * repeated (page, page + s, page + 2s), a demand miss or the first use of
 * a prefetched page asks for page + s * (distance + i), i = 0 .. degree-1.
 * FDP (prefetch_fdp.c) trains the same streams.
 *
 * Pure C: no kernel or libc calls.
 */
#include "model_internal.h"

static void stride_reset(struct cxd_pf_state *ps)
{
	unsigned int i;

	for (i = 0; i < CXD_PF_STREAMS; i++) {
		ps->streams[i].last = CXD_NO_PAGE;
		ps->streams[i].stride = 0;
		ps->streams[i].conf = 0;
		ps->streams[i].stamp = 0;
	}
	ps->stamp = 0;
}

static uint64_t abs_diff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

int64_t cxd_pf_stride_train(struct cxd_pf_state *ps, uint64_t page)
{
	struct cxd_pf_stream *s, *best = NULL, *lru = &ps->streams[0];
	uint64_t d, best_d = ~(uint64_t)0;
	int64_t delta;
	unsigned int i;

	for (i = 0; i < CXD_PF_STREAMS; i++) {
		s = &ps->streams[i];
		/* replace a free stream first, else the least recently used */
		if (s->last == CXD_NO_PAGE) {
			if (lru->last != CXD_NO_PAGE)
				lru = s;
			continue;
		}
		if (lru->last != CXD_NO_PAGE && s->stamp < lru->stamp)
			lru = s;
		d = abs_diff(page, s->last);
		if (d <= CXD_PF_WINDOW && d < best_d) {
			best = s;
			best_d = d;
		}
	}
	ps->stamp++;
	if (!best) {
		lru->last = page;
		lru->stride = 0;
		lru->conf = 0;
		lru->stamp = ps->stamp;
		return 0;
	}
	best->stamp = ps->stamp;
	if (best_d == 0)
		return best->conf >= 2 ? best->stride : 0;
	delta = (int64_t)(page - best->last);
	if (delta == best->stride) {
		if (best->conf < 3)
			best->conf++;
	} else {
		best->stride = delta;
		best->conf = 1;
	}
	best->last = page;
	return best->conf >= 2 ? best->stride : 0;
}

static bool stride_decide(struct cxd_pf_state *ps, const struct cxd_pf_in *in,
			  struct cxd_pf_run *run)
{
	int64_t stride = cxd_pf_stride_train(ps, in->page);

	if (!in->trigger || !stride)
		return false;
	run->stride = stride;
	run->dist = in->distance ? in->distance : 1;
	run->n = cxd_pf_degree(in);
	return true;
}

const struct cxd_pf_ops cxd_pf_stride = {
	.reset		= stride_reset,
	.decide		= stride_decide,
	.every_access	= true,
};
