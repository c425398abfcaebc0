// SPDX-License-Identifier: GPL-2.0
/*
 * The controller in front of the NAND (driver/model/ctrl.c): MSHRs, the
 * controller's time per read, the host link, the simulator's hit time.
 * Exact times on the configfs defaults (8 channels x 4 dies, tR 3000 ns,
 * 4 KiB in 3414 ns: an idle read is 6414 ns); pages 0..31 are on distinct
 * dies, so only the controller makes reads wait for each other.
 */
#include "cxd_test.h"

#define IDLE_READ	(T_R + XFER_4K)		/* 6414 ns */

struct fixture {
	struct cxd_model m;
	void *mem;
};

static struct fixture *make(uint32_t mshr, uint64_t ctrl_ns, uint32_t link)
{
	struct cxd_model_cfg cfg = {
		.npages = 1024, .nlines = 64, .policy = CXD_POLICY_FIFO,
		.nand = default_cfg(),
	};
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	cfg.nand.mshr = mshr;
	cfg.nand.ctrl_ns = ctrl_ns;
	cfg.nand.link_mbps = link;
	f->mem = junk_alloc(cxd_model_cfg_state_size(&cfg));
	assert_int_equal(cxd_model_init_cfg(&f->m, &cfg, f->mem), 0);
	return f;
}

static void drop(struct fixture *f)
{
	free(f->mem);
	free(f);
}

static uint64_t miss(struct fixture *f, uint64_t page, uint64_t now)
{
	struct cxd_access r;

	cxd_model_access(&f->m, page, 0, now, &r);
	assert_false(r.hit);
	return r.done_ns;
}

/* No limit by default: reads on distinct dies overlap fully. */
static void test_off_by_default(void **state __attribute__((unused)))
{
	struct fixture *f = make(0, 0, 0);

	assert_int_equal(miss(f, 0, 0), IDLE_READ);
	assert_int_equal(miss(f, 1, 0), IDLE_READ);
	assert_int_equal(miss(f, 2, 0), IDLE_READ);
	assert_int_equal(f->m.stats.mshr_waits, 0);
	assert_int_equal(f->m.stats.queue_ns, 0);
	assert_int_equal(cxd_ctrl_link_ns(&f->m.nand.cfg), 0);
	drop(f);
}

/* One MSHR: a second read waits for the first; a later one does not. */
static void test_one_mshr(void **state __attribute__((unused)))
{
	struct fixture *f = make(1, 0, 0);

	assert_int_equal(miss(f, 0, 0), IDLE_READ);
	assert_int_equal(miss(f, 1, 100), 2 * IDLE_READ);
	assert_int_equal(f->m.stats.mshr_waits, 1);
	assert_int_equal(f->m.stats.mshr_wait_ns, IDLE_READ - 100);
	assert_int_equal(f->m.stats.queue_ns, IDLE_READ - 100);
	assert_int_equal(miss(f, 2, 20000), 20000 + IDLE_READ);
	assert_int_equal(f->m.stats.mshr_waits, 1);
	drop(f);
}

/* Two MSHRs: the third of three simultaneous reads takes the first free. */
static void test_two_mshrs(void **state __attribute__((unused)))
{
	struct fixture *f = make(2, 0, 0);

	assert_int_equal(miss(f, 0, 0), IDLE_READ);
	assert_int_equal(miss(f, 1, 0), IDLE_READ);
	assert_int_equal(miss(f, 2, 0), 2 * IDLE_READ);
	assert_int_equal(miss(f, 3, 0), 2 * IDLE_READ);
	assert_int_equal(miss(f, 4, 0), 3 * IDLE_READ);
	assert_int_equal(f->m.stats.mshr_waits, 3);
	assert_int_equal(f->m.stats.mshr_wait_ns, 4 * IDLE_READ);
	drop(f);
}

/* The controller: one read at a time, ctrl_ns each, before the NAND. */
static void test_ctrl_time(void **state __attribute__((unused)))
{
	struct fixture *f = make(0, 1000, 0);

	assert_int_equal(miss(f, 0, 0), 1000 + IDLE_READ);
	assert_int_equal(miss(f, 1, 0), 2000 + IDLE_READ);
	assert_int_equal(miss(f, 2, 500), 3000 + IDLE_READ);
	/* queueing: die starts 1000, 2000, 3000 against arrivals 0, 0, 500 */
	assert_int_equal(f->m.stats.queue_ns, 1000 + 2000 + 2500);
	assert_int_equal(miss(f, 3, 10000), 11000 + IDLE_READ);
	assert_int_equal(f->m.stats.mshr_waits, 0);
	drop(f);
}

/*
 * The link: 409 MB/s is ceil(4096000 / 409) = 10015 ns per line, slower
 * than the NAND; slots are booked in arrival order, and a line crosses at
 * max(NAND done, its slot), taking 10015 ns.
 */
