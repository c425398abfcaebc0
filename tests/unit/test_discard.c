// SPDX-License-Identifier: GPL-2.0
/*
 * cxd_model_discard(): a page that left the device leaves the cache with
 * its line freed, no eviction and no write-back, under every policy; the
 * accesses after it run as if the line had never been filled.
 */
#include "cxd_test.h"

struct fixture {
	struct cxd_model m;
	void *mem;
};

static struct fixture *make(uint64_t npages, uint32_t nlines, uint32_t ways,
			    enum cxd_policy policy)
{
	struct cxd_model_cfg cfg = {
		.npages = npages, .nlines = nlines, .ways = ways,
		.policy = policy, .nand = default_cfg(),
	};
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->mem = junk_alloc(cxd_model_cfg_state_size(&cfg));
	assert_int_equal(cxd_model_init_cfg(&f->m, &cfg, f->mem), 0);
	return f;
}

static void drop(struct fixture *f)
{
	free(f->mem);
	free(f);
}

/*
 * The queues of every set link exactly its resident lines, each line's
 * page maps back to it, each set's free list holds the rest: used lines +
 * free lines = ways.
 */
static void check_cache(const struct cxd_cache *c)
{
	const struct cxd_queue *qs[3];
	uint32_t s, l, n, nfree, total = 0, k;

	for (s = 0; s < c->nsets; s++) {
		qs[0] = &c->sets[s].main;
		qs[1] = &c->sets[s].small;
		qs[2] = &c->sets[s].aux;
		n = 0;
		for (k = 0; k < 3; k++) {
			uint32_t len = 0;

			for (l = qs[k]->head; l != CXD_NO_LINE;
			     l = c->lines[l].next) {
				assert_int_equal(l / c->ways, s);
				assert_true(c->lines[l].page < c->npages);
				assert_int_equal(cxd_lop_get(c, c->lines[l].page),
						 l);
				len++;
			}
			assert_int_equal(len, qs[k]->len);
			n += len;
		}
		nfree = 0;
		for (l = c->sets[s].free_head; l != CXD_NO_LINE;
		     l = c->lines[l].next) {
			assert_int_equal(l / c->ways, s);
			assert_int_equal(c->lines[l].page, CXD_NO_PAGE32);
			nfree++;
		}
		assert_int_equal(n, c->sets[s].used);
		assert_int_equal(n + nfree, c->ways);
		total += n;
	}
	assert_int_equal(total, c->used);
}

static const enum cxd_policy all[CXD_POLICY_NR] = {
	CXD_POLICY_FIFO, CXD_POLICY_LIFO, CXD_POLICY_CLOCK, CXD_POLICY_LRU,
	CXD_POLICY_S3FIFO, CXD_POLICY_RANDOM, CXD_POLICY_CFLRU, CXD_POLICY_2Q,
};

/* A resident clean line: freed, counted, no eviction, no NAND operation. */
static void test_clean(void **state __attribute__((unused)))
{
	struct cxd_access a;
	struct fixture *f;
	unsigned int i;

	for (i = 0; i < CXD_POLICY_NR; i++) {
		f = make(256, 16, 0, all[i]);
		cxd_model_access(&f->m, 7, 0, 0, &a);
		cxd_model_access(&f->m, 9, 0, 1000, &a);
		assert_int_equal(f->m.cache.used, 2);
		assert_true(cxd_model_discard(&f->m, 7, 2000));
		assert_false(cxd_cache_resident(&f->m.cache, 7));
		assert_true(cxd_cache_resident(&f->m.cache, 9));
		assert_int_equal(f->m.cache.used, 1);
		assert_int_equal(f->m.stats.discards, 1);
		assert_int_equal(f->m.stats.dirty_discards, 0);
		assert_int_equal(f->m.stats.evictions, 0);
		assert_int_equal(f->m.stats.writebacks, 0);
		check_cache(&f->m.cache);
		/* the page misses again, without a victim */
		cxd_model_access(&f->m, 7, 0, 3000, &a);
		assert_false(a.hit);
		assert_int_equal(a.nvictims, 0);
		assert_int_equal(f->m.stats.misses, 3);
		check_cache(&f->m.cache);
		drop(f);
	}
}

