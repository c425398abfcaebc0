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
 * Replacement policies plug in through struct cxd_policy_ops. Contract for
 * every policy: the queues always link every resident line. A policy switch
 * normalises the state (small queue appended to the main queue, policy bits
 * cleared, ghost emptied) and the new policy adopts the main queue as it is.
 *
 * The S3-FIFO ghost queue is a ring of ghost_cap page numbers; a ghost page
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
#include "cxdvirt/model.h"

/**
 * struct cxd_policy_ops - one replacement policy.
 * @name:	user-visible name (configfs "policy").
 * @inserted:	@line of @set was just filled with a new page; link it in.
 *		@ghost: the page was in the S3-FIFO ghost queue.
 * @touched:	resident @line was accessed again (NULL: nothing to do).
 * @dirtied:	resident @line was just marked dirty (NULL: nothing to do).
 * @evict:	pick a victim among the resident lines of the full @set
 *		(never c->pin_line), unlink it and return its index.
 * @ghosts:	a victim taken from the small queue becomes a ghost.
 * @relinks:	@touched moves the line within its queues (its neighbours
 *		are read: worth fetching ahead, see cxd_cache_warm()).
 */
struct cxd_policy_ops {
	const char *name;
	void (*inserted)(struct cxd_cache *c, struct cxd_cache_set *set,
			 uint32_t line, bool ghost);
	void (*touched)(struct cxd_cache *c, struct cxd_cache_set *set,
			uint32_t line);
	void (*dirtied)(struct cxd_cache *c, struct cxd_cache_set *set,
			uint32_t line);
	uint32_t (*evict)(struct cxd_cache *c, struct cxd_cache_set *set,
			  uint32_t base);
	bool ghosts;
	bool relinks;
};

/* ------------------------------------------------------- queue helpers -- */

static void queue_init(struct cxd_queue *q)
{
	q->head = CXD_NO_LINE;
	q->tail = CXD_NO_LINE;
	q->len = 0;
}

static void queue_push_tail(struct cxd_cache *c, struct cxd_queue *q,
			    uint32_t line)
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

static void queue_unlink(struct cxd_cache *c, struct cxd_queue *q,
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

/* Move @line (in @q) to the tail of @q. */
static void queue_requeue(struct cxd_cache *c, struct cxd_queue *q,
			  uint32_t line)
{
	if (q->tail == line)
		return;
	queue_unlink(c, q, line);
	queue_push_tail(c, q, line);
}

/* Put the lines of @src before those of @dst (O(1)); @src ends empty. */
static void queue_splice_head(struct cxd_cache *c, struct cxd_queue *dst,
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
	queue_init(src);
}

/* Put the lines of @src after those of @dst (O(1)); @src ends empty. */
static void queue_splice_tail(struct cxd_cache *c, struct cxd_queue *dst,
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
	queue_init(src);
}

/* The queue of @set that links @line. */
static struct cxd_queue *queue_of(struct cxd_cache *c,
				  struct cxd_cache_set *set, uint32_t line)
{
	if (c->lines[line].flags & CXD_LINE_SMALL)
		return &set->small;
	if (c->lines[line].flags & CXD_LINE_AUX)
		return &set->aux;
	return &set->main;
}

/* ------------------------------------------------- CPU cache warming -- */

/*
 * A hint to the CPU to fetch @addr's cache line (a compiler builtin: no
 * kernel or libc call). The model's state is larger than the CPU caches
 * and an access touches random lines of it; fetching the next victim's
 * state while the current access goes on hides most of those misses.
 * Nothing here changes the model's state.
 */
#define warm(addr)	__builtin_prefetch(addr)

/*
 * The warming is written out where it is used, not in helper functions: the
 * compiler sees no side effect in a prefetch, takes a function made only of
 * them for a pure one and drops its calls.
 */

/* ------------------------------------------------------- random source -- */

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

/* ------------------------------------------------------ FIFO/LIFO/LRU -- */

static void queue_inserted(struct cxd_cache *c, struct cxd_cache_set *set,
			   uint32_t line, bool ghost)
{
	(void)ghost;
	queue_push_tail(c, &set->main, line);
}

static uint32_t fifo_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			   uint32_t base)
{
	uint32_t line = set->main.head;

	(void)base;
	queue_unlink(c, &set->main, line);
	return line;
}

static uint32_t lifo_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			   uint32_t base)
{
	uint32_t line = set->main.tail;

	(void)base;
	queue_unlink(c, &set->main, line);
	return line;
}

