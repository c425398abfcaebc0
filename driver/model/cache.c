// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: the device's DRAM cache.
 *
 * nlines 4 KiB lines in nsets sets of `ways` lines (fully associative: one
 * set). Set s owns lines [s * ways, (s + 1) * ways); host page p maps to set
 * p % nsets. Residency is tracked by line_of_page[page] and the page field
 * of lines[line] (struct cxd_line: one line's page, links, flags and ready
 * time side by side, so that touching a line costs one CPU cache miss, not
 * one per field); a set's unused lines sit on its free list threaded
 * through the next links. Resident lines are linked into doubly-linked
 * queues (next/prev, head = oldest, tail = newest): every policy uses the
 * set's main queue; S3-FIFO also its small queue.
 *
 * Replacement policies plug in through struct cxd_policy_ops, one per
 * policy_*.c, registered in policy.c; this file names none of them.
 * Contract for every policy: the queues always link every resident line. A
 * policy switch normalises the state (the policy's fold, small queue
 * appended to the main queue, policy bits cleared, ghost emptied) and the
 * new policy adopts the main queue (its adopt step, if any).
 *
 * The ghost ring (S3-FIFO, 2Q) holds ghost_cap page numbers; a ghost page
 * has line_of_page[page] = CXD_GHOST_TAG | slot, so a stale ring entry (the
 * page came back or was re-ghosted) is recognised and ignored.
 *
 * Pure C: no kernel or libc calls. Every operation is O(1) except init
 * (O(npages + nlines)) and these, each with a fixed bound:
 * - a clock or S3-FIFO eviction passes over at most CXD_SWEEP_MAX lines
 *   (each step consumes a reference bit or a frequency count set by an
 *   earlier touch, or moves a line from the small to the main queue); if
 *   the bound is reached, the line then at the hand is evicted whatever
 *   its bit or count (see docs/model.md). A set of at most CXD_SWEEP_MAX
 *   lines (clock) or CXD_SWEEP_MAX / 4 lines (S3-FIFO) never reaches it.
 * - a policy switch or a CFLRU window change (a "reshape", O(nlines) in
 *   all) is resumable: cxd_cache_reshape_step() does at most a given
 *   number of steps, so a caller can drop its lock between steps.
 * c->visits counts the steps (lines and sets visited) of all of these, so
 * tests can check each call's bound.
 */
#include "cache_internal.h"

static void ghost_push(struct cxd_cache *c, uint64_t page)
{
	uint32_t slot = c->ghost_next, old = c->ghost[slot];

	if (old < c->npages && cxd_lop_get(c, old) == (CXD_GHOST_TAG | slot))
		cxd_lop_set(c, old, CXD_NO_LINE);
	c->ghost[slot] = (uint32_t)page;
	cxd_lop_set(c, page, CXD_GHOST_TAG | slot);
	c->ghost_next = slot + 1 < c->ghost_cap ? slot + 1 : 0;
	/* the next push reads the entry of the page it overwrites */
	old = c->ghost[c->ghost_next];
	if (old < c->npages)
		cxd_warm(&c->line_of_page[old]);
}

static const struct cxd_policy_ops *policy_ops(const struct cxd_cache *c)
{
	return c->ops;
}

/* ------------------------------------------------------------- layout -- */

/*
 * Ghost ring length: S3-FIFO's holds as many pages as the main queues; 2Q's
 * A1out holds Kout = 50% of the page slots (Johnson and Shasha, section 3).
 * At most nlines, the size of the ring's array.
 */
static uint32_t ghost_cap_for(const struct cxd_cache *c, enum cxd_policy p)
{
	const struct cxd_policy_ops *ops = cxd_policy_ops_of(p);

	if (ops->ghost_cap)
		return ops->ghost_cap(c);
	return c->nlines > c->nsets * c->small_cap ?
	       c->nlines - c->nsets * c->small_cap : 1;
}

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

static bool cache_shape_valid(uint64_t npages, uint32_t nlines, uint32_t ways)
{
	if (nlines == 0 || nlines > npages || nlines > CXD_MAX_LINES ||
	    npages > ((uint64_t)1 << 32))
		return false;
	return ways == 0 || (ways <= nlines && nlines % ways == 0);
}

/**
 * cxd_cache_state_size_ways() - bytes of state for a set-associative cache.
 * @npages: device capacity in 4 KiB host pages.
 * @nlines: cache capacity in 4 KiB lines.
 * @ways:   lines per set, 0 for fully associative; must divide @nlines.
 *
 * Layout, each array 8-byte aligned: line_of_page u32[npages] (4 bytes per
 * device page), lines struct cxd_line[nlines] (24 bytes per line),
 * ghost u32[nlines] (4 bytes per line), dirty_seq u32[nlines] (4 bytes per
 * line), sets struct cxd_cache_set[nlines /
 * ways].
 *
 * Return: size in bytes, or 0 if the shape is invalid (nlines == 0,
 * nlines > npages, nlines > CXD_MAX_LINES, npages > 2^32, @ways not
 * dividing @nlines).
 */
