// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: LRU replacement: a hit moves the line to the recent end
 * of its set's queue; the victim is the queue's head.
 *
 * Pure C: no kernel or libc calls.
 */
#include "cache_internal.h"

static void lru_touched(struct cxd_cache *c, struct cxd_cache_set *set,
			uint32_t line)
{
	cxd_queue_requeue(c, &set->main, line);
}

/* The least recently inserted or touched line: the head of the queue. */
static uint32_t lru_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			  uint32_t base)
{
	(void)base;
	return cxd_queue_pop(c, &set->main, CXD_QUEUE_HEAD);
}

const struct cxd_policy_ops cxd_policy_lru = {
	.inserted	= cxd_queue_inserted,
	.touched	= lru_touched,
	.evict		= lru_evict,
	.relinks	= true,
};
