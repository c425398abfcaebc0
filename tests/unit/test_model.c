// SPDX-License-Identifier: GPL-2.0
/*
 * The whole model: state layout, hits, misses, dirty evictions, counters.
 */
#include "cxd_test.h"

struct model_fix {
	struct cxd_model m;
	void *mem;
};

static struct model_fix *model_new(uint64_t npages, uint32_t nlines,
				   const struct cxd_nand_cfg *cfg)
{
	struct model_fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	memset(&f->m, 0x5a, sizeof(f->m));
	f->mem = junk_alloc(fa_state_size(npages, nlines, cfg));
	assert_int_equal(fa_init(&f->m, npages, nlines, cfg,
					CXD_POLICY_FIFO, f->mem), 0);
	return f;
}

static struct model_fix *model_new_cfg(const struct cxd_model_cfg *cfg);

static void model_free(struct model_fix *f)
{
	free(f->mem);
	free(f);
}

static void test_state_size(void **state)
{
	struct cxd_nand_cfg c = default_cfg();

	(void)state;
	/*
	 * cache + NAND + written bitmap (10 bits, padded to 8 bytes) + the
	 * model's private state
	 */
	assert_int_equal(fa_state_size(10, 3, &c),
			 cxd_cache_state_size_ways(10, 3, 0) +
			 cxd_nand_state_size(&c) + 8 + PRIV_BYTES);
	assert_int_equal(fa_state_size(10, 3, &c),
			 192 + 72 * 8 + 8 + PRIV_BYTES);
	assert_int_equal(fa_state_size(10, 0, &c), 0);
	assert_int_equal(fa_state_size(10, 11, &c), 0);
	assert_int_equal(fa_state_size(10, 3, NULL), 0);
	c.channels = 0;
	assert_int_equal(fa_state_size(10, 3, &c), 0);
}

static void test_init(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct model_fix *f;
	struct cxd_model m;
	uint64_t mem[256];
	unsigned int i;

	(void)state;
	assert_int_equal(fa_init(&m, 10, 0, &c, CXD_POLICY_FIFO, mem),
			 -1);
	assert_int_equal(fa_init(&m, 10, 3, &c, CXD_POLICY_NR, mem), -1);
	assert_int_equal(fa_init(&m, 10, 3, NULL, CXD_POLICY_FIFO, mem),
			 -1);
	c.nand_page_size = 3000;
	assert_int_equal(fa_init(&m, 10, 3, &c, CXD_POLICY_FIFO, mem),
			 -1);

	c = default_cfg();
	f = model_new(16384, 2048, &c);
	assert_int_equal(f->m.stats.misses, 0);
	assert_int_equal(f->m.stats.hits, 0);
	assert_int_equal(f->m.stats.evictions, 0);
	assert_int_equal(f->m.stats.dirty_evictions, 0);
	assert_int_equal(f->m.stats.writebacks, 0);
	assert_int_equal(f->m.stats.model_miss_ns, 0);
	assert_int_equal(f->m.cache.used, 0);
	assert_int_equal(f->m.cache.nlines, 2048);
	assert_int_equal(f->m.nand.cfg.channels, 8);
	for (i = 0; i < 32; i++)
		assert_int_equal(f->m.nand.die_busy[i], 0);
	/* every array is 8-byte aligned and inside the buffer */
	assert_int_equal((uintptr_t)f->m.cache.lines % 8, 0);
	assert_int_equal((uintptr_t)f->m.cache.ghost % 8, 0);
	assert_int_equal((uintptr_t)f->m.cache.sets % 8, 0);
	assert_int_equal((uintptr_t)f->m.nand.die_free % 8, 0);
	assert_true((char *)(f->m.nand.die_busy + 32) <=
		    (char *)f->mem + fa_state_size(16384, 2048, &c));
	assert_true((char *)f->m.nand.die_free >=
		    (char *)f->mem + cxd_cache_state_size_ways(16384, 2048, 0));
	model_free(f);
}