size_t cxd_cache_state_size_ways(uint64_t npages, uint32_t nlines,
				 uint32_t ways)
{
	uint64_t sz, nsets;

	if (!cache_shape_valid(npages, nlines, ways))
		return 0;
	nsets = ways ? nlines / ways : 1;
	sz = align8(npages * sizeof(uint32_t));
	sz += align8((uint64_t)nlines * sizeof(struct cxd_line));
	sz += align8((uint64_t)nlines * sizeof(uint32_t));	/* ghost */
	sz += align8((uint64_t)nlines * sizeof(uint32_t));	/* dirty_seq */
	sz += align8(nsets * sizeof(struct cxd_cache_set));
	return (size_t)sz;
}

/**
 * cxd_cache_set_seed() - reseed the generator of the random policy.
 * @c:    cache.
 * @seed: any value (0 is replaced by a fixed non-zero constant).
 *
 * The same seed and the same sequence of calls give the same victims.
 */
void cxd_cache_set_seed(struct cxd_cache *c, uint64_t seed)
{
	c->rng = seed ? seed : 0x9e3779b97f4a7c15ull;
}

/**
 * cxd_cache_init_ways() - set up an empty cache over @mem.
 * @c:      cache to initialise.
 * @npages: device capacity in 4 KiB host pages.
 * @nlines: cache capacity in 4 KiB lines.
 * @ways:   lines per set, 0 for fully associative.
 * @policy: replacement policy.
 * @mem:    cxd_cache_state_size_ways() bytes, 8-byte aligned, any content.
 *
 * The random policy starts from seed 0 (see cxd_cache_set_seed()).
 * O(npages + nlines).
 *
 * Return: 0, or -1 on a bad shape or policy (@c and @mem untouched).
 */
int cxd_cache_init_ways(struct cxd_cache *c, uint64_t npages, uint32_t nlines,
			uint32_t ways, enum cxd_policy policy, void *mem)
{
	return cxd_cache_init_mem(c, npages, nlines, ways, policy, mem, false);
}

/**
 * cxd_cache_init_mem() - cxd_cache_init_ways() over memory that may be
 * known to be zero.
 * @c:      cache to initialise.
 * @npages: device capacity in 4 KiB host pages (1..2^32).
 * @nlines: cache capacity in 4 KiB lines.
 * @ways:   lines per set, 0 for fully associative.
 * @policy: replacement policy.
 * @mem:    cxd_cache_state_size_ways() bytes, 8-byte aligned.
 * @zeroed: @mem is all zero: the page table (stored inverted, zero is
 *          CXD_NO_LINE) is left untouched, O(nlines); else it is written,
 *          O(npages + nlines).
 *
 * Return: 0, or -1 on a bad shape or policy (@c and @mem untouched).
 */
int cxd_cache_init_mem(struct cxd_cache *c, uint64_t npages, uint32_t nlines,
		       uint32_t ways, enum cxd_policy policy, void *mem,
		       bool zeroed)
{
	unsigned char *p = mem;
	uint64_t i;
	uint32_t s, l;

	if (!c || !mem || !cache_shape_valid(npages, nlines, ways) ||
	    (unsigned int)policy >= CXD_POLICY_NR)
		return -1;

	c->npages = npages;
	c->nlines = nlines;
	c->used = 0;
	c->policy = policy;
	c->ways = ways ? ways : nlines;
	c->nsets = nlines / c->ways;
	c->ops = cxd_policy_ops_of(policy);
	/* every policy's parameters, for a later switch to it */
	for (i = 0; i < CXD_POLICY_NR; i++)
		if (cxd_policy_ops_of((enum cxd_policy)i)->setup)
			cxd_policy_ops_of((enum cxd_policy)i)->setup(c);
	c->pin_line = CXD_NO_LINE;
	c->visits = 0;
	c->rs_phase = 0;	/* no reshape pending */
	c->rs_pos = 0;
	cxd_cache_set_seed(c, 0);

	c->line_of_page = (uint32_t *)p;
	p += align8(npages * sizeof(uint32_t));
	c->lines = (struct cxd_line *)p;
	p += align8((uint64_t)nlines * sizeof(struct cxd_line));
	c->ghost = (uint32_t *)p;
	p += align8((uint64_t)nlines * sizeof(uint32_t));
	c->dirty_seq = (uint32_t *)p;
	p += align8((uint64_t)nlines * sizeof(uint32_t));
	c->dirty_clock = 0;
	c->sets = (struct cxd_cache_set *)p;

	c->ghost_cap = ghost_cap_for(c, policy);
	c->ghost_next = 0;
	c->drain_cursor = 0;

	/* every entry CXD_NO_LINE: stored inverted, so all zero */
	if (!zeroed)
		for (i = 0; i < npages; i++)
			cxd_lop_set(c, i, CXD_NO_LINE);
	for (l = 0; l < nlines; l++) {
		c->lines[l].page = CXD_NO_PAGE32;
		c->lines[l].ready_ns = 0;
		c->lines[l].flags = 0;
		c->dirty_seq[l] = 0;
		c->ghost[l] = CXD_NO_LINE;
		/* each set's free list runs through its lines in order */
		c->lines[l].next = (l + 1) % c->ways ? l + 1 : CXD_NO_LINE;
		c->lines[l].prev = CXD_NO_LINE;
	}
	for (s = 0; s < c->nsets; s++) {
		cxd_queue_init(&c->sets[s].main);
		cxd_queue_init(&c->sets[s].small);
		cxd_queue_init(&c->sets[s].aux);
		c->sets[s].free_head = s * c->ways;
		c->sets[s].used = 0;
	}
	return 0;
}

