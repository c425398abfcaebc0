// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: the registry of prefetchers. Each prefetcher is a
 * struct cxd_pf_ops in its own prefetch_*.c (next, stride, bop, leap, fdp);
 * the model (model.c) reaches them only through this table. Also the
 * learned prefetchers' parameters: defaults and cross-checks, from the
 * parameter table (include/cxdvirt/params.h).
 *
 * Pure C: no kernel or libc calls.
 */
#include "model_internal.h"
#include "names.h"
#include "cxdvirt/params.h"

static const struct cxd_pf_ops cxd_pf_none;

const struct cxd_pf_ops *const cxd_pf_table[CXD_PF_TABLE] = {
	[CXD_PF_NONE]	= &cxd_pf_none,
	[CXD_PF_NEXT]	= &cxd_pf_next,
	[CXD_PF_STRIDE]	= &cxd_pf_stride,
	[CXD_PF_BOP]	= &cxd_pf_bop,
	[CXD_PF_LEAP]	= &cxd_pf_leap,
	[CXD_PF_FDP]	= &cxd_pf_fdp,
	[CXD_PF_NR ... CXD_PF_TABLE - 1] = &cxd_pf_none,
};

static const char * const cxd_pf_names[CXD_PF_NR] = {
	[CXD_PF_NONE]	= "none",
	[CXD_PF_NEXT]	= "next",
	[CXD_PF_STRIDE]	= "stride",
	[CXD_PF_BOP]	= "bop",
	[CXD_PF_LEAP]	= "leap",
	[CXD_PF_FDP]	= "fdp",
};

CXD_NAMED_ENUM(cxd_prefetch, enum cxd_prefetch_mode, cxd_pf_names, CXD_PF_NR)

void cxd_pf_reset(struct cxd_pf_state *s)
{
	unsigned int i;

	for (i = 0; i < CXD_PF_NR; i++)
		if (cxd_pf_table[i]->reset)
			cxd_pf_table[i]->reset(s);
}

/* A configuration holding only the learned prefetchers' parameters. */
struct cxd_pf_cfg {
	struct cxd_pf_params pf;
};

/**
 * cxd_pf_params_default() - the learned prefetchers' default parameters,
 * from the parameter table (CXD_PARAMS_PF, include/cxdvirt/params.h, which
 * cites their sources).
 * @p: filled with the defaults.
 */
void cxd_pf_params_default(struct cxd_pf_params *p)
{
	struct cxd_pf_cfg w;

	CXD_PARAMS_DEFAULTS(&w, CXD_PARAMS_PF);
	*p = w.pf;
}

/* The rows of CXD_PARAMS_PF, and their values in a configuration. */
static const struct cxd_param cxd_pf_desc[] = { CXD_PARAMS_PF(CXD_P_DESC_) };

static const char *const cxd_pf_bad[] = { CXD_PARAMS_PF(CXD_P_BAD_MSG_) };

static uint64_t pf_param_get(const struct cxd_pf_cfg *cxd_p_c, int id)
{
	switch (id) {
	CXD_PARAMS_PF(CXD_P_GET_)
	}
	return 0;
}

/**
 * cxd_pf_params_check() - are the learned prefetchers' parameters valid?
 * @p: parameters.
 *
 * Each must lie within its bounds in the parameter table (CXD_PARAMS_PF;
 * configfs and cxdvirt-sim check those first, with the bounds in their
 * message), and bop_bad_score must be below bop_score_max and
 * fdp_accuracy_low below fdp_accuracy_high.
 *
 * Return: NULL, or the first problem found (one line): "NAME out of
 * range", or which two parameters are in the wrong order.
 */
const char *cxd_pf_params_check(const struct cxd_pf_params *p)
{
	struct cxd_pf_cfg w = { .pf = *p };
	unsigned int i;

	for (i = 0; i < sizeof(cxd_pf_desc) / sizeof(cxd_pf_desc[0]); i++)
		if (cxd_param_bad(&cxd_pf_desc[i],
				  pf_param_get(&w, cxd_pf_desc[i].id)))
			return cxd_pf_bad[i];
	if (p->bop_bad_score >= p->bop_score_max)
		return "bop_bad_score not below bop_score_max";
	if (p->fdp_acc_low >= p->fdp_acc_high)
		return "fdp_accuracy_low not below fdp_accuracy_high";
	return NULL;
}