static void test_miss_then_hit(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct model_fix *f = model_new(1024, 16, &c);
	struct cxd_access r;

	(void)state;
	cxd_model_access(&f->m, 9, 0, 1000, &r);
	assert_false(r.hit);
	assert_int_equal(acc_victim(&r), CXD_NO_PAGE);
	assert_false(acc_victim_dirty(&r));
	assert_int_equal(r.done_ns, 1000 + T_R + XFER_4K);
	assert_int_equal(r.read.channel, 1);
	assert_int_equal(r.read.die, 1);
	assert_int_equal(r.read.start_ns, 1000);
	assert_int_equal(r.read.done_ns, r.done_ns);
	assert_int_equal(f->m.stats.misses, 1);
	assert_int_equal(f->m.stats.model_miss_ns, T_R + XFER_4K);
	assert_false(cxd_cache_dirty(&f->m.cache, 9));

	cxd_model_access(&f->m, 9, 0, 2000, &r);
	assert_true(r.hit);
	assert_int_equal(r.done_ns, 2000);
	assert_int_equal(acc_victim(&r), CXD_NO_PAGE);
	assert_int_equal(f->m.stats.hits, 1);
	assert_int_equal(f->m.stats.misses, 1);
	assert_int_equal(f->m.stats.model_miss_ns, T_R + XFER_4K);
	assert_false(cxd_cache_dirty(&f->m.cache, 9));

	/* a write hit marks the line dirty */
	cxd_model_access(&f->m, 9, CXD_ACC_WRITE, 3000, &r);
	assert_true(r.hit);
	assert_true(cxd_cache_dirty(&f->m.cache, 9));
	assert_int_equal(f->m.stats.hits, 2);

	/* a write miss inserts dirty */
	cxd_model_access(&f->m, 10, CXD_ACC_WRITE, 4000, &r);
	assert_false(r.hit);
	assert_true(cxd_cache_dirty(&f->m.cache, 10));
	assert_int_equal(f->m.stats.misses, 2);
	assert_int_equal(f->m.nand.die_busy[1 * 4 + 1], T_R);
	assert_int_equal(f->m.nand.die_busy[2 * 4 + 1], T_R);
	model_free(f);
}

static void test_dirty_eviction(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct model_fix *f = model_new(1024, 1, &c);
	struct cxd_access r;
	const uint64_t t = 1000000;

	(void)state;
	cxd_model_access(&f->m, 0, CXD_ACC_WRITE, 0, &r);
	assert_int_equal(r.done_ns, T_R + XFER_4K);

	/*
	 * Page 32 is on channel 0 die 0 like page 0: the write-back transfer
	 * runs [t, t + xfer), tPROG [t + xfer, t + xfer + tPROG), then the
	 * read's tR and transfer.
	 */
	cxd_model_access(&f->m, 32, 0, t, &r);
	assert_false(r.hit);
	assert_int_equal(acc_victim(&r), 0);
	assert_true(acc_victim_dirty(&r));
	assert_int_equal(r.read.channel, 0);
	assert_int_equal(r.read.die, 0);
	assert_int_equal(r.read.start_ns, t + XFER_4K + T_PROG);
	assert_int_equal(r.done_ns, t + XFER_4K + T_PROG + T_R + XFER_4K);
	assert_int_equal(f->m.stats.misses, 2);
	assert_int_equal(f->m.stats.evictions, 1);
	assert_int_equal(f->m.stats.dirty_evictions, 1);
	assert_int_equal(f->m.stats.writebacks, 1);
	assert_int_equal(f->m.stats.model_miss_ns,
			 (T_R + XFER_4K) + (XFER_4K + T_PROG + T_R + XFER_4K));
	assert_int_equal(f->m.nand.die_busy[0], 2 * T_R + T_PROG);
	assert_false(cxd_cache_resident(&f->m.cache, 0));
	assert_false(cxd_cache_dirty(&f->m.cache, 32));

	/* clean victim: no write-back; page 1 is on channel 1 */
	cxd_model_access(&f->m, 1, 0, 2 * t, &r);
	assert_int_equal(acc_victim(&r), 32);
	assert_false(acc_victim_dirty(&r));
	assert_int_equal(r.done_ns, 2 * t + T_R + XFER_4K);
	assert_int_equal(f->m.stats.evictions, 2);
	assert_int_equal(f->m.stats.dirty_evictions, 1);
	assert_int_equal(f->m.stats.writebacks, 1);

	/* dirty victim on another channel does not delay the read */
	cxd_model_access(&f->m, 1, CXD_ACC_WRITE, 3 * t, &r);
	assert_true(r.hit);
	cxd_model_access(&f->m, 2, 0, 4 * t, &r);
	assert_int_equal(acc_victim(&r), 1);
	assert_true(acc_victim_dirty(&r));
	assert_int_equal(r.done_ns, 4 * t + T_R + XFER_4K);
	assert_int_equal(f->m.nand.die_busy[1 * 4], T_R + T_PROG);
	assert_int_equal(f->m.stats.writebacks, 2);
	model_free(f);
}

