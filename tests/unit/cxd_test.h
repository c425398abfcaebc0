/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the cxdvirt model unit tests (cmocka).
 */
#ifndef CXD_TEST_H
#define CXD_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cxdvirt/model.h>
#include "cache_internal.h"
#include "model_internal.h"
#include "nand.h"

/* The configfs defaults: 8 channels x 4 dies, 4 KiB pages, 1200 MB/s. */
#define T_R	3000ull
#define T_PROG	100000ull
#define XFER_4K	3414ull	/* ceil(4096 * 1000 / 1200) */

static inline struct cxd_nand_cfg test_cfg(uint32_t channels, uint32_t dies,
					   uint32_t page_size)
{
	struct cxd_nand_cfg cfg = {
		.channels = channels,
		.dies_per_channel = dies,
		.nand_page_size = page_size,
		.t_read_ns = T_R,
		.t_prog_ns = T_PROG,
		.channel_mbps = 1200,
	};

	return cfg;
}

static inline struct cxd_nand_cfg default_cfg(void)
{
	return test_cfg(8, 4, 4096);
}

/* Buffer of @size bytes filled with junk: init must not rely on zeroing. */
static inline void *junk_alloc(size_t size)
{
	void *p;

	assert_true(size > 0);
	p = malloc(size);
	assert_non_null(p);
	memset(p, 0xa5, size);
	return p;
}

/* The model's configuration for a fully associative cache. */
static inline struct cxd_model_cfg fa_cfg(uint64_t npages, uint32_t nlines,
					  const struct cxd_nand_cfg *nand,
					  enum cxd_policy policy)
{
	struct cxd_model_cfg cfg = {
		.npages = npages,
		.nlines = nlines,
		.ways = 0,
		.policy = policy,
	};

	if (nand)
		cfg.nand = *nand;
	return cfg;
}

/* cxd_model_cfg_state_size() of a fully associative model; 0 without @nand. */
static inline size_t fa_state_size(uint64_t npages, uint32_t nlines,
				   const struct cxd_nand_cfg *nand)
{
	struct cxd_model_cfg cfg = fa_cfg(npages, nlines, nand,
					  CXD_POLICY_FIFO);

	return nand ? cxd_model_cfg_state_size(&cfg) : 0;
}

/* cxd_model_init_cfg() of a fully associative model; -1 without @nand. */
static inline int fa_init(struct cxd_model *m, uint64_t npages,
			  uint32_t nlines, const struct cxd_nand_cfg *nand,
			  enum cxd_policy policy, void *mem)
{
	struct cxd_model_cfg cfg = fa_cfg(npages, nlines, nand, policy);

	return nand ? cxd_model_init_cfg(m, &cfg, mem) : -1;
}

/* Model state beyond the cache's, the NAND's and the bitmap's arrays. */
#define PRIV_BYTES	((sizeof(struct cxd_model_priv) + 7) & ~(size_t)7)

/*
 * cxd_cache_fill() without flags: the evicted page (CXD_NO_PAGE if none),
 * its dirty bit in *@vd if @vd is not NULL.
 */
static inline uint64_t cache_insert(struct cxd_cache *c, uint64_t page,
				    bool *vd)
{
	struct cxd_cache_victim v;

	cxd_cache_fill(c, page, 0, &v);
	if (vd)
		*vd = v.dirty;
	return v.page;
}

/* The first victim of an access (the demand page's), CXD_NO_PAGE if none. */
static inline uint64_t acc_victim(const struct cxd_access *r)
{
	return r->nvictims ? r->victims[0].page : CXD_NO_PAGE;
}

/* Was the first victim of an access dirty? */
static inline bool acc_victim_dirty(const struct cxd_access *r)
{
	return r->nvictims && r->victims[0].dirty;
}

#endif /* CXD_TEST_H */