/* Line holding @page, or CXD_NO_LINE (also for ghosts and @page out of range). */
static uint32_t line_of(const struct cxd_cache *c, uint64_t page)
{
	uint32_t l;

	if (page >= c->npages)
		return CXD_NO_LINE;
	l = cxd_lop_get(c, page);
	return l < c->nlines ? l : CXD_NO_LINE;
}

/* Set of @line; no division for a fully associative cache (one set). */
static struct cxd_cache_set *set_of_line(const struct cxd_cache *c,
					 uint32_t line)
{
	return c->nsets == 1 ? c->sets : &c->sets[line / c->ways];
}

/* Set index of @page (< npages <= 2^32: a 32-bit division, none for one set). */
static uint32_t set_of_page(const struct cxd_cache *c, uint64_t page)
{
	return c->nsets == 1 ? 0 : (uint32_t)page % c->nsets;
}

/**
 * cxd_cache_resident() - is @page in the cache?
 * @c:    cache.
 * @page: host page number; out-of-range pages are never resident.
 *
 * Return: true if resident.
 */
bool cxd_cache_resident(const struct cxd_cache *c, uint64_t page)
{
	return line_of(c, page) != CXD_NO_LINE;
}

/**
 * cxd_cache_dirty() - is @page resident and dirty?
 * @c:    cache.
 * @page: host page number.
 *
 * Return: true if resident and dirty.
 */
bool cxd_cache_dirty(const struct cxd_cache *c, uint64_t page)
{
	uint32_t line = line_of(c, page);

	return line != CXD_NO_LINE && (c->lines[line].flags & CXD_LINE_DIRTY);
}

/**
 * cxd_cache_set_dirty() - mark resident @page dirty.
 * @c:    cache.
 * @page: host page number.
 *
 * Does not count as an access for the policy (see cxd_cache_touch()).
 *
 * Return: 0, or -1 if @page is not resident (nothing changes).
 */
int cxd_cache_set_dirty(struct cxd_cache *c, uint64_t page)
{
	uint32_t line = line_of(c, page);

	if (line == CXD_NO_LINE)
		return -1;
	if (!(c->lines[line].flags & CXD_LINE_DIRTY)) {
		c->lines[line].flags |= CXD_LINE_DIRTY;
		c->dirty_seq[line] = c->dirty_clock++;
		if (policy_ops(c)->dirtied)
			policy_ops(c)->dirtied(c, set_of_line(c, line), line);
	}
	return 0;
}

/**
 * cxd_cache_dirty_pages() - the pages of the cache's dirty lines: what a
 * power failure with a volatile cache loses (cxdvirt-sim --power-fail-at;
 * the module's power_fail counts them the same way).
 * @c:   cache.
 * @out: [@max] filled with the first @max such pages, in line order; may be
 *       NULL with @max 0 to count only.
 * @max: entries of @out.
 *
 * O(lines). Return: the number of dirty lines (which may exceed @max).
 */
uint64_t cxd_cache_dirty_pages(const struct cxd_cache *c, uint64_t *out,
			       uint64_t max)
{
	uint64_t n = 0;
	uint32_t l;

	for (l = 0; l < c->nlines; l++) {
		/* a free line's flags are 0 (its page may read as 2^32 - 1) */
		if (!(c->lines[l].flags & CXD_LINE_DIRTY))
			continue;
		if (n < max)
			out[n] = c->lines[l].page;
		n++;
	}
	return n;
}

/**
 * cxd_cache_clear_dirty() - mark resident @page clean (its line was
 * written back without leaving the cache: cxd_model_flush()).
 * @c:    cache.
 * @page: host page number.
 *
 * Not an access for the policy.
 *
 * Return: 0, or -1 if @page is not resident (nothing changes).
 */