static void test_reset_stats(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct model_fix *f = model_new(64, 4, &c);
	struct cxd_access r;
	uint64_t p;
	unsigned int i;

	(void)state;
	for (p = 0; p < 10; p++)
		cxd_model_access(&f->m, p, CXD_ACC_WRITE, p * 1000, &r);
	assert_int_equal(f->m.stats.misses, 10);
	assert_int_equal(f->m.stats.writebacks, 6);
	cxd_model_reset_stats(&f->m);
	assert_int_equal(f->m.stats.misses, 0);
	assert_int_equal(f->m.stats.hits, 0);
	assert_int_equal(f->m.stats.evictions, 0);
	assert_int_equal(f->m.stats.dirty_evictions, 0);
	assert_int_equal(f->m.stats.writebacks, 0);
	assert_int_equal(f->m.stats.model_miss_ns, 0);
	for (i = 0; i < 32; i++)
		assert_int_equal(f->m.nand.die_busy[i], 0);
	/* residency and dirty bits survive */
	assert_int_equal(f->m.cache.used, 4);
	for (p = 6; p < 10; p++)
		assert_true(cxd_cache_dirty(&f->m.cache, p));
	cxd_model_access(&f->m, 9, 0, 100000, &r);
	assert_true(r.hit);
	assert_int_equal(f->m.stats.hits, 1);
	model_free(f);
}

/*
 * A victim evicted clean whose write the exposure learns of at eviction
 * (node mode's dirty PTE): programmed to NAND, and recounted dirty only
 * while its eviction is in the current statistics.
 */
static void test_late_writeback(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct model_fix *f = model_new(1024, 1, &c);
	struct cxd_access r;
	const uint64_t t = 1000000;

	(void)state;
	cxd_model_access(&f->m, 0, 0, 0, &r);
	cxd_model_access(&f->m, 1, 0, t, &r);
	assert_int_equal(acc_victim(&r), 0);
	assert_false(acc_victim_dirty(&r));
	assert_int_equal(f->m.stats.clean_evictions, 1);
	cxd_model_late_writeback(&f->m, 0, 2 * t, true);
	assert_int_equal(f->m.stats.evictions, 1);
	assert_int_equal(f->m.stats.clean_evictions, 0);
	assert_int_equal(f->m.stats.dirty_evictions, 1);
	assert_int_equal(f->m.stats.writebacks, 1);
	assert_int_equal(f->m.nand.die_busy[0], T_R + T_PROG);

	/* evicted clean, then a reset, then the late write-back */
	cxd_model_access(&f->m, 2, 0, 3 * t, &r);
	assert_int_equal(acc_victim(&r), 1);
	cxd_model_reset_stats(&f->m);
	cxd_model_late_writeback(&f->m, 1, 4 * t, false);
	assert_int_equal(f->m.stats.evictions, 0);
	assert_int_equal(f->m.stats.clean_evictions, 0);
	assert_int_equal(f->m.stats.dirty_evictions, 0);
	assert_int_equal(f->m.stats.writebacks, 1);
	/* page 1 is on channel 1: its program occupies die 1 * 4 */
	assert_int_equal(f->m.nand.die_busy[1 * 4], T_PROG);
	model_free(f);
}

/*
 * cxd_model_flush(): a resident dirty line is programmed in place (tPROG on
 * its die after the transfer), counted as a write-back, and stays resident
 * and clean: its later eviction writes nothing. Anything else is a no-op.
 */
