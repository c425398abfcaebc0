/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt device model, private: the NAND timing model (nand.c) as the
 * model (model.c, ftl.c) drives it. Each call's kernel-doc is at its
 * definition in nand.c.
 */
#ifndef CXDVIRT_MODEL_NAND_H
#define CXDVIRT_MODEL_NAND_H

#include "cxdvirt/model.h"

/* cxd_nand_state_size() - bytes of state cxd_nand_init() needs for @cfg. */
size_t cxd_nand_state_size(const struct cxd_nand_cfg *cfg);
/*
 * cxd_nand_init() - set up @n over @mem (cxd_nand_state_size() bytes, any
 * content); all dies and channels start free at time 0.
 * Return: 0, or -1 if @cfg is invalid.
 */
int cxd_nand_init(struct cxd_nand *n, const struct cxd_nand_cfg *cfg, void *mem);
/*
 * cxd_nand_read() - schedule a read of the NAND page holding host @page,
 * arriving at @now_ns: start = max(now, plane free); plane busy for tR
 * (skipped if the page is still in the plane's register, NAND pages >
 * 4 KiB only); then the transfer on the channel once it is free. The plane
 * is free again after tR (its page register drains over the channel).
 * Return: completion time in ns (absolute). @op, if not NULL, is filled.
 */
uint64_t cxd_nand_read(struct cxd_nand *n, uint64_t page, uint64_t now_ns,
		       struct cxd_nand_op *op);
/*
 * cxd_nand_program() - schedule a write-back of host @page at @now_ns:
 * the transfer on the channel once it is free, then (an erase of tBERS if a
 * new block starts, see @pages_per_block, and) tPROG on the die once the
 * die is free. The die stays busy until the program ends.
 * Return: completion time in ns.
 */
uint64_t cxd_nand_program(struct cxd_nand *n, uint64_t page, uint64_t now_ns,
			  struct cxd_nand_op *op);

/*
 * cxd_nand_gc() - garbage collection of one block on the die holding host
 * @page: @moved valid pages copied inside the die (copyback: tR + tPROG
 * each, no channel transfer) and the block erased (tBERS). Every plane of
 * the die is busy from max(@now_ns, the die's planes free) until the end.
 * Counts one erase. Return: the end (ns); *@start_ns, if not NULL, the
 * start.
 */
uint64_t cxd_nand_gc(struct cxd_nand *n, uint64_t page, uint32_t moved,
		     uint64_t now_ns, uint64_t *start_ns);
/*
 * cxd_nand_die_of() - die index (channel * dies_per_channel + die) of the
 * NAND page holding host @page; *@unit, if not NULL, its plane index
 * (die index * planes + plane), as in struct cxd_nand's arrays.
 */
uint64_t cxd_nand_die_of(const struct cxd_nand *n, uint64_t page,
			 uint64_t *unit);

#endif /* CXDVIRT_MODEL_NAND_H */
