// SPDX-License-Identifier: GPL-2.0
/*
 * The model at its largest capacity: 2^32 host pages (16 TiB,
 * CXD_MODEL_MAX_CAPACITY and the module's CXD_MAX_CAPACITY). Page numbers
 * are 32-bit, and the last page, 2^32 - 1, has the all-ones number the
 * cache also writes into a free line's page field: these tests use the
 * pages at the top of the range under every policy, fully and set
 * associative, and check that they miss, hit, are evicted and written back,
 * and are lost or kept at a power failure like any other page.
 *
 * The state (16 GiB of page table, a 512 MiB written-page bitmap) lives in
 * a fresh anonymous mapping and the model is told it is zero
 * (cxd_model_cfg.zeroed), so only the pages used cost memory: the test
 * checks that the process stays within 256 MiB of resident memory.
 */
#include <stdio.h>
#include <sys/mman.h>
#include "cxd_test.h"
#include <cxdvirt/params.h>

#define NPAGES	((uint64_t)1 << 32)
#define LAST	(NPAGES - 1)
#define NLINES	64u
#define SPAN	(2 * NLINES)		/* pages scanned: LAST - SPAN + 1 .. LAST */
#define BASE	(NPAGES - SPAN)

struct big {
	struct cxd_model m;
	void *mem;
	size_t size;
};

/* Resident memory of this process in bytes (/proc/self/statm). */
static uint64_t rss_bytes(void)
{
	unsigned long size, res;
	FILE *f = fopen("/proc/self/statm", "r");

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%lu %lu", &size, &res), 2);
	fclose(f);
	return (uint64_t)res * 4096;
}