int cxd_cache_clear_dirty(struct cxd_cache *c, uint64_t page)
{
	uint32_t line = line_of(c, page);

	if (line == CXD_NO_LINE)
		return -1;
	if (c->lines[line].flags & CXD_LINE_DIRTY) {
		c->lines[line].flags &= ~CXD_LINE_DIRTY;
		if (policy_ops(c)->cleaned)
			policy_ops(c)->cleaned(c, set_of_line(c, line), line);
	}
	return 0;
}

/**
 * cxd_cache_touch() - report an access to resident @page to the policy.
 * @c:    cache.
 * @page: host page number; nothing happens if it is not resident.
 *
 * LRU moves the line to the recent end, clock sets its reference bit,
 * S3-FIFO increments its 2-bit frequency; fifo, lifo and random ignore it.
 */
void cxd_cache_touch(struct cxd_cache *c, uint64_t page)
{
	const struct cxd_policy_ops *ops = policy_ops(c);
	uint32_t line = line_of(c, page);

	if (line != CXD_NO_LINE && ops->touched)
		ops->touched(c, set_of_line(c, line), line);
}

/*
 * Evict one line of the full @set (first line @base), keeping the pinned
 * line and the held ones: queue policies get the set without the pinned
 * line (it goes back at the tail of its queue, where a just-inserted line is
 * anyway); a held line they pick is set aside and the policy asked again,
 * and the lines set aside go back at the tails of their queues (held lines
 * are in flight, i.e. just inserted, too). Random skips both itself. The
 * extra work is O(held lines of the set), at most the number of concurrent
 * faults.
 * Return: the line, unlinked, or CXD_NO_LINE if only pinned or held lines
 * are left.
 */
static uint32_t set_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			  uint32_t base)
{
	uint32_t pin = c->pin_line, line = CXD_NO_LINE, l, i;
	struct cxd_queue *q = NULL, *hq;
	const struct cxd_line *h;
	struct cxd_queue aside;

	if (policy_ops(c)->picks)
		return policy_ops(c)->evict(c, set, base);
	if (pin != CXD_NO_LINE && pin / c->ways == base / c->ways) {
		q = cxd_queue_of(c, set, pin);
		cxd_queue_unlink(c, q, pin);
	}
	cxd_queue_init(&aside);
	while (set->main.len + set->small.len + set->aux.len) {
		line = policy_ops(c)->evict(c, set, base);
		if (!(c->lines[line].flags & CXD_LINE_HELD))
			break;
		cxd_queue_push_tail(c, &aside, line);
		line = CXD_NO_LINE;
	}
	while (aside.len) {
		l = aside.head;
		cxd_queue_unlink(c, &aside, l);
		cxd_queue_push_tail(c, cxd_queue_of(c, set, l), l);
	}
	if (q)
		cxd_queue_push_tail(c, q, pin);
	/*
	 * The heads of the main and small queues are the next victims: fetch
	 * their pages' entries and their successors' lines (read when they
	 * are unlinked). A head just unlinked from is in the cache already.
	 */
	for (i = 0; i < 2; i++) {
		hq = i ? &set->small : &set->main;
		if (hq->head == CXD_NO_LINE)
			continue;
		h = &c->lines[hq->head];
		if (h->page < c->npages)
			cxd_warm(&c->line_of_page[h->page]);
		if (h->next != CXD_NO_LINE)
			cxd_warm(&c->lines[h->next]);
	}
	return line;
}

/*
 * Report @line, just evicted by set_evict(), in @v (its page, whether it was
 * dirty, whether it was prefetched and never used) and unmap its page; under
 * a policy that keeps ghosts (S3-FIFO, 2Q), a line evicted from the small
 * queue leaves its page in the ghost ring. The line keeps its page and
 * flags: the caller refills it or frees it.
 */
static inline void victim_take(struct cxd_cache *c, uint32_t line,
			       struct cxd_cache_victim *v)
{
	uint8_t vf = c->lines[line].flags;

	v->page = c->lines[line].page;
	v->dirty = vf & CXD_LINE_DIRTY;
	v->prefetched = vf & CXD_LINE_PREFETCH;
	cxd_lop_set(c, v->page, CXD_NO_LINE);
	if (policy_ops(c)->ghosts && (vf & CXD_LINE_SMALL))
		ghost_push(c, v->page);
}

/**
 * cxd_cache_fill() - make absent @page resident (clean).
 * @c:     cache.
 * @page:  host page number.
 * @flags: CXD_FILL_PREFETCH to mark the line prefetched-unused.
 * @v:     filled with the victim (page CXD_NO_PAGE if none).
 *
 * If its set has no free line the policy evicts one of the set's lines,
 * never the pinned one. Under S3-FIFO a line evicted from the small queue
 * becomes a ghost; a page found in the ghost goes to the main queue. The
 * new line's ready time is 0 (see cxd_cache_set_ready()).
 *
 * Return: 0, or -1 (nothing changes) if @page is resident or >= npages or
 * the set's only line is pinned.
 */
