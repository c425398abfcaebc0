// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: Clean-First LRU replacement (Park et al., CASES 2006).
 *
 * Pure C: no kernel or libc calls.
 */
#include "cache_internal.h"

/* The default window: CXD_CFLRU_WINDOW_PCT % of each set. */
static void cflru_setup(struct cxd_cache *c)
{
	c->cflru_window_pct = CXD_CFLRU_WINDOW_PCT;
	c->cflru_window = c->ways * CXD_CFLRU_WINDOW_PCT / 100;
}

/*
 * Clean-First LRU (Park et al., CASES 2006). The LRU list of a set is split
 * into the working region (main queue, the ways - cflru_window most recent
 * lines) and the clean-first window (the cflru_window least recent lines),
 * kept as two queues in recency order: its clean lines (small queue) and
 * its dirty lines (aux queue). A line enters the window when it is pushed
 * out of the working region; it leaves it when touched (back to the
 * working region's recent end) or evicted. The victim is the least recent
 * clean line of the window, else the least recent dirty one, else (window
 * empty) the working region's least recent line. Each step is O(1): a
 * line is demoted at most once per insert or touch. cflru_demote() demotes
 * at most @max lines and returns how many it did.
 */
static uint32_t cflru_demote(struct cxd_cache *c, struct cxd_cache_set *set,
			     uint32_t max)
{
	uint32_t cap = c->ways - c->cflru_window, line, n = 0;

	while (set->main.len > cap) {
		if (n == max)
			break;
		n++;
		line = set->main.head;
		cxd_queue_unlink(c, &set->main, line);
		if (c->lines[line].flags & CXD_LINE_DIRTY) {
			c->lines[line].flags |= CXD_LINE_AUX;
			cxd_queue_push_tail(c, &set->aux, line);
		} else {
			c->lines[line].flags |= CXD_LINE_SMALL;
			cxd_queue_push_tail(c, &set->small, line);
		}
	}
	return n;
}

static void cflru_inserted(struct cxd_cache *c, struct cxd_cache_set *set,
			   uint32_t line, bool ghost)
{
	(void)ghost;
	cxd_queue_push_tail(c, &set->main, line);
	cflru_demote(c, set, CXD_NO_LINE);
}

static void cflru_touched(struct cxd_cache *c, struct cxd_cache_set *set,
			  uint32_t line)
{
	struct cxd_queue *q = cxd_queue_of(c, set, line);

	if (q == &set->main) {
		cxd_queue_requeue(c, q, line);
		return;
	}
	cxd_queue_unlink(c, q, line);
	c->lines[line].flags &= ~(CXD_LINE_SMALL | CXD_LINE_AUX);
	cxd_queue_push_tail(c, &set->main, line);
	cflru_demote(c, set, CXD_NO_LINE);
}

/*
 * A clean line of the window was written without an access reaching the
 * policy (a write to a read-only mapping): it moves to the window's dirty
 * queue as its most recent line (its exact rank among them is not kept).
 */
static void cflru_dirtied(struct cxd_cache *c, struct cxd_cache_set *set,
			  uint32_t line)
{
	if (!(c->lines[line].flags & CXD_LINE_SMALL))
		return;
	cxd_queue_unlink(c, &set->small, line);
	c->lines[line].flags = (c->lines[line].flags & ~CXD_LINE_SMALL) |
			      CXD_LINE_AUX;
	cxd_queue_push_tail(c, &set->aux, line);
}

/* A dirty line of the window written back in place joins its clean side. */
static void cflru_cleaned(struct cxd_cache *c, struct cxd_cache_set *set,
			  uint32_t line)
{
	if (!(c->lines[line].flags & CXD_LINE_AUX))
		return;
	cxd_queue_unlink(c, &set->aux, line);
	c->lines[line].flags = (c->lines[line].flags & ~CXD_LINE_AUX) |
			      CXD_LINE_SMALL;
	cxd_queue_push_tail(c, &set->small, line);
}

static uint32_t cflru_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			    uint32_t base)
{
	struct cxd_queue *q = set->small.len ? &set->small :
			      set->aux.len ? &set->aux : &set->main;
	uint32_t line = q->head;

	(void)base;
	cxd_queue_unlink(c, q, line);
	c->lines[line].flags &= ~(CXD_LINE_SMALL | CXD_LINE_AUX);
	return line;
}

/* Before a switch: the window (clean lines, then dirty ones) goes first. */
static void cflru_fold(struct cxd_cache *c, struct cxd_cache_set *set)
{
	cxd_queue_splice_head(c, &set->main, &set->aux);
	cxd_queue_splice_head(c, &set->main, &set->small);
}

const struct cxd_policy_ops cxd_policy_cflru = {
	.setup		= cflru_setup,
	.inserted	= cflru_inserted,
	.touched	= cflru_touched,
	.dirtied	= cflru_dirtied,
	.cleaned	= cflru_cleaned,
	.evict		= cflru_evict,
	.fold		= cflru_fold,
	.adopt		= cflru_demote,
	.relinks	= true,
	.windowed	= true,
};
