// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded work per call: the module runs every cache call under a spinlock
 * that every fault of the device needs, so no call may walk the whole
 * cache. A clock or S3-FIFO eviction passes over at most CXD_SWEEP_MAX
 * lines; a policy switch or CFLRU window change runs in steps of a chosen
 * budget and ends in the same state as one done at once. c.visits counts
 * the steps.
 */
#include "cxd_test.h"

struct bfix {
	struct cxd_cache c;
	void *mem;
	size_t size;
};

static struct bfix *bnew(uint64_t npages, uint32_t nlines, uint32_t ways,
			 enum cxd_policy p)
{
	struct bfix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->size = cxd_cache_state_size_ways(npages, nlines, ways);
	f->mem = junk_alloc(f->size);
	assert_int_equal(cxd_cache_init_ways(&f->c, npages, nlines, ways, p,
					     f->mem), 0);
	return f;
}

static void bfree(struct bfix *f)
{
	free(f->mem);
	free(f);
}

/* Insert absent @page; return the victim and the steps the call took. */
static uint64_t insert_steps(struct bfix *f, uint64_t page, uint64_t *steps)
{
	uint64_t v0 = f->c.visits, v;

	v = cache_insert(&f->c, page, NULL);
	*steps = f->c.visits - v0;
	return v;
}

/* Fill pages 0..n-1 and touch each @touches times. */
static void fill_touch(struct bfix *f, uint32_t n, unsigned int touches)
{
	uint32_t p;
	unsigned int t;

	for (p = 0; p < n; p++)
		assert_int_equal(cache_insert(&f->c, p, NULL), CXD_NO_PAGE);
	for (t = 0; t < touches; t++)
		for (p = 0; p < n; p++)
			cxd_cache_touch(&f->c, p);
}

/*
 * A scan pass set the reference bit of every line of a large clock cache:
 * the next eviction passes over CXD_SWEEP_MAX of them, no more, and evicts
 * the line then at the hand (page CXD_SWEEP_MAX). The hand is then at page
 * CXD_SWEEP_MAX + 1, still referenced: the next eviction sweeps as far
 * again.
 */
static void test_clock_sweep_bounded(void **state)
{
	const uint32_t n = 3 * CXD_SWEEP_MAX;
	struct bfix *f = bnew(4 * n, n, 0, CXD_POLICY_CLOCK);
	uint64_t steps, v;

	(void)state;
	fill_touch(f, n, 1);
	v = insert_steps(f, n, &steps);
	assert_true(steps <= CXD_SWEEP_MAX + 1);
	assert_int_equal(v, CXD_SWEEP_MAX);
	v = insert_steps(f, n + 1, &steps);
	assert_true(steps <= CXD_SWEEP_MAX + 1);
	assert_int_equal(v, 2 * CXD_SWEEP_MAX + 1);
	bfree(f);
}

/* A set of at most CXD_SWEEP_MAX lines keeps textbook clock exactly. */
static void test_clock_exact_below_bound(void **state)
{
	const uint32_t n = CXD_SWEEP_MAX;
	struct bfix *f = bnew(4 * n, n, 0, CXD_POLICY_CLOCK);
	uint64_t steps, v;

	(void)state;
	fill_touch(f, n, 1);
	/* every bit cleared once around the face, then the oldest line */
	v = insert_steps(f, n, &steps);
	assert_int_equal(v, 0);
	assert_int_equal(steps, n + 1);
	/* the bits are clear now: the next victims come in order */
	v = insert_steps(f, n + 1, &steps);
	assert_int_equal(v, 1);
	assert_int_equal(steps, 1);
	bfree(f);
}

/*
 * Every line of a large S3-FIFO cache sits in the small queue with
 * frequency 3: the eviction would move nine tenths of them to the main
 * queue one by one. It stops after CXD_SWEEP_MAX moves.
 */
static void test_s3fifo_sweep_bounded(void **state)
{
	const uint32_t n = 3 * CXD_SWEEP_MAX;
	struct bfix *f = bnew(4 * n, n, 0, CXD_POLICY_S3FIFO);
	uint64_t steps, v;
	unsigned int i;

	(void)state;
	fill_touch(f, n, 3);
	for (i = 0; i < 4; i++) {
		v = insert_steps(f, n + i, &steps);
		assert_true(v != CXD_NO_PAGE);
		assert_true(steps <= CXD_SWEEP_MAX + 1);
	}
	/* the first victim is the small queue's head after the moves */
	bfree(f);
	f = bnew(4 * n, n, 0, CXD_POLICY_S3FIFO);
	fill_touch(f, n, 3);
	assert_int_equal(insert_steps(f, n, &steps), CXD_SWEEP_MAX);
	bfree(f);
}

/* A small S3-FIFO cache keeps its exact behaviour (no bound reached). */
static void test_s3fifo_exact_below_bound(void **state)
{
	const uint32_t n = CXD_SWEEP_MAX / 4;
	struct bfix *f = bnew(4 * n, n, 0, CXD_POLICY_S3FIFO);
	uint64_t steps, v;

	(void)state;
	fill_touch(f, n, 3);
	/*
	 * Lines leave the small queue for the main queue (frequency reset)
	 * until it is under its share; then the main queue's head, which
	 * has frequency 0, is the victim: page 0.
	 */
	v = insert_steps(f, n, &steps);
	assert_int_equal(v, 0);
	assert_true(steps < CXD_SWEEP_MAX);
	bfree(f);
}