int cxd_cache_fill(struct cxd_cache *c, uint64_t page, unsigned int flags,
		   struct cxd_cache_victim *v)
{
	struct cxd_cache_set *set;
	uint32_t line, base, lop, si;
	bool ghost;

	v->page = CXD_NO_PAGE;
	v->dirty = false;
	v->prefetched = false;
	if (page >= c->npages)
		return -1;
	lop = cxd_lop_get(c, page);
	if (lop < c->nlines)
		return -1;
	ghost = lop != CXD_NO_LINE;

	si = set_of_page(c, page);
	base = si * c->ways;
	set = &c->sets[si];
	if (set->free_head != CXD_NO_LINE) {
		line = set->free_head;
		set->free_head = c->lines[line].next;
		set->used++;
		c->used++;
	} else {
		line = set_evict(c, set, base);
		if (line == CXD_NO_LINE)
			return -1;
		victim_take(c, line, v);
	}

	c->lines[line].page = (uint32_t)page;
	c->lines[line].flags = (flags & CXD_FILL_PREFETCH) ? CXD_LINE_PREFETCH : 0;
	c->lines[line].ready_ns = 0;
	cxd_lop_set(c, page, line);
	policy_ops(c)->inserted(c, set, line, ghost);
	return 0;
}

/**
 * cxd_cache_evict_one() - evict one resident line chosen by the policy,
 * for the background drain, and put it on its set's free list.
 * @c: cache.
 * @v: filled with the victim (page CXD_NO_PAGE if none).
 *
 * Sets are visited round-robin from where the last call stopped, so a
 * set-associative cache drains evenly; at the occupancies the drain runs at
 * (drain_high_pct) nearly every set is non-empty, so this is O(1) amortised.
 * The pinned line is never evicted. S3-FIFO remembers a line evicted from
 * its small queue as a ghost, as on a fill.
 *
 * Return: 0, or -1 (nothing changes) if no line can be evicted.
 */
int cxd_cache_evict_one(struct cxd_cache *c, struct cxd_cache_victim *v)
{
	struct cxd_cache_set *set = NULL;
	uint32_t i, s, line;

	v->page = CXD_NO_PAGE;
	v->dirty = false;
	v->prefetched = false;
	for (i = 0; i < c->nsets; i++) {
		s = c->drain_cursor;
		c->drain_cursor = (s + 1) % c->nsets;
		if (c->sets[s].used > (c->pin_line / c->ways == s ? 1u : 0u)) {
			set = &c->sets[s];
			break;
		}
	}
	if (!set)
		return -1;
	line = set_evict(c, set, s * c->ways);
	if (line == CXD_NO_LINE)
		return -1;
	victim_take(c, line, v);
	c->lines[line].page = CXD_NO_PAGE32;
	c->lines[line].flags = 0;
	c->lines[line].next = set->free_head;
	set->free_head = line;
	set->used--;
	c->used--;
	return 0;
}

/**
 * cxd_cache_discard() - drop @page's line without a victim: the page left
 * the device (node mode: migrated off the node), so its data is no longer
 * the device's to keep.
 * @c:    cache, with no reshape pending.
 * @page: host page number; out of range: nothing happens.
 *
 * A resident line is unlinked from its queue and put on its set's free
 * list, whatever its state: dirty (no write-back: the caller drops the
 * data), prefetched-unused, referenced, held or pinned (the hold or pin
 * ends with it). It does not become a ghost. A page that is not resident
 * but in the ghost ring (S3-FIFO, 2Q) leaves it: its ring slot goes stale,
 * which a later push recognises (ghost_push()), so the page's next fill is
 * that of a new page. The other lines keep their queues, order, bits and
 * frequencies; the freed line takes the set's next fill before any
 * eviction. CFLRU's window is not refilled from the working region (it
 * fills again as the working region overflows). The random policy's
 * generator does not advance. O(1).
 *
 * Return: true if @page was resident (its line is now free), else false.
 */
bool cxd_cache_discard(struct cxd_cache *c, uint64_t page)
{
	struct cxd_cache_set *set;
	uint32_t line = line_of(c, page);

	if (line == CXD_NO_LINE) {
		/* absent or a ghost: either way, no ghost any more */
		if (page < c->npages)
			cxd_lop_set(c, page, CXD_NO_LINE);
		return false;
	}
	set = set_of_line(c, line);
	cxd_queue_unlink(c, cxd_queue_of(c, set, line), line);
	if (c->pin_line == line)
		c->pin_line = CXD_NO_LINE;
	cxd_lop_set(c, page, CXD_NO_LINE);
	c->lines[line].page = CXD_NO_PAGE32;
	c->lines[line].flags = 0;
	c->lines[line].next = set->free_head;
	set->free_head = line;
	set->used--;
	c->used--;
	return true;
}

