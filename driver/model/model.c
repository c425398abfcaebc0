// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: cache + NAND + counters of one emulated device.
 *
 * State layout in the caller's buffer: the cache's arrays first (see
 * cxd_cache_state_size()), then the NAND's (cxd_nand_state_size()); both
 * sizes are multiples of 8 so every array stays 8-byte aligned.
 * Pure C: no kernel or libc calls.
 */
#include "cxdvirt/model.h"

/**
 * cxd_model_state_size() - bytes of state for a whole model.
 * @npages: device capacity in 4 KiB host pages.
 * @nlines: cache capacity in 4 KiB lines.
 * @nand:   NAND configuration.
 *
 * Return: size in bytes, or 0 if the cache shape or @nand is invalid.
 */
size_t cxd_model_state_size(uint64_t npages, uint32_t nlines,
			    const struct cxd_nand_cfg *nand)
{
	size_t cs = cxd_cache_state_size(npages, nlines);
	size_t ns = cxd_nand_state_size(nand);

	if (!cs || !ns)
		return 0;
	return cs + ns;
}

/**
 * cxd_model_init() - set up @m over @mem.
 * @m:      model to initialise.
 * @npages: device capacity in 4 KiB host pages.
 * @nlines: cache capacity in 4 KiB lines.
 * @nand:   NAND configuration (copied).
 * @policy: cache replacement policy.
 * @mem:    cxd_model_state_size() bytes, 8-byte aligned, any content.
 *
 * The cache starts empty, the NAND idle at time 0, all counters zero.
 *
 * Return: 0, or -1 if anything is invalid (@m and @mem untouched).
 */
int cxd_model_init(struct cxd_model *m, uint64_t npages, uint32_t nlines,
		   const struct cxd_nand_cfg *nand, enum cxd_policy policy,
		   void *mem)
{
	size_t cs;

	if (!m || !mem || !cxd_model_state_size(npages, nlines, nand) ||
	    (unsigned int)policy >= CXD_POLICY_NR)
		return -1;
	cs = cxd_cache_state_size(npages, nlines);
	if (cxd_cache_init(&m->cache, npages, nlines, policy, mem))
		return -1;
	if (cxd_nand_init(&m->nand, nand, (unsigned char *)mem + cs))
		return -1;
	cxd_model_reset_stats(m);
	return 0;
}

/**
 * cxd_model_access() - one access to host @page at @now_ns.
 * @m:      model.
 * @page:   host page number (< npages).
 * @flags:  CXD_ACC_WRITE or 0.
 * @now_ns: arrival time, ns absolute.
 * @res:    outcome (required).
 *
 * Hit: counts a hit, tells the policy, marks the line dirty on a write;
 * done_ns = @now_ns. Miss: the page is inserted (the policy evicting a
 * victim if the cache is full; a dirty victim is programmed to NAND at
 * @now_ns and counted in writebacks and dirty_evictions), marked dirty on a
 * write, then read from NAND at @now_ns; counts a miss and adds
 * done_ns - @now_ns to model_miss_ns.
 *
 * An out-of-range @page changes nothing: res reports a miss with no victim
 * and done_ns = @now_ns.
 */
void cxd_model_access(struct cxd_model *m, uint64_t page, unsigned int flags,
		      uint64_t now_ns, struct cxd_access *res)
{
	struct cxd_cache *c = &m->cache;
	bool vdirty = false;
	uint64_t victim;

	res->hit = false;
	res->victim = CXD_NO_PAGE;
	res->victim_dirty = false;
	res->done_ns = now_ns;
	res->read.channel = 0;
	res->read.die = 0;
	res->read.start_ns = now_ns;
	res->read.done_ns = now_ns;

	if (page >= c->npages)
		return;

	if (cxd_cache_resident(c, page)) {
		res->hit = true;
		m->stats.hits++;
		cxd_cache_touch(c, page);
		if (flags & CXD_ACC_WRITE)
			cxd_cache_set_dirty(c, page);
		return;
	}

	victim = cxd_cache_insert(c, page, &vdirty);
	if (victim != CXD_NO_PAGE) {
		m->stats.evictions++;
		res->victim = victim;
		if (vdirty) {
			res->victim_dirty = true;
			m->stats.dirty_evictions++;
			m->stats.writebacks++;
			cxd_nand_program(&m->nand, victim, now_ns, NULL);
		}
	}
	if (flags & CXD_ACC_WRITE)
		cxd_cache_set_dirty(c, page);

	res->done_ns = cxd_nand_read(&m->nand, page, now_ns, &res->read);
	m->stats.misses++;
	m->stats.model_miss_ns += res->done_ns - now_ns;
}

/**
 * cxd_model_reset_stats() - zero @m->stats and every die's busy time (ns).
 * @m: model.
 *
 * Residency, dirty state and the dies'/channels' next-free times stay.
 */
void cxd_model_reset_stats(struct cxd_model *m)
{
	uint64_t i, ndies;

	m->stats.misses = 0;
	m->stats.hits = 0;
	m->stats.evictions = 0;
	m->stats.dirty_evictions = 0;
	m->stats.writebacks = 0;
	m->stats.model_miss_ns = 0;
	ndies = (uint64_t)m->nand.cfg.channels * m->nand.cfg.dies_per_channel;
	for (i = 0; i < ndies; i++)
		m->nand.die_busy[i] = 0;
}
