/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt device model, private: the cache's layout (cache.c) and the
 * interface between the cache core and its replacement policies
 * (policy_*.c). Not part of the model's API (include/cxdvirt/model.h);
 * the unit tests include it to check the layout.
 *
 * Pure C: no kernel or libc calls.
 */
#ifndef CXDVIRT_MODEL_CACHE_INTERNAL_H
#define CXDVIRT_MODEL_CACHE_INTERNAL_H

#include "cxdvirt/model.h"

/* "No line" in line_of_page[] and the queue links. */
#define CXD_NO_LINE	(~(uint32_t)0)
/* line_of_page[] of a page in the ghost ring: the tag or'ed with its slot. */
#define CXD_GHOST_TAG	0x80000000u
/*
 * struct cxd_line.page of a free line. Only a hint for debugging: with
 * npages = 2^32 it is also the last page's number, so a line's use is told
 * by its flags and links, never by this value.
 */
#define CXD_NO_PAGE32	(~(uint32_t)0)

/* Bits of struct cxd_line.flags. */
#define CXD_LINE_DIRTY		0x01u
#define CXD_LINE_PREFETCH	0x02u	/* filled by prefetch, not yet used */
#define CXD_LINE_REF		0x04u	/* clock reference bit */
#define CXD_LINE_SMALL		0x08u	/* in the set's small queue */
#define CXD_LINE_FREQ_SHIFT	4	/* S3-FIFO: 2-bit access frequency */
#define CXD_LINE_FREQ_MASK	0x30u
#define CXD_LINE_HELD		0x40u	/* in flight to a mapping: never evicted */
#define CXD_LINE_AUX		0x80u	/* in the set's aux queue */

/**
 * struct cxd_line - the state of one cache line.
 * @ready_ns:	when the line's data is available (ns).
 * @page:	host page (npages <= 2^32); CXD_NO_PAGE32 while free, which
 *		is also page 2^32 - 1: a free line has @flags 0 and is on its
 *		set's free list.
 * @next:	queue or free-list link, CXD_NO_LINE at the end.
 * @prev:	queue link, CXD_NO_LINE at the start.
 * @flags:	CXD_LINE_* bits.
 *
 * 24 bytes, so that an access to a line reads one or two CPU cache lines
 * rather than one per field.
 */
struct cxd_line {
	uint64_t ready_ns;
	uint32_t page;
	uint32_t next;
	uint32_t prev;
	uint8_t flags;
};

/**
 * struct cxd_queue - a doubly-linked queue of lines, oldest at the head.
 * @head:	oldest line, CXD_NO_LINE if empty.
 * @tail:	newest line, CXD_NO_LINE if empty.
 * @len:	lines in the queue.
 */
struct cxd_queue {
	uint32_t head, tail, len;
};

/**
 * struct cxd_cache_set - per-set state; set s owns lines [s*ways, (s+1)*ways).
 * @main:	the queue every policy uses.
 * @small:	a second queue (lines flagged CXD_LINE_SMALL): S3-FIFO's
 *		small queue, 2Q's A1in, CFLRU's clean lines of the window.
 * @aux:	a third queue (lines flagged CXD_LINE_AUX): CFLRU's dirty
 *		lines of the window.
 * @free_head:	first free line, linked through struct cxd_line.next.
 * @used:	resident lines of the set.
 */
struct cxd_cache_set {
	struct cxd_queue main;
	struct cxd_queue small;
	struct cxd_queue aux;
	uint32_t free_head;
	uint32_t used;
};

/**
 * struct cxd_policy_ops - one replacement policy, as the cache core sees it.
 * @setup:	at init, for every policy: set the policy's per-set
 *		parameters in @c (NULL: none).
 * @inserted:	@line of @set was just filled with a new page; link it in.
 *		@ghost: the page was in the ghost ring.
 * @touched:	resident @line was accessed again (NULL: nothing to do).
 * @dirtied:	resident @line was just marked dirty (NULL: nothing to do).
 * @cleaned:	resident @line was just marked clean, written back in place
 *		(NULL: nothing to do).
 * @evict:	pick a victim among the resident lines of @set (first line
 *		@base), unlink it and return its index. Unless @picks is
 *		set, the core has taken the pinned line out of the queues
 *		and asks again while the victim is held.
 * @fold:	before a policy switch, move the lines of the queues other
 *		than @main and @small into @main, oldest first (NULL: none
 *		used); the core then appends @small to @main.
 * @adopt:	after a policy switch, move at most @max lines of @set's
 *		@main queue into the policy's other queues. Return: lines
 *		moved (NULL: the policy starts from @main as it is).
 * @ghost_cap:	pages of the ghost ring under this policy (NULL: as many
 *		as the main queues hold, nlines - nsets * small_cap).
 * @picks:	@evict skips the pinned and held lines itself and returns
 *		CXD_NO_LINE if only such lines are left.
 * @ghosts:	a victim taken from the small queue becomes a ghost.
 * @relinks:	@touched moves the line within its queues (its neighbours
 *		are read: worth fetching ahead, see cxd_cache_warm()).
 * @windowed:	the policy uses the clean-first window (cflru_window).
 *
 * Contract: the queues always link every resident line. Each policy lives
 * in its own file (policy_*.c) and is registered in policy.c.
 */