/**
 * cxd_cache_warm() - fetch into the CPU cache what an access to @page reads.
 * @c:     cache.
 * @page:  host page number of an access to come; out of range: no-op.
 * @stage: CXD_WARM_PAGE: line_of_page[@page]; CXD_WARM_LINE: the line
 *         holding @page (reads line_of_page[@page]); CXD_WARM_LINKS: that
 *         line's queue neighbours, which an LRU-like touch relinks (reads
 *         the line). Other values: no-op.
 *
 * A hint: the state read may have changed by the time of the access, which
 * only makes the hint useless. Nothing changes; O(1).
 */
void cxd_cache_warm(const struct cxd_cache *c, uint64_t page,
		    unsigned int stage)
{
	const struct cxd_line *l;
	uint32_t line;

	if (page >= c->npages)
		return;
	if (stage == CXD_WARM_PAGE) {
		cxd_warm(&c->line_of_page[page]);
		return;
	}
	line = cxd_lop_get(c, page);
	if (line >= c->nlines)
		return;
	l = &c->lines[line];
	if (stage == CXD_WARM_LINE) {
		cxd_warm(l);
		return;
	}
	if (stage != CXD_WARM_LINKS || !policy_ops(c)->relinks)
		return;
	if (l->prev != CXD_NO_LINE)
		cxd_warm(&c->lines[l->prev]);
	if (l->next != CXD_NO_LINE)
		cxd_warm(&c->lines[l->next]);
}

/**
 * cxd_cache_pin() - protect one page from eviction.
 * @c:    cache.
 * @page: resident host page, or CXD_NO_PAGE to unpin.
 *
 * At most one page is pinned; the model pins the demand page while its
 * prefetches are inserted. A non-resident @page unpins.
 */
void cxd_cache_pin(struct cxd_cache *c, uint64_t page)
{
	c->pin_line = line_of(c, page);
}

/**
 * cxd_cache_hold() - protect resident @page from eviction while in flight.
 * @c:    cache.
 * @page: host page number.
 *
 * Unlike the single pin (cxd_cache_pin()), any number of lines may be held:
 * one per fault in progress. A held line is skipped by every policy, by
 * fills and by the drain until cxd_cache_release(). A set whose lines are
 * all held cannot take a new page (cxd_cache_fill() fails).
 *
 * Return: 0, or -1 if @page is not resident (nothing changes).
 */
int cxd_cache_hold(struct cxd_cache *c, uint64_t page)
{
	uint32_t line = line_of(c, page);

	if (line == CXD_NO_LINE)
		return -1;
	c->lines[line].flags |= CXD_LINE_HELD;
	return 0;
}

/**
 * cxd_cache_release() - end the hold on @page (cxd_cache_hold()).
 * @c:    cache.
 * @page: host page number.
 *
 * A held line cannot have been evicted, so a 0 return also means that
 * @page's line is still the one filled for the holder (identity, not just
 * residency).
 *
 * Return: 0 if @page was resident and held (the hold is dropped), else -1.
 */
int cxd_cache_release(struct cxd_cache *c, uint64_t page)
{
	uint32_t line = line_of(c, page);

	if (line == CXD_NO_LINE || !(c->lines[line].flags & CXD_LINE_HELD))
		return -1;
	c->lines[line].flags &= ~CXD_LINE_HELD;
	return 0;
}

/**
 * cxd_cache_ready_ns() - when resident @page's data is available.
 * @c:    cache.
 * @page: host page number.
 *
 * Return: absolute time in ns, 0 if not resident or never set.
 */
uint64_t cxd_cache_ready_ns(const struct cxd_cache *c, uint64_t page)
{
	uint32_t line = line_of(c, page);

	return line == CXD_NO_LINE ? 0 : c->lines[line].ready_ns;
}

/**
 * cxd_cache_set_ready() - record when resident @page's data is available.
 * @c:    cache.
 * @page: host page number; no-op if not resident.
 * @ns:   absolute time in ns.
 */
void cxd_cache_set_ready(struct cxd_cache *c, uint64_t page, uint64_t ns)
{
	uint32_t line = line_of(c, page);

	if (line != CXD_NO_LINE)
		c->lines[line].ready_ns = ns;
}

/**
 * cxd_cache_use_prefetched() - first demand use of a prefetched page.
 * @c:    cache.
 * @page: host page number.
 *
 * Return: true if @page is resident and was marked prefetched-unused (the
 * mark is cleared), else false.
 */
bool cxd_cache_use_prefetched(struct cxd_cache *c, uint64_t page)
{
	uint32_t line = line_of(c, page);

	if (line == CXD_NO_LINE || !(c->lines[line].flags & CXD_LINE_PREFETCH))
		return false;
	c->lines[line].flags &= ~CXD_LINE_PREFETCH;
	return true;
}

/* ------------------------------------------------------------ reshape -- */

