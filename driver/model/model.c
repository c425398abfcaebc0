// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: cache + NAND + prefetcher + counters of one
 * emulated device.
 *
 * State layout in the caller's buffer: the cache's arrays first (see
 * cxd_cache_state_size_ways()), then the NAND's (cxd_nand_state_size()),
 * then the written-page bitmap (npages bits), the FTL's arrays
 * (cxd_ftl_state_size()) and struct cxd_model_priv; every size is a
 * multiple of 8 so every array stays 8-byte aligned.
 *
 * One access: the demand page is looked up; a hit may wait for a prefetch
 * still in flight; a miss inserts the page (its victim's write-back goes to
 * NAND first) and reads it. Then the prefetcher may insert up to
 * CXD_MAX_PREFETCH_DEGREE more pages, each read at the same arrival time
 * after the demand read, so prefetches queue behind it on dies and
 * channels. Every victim is reported to the caller, who must unmap it.
 *
 * Pure C: no kernel or libc calls.
 */
#include "model_internal.h"
#include "cache_internal.h"
#include "nand.h"
#include "names.h"
#include "cxdvirt/params.h"

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

static size_t written_bytes(uint64_t npages)
{
	return (size_t)align8((npages + 7) / 8);
}

/**
 * cxd_model_cfg_state_size() - bytes of state for a whole model.
 * @cfg: structural configuration.
 *
 * The FTL's state (cxd_ftl_cfg) follows the written-page bitmap, then
 * struct cxd_model_priv.
 *
 * Return: size in bytes, or 0 if the cache shape, NAND configuration or
 * FTL is invalid (cxd_ftl_check() says why for the FTL).
 */
size_t cxd_model_cfg_state_size(const struct cxd_model_cfg *cfg)
{
	size_t cs, ns, fs;

	if (!cfg)
		return 0;
	cs = cxd_cache_state_size_ways(cfg->npages, cfg->nlines, cfg->ways);
	ns = cxd_nand_state_size(&cfg->nand);
	fs = cxd_ftl_state_size(cfg);
	if (!cs || !ns || fs == (size_t)-1)
		return 0;
	return cs + ns + written_bytes(cfg->npages) + fs +
	       (size_t)align8(sizeof(struct cxd_model_priv));
}

/**
 * cxd_model_init_cfg() - set up @m over @mem.
 * @m:   model to initialise.
 * @cfg: structural configuration (the NAND part is copied).
 * @mem: cxd_model_cfg_state_size() bytes, 8-byte aligned; any content,
 *       or all zero if @cfg->zeroed (then the per-page arrays are not
 *       written: O(nlines) rather than O(npages)).
 *
 * The cache starts empty, the NAND idle at time 0, all counters zero, no
 * page written, random policy seed 0; prefetch, write policy and the
 * learned prefetchers' parameters take the defaults of the parameter table
 * (CXD_PARAMS_MODEL and CXD_PARAMS_PF in include/cxdvirt/params.h: prefetch
 * off, write-allocate with fetch, skip_unwritten off, write-back on
 * eviction with drain marks 95% and 85%).
 *
 * Return: 0, or -1 if anything is invalid (@m and @mem untouched).
 */
