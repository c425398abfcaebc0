// SPDX-License-Identifier: GPL-2.0
/*
 * The learned prefetchers through the whole model: Best-Offset settles on a
 * stream's stride in its documented number of rounds, Leap follows a stride
 * change within its first trend window, FDP lowers its level on a random
 * stream and raises it on a sequential one.
 */
#include "cxd_test.h"
/* the learned prefetchers' steps, private to the model */

struct lp_fix {
	struct cxd_model m;
	void *mem;
	uint64_t now;
	struct cxd_access r;
};

static struct lp_fix *lp_new(uint64_t npages, uint32_t nlines,
			     enum cxd_prefetch_mode mode, uint32_t degree)
{
	struct cxd_model_cfg cfg = {
		.npages = npages,
		.nlines = nlines,
		.policy = CXD_POLICY_LRU,
		.nand = default_cfg(),
	};
	struct lp_fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->mem = junk_alloc(cxd_model_cfg_state_size(&cfg));
	assert_int_equal(cxd_model_init_cfg(&f->m, &cfg, f->mem), 0);
	f->m.prefetch = mode;
	f->m.prefetch_degree = degree;
	return f;
}

static void lp_free(struct lp_fix *f)
{
	free(f->mem);
	free(f);
}

/* One read of @page; the next arrives when it completed (serial clock). */
static void rd(struct lp_fix *f, uint64_t page)
{
	cxd_model_access(&f->m, page, 0, f->now, &f->r);
	f->now = f->r.done_ns;
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(cxd_prefetch_name(CXD_PF_BOP), "bop");
	assert_string_equal(cxd_prefetch_name(CXD_PF_LEAP), "leap");
	assert_string_equal(cxd_prefetch_name(CXD_PF_FDP), "fdp");
	assert_int_equal(cxd_prefetch_parse("bop"), CXD_PF_BOP);
	assert_int_equal(cxd_prefetch_parse("leap"), CXD_PF_LEAP);
	assert_int_equal(cxd_prefetch_parse("fdp"), CXD_PF_FDP);
}

/*
 * Stride k: at the test of offset k in round r, page - k is the previous
 * access, so k scores in every round. Its multiples score as often but come
 * later in the list; any other offset never scores. So the phase ends when
 * k reaches SCORE_MAX (31): at its test in round 31, access number
 * 30 * 52 + index(k) + 1. Until then BOP prefetches at offset 1. (k = 1 is
 * tested first, on the stream's first page, which has no predecessor: it
 * scores from round 2 and wins at its test in round 32.)
 */
static void bop_stride(unsigned int k, unsigned int idx, unsigned int degree)
{
	struct lp_fix *f = lp_new(1u << 20, 4096, CXD_PF_BOP, degree);
	uint64_t rounds = k == 1 ? 31 : 30, i, j, useful;
	uint64_t n = rounds * CXD_BOP_OFFSETS + idx + 1;

	assert_int_equal(f->m.priv->pf.bop.offset, 1);
	for (i = 0; i + 1 < n; i++)
		rd(f, i * k);
	assert_int_equal(f->m.priv->pf.bop.phases, 0);
	assert_int_equal(f->m.priv->pf.bop.round, rounds);
	assert_int_equal(f->m.priv->pf.bop.offset, 1);
	rd(f, i * k);
	assert_int_equal(f->m.priv->pf.bop.phases, 1);
	assert_int_equal(f->m.priv->pf.bop.offset, k);
	/*
	 * the access that ended the phase prefetched the next @degree pages
	 * of the stream (offset 1 before never reached them: k > degree or
	 * k = 1)
	 */
	assert_int_equal(f->r.nprefetched, degree);
	for (j = 0; j < degree; j++)
		assert_int_equal(f->r.prefetched[j], (i + 1 + j) * k);
	/* from now on every access is a prefetch hit */
	useful = f->m.stats.prefetch_useful;
	for (i = n; i < n + 200; i++) {
		rd(f, i * k);
		assert_true(f->r.hit);
		assert_true(f->r.prefetch_hit);
	}
	assert_int_equal(f->m.stats.prefetch_useful, useful + 200);
	/*
	 * The next phase starts from zero scores: it cannot end before k's
	 * 31st test, 30 rounds on.
	 */
	assert_int_equal(f->m.priv->pf.bop.phases, 1);
	assert_int_equal(f->m.priv->pf.bop.offset, k);
	lp_free(f);
}