/* Phases of a reshape (policy switch or CFLRU window change), in order. */
enum {
	CXD_RS_NONE = 0,	/* no reshape pending */
	CXD_RS_FOLD,		/* rs_pos: next set to fold into its main queue */
	CXD_RS_FLAGS,		/* rs_pos: next line whose policy bits to clear */
	CXD_RS_GHOST,		/* rs_pos: next ghost slot to empty */
	CXD_RS_ADOPT,		/* rs_pos: next set CFLRU fills its window in */
};

/*
 * The old policy's half of a reshape, resumable: fold every set into its
 * main queue, oldest first (CFLRU's window, clean lines then dirty ones,
 * before the working region; S3-FIFO's small queue and 2Q's A1in after the
 * main queue: O(1) splices per set), clear the policy bits of every line
 * and empty the ghost. One step per set, line or ghost slot, at most
 * *@budget steps (decremented). Return: true when the fold is complete.
 */
static bool cache_fold(struct cxd_cache *c, uint32_t *budget)
{
	struct cxd_cache_set *set;
	uint32_t l, p;

	for (; c->rs_phase == CXD_RS_FOLD; c->rs_pos++, (*budget)--) {
		if (c->rs_pos == c->nsets) {
			c->rs_phase = CXD_RS_FLAGS;
			c->rs_pos = 0;
			break;
		}
		if (!*budget)
			return false;
		set = &c->sets[c->rs_pos];
		c->visits++;
		if (policy_ops(c)->fold)
			policy_ops(c)->fold(c, set);
		cxd_queue_splice_tail(c, &set->main, &set->small);
	}
	for (; c->rs_phase == CXD_RS_FLAGS; c->rs_pos++, (*budget)--) {
		if (c->rs_pos == c->nlines) {
			c->rs_phase = CXD_RS_GHOST;
			c->rs_pos = 0;
			break;
		}
		if (!*budget)
			return false;
		l = c->rs_pos;
		c->visits++;
		c->lines[l].flags &= CXD_LINE_DIRTY | CXD_LINE_PREFETCH |
				    CXD_LINE_HELD;
	}
	for (; c->rs_phase == CXD_RS_GHOST; c->rs_pos++, (*budget)--) {
		if (c->rs_pos == c->ghost_cap) {
			c->ghost_next = 0;
			return true;
		}
		if (!*budget)
			return false;
		l = c->rs_pos;
		c->visits++;
		p = c->ghost[l];
		if (p < c->npages && cxd_lop_get(c, p) == (CXD_GHOST_TAG | l))
			cxd_lop_set(c, p, CXD_NO_LINE);
		c->ghost[l] = CXD_NO_LINE;
	}
	return true;
}

/*
 * The new policy's half, resumable: CFLRU moves the least recent lines of
 * each set into its window, one step per line moved and one per set done,
 * at most
 * *@budget steps (decremented). Return: true when complete.
 */
static bool cache_adopt(struct cxd_cache *c, uint32_t *budget)
{
	struct cxd_cache_set *set;
	uint32_t n;

	while (c->rs_pos < c->nsets) {
		if (!*budget)
			return false;
		set = &c->sets[c->rs_pos];
		n = policy_ops(c)->adopt(c, set, *budget);
		*budget -= n;
		c->visits += n;
		if (!*budget)
			return false;	/* this set is finished next time */
		(*budget)--;
		c->visits++;
		c->rs_pos++;
	}
	return true;
}

/**
 * cxd_cache_reshaping() - is a policy switch or CFLRU window change under
 * way (begun, not yet completed by cxd_cache_reshape_step())?
 * @c: cache.
 *
 * While it is, the cache's queues are not in any policy's shape: no other
 * cxd_cache_*() or cxd_model_*() call that reads or changes residency,
 * queues or line flags may be made, except cxd_cache_release() (it only
 * clears a line's held bit, which the reshape keeps) and the statistics
 * readers.
 *
 * Return: true if a reshape is pending.
 */
bool cxd_cache_reshaping(const struct cxd_cache *c)
{
	return c->rs_phase != CXD_RS_NONE;
}

static void reshape_begin(struct cxd_cache *c, enum cxd_policy policy,
			  uint32_t pct)
{
	c->rs_policy = policy;
	c->rs_pct = pct;
	c->rs_phase = CXD_RS_FOLD;
	c->rs_pos = 0;
}

/**
 * cxd_cache_reshape_step() - do up to @budget steps of a pending reshape.
 * @c:      cache.
 * @budget: most steps to do, >= 1. A step visits one set, line or ghost
 *          slot and costs O(1); c->visits counts them.
 *
 * The reshape begun by cxd_cache_set_policy_begin() or
 * cxd_cache_set_cflru_window_begin() folds the old policy's state into one
 * queue per set (one step per set, then one per line to clear policy bits,
 * one per ghost slot), then lets the new policy adopt it (CFLRU: one step
 * per set and per line moved into its window): O(nlines + nsets + ghost
 * slots) steps in all. The result is the same however the steps are cut.
 *
 * Return: true when no reshape is pending (done, or none was begun).
 */
