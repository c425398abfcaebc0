// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: random replacement: a uniformly random line of the set,
 * from the cache's seeded xorshift64* generator (cxd_cache_set_seed()).
 *
 * Pure C: no kernel or libc calls.
 */
#include "cache_internal.h"

/* The xorshift64 step: the state after @x. */
static uint64_t rng_step(uint64_t x)
{
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	return x;
}

/* xorshift64*: the output is the state times this constant. */
#define RNG_MUL	0x2545f4914f6cdd1dull

static uint64_t rng_next(struct cxd_cache *c)
{
	uint64_t x = rng_step(c->rng);

	c->rng = x;
	return x * RNG_MUL;
}

/* Is @line holding a page (not on its set's free list)? */
static bool line_resident(const struct cxd_cache *c, uint32_t line)
{
	uint32_t p = c->lines[line].page;

	return p < c->npages && cxd_lop_get(c, p) == line;
}

/*
 * A random line of the set, skipping the pinned one and free ones (a set is
 * full when a fill evicts; the background drain may evict from a set that is
 * not, and probes on to the next resident line).
 */
static uint32_t random_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			     uint32_t base)
{
	uint32_t off = (uint32_t)(rng_next(c) % c->ways), k;
	/* in a full set every line is resident: skip the lookup */
	bool full = set->used == c->ways;
	const struct cxd_line *l;
	uint64_t x1, x2;

	for (k = 0; k < c->ways; k++, off = off + 1 < c->ways ? off + 1 : 0)
		if (base + off != c->pin_line &&
		    (full || line_resident(c, base + off)) &&
		    !(c->lines[base + off].flags & CXD_LINE_HELD))
			break;
	if (k == c->ways)
		return CXD_NO_LINE;	/* every resident line is held */
	cxd_queue_unlink(c, &set->main, base + off);
	/*
	 * The next victim here is the line the next draw picks (if this set
	 * evicts next and the line is neither pinned nor held). Fetch its
	 * page's entry and its queue neighbours (the line itself was fetched
	 * at the last eviction), and the line the draw after picks. The draws
	 * come from a copy of the state: the generator does not advance.
	 */
	x1 = rng_step(c->rng);
	x2 = rng_step(x1);
	l = &c->lines[base + (uint32_t)(x1 * RNG_MUL % c->ways)];
	cxd_warm(&c->lines[base + (uint32_t)(x2 * RNG_MUL % c->ways)]);
	if (l->page < c->npages)
		cxd_warm(&c->line_of_page[l->page]);
	if (l->prev != CXD_NO_LINE)
		cxd_warm(&c->lines[l->prev]);
	if (l->next != CXD_NO_LINE)
		cxd_warm(&c->lines[l->next]);
	return base + off;
}

const struct cxd_policy_ops cxd_policy_random = {
	.inserted	= cxd_queue_inserted,
	.evict		= random_evict,
	.picks		= true,
};