struct cxd_policy_ops {
	void (*setup)(struct cxd_cache *c);
	void (*inserted)(struct cxd_cache *c, struct cxd_cache_set *set,
			 uint32_t line, bool ghost);
	void (*touched)(struct cxd_cache *c, struct cxd_cache_set *set,
			uint32_t line);
	void (*dirtied)(struct cxd_cache *c, struct cxd_cache_set *set,
			uint32_t line);
	void (*cleaned)(struct cxd_cache *c, struct cxd_cache_set *set,
			uint32_t line);
	uint32_t (*evict)(struct cxd_cache *c, struct cxd_cache_set *set,
			  uint32_t base);
	void (*fold)(struct cxd_cache *c, struct cxd_cache_set *set);
	uint32_t (*adopt)(struct cxd_cache *c, struct cxd_cache_set *set,
			  uint32_t max);
	uint32_t (*ghost_cap)(const struct cxd_cache *c);
	bool picks;
	bool ghosts;
	bool relinks;
	bool windowed;
};

/* The policies, each defined in its policy_*.c. */
extern const struct cxd_policy_ops cxd_policy_fifo;
extern const struct cxd_policy_ops cxd_policy_lifo;
extern const struct cxd_policy_ops cxd_policy_clock;
extern const struct cxd_policy_ops cxd_policy_lru;
extern const struct cxd_policy_ops cxd_policy_s3fifo;
extern const struct cxd_policy_ops cxd_policy_random;
extern const struct cxd_policy_ops cxd_policy_cflru;
extern const struct cxd_policy_ops cxd_policy_2q;

/**
 * cxd_policy_ops_of() - the ops of policy @p (policy.c).
 * @p: a policy below CXD_POLICY_NR.
 *
 * Return: the policy's ops.
 */
const struct cxd_policy_ops *cxd_policy_ops_of(enum cxd_policy p);

/* ------------------------------------------------------- queue helpers -- */

static inline void cxd_queue_init(struct cxd_queue *q)
{
	q->head = CXD_NO_LINE;
	q->tail = CXD_NO_LINE;
	q->len = 0;
}

static inline void cxd_queue_push_tail(struct cxd_cache *c,
				       struct cxd_queue *q, uint32_t line)
{
	c->lines[line].next = CXD_NO_LINE;
	c->lines[line].prev = q->tail;
	if (q->tail != CXD_NO_LINE)
		c->lines[q->tail].next = line;
	else
		q->head = line;
	q->tail = line;
	q->len++;
}

static inline void cxd_queue_unlink(struct cxd_cache *c, struct cxd_queue *q,
				    uint32_t line)
{
	uint32_t n = c->lines[line].next, p = c->lines[line].prev;

	if (p != CXD_NO_LINE)
		c->lines[p].next = n;
	else
		q->head = n;
	if (n != CXD_NO_LINE)
		c->lines[n].prev = p;
	else
		q->tail = p;
	c->lines[line].next = CXD_NO_LINE;
	c->lines[line].prev = CXD_NO_LINE;
	q->len--;
}

/* The two ends of a queue, for cxd_queue_pop(). */
enum cxd_queue_end {
	CXD_QUEUE_HEAD,		/* the oldest line */
	CXD_QUEUE_TAIL,		/* the newest line */
};

/*
 * Unlink the line at @end of non-empty @q and return it: the evict of the
 * queue-only policies (FIFO and LRU take the head, LIFO the tail).
 */
static inline uint32_t cxd_queue_pop(struct cxd_cache *c, struct cxd_queue *q,
				     enum cxd_queue_end end)
{
	uint32_t line = end == CXD_QUEUE_TAIL ? q->tail : q->head;