static void lru_touched(struct cxd_cache *c, struct cxd_cache_set *set,
			uint32_t line)
{
	queue_requeue(c, &set->main, line);
}

/* --------------------------------------------------------------- CLOCK -- */

/*
 * The main queue is the clock face with the hand at its head: a line with
 * its reference bit set loses the bit and goes behind the hand. After
 * CXD_SWEEP_MAX such lines in one eviction, the line at the hand is the
 * victim even if its bit was set.
 */
static void clock_touched(struct cxd_cache *c, struct cxd_cache_set *set,
			  uint32_t line)
{
	(void)set;
	c->lines[line].flags |= CXD_LINE_REF;
}

static uint32_t clock_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			    uint32_t base)
{
	uint32_t line, n;

	(void)base;
	for (n = 0;; n++) {
		line = set->main.head;
		c->visits++;
		if (!(c->lines[line].flags & CXD_LINE_REF))
			break;
		c->lines[line].flags &= ~CXD_LINE_REF;
		if (n == CXD_SWEEP_MAX)
			break;	/* bounded sweep: evict the hand's line anyway */
		queue_requeue(c, &set->main, line);
	}
	queue_unlink(c, &set->main, line);
	return line;
}

/* -------------------------------------------------------------- RANDOM -- */

/* Is @line holding a page (not on its set's free list)? */
static bool line_resident(const struct cxd_cache *c, uint32_t line)
{
	uint32_t p = c->lines[line].page;

	return p < c->npages && c->line_of_page[p] == line;
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
	queue_unlink(c, &set->main, base + off);
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
	warm(&c->lines[base + (uint32_t)(x2 * RNG_MUL % c->ways)]);
	if (l->page < c->npages)
		warm(&c->line_of_page[l->page]);
	if (l->prev != CXD_NO_LINE)
		warm(&c->lines[l->prev]);
	if (l->next != CXD_NO_LINE)
		warm(&c->lines[l->next]);
	return base + off;
}

/* ------------------------------------------------------------- S3-FIFO -- */

static uint32_t s3_freq(const struct cxd_cache *c, uint32_t line)
{
	return (c->lines[line].flags & CXD_LINE_FREQ_MASK) >>
	       CXD_LINE_FREQ_SHIFT;
}

static void s3_set_freq(struct cxd_cache *c, uint32_t line, uint32_t f)
{
	c->lines[line].flags = (c->lines[line].flags & ~CXD_LINE_FREQ_MASK) |
			      (uint8_t)(f << CXD_LINE_FREQ_SHIFT);
}

static void s3_inserted(struct cxd_cache *c, struct cxd_cache_set *set,
			uint32_t line, bool ghost)
{
	if (ghost) {
		queue_push_tail(c, &set->main, line);
	} else {
		c->lines[line].flags |= CXD_LINE_SMALL;
		queue_push_tail(c, &set->small, line);
	}
}

static void s3_touched(struct cxd_cache *c, struct cxd_cache_set *set,
		       uint32_t line)
{
	uint32_t f = s3_freq(c, line);

	(void)set;
	if (f < 3)
		s3_set_freq(c, line, f + 1);
}

/*
 * Evict from the small queue while it holds at least its share (or the main
 * queue is empty): a line used at least once there moves to the main queue
 * with its frequency cleared, else it is the victim (and becomes a ghost,
 * see cache_fill()). Otherwise evict from the main queue: a line with a
 * non-zero frequency is reinserted with the frequency decremented. After
 * CXD_SWEEP_MAX such moves in one eviction, the head of the queue the next
 * step would look at is the victim whatever its frequency.
 */
static uint32_t s3_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			 uint32_t base)
{
	struct cxd_queue *q;
	uint32_t line, f, n;

	(void)base;
	for (n = 0;; n++) {
		c->visits++;
		if (n == CXD_SWEEP_MAX) {
			/* bounded sweep: the line the next step would look at */
			q = set->small.len && (set->small.len >= c->small_cap ||
					       !set->main.len) ?
			    &set->small : &set->main;
			line = q->head;
			queue_unlink(c, q, line);
			return line;
		}
		if (set->small.len &&
		    (set->small.len >= c->small_cap || !set->main.len)) {
			line = set->small.head;
			queue_unlink(c, &set->small, line);
			if (s3_freq(c, line) >= 1) {
				c->lines[line].flags &= ~CXD_LINE_SMALL;
				s3_set_freq(c, line, 0);
				queue_push_tail(c, &set->main, line);
				continue;
			}
			return line;	/* CXD_LINE_SMALL still set: ghost it */
		}
		line = set->main.head;
		f = s3_freq(c, line);
		if (!f) {
			queue_unlink(c, &set->main, line);
			return line;
		}
		s3_set_freq(c, line, f - 1);
		queue_requeue(c, &set->main, line);
	}
}

