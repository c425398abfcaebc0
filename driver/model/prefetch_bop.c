// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: the Best-Offset prefetcher (Michaud, HPCA 2016; parameters
 * in prefetch.h and docs/model.md). Trigger: a demand miss, or the first
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

static void bop_ops_reset(struct cxd_pf_state *s)
{
	bop_reset(&s->bop);
}

/* At a trigger, the learned offset d: pages page + d * i, i = 1 .. degree. */
static bool bop_decide(struct cxd_pf_state *s, const struct cxd_pf_in *in,
		       struct cxd_pf_run *run)
{
	uint32_t off;

	if (!in->trigger)
		return false;
	off = cxd_bop_train(&s->bop, in->p, in->page);
	if (!off)
		return false;
	run->stride = off;
	run->dist = 1;
	run->n = cxd_pf_degree(in);
	return true;
}

const struct cxd_pf_ops cxd_pf_bop = {
	.reset	= bop_ops_reset,
	.decide	= bop_decide,
};