static void test_flush(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct model_fix *f = model_new(1024, 1, &c);
	struct cxd_access r;
	const uint64_t t = 1000000;

	(void)state;
	assert_int_equal(cxd_model_flush(&f->m, 0, 5), 5);	/* not resident */
	cxd_model_access(&f->m, 0, CXD_ACC_WRITE, 0, &r);
	assert_true(cxd_cache_dirty(&f->m.cache, 0));
	assert_int_equal(cxd_model_flush(&f->m, 0, t), t + XFER_4K + T_PROG);
	assert_int_equal(f->m.stats.writebacks, 1);
	assert_true(cxd_cache_resident(&f->m.cache, 0));
	assert_false(cxd_cache_dirty(&f->m.cache, 0));
	assert_int_equal(f->m.stats.evictions, 0);
	assert_int_equal(cxd_model_flush(&f->m, 0, 2 * t), 2 * t);	/* clean */
	assert_int_equal(f->m.stats.writebacks, 1);
	cxd_model_access(&f->m, 1, 0, 3 * t, &r);
	assert_int_equal(acc_victim(&r), 0);
	assert_false(acc_victim_dirty(&r));
	assert_int_equal(f->m.stats.clean_evictions, 1);
	assert_int_equal(f->m.stats.writebacks, 1);
	model_free(f);
}

/*
 * CFLRU: a dirty line of the window flushed in place joins the window's
 * clean side, which is evicted first.
 */
static void test_flush_cflru(void **state)
{
	struct cxd_model_cfg cfg = {
		.npages = 1024, .nlines = 4, .ways = 4,
		.policy = CXD_POLICY_CFLRU, .nand = default_cfg(),
	};
	struct model_fix *f = model_new_cfg(&cfg);
	struct cxd_access r;
	uint64_t p;

	(void)state;
	assert_int_equal(cxd_cache_set_cflru_window(&f->m.cache, 50), 0);
	/* 0 and 1 dirty, then 2 and 3 push them into the window (dirty side) */
	for (p = 0; p < 4; p++)
		cxd_model_access(&f->m, p, p < 2 ? CXD_ACC_WRITE : 0, p, &r);
	cxd_model_flush(&f->m, 1, 10);
	cxd_model_access(&f->m, 4, 0, 20, &r);
	assert_int_equal(acc_victim(&r), 1);	/* the clean side first */
	assert_false(acc_victim_dirty(&r));
	/* 4 pushed clean 2 into the window: clean lines still go first */
	cxd_model_access(&f->m, 5, 0, 30, &r);
	assert_int_equal(acc_victim(&r), 2);
	assert_true(cxd_cache_dirty(&f->m.cache, 0));
	assert_int_equal(f->m.stats.writebacks, 1);
	model_free(f);
}

static void test_out_of_range(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct model_fix *f = model_new(64, 4, &c);
	struct cxd_access r;

	(void)state;
	cxd_model_access(&f->m, 64, CXD_ACC_WRITE, 500, &r);
	assert_false(r.hit);
	assert_int_equal(acc_victim(&r), CXD_NO_PAGE);
	assert_int_equal(r.done_ns, 500);
	assert_int_equal(f->m.stats.misses, 0);
	assert_int_equal(f->m.stats.hits, 0);
	assert_int_equal(f->m.cache.used, 0);
	assert_int_equal(f->m.nand.die_busy[0], 0);
	model_free(f);
}

/* Misses of many pages at once queue on dies and channels. */
static void test_burst(void **state)
{
	struct cxd_nand_cfg c = test_cfg(1, 1, 4096);
	struct model_fix *f = model_new(64, 64, &c);
	struct cxd_access r;
	uint64_t p;

	(void)state;
	/* one die, tR < xfer: completions every xfer after the first */
	for (p = 0; p < 8; p++) {
		cxd_model_access(&f->m, p, 0, 0, &r);
		assert_int_equal(r.done_ns, T_R + (p + 1) * XFER_4K);
		assert_int_equal(r.read.start_ns, p * T_R);
	}
	assert_int_equal(f->m.stats.model_miss_ns,
			 8 * T_R + 36 * XFER_4K);
	model_free(f);
}

static struct model_fix *model_new_cfg(const struct cxd_model_cfg *cfg)
{
	struct model_fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->mem = junk_alloc(cxd_model_cfg_state_size(cfg));
	assert_int_equal(cxd_model_init_cfg(&f->m, cfg, f->mem), 0);
	return f;
}

