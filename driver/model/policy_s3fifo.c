// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: S3-FIFO replacement (Yang et al., SOSP'23): a small FIFO
 * queue (10% of the set), a main FIFO queue with a 2-bit frequency per line,
 * and a ghost ring of pages recently evicted from the small queue.
 *
 * Pure C: no kernel or libc calls.
 */
#include "cache_internal.h"

/* 10% of each set for the small queue, at least one line. */
static void s3_setup(struct cxd_cache *c)
{
	c->small_cap = c->ways / 10 ? c->ways / 10 : 1;
}

static uint32_t s3_freq(const struct cxd_cache *c, uint32_t line)
{
	return (c->lines[line].flags & CXD_LINE_FREQ_MASK) >>
	       CXD_LINE_FREQ_SHIFT;
}

static void s3_set_freq(struct cxd_cache *c, uint32_t line, uint32_t f)
{
	c->lines[line].flags = (c->lines[line].flags & ~CXD_LINE_FREQ_MASK) |
			      (uint8_t)(f << CXD_LINE_FREQ_SHIFT);
}

static void s3_touched(struct cxd_cache *c, struct cxd_cache_set *set,
		       uint32_t line)
{
	uint32_t f = s3_freq(c, line);

	(void)set;
	if (f < 3)
		s3_set_freq(c, line, f + 1);
}

/*
 * Evict from the small queue while it holds at least its share (or the main
 * queue is empty): a line used at least once there moves to the main queue
 * with its frequency cleared, else it is the victim (and becomes a ghost,
 * see cache_fill()). Otherwise evict from the main queue: a line with a
 * non-zero frequency is reinserted with the frequency decremented. After
 * CXD_SWEEP_MAX such moves in one eviction, the head of the queue the next
 * step would look at is the victim whatever its frequency.
 */
static uint32_t s3_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			 uint32_t base)
{
	struct cxd_queue *q;
	uint32_t line, f, n;

	(void)base;
	for (n = 0;; n++) {
		c->visits++;
		if (n == CXD_SWEEP_MAX) {
			/* bounded sweep: the line the next step would look at */
			q = set->small.len && (set->small.len >= c->small_cap ||
					       !set->main.len) ?
			    &set->small : &set->main;
			line = q->head;
			cxd_queue_unlink(c, q, line);
			return line;
		}
		if (set->small.len &&
		    (set->small.len >= c->small_cap || !set->main.len)) {
			line = set->small.head;
			cxd_queue_unlink(c, &set->small, line);
			if (s3_freq(c, line) >= 1) {
				c->lines[line].flags &= ~CXD_LINE_SMALL;
				s3_set_freq(c, line, 0);
				cxd_queue_push_tail(c, &set->main, line);
				continue;
			}
			return line;	/* CXD_LINE_SMALL still set: ghost it */
		}
		line = set->main.head;
		f = s3_freq(c, line);
		if (!f) {
			cxd_queue_unlink(c, &set->main, line);
			return line;
		}
		s3_set_freq(c, line, f - 1);
		cxd_queue_requeue(c, &set->main, line);
	}
}

const struct cxd_policy_ops cxd_policy_s3fifo = {
	.setup		= s3_setup,
	.inserted	= cxd_queue_inserted_small,
	.touched	= s3_touched,
	.evict		= s3_evict,
	.ghosts		= true,
};
