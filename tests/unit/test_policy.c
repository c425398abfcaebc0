// SPDX-License-Identifier: GPL-2.0
/*
 * Replacement policies and set-associativity, checked against exact
 * analytic results.
 */
#include "cxd_test.h"

struct pol_fix {
	struct cxd_cache c;
	void *mem;
	uint64_t hits, misses, evictions;
};

static struct pol_fix *pol_new(uint64_t npages, uint32_t nlines, uint32_t ways,
			       enum cxd_policy p)
{
	struct pol_fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->mem = junk_alloc(cxd_cache_state_size_ways(npages, nlines, ways));
	assert_int_equal(cxd_cache_init_ways(&f->c, npages, nlines, ways, p,
					     f->mem), 0);
	return f;
}

static void pol_free(struct pol_fix *f)
{
	free(f->mem);
	free(f);
}

/* One access as the model does it; returns the victim (or CXD_NO_PAGE). */
static uint64_t acc(struct pol_fix *f, uint64_t page)
{
	uint64_t v = CXD_NO_PAGE;

	if (cxd_cache_resident(&f->c, page)) {
		f->hits++;
		cxd_cache_touch(&f->c, page);
	} else {
		f->misses++;
		v = cache_insert(&f->c, page, NULL);
		if (v != CXD_NO_PAGE)
			f->evictions++;
	}
	return v;
}

static void scan(struct pol_fix *f, uint64_t w, unsigned int passes)
{
	unsigned int pass;
	uint64_t p;

	for (pass = 0; pass < passes; pass++)
		for (p = 0; p < w; p++)
			acc(f, p);
}

/* Resident lines counted through the set queues = used, per set <= ways. */
static void check_sets(const struct cxd_cache *c)
{
	uint32_t s, l, n, total = 0;

	for (s = 0; s < c->nsets; s++) {
		n = 0;
		for (l = c->sets[s].main.head; l != CXD_NO_LINE; l = c->lines[l].next) {
			assert_int_equal(l / c->ways, s);
			assert_int_equal(c->lines[l].page % c->nsets, s);
			n++;
		}
		for (l = c->sets[s].small.head; l != CXD_NO_LINE; l = c->lines[l].next) {
			assert_int_equal(l / c->ways, s);
			n++;
		}
		for (l = c->sets[s].aux.head; l != CXD_NO_LINE; l = c->lines[l].next) {
			assert_int_equal(l / c->ways, s);
			n++;
		}
		assert_int_equal(n, c->sets[s].used);
		assert_true(n <= c->ways);
		total += n;
	}
	assert_int_equal(total, c->used);
}

/* Cyclic scan of W > C pages: FIFO, LRU and clock never hit. */
static void test_cyclic_scan_no_hits(void **state)
{
	static const enum cxd_policy pols[] = {
		CXD_POLICY_FIFO, CXD_POLICY_LRU, CXD_POLICY_CLOCK,
	};
	static const uint64_t widths[] = { 65, 96, 128, 1000 };
	unsigned int i, j;
	struct pol_fix *f;

	(void)state;
	for (i = 0; i < 3; i++) {
		for (j = 0; j < 4; j++) {
			f = pol_new(1000, 64, 0, pols[i]);
			scan(f, widths[j], 10);
			assert_int_equal(f->hits, 0);
			assert_int_equal(f->misses, 10 * widths[j]);
			assert_int_equal(f->evictions, 10 * widths[j] - 64);
			check_sets(&f->c);
			pol_free(f);
		}
	}
}

/* LIFO keeps the first C-1 pages: C-1 hits per pass after the first. */
static void test_lifo_cyclic_scan(void **state)
{
	static const uint64_t widths[] = { 65, 100, 640 };
	struct pol_fix *f;
	unsigned int j;
	uint64_t p;

	(void)state;
	for (j = 0; j < 3; j++) {
		f = pol_new(1000, 64, 0, CXD_POLICY_LIFO);
		scan(f, widths[j], 10);
		assert_int_equal(f->hits, 9 * 63);
		assert_int_equal(f->misses, 10 * widths[j] - 9 * 63);
		for (p = 0; p < 63; p++)
			assert_true(cxd_cache_resident(&f->c, p));
		assert_true(cxd_cache_resident(&f->c, widths[j] - 1));
		pol_free(f);
	}
}