int cxd_model_init_cfg(struct cxd_model *m, const struct cxd_model_cfg *cfg,
		       void *mem)
{
	unsigned char *p = mem;
	size_t cs, ns, fs, i;

	if (!m || !mem || !cxd_model_cfg_state_size(cfg) ||
	    (unsigned int)cfg->policy >= CXD_POLICY_NR)
		return -1;
	cs = cxd_cache_state_size_ways(cfg->npages, cfg->nlines, cfg->ways);
	ns = cxd_nand_state_size(&cfg->nand);
	fs = cxd_ftl_state_size(cfg);
	if (cxd_cache_init_mem(&m->cache, cfg->npages, cfg->nlines, cfg->ways,
			       cfg->policy, p, cfg->zeroed))
		return -1;
	if (cxd_nand_init(&m->nand, &cfg->nand, p + cs))
		return -1;
	m->written = p + cs + ns;
	if (!cfg->zeroed)
		for (i = 0; i < written_bytes(cfg->npages); i++)
			m->written[i] = 0;
	m->priv = (struct cxd_model_priv *)(m->written +
					    written_bytes(cfg->npages) + fs);
	cxd_ftl_init(&m->priv->ftl, cfg, m->written + written_bytes(cfg->npages));
	m->nand.ftl = m->priv->ftl.cfg.mode != CXD_FTL_OFF;
	/* Prefetch, write policy, learned prefetchers: the table's defaults. */
	CXD_PARAMS_DEFAULTS(m, CXD_PARAMS_MODEL);
	CXD_PARAMS_DEFAULTS(m, CXD_PARAMS_PF);
	cxd_pf_reset(&m->priv->pf);
	cxd_ctrl_reset(&m->priv->ctrl);
	cxd_model_reset_stats(m);
	return 0;
}

/**
 * cxd_model_set_seed() - reseed the random replacement policy.
 * @m:    model.
 * @seed: seed; the same seed and the same accesses give the same run.
 */
void cxd_model_set_seed(struct cxd_model *m, uint64_t seed)
{
	cxd_cache_set_seed(&m->cache, seed);
}

static bool page_written(const struct cxd_model *m, uint64_t page)
{
	return m->written[page / 8] & (1u << (page % 8));
}

static void mark_written(struct cxd_model *m, uint64_t page)
{
	m->written[page / 8] |= (uint8_t)(1u << (page % 8));
}

/*
 * Write dirty @page back to NAND at @now (through the FTL when it is on).
 * Return: when the program completes (ns).
 */
static uint64_t write_back(struct cxd_model *m, uint64_t page, uint64_t now)
{
	uint64_t done;

	m->stats.writebacks++;
	done = cxd_nand_program(&m->nand, page, now, NULL);
	mark_written(m, page);
	if (m->priv->ftl.cfg.mode != CXD_FTL_OFF)
		cxd_ftl_write(m, page, now);
	return done;
}

/* Count victim @v and write it back at @now if dirty. */
static void account_victim(struct cxd_model *m, const struct cxd_pf_ops *pf,
			   const struct cxd_cache_victim *v, uint64_t now)
{
	m->stats.evictions++;
	if (pf->evicted)
		pf->evicted(&m->priv->pf);
	if (v->dirty) {
		m->stats.dirty_evictions++;
		write_back(m, v->page, now);
	} else {
		m->stats.clean_evictions++;
	}
	if (v->prefetched)
		m->stats.prefetch_polluting++;
}

void cxd_model_late_writeback(struct cxd_model *m, uint64_t page,
			      uint64_t now_ns, bool recount)
{
	if (recount && m->stats.clean_evictions) {
		m->stats.clean_evictions--;
		m->stats.dirty_evictions++;
	}
	write_back(m, page, now_ns);
}

/**
 * cxd_model_flush() - write resident dirty @page back to NAND and keep it
 * resident, clean: a persistence barrier (msync on a device with a NAND
 * image).
 * @m:      model; the caller holds its lock.
 * @page:   host page number.
 * @now_ns: when the write-back starts (absolute ns).
 *
 * Counted in writebacks (not as an eviction); the policy sees a clean line
 * from then on (CFLRU moves it to the clean side of its window). O(1).
 *
 * Return: when the program completes (ns), or @now_ns if @page is not
 * resident or not dirty (nothing changes).
 */
uint64_t cxd_model_flush(struct cxd_model *m, uint64_t page, uint64_t now_ns)
{
	if (!cxd_cache_dirty(&m->cache, page))
		return now_ns;
	cxd_cache_clear_dirty(&m->cache, page);
	return write_back(m, page, now_ns);
}