/* --------------------------------------------------------------- CFLRU -- */

/*
 * Clean-First LRU (Park et al., CASES 2006). The LRU list of a set is split
 * into the working region (main queue, the ways - cflru_window most recent
 * lines) and the clean-first window (the cflru_window least recent lines),
 * kept as two queues in recency order: its clean lines (small queue) and
 * its dirty lines (aux queue). A line enters the window when it is pushed
 * out of the working region; it leaves it when touched (back to the
 * working region's recent end) or evicted. The victim is the least recent
 * clean line of the window, else the least recent dirty one, else (window
 * empty) the working region's least recent line. Each step is O(1): a
 * line is demoted at most once per insert or touch. cflru_demote() demotes
 * at most @max lines and returns how many it did.
 */
static uint32_t cflru_demote(struct cxd_cache *c, struct cxd_cache_set *set,
			     uint32_t max)
{
	uint32_t cap = c->ways - c->cflru_window, line, n = 0;

	while (set->main.len > cap) {
		if (n == max)
			break;
		n++;
		line = set->main.head;
		queue_unlink(c, &set->main, line);
		if (c->lines[line].flags & CXD_LINE_DIRTY) {
			c->lines[line].flags |= CXD_LINE_AUX;
			queue_push_tail(c, &set->aux, line);
		} else {
			c->lines[line].flags |= CXD_LINE_SMALL;
			queue_push_tail(c, &set->small, line);
		}
	}
	return n;
}

static void cflru_inserted(struct cxd_cache *c, struct cxd_cache_set *set,
			   uint32_t line, bool ghost)
{
	(void)ghost;
	queue_push_tail(c, &set->main, line);
	cflru_demote(c, set, CXD_NO_LINE);
}

static void cflru_touched(struct cxd_cache *c, struct cxd_cache_set *set,
			  uint32_t line)
{
	struct cxd_queue *q = queue_of(c, set, line);

	if (q == &set->main) {
		queue_requeue(c, q, line);
		return;
	}
	queue_unlink(c, q, line);
	c->lines[line].flags &= ~(CXD_LINE_SMALL | CXD_LINE_AUX);
	queue_push_tail(c, &set->main, line);
	cflru_demote(c, set, CXD_NO_LINE);
}

/*
 * A clean line of the window was written without an access reaching the
 * policy (a write to a read-only mapping): it moves to the window's dirty
 * queue as its most recent line (its exact rank among them is not kept).
 */
static void cflru_dirtied(struct cxd_cache *c, struct cxd_cache_set *set,
			  uint32_t line)
{
	if (!(c->lines[line].flags & CXD_LINE_SMALL))
		return;
	queue_unlink(c, &set->small, line);
	c->lines[line].flags = (c->lines[line].flags & ~CXD_LINE_SMALL) |
			      CXD_LINE_AUX;
	queue_push_tail(c, &set->aux, line);
}

static uint32_t cflru_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			    uint32_t base)
{
	struct cxd_queue *q = set->small.len ? &set->small :
			      set->aux.len ? &set->aux : &set->main;
	uint32_t line = q->head;

	(void)base;
	queue_unlink(c, q, line);
	c->lines[line].flags &= ~(CXD_LINE_SMALL | CXD_LINE_AUX);
	return line;
}

/* ------------------------------------------------------------------ 2Q -- */

/*
 * 2Q (Johnson and Shasha, VLDB 1994), the full version: a new page enters
 * A1in (small queue, FIFO); a page found in A1out (the ghost ring, pages
 * evicted from A1in) enters Am (main queue, LRU). Touches move Am lines to
 * the recent end and are ignored in A1in (correlated references). When the
 * set is full, A1in's oldest line is evicted (and ghosted) if A1in holds
 * more than Kin = a1in_cap lines or Am is empty, else Am's least recent.
 */