static void big_init(struct big *b, enum cxd_policy policy, uint32_t ways)
{
	struct cxd_nand_cfg nand = default_cfg();
	struct cxd_model_cfg cfg = fa_cfg(NPAGES, NLINES, &nand, policy);

	cfg.ways = ways;
	cfg.zeroed = true;
	b->size = cxd_model_cfg_state_size(&cfg);
	assert_true(b->size > NPAGES * 4);
	b->mem = mmap(NULL, b->size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(b->mem != MAP_FAILED);
	assert_int_equal(cxd_model_init_cfg(&b->m, &cfg, b->mem), 0);
	assert_int_equal(b->m.cache.npages, NPAGES);
}

static void big_free(struct big *b)
{
	munmap(b->mem, b->size);
}

/* Every resident page's line names it, and no more than NLINES are. */
static void check_top(const struct cxd_cache *c)
{
	uint64_t p, n = 0;
	uint32_t l;

	for (p = BASE; p <= LAST; p++) {
		l = cxd_lop_get(c, p);
		if (l >= c->nlines)
			continue;
		assert_int_equal(c->lines[l].page, p);
		assert_true(cxd_cache_resident(c, p));
		n++;
	}
	assert_int_equal(n, c->used);
	assert_true(c->used <= NLINES);
}

/* The shape bound: 2^32 pages is a model, 2^32 + 1 is not. */
static void test_bounds(void **state)
{
	struct cxd_nand_cfg nand = default_cfg();
	struct cxd_model_cfg cfg = fa_cfg(NPAGES, NLINES, &nand,
					  CXD_POLICY_FIFO);

	(void)state;
	assert_int_equal(CXD_MODEL_MAX_CAPACITY / CXD_HOST_PAGE_SIZE, NPAGES);
	assert_int_equal(CXD_MAX_CAPACITY, NPAGES * CXD_HOST_PAGE_SIZE);
	assert_true(cxd_model_cfg_state_size(&cfg) > 0);
	cfg.npages = NPAGES + 1;
	assert_int_equal(cxd_model_cfg_state_size(&cfg), 0);
}

/*
 * FIFO, fully associative: 2 x NLINES written pages ending at the last
 * page. Every access misses; the first NLINES are the victims, dirty, in
 * order; the last page stays resident and dirty, is found by the dirty
 * walk, hits, and is lost at a volatile power failure.
 */
static void test_fifo_top(void **state)
{
	struct cxd_access r;
	struct big b;
	uint64_t p, now = 0, *pages, nsaved, n, i;
	uint64_t rss0 = rss_bytes();
	bool found = false;

	(void)state;
	big_init(&b, CXD_POLICY_FIFO, 0);
	for (p = BASE; p <= LAST; p++) {
		now += 1000000;
		cxd_model_access(&b.m, p, CXD_ACC_WRITE, now, &r);
		assert_false(r.hit);
		if (p - BASE < NLINES) {
			assert_int_equal(r.nvictims, 0);
		} else {
			assert_int_equal(r.nvictims, 1);
			assert_int_equal(r.victims[0].page, p - NLINES);
			assert_true(r.victims[0].dirty);
		}
	}
	check_top(&b.m.cache);
	assert_true(cxd_cache_resident(&b.m.cache, LAST));
	assert_true(cxd_cache_dirty(&b.m.cache, LAST));
	assert_int_equal(b.m.stats.writebacks, NLINES);

	pages = calloc(NLINES, sizeof(*pages));
	assert_non_null(pages);
	n = cxd_cache_dirty_pages(&b.m.cache, pages, NLINES);
	assert_int_equal(n, NLINES);
	for (i = 0; i < n; i++)
		found |= pages[i] == LAST;
	assert_true(found);

	now += 1000000;
	cxd_model_access(&b.m, LAST, 0, now, &r);
	assert_true(r.hit);

	b.m.persistence = CXD_PERSIST_VOLATILE;
	n = cxd_model_power_fail(&b.m, now + 1000000, pages, &nsaved);
	assert_int_equal(n, NLINES);
	assert_int_equal(nsaved, 0);
	found = false;
	for (i = 0; i < n; i++)
		found |= pages[i] == LAST;
	assert_true(found);
	free(pages);

	/* the last page leaves with a discard, and comes back as a miss */
	assert_true(cxd_model_discard(&b.m, LAST, now));
	assert_false(cxd_cache_resident(&b.m.cache, LAST));
	now += 1000000;
	cxd_model_access(&b.m, LAST, 0, now, &r);
	assert_false(r.hit);
	check_top(&b.m.cache);

	assert_true(rss_bytes() - rss0 < (256ull << 20));
	big_free(&b);
}

/*
 * Every policy, fully and set associative (8 ways): three passes over
 * 2 x NLINES pages at the top, half of them written; the structures stay
 * consistent, every victim is a page of the span that was resident, and a
 * last pass of reads finds the last page's data path intact (a hit or a
 * miss, never a line for another page).
 */
static void test_policies_top(void **state)
{
	static const uint32_t ways[] = { 0, 8 };
	struct cxd_access r;
	unsigned int pol, w, pass, k;
	uint64_t p, now = 0;

	(void)state;
	for (pol = 0; pol < CXD_POLICY_NR; pol++) {
		for (w = 0; w < 2; w++) {
			struct big b;

			big_init(&b, (enum cxd_policy)pol, ways[w]);
			for (pass = 0; pass < 3; pass++) {
				for (p = BASE; p <= LAST; p++) {
					now += 1000000;
					cxd_model_access(&b.m, p,
							 p & 1 ? CXD_ACC_WRITE : 0,
							 now, &r);
					assert_false(r.busy);
					for (k = 0; k < r.nvictims; k++) {
						assert_true(r.victims[k].page >= BASE);
						assert_true(r.victims[k].page <= LAST);
						assert_true(r.victims[k].page != p);
					}
					assert_true(cxd_cache_resident(&b.m.cache, p));
				}
				check_top(&b.m.cache);
			}
			/* the last page: a write hits (resident), then a re-read */
			now += 1000000;
			cxd_model_access(&b.m, LAST, CXD_ACC_WRITE, now, &r);
			assert_true(r.hit);
			assert_true(cxd_cache_dirty(&b.m.cache, LAST));
			assert_int_equal(b.m.stats.misses + b.m.stats.hits,
					 3 * SPAN + 1);
			big_free(&b);
		}
	}
}

/*
 * S3-FIFO's ghost ring holds the last page's number too: read once, it
 * goes to the small queue; pushed out of it unused, it becomes a ghost;
 * read again, it is inserted into the main queue.
 */
static void test_s3fifo_ghost_top(void **state)
{
	struct cxd_access r;
	struct big b;
	uint64_t p, now = 0;
	uint32_t l;

	(void)state;
	big_init(&b, CXD_POLICY_S3FIFO, 0);
	cxd_model_access(&b.m, LAST, 0, now, &r);
	assert_false(r.hit);
	l = cxd_lop_get(&b.m.cache, LAST);
	assert_true(l < NLINES);
	assert_true(b.m.cache.lines[l].flags & CXD_LINE_SMALL);
	/* fill the cache with other pages until the last one is a ghost */
	for (p = BASE; p < LAST && cxd_cache_resident(&b.m.cache, LAST); p++) {
		now += 1000000;
		cxd_model_access(&b.m, p, 0, now, &r);
	}
	assert_false(cxd_cache_resident(&b.m.cache, LAST));
	assert_true(cxd_lop_get(&b.m.cache, LAST) & CXD_GHOST_TAG);
	assert_int_not_equal(cxd_lop_get(&b.m.cache, LAST), CXD_NO_LINE);
	now += 1000000;
	cxd_model_access(&b.m, LAST, 0, now, &r);
	assert_false(r.hit);
	l = cxd_lop_get(&b.m.cache, LAST);
	assert_true(l < NLINES);
	assert_false(b.m.cache.lines[l].flags & CXD_LINE_SMALL);
	check_top(&b.m.cache);
	big_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_fifo_top),
		cmocka_unit_test(test_policies_top),
		cmocka_unit_test(test_s3fifo_ghost_top),
	};

	if (sizeof(size_t) < 8) {
		printf("1..0 # SKIP a 2^32-page model needs a 64-bit host\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
