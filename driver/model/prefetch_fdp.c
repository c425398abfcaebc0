// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: feedback-directed prefetching (Srinath et al., HPCA 2007;
 * parameters in prefetch.h and docs/model.md): the stride prefetcher at one
 * of five (distance, degree) levels, moved each interval by the accuracy,
 * lateness and pollution the model reports through the hooks below.
 *
 * Pure C: no kernel or libc calls.
 */
#include "model_internal.h"

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

static void fdp_ops_reset(struct cxd_pf_state *s)
{
	fdp_reset(&s->fdp);
}

/*
 * A demand miss and a prefetch hit (useful; late if its read was still in
 * flight) are counted. The stride table trains on every access, as for
 * stride; at a trigger the interval may end, and the level's degree pages
 * end its distance strides ahead (next-page where no stride is confirmed).
 */
static bool fdp_decide(struct cxd_pf_state *s, const struct cxd_pf_in *in,
		       struct cxd_pf_run *run)
{
	int64_t stride;
	uint32_t dist, deg;

	if (in->miss)
		cxd_fdp_demand_miss(&s->fdp, in->page);
	if (in->prefetch_hit) {
		s->fdp.useful++;
		if (in->late)
			s->fdp.late++;
	}
	stride = cxd_pf_stride_train(s, in->page);
	if (!in->trigger)
		return false;
	cxd_fdp_interval(&s->fdp, in->p, in->nlines);
	cxd_fdp_level(&s->fdp, &dist, &deg);
	run->stride = stride ? stride : 1;
	run->dist = dist - deg + 1;
	run->n = deg;
	return true;
}

/* A prefetch is issued; its victim goes into the pollution filter. */
static void fdp_issued(struct cxd_pf_state *s, uint64_t victim)
{
	s->fdp.issued++;
	if (victim != CXD_NO_PAGE)
		cxd_fdp_prefetch_evicted(&s->fdp, victim);
}

/* Evictions measure the interval. */
static void fdp_evicted(struct cxd_pf_state *s)
{
	s->fdp.evictions++;
}

const struct cxd_pf_ops cxd_pf_fdp = {
	.reset		= fdp_ops_reset,
	.decide		= fdp_decide,
	.issued		= fdp_issued,
	.evicted	= fdp_evicted,
	.every_access	= true,
};