/* A working set that fits misses once per page, whatever the policy. */
static void test_working_set_fits_all(void **state)
{
	struct pol_fix *f;
	unsigned int p;

	(void)state;
	for (p = 0; p < CXD_POLICY_NR; p++) {
		f = pol_new(1000, 64, 0, p);
		scan(f, 64, 10);
		assert_int_equal(f->misses, 64);
		assert_int_equal(f->hits, 9 * 64);
		assert_int_equal(f->evictions, 0);
		check_sets(&f->c);
		pol_free(f);
	}
}

/* 1 2 3 1 4 1 with C = 3: FIFO evicts 1 (1 hit), LRU evicts 2 (2 hits). */
static void test_lru_vs_fifo(void **state)
{
	static const uint64_t seq[] = { 1, 2, 3, 1, 4, 1 };
	struct pol_fix *fifo = pol_new(100, 3, 0, CXD_POLICY_FIFO);
	struct pol_fix *lru = pol_new(100, 3, 0, CXD_POLICY_LRU);
	uint64_t vf[6], vl[6];
	unsigned int i;

	(void)state;
	for (i = 0; i < 6; i++) {
		vf[i] = acc(fifo, seq[i]);
		vl[i] = acc(lru, seq[i]);
	}
	assert_int_equal(fifo->hits, 1);
	assert_int_equal(lru->hits, 2);
	assert_int_equal(vf[4], 1);
	assert_int_equal(vf[5], 2);
	assert_int_equal(vl[4], 2);
	assert_int_equal(vl[5], CXD_NO_PAGE);
	pol_free(fifo);
	pol_free(lru);
}

/* Clock: a touched line gets one second chance. */
static void test_clock_second_chance(void **state)
{
	struct pol_fix *f = pol_new(100, 3, 0, CXD_POLICY_CLOCK);

	(void)state;
	acc(f, 1);
	acc(f, 2);
	acc(f, 3);
	acc(f, 1);			/* reference bit */
	assert_int_equal(acc(f, 4), 2);	/* 1 skipped, bit cleared */
	assert_int_equal(acc(f, 5), 3);
	assert_int_equal(acc(f, 6), 1);	/* no second chance left */
	acc(f, 4);
	acc(f, 5);
	acc(f, 6);			/* every bit set: a full sweep */
	assert_int_equal(acc(f, 7), 4);
	pol_free(f);
}

/* S3-FIFO: promotion from the small queue, ghost hits, scan resistance. */
static void test_s3fifo(void **state)
{
	struct pol_fix *f = pol_new(1000, 10, 0, CXD_POLICY_S3FIFO);
	uint64_t p;

	(void)state;
	assert_int_equal(f->c.small_cap, 1);
	assert_int_equal(f->c.ghost_cap, 9);
	for (p = 0; p < 10; p++)
		acc(f, p);
	assert_int_equal(f->c.sets[0].small.len, 10);
	acc(f, 0);
	acc(f, 1);
	/* 0 and 1 were used: they move to the main queue; 2 is the victim */
	assert_int_equal(acc(f, 10), 2);
	assert_int_equal(f->c.sets[0].main.len, 2);
	assert_false(f->c.lines[cxd_lop_get(&f->c, 0)].flags & CXD_LINE_SMALL);
	/* 2 is a ghost: it comes back into the main queue */
	assert_int_equal(acc(f, 2), 3);
	assert_false(f->c.lines[cxd_lop_get(&f->c, 2)].flags & CXD_LINE_SMALL);
	assert_int_equal(f->c.sets[0].main.len, 3);
	/* one-hit wonders stream through the small queue; 0, 1, 2 stay */
	for (p = 100; p < 200; p++)
		acc(f, p);
	assert_true(cxd_cache_resident(&f->c, 0));
	assert_true(cxd_cache_resident(&f->c, 1));
	assert_true(cxd_cache_resident(&f->c, 2));
	/* the ghost holds 9 pages: 3 was forgotten, so it enters small */
	acc(f, 3);
	assert_true(f->c.lines[cxd_lop_get(&f->c, 3)].flags & CXD_LINE_SMALL);
	check_sets(&f->c);
	pol_free(f);

	/* the same hot set under FIFO is flushed by the scan */
	f = pol_new(1000, 10, 0, CXD_POLICY_FIFO);
	for (p = 0; p < 5; p++) {
		acc(f, p);
		acc(f, p);
	}
	for (p = 100; p < 200; p++)
		acc(f, p);
	for (p = 0; p < 5; p++)
		assert_false(cxd_cache_resident(&f->c, p));
	pol_free(f);

	f = pol_new(1000, 10, 0, CXD_POLICY_S3FIFO);
	for (p = 0; p < 5; p++) {
		acc(f, p);
		acc(f, p);
	}
	for (p = 100; p < 200; p++)
		acc(f, p);
	for (p = 0; p < 5; p++)
		assert_true(cxd_cache_resident(&f->c, p));
	pol_free(f);
}