/* A dirty line is dropped: no write-back, no program on its die. */
static void test_dirty(void **state __attribute__((unused)))
{
	struct cxd_access a;
	struct fixture *f;
	uint64_t busy, i, d, ndies;
	unsigned int k;

	for (k = 0; k < CXD_POLICY_NR; k++) {
		f = make(256, 16, 0, all[k]);
		cxd_model_access(&f->m, 5, CXD_ACC_WRITE, 0, &a);
		assert_true(cxd_cache_dirty(&f->m.cache, 5));
		ndies = (uint64_t)f->m.nand.cfg.channels *
			f->m.nand.cfg.dies_per_channel;
		busy = 0;
		for (d = 0; d < ndies; d++)
			busy += f->m.nand.die_busy[d];
		assert_true(cxd_model_discard(&f->m, 5, 10000));
		for (d = 0; d < ndies; d++)
			busy -= f->m.nand.die_busy[d];
		assert_int_equal(busy, 0);
		assert_int_equal(f->m.stats.discards, 1);
		assert_int_equal(f->m.stats.dirty_discards, 1);
		assert_int_equal(f->m.stats.writebacks, 0);
		assert_int_equal(f->m.stats.dirty_evictions, 0);
		assert_false(cxd_cache_dirty(&f->m.cache, 5));
		assert_int_equal(cxd_cache_dirty_pages(&f->m.cache, NULL, 0), 0);
		/* fill the cache over: nothing dirty is left to write back */
		for (i = 100; i < 140; i++)
			cxd_model_access(&f->m, i, 0, 20000 + i, &a);
		assert_int_equal(f->m.stats.writebacks, 0);
		check_cache(&f->m.cache);
		drop(f);
	}
}

/* A page that is not resident: false, nothing changes or is counted. */
static void test_absent(void **state __attribute__((unused)))
{
	struct cxd_access a;
	struct fixture *f;
	unsigned int k;
	uint64_t ready;

	for (k = 0; k < CXD_POLICY_NR; k++) {
		f = make(256, 16, 0, all[k]);
		cxd_model_access(&f->m, 1, CXD_ACC_WRITE, 0, &a);
		ready = cxd_cache_ready_ns(&f->m.cache, 1);
		assert_int_equal(cxd_lop_get(&f->m.cache, 1), 0);
		assert_false(cxd_model_discard(&f->m, 2, 100));
		/* line 0's state follows the page table: left alone */
		assert_false(cxd_model_discard(&f->m, 256, 100));
		assert_false(cxd_model_discard(&f->m, CXD_NO_PAGE, 100));
		assert_int_equal(cxd_cache_ready_ns(&f->m.cache, 1), ready);
		assert_int_equal(f->m.stats.discards, 0);
		assert_int_equal(f->m.stats.dirty_discards, 0);
		assert_int_equal(f->m.cache.used, 1);
		assert_true(cxd_cache_dirty(&f->m.cache, 1));
		/* twice: the second finds nothing */
		assert_true(cxd_model_discard(&f->m, 1, 200));
		assert_false(cxd_model_discard(&f->m, 1, 300));
		assert_int_equal(f->m.stats.discards, 1);
		check_cache(&f->m.cache);
		drop(f);
	}
}