/* The parameters: checked ranges, and each one acting. */
static void test_params(void **state)
{
	struct cxd_pf_params p;
	struct lp_fix *f;
	unsigned int i;

	(void)state;
	cxd_pf_params_default(&p);
	assert_null(cxd_pf_params_check(&p));
	assert_int_equal(p.bop_score_max, 31);
	assert_int_equal(p.bop_round_max, 100);
	assert_int_equal(p.bop_bad_score, 1);
	assert_int_equal(p.leap_window_max, 8);
	assert_int_equal(p.fdp_acc_high, 750);
	p.bop_bad_score = 31;
	assert_non_null(cxd_pf_params_check(&p));
	p.bop_bad_score = 1;
	p.bop_score_max = 256;
	assert_non_null(cxd_pf_params_check(&p));
	p.bop_score_max = 31;
	p.leap_split = 0;
	assert_non_null(cxd_pf_params_check(&p));
	p.leap_split = 8;
	p.leap_window_max = 17;
	assert_non_null(cxd_pf_params_check(&p));
	p.leap_window_max = 8;
	p.fdp_acc_low = 750;
	assert_non_null(cxd_pf_params_check(&p));
	p.fdp_acc_low = 400;
	p.fdp_poll = 1001;
	assert_non_null(cxd_pf_params_check(&p));

	/* SCORE_MAX 10: stride 3 settles at its test in round 10 */
	f = lp_new(1u << 20, 4096, CXD_PF_BOP, 1);
	f->m.pf.bop_score_max = 10;
	for (i = 0; i < 9 * CXD_BOP_OFFSETS + 2; i++)
		rd(f, i * 3);
	assert_int_equal(f->m.priv->pf.bop.phases, 0);
	rd(f, i * 3);
	assert_int_equal(f->m.priv->pf.bop.phases, 1);
	assert_int_equal(f->m.priv->pf.bop.offset, 3);
	lp_free(f);

	/* Leap's window stops at leap_window_max */
	f = lp_new(1u << 20, 4096, CXD_PF_LEAP, 1);
	f->m.pf.leap_window_max = 4;
	for (i = 0; i < 100; i++) {
		rd(f, 1000 + i);
		assert_true(f->r.nprefetched <= 4);
	}
	assert_int_equal(f->m.priv->pf.leap.pw, 4);
	lp_free(f);

	/* FDP: with lateness never "late", a sequential stream stays at 3 */
	f = lp_new(1u << 20, 1024, CXD_PF_FDP, 1);
	f->m.pf.fdp_late = 1000;
	f->m.pf.fdp_interval = 100;
	for (i = 0; i < 40000; i++)
		rd(f, i);
	assert_true(f->m.priv->pf.fdp.intervals > 300);
	assert_int_equal(f->m.priv->pf.fdp.level, 3);
	lp_free(f);
}

static void test_bop_settles_on_stride(void **state)
{
	(void)state;
	bop_stride(1, 0, 1);
	bop_stride(3, 2, 1);
	bop_stride(5, 4, 1);
	bop_stride(12, 9, 1);
	bop_stride(64, 26, 1);
	bop_stride(5, 4, 4);		/* prefetch_degree pages per trigger */
}

/*
 * A phase ended by ROUND_MAX: stride 3, two rounds. Every multiple of 3 in
 * the list whose page - d exists scores in both rounds, so 3 ties with
 * 6, 9, 12 ...: the tie goes to the smaller offset, 3. Its score, 2, is
 * above BAD_SCORE 1; with BAD_SCORE 2 the same phase turns BOP off.
 */