/**
 * cxd_model_discard() - @page left the device: drop its line, no write-back.
 * @m:      model; the caller holds its lock; no reshape pending.
 * @page:   host page number (out of range: nothing happens).
 * @now_ns: when the page left (ns, absolute). No NAND, controller or link
 *          operation is scheduled, so no state depends on it; callers pass
 *          the time as to every other model call.
 *
 * For an exposure whose pages can leave the device while cached (node
 * mode: a page migrated off the node takes its data to its new home). The
 * line leaves the cache as if it had never been filled (the rules:
 * cxd_cache_discard()): not counted as an eviction, a dirty line is not
 * programmed to NAND (its data went with the page; written[] and the FTL
 * keep what NAND held before), a prefetched-unused line counts neither as
 * useful nor as polluting, and S3-FIFO and 2Q do not ghost it (a ghost
 * of @page is forgotten too). The prefetchers' learned state is a history
 * of accesses, not of residency, and stays. Counted in stats.discards
 * (and dirty_discards) when a line was resident. O(1).
 *
 * Return: true if @page was resident (its line is free now), else false.
 */
bool cxd_model_discard(struct cxd_model *m, uint64_t page, uint64_t now_ns)
{
	bool dirty = cxd_cache_dirty(&m->cache, page);

	(void)now_ns;
	if (!cxd_cache_discard(&m->cache, page))
		return false;
	m->stats.discards++;
	if (dirty)
		m->stats.dirty_discards++;
	return true;
}

static void take_victim(struct cxd_model *m, const struct cxd_pf_ops *pf,
			const struct cxd_cache_victim *v, uint64_t now,
			struct cxd_access *res)
{
	if (v->page == CXD_NO_PAGE)
		return;
	account_victim(m, pf, v, now);
	if (res->nvictims < CXD_MAX_VICTIMS) {
		/*
		 * Field by field, into the caller's compact form (a 32-bit
		 * page): a whole-struct copy of @v would read 16 bytes that
		 * three smaller stores just wrote, which the CPU cannot
		 * forward.
		 */
		res->victims[res->nvictims].page = (uint32_t)v->page;
		res->victims[res->nvictims].dirty = v->dirty;
		res->victims[res->nvictims].prefetched = v->prefetched;
		res->nvictims++;
	}
}

/* Does skip_unwritten spare the read of @page? */
static bool read_skipped(const struct cxd_model *m, uint64_t page)
{
	return m->skip_unwritten && !page_written(m, page);
}

/*
 * Schedule the read of @page at @now through the controller (ctrl.c)
 * unless skip_unwritten spares it. Return: its completion.
 */
static uint64_t read_page(struct cxd_model *m, uint64_t page, uint64_t now,
			  struct cxd_nand_op *op)
{
	if (read_skipped(m, page)) {
		m->stats.unwritten_skips++;
		return now;
	}
	return cxd_ctrl_read(m, page, now, op);
}

/* Prefetch @page (if in range and absent) at @now. */
static void prefetch_one(struct cxd_model *m, const struct cxd_pf_ops *pf,
			 uint64_t page, uint64_t now, struct cxd_access *res)
{
	struct cxd_cache *c = &m->cache;
	struct cxd_cache_victim v;
	uint64_t done;

	if (page >= c->npages || cxd_cache_resident(c, page) ||
	    res->nprefetched >= CXD_MAX_PREFETCH_DEGREE)
		return;
	if (cxd_cache_fill(c, page, CXD_FILL_PREFETCH, &v))
		return;
	if (pf->issued)
		pf->issued(&m->priv->pf, v.page);
	take_victim(m, pf, &v, now, res);
	done = read_page(m, page, now, NULL);
	cxd_cache_set_ready(c, page, done);
	m->stats.prefetch_issued++;
	res->prefetched[res->nprefetched] = (uint32_t)page;
	res->prefetch_done_ns[res->nprefetched] = done;
	res->nprefetched++;
}

/*
 * Prefetch @n pages @page + @stride * (@dist + i), i = 0 .. n-1, stopping
 * where a negative stride would wrap below page 0.
 */