/* One step of a scripted trace: the victim and the queue lengths after it. */
struct s3_step {
	uint64_t page, victim;
	uint32_t small, main;
};

static void run_steps(struct pol_fix *f, const struct s3_step *st,
		      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		assert_int_equal(acc(f, st[i].page), st[i].victim);
		assert_int_equal(f->c.sets[0].small.len, st[i].small);
		assert_int_equal(f->c.sets[0].main.len, st[i].main);
		check_sets(&f->c);
	}
}

#define NONE CXD_NO_PAGE

/*
 * S3-FIFO, exact victims of a scripted trace on 4 lines (small queue share
 * 1 line, ghost 3 pages). Page 0 is used in the small queue (promoted to
 * main at the first eviction), then hit three times in the main queue: its
 * frequency reaches 3, the cap, so the main queue's hand passes over it
 * three times (steps 12, 18, 24) before it is the victim (step 30). In
 * between, each new page evicts from the main queue only when the small
 * queue is empty, and the previous small-queue victim comes straight back
 * from the ghost into the main queue, evicting the small queue's single
 * line: a small queue at its share (1 of 1) is evicted from, so once the
 * cache is full the queues alternate between 1 + 3 and 0 + 4 lines.
 */
static void test_s3fifo_victims(void **state)
{
	static const struct s3_step trace[] = {
		/* page, victim, small, main after the access */
		{  0, NONE, 1, 0 },
		{  1, NONE, 2, 0 },
		{  2, NONE, 3, 0 },
		{  3, NONE, 4, 0 },
		{  0, NONE, 4, 0 },	/* hit in small: freq 1 */
		{  4,    1, 3, 1 },	/* 0 promoted (freq 0), 1 ghosted */
		{  0, NONE, 3, 1 },	/* hits in main: freq 1, 2, 3 */
		{  0, NONE, 3, 1 },
		{  0, NONE, 3, 1 },
		{  1,    2, 2, 2 },	/* ghost hit: 1 into main */
		{  2,    3, 1, 3 },
		{  3,    4, 0, 4 },	/* small at its share: evicted */
		{  5,    1, 1, 3 },	/* small empty: main, 0 freq 3 -> 2 */
		{  4,    5, 0, 4 },
		{  6,    2, 1, 3 },
		{  5,    6, 0, 4 },
		{  7,    3, 1, 3 },
		{  6,    7, 0, 4 },
		{  8,    4, 1, 3 },	/* 0 freq 2 -> 1 */
		{  7,    8, 0, 4 },
		{  9,    5, 1, 3 },
		{  8,    9, 0, 4 },
		{ 10,    6, 1, 3 },
		{  9,   10, 0, 4 },
		{ 11,    7, 1, 3 },	/* 0 freq 1 -> 0 */
		{ 10,   11, 0, 4 },
		{ 12,    8, 1, 3 },
		{ 11,   12, 0, 4 },
		{ 13,    9, 1, 3 },
		{ 12,   13, 0, 4 },
		{ 14,    0, 1, 3 },	/* 0's fourth turn: the victim */
		{ 13,   14, 0, 4 },
	};
	/* Two hits in the small queue: promoted with its frequency cleared. */
	static const struct s3_step promote[] = {
		{ 0, NONE, 1, 0 },
		{ 1, NONE, 2, 0 },
		{ 2, NONE, 3, 0 },
		{ 3, NONE, 4, 0 },
		{ 0, NONE, 4, 0 },
		{ 0, NONE, 4, 0 },	/* freq 2 */
		{ 4,    1, 3, 1 },	/* promoted, freq 0 */
		{ 1,    2, 2, 2 },
		{ 2,    3, 1, 3 },
		{ 3,    4, 0, 4 },
		{ 5,    0, 1, 3 },	/* freq 0 at the hand: the victim */
	};
	struct pol_fix *f = pol_new(100, 4, 0, CXD_POLICY_S3FIFO);

	(void)state;
	assert_int_equal(f->c.small_cap, 1);
	assert_int_equal(f->c.ghost_cap, 3);
	run_steps(f, trace, sizeof(trace) / sizeof(trace[0]));
	pol_free(f);

	f = pol_new(100, 4, 0, CXD_POLICY_S3FIFO);
	run_steps(f, promote, sizeof(promote) / sizeof(promote[0]));
	pol_free(f);
}

