/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt device model, private: the learned prefetchers (prefetch.c).
 * They decide which pages to prefetch; model.c issues the reads and feeds
 * them the events they learn from. All O(1) per call (BOP and FDP: a
 * fixed-size table; Leap: its 32-entry history), no locks, no allocation.
 */
#ifndef CXDVIRT_MODEL_PREFETCH_H
#define CXDVIRT_MODEL_PREFETCH_H

#include "cxdvirt/model.h"

void cxd_pf_learned_reset(struct cxd_model *m);
uint32_t cxd_bop_train(struct cxd_pf_bop *b, const struct cxd_pf_params *p,
		       uint64_t page);
uint32_t cxd_leap_decide(struct cxd_pf_leap *l, const struct cxd_pf_params *p,
			 uint64_t page, bool miss, int64_t *delta);
void cxd_fdp_interval(struct cxd_pf_fdp *f, const struct cxd_pf_params *p,
		      uint32_t nlines);
void cxd_fdp_level(const struct cxd_pf_fdp *f, uint32_t *distance,
		   uint32_t *degree);
void cxd_fdp_prefetch_evicted(struct cxd_pf_fdp *f, uint64_t page);
void cxd_fdp_demand_miss(struct cxd_pf_fdp *f, uint64_t page);

#endif /* CXDVIRT_MODEL_PREFETCH_H */