static void test_bop_round_max_ties(void **state)
{
	unsigned int bad, i;
	struct lp_fix *f;

	(void)state;
	for (bad = 1; bad <= 2; bad++) {
		f = lp_new(1u << 20, 4096, CXD_PF_BOP, 1);
		f->m.pf.bop_round_max = 2;
		f->m.pf.bop_bad_score = bad;
		for (i = 0; i + 1 < 2 * CXD_BOP_OFFSETS; i++)
			rd(f, i * 3);
		assert_int_equal(f->m.priv->pf.bop.phases, 0);
		assert_int_equal(f->m.priv->pf.bop.score[2], 2);	/* offset 3 */
		assert_int_equal(f->m.priv->pf.bop.score[5], 2);	/* offset 9 */
		rd(f, i * 3);
		assert_int_equal(f->m.priv->pf.bop.phases, 1);
		assert_int_equal(f->m.priv->pf.bop.offset, bad == 1 ? 3 : 0);
		lp_free(f);
	}
}

/*
 * Random pages: no offset scores above BAD_SCORE; the phase runs its
 * ROUND_MAX rounds (one per 52 triggers) and BOP turns itself off.
 */
static void test_bop_random_turns_off(void **state)
{
	struct lp_fix *f = lp_new(1u << 20, 256, CXD_PF_BOP, 1);
	uint64_t x = 3;
	unsigned int i;

	(void)state;
	for (i = 0; i < 2 * CXD_BOP_ROUND_MAX * CXD_BOP_OFFSETS &&
	     !f->m.priv->pf.bop.phases; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		rd(f, (x >> 30) % (1u << 20));
	}
	/* exactly ROUND_MAX rounds of triggers (misses and first uses) */
	assert_int_equal(f->m.stats.misses + f->m.stats.prefetch_useful,
			 CXD_BOP_ROUND_MAX * CXD_BOP_OFFSETS);
	assert_int_equal(f->m.priv->pf.bop.phases, 1);
	assert_int_equal(f->m.priv->pf.bop.offset, 0);
	x = f->m.stats.prefetch_issued;
	rd(f, 12345);
	assert_int_equal(f->m.stats.prefetch_issued, x);
	lp_free(f);
}

/*
 * Leap: stride 2, then stride 37. The first trend window holds the last 4
 * deltas; a strict majority there needs 3 of them, so the trend stays 2
 * for the first two deltas of 37 (the 8-delta window still votes 2) and is
 * 37 from the third: within the window's length.
 */
static void test_leap_follows_stride_change(void **state)
{
	struct lp_fix *f = lp_new(1u << 20, 4096, CXD_PF_LEAP, 1);
	uint64_t page = 1000;
	unsigned int i;

	(void)state;
	for (i = 0; i < 40; i++, page += 2)
		rd(f, page);
	page -= 2;
	assert_int_equal(f->m.priv->pf.leap.trend, 2);
	/* sequential hits grew the window to its maximum */
	assert_int_equal(f->m.priv->pf.leap.pw, CXD_LEAP_PW_MAX);
	assert_true(f->m.stats.prefetch_useful > 30);

	for (i = 1; i <= 3; i++) {
		page += 37;
		rd(f, page);
		assert_false(f->r.hit);
		if (i < 3) {
			assert_int_equal(f->m.priv->pf.leap.trend, 2);
			if (f->r.nprefetched)
				assert_int_equal(f->r.prefetched[0], page + 2);
		} else {
			assert_int_equal(f->m.priv->pf.leap.trend, 37);
			assert_true(f->r.nprefetched >= 1);
			assert_int_equal(f->r.prefetched[0], page + 37);
		}
	}
	/* the window shrank by halves: 8, 4, 2, then 1 following the trend */
	assert_int_equal(f->m.priv->pf.leap.pw, 1);
	/* and the new stride's next page was prefetched */
	rd(f, page + 37);
	assert_true(f->r.prefetch_hit);
	lp_free(f);
}

/*
 * Leap's window, decision by decision: with prefetch hits since the last
 * decision, the power of two at or above hits + 1 (at most 8); without,
 * 1 on the trend or 0 off it, but never below half the last window.
 */