static void prefetch_run(struct cxd_model *m, const struct cxd_pf_ops *pf,
			 uint64_t page, int64_t stride, uint32_t dist,
			 uint32_t n, uint64_t now, struct cxd_access *res)
{
	uint64_t target;
	uint32_t i;

	for (i = 0; i < n; i++) {
		target = page + (uint64_t)(stride * (int64_t)(dist + i));
		if ((stride < 0 && target > page) ||
		    (stride > 0 && target < page))
			break;
		prefetch_one(m, pf, target, now, res);
	}
}

/*
 * Run prefetcher @pf after the access @res to @page (@trigger: a miss or
 * first use) and issue what it asks for.
 */
static void prefetch_after(struct cxd_model *m, const struct cxd_pf_ops *pf,
			   uint64_t page, bool trigger, uint64_t now,
			   struct cxd_access *res)
{
	struct cxd_pf_in in = {
		.page = page, .trigger = trigger, .miss = !res->hit,
		.prefetch_hit = res->prefetch_hit, .late = res->late,
		.degree = m->prefetch_degree, .distance = m->prefetch_distance,
		.nlines = m->cache.nlines, .p = &m->pf,
	};
	struct cxd_pf_run run;

	if (pf->decide(&m->priv->pf, &in, &run))
		prefetch_run(m, pf, page, run.stride, run.dist, run.n, now,
			     res);
}

/* ------------------------------------------------------------- access -- */

static void access_reset(struct cxd_access *res, uint64_t now_ns)
{
	res->hit = false;
	res->miss = CXD_MR_NONE;
	res->done_ns = now_ns;
	res->read.channel = 0;
	res->read.die = 0;
	res->read.plane = 0;
	res->read.start_ns = now_ns;
	res->read.done_ns = now_ns;
	res->prefetch_hit = false;
	res->late = false;
	res->drain = false;
	res->busy = false;
	res->nvictims = 0;
	res->nprefetched = 0;
}

static uint32_t drain_lines(const struct cxd_model *m, uint32_t pct)
{
	return (uint32_t)((uint64_t)m->cache.nlines * pct / 100);
}

/* Should the background drain run? (see enum cxd_writeback) */
static bool drain_wanted(const struct cxd_model *m)
{
	return m->writeback == CXD_WB_DRAIN &&
	       m->cache.used > drain_lines(m, m->drain_high_pct);
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
 * done_ns = @now_ns, except for the first use of a prefetched page
 * (prefetch_hit, counted useful) whose read ends later (late): done_ns is
 * that read's completion. (A demand read still in flight is not waited
 * for: callers serialise accesses to one page, as the module's page lock
 * does.) Miss: the page is inserted (the policy evicting a
 * victim if its set is full; a dirty victim is programmed to NAND at
 * @now_ns and counted in writebacks and dirty_evictions), marked dirty on a
 * write, then read from NAND at @now_ns (a write miss with write_alloc
 * CXD_WA_NOFETCH, or with skip_unwritten a page never written back, skips
 * the read: done_ns = @now_ns); counts a miss and adds done_ns - @now_ns
 * to model_miss_ns and the miss histogram. Then the prefetcher runs (see
 * enum cxd_prefetch_mode) with the demand page pinned.
 *
 * With CXD_ACC_HOLD the demand page's line is held (cxd_cache_hold()) when
 * the call returns, hit or miss. Held lines are never evicted; a miss whose
 * set holds only held (or pinned) lines sets res->busy, changes and counts
 * nothing, and the caller retries once a holder released its line.
 *
 * An out-of-range @page changes nothing: res reports a miss with no victim
 * and done_ns = @now_ns.
 */