static void twoq_inserted(struct cxd_cache *c, struct cxd_cache_set *set,
			  uint32_t line, bool ghost)
{
	if (ghost) {
		queue_push_tail(c, &set->main, line);
	} else {
		c->lines[line].flags |= CXD_LINE_SMALL;
		queue_push_tail(c, &set->small, line);
	}
}

static void twoq_touched(struct cxd_cache *c, struct cxd_cache_set *set,
			 uint32_t line)
{
	if (!(c->lines[line].flags & CXD_LINE_SMALL))
		queue_requeue(c, &set->main, line);
}

static uint32_t twoq_evict(struct cxd_cache *c, struct cxd_cache_set *set,
			   uint32_t base)
{
	uint32_t line;

	(void)base;
	if (set->small.len && (set->small.len > c->a1in_cap || !set->main.len)) {
		line = set->small.head;
		queue_unlink(c, &set->small, line);
		return line;	/* CXD_LINE_SMALL still set: ghost it */
	}
	line = set->main.head;
	queue_unlink(c, &set->main, line);
	return line;
}

static void ghost_push(struct cxd_cache *c, uint64_t page)
{
	uint32_t slot = c->ghost_next, old = c->ghost[slot];

	if (old < c->npages && c->line_of_page[old] == (CXD_GHOST_TAG | slot))
		c->line_of_page[old] = CXD_NO_LINE;
	c->ghost[slot] = (uint32_t)page;
	c->line_of_page[page] = CXD_GHOST_TAG | slot;
	c->ghost_next = slot + 1 < c->ghost_cap ? slot + 1 : 0;
	/* the next push reads the entry of the page it overwrites */
	old = c->ghost[c->ghost_next];
	if (old < c->npages)
		warm(&c->line_of_page[old]);
}

