// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: FIFO replacement: evict the oldest insertion; hits are
 * ignored.
 *
 * Pure C: no kernel or libc calls.
 */
#include "cache_internal.h"

static uint32_t fifo_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			   uint32_t base)
{
	(void)base;
	return cxd_queue_pop(c, &set->main, CXD_QUEUE_HEAD);
}

const struct cxd_policy_ops cxd_policy_fifo = {
	.inserted	= cxd_queue_inserted,
	.evict		= fifo_evict,
};
