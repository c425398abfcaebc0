/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt device model, private: the page-mapped FTL (ftl.c) as model.c
 * uses it.
 */
#ifndef CXDVIRT_MODEL_FTL_H
#define CXDVIRT_MODEL_FTL_H

#include "cxdvirt/model.h"

/**
 * struct cxd_ftl - page-mapped FTL state.
 * @cfg:	configuration.
 * @units:	planes (channels * dies * planes_per_die).
 * @blocks:	blocks per plane.
 * @ppb:	pages per block.
 * @lpp:	logical pages per plane (the largest).
 * @l2p:	[npages] physical page of each host page, ~0: never written.
 * @p2l:	[units * blocks * ppb] host page of each physical page, ~0:
 *		free or invalid.
 * @valid:	[units * blocks] valid pages per block.
 * @state:	[units * blocks] 0 free, 1 open, 2 full.
 * @free_stack:	[units * blocks] each plane's free blocks (a stack).
 * @nfree:	[units] free blocks per plane.
 * @open:	[units] block being written.
 * @wp:		[units] next page of the open block.
 * @gc_end:	[2 * channels * dies] start and end of the last GC on each
 *		die (ns): die d at 2d and 2d + 1.
 * @bhead:	[units * (ppb + 1)] GC buckets: of plane u, the first full
 *		block with v valid pages at u * (ppb + 1) + v, ~0: none.
 *		Each bucket is a circular list, oldest first.
 * @bnext:	[units * blocks] next block in its bucket (plane-relative).
 * @bprev:	[units * blocks] previous block in its bucket.
 * @minv:	[units] no full block of the plane has fewer valid pages.
 * @gc_on:	[units] 1 while the plane collects: from a write that left it
 *		below gc_low free blocks until it has gc_high.
 */
struct cxd_ftl {
	struct cxd_ftl_cfg cfg;
	uint32_t units;
	uint32_t blocks;
	uint32_t ppb;
	uint32_t lpp;
	uint32_t *l2p;
	uint32_t *p2l;
	uint32_t *valid;
	uint8_t *state;
	uint32_t *free_stack;
	uint32_t *nfree;
	uint32_t *open;
	uint32_t *wp;
	uint64_t *gc_end;
	uint32_t *bhead;
	uint32_t *bnext;
	uint32_t *bprev;
	uint32_t *minv;
	uint8_t *gc_on;
};

size_t cxd_ftl_state_size(const struct cxd_model_cfg *cfg);
void cxd_ftl_init(struct cxd_ftl *f, const struct cxd_model_cfg *cfg,
		  void *mem);
void cxd_ftl_write(struct cxd_model *m, uint64_t page, uint64_t now_ns);
void cxd_ftl_read_stall(struct cxd_model *m, uint64_t page, uint64_t now_ns,
			const struct cxd_nand_op *read);

#endif /* CXDVIRT_MODEL_FTL_H */