static const struct cxd_policy_ops cxd_policies[CXD_POLICY_NR] = {
	[CXD_POLICY_FIFO] = {
		.name		= "fifo",
		.inserted	= queue_inserted,
		.evict		= fifo_evict,
	},
	[CXD_POLICY_LIFO] = {
		.name		= "lifo",
		.inserted	= queue_inserted,
		.evict		= lifo_evict,
	},
	[CXD_POLICY_CLOCK] = {
		.name		= "clock",
		.inserted	= queue_inserted,
		.touched	= clock_touched,
		.evict		= clock_evict,
	},
	[CXD_POLICY_LRU] = {
		.name		= "lru",
		.inserted	= queue_inserted,
		.touched	= lru_touched,
		.evict		= fifo_evict,
		.relinks	= true,
	},
	[CXD_POLICY_S3FIFO] = {
		.name		= "s3fifo",
		.inserted	= s3_inserted,
		.touched	= s3_touched,
		.evict		= s3_evict,
		.ghosts		= true,
	},
	[CXD_POLICY_RANDOM] = {
		.name		= "random",
		.inserted	= queue_inserted,
		.evict		= random_evict,
	},
	[CXD_POLICY_CFLRU] = {
		.name		= "cflru",
		.inserted	= cflru_inserted,
		.touched	= cflru_touched,
		.dirtied	= cflru_dirtied,
		.evict		= cflru_evict,
		.relinks	= true,
	},
	[CXD_POLICY_2Q] = {
		.name		= "2q",
		.inserted	= twoq_inserted,
		.touched	= twoq_touched,
		.evict		= twoq_evict,
		.ghosts		= true,
		.relinks	= true,
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
 * Return: "fifo", "lifo", "clock", "lru", "s3fifo", "random", "cflru" or
 * "2q"; NULL for an unknown value.
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

/*
 * Ghost ring length: S3-FIFO's holds as many pages as the main queues; 2Q's
 * A1out holds Kout = 50% of the page slots (Johnson and Shasha, section 3).
 * At most nlines, the size of the ring's array.
 */
static uint32_t ghost_cap_for(const struct cxd_cache *c, enum cxd_policy p)
{
	if (p == CXD_POLICY_2Q)
		return c->nlines / 2 ? c->nlines / 2 : 1;
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
	    npages >= ((uint64_t)1 << 32))
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
 * ghost u32[nlines] (4 bytes per line), sets struct cxd_cache_set[nlines /
 * ways].
 *
 * Return: size in bytes, or 0 if the shape is invalid (nlines == 0,
 * nlines > npages, nlines > CXD_MAX_LINES, npages >= 2^32, @ways not
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
	sz += align8((uint64_t)nlines * sizeof(uint32_t));
	sz += align8(nsets * sizeof(struct cxd_cache_set));
	return (size_t)sz;
}

/**
 * cxd_cache_state_size() - bytes of state for a fully associative cache.
 * @npages: device capacity in 4 KiB host pages.
 * @nlines: cache capacity in 4 KiB lines.
 *
 * Return: cxd_cache_state_size_ways(@npages, @nlines, 0).
 */
size_t cxd_cache_state_size(uint64_t npages, uint32_t nlines)
{
	return cxd_cache_state_size_ways(npages, nlines, 0);
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
	/* S3-FIFO: 10% of each set for the small queue, at least one line */
	c->small_cap = c->ways / 10 ? c->ways / 10 : 1;
	/* 2Q: Kin = 25% of the page slots (Johnson and Shasha, section 3) */
	c->a1in_cap = c->ways / 4 ? c->ways / 4 : 1;
	c->cflru_window_pct = CXD_CFLRU_WINDOW_PCT;
	c->cflru_window = c->ways * CXD_CFLRU_WINDOW_PCT / 100;
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
	c->sets = (struct cxd_cache_set *)p;

	c->ghost_cap = ghost_cap_for(c, policy);
	c->ghost_next = 0;
	c->drain_cursor = 0;

	for (i = 0; i < npages; i++)
		c->line_of_page[i] = CXD_NO_LINE;
	for (l = 0; l < nlines; l++) {
		c->lines[l].page = CXD_NO_PAGE32;
		c->lines[l].ready_ns = 0;
		c->lines[l].flags = 0;
		c->ghost[l] = CXD_NO_LINE;
		/* each set's free list runs through its lines in order */
		c->lines[l].next = (l + 1) % c->ways ? l + 1 : CXD_NO_LINE;
		c->lines[l].prev = CXD_NO_LINE;
	}
	for (s = 0; s < c->nsets; s++) {
		queue_init(&c->sets[s].main);
		queue_init(&c->sets[s].small);
		queue_init(&c->sets[s].aux);
		c->sets[s].free_head = s * c->ways;
		c->sets[s].used = 0;
	}
	return 0;
}

/**
 * cxd_cache_init() - set up an empty fully associative cache over @mem.
 * @c:      cache to initialise.
 * @npages: device capacity in 4 KiB host pages.
 * @nlines: cache capacity in 4 KiB lines.
 * @policy: replacement policy.
 * @mem:    cxd_cache_state_size() bytes, 8-byte aligned, any content.
 *
 * Return: 0, or -1 on a bad shape or policy (@c and @mem untouched).
 */
int cxd_cache_init(struct cxd_cache *c, uint64_t npages, uint32_t nlines,
		   enum cxd_policy policy, void *mem)
{
	return cxd_cache_init_ways(c, npages, nlines, 0, policy, mem);
}

/* Line holding @page, or CXD_NO_LINE (also for ghosts and @page out of range). */
static uint32_t line_of(const struct cxd_cache *c, uint64_t page)
{
	uint32_t l;

	if (page >= c->npages)
		return CXD_NO_LINE;
	l = c->line_of_page[page];
	return l < c->nlines ? l : CXD_NO_LINE;
}

/* Set of @line; no division for a fully associative cache (one set). */
static struct cxd_cache_set *set_of_line(const struct cxd_cache *c,
					 uint32_t line)
{
	return c->nsets == 1 ? c->sets : &c->sets[line / c->ways];
}

/* Set index of @page (< npages < 2^32: a 32-bit division, none for one set). */
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
		if (policy_ops(c)->dirtied)
			policy_ops(c)->dirtied(c, set_of_line(c, line), line);
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

	if (c->policy == CXD_POLICY_RANDOM)
		return random_evict(c, set, base);
	if (pin != CXD_NO_LINE && pin / c->ways == base / c->ways) {
		q = queue_of(c, set, pin);
		queue_unlink(c, q, pin);
	}
	queue_init(&aside);
	while (set->main.len + set->small.len + set->aux.len) {
		line = policy_ops(c)->evict(c, set, base);
		if (!(c->lines[line].flags & CXD_LINE_HELD))
			break;
		queue_push_tail(c, &aside, line);
		line = CXD_NO_LINE;
	}
	while (aside.len) {
		l = aside.head;
		queue_unlink(c, &aside, l);
		queue_push_tail(c, queue_of(c, set, l), l);
	}
	if (q)
		queue_push_tail(c, q, pin);
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
			warm(&c->line_of_page[h->page]);
		if (h->next != CXD_NO_LINE)
			warm(&c->lines[h->next]);
	}
	return line;
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
		   struct cxd_victim *v)
{
	struct cxd_cache_set *set;
	uint32_t line, base, lop, si;
	bool ghost;
	uint8_t vf;