static void test_link(void **state __attribute__((unused)))
{
	struct fixture *f = make(0, 0, 409);

	assert_int_equal(cxd_ctrl_link_ns(&f->m.nand.cfg), 10015);
	assert_int_equal(miss(f, 0, 0), IDLE_READ + 10015);
	assert_int_equal(miss(f, 1, 0), 10015 + 10015);
	assert_int_equal(miss(f, 2, 50000), 50000 + IDLE_READ + 10015);
	drop(f);
	/* a fast link adds its transfer after the NAND read */
	f = make(0, 0, 4096);
	assert_int_equal(cxd_ctrl_link_ns(&f->m.nand.cfg), 1000);
	assert_int_equal(miss(f, 0, 0), IDLE_READ + 1000);
	assert_int_equal(miss(f, 1, 0), IDLE_READ + 1000);
	drop(f);
}

/* The MSHR is held until the link transfer ends. */
static void test_mshr_spans_link(void **state __attribute__((unused)))
{
	struct fixture *f = make(1, 0, 4096);

	assert_int_equal(miss(f, 0, 0), IDLE_READ + 1000);
	assert_int_equal(miss(f, 1, 0), 2 * (IDLE_READ + 1000));
	assert_int_equal(f->m.stats.mshr_wait_ns, IDLE_READ + 1000);
	drop(f);
}

/* Prefetch reads take MSHRs too, within the access that issues them. */
static void test_prefetch_waits(void **state __attribute__((unused)))
{
	struct fixture *f = make(1, 0, 0);
	struct cxd_access r;

	f->m.prefetch = CXD_PF_NEXT;
	f->m.prefetch_degree = 2;
	cxd_model_access(&f->m, 0, 0, 0, &r);
	assert_int_equal(r.done_ns, IDLE_READ);
	assert_int_equal(r.nprefetched, 2);
	assert_int_equal(r.prefetch_done_ns[0], 2 * IDLE_READ);
	assert_int_equal(r.prefetch_done_ns[1], 3 * IDLE_READ);
	assert_int_equal(f->m.stats.mshr_waits, 2);
	assert_int_equal(f->m.stats.mshr_wait_ns, IDLE_READ + 2 * IDLE_READ);
	drop(f);
}

/* Limits change live (nand.cfg): a smaller mshr uses the first entries. */
static void test_live_change(void **state __attribute__((unused)))
{
	struct fixture *f = make(0, 0, 0);

	assert_int_equal(miss(f, 0, 0), IDLE_READ);
	f->m.nand.cfg.mshr = 2;
	assert_int_equal(miss(f, 1, 0), IDLE_READ);
	assert_int_equal(miss(f, 2, 0), IDLE_READ);
	assert_int_equal(miss(f, 3, 0), 2 * IDLE_READ);
	f->m.nand.cfg.mshr = 1;
	/* entry 0 is held until 2 * IDLE_READ by page 3's read */
	assert_int_equal(miss(f, 4, 0), 3 * IDLE_READ);
	f->m.nand.cfg.mshr = 0;
	assert_int_equal(miss(f, 5, 0), IDLE_READ);
	drop(f);
}

/* cxd_model_hit(): the simulator's hit, through the link. */
static void test_hit(void **state __attribute__((unused)))
{
	struct fixture *f = make(0, 0, 0);

	assert_int_equal(cxd_model_hit(&f->m, 5, 800), 805);
	assert_int_equal(cxd_model_hit(&f->m, 5, 800), 805);
	drop(f);
	f = make(0, 0, 4096);		/* 1000 ns per line */
	assert_int_equal(cxd_model_hit(&f->m, 0, 800), 1000);
	assert_int_equal(cxd_model_hit(&f->m, 0, 800), 2000);
	assert_int_equal(cxd_model_hit(&f->m, 0, 1500), 3500);
	assert_int_equal(cxd_model_hit(&f->m, 10000, 1500), 11500);
	/* a miss booked after the hits waits for the link too */
	assert_int_equal(miss(f, 0, 10000), 11000 + IDLE_READ);
	assert_int_equal(f->m.stats.hits + f->m.stats.misses, 1);
	drop(f);
}

/* Bounds: mshr <= 256, ctrl_ns <= 100 ms, link_mbps <= 1000000. */
static void test_bounds(void **state __attribute__((unused)))
{
	struct cxd_nand_cfg c = default_cfg();

	c.mshr = CXD_MAX_MSHR;
	c.ctrl_ns = CXD_MAX_LATENCY_NS;
	c.link_mbps = CXD_MAX_LINK_MBPS;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.mshr++;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
	c.mshr--;
	c.ctrl_ns++;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
	c.ctrl_ns--;
	c.link_mbps++;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_off_by_default),
		cmocka_unit_test(test_one_mshr),
		cmocka_unit_test(test_two_mshrs),
		cmocka_unit_test(test_ctrl_time),
		cmocka_unit_test(test_link),
		cmocka_unit_test(test_mshr_spans_link),
		cmocka_unit_test(test_prefetch_waits),
		cmocka_unit_test(test_live_change),
		cmocka_unit_test(test_hit),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