/*
 * S3-FIFO with a 2-line small queue (20 lines): once the cache is full and
 * the main queue holds the 18 pages used twice, each new page evicts the
 * small queue's oldest (its share is reached), so the small queue stays at
 * exactly 2 lines and the main queue keeps all 18.
 */
static void test_s3fifo_small_share(void **state)
{
	struct pol_fix *f = pol_new(1000, 20, 0, CXD_POLICY_S3FIFO);
	uint64_t p;

	(void)state;
	assert_int_equal(f->c.small_cap, 2);
	for (p = 0; p < 20; p++)
		acc(f, p);
	for (p = 0; p < 18; p++)	/* used again: promoted when evicted */
		acc(f, p);
	assert_int_equal(acc(f, 100), 18);
	assert_int_equal(f->c.sets[0].small.len, 2);	/* 19, 100 */
	assert_int_equal(f->c.sets[0].main.len, 18);
	assert_int_equal(acc(f, 101), 19);
	for (p = 102; p < 150; p++) {
		assert_int_equal(acc(f, p), p - 2);
		assert_int_equal(f->c.sets[0].small.len, 2);
		assert_int_equal(f->c.sets[0].main.len, 18);
	}
	for (p = 0; p < 18; p++)
		assert_true(cxd_cache_resident(&f->c, p));
	check_sets(&f->c);
	pol_free(f);
}

/*
 * Random: every way of a set is a victim equally often. 4 lines, 4000
 * evictions: each way's share within [20%, 30%] (the expected 1000 is
 * 36 standard deviations away from either bound, for any seed).
 */
static void test_random_distribution(void **state)
{
	static const uint64_t seeds[] = { 0, 1, 42, 0xdeadbeef };
	unsigned int s, i, per_way[4];
	struct pol_fix *f;
	uint64_t p;

	(void)state;
	for (s = 0; s < 4; s++) {
		f = pol_new(8192, 4, 0, CXD_POLICY_RANDOM);
		cxd_cache_set_seed(&f->c, seeds[s]);
		memset(per_way, 0, sizeof(per_way));
		for (p = 0; p < 4; p++)
			assert_int_equal(acc(f, p), CXD_NO_PAGE);
		for (i = 0; i < 4000; i++) {
			p = 4 + i;
			assert_true(acc(f, p) != CXD_NO_PAGE);
			/* the new page took the victim's line */
			per_way[cxd_lop_get(&f->c, p)]++;
		}
		for (i = 0; i < 4; i++) {
			assert_in_range(per_way[i], 800, 1200);
		}
		check_sets(&f->c);
		pol_free(f);
	}
}

/* random: whatever the draws, the pinned line is never the victim. */
static void test_random_pin(void **state)
{
	struct cxd_cache_victim v;
	struct pol_fix *f;
	unsigned int seed, hits[4];
	uint64_t p;

	(void)state;
	for (seed = 0; seed < 4; seed++) {
		f = pol_new(1000, 4, 0, CXD_POLICY_RANDOM);
		cxd_cache_set_seed(&f->c, seed);
		memset(hits, 0, sizeof(hits));
		for (p = 0; p < 4; p++)
			acc(f, p);
		cxd_cache_pin(&f->c, 2);
		for (p = 4; p < 400; p++) {
			assert_int_equal(cxd_cache_fill(&f->c, p, 0, &v), 0);
			assert_true(v.page != 2);
			hits[cxd_lop_get(&f->c, p)]++;
		}
		assert_true(cxd_cache_resident(&f->c, 2));
		/* the three other lines were all chosen */
		assert_int_equal(hits[2], 0);
		assert_true(hits[0] && hits[1] && hits[3]);
		check_sets(&f->c);
		pol_free(f);
	}
}