static void test_init_cfg(void **state)
{
	struct cxd_model_cfg cfg = {
		.npages = 1024, .nlines = 64, .ways = 4,
		.policy = CXD_POLICY_LRU, .nand = default_cfg(),
	};
	struct model_fix *f;
	struct cxd_model m;
	uint64_t mem[64];

	(void)state;
	assert_int_equal(cxd_model_cfg_state_size(&cfg),
			 cxd_cache_state_size_ways(1024, 64, 4) +
			 cxd_nand_state_size(&cfg.nand) + 128 + PRIV_BYTES);
	assert_int_equal(cxd_model_cfg_state_size(NULL), 0);
	f = model_new_cfg(&cfg);
	assert_int_equal(f->m.cache.nsets, 16);
	assert_int_equal(f->m.cache.policy, CXD_POLICY_LRU);
	assert_int_equal(f->m.prefetch, CXD_PF_NONE);
	assert_int_equal(f->m.write_alloc, CXD_WA_FETCH);
	assert_false(f->m.skip_unwritten);
	model_free(f);
	cfg.ways = 5;
	assert_int_equal(cxd_model_cfg_state_size(&cfg), 0);
	cfg.ways = 4;
	cfg.policy = CXD_POLICY_NR;
	assert_int_equal(cxd_model_init_cfg(&m, &cfg, mem), -1);
}

/* write_alloc: a write miss without a NAND read. */
static void test_write_alloc(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct model_fix *f = model_new(1024, 16, &c);
	struct cxd_access r;

	(void)state;
	f->m.write_alloc = CXD_WA_NOFETCH;
	cxd_model_access(&f->m, 3, CXD_ACC_WRITE, 500, &r);
	assert_false(r.hit);
	assert_int_equal(r.done_ns, 500);
	assert_true(cxd_cache_dirty(&f->m.cache, 3));
	assert_int_equal(f->m.nand.die_busy[3 * 4], 0);
	assert_int_equal(f->m.stats.write_misses, 1);
	assert_int_equal(f->m.stats.write_allocs, 1);
	assert_int_equal(f->m.stats.misses, 1);
	/* reads still fetch */
	cxd_model_access(&f->m, 4, 0, 500, &r);
	assert_int_equal(r.done_ns, 500 + T_R + XFER_4K);
	assert_int_equal(f->m.stats.read_misses, 1);
	/* back to fetch-on-write */
	f->m.write_alloc = CXD_WA_FETCH;
	cxd_model_access(&f->m, 5, CXD_ACC_WRITE, 500, &r);
	assert_int_equal(r.done_ns, 500 + T_R + XFER_4K);
	assert_int_equal(f->m.stats.write_misses, 2);
	assert_int_equal(f->m.stats.write_allocs, 1);
	model_free(f);
}

/* The access says how each miss was served; hits and busy misses: none. */
static void test_miss_reason(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct model_fix *f = model_new(1024, 16, &c);
	struct cxd_access r;

	(void)state;
	cxd_model_access(&f->m, 1, 0, 0, &r);
	assert_int_equal(r.miss, CXD_MR_READ);
	cxd_model_access(&f->m, 2, CXD_ACC_WRITE, 0, &r);
	assert_int_equal(r.miss, CXD_MR_WRITE);
	cxd_model_access(&f->m, 2, 0, 0, &r);
	assert_true(r.hit);
	assert_int_equal(r.miss, CXD_MR_NONE);
	f->m.write_alloc = CXD_WA_NOFETCH;
	cxd_model_access(&f->m, 3, CXD_ACC_WRITE, 0, &r);
	assert_int_equal(r.miss, CXD_MR_WRITE_ALLOC);
	/* nofetch leaves reads alone */
	cxd_model_access(&f->m, 4, 0, 0, &r);
	assert_int_equal(r.miss, CXD_MR_READ);
	f->m.write_alloc = CXD_WA_FETCH;
	f->m.skip_unwritten = true;
	cxd_model_access(&f->m, 5, 0, 0, &r);
	assert_int_equal(r.miss, CXD_MR_UNWRITTEN);
	assert_int_equal(r.done_ns, 0);
	cxd_model_access(&f->m, 6, CXD_ACC_WRITE, 0, &r);
	assert_int_equal(r.miss, CXD_MR_UNWRITTEN);
	/* out of range: no miss */
	cxd_model_access(&f->m, 1024, 0, 0, &r);
	assert_int_equal(r.miss, CXD_MR_NONE);
	model_free(f);
}

