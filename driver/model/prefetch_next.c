// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: the tagged next-N prefetcher. At a demand miss, and
 * at the first demand use of a prefetched page, it asks for pages
 * page + 1 .. page + degree; the model skips those already resident.
 *
 * Pure C: no kernel or libc calls.
 */
#include "model_internal.h"

static bool next_decide(struct cxd_pf_state *s, const struct cxd_pf_in *in,
			struct cxd_pf_run *run)
{
	(void)s;
	if (!in->trigger)
		return false;
	run->stride = 1;
	run->dist = 1;
	run->n = cxd_pf_degree(in);
	return true;
}

const struct cxd_pf_ops cxd_pf_next = {
	.decide	= next_decide,
};