static void run_random_policy(uint64_t seed, uint64_t *victims, unsigned int n)
{
	struct pol_fix *f = pol_new(4096, 64, 0, CXD_POLICY_RANDOM);
	unsigned int i = 0;
	uint64_t p = 0, v;

	cxd_cache_set_seed(&f->c, seed);
	while (i < n) {
		v = acc(f, p++ % 4096);
		if (v != CXD_NO_PAGE)
			victims[i++] = v;
	}
	check_sets(&f->c);
	pol_free(f);
}

static void test_random_reproducible(void **state)
{
	uint64_t a[1000], b[1000], c[1000];
	unsigned int i, same = 0;

	(void)state;
	run_random_policy(42, a, 1000);
	run_random_policy(42, b, 1000);
	run_random_policy(43, c, 1000);
	assert_memory_equal(a, b, sizeof(a));
	for (i = 0; i < 1000; i++)
		same += a[i] == c[i];
	assert_true(same < 100);
}

/* Switching through every policy keeps residency, dirty bits and order. */
static void test_switch_keeps_residency(void **state)
{
	struct pol_fix *f = pol_new(1000, 32, 0, CXD_POLICY_S3FIFO);
	bool resident[1000], dirty[1000];
	unsigned int round, p;
	uint64_t q;

	(void)state;
	for (q = 0; q < 300; q++) {
		acc(f, (q * 7) % 50);
		if (q % 3 == 0)
			cxd_cache_set_dirty(&f->c, (q * 7) % 50);
	}
	for (q = 0; q < 1000; q++) {
		resident[q] = cxd_cache_resident(&f->c, q);
		dirty[q] = cxd_cache_dirty(&f->c, q);
	}
	for (round = 0; round < 3; round++) {
		for (p = 0; p < CXD_POLICY_NR; p++) {
			assert_int_equal(cxd_cache_set_policy(&f->c, p), 0);
			assert_int_equal(f->c.policy, p);
			assert_int_equal(f->c.used, 32);
			for (q = 0; q < 1000; q++) {
				assert_int_equal(cxd_cache_resident(&f->c, q),
						 resident[q]);
				assert_int_equal(cxd_cache_dirty(&f->c, q),
						 dirty[q]);
			}
			check_sets(&f->c);
		}
	}
	/* after the switch to fifo, the victims come in queue order */
	assert_int_equal(cxd_cache_set_policy(&f->c, CXD_POLICY_FIFO), 0);
	q = f->c.lines[f->c.sets[0].main.head].page;
	assert_int_equal(acc(f, 999), q);
	/* and every policy keeps working after a switch */
	for (p = 0; p < CXD_POLICY_NR; p++) {
		cxd_cache_set_policy(&f->c, p);
		for (q = 0; q < 200; q++)
			acc(f, 500 + (q * 13) % 97);
		check_sets(&f->c);
		assert_int_equal(f->c.used, 32);
	}
	pol_free(f);
}

/* Set-associative: pages conflict within their set only. */
static void test_set_conflicts(void **state)
{
	struct pol_fix *f = pol_new(1000, 8, 2, CXD_POLICY_FIFO);
	uint64_t p;

	(void)state;
	assert_int_equal(f->c.nsets, 4);
	assert_int_equal(f->c.ways, 2);
	/* 0, 4, 8 all map to set 0: the third evicts the first */
	assert_int_equal(acc(f, 0), CXD_NO_PAGE);
	assert_int_equal(acc(f, 4), CXD_NO_PAGE);
	assert_int_equal(acc(f, 8), 0);
	assert_int_equal(f->c.used, 2);	/* 6 lines still free */
	check_sets(&f->c);
	/* 8 distinct pages, two per set, all fit */
	pol_free(f);
	f = pol_new(1000, 8, 2, CXD_POLICY_LRU);
	scan(f, 8, 5);
	assert_int_equal(f->misses, 8);
	assert_int_equal(f->hits, 32);
	pol_free(f);

	/* 3 pages cycling in one 2-way set: LRU never hits ... */
	f = pol_new(1000, 8, 2, CXD_POLICY_LRU);
	for (p = 0; p < 30; p++)
		acc(f, (p % 3) * 4);
	assert_int_equal(f->hits, 0);
	pol_free(f);
	/* ... while fully associative it misses only 3 times */
	f = pol_new(1000, 8, 0, CXD_POLICY_LRU);
	for (p = 0; p < 30; p++)
		acc(f, (p % 3) * 4);
	assert_int_equal(f->misses, 3);
	pol_free(f);

	/* direct-mapped: 0 and 8 evict each other, 1 is untouched */
	f = pol_new(1000, 8, 1, CXD_POLICY_CLOCK);
	acc(f, 1);
	for (p = 0; p < 10; p++)
		assert_int_equal(acc(f, (p % 2) * 8), p ? (1 - p % 2) * 8 :
						       CXD_NO_PAGE);
	assert_true(cxd_cache_resident(&f->c, 1));
	pol_free(f);
}