	cxd_queue_unlink(c, q, line);
	return line;
}

/* Move @line (in @q) to the tail of @q. */
static inline void cxd_queue_requeue(struct cxd_cache *c, struct cxd_queue *q,
				     uint32_t line)
{
	if (q->tail == line)
		return;
	cxd_queue_unlink(c, q, line);
	cxd_queue_push_tail(c, q, line);
}

/* Put the lines of @src before those of @dst (O(1)); @src ends empty. */
static inline void cxd_queue_splice_head(struct cxd_cache *c,
					 struct cxd_queue *dst,
					 struct cxd_queue *src)
{
	if (!src->len)
		return;
	if (dst->len) {
		c->lines[src->tail].next = dst->head;
		c->lines[dst->head].prev = src->tail;
		dst->head = src->head;
	} else {
		dst->head = src->head;
		dst->tail = src->tail;
	}
	dst->len += src->len;
	cxd_queue_init(src);
}

/* Put the lines of @src after those of @dst (O(1)); @src ends empty. */
static inline void cxd_queue_splice_tail(struct cxd_cache *c,
					 struct cxd_queue *dst,
					 struct cxd_queue *src)
{
	if (!src->len)
		return;
	if (dst->len) {
		c->lines[dst->tail].next = src->head;
		c->lines[src->head].prev = dst->tail;
		dst->tail = src->tail;
	} else {
		dst->head = src->head;
		dst->tail = src->tail;
	}
	dst->len += src->len;
	cxd_queue_init(src);
}

/* The queue of @set that links @line. */
static inline struct cxd_queue *cxd_queue_of(struct cxd_cache *c,
					     struct cxd_cache_set *set,
					     uint32_t line)
{
	if (c->lines[line].flags & CXD_LINE_SMALL)
		return &set->small;
	if (c->lines[line].flags & CXD_LINE_AUX)
		return &set->aux;
	return &set->main;
}

/* Append @line to @set's main queue: the insert of queue-only policies. */
static inline void cxd_queue_inserted(struct cxd_cache *c,
				      struct cxd_cache_set *set,
				      uint32_t line, bool ghost)
{
	(void)ghost;
	cxd_queue_push_tail(c, &set->main, line);
}

/*
 * The insert of the two-queue policies (2Q, S3-FIFO): a line that comes back
 * from the ghost list goes to the main queue, a new one to the small queue.
 */
static inline void cxd_queue_inserted_small(struct cxd_cache *c,
					    struct cxd_cache_set *set,
					    uint32_t line, bool ghost)
{
	if (ghost) {
		cxd_queue_push_tail(c, &set->main, line);
	} else {
		c->lines[line].flags |= CXD_LINE_SMALL;
		cxd_queue_push_tail(c, &set->small, line);
	}
}

/*
 * A hint to the CPU to fetch @addr's cache line (a compiler builtin: no
 * kernel or libc call). The model's state is larger than the CPU caches
 * and an access touches random lines of it; fetching the next victim's
 * state while the current access goes on hides most of those misses.
 * Nothing here changes the model's state. The warming is written out
 * where it is used, not in helper functions: the compiler sees no side
 * effect in a prefetch, takes a function made only of them for a pure one
 * and drops its calls.
 */
#define cxd_warm(addr)	__builtin_prefetch(addr)

/*
 * line_of_page[] holds each value inverted, so that all-zero memory is
 * the table of an empty cache (every entry CXD_NO_LINE): a caller whose
 * memory is already zero (struct cxd_model_cfg.zeroed) has nothing written
 * at init, so a 2^32-page device's 16 GiB table costs host memory only
 * where pages are used. Every access goes through these two.
 */
static inline uint32_t cxd_lop_get(const struct cxd_cache *c, uint64_t page)
{
	return ~c->line_of_page[page];
}

static inline void cxd_lop_set(struct cxd_cache *c, uint64_t page, uint32_t v)
{
	c->line_of_page[page] = ~v;
}

/* ------------------------------------------- cache calls of the model -- */

/**
 * cxd_cache_state_size_ways() - bytes of state for a cache.
 * @npages: device capacity in 4 KiB host pages.
 * @nlines: cache capacity in 4 KiB lines.
 * @ways:   lines per set, 0 for fully associative; must divide @nlines.
 *
 * Return: size in bytes, or 0 if the shape is invalid.
 */