void cxd_model_access(struct cxd_model *m, uint64_t page, unsigned int flags,
		      uint64_t now_ns, struct cxd_access *res)
{
	const struct cxd_pf_ops *pf = cxd_pf_ops_of(m->prefetch);
	struct cxd_cache *c = &m->cache;
	bool write = flags & CXD_ACC_WRITE, trigger;
	struct cxd_cache_victim v;
	uint64_t ready;

	access_reset(res, now_ns);
	if (page >= c->npages)
		return;

	if (cxd_cache_resident(c, page)) {
		res->hit = true;
		m->stats.hits++;
		cxd_cache_touch(c, page);
		if (write)
			cxd_cache_set_dirty(c, page);
		res->prefetch_hit = cxd_cache_use_prefetched(c, page);
		if (res->prefetch_hit) {
			m->stats.prefetch_useful++;
			ready = cxd_cache_ready_ns(c, page);
			if (ready > now_ns) {
				res->done_ns = ready;
				res->late = true;
				m->stats.prefetch_late++;
				m->stats.prefetch_late_ns += ready - now_ns;
			}
		}
		trigger = res->prefetch_hit;
	} else {
		if (cxd_cache_fill(c, page, 0, &v)) {
			res->busy = true;	/* every line of the set is held */
			return;
		}
		take_victim(m, pf, &v, now_ns, res);
		if (write)
			cxd_cache_set_dirty(c, page);
		m->stats.misses++;
		if (write)
			m->stats.write_misses++;
		else
			m->stats.read_misses++;
		if (write && m->write_alloc == CXD_WA_NOFETCH) {
			m->stats.write_allocs++;
			res->miss = CXD_MR_WRITE_ALLOC;
		} else {
			res->miss = read_skipped(m, page) ? CXD_MR_UNWRITTEN :
				    write ? CXD_MR_WRITE : CXD_MR_READ;
			res->done_ns = read_page(m, page, now_ns, &res->read);
			if (m->priv->ftl.cfg.mode != CXD_FTL_OFF)
				cxd_ftl_read_stall(m, page, now_ns, &res->read);
			m->stats.queue_ns += res->read.start_ns - now_ns;
			cxd_hist_add(&m->stats.queue_hist,
				     res->read.start_ns - now_ns);
		}
		cxd_cache_set_ready(c, page, res->done_ns);
		m->stats.model_miss_ns += res->done_ns - now_ns;
		cxd_hist_add(&m->stats.miss_hist, res->done_ns - now_ns);
		trigger = true;
	}

	if (flags & CXD_ACC_HOLD)
		cxd_cache_hold(c, page);
	if (pf->decide && (trigger || pf->every_access)) {
		cxd_cache_pin(c, page);
		prefetch_after(m, pf, page, trigger, now_ns, res);
		cxd_cache_pin(c, CXD_NO_PAGE);
	}
	res->drain = drain_wanted(m);
}

/**
 * cxd_model_reset_stats() - zero @m->stats, every die's busy time (ns) and
 * the erase count.
 * @m: model.
 *
 * Residency, dirty state, written bits, prefetch state and the planes' and
 * channels' next-free times stay.
 */
void cxd_model_reset_stats(struct cxd_model *m)
{
	static const struct cxd_model_stats zero;
	uint64_t i, ndies;

	static const struct cxd_ftl_stats fzero;

	m->stats = zero;
	m->ftl_stats = fzero;
	ndies = (uint64_t)m->nand.cfg.channels * m->nand.cfg.dies_per_channel;
	for (i = 0; i < ndies; i++)
		m->nand.die_busy[i] = 0;
	m->nand.erases = 0;
}

/**
 * cxd_model_drain() - background write-back drain (enum cxd_writeback).
 * @m:      model.
 * @now_ns: when the drain runs; dirty victims are programmed from then.
 * @out:    [@max] filled with the victims, which the caller unmaps.
 * @max:    most lines to evict in this call.
 *
 * Evicts lines chosen by the policy while more than drain_low_pct of the
 * lines are resident; each is counted as an eviction and a drain eviction,
 * and a dirty one is written back. Runs whatever @m->writeback is, so a
 * caller may also drain on demand. O(1) per line, amortised.
 *
 * Return: the number of victims written to @out.
 */
uint32_t cxd_model_drain(struct cxd_model *m, uint64_t now_ns,
			 struct cxd_victim *out, uint32_t max)
{
	const struct cxd_pf_ops *pf = cxd_pf_ops_of(m->prefetch);
	uint32_t low = drain_lines(m, m->drain_low_pct), n = 0;
	struct cxd_cache_victim v;

