// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: the learned prefetchers, Best-Offset, Leap and
 * feedback-directed prefetching (their parameters and sources are in
 * prefetch.h and docs/model.md). Each one only decides; the
 * model (model.c) issues the prefetches, counts them (issued, useful, late,
 * polluting, as for next and stride) and feeds back the events below.
 *
 * Triggers, as for the other prefetchers: a demand miss, or the first
 * demand use of a prefetched page.
 *
 * Pure C: no kernel or libc calls.
 */
#include "model_internal.h"

/* ---------------------------------------------------------- Best-Offset -- */

/* Michaud's offset list: 1..256 with no prime factor above 5. */
static const uint16_t bop_offsets[CXD_BOP_OFFSETS] = {
	1, 2, 3, 4, 5, 6, 8, 9, 10, 12, 15, 16, 18, 20, 24, 25, 27, 30, 32,
	36, 40, 45, 48, 50, 54, 60, 64, 72, 75, 80, 81, 90, 96, 100, 108, 120,
	125, 128, 135, 144, 150, 160, 162, 180, 192, 200, 216, 225, 240, 243,
	250, 256,
};

static uint32_t bop_slot(uint64_t page)
{
	return (uint32_t)((page ^ (page >> 8) ^ (page >> 16)) % CXD_BOP_RR);
}

static bool bop_rr_has(const struct cxd_pf_bop *b, uint64_t page)
{
	return b->rr[bop_slot(page)] == page;
}

static void bop_reset(struct cxd_pf_bop *b)
{
	uint32_t i;

	for (i = 0; i < CXD_BOP_RR; i++)
		b->rr[i] = CXD_NO_PAGE;
	for (i = 0; i < CXD_BOP_OFFSETS; i++)
		b->score[i] = 0;
	b->test = 0;
	b->round = 0;
	b->offset = 1;
	b->phases = 0;
}

/* End a learning phase with the best offset @best (index). */
static void bop_end_phase(struct cxd_pf_bop *b, const struct cxd_pf_params *p,
			  uint32_t best)
{
	uint32_t i;

	b->offset = b->score[best] > p->bop_bad_score ? bop_offsets[best] : 0;
	for (i = 0; i < CXD_BOP_OFFSETS; i++)
		b->score[i] = 0;
	b->test = 0;
	b->round = 0;
	b->phases++;
}

/**
 * cxd_bop_train() - one Best-Offset step at a trigger access to @page.
 * @b:    state.
 * @p:    parameters (bop_score_max, bop_round_max, bop_bad_score).
 * @page: host page of the trigger.
 *
 * Tests the next offset d of the list: if page - d is in the recent-requests
 * table, d scores. A phase ends when an offset reaches @p->bop_score_max
 * (that offset wins; clamped to 1..255) or after @p->bop_round_max rounds
 * of the whole list (at least 1; the best score wins, ties go to the
 * smaller offset); a winner with a score of at most @p->bop_bad_score turns
 * prefetching off for the next phase. Then @page is recorded in the table.
 * Michaud records Y - D when a prefetched line Y is filled, or Y on a
 * demand fill with prefetching off; the model fills a line when it issues
 * the read, and Y - D is then the trigger page, so both reduce to
 * recording the trigger.
 *
 * Return: the offset to prefetch at (pages), 0 for none.
 */
uint32_t cxd_bop_train(struct cxd_pf_bop *b, const struct cxd_pf_params *p,
		       uint64_t page)
{
	uint32_t i = b->test, best, k;
	uint32_t smax = p->bop_score_max < 1 ? 1 :
			p->bop_score_max > 255 ? 255 : p->bop_score_max;
	uint64_t d = bop_offsets[i];

	if (page >= d && bop_rr_has(b, page - d) && ++b->score[i] >= smax) {
		bop_end_phase(b, p, i);
	} else if (++b->test == CXD_BOP_OFFSETS) {
		b->test = 0;
		if (++b->round >= p->bop_round_max) {
			best = 0;
			for (k = 1; k < CXD_BOP_OFFSETS; k++)
				if (b->score[k] > b->score[best])
					best = k;
			bop_end_phase(b, p, best);
		}
	}
	b->rr[bop_slot(page)] = page;
	return b->offset;
}

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