size_t cxd_cache_state_size_ways(uint64_t npages, uint32_t nlines,
				 uint32_t ways);
/**
 * cxd_cache_init_ways() - set up an empty cache over @mem.
 * @c:      cache to initialise.
 * @npages: device capacity in 4 KiB host pages.
 * @nlines: cache capacity in 4 KiB lines.
 * @ways:   lines per set, 0 for fully associative.
 * @policy: replacement policy.
 * @mem:    cxd_cache_state_size_ways() bytes, 8-byte aligned.
 *
 * Return: 0, or -1 on a bad shape or policy.
 */
int cxd_cache_init_ways(struct cxd_cache *c, uint64_t npages, uint32_t nlines,
			uint32_t ways, enum cxd_policy policy, void *mem);
/**
 * cxd_cache_init_mem() - cxd_cache_init_ways() over memory that may be
 * known to be zero.
 * @c:      cache to initialise.
 * @npages: device capacity in 4 KiB host pages (1..2^32).
 * @nlines: cache capacity in 4 KiB lines.
 * @ways:   lines per set, 0 for fully associative.
 * @policy: replacement policy.
 * @mem:    cxd_cache_state_size_ways() bytes, 8-byte aligned.
 * @zeroed: @mem is all zero: the page table is left untouched (O(nlines)
 *          instead of O(npages + nlines)).
 *
 * Return: 0, or -1 on a bad shape or policy.
 */
int cxd_cache_init_mem(struct cxd_cache *c, uint64_t npages, uint32_t nlines,
		       uint32_t ways, enum cxd_policy policy, void *mem,
		       bool zeroed);
/**
 * cxd_cache_set_seed() - reseed the random policy's generator.
 * @c:    cache.
 * @seed: any value.
 */
void cxd_cache_set_seed(struct cxd_cache *c, uint64_t seed);

/**
 * struct cxd_cache_victim - a line the cache evicted.
 * @page:	the evicted host page, CXD_NO_PAGE if none.
 * @dirty:	it was dirty.
 * @prefetched:	it was filled by prefetch and never used by a demand access.
 */
struct cxd_cache_victim {
	uint64_t page;
	bool dirty;
	bool prefetched;
};

/* cxd_cache_fill() flags */
#define CXD_FILL_PREFETCH	0x1u

/**
 * cxd_cache_fill() - make absent @page resident (clean), evicting within
 * its set if needed, never the pinned page (cxd_cache_pin()).
 * @c:     cache.
 * @page:  host page number.
 * @flags: CXD_FILL_PREFETCH marks the line as prefetched-unused.
 * @v:     the victim (page CXD_NO_PAGE if none); required.
 *
 * Return: 0, or -1 if nothing was inserted (resident, out of range, or
 * only pinned or held lines in the set).
 */
int cxd_cache_fill(struct cxd_cache *c, uint64_t page, unsigned int flags,
		   struct cxd_cache_victim *v);
/**
 * cxd_cache_evict_one() - evict one line chosen by the policy (drain).
 * @c: cache.
 * @v: the victim (page CXD_NO_PAGE if none).
 *
 * Return: 0, or -1 if nothing can be evicted.
 */
int cxd_cache_evict_one(struct cxd_cache *c, struct cxd_cache_victim *v);
/**
 * cxd_cache_discard() - drop @page's line without a victim or write-back
 * (cache.c has the rules).
 * @c:    cache, with no reshape pending.
 * @page: host page number.
 *
 * Return: true if @page was resident.
 */
bool cxd_cache_discard(struct cxd_cache *c, uint64_t page);
/**
 * cxd_cache_pin() - protect resident @page from eviction.
 * @c:    cache.
 * @page: the page, CXD_NO_PAGE to unpin.
 */
void cxd_cache_pin(struct cxd_cache *c, uint64_t page);
/**
 * cxd_cache_set_ready() - record when resident @page's data is available.
 * @c:    cache.
 * @page: host page number.
 * @ns:   absolute time (ns).
 */
void cxd_cache_set_ready(struct cxd_cache *c, uint64_t page, uint64_t ns);
/**
 * cxd_cache_use_prefetched() - first demand use of @page.
 * @c:    cache.
 * @page: host page number.
 *
 * Return: true if the prefetched-unused mark was set (it is cleared).
 */
bool cxd_cache_use_prefetched(struct cxd_cache *c, uint64_t page);

#endif /* CXDVIRT_MODEL_CACHE_INTERNAL_H */
