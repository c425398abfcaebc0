// SPDX-License-Identifier: GPL-2.0
/*
 * Long random access sequences through the model, checked against a naive
 * reference FIFO cache and against the cache's own invariants.
 */
#include "cxd_test.h"

static uint64_t rng_state;

static uint64_t rng(void)	/* xorshift64* */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

/* Naive FIFO: a ring of resident pages plus a dirty flag per page. */
struct ref_fifo {
	uint64_t *ring;
	uint32_t nlines, head, count;
	bool *resident, *dirty;
};

/* Full consistency of the cache structures, O(npages + nlines). */
static void check_cache(const struct cxd_cache *c, const struct ref_fifo *ref)
{
	uint64_t p, resident = 0;
	uint32_t l, n = 0, prev = CXD_NO_LINE, k;

	assert_true(c->used <= c->nlines);
	for (p = 0; p < c->npages; p++) {
		l = cxd_lop_get(c, p);
		assert_int_equal(cxd_cache_resident(c, p), l != CXD_NO_LINE);
		assert_int_equal(cxd_cache_resident(c, p), ref->resident[p]);
		assert_int_equal(cxd_cache_dirty(c, p), ref->dirty[p]);
		if (l == CXD_NO_LINE)
			continue;
		assert_true(l < c->nlines);
		assert_int_equal(c->lines[l].page, p);
		resident++;
	}
	assert_int_equal(resident, c->used);

	/* the queue links exactly the resident lines, oldest first */
	for (l = c->sets[0].main.head; l != CXD_NO_LINE; l = c->lines[l].next) {
		assert_true(n < c->used);
		assert_int_equal(c->lines[l].prev, prev);
		assert_int_equal(cxd_lop_get(c, c->lines[l].page), l);
		k = (ref->head + n) % ref->nlines;
		assert_int_equal(c->lines[l].page, ref->ring[k]);
		prev = l;
		n++;
	}
	assert_int_equal(n, c->used);
	assert_int_equal(c->sets[0].main.tail, prev);
	assert_int_equal(ref->count, c->used);

	/* the free list holds the rest */
	n = 0;
	for (l = c->sets[0].free_head; l != CXD_NO_LINE; l = c->lines[l].next) {
		assert_true(n < c->nlines);
		assert_int_equal(c->lines[l].page, CXD_NO_PAGE32);
		n++;
	}
	assert_int_equal(n, c->nlines - c->used);
}

static void run_random(uint64_t npages, uint32_t nlines,
		       const struct cxd_nand_cfg *cfg, unsigned int steps,
		       uint64_t hot, uint64_t seed)
{
	struct cxd_model m;
	struct ref_fifo ref;
	struct cxd_access r;
	void *mem = junk_alloc(fa_state_size(npages, nlines, cfg));
	uint64_t page, victim, now = 0, prev_done_ns = 0;
	uint64_t hits = 0, misses = 0, evictions = 0, dirty_ev = 0;
	unsigned int i;
	bool write, exp_vdirty;

	rng_state = seed;
	ref.nlines = nlines;
	ref.head = 0;
	ref.count = 0;
	ref.ring = calloc(nlines, sizeof(*ref.ring));
	ref.resident = calloc(npages, sizeof(bool));
	ref.dirty = calloc(npages, sizeof(bool));
	assert_non_null(ref.ring);
	assert_non_null(ref.resident);
	assert_non_null(ref.dirty);

	assert_int_equal(fa_init(&m, npages, nlines, cfg,
					CXD_POLICY_FIFO, mem), 0);

	for (i = 0; i < steps; i++) {
		/* half the accesses go to a hot region to get hits */
		if (rng() & 1)
			page = rng() % hot;
		else
			page = rng() % npages;
		write = (rng() % 3) == 0;
		now += rng() % 20000;

		cxd_model_access(&m, page, write ? CXD_ACC_WRITE : 0, now, &r);

		if (ref.resident[page]) {
			hits++;
			assert_true(r.hit);
			assert_int_equal(r.done_ns, now);
			assert_int_equal(acc_victim(&r), CXD_NO_PAGE);
		} else {
			misses++;
			assert_false(r.hit);
			/* > 4 KiB NAND pages: the tR may have been shared */
			assert_true(r.done_ns >= now +
				    (cfg->nand_page_size > 4096 ? 0 :
				     cfg->t_read_ns) + cxd_nand_xfer_ns(cfg));
			assert_true(r.read.start_ns >= now);
			victim = CXD_NO_PAGE;
			exp_vdirty = false;
			if (ref.count == nlines) {
				victim = ref.ring[ref.head];
				exp_vdirty = ref.dirty[victim];
				ref.resident[victim] = false;
				ref.dirty[victim] = false;
				ref.head = (ref.head + 1) % nlines;
				ref.count--;
				evictions++;
				dirty_ev += exp_vdirty;
			}
			assert_int_equal(acc_victim(&r), victim);
			assert_int_equal(acc_victim_dirty(&r), exp_vdirty);
			ref.ring[(ref.head + ref.count) % nlines] = page;
			ref.count++;
			ref.resident[page] = true;
			prev_done_ns = r.done_ns;
		}
		if (write)
			ref.dirty[page] = true;

		/* cheap invariants every step */
		assert_true(m.cache.used <= m.cache.nlines);
		assert_int_equal(m.stats.hits, hits);
		assert_int_equal(m.stats.misses, misses);
		assert_int_equal(m.stats.evictions, evictions);
		assert_int_equal(m.stats.dirty_evictions, dirty_ev);
		assert_int_equal(m.stats.writebacks, dirty_ev);
		assert_int_equal(m.stats.misses - m.stats.evictions,
				 m.cache.used);
		assert_true(cxd_cache_resident(&m.cache, page));
		assert_int_equal(cxd_cache_dirty(&m.cache, page),
				 ref.dirty[page]);

		if (i % 997 == 0)
			check_cache(&m.cache, &ref);
	}
	check_cache(&m.cache, &ref);
	assert_true(prev_done_ns > 0);
	assert_true(misses > 0);
	if (npages > nlines)
		assert_true(evictions > 0);
	else
		assert_int_equal(evictions, 0);

	free(ref.ring);
	free(ref.resident);
	free(ref.dirty);
	free(mem);
}

static void test_random_default(void **state)
{
	struct cxd_nand_cfg c = default_cfg();

	(void)state;
	run_random(4096, 256, &c, 200000, 512, 0x1234567887654321ull);
}

static void test_random_small(void **state)
{
	struct cxd_nand_cfg c = test_cfg(3, 5, 16384);

	(void)state;
	run_random(37, 5, &c, 50000, 7, 42);
	run_random(2, 1, &c, 10000, 1, 7);
	run_random(100, 1, &c, 10000, 3, 9);
}

static void test_random_no_eviction(void **state)
{
	struct cxd_nand_cfg c = test_cfg(64, 64, 65536);

	(void)state;
	run_random(500, 500, &c, 50000, 100, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_default),
		cmocka_unit_test(test_random_small),
		cmocka_unit_test(test_random_no_eviction),
	};

	return cmocka_run_group_tests_name("random", tests, NULL, NULL);
}
