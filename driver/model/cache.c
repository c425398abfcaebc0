// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: the device's DRAM cache.
 *
 * Fully associative over nlines 4 KiB lines. Residency is tracked by two
 * tables, line_of_page[page] and page_of_line[line]; unused lines sit on a
 * free list threaded through next[]. Resident lines are linked into one
 * doubly-linked policy queue (next[]/prev[], head = oldest, tail = newest).
 *
 * Replacement policies plug in through struct cxd_policy_ops. Contract for
 * every policy: the queue always links every resident line (a policy may
 * reorder it or keep extra per-line state in line_flags[], but never leaves
 * a resident line out), so a policy switch only has to adopt the current
 * queue. Only FIFO exists so far.
 *
 * Pure C: no kernel or libc calls. Every operation is O(1) except init and
 * cxd_cache_set_policy() (at most O(nlines)).
 */
#include "cxdvirt/model.h"

/**
 * struct cxd_policy_ops - one replacement policy.
 * @name:	user-visible name (configfs "policy").
 * @inserted:	@line was just filled with a new page; link it in.
 * @touched:	resident @line was accessed again (NULL: nothing to do).
 * @evict:	pick a victim among the resident lines (the cache is full),
 *		unlink it and return its index.
 * @adopt:	take over the queue left by another policy (NULL: keep as is).
 */
struct cxd_policy_ops {
	const char *name;
	void (*inserted)(struct cxd_cache *c, uint32_t line);
	void (*touched)(struct cxd_cache *c, uint32_t line);
	uint32_t (*evict)(struct cxd_cache *c);
	void (*adopt)(struct cxd_cache *c);
};

/* ------------------------------------------------------- queue helpers -- */

static void queue_push_tail(struct cxd_cache *c, uint32_t line)
{
	c->next[line] = CXD_NO_LINE;
	c->prev[line] = c->tail;
	if (c->tail != CXD_NO_LINE)
		c->next[c->tail] = line;
	else
		c->head = line;
	c->tail = line;
}

static void queue_unlink(struct cxd_cache *c, uint32_t line)
{
	uint32_t n = c->next[line], p = c->prev[line];

	if (p != CXD_NO_LINE)
		c->next[p] = n;
	else
		c->head = n;
	if (n != CXD_NO_LINE)
		c->prev[n] = p;
	else
		c->tail = p;
	c->next[line] = CXD_NO_LINE;
	c->prev[line] = CXD_NO_LINE;
}

/* ---------------------------------------------------------------- FIFO -- */

static void fifo_inserted(struct cxd_cache *c, uint32_t line)
{
	queue_push_tail(c, line);
}

static uint32_t fifo_evict(struct cxd_cache *c)
{
	uint32_t line = c->head;

	queue_unlink(c, line);
	return line;
}

static const struct cxd_policy_ops cxd_policies[CXD_POLICY_NR] = {
	[CXD_POLICY_FIFO] = {
		.name		= "fifo",
		.inserted	= fifo_inserted,
		.touched	= NULL,
		.evict		= fifo_evict,
		.adopt		= NULL,
	},
};

static const struct cxd_policy_ops *policy_ops(const struct cxd_cache *c)
{
	return &cxd_policies[c->policy];
}

/* ------------------------------------------------------------ policies -- */

/**
 * cxd_policy_name() - name of a policy.
 * @p: policy.
 *
 * Return: "fifo", ...; NULL for an unknown value.
 */
const char *cxd_policy_name(enum cxd_policy p)
{
	if ((unsigned int)p >= CXD_POLICY_NR)
		return NULL;
	return cxd_policies[p].name;
}

static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/**
 * cxd_policy_parse() - policy for a name.
 * @name: exact policy name (no trailing newline, case-sensitive).
 *
 * Return: the enum cxd_policy value, or -1 if unknown or @name is NULL.
 */
