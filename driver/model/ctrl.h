/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt device model, private: the device controller in front of the
 * NAND (ctrl.c): its miss status holding registers, its per-read time and
 * the host link, as the model (model.c) drives them.
 */
#ifndef CXDVIRT_MODEL_CTRL_H
#define CXDVIRT_MODEL_CTRL_H

#include "cxdvirt/model.h"

/**
 * struct cxd_ctrl - the controller's state.
 * @mshr_done:	[CXD_MAX_MSHR] completion time (ns) of the read each MSHR
 *		last held; the first nand.cfg.mshr are in use.
 * @ctrl_free:	when the controller is next free (ns).
 * @link_free:	when the host link is next free (ns).
 */
struct cxd_ctrl {
	uint64_t mshr_done[CXD_MAX_MSHR];
	uint64_t ctrl_free;
	uint64_t link_free;
};

/* cxd_ctrl_reset() - every MSHR free, controller and link idle at time 0. */
void cxd_ctrl_reset(struct cxd_ctrl *c);
/*
 * cxd_ctrl_read() - one NAND read of host @page arriving at @now_ns through
 * the controller: an MSHR, the controller's time, the NAND read
 * (cxd_nand_read(), @op filled by it), the link. Counts MSHR waits in
 * @m->stats. Return: completion time (ns).
 */
uint64_t cxd_ctrl_read(struct cxd_model *m, uint64_t page, uint64_t now_ns,
		       struct cxd_nand_op *op);
/*
 * cxd_ctrl_link() - one 4 KiB line over the host link, ready at @ready_ns.
 * Return: when its transfer starts (ns); @ready_ns without a link limit.
 */
uint64_t cxd_ctrl_link(struct cxd_ctrl *c, const struct cxd_nand_cfg *cfg,
		       uint64_t ready_ns);
/* cxd_ctrl_link_ns() - time of one 4 KiB line on the link (0: no limit). */
uint64_t cxd_ctrl_link_ns(const struct cxd_nand_cfg *cfg);

#endif /* CXDVIRT_MODEL_CTRL_H */
