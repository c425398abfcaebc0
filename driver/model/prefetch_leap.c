// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: the Leap prefetcher (Maruf and Chowdhury, USENIX ATC 2020;
 * parameters in prefetch.h and docs/model.md). Trigger: a demand miss, or
 * the first demand use of a prefetched page; it prefetches on misses only.
 *
 * Pure C: no kernel or libc calls.
 */
#include "model_internal.h"

/* ----------------------------------------------------------------- Leap -- */

static void leap_reset(struct cxd_pf_leap *l)
{
	uint32_t i;

	for (i = 0; i < CXD_LEAP_HIST; i++)
		l->delta[i] = 0;
	l->head = 0;
	l->n = 0;
	l->last = CXD_NO_PAGE;
	l->trend = 0;
	l->pw = 0;
	l->hits = 0;
}

/* The @k-th most recent delta (k = 0: the newest). */
static int64_t leap_delta(const struct cxd_pf_leap *l, uint32_t k)
{
	return l->delta[(l->head + CXD_LEAP_HIST - 1 - k) % CXD_LEAP_HIST];
}

/*
 * Leap's FindTrend: Boyer-Moore majority vote over the @w most recent
 * deltas, from w = Hsize / Nsplit, doubling up to the whole history; the
 * first window with a strict majority gives the trend. Return: the
 * majority delta, or 0 if no window has one.
 */
static int64_t leap_find_trend(const struct cxd_pf_leap *l,
			       const struct cxd_pf_params *p)
{
	uint32_t w, n, k, votes, count;
	int64_t cand;

	w = p->leap_split ? CXD_LEAP_HIST / p->leap_split : CXD_LEAP_HIST;
	if (!w)
		w = 1;
	for (;; w *= 2) {
		n = w < l->n ? w : l->n;
		cand = 0;
		votes = 0;
		for (k = 0; k < n; k++) {
			if (!votes) {
				cand = leap_delta(l, k);
				votes = 1;
			} else if (leap_delta(l, k) == cand) {
				votes++;
			} else {
				votes--;
			}
		}
		count = 0;
		for (k = 0; k < n; k++)
			count += leap_delta(l, k) == cand;
		if (n && count * 2 > n)
			return cand;
		if (w >= CXD_LEAP_HIST || n < w)
			return 0;
	}
}

static uint32_t round_up_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

/**
 * cxd_leap_decide() - one Leap step at a trigger access to @page.
 * @l:     state; @l->hits counts the prefetch hits since the last decision.
 * @p:     parameters (leap_split, leap_window_max).
 * @page:  host page of the trigger.
 * @miss:  the trigger is a demand miss (else the first use of a prefetched
 *         page: it enters the history, and the hit is already counted).
 * @delta: set to the delta to prefetch with (the majority delta, or 1
 *         when there is none).
 *
 * The delta from the last trigger enters the history and FindTrend runs.
 * Leap prefetches on faults that miss; prefetch hits only count (Chit).
 * Window (the paper's GetPrefetchWindowSize): with no prefetch hit since
 * the last decision, 1 page if the access follows the trend, else 0;
 * otherwise the power of two at or above hits + 1; at most
 * @p->leap_window_max (clamped to 1..CXD_MAX_PREFETCH_DEGREE); never below
 * half the last window (smooth shrinking). FindTrend starts from
 * CXD_LEAP_HIST / @p->leap_split deltas.
 *
 * Return: the number of pages to prefetch, page + delta * i, i = 1 .. n.
 */
uint32_t cxd_leap_decide(struct cxd_pf_leap *l, const struct cxd_pf_params *p,
			 uint64_t page, bool miss, int64_t *delta)
{
	uint32_t pw, pmax = p->leap_window_max;
	int64_t d = 0;

	if (pmax < 1)
		pmax = 1;
	if (pmax > CXD_MAX_PREFETCH_DEGREE)
		pmax = CXD_MAX_PREFETCH_DEGREE;
	if (l->last != CXD_NO_PAGE) {
		d = (int64_t)(page - l->last);
		l->delta[l->head] = d;
		l->head = (l->head + 1) % CXD_LEAP_HIST;
		if (l->n < CXD_LEAP_HIST)
			l->n++;
	}
	l->last = page;
	l->trend = leap_find_trend(l, p);
	*delta = l->trend ? l->trend : 1;
	if (!miss)
		return 0;
	if (!l->hits)
		pw = l->trend && d == l->trend ? 1 : 0;
	else
		pw = round_up_pow2(l->hits + 1);
	if (pw > pmax)
		pw = pmax;
	if (pw < l->pw / 2)
		pw = l->pw / 2 < pmax ? l->pw / 2 : pmax;
	l->pw = pw;
	l->hits = 0;
	return pw;
}

static void leap_ops_reset(struct cxd_pf_state *s)
{
	leap_reset(&s->leap);
}

/*
 * A prefetch hit counts towards the next window (Chit); at a trigger,
 * Leap's window of pages along its trend.
 */
static bool leap_ops_decide(struct cxd_pf_state *s, const struct cxd_pf_in *in,
			    struct cxd_pf_run *run)
{
	if (in->prefetch_hit)
		s->leap.hits++;
	if (!in->trigger)
		return false;
	run->n = cxd_leap_decide(&s->leap, in->p, in->page, in->miss,
				 &run->stride);
	run->dist = 1;
	return true;
}

const struct cxd_pf_ops cxd_pf_leap = {
	.reset	= leap_ops_reset,
	.decide	= leap_ops_decide,
};
