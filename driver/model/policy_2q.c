// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: 2Q replacement (Johnson and Shasha, VLDB 1994), the full
 * version.
 *
 * Pure C: no kernel or libc calls.
 */
#include "cache_internal.h"

/* Kin = 25% of the page slots (Johnson and Shasha, section 3). */
static void twoq_setup(struct cxd_cache *c)
{
	c->a1in_cap = c->ways / 4 ? c->ways / 4 : 1;
}

/* A1out holds Kout = 50% of the page slots (section 3), at least one. */
static uint32_t twoq_ghost_cap(const struct cxd_cache *c)
{
	return c->nlines / 2 ? c->nlines / 2 : 1;
}

/*
 * 2Q (Johnson and Shasha, VLDB 1994), the full version: a new page enters
 * A1in (small queue, FIFO); a page found in A1out (the ghost ring, pages
 * evicted from A1in) enters Am (main queue, LRU). Touches move Am lines to
 * the recent end and are ignored in A1in (correlated references). When the
 * set is full, A1in's oldest line is evicted (and ghosted) if A1in holds
 * more than Kin = a1in_cap lines or Am is empty, else Am's least recent.
 */
static void twoq_touched(struct cxd_cache *c, struct cxd_cache_set *set,
			 uint32_t line)
{
	if (!(c->lines[line].flags & CXD_LINE_SMALL))
		cxd_queue_requeue(c, &set->main, line);
}

static uint32_t twoq_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			   uint32_t base)
{
	uint32_t line;

	(void)base;
	if (set->small.len && (set->small.len > c->a1in_cap || !set->main.len)) {
		line = set->small.head;
		cxd_queue_unlink(c, &set->small, line);
		return line;	/* CXD_LINE_SMALL still set: ghost it */
	}
	line = set->main.head;
	cxd_queue_unlink(c, &set->main, line);
	return line;
}

const struct cxd_policy_ops cxd_policy_2q = {
	.setup		= twoq_setup,
	.inserted	= cxd_queue_inserted_small,
	.touched	= twoq_touched,
	.evict		= twoq_evict,
	.ghost_cap	= twoq_ghost_cap,
	.ghosts		= true,
	.relinks	= true,
};
