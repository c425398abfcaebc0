// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: LIFO replacement: evict the newest insertion; hits are
 * ignored.
 *
 * Pure C: no kernel or libc calls.
 */
#include "cache_internal.h"

static uint32_t lifo_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			   uint32_t base)
{
	(void)base;
	return cxd_queue_pop(c, &set->main, CXD_QUEUE_TAIL);
}

const struct cxd_policy_ops cxd_policy_lifo = {
	.inserted	= cxd_queue_inserted,
	.evict		= lifo_evict,
};