int cxd_policy_parse(const char *name)
{
	unsigned int i;

	if (!name)
		return -1;
	for (i = 0; i < CXD_POLICY_NR; i++)
		if (cxd_policies[i].name && str_eq(name, cxd_policies[i].name))
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------- layout -- */

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

static bool cache_shape_valid(uint64_t npages, uint32_t nlines)
{
	return nlines != 0 && nlines <= npages && npages < ((uint64_t)1 << 32);
}

/**
 * cxd_cache_state_size() - bytes of state for a cache.
 * @npages: device capacity in 4 KiB host pages.
 * @nlines: cache capacity in 4 KiB lines.
 *
 * Layout, each array 8-byte aligned: line_of_page u32[npages],
 * page_of_line u64[nlines], next u32[nlines], prev u32[nlines],
 * line_flags u8[nlines].
 *
 * Return: size in bytes, or 0 if the shape is invalid (nlines == 0,
 * nlines > npages, npages >= 2^32).
 */
size_t cxd_cache_state_size(uint64_t npages, uint32_t nlines)
{
	uint64_t sz;

	if (!cache_shape_valid(npages, nlines))
		return 0;
	sz = align8(npages * sizeof(uint32_t));
	sz += align8((uint64_t)nlines * sizeof(uint64_t));
	sz += 2 * align8((uint64_t)nlines * sizeof(uint32_t));
	sz += align8((uint64_t)nlines * sizeof(uint8_t));
	return (size_t)sz;
}

/**
 * cxd_cache_init() - set up an empty cache over @mem.
 * @c:      cache to initialise.
 * @npages: device capacity in 4 KiB host pages.
 * @nlines: cache capacity in 4 KiB lines.
 * @policy: replacement policy.
 * @mem:    cxd_cache_state_size() bytes, 8-byte aligned, any content.
 *
 * O(npages + nlines).
 *
 * Return: 0, or -1 on a bad shape or policy (@c and @mem untouched).
 */
int cxd_cache_init(struct cxd_cache *c, uint64_t npages, uint32_t nlines,
		   enum cxd_policy policy, void *mem)
{
	unsigned char *p = mem;
	uint64_t i;

	if (!c || !mem || !cache_shape_valid(npages, nlines) ||
	    (unsigned int)policy >= CXD_POLICY_NR)
		return -1;

	c->npages = npages;
	c->nlines = nlines;
	c->used = 0;
	c->policy = policy;

	c->line_of_page = (uint32_t *)p;
	p += align8(npages * sizeof(uint32_t));
	c->page_of_line = (uint64_t *)p;
	p += align8((uint64_t)nlines * sizeof(uint64_t));
	c->next = (uint32_t *)p;
	p += align8((uint64_t)nlines * sizeof(uint32_t));
	c->prev = (uint32_t *)p;
	p += align8((uint64_t)nlines * sizeof(uint32_t));
	c->line_flags = (uint8_t *)p;

	for (i = 0; i < npages; i++)
		c->line_of_page[i] = CXD_NO_LINE;
	/* Every line free; the free list runs 0, 1, ..., nlines - 1. */
	for (i = 0; i < nlines; i++) {
		c->page_of_line[i] = CXD_NO_PAGE;
		c->line_flags[i] = 0;
		c->next[i] = i + 1 < nlines ? (uint32_t)(i + 1) : CXD_NO_LINE;
		c->prev[i] = CXD_NO_LINE;
	}
	c->free_head = 0;
	c->head = CXD_NO_LINE;
	c->tail = CXD_NO_LINE;
	return 0;
}

/* Line holding @page, or CXD_NO_LINE (also for @page out of range). */
static uint32_t line_of(const struct cxd_cache *c, uint64_t page)
{
	if (page >= c->npages)
		return CXD_NO_LINE;
	return c->line_of_page[page];
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

	return line != CXD_NO_LINE && (c->line_flags[line] & CXD_LINE_DIRTY);
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
	c->line_flags[line] |= CXD_LINE_DIRTY;
	return 0;
}

/**
 * cxd_cache_touch() - report an access to resident @page to the policy.
 * @c:    cache.
 * @page: host page number; nothing happens if it is not resident.
 */
void cxd_cache_touch(struct cxd_cache *c, uint64_t page)
{
	const struct cxd_policy_ops *ops = policy_ops(c);
	uint32_t line = line_of(c, page);

	if (line != CXD_NO_LINE && ops->touched)
		ops->touched(c, line);
}

/**
 * cxd_cache_insert() - make absent @page resident (clean).
 * @c:            cache.
 * @page:         host page number.
 * @victim_dirty: if not NULL, set to whether the evicted line was dirty
 *                (false when nothing was evicted).
 *
 * If no line is free the policy evicts a victim first. Nothing happens
 * (and CXD_NO_PAGE is returned) if @page is already resident or
 * >= npages.
 *
 * Return: the evicted page, or CXD_NO_PAGE if none.
 */
uint64_t cxd_cache_insert(struct cxd_cache *c, uint64_t page,
			  bool *victim_dirty)
{
	uint64_t victim = CXD_NO_PAGE;
	bool vdirty = false;
	uint32_t line;

	if (victim_dirty)
		*victim_dirty = false;
	if (page >= c->npages || c->line_of_page[page] != CXD_NO_LINE)
		return CXD_NO_PAGE;

	if (c->free_head != CXD_NO_LINE) {
		line = c->free_head;
		c->free_head = c->next[line];
		c->used++;
	} else {
		line = policy_ops(c)->evict(c);
		victim = c->page_of_line[line];
		vdirty = c->line_flags[line] & CXD_LINE_DIRTY;
		c->line_of_page[victim] = CXD_NO_LINE;
	}

	c->page_of_line[line] = page;
	c->line_flags[line] = 0;
	c->line_of_page[page] = line;
	policy_ops(c)->inserted(c, line);

	if (victim_dirty)
		*victim_dirty = vdirty;
	return victim;
}

/**
 * cxd_cache_set_policy() - switch the replacement policy, keeping residency
 * and dirty state.
 * @c:      cache.
 * @policy: new policy.
 *
 * At most O(nlines).
 *
 * Return: 0, or -1 for an unknown @policy (nothing changes).
 */
int cxd_cache_set_policy(struct cxd_cache *c, enum cxd_policy policy)
{
	if ((unsigned int)policy >= CXD_POLICY_NR)
		return -1;
	if (policy == c->policy)
		return 0;
	c->policy = policy;
	if (policy_ops(c)->adopt)
		policy_ops(c)->adopt(c);
	return 0;
}