/* skip_unwritten: pages never written back cost no tR. */
static void test_skip_unwritten(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct model_fix *f = model_new(1024, 1, &c);
	struct cxd_access r;
	const uint64_t t = 1000000;

	(void)state;
	f->m.skip_unwritten = true;
	cxd_model_access(&f->m, 7, CXD_ACC_WRITE, 0, &r);
	assert_int_equal(r.done_ns, 0);
	assert_int_equal(f->m.stats.unwritten_skips, 1);
	/* evicting dirty 7 programs it: now it is written */
	cxd_model_access(&f->m, 8, 0, t, &r);
	assert_int_equal(acc_victim(&r), 7);
	assert_true(acc_victim_dirty(&r));
	assert_int_equal(r.done_ns, t);
	cxd_model_access(&f->m, 7, 0, 2 * t, &r);
	assert_int_equal(r.done_ns, 2 * t + T_R + XFER_4K);
	assert_int_equal(f->m.stats.unwritten_skips, 2);
	/* off: every read pays */
	f->m.skip_unwritten = false;
	cxd_model_access(&f->m, 9, 0, 3 * t, &r);
	assert_int_equal(r.done_ns, 3 * t + T_R + XFER_4K);
	model_free(f);
}

/* Histograms of miss latency and queueing delay; reset clears them. */
static void test_histograms(void **state)
{
	struct cxd_nand_cfg c = test_cfg(1, 1, 4096);
	struct model_fix *f = model_new(64, 64, &c);
	struct cxd_access r;
	uint64_t p, sum = 0;
	unsigned int i;

	(void)state;
	for (p = 0; p < 4; p++)
		cxd_model_access(&f->m, p, 0, 0, &r);
	/* misses end at T_R + k * XFER: 6414, 9828, 13242, 16656 ns */
	assert_int_equal(f->m.stats.miss_hist.count[cxd_hist_bucket(6414)], 1);
	assert_int_equal(f->m.stats.miss_hist.count[cxd_hist_bucket(9828)], 2);
	assert_int_equal(f->m.stats.miss_hist.count[cxd_hist_bucket(16656)], 1);
	/* queueing: 0, 3000, 6000, 9000 */
	assert_int_equal(f->m.stats.queue_hist.count[0], 1);
	assert_int_equal(f->m.stats.queue_hist.count[cxd_hist_bucket(3000)], 1);
	assert_int_equal(f->m.stats.queue_hist.count[cxd_hist_bucket(6000)], 1);
	assert_int_equal(f->m.stats.queue_hist.count[cxd_hist_bucket(9000)], 1);
	assert_int_equal(f->m.stats.queue_ns, 18000);
	for (i = 0; i < CXD_HIST_BUCKETS; i++)
		sum += f->m.stats.miss_hist.count[i];
	assert_int_equal(sum, 4);
	f->m.nand.erases = 5;
	cxd_model_reset_stats(&f->m);
	for (i = 0; i < CXD_HIST_BUCKETS; i++) {
		assert_int_equal(f->m.stats.miss_hist.count[i], 0);
		assert_int_equal(f->m.stats.queue_hist.count[i], 0);
	}
	assert_int_equal(f->m.stats.queue_ns, 0);
	assert_int_equal(f->m.nand.erases, 0);
	model_free(f);
}