/* xorshift64 for the traces (the tests' own, not the model's). */
static uint64_t rnd(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

struct outcome {
	uint64_t hits, misses, writebacks, victims_hash;
};

/* A random trace of @n accesses over @pages pages (1 in 4 a write). */
static void run_trace(struct cxd_model *m, uint64_t seed, unsigned int n,
		      uint64_t pages, uint64_t t0, struct outcome *o)
{
	struct cxd_access a;
	unsigned int i, j;
	uint64_t r;

	for (i = 0; i < n; i++) {
		r = rnd(&seed);
		cxd_model_access(m, r % pages, (r >> 32) % 4 ? 0 : CXD_ACC_WRITE,
				 t0 + i * 1000, &a);
		for (j = 0; j < a.nvictims; j++)
			o->victims_hash = o->victims_hash * 1000003 +
					  a.victims[j].page * 2 +
					  a.victims[j].dirty;
	}
	o->hits = m->stats.hits;
	o->misses = m->stats.misses;
	o->writebacks = m->stats.writebacks;
}

/*
 * As if never filled: model A accesses 20 pages, then page X (read,
 * written, touched), discards X, then runs a random trace; model B does the
 * same without X. Hits, misses, write-backs and every victim in order are
 * the same, for every policy, fully associative and 8-way (X's set not
 * full, so its fill evicted nothing; CFLRU's working region not full, so
 * it demoted nothing), with and without prefetch in the trace.
 */
static void test_as_if_never(void **state __attribute__((unused)))
{
	static const uint32_t ways[] = { 0, 8 };
	struct fixture *fa, *fb;
	struct outcome oa, ob;
	struct cxd_access acc;
	unsigned int k, w, pf;
	uint64_t p, x = 500;

	for (pf = 0; pf < 2; pf++)
		for (w = 0; w < 2; w++)
			for (k = 0; k < CXD_POLICY_NR; k++) {
				fa = make(1024, 64, ways[w], all[k]);
				fb = make(1024, 64, ways[w], all[k]);
				for (p = 0; p < 20; p++) {
					cxd_model_access(&fa->m, p * 3, 0, p, &acc);
					cxd_model_access(&fb->m, p * 3, 0, p, &acc);
				}
				cxd_model_access(&fa->m, x, 0, 100, &acc);
				cxd_model_access(&fa->m, x, CXD_ACC_WRITE, 200,
						 &acc);
				cxd_cache_touch(&fa->m.cache, x);
				assert_true(cxd_model_discard(&fa->m, x, 300));
				check_cache(&fa->m.cache);
				fa->m.prefetch = pf ? CXD_PF_NEXT : CXD_PF_NONE;
				fb->m.prefetch = fa->m.prefetch;
				/* statistics differ by X's own accesses only */
				cxd_model_reset_stats(&fa->m);
				cxd_model_reset_stats(&fb->m);
				memset(&oa, 0, sizeof(oa));
				memset(&ob, 0, sizeof(ob));
				run_trace(&fa->m, 42 + k, 3000, 160, 1000000,
					  &oa);
				run_trace(&fb->m, 42 + k, 3000, 160, 1000000,
					  &ob);
				assert_int_equal(oa.hits, ob.hits);
				assert_int_equal(oa.misses, ob.misses);
				assert_int_equal(oa.writebacks, ob.writebacks);
				assert_int_equal(oa.victims_hash,
						 ob.victims_hash);
				assert_true(oa.misses > 64);
				check_cache(&fa->m.cache);
				drop(fa);
				drop(fb);
			}
}

/*
 * In a full set, from every queue a policy keeps (S3-FIFO's small and main
 * queues, 2Q's A1in and Am, CFLRU's working region and the clean and dirty
 * sides of its window, the others' main queue): the queues stay whole and
 * the set's next fill takes the freed line, evicting nothing.
 */
static void test_full_set_every_queue(void **state __attribute__((unused)))
{
	struct cxd_access a;
	struct fixture *f;
	unsigned int k, q;
	uint64_t p, victim_page;
	uint32_t line;

	for (k = 0; k < CXD_POLICY_NR; k++)
		for (q = 0; q < 3; q++) {
			f = make(256, 16, 0, all[k]);
			/* 16 lines: half written, a few touched twice */
			for (p = 0; p < 16; p++)
				cxd_model_access(&f->m, p, p % 2 ? CXD_ACC_WRITE :
						 0, p * 1000, &a);
			for (p = 8; p < 12; p++)
				cxd_model_access(&f->m, p, 0, 20000 + p, &a);
			/* a line of queue q, if the policy uses it */
			victim_page = CXD_NO_PAGE;
			for (p = 0; p < 16 && victim_page == CXD_NO_PAGE; p++) {
				line = cxd_lop_get(&f->m.cache, p);
				if (q == 1 && !(f->m.cache.lines[line].flags &
						CXD_LINE_SMALL))
					continue;
				if (q == 2 && !(f->m.cache.lines[line].flags &
						CXD_LINE_AUX))
					continue;
				if (q == 0 && (f->m.cache.lines[line].flags &
					       (CXD_LINE_SMALL | CXD_LINE_AUX)))
					continue;
				victim_page = p;
			}
			if (victim_page == CXD_NO_PAGE) {
				drop(f);
				continue;
			}
			assert_true(cxd_model_discard(&f->m, victim_page,
						      30000));
			check_cache(&f->m.cache);
			assert_int_equal(f->m.cache.used, 15);
			cxd_model_access(&f->m, 100, 0, 40000, &a);
			assert_false(a.hit);
			assert_int_equal(a.nvictims, 0);
			check_cache(&f->m.cache);
			/* and the next one evicts as usual */
			cxd_model_access(&f->m, 101, 0, 50000, &a);
			assert_int_equal(a.nvictims, 1);
			assert_int_not_equal(a.victims[0].page, victim_page);
			check_cache(&f->m.cache);
			drop(f);
		}
}

/* Every queue kind above was reached by some policy. */
static void test_queues_reached(void **state __attribute__((unused)))
{
	struct fixture *f = make(256, 16, 0, CXD_POLICY_CFLRU);
	struct cxd_access a;
	bool clean = false, dirty = false;
	uint64_t p;

	for (p = 0; p < 16; p++)
		cxd_model_access(&f->m, p, p % 2 ? CXD_ACC_WRITE : 0, p, &a);
	for (p = 0; p < 16; p++) {
		uint8_t fl = f->m.cache.lines[cxd_lop_get(&f->m.cache, p)].flags;

		clean |= fl & CXD_LINE_SMALL;
		dirty |= fl & CXD_LINE_AUX;
	}
	assert_true(clean && dirty);
	drop(f);
}

/*
 * S3-FIFO and 2Q: a discarded line is not ghosted (its next fill enters
 * the small queue / A1in), and a ghost page's discard forgets the ghost.
 */
static void test_ghosts(void **state __attribute__((unused)))
{
	static const enum cxd_policy g[] = { CXD_POLICY_S3FIFO, CXD_POLICY_2Q };
	struct cxd_access a;
	struct fixture *f;
	unsigned int k;
	uint64_t p;
	uint32_t line;

	for (k = 0; k < 2; k++) {
		/* resident, discarded, filled again: a new page */
		f = make(256, 16, 0, g[k]);
		cxd_model_access(&f->m, 3, 0, 0, &a);
		assert_true(cxd_model_discard(&f->m, 3, 10));
		cxd_model_access(&f->m, 3, 0, 20, &a);
		line = cxd_lop_get(&f->m.cache, 3);
		assert_true(f->m.cache.lines[line].flags & CXD_LINE_SMALL);
		check_cache(&f->m.cache);
		drop(f);

		/* a page evicted from the small queue is a ghost ... */
		f = make(256, 16, 0, g[k]);
		for (p = 0; p < 20; p++)
			cxd_model_access(&f->m, p, 0, p * 10, &a);
		assert_false(cxd_cache_resident(&f->m.cache, 0));
		assert_true(cxd_lop_get(&f->m.cache, 0) & CXD_GHOST_TAG);
		assert_int_not_equal(cxd_lop_get(&f->m.cache, 0), CXD_NO_LINE);
		/* ... which a discard forgets */
		assert_false(cxd_model_discard(&f->m, 0, 1000));
		assert_int_equal(cxd_lop_get(&f->m.cache, 0), CXD_NO_LINE);
		assert_int_equal(f->m.stats.discards, 0);
		cxd_model_access(&f->m, 0, 0, 2000, &a);
		line = cxd_lop_get(&f->m.cache, 0);
		assert_true(f->m.cache.lines[line].flags & CXD_LINE_SMALL);
		/* a ghost still remembered goes to the main queue */
		assert_true(cxd_lop_get(&f->m.cache, 1) & CXD_GHOST_TAG);
		cxd_model_access(&f->m, 1, 0, 3000, &a);
		line = cxd_lop_get(&f->m.cache, 1);
		assert_false(f->m.cache.lines[line].flags & CXD_LINE_SMALL);
		check_cache(&f->m.cache);
		drop(f);
	}
}

/* The pinned and held states end with the line. */
static void test_pin_hold(void **state __attribute__((unused)))
{
	struct fixture *f = make(256, 4, 0, CXD_POLICY_FIFO);
	struct cxd_access a;
	uint64_t p;

	for (p = 0; p < 4; p++)
		cxd_model_access(&f->m, p, 0, p, &a);
	cxd_cache_pin(&f->m.cache, 0);
	assert_true(cxd_model_discard(&f->m, 0, 10));
	assert_int_equal(f->m.cache.pin_line, CXD_NO_LINE);
	/* 4 (the freed line), then 5 evicts page 1 (the oldest) */
	cxd_model_access(&f->m, 4, 0, 20, &a);
	cxd_model_access(&f->m, 5, 0, 30, &a);
	assert_int_equal(acc_victim(&a), 1);
	assert_int_equal(cxd_cache_hold(&f->m.cache, 2), 0);
	assert_true(cxd_model_discard(&f->m, 2, 40));
	assert_int_equal(cxd_cache_release(&f->m.cache, 2), -1);
	cxd_model_access(&f->m, 2, 0, 50, &a);
	assert_int_equal(a.nvictims, 0);
	assert_int_equal(cxd_cache_release(&f->m.cache, 2), -1);
	check_cache(&f->m.cache);
	drop(f);
}

/* A prefetched, unused line: neither useful nor polluting. */
static void test_prefetched(void **state __attribute__((unused)))
{
	struct fixture *f = make(256, 8, 0, CXD_POLICY_FIFO);
	struct cxd_access a;
	uint64_t p;

	f->m.prefetch = CXD_PF_NEXT;
	f->m.prefetch_degree = 1;
	cxd_model_access(&f->m, 10, 0, 0, &a);
	assert_int_equal(a.nprefetched, 1);
	f->m.prefetch = CXD_PF_NONE;
	assert_true(cxd_model_discard(&f->m, 11, 100000));
	for (p = 100; p < 120; p++)
		cxd_model_access(&f->m, p * 3, 0, 200000 + p, &a);
	assert_int_equal(f->m.stats.prefetch_useful, 0);
	assert_int_equal(f->m.stats.prefetch_polluting, 0);
	assert_int_equal(f->m.stats.discards, 1);
	drop(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_dirty),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_as_if_never),
		cmocka_unit_test(test_full_set_every_queue),
		cmocka_unit_test(test_queues_reached),
		cmocka_unit_test(test_ghosts),
		cmocka_unit_test(test_pin_hold),
		cmocka_unit_test(test_prefetched),
	};

	return cmocka_run_group_tests_name("discard", tests, NULL, NULL);
}