/* Build a cache in a state with every kind of policy state in it. */
static struct bfix *busy_cache(enum cxd_policy p, uint32_t nlines,
			       uint32_t ways)
{
	struct bfix *f = bnew(8ull * nlines, nlines, ways, p);
	uint64_t q;

	for (q = 0; q < 3ull * nlines; q++) {
		uint64_t page = (q * 2654435761u) % (8ull * nlines);

		if (cxd_cache_resident(&f->c, page)) {
			cxd_cache_touch(&f->c, page);
			if (q % 3 == 0)
				cxd_cache_set_dirty(&f->c, page);
		} else {
			cache_insert(&f->c, page, NULL);
		}
		if (q % 5 == 0)
			cxd_cache_touch(&f->c, (q * 7) % (8ull * nlines));
	}
	cxd_cache_hold(&f->c, f->c.lines[nlines / 2].page);
	return f;
}

/* Everything but the counter and the array pointers: same state? */
static void assert_same(const struct bfix *a, const struct bfix *b)
{
	struct cxd_cache x = a->c, y = b->c;

	assert_int_equal(a->size, b->size);
	assert_memory_equal(a->mem, b->mem, a->size);
	x.visits = y.visits = 0;
	x.line_of_page = y.line_of_page;
	x.lines = y.lines;
	x.sets = y.sets;
	x.ghost = y.ghost;
	x.dirty_seq = y.dirty_seq;
	assert_memory_equal(&x, &y, sizeof(x));
}

/*
 * Every switch between two policies, and a CFLRU window change, done in
 * steps of a small budget: no step exceeds it, and the end state is the
 * one the switch done at once gives.
 */
static void test_reshape_steps(void **state)
{
	const uint32_t budget = 97, nlines = 4096;
	const uint32_t ways[] = { 0, 64, 1 };
	struct bfix *a, *b;
	unsigned int p, q, w, steps;
	uint64_t v0;
	bool done;

	(void)state;
	for (w = 0; w < 3; w++)
		for (p = 0; p < CXD_POLICY_NR; p++)
			for (q = 0; q < CXD_POLICY_NR; q++) {
				if (p == q)
					continue;
				a = busy_cache(p, nlines, ways[w]);
				b = busy_cache(p, nlines, ways[w]);
				assert_same(a, b);
				assert_int_equal(cxd_cache_set_policy(&a->c, q), 0);
				assert_false(cxd_cache_reshaping(&a->c));
				assert_int_equal(cxd_cache_set_policy_begin(&b->c, q), 0);
				assert_true(cxd_cache_reshaping(&b->c));
				/* one reshape at a time */
				assert_int_equal(cxd_cache_set_policy_begin(&b->c, p), -1);
				assert_int_equal(cxd_cache_set_cflru_window_begin(&b->c, 50), -1);
				steps = 0;
				do {
					v0 = b->c.visits;
					done = cxd_cache_reshape_step(&b->c, budget);
					assert_true(b->c.visits - v0 <= budget);
					steps++;
				} while (!done);
				assert_true(steps > nlines / budget);
				assert_int_equal(b->c.policy, q);
				assert_same(a, b);
				bfree(a);
				bfree(b);
			}
}

static void test_window_steps(void **state)
{
	struct bfix *a = busy_cache(CXD_POLICY_CFLRU, 4096, 0);
	struct bfix *b = busy_cache(CXD_POLICY_CFLRU, 4096, 0);
	uint64_t v0;
	bool done;

	(void)state;
	assert_int_equal(cxd_cache_set_cflru_window(&a->c, 80), 0);
	assert_int_equal(cxd_cache_set_cflru_window_begin(&b->c, 80), 0);
	do {
		v0 = b->c.visits;
		done = cxd_cache_reshape_step(&b->c, 1);
		assert_true(b->c.visits - v0 <= 1);
	} while (!done);
	assert_int_equal(b->c.cflru_window, 4096 * 80 / 100);
	assert_same(a, b);
	/* nothing to do: nothing begun */
	assert_int_equal(cxd_cache_set_cflru_window_begin(&b->c, 80), 0);
	assert_false(cxd_cache_reshaping(&b->c));
	assert_int_equal(cxd_cache_set_policy_begin(&b->c, CXD_POLICY_CFLRU), 0);
	assert_false(cxd_cache_reshaping(&b->c));
	assert_true(cxd_cache_reshape_step(&b->c, 1));
	bfree(a);
	bfree(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_sweep_bounded),
		cmocka_unit_test(test_clock_exact_below_bound),
		cmocka_unit_test(test_s3fifo_sweep_bounded),
		cmocka_unit_test(test_s3fifo_exact_below_bound),
		cmocka_unit_test(test_reshape_steps),
		cmocka_unit_test(test_window_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
