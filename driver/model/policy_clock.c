// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: CLOCK (second chance) replacement.
 *
 * Pure C: no kernel or libc calls.
 */
#include "cache_internal.h"

/*
 * The main queue is the clock face with the hand at its head: a line with
 * its reference bit set loses the bit and goes behind the hand. After
 * CXD_SWEEP_MAX such lines in one eviction, the line at the hand is the
 * victim even if its bit was set.
 */
static void clock_touched(struct cxd_cache *c, struct cxd_cache_set *set,
			  uint32_t line)
{
	(void)set;
	c->lines[line].flags |= CXD_LINE_REF;
}

static uint32_t clock_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			    uint32_t base)
{
	uint32_t line, n;

	(void)base;
	for (n = 0;; n++) {
		line = set->main.head;
		c->visits++;
		if (!(c->lines[line].flags & CXD_LINE_REF))
			break;
		c->lines[line].flags &= ~CXD_LINE_REF;
		if (n == CXD_SWEEP_MAX)
			break;	/* bounded sweep: evict the hand's line anyway */
		cxd_queue_requeue(c, &set->main, line);
	}
	cxd_queue_unlink(c, &set->main, line);
	return line;
}

const struct cxd_policy_ops cxd_policy_clock = {
	.inserted	= cxd_queue_inserted,
	.touched	= clock_touched,
	.evict		= clock_evict,
};