/* Every policy evicts within the set of the incoming page. */
static void test_set_policies_stay_in_set(void **state)
{
	struct pol_fix *f;
	unsigned int p;
	uint64_t q, v, page;

	(void)state;
	for (p = 0; p < CXD_POLICY_NR; p++) {
		f = pol_new(4096, 64, 4, p);
		cxd_cache_set_seed(&f->c, 7);
		for (q = 0; q < 5000; q++) {
			page = (q * 2654435761u) % 4096;
			if (q % 5 == 0)
				page = q % 40;
			v = acc(f, page);
			if (v != CXD_NO_PAGE)
				assert_int_equal(v % 16, page % 16);
		}
		check_sets(&f->c);
		assert_int_equal(f->c.used, 64);
		pol_free(f);
	}
}

/* A pinned page is never the victim; a 1-way set with it pinned refuses. */
static void test_pin(void **state)
{
	struct cxd_cache_victim v;
	struct pol_fix *f;
	unsigned int p;

	(void)state;
	for (p = 0; p < CXD_POLICY_NR; p++) {
		f = pol_new(100, 2, 0, p);
		acc(f, 1);
		acc(f, 2);
		cxd_cache_pin(&f->c, 2);
		assert_int_equal(cxd_cache_fill(&f->c, 3, 0, &v), 0);
		assert_int_equal(v.page, 1);
		cxd_cache_pin(&f->c, 3);
		assert_int_equal(cxd_cache_fill(&f->c, 4, 0, &v), 0);
		assert_int_equal(v.page, 2);
		assert_true(cxd_cache_resident(&f->c, 3));
		check_sets(&f->c);
		pol_free(f);
	}
	f = pol_new(100, 4, 1, CXD_POLICY_FIFO);
	acc(f, 0);
	cxd_cache_pin(&f->c, 0);
	assert_int_equal(cxd_cache_fill(&f->c, 4, 0, &v), -1);
	assert_int_equal(v.page, CXD_NO_PAGE);
	assert_true(cxd_cache_resident(&f->c, 0));
	assert_false(cxd_cache_resident(&f->c, 4));
	cxd_cache_pin(&f->c, CXD_NO_PAGE);
	assert_int_equal(cxd_cache_fill(&f->c, 4, 0, &v), 0);
	assert_int_equal(v.page, 0);
	pol_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cyclic_scan_no_hits),
		cmocka_unit_test(test_lifo_cyclic_scan),
		cmocka_unit_test(test_working_set_fits_all),
		cmocka_unit_test(test_lru_vs_fifo),
		cmocka_unit_test(test_clock_second_chance),
		cmocka_unit_test(test_s3fifo),
		cmocka_unit_test(test_s3fifo_victims),
		cmocka_unit_test(test_s3fifo_small_share),
		cmocka_unit_test(test_random_distribution),
		cmocka_unit_test(test_random_pin),
		cmocka_unit_test(test_random_reproducible),
		cmocka_unit_test(test_switch_keeps_residency),
		cmocka_unit_test(test_set_conflicts),
		cmocka_unit_test(test_set_policies_stay_in_set),
		cmocka_unit_test(test_pin),
	};

	return cmocka_run_group_tests_name("policy", tests, NULL, NULL);
}