/* ------------------------------------------------- feedback-directed -- */

/* Srinath et al., Table 1 (distance, degree), read in pages. */
static const uint8_t fdp_distance[CXD_FDP_LEVELS] = { 4, 8, 16, 32, 64 };
static const uint8_t fdp_degree[CXD_FDP_LEVELS] = { 1, 1, 2, 4, 4 };

static uint32_t fdp_bit(uint64_t page)
{
	return (uint32_t)((page ^ (page >> 12) ^ (page >> 24)) %
			  CXD_FDP_FILTER_BITS);
}

static void fdp_reset(struct cxd_pf_fdp *f)
{
	uint32_t i;

	f->level = 3;
	f->evictions = 0;
	f->issued = f->useful = f->late = f->misses = f->pollution = 0;
	f->d_issued = f->d_useful = f->d_late = 0;
	f->d_misses = f->d_pollution = 0;
	f->intervals = 0;
	for (i = 0; i < CXD_FDP_FILTER_BITS / 8; i++)
		f->filter[i] = 0;
}

/**
 * cxd_fdp_prefetch_evicted() - a prefetch fill evicted @page: set its bit
 * in the pollution filter.
 * @f:    state.
 * @page: the victim.
 */
void cxd_fdp_prefetch_evicted(struct cxd_pf_fdp *f, uint64_t page)
{
	uint32_t b = fdp_bit(page);

	f->filter[b / 8] |= (uint8_t)(1u << (b % 8));
}

/**
 * cxd_fdp_demand_miss() - count a demand miss of @page; a miss whose bit
 * is set in the pollution filter was caused by a prefetch (the bit is then
 * cleared: the page is back).
 * @f:    state.
 * @page: the missed page.
 */
void cxd_fdp_demand_miss(struct cxd_pf_fdp *f, uint64_t page)
{
	uint32_t b = fdp_bit(page);

	f->misses++;
	if (f->filter[b / 8] & (1u << (b % 8))) {
		f->pollution++;
		f->filter[b / 8] &= (uint8_t)~(1u << (b % 8));
	}
}

/* a / b > num / den, in integers; false when b is 0. */
static bool frac_above(uint64_t a, uint64_t b, uint64_t num, uint64_t den)
{
	return b && a * den > b * num;
}

/**
 * cxd_fdp_interval() - end the interval if @p->fdp_interval lines (0:
 * half of @nlines) were evicted since it began, and move the level.
 * @f:      state.
 * @p:      parameters.
 * @nlines: cache lines.
 *
 * Each counter becomes half its old value plus half this interval's count.
 * Accuracy = useful / issued (high above @p->fdp_acc_high per mille, 0.75
 * by default; low below @p->fdp_acc_low, 0.40), lateness = late / useful
 * (late above @p->fdp_late, 0.01), pollution = polluted misses / demand
 * misses (polluting above @p->fdp_poll, 0.005). Level change (Table 2 of the paper as we
 * read it): high accuracy: +1 if late; medium: +1 if late and not
 * polluting, -1 if polluting; low: -1 if polluting or late; otherwise no
 * change. The level stays within 1..CXD_FDP_LEVELS.
 */
void cxd_fdp_interval(struct cxd_pf_fdp *f, const struct cxd_pf_params *p,
		      uint32_t nlines)
{
	uint64_t len = p->fdp_interval ? p->fdp_interval :
		       nlines / 2 ? nlines / 2 : 1;
	bool high, low, late, poll;
	int step = 0;

	if (f->evictions < len)
		return;
	f->d_issued = (f->d_issued + f->issued) / 2;
	f->d_useful = (f->d_useful + f->useful) / 2;
	f->d_late = (f->d_late + f->late) / 2;
	f->d_misses = (f->d_misses + f->misses) / 2;
	f->d_pollution = (f->d_pollution + f->pollution) / 2;
	f->evictions = 0;
	f->issued = f->useful = f->late = f->misses = f->pollution = 0;
	f->intervals++;

	high = frac_above(f->d_useful, f->d_issued, p->fdp_acc_high, 1000);
	low = !frac_above(f->d_useful, f->d_issued, p->fdp_acc_low, 1000);
	late = frac_above(f->d_late, f->d_useful, p->fdp_late, 1000);
	poll = frac_above(f->d_pollution, f->d_misses, p->fdp_poll, 1000);
	if (high)
		step = late ? 1 : 0;
	else if (!low)
		step = poll ? -1 : late ? 1 : 0;
	else
		step = poll || late ? -1 : 0;
	if (step > 0 && f->level < CXD_FDP_LEVELS)
		f->level++;
	else if (step < 0 && f->level > 1)
		f->level--;
}