	v->page = CXD_NO_PAGE;
	v->dirty = false;
	v->prefetched = false;
	if (page >= c->npages)
		return -1;
	lop = c->line_of_page[page];
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
		vf = c->lines[line].flags;
		v->page = c->lines[line].page;
		v->dirty = vf & CXD_LINE_DIRTY;
		v->prefetched = vf & CXD_LINE_PREFETCH;
		c->line_of_page[v->page] = CXD_NO_LINE;
		if (policy_ops(c)->ghosts && (vf & CXD_LINE_SMALL))
			ghost_push(c, v->page);
	}

	c->lines[line].page = (uint32_t)page;
	c->lines[line].flags = (flags & CXD_FILL_PREFETCH) ? CXD_LINE_PREFETCH : 0;
	c->lines[line].ready_ns = 0;
	c->line_of_page[page] = line;
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
int cxd_cache_evict_one(struct cxd_cache *c, struct cxd_victim *v)
{
	struct cxd_cache_set *set = NULL;
	uint32_t i, s, line;
	uint8_t vf;

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
	vf = c->lines[line].flags;
	v->page = c->lines[line].page;
	v->dirty = vf & CXD_LINE_DIRTY;
	v->prefetched = vf & CXD_LINE_PREFETCH;
	c->line_of_page[v->page] = CXD_NO_LINE;
	if (policy_ops(c)->ghosts && (vf & CXD_LINE_SMALL))
		ghost_push(c, v->page);
	c->lines[line].page = CXD_NO_PAGE32;
	c->lines[line].flags = 0;
	c->lines[line].next = set->free_head;
	set->free_head = line;
	set->used--;
	c->used--;
	return 0;
}

/**
 * cxd_cache_insert() - make absent @page resident (clean).
 * @c:            cache.
 * @page:         host page number.
 * @victim_dirty: if not NULL, set to whether the evicted line was dirty
 *                (false when nothing was evicted).
 *
 * cxd_cache_fill() without flags. Nothing happens (and CXD_NO_PAGE is
 * returned) if @page is already resident or >= npages.
 *
 * Return: the evicted page, or CXD_NO_PAGE if none.
 */
uint64_t cxd_cache_insert(struct cxd_cache *c, uint64_t page,
			  bool *victim_dirty)
{
	struct cxd_victim v;

	cxd_cache_fill(c, page, 0, &v);
	if (victim_dirty)
		*victim_dirty = v.dirty;
	return v.page;
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
		warm(&c->line_of_page[page]);
		return;
	}
	line = c->line_of_page[page];
	if (line >= c->nlines)
		return;
	l = &c->lines[line];
	if (stage == CXD_WARM_LINE) {
		warm(l);
		return;
	}
	if (stage != CXD_WARM_LINKS || !policy_ops(c)->relinks)
		return;
	if (l->prev != CXD_NO_LINE)
		warm(&c->lines[l->prev]);
	if (l->next != CXD_NO_LINE)
		warm(&c->lines[l->next]);
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
		if (c->policy == CXD_POLICY_CFLRU) {
			queue_splice_head(c, &set->main, &set->aux);
			queue_splice_head(c, &set->main, &set->small);
		}
		queue_splice_tail(c, &set->main, &set->small);
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
		if (p < c->npages && c->line_of_page[p] == (CXD_GHOST_TAG | l))
			c->line_of_page[p] = CXD_NO_LINE;
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
		n = cflru_demote(c, set, *budget);
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
		c->cflru_window_pct = c->rs_pct;
		c->cflru_window = c->ways * c->rs_pct / 100;
		c->ghost_cap = ghost_cap_for(c, c->policy);
		c->ghost_next = 0;
		c->rs_phase = CXD_RS_ADOPT;
		c->rs_pos = 0;
		if (c->policy != CXD_POLICY_CFLRU)
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
	if (c->policy != CXD_POLICY_CFLRU) {
		c->cflru_window_pct = pct;
		c->cflru_window = c->ways * pct / 100;
		return 0;
	}
	reshape_begin(c, CXD_POLICY_CFLRU, pct);
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
