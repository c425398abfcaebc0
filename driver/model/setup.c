// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: one model from one set of parameters (struct
 * cxd_params), the same steps in the same order for the module (both
 * modes, at power-on) and for cxdvirt-sim. Declared in
 * include/cxdvirt/params.h.
 *
 * Pure C: no kernel or libc calls.
 */
#include "cxdvirt/params.h"

/* The table's shared rows, their values in @p, and their range messages. */
static const struct cxd_param rows[] = { CXD_PARAMS_SHARED(CXD_P_DESC_) };
static const char *const rows_bad[] = { CXD_PARAMS_SHARED(CXD_P_BAD_MSG_) };

static uint64_t param_get(const struct cxd_params *cxd_p_c, int id)
{
	switch (id) {
	CXD_PARAMS_SHARED(CXD_P_GET_)
	}
	return 0;
}

/* The structural part of @p over @npages pages, as the model takes it. */
static void setup_cfg(const struct cxd_params *p, uint64_t npages,
		      struct cxd_model_cfg *mc)
{
	mc->npages = npages;
	mc->nlines = (uint32_t)(p->cache_size / CXD_HOST_PAGE_SIZE);
	mc->ways = p->ways;
	mc->policy = (enum cxd_policy)p->policy;
	mc->nand = p->nand;
	mc->ftl = p->ftl;
}

/**
 * cxd_model_setup_check() - can @p make a model of @npages pages?
 * @p:		parameters; each within its own bounds (the table's).
 * @npages:	device size, 4 KiB pages (the module: capacity / 4K; the
 *		simulator: the same, or the trace's extent).
 * @size:	set to the bytes of state the model needs (8-byte aligned
 *		memory, cxd_model_cfg_state_size()) when the answer is yes.
 *
 * First every row of the table within its bounds (capacity and cache_size
 * aside: @npages stands for the capacity, and the cache is bounded by it;
 * the module's configfs holds both to the table's CXD_MAX_CAPACITY), then
 * the checks that relate parameters, in this order: the cache (a whole
 * number of 4 KiB lines, at most CXD_MAX_LINES, not larger than the
 * device), the NAND geometry and timing, the FTL, the
 * cache shape (ways must divide the lines), the learned prefetchers'
 * parameters, the drain marks.
 *
 * Return: NULL, or why not (one line naming the parameters).
 */
const char *cxd_model_setup_check(const struct cxd_params *p, uint64_t npages,
				  size_t *size)
{
	struct cxd_model_cfg mc;
	const char *why;
	size_t n, i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].id != CXD_PARAM_capacity &&
		    rows[i].id != CXD_PARAM_cache_size &&
		    cxd_param_bad(&rows[i], param_get(p, rows[i].id)))
			return rows_bad[i];
	if (p->cache_size % CXD_HOST_PAGE_SIZE)
		return "cache_size not a multiple of 4K";
	if (p->cache_size / CXD_HOST_PAGE_SIZE > CXD_MAX_LINES)
		return "cache_size out of range";
	if (!npages)
		return "capacity 0";
	if (p->cache_size / CXD_HOST_PAGE_SIZE > npages)
		return "cache_size larger than capacity";
	if (cxd_nand_cfg_valid(&p->nand))
		return "invalid NAND geometry or timing";
	setup_cfg(p, npages, &mc);
	why = cxd_ftl_check(&mc);
	if (why)
		return why;
	n = cxd_model_cfg_state_size(&mc);
	if (!n)
		return p->ways && mc.nlines % p->ways ?
		       "ways does not divide the cache's lines (cache_size / 4K)" :
		       "invalid cache shape (cache_size, ways, capacity)";
	why = cxd_pf_params_check(&p->pf);
	if (why)
		return why;
	if (p->drain_low_pct >= p->drain_high_pct)
		return "drain_low_pct not below drain_high_pct";
	*size = n;
	return NULL;
}

/**
 * cxd_model_setup() - build model @m from @p over @mem.
 * @m:		model to set up.
 * @p:		parameters.
 * @npages:	device size, 4 KiB pages.
 * @mem:	cxd_model_setup_check()'s size in bytes, 8-byte aligned, all
 *		zero (kvzalloc, calloc): the per-page arrays are not written
 *		(struct cxd_model_cfg.zeroed), so a page of a large device
 *		costs host memory only once used where the memory is lazily
 *		zeroed (a fresh mapping).
 *
 * cxd_model_setup_check(), then: the cache, NAND, FTL and written-page
 * state (cxd_model_init_cfg(), with @p's policy), the CFLRU window, the
 * random policy's seed, the settings that may change while the model runs
 * (prefetch, write policy, learned prefetchers, NAND timing:
 * CXD_PARAMS_TO_MODEL()), and with ftl_fill every page mapped
 * (cxd_model_ftl_fill(), O(npages)). No time passes; every counter is zero.
 *
 * Return: NULL, or why not (@m unusable, @mem untouched when a check
 * failed).
 */
const char *cxd_model_setup(struct cxd_model *m, const struct cxd_params *p,
			    uint64_t npages, void *mem)
{
	struct cxd_model_cfg mc;
	const char *why;
	size_t n;

	why = cxd_model_setup_check(p, npages, &n);
	if (why)
		return why;
	setup_cfg(p, npages, &mc);
	mc.zeroed = true;
	if (cxd_model_init_cfg(m, &mc, mem))
		return "model rejected the configuration";
	if (cxd_cache_set_cflru_window(&m->cache, p->cflru_window_pct))
		return "cflru_window_pct out of range";
	cxd_model_set_seed(m, p->seed);
	CXD_PARAMS_TO_MODEL(m, p);
	if (p->ftl_fill)
		cxd_model_ftl_fill(m);
	return NULL;
}