/* The histograms take latencies (done or start - arrival), not times. */
static void test_histograms_later(void **state)
{
	struct cxd_nand_cfg c = test_cfg(1, 1, 4096);
	struct model_fix *f = model_new(64, 64, &c);
	const uint64_t t = 1ull << 33;	/* past the last bucket's bound */
	struct cxd_access r;

	(void)state;
	cxd_model_access(&f->m, 0, 0, t, &r);
	cxd_model_access(&f->m, 1, 0, t, &r);
	/* latencies 6414 and 9828 ns (buckets 3, 4), queueing 0 and 3000 */
	assert_int_equal(f->m.stats.miss_hist.count[3], 1);
	assert_int_equal(f->m.stats.miss_hist.count[4], 1);
	assert_int_equal(f->m.stats.miss_hist.count[CXD_HIST_BUCKETS - 1], 0);
	assert_int_equal(f->m.stats.queue_hist.count[0], 1);
	assert_int_equal(f->m.stats.queue_hist.count[cxd_hist_bucket(3000)], 1);
	assert_int_equal(f->m.stats.queue_hist.count[CXD_HIST_BUCKETS - 1], 0);
	assert_int_equal(f->m.stats.model_miss_ns, 6414 + 9828);
	assert_int_equal(f->m.stats.queue_ns, 3000);
	model_free(f);
}

/* xorshift64* as documented for the random policy (cxd_cache_set_seed()). */
static uint64_t ref_rng(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 0x2545f4914f6cdd1dull;
}

/*
 * The random policy through the model against a reference: a full,
 * fully associative cache of @cfg->nlines lines (filled in line order from
 * empty) evicts line rng() % nlines, whose page is the victim, and the new
 * page takes that line. Checks every victim and the hit count.
 */
static void run_seeded_reference(const struct cxd_model_cfg *cfg,
				 uint64_t seed)
{
	struct model_fix *f = model_new_cfg(cfg);
	uint64_t line_page[64], x = seed, p, page, want, hits = 0;
	uint32_t used = 0, l, n = cfg->nlines;
	struct cxd_access r;
	bool hit;

	assert_true(n <= 64);
	cxd_model_set_seed(&f->m, seed);
	for (p = 0; p < 5000; p++) {
		page = (p * 37) % 200;
		hit = false;
		for (l = 0; l < used; l++)
			hit |= line_page[l] == page;
		want = CXD_NO_PAGE;
		if (hit) {
			hits++;
		} else if (used < n) {
			line_page[used++] = page;
		} else {
			l = (uint32_t)(ref_rng(&x) % n);
			want = line_page[l];
			line_page[l] = page;
		}
		cxd_model_access(&f->m, page, 0, p * 1000, &r);
		assert_int_equal(r.hit, hit);
		assert_int_equal(acc_victim(&r), want);
	}
	assert_int_equal(f->m.stats.hits, hits);
	assert_int_equal(f->m.stats.evictions, 5000 - hits - n);
	model_free(f);
}

/* The random policy through the model: same seed, same run. */
static void test_seeded_model(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct cxd_model_cfg cfg = {
		.npages = 4096, .nlines = 32, .ways = 0,
		.policy = CXD_POLICY_RANDOM, .nand = c,
	};
	struct model_fix *a = model_new_cfg(&cfg), *b = model_new_cfg(&cfg);
	struct cxd_access ra, rb;
	uint64_t p;

	(void)state;
	cxd_model_set_seed(&a->m, 99);
	cxd_model_set_seed(&b->m, 99);
	for (p = 0; p < 5000; p++) {
		cxd_model_access(&a->m, (p * 37) % 200, 0, p * 1000, &ra);
		cxd_model_access(&b->m, (p * 37) % 200, 0, p * 1000, &rb);
		assert_int_equal(acc_victim(&ra), acc_victim(&rb));
		assert_int_equal(ra.done_ns, rb.done_ns);
	}
	assert_int_equal(a->m.stats.hits, b->m.stats.hits);
	assert_true(a->m.stats.hits > 0);
	model_free(a);
	model_free(b);

	/* ... and the victims are the ones the seed picks */
	run_seeded_reference(&cfg, 99);
	run_seeded_reference(&cfg, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_size),
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_miss_then_hit),
		cmocka_unit_test(test_flush),
		cmocka_unit_test(test_flush_cflru),
		cmocka_unit_test(test_dirty_eviction),
		cmocka_unit_test(test_reset_stats),
		cmocka_unit_test(test_late_writeback),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_init_cfg),
		cmocka_unit_test(test_write_alloc),
		cmocka_unit_test(test_skip_unwritten),
		cmocka_unit_test(test_histograms),
		cmocka_unit_test(test_histograms_later),
		cmocka_unit_test(test_seeded_model),
		cmocka_unit_test(test_miss_reason),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