static void test_leap_window(void **state)
{
	struct cxd_pf_params p;
	struct cxd_pf_leap l;
	int64_t d;

	(void)state;
	cxd_pf_params_default(&p);
	memset(&l, 0, sizeof(l));
	l.last = CXD_NO_PAGE;
	assert_int_equal(cxd_leap_decide(&l, &p, 100, true, &d), 0);
	assert_int_equal(d, 1);			/* no trend yet */
	l.hits = 2;
	assert_int_equal(cxd_leap_decide(&l, &p, 200, true, &d), 4);
	assert_int_equal(d, 100);
	l.hits = 4;
	assert_int_equal(cxd_leap_decide(&l, &p, 300, true, &d), 8);
	l.hits = 20;
	assert_int_equal(cxd_leap_decide(&l, &p, 400, true, &d), 8);	/* max */
	assert_int_equal(l.hits, 0);
	/* off the trend (100): 0, held at half the last window */
	assert_int_equal(cxd_leap_decide(&l, &p, 1000, true, &d), 4);
	assert_int_equal(d, 100);
	/* on the trend: 1, held at 2 */
	assert_int_equal(cxd_leap_decide(&l, &p, 1100, true, &d), 2);
	assert_int_equal(cxd_leap_decide(&l, &p, 1200, true, &d), 1);
	/* a prefetch hit enters the history but decides nothing */
	l.hits = 1;
	assert_int_equal(cxd_leap_decide(&l, &p, 1300, false, &d), 0);
	assert_int_equal(l.hits, 1);
	assert_int_equal(cxd_leap_decide(&l, &p, 1400, true, &d), 2);
}

/* No trend (random deltas) and no hits: Leap does not prefetch. */
static void test_leap_random_quiet(void **state)
{
	struct lp_fix *f = lp_new(1u << 20, 256, CXD_PF_LEAP, 1);
	uint64_t x = 5;
	unsigned int i;

	(void)state;
	for (i = 0; i < 2000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		rd(f, (x >> 30) % (1u << 20));
	}
	assert_true(f->m.stats.prefetch_issued < 20);
	lp_free(f);
}

static void test_fdp_sequential_raises(void **state)
{
	struct lp_fix *f = lp_new(1u << 20, 1024, CXD_PF_FDP, 1);
	unsigned int i;

	(void)state;
	assert_int_equal(f->m.priv->pf.fdp.level, 3);
	for (i = 0; i < 40000; i++)
		rd(f, i);
	print_message("fdp sequential: level %u after %u intervals, %llu issued, %llu useful, %llu late\n",
		      f->m.priv->pf.fdp.level, f->m.priv->pf.fdp.intervals,
		      (unsigned long long)f->m.stats.prefetch_issued,
		      (unsigned long long)f->m.stats.prefetch_useful,
		      (unsigned long long)f->m.stats.prefetch_late);
	assert_true(f->m.priv->pf.fdp.intervals > 10);
	assert_true(f->m.priv->pf.fdp.level > 3);
	lp_free(f);
}

static void test_fdp_random_lowers(void **state)
{
	struct lp_fix *f = lp_new(4096, 256, CXD_PF_FDP, 1);
	uint64_t x = 11;
	unsigned int i;

	(void)state;
	for (i = 0; i < 40000; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		rd(f, (x >> 30) % 4096);
	}
	print_message("fdp random: level %u after %u intervals, %llu issued, %llu useful\n",
		      f->m.priv->pf.fdp.level, f->m.priv->pf.fdp.intervals,
		      (unsigned long long)f->m.stats.prefetch_issued,
		      (unsigned long long)f->m.stats.prefetch_useful);
	assert_true(f->m.priv->pf.fdp.intervals > 10);
	assert_int_equal(f->m.priv->pf.fdp.level, 1);
	lp_free(f);
}

/*
 * One FDP interval from empty history: this interval's counts (the
 * smoothed values become half of them) at level @level; Return: the new
 * level. 1000 lines: an interval is 500 evictions.
 */