/**
 * cxd_fdp_level() - prefetch distance and degree of the current level.
 * @f:        state.
 * @distance: set to the distance, in strides ahead of the trigger.
 * @degree:   set to the number of pages per trigger.
 */
void cxd_fdp_level(const struct cxd_pf_fdp *f, uint32_t *distance,
		   uint32_t *degree)
{
	uint32_t i = f->level >= 1 && f->level <= CXD_FDP_LEVELS ?
		     f->level - 1 : 2;

	*distance = fdp_distance[i];
	*degree = fdp_degree[i];
}

/**
 * cxd_pf_params_default() - the learned prefetchers' default parameters.
 * @p: filled with: BOP SCORE_MAX 31, ROUND_MAX 100, BAD_SCORE 1 (Michaud);
 *     Leap Nsplit 8 (chosen), window at most 8 pages (Maruf and
 *     Chowdhury's baseline, Linux's swap readahead); FDP interval half the
 *     cache, thresholds 750, 400, 10 and 5 per mille (Srinath et al.).
 */
void cxd_pf_params_default(struct cxd_pf_params *p)
{
	p->bop_score_max = CXD_BOP_SCORE_MAX;
	p->bop_round_max = CXD_BOP_ROUND_MAX;
	p->bop_bad_score = CXD_BOP_BAD_SCORE;
	p->leap_split = CXD_LEAP_SPLIT;
	p->leap_window_max = CXD_LEAP_PW_MAX;
	p->fdp_interval = 0;
	p->fdp_acc_high = CXD_FDP_ACC_HIGH;
	p->fdp_acc_low = CXD_FDP_ACC_LOW;
	p->fdp_late = CXD_FDP_LATE;
	p->fdp_poll = CXD_FDP_POLL;
}

/**
 * cxd_pf_params_check() - are the learned prefetchers' parameters in range?
 * @p: parameters.
 *
 * Ranges: bop_score_max 1..255, bop_round_max >= 1, bop_bad_score below
 * bop_score_max, leap_split 1..32, leap_window_max 1..16, fdp_acc_low below
 * fdp_acc_high, fdp_acc_high, fdp_late and fdp_poll at most 1000.
 *
 * Return: NULL, or the first problem found (one line).
 */
const char *cxd_pf_params_check(const struct cxd_pf_params *p)
{
	if (p->bop_score_max < 1 || p->bop_score_max > 255)
		return "bop_score_max not in [1, 255]";
	if (p->bop_round_max < 1)
		return "bop_round_max below 1";
	if (p->bop_bad_score >= p->bop_score_max)
		return "bop_bad_score not below bop_score_max";
	if (p->leap_split < 1 || p->leap_split > CXD_LEAP_HIST)
		return "leap_split not in [1, 32]";
	if (p->leap_window_max < 1 ||
	    p->leap_window_max > CXD_MAX_PREFETCH_DEGREE)
		return "leap_window_max not in [1, 16]";
	if (p->fdp_acc_high > 1000 || p->fdp_late > 1000 || p->fdp_poll > 1000)
		return "an fdp threshold above 1000 per mille";
	if (p->fdp_acc_low >= p->fdp_acc_high)
		return "fdp_accuracy_low not below fdp_accuracy_high";
	return NULL;
}

/**
 * cxd_pf_learned_reset() - BOP, Leap and FDP back to their initial state
 * (BOP offset 1, no Leap history, FDP level 3, filter empty).
 * @m: model.
 */
void cxd_pf_learned_reset(struct cxd_model *m)
{
	bop_reset(&m->priv->bop);
	leap_reset(&m->priv->leap);
	fdp_reset(&m->priv->fdp);
}