bool cxd_cache_reshape_step(struct cxd_cache *c, uint32_t budget)
{
	if (c->rs_phase == CXD_RS_NONE)
		return true;
	if (c->rs_phase != CXD_RS_ADOPT) {
		if (!cache_fold(c, &budget))
			return false;
		/* The new policy from here on. */
		c->policy = c->rs_policy;
		c->ops = cxd_policy_ops_of(c->policy);
		c->cflru_window_pct = c->rs_pct;
		c->cflru_window = c->ways * c->rs_pct / 100;
		c->ghost_cap = ghost_cap_for(c, c->policy);
		c->ghost_next = 0;
		c->rs_phase = CXD_RS_ADOPT;
		c->rs_pos = 0;
		if (!policy_ops(c)->adopt)
			c->rs_pos = c->nsets;
	}
	if (!cache_adopt(c, &budget))
		return false;
	c->rs_phase = CXD_RS_NONE;
	return true;
}

/**
 * cxd_cache_set_policy_begin() - begin a switch of the replacement policy,
 * keeping residency, dirty state, prefetch marks and holds.
 * @c:      cache, with no reshape pending.
 * @policy: new policy.
 *
 * The old policy's state is folded into one queue per set (oldest first;
 * S3-FIFO's small queue and 2Q's A1in after the main queue, CFLRU's window
 * before its working region), reference bits and frequencies cleared and
 * the ghost emptied; the new policy starts from there (CFLRU moves the
 * oldest lines of each set into its window). The work is done by
 * cxd_cache_reshape_step(); see cxd_cache_reshaping() for what may be
 * called meanwhile. Switching to the current policy begins nothing.
 *
 * Return: 0, or -1 for an unknown @policy or a pending reshape (nothing
 * changes).
 */
int cxd_cache_set_policy_begin(struct cxd_cache *c, enum cxd_policy policy)
{
	if ((unsigned int)policy >= CXD_POLICY_NR || cxd_cache_reshaping(c))
		return -1;
	if (policy != c->policy)
		reshape_begin(c, policy, c->cflru_window_pct);
	return 0;
}

/**
 * cxd_cache_set_policy() - switch the replacement policy at once.
 * @c:      cache, with no reshape pending.
 * @policy: new policy.
 *
 * cxd_cache_set_policy_begin(), then cxd_cache_reshape_step() to the end:
 * O(nlines).
 *
 * Return: 0, or -1 for an unknown @policy or a pending reshape (nothing
 * changes).
 */
int cxd_cache_set_policy(struct cxd_cache *c, enum cxd_policy policy)
{
	if (cxd_cache_set_policy_begin(c, policy))
		return -1;
	while (!cxd_cache_reshape_step(c, CXD_NO_LINE))
		;
	return 0;
}

/**
 * cxd_cache_set_cflru_window_begin() - begin a change of the size of
 * CFLRU's clean-first window.
 * @c:   cache, with no reshape pending.
 * @pct: window as a percentage of each set's lines, 0..100 (rounded down
 *       to whole lines; 0: CFLRU evicts exactly as LRU).
 *
 * Under CFLRU the sets are folded and the window rebuilt from the least
 * recent lines by cxd_cache_reshape_step() (O(nlines) steps); the order of
 * the old window's clean and dirty lines among each other is not kept.
 * Under another policy only the value is stored (nothing is begun).
 *
 * Return: 0, or -1 if @pct > 100 or a reshape is pending (nothing changes).
 */
int cxd_cache_set_cflru_window_begin(struct cxd_cache *c, uint32_t pct)
{
	if (pct > 100 || cxd_cache_reshaping(c))
		return -1;
	if (pct == c->cflru_window_pct)
		return 0;
	if (!policy_ops(c)->windowed) {
		c->cflru_window_pct = pct;
		c->cflru_window = c->ways * pct / 100;
		return 0;
	}
	reshape_begin(c, c->policy, pct);
	return 0;
}

/**
 * cxd_cache_set_cflru_window() - size of CFLRU's clean-first window, at once.
 * @c:   cache, with no reshape pending.
 * @pct: as for cxd_cache_set_cflru_window_begin().
 *
 * cxd_cache_set_cflru_window_begin(), then cxd_cache_reshape_step() to the
 * end: O(nlines) under CFLRU, else O(1).
 *
 * Return: 0, or -1 if @pct > 100 or a reshape is pending (nothing changes).
 */
int cxd_cache_set_cflru_window(struct cxd_cache *c, uint32_t pct)
{
	if (cxd_cache_set_cflru_window_begin(c, pct))
		return -1;
	while (!cxd_cache_reshape_step(c, CXD_NO_LINE))
		;
	return 0;
}
