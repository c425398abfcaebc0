/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt device model, private: the model's own state behind struct
 * cxd_model (model.c, ftl.c). Not part of the model's API; the
 * unit tests include it to look at the prefetchers and the FTL.
 */
#ifndef CXDVIRT_MODEL_MODEL_INTERNAL_H
#define CXDVIRT_MODEL_MODEL_INTERNAL_H

#include "cxdvirt/model.h"
#include "prefetch.h"
#include "ftl.h"
#include "ctrl.h"

/**
 * struct cxd_model_priv - the model's state that its users do not read.
 * @pf:		the prefetchers' state (prefetch.h).
 * @ftl:	FTL state (ftl.cfg.mode CXD_FTL_OFF: none).
 * @ctrl:	the controller: MSHRs, its next-free time, the link's (ctrl.c).
 *
 * Lives in the model's state buffer, after the cache's, the NAND's, the
 * written-page bitmap and the FTL's arrays.
 */
struct cxd_model_priv {
	struct cxd_pf_state pf;
	struct cxd_ftl ftl;
	struct cxd_ctrl ctrl;
};

#endif /* CXDVIRT_MODEL_MODEL_INTERNAL_H */