static uint32_t fdp_step(uint32_t level, uint64_t issued, uint64_t useful,
			 uint64_t late, uint64_t misses, uint64_t pollution)
{
	struct cxd_pf_params p;
	struct cxd_pf_fdp f;

	cxd_pf_params_default(&p);
	memset(&f, 0, sizeof(f));
	f.level = level;
	f.issued = issued;
	f.useful = useful;
	f.late = late;
	f.misses = misses;
	f.pollution = pollution;
	f.evictions = 500;
	cxd_fdp_interval(&f, &p, 1000);
	assert_int_equal(f.intervals, 1);
	return f.level;
}

/*
 * FDP's Table 2 row by row, with the thresholds' edges: accuracy high
 * above 75%, low at or below 40%; late above 1% of the useful
 * prefetches; polluting above 0.5% of the demand misses.
 */
static void test_fdp_table(void **state)
{
	struct cxd_pf_params p;
	struct cxd_pf_fdp f;

	(void)state;
	/* high accuracy: up if late, else stay */
	assert_int_equal(fdp_step(3, 1000, 800, 100, 1000, 100), 4);
	assert_int_equal(fdp_step(3, 1000, 800, 0, 1000, 100), 3);
	assert_int_equal(fdp_step(5, 1000, 800, 100, 1000, 0), 5);	/* top */
	assert_int_equal(fdp_step(4, 1000, 752, 100, 1000, 0), 5);	/* 75.2% */
	assert_int_equal(fdp_step(4, 1000, 750, 100, 1000, 0), 5);	/* 75%: medium, late */
	assert_int_equal(fdp_step(4, 1000, 750, 100, 1000, 100), 3);	/* medium */
	/* medium: down if polluting, else up if late, else stay */
	assert_int_equal(fdp_step(3, 1000, 600, 100, 1000, 100), 2);
	assert_int_equal(fdp_step(3, 1000, 600, 100, 1000, 0), 4);
	assert_int_equal(fdp_step(3, 1000, 600, 0, 1000, 0), 3);
	assert_int_equal(fdp_step(3, 1000, 600, 6, 1000, 0), 3);	/* 1%: not late */
	assert_int_equal(fdp_step(3, 1000, 600, 8, 1000, 0), 4);	/* 1.3% */
	assert_int_equal(fdp_step(3, 1000, 600, 100, 1000, 4), 4);	/* 0.4%: clean */
	assert_int_equal(fdp_step(3, 1000, 600, 100, 1000, 6), 2);	/* 0.6% */
	/* low (40% counts as low): down if polluting or late, else stay */
	assert_int_equal(fdp_step(3, 1000, 400, 100, 1000, 0), 2);
	assert_int_equal(fdp_step(3, 1000, 200, 0, 1000, 100), 2);
	assert_int_equal(fdp_step(3, 1000, 200, 0, 1000, 0), 3);
	assert_int_equal(fdp_step(1, 1000, 200, 100, 1000, 100), 1);	/* bottom */

	/* 499 evictions: the interval goes on */
	cxd_pf_params_default(&p);
	memset(&f, 0, sizeof(f));
	f.level = 3;
	f.evictions = 499;
	f.issued = f.useful = f.late = 100;
	cxd_fdp_interval(&f, &p, 1000);
	assert_int_equal(f.intervals, 0);
	assert_int_equal(f.issued, 100);
	/*
	 * Two intervals: the counters are halved each time, so the second
	 * one's accuracy is (500 + 600) / 2 over (500 + 1000) / 2 = 73%:
	 * medium, polluting: down (80%, this interval alone, would be high).
	 */
	f.evictions = 500;
	f.issued = f.useful = 1000;
	f.late = 0;
	f.misses = 1000;
	cxd_fdp_interval(&f, &p, 1000);
	assert_int_equal(f.level, 3);
	assert_int_equal(f.d_issued, 500);
	assert_int_equal(f.d_useful, 500);
	assert_int_equal(f.d_misses, 500);
	assert_int_equal(f.evictions, 0);
	assert_int_equal(f.issued, 0);
	f.evictions = 500;
	f.issued = 1000;
	f.useful = 600;
	f.late = 100;
	f.misses = 1000;
	f.pollution = 100;
	cxd_fdp_interval(&f, &p, 1000);
	assert_int_equal(f.d_useful, 550);
	assert_int_equal(f.d_issued, 750);
	assert_int_equal(f.intervals, 2);
	assert_int_equal(f.level, 2);
}