	while (n < max && m->cache.used > low) {
		if (cxd_cache_evict_one(&m->cache, &v))
			break;
		account_victim(m, pf, &v, now_ns);
		m->stats.drain_evictions++;
		out[n].page = (uint32_t)v.page;
		out[n].dirty = v.dirty;
		out[n].prefetched = v.prefetched;
		n++;
	}
	return n;
}

/*
 * Sift key @k[@i] down a max-heap of @n keys (a heap sort: the model calls
 * no libc).
 */
static void heap_sift(uint64_t *k, uint64_t i, uint64_t n)
{
	uint64_t c, t;

	for (; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && k[c + 1] > k[c])
			c++;
		if (k[i] >= k[c])
			return;
		t = k[i];
		k[i] = k[c];
		k[c] = t;
	}
}

static void heap_sort(uint64_t *k, uint64_t n)
{
	uint64_t i, t;

	for (i = n / 2; i-- > 0;)
		heap_sift(k, i, n);
	while (n > 1) {
		n--;
		t = k[0];
		k[0] = k[n];
		k[n] = t;
		heap_sift(k, 0, n);
	}
}

uint64_t cxd_model_power_fail(struct cxd_model *m, uint64_t now_ns,
			      uint64_t *pages, uint64_t *nsaved)
{
	const struct cxd_cache *c = &m->cache;
	uint64_t n = 0, i, kept = 0, page;
	uint32_t l;

	*nsaved = 0;
	/*
	 * key: seq - clock (mod 2^32), smaller for an older dirtying even
	 * across a wrap of the clock (over the last 2^31), then the line
	 */
	for (l = 0; l < c->nlines; l++)
		if (c->lines[l].flags & CXD_LINE_DIRTY)
			pages[n++] = ((uint64_t)(uint32_t)(c->dirty_seq[l] -
					c->dirty_clock) << 32) | l;
	if (m->persistence != CXD_PERSIST_GPF) {
		for (i = 0; i < n; i++)
			pages[i] = c->lines[(uint32_t)pages[i]].page;
		return n;
	}
	heap_sort(pages, n);	/* oldest-dirtied first */
	/* in flush order; the kept ones move to the front in that order */
	for (i = 0; i < n; i++) {
		page = c->lines[(uint32_t)pages[i]].page;
		pages[i] = page;
		if (cxd_nand_program(&m->nand, page, now_ns, NULL) >
		    now_ns + m->gpf_budget_ns)
			continue;	/* lost */
		m->stats.writebacks++;
		mark_written(m, page);
		if (m->priv->ftl.cfg.mode != CXD_FTL_OFF)
			cxd_ftl_write(m, page, now_ns);
		cxd_cache_clear_dirty(&m->cache, page);
		pages[i] = pages[kept];
		pages[kept++] = page;
	}
	*nsaved = kept;
	return n;
}

static const char *const cxd_persistence_names[CXD_PERSIST_NR] = {
	[CXD_PERSIST_VOLATILE] = "volatile",
	[CXD_PERSIST_GPF] = "gpf",
};

CXD_NAMED_ENUM(cxd_persistence, enum cxd_persistence, cxd_persistence_names,
	       CXD_PERSIST_NR)

static const char *const cxd_writeback_names[CXD_WB_NR] = {
	[CXD_WB_EVICT] = "evict",
	[CXD_WB_DRAIN] = "drain",
};

CXD_NAMED_ENUM(cxd_writeback, enum cxd_writeback, cxd_writeback_names,
	       CXD_WB_NR)

static const char *const cxd_write_alloc_names[CXD_WA_NR] = {
	[CXD_WA_FETCH] = "fetch",
	[CXD_WA_NOFETCH] = "nofetch",
};

CXD_NAMED_ENUM(cxd_write_alloc, enum cxd_write_alloc, cxd_write_alloc_names,
	       CXD_WA_NR)
