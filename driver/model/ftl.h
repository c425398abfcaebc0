/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt device model, private: the page-mapped FTL (ftl.c) as model.c
 * uses it.
 */
#ifndef CXDVIRT_MODEL_FTL_H
#define CXDVIRT_MODEL_FTL_H

#include "cxdvirt/model.h"

size_t cxd_ftl_state_size(const struct cxd_model_cfg *cfg);
void cxd_ftl_init(struct cxd_ftl *f, const struct cxd_model_cfg *cfg,
		  void *mem);
void cxd_ftl_write(struct cxd_model *m, uint64_t page, uint64_t now_ns);
void cxd_ftl_read_stall(struct cxd_model *m, uint64_t page, uint64_t now_ns,
			const struct cxd_nand_op *read);

#endif /* CXDVIRT_MODEL_FTL_H */