/*
 * The pollution filter: a demand miss of a page a prefetch evicted counts
 * once; the page is back, so its next miss is not pollution.
 */
static void test_fdp_filter(void **state)
{
	struct cxd_pf_fdp f;

	(void)state;
	memset(&f, 0, sizeof(f));
	cxd_fdp_demand_miss(&f, 77);
	assert_int_equal(f.misses, 1);
	assert_int_equal(f.pollution, 0);
	cxd_fdp_prefetch_evicted(&f, 77);
	cxd_fdp_demand_miss(&f, 77);
	assert_int_equal(f.pollution, 1);
	cxd_fdp_demand_miss(&f, 77);
	assert_int_equal(f.misses, 3);
	assert_int_equal(f.pollution, 1);
}

/*
 * FDP's prefetches at a trigger: the level's degree pages ending its
 * distance strides ahead (level 3: distance 16, degree 2; level 5: 64
 * and 4). A first access has no stride: 1.
 */
static void test_fdp_distance(void **state)
{
	struct lp_fix *f = lp_new(1u << 20, 4096, CXD_PF_FDP, 1);

	(void)state;
	rd(f, 1000);
	assert_int_equal(f->r.nprefetched, 2);
	assert_int_equal(f->r.prefetched[0], 1015);
	assert_int_equal(f->r.prefetched[1], 1016);
	f->m.priv->pf.fdp.level = 5;
	rd(f, 5000);
	assert_int_equal(f->r.nprefetched, 4);
	assert_int_equal(f->r.prefetched[0], 5061);
	assert_int_equal(f->r.prefetched[3], 5064);
	lp_free(f);
}

/* Learned state is reset with the model; victims and counters stay sane. */
static void test_counters_consistent(void **state)
{
	static const enum cxd_prefetch_mode modes[] = {
		CXD_PF_BOP, CXD_PF_LEAP, CXD_PF_FDP,
	};
	uint64_t x = 1, p;
	unsigned int k, i;
	struct lp_fix *f;

	(void)state;
	for (k = 0; k < 3; k++) {
		f = lp_new(8192, 128, modes[k], 4);
		for (i = 0; i < 30000; i++) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			p = (x >> 40) % 4 ? (i * 3) % 8192 : (x >> 20) % 8192;
			rd(f, p);
			assert_true(f->r.nvictims <= CXD_MAX_VICTIMS);
			assert_true(f->m.cache.used <= 128);
		}
		assert_true(f->m.stats.prefetch_issued > 0);
		assert_true(f->m.stats.prefetch_useful <= f->m.stats.prefetch_issued);
		assert_true(f->m.stats.prefetch_late <= f->m.stats.prefetch_useful);
		assert_true(f->m.stats.prefetch_polluting +
			    f->m.stats.prefetch_useful <= f->m.stats.prefetch_issued);
		lp_free(f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_params),
		cmocka_unit_test(test_bop_settles_on_stride),
		cmocka_unit_test(test_bop_random_turns_off),
		cmocka_unit_test(test_bop_round_max_ties),
		cmocka_unit_test(test_leap_follows_stride_change),
		cmocka_unit_test(test_leap_random_quiet),
		cmocka_unit_test(test_leap_window),
		cmocka_unit_test(test_fdp_sequential_raises),
		cmocka_unit_test(test_fdp_random_lowers),
		cmocka_unit_test(test_fdp_table),
		cmocka_unit_test(test_fdp_filter),
		cmocka_unit_test(test_fdp_distance),
		cmocka_unit_test(test_counters_consistent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
