// SPDX-License-Identifier: GPL-2.0
/*
 * NAND timing: configuration bounds, page mapping, die/channel contention.
 */
#include "cxd_test.h"

struct nand_fix {
	struct cxd_nand n;
	void *mem;
};

static struct nand_fix *nand_new(const struct cxd_nand_cfg *cfg)
{
	struct nand_fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->mem = junk_alloc(cxd_nand_state_size(cfg));
	assert_int_equal(cxd_nand_init(&f->n, cfg, f->mem), 0);
	return f;
}

static void nand_free(struct nand_fix *f)
{
	free(f->mem);
	free(f);
}

static void test_cfg_bounds(void **state)
{
	struct cxd_nand_cfg c;

	(void)state;
	assert_int_equal(cxd_nand_cfg_valid(NULL), -1);
	c = default_cfg();
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);

	c = default_cfg(); c.channels = 0;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
	c.channels = 1;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.channels = 64;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.channels = 65;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);

	c = default_cfg(); c.dies_per_channel = 0;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
	c.dies_per_channel = 1;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.dies_per_channel = 64;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.dies_per_channel = 65;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);

	c = default_cfg(); c.nand_page_size = 2048;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
	c.nand_page_size = 0;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
	c.nand_page_size = 4096;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.nand_page_size = 8192;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.nand_page_size = 12288;	/* not a power of two */
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
	c.nand_page_size = 65536;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.nand_page_size = 131072;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);

	c = default_cfg(); c.t_read_ns = 0;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.t_read_ns = CXD_MAX_LATENCY_NS;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.t_read_ns = CXD_MAX_LATENCY_NS + 1;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);

	c = default_cfg(); c.t_prog_ns = 0;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.t_prog_ns = CXD_MAX_LATENCY_NS;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.t_prog_ns = CXD_MAX_LATENCY_NS + 1;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);

	c = default_cfg(); c.channel_mbps = 0;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
	c.channel_mbps = 1;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.channel_mbps = CXD_MAX_CHANNEL_MBPS;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.channel_mbps = CXD_MAX_CHANNEL_MBPS + 1;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
}

static void test_state_size_and_init(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct cxd_nand n;
	struct nand_fix *f;
	char mem[64];
	unsigned int i;

	(void)state;
	/* die_free[32] + chan_free[8] + die_busy[32], u64 each */
	assert_int_equal(cxd_nand_state_size(&c), (2 * 32 + 8) * 8);
	c = test_cfg(64, 64, 4096);
	assert_int_equal(cxd_nand_state_size(&c), (2 * 4096 + 64) * 8);
	c.channels = 0;
	assert_int_equal(cxd_nand_state_size(&c), 0);
	assert_int_equal(cxd_nand_state_size(NULL), 0);
	assert_int_equal(cxd_nand_init(&n, &c, mem), -1);

	c = default_cfg();
	f = nand_new(&c);	/* over junk memory */
	for (i = 0; i < 32; i++) {
		assert_int_equal(f->n.die_free[i], 0);
		assert_int_equal(f->n.die_busy[i], 0);
	}
	for (i = 0; i < 8; i++)
		assert_int_equal(f->n.chan_free[i], 0);
	assert_int_equal(f->n.cfg.channels, 8);
	nand_free(f);
}

static void test_xfer_ns(void **state)
{
	struct cxd_nand_cfg c = default_cfg();

	(void)state;
	assert_int_equal(cxd_nand_xfer_ns(&c), 3414);	/* ceil(4096000/1200) */
	c.nand_page_size = 16384;
	assert_int_equal(cxd_nand_xfer_ns(&c), 13654);	/* ceil(16384000/1200) */
	c.nand_page_size = 4096;
	c.channel_mbps = 1000;
	assert_int_equal(cxd_nand_xfer_ns(&c), 4096);	/* exact, no round up */
	c.channel_mbps = 1024;
	assert_int_equal(cxd_nand_xfer_ns(&c), 4000);
	c.channel_mbps = 1;
	c.nand_page_size = 65536;
	assert_int_equal(cxd_nand_xfer_ns(&c), 65536000);
	c.channel_mbps = 100000;
	c.nand_page_size = 4096;
	assert_int_equal(cxd_nand_xfer_ns(&c), 41);	/* ceil(40.96) */
}

static void test_single_read(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct nand_fix *f = nand_new(&c);
	struct cxd_nand_op op;

	(void)state;
	assert_int_equal(cxd_nand_read(&f->n, 0, 1000, &op),
			 1000 + T_R + XFER_4K);
	assert_int_equal(op.channel, 0);
	assert_int_equal(op.die, 0);
	assert_int_equal(op.start_ns, 1000);
	assert_int_equal(op.done_ns, 1000 + T_R + XFER_4K);
	assert_int_equal(f->n.die_free[0], 1000 + T_R);
	assert_int_equal(f->n.chan_free[0], 1000 + T_R + XFER_4K);
	assert_int_equal(f->n.die_busy[0], T_R);
	/* NULL op is allowed */
	assert_int_equal(cxd_nand_read(&f->n, 1, 0, NULL), T_R + XFER_4K);
	nand_free(f);
}

/* Two reads of one die: the second starts when the die is free (tR later). */
static void test_same_die_serialises(void **state)
{
	struct cxd_nand_cfg c = test_cfg(2, 2, 4096);
	struct nand_fix *f;
	struct cxd_nand_op op;
	const uint64_t tr = 50000;	/* tR > xfer: the die is the bottleneck */

	(void)state;
	c.t_read_ns = tr;
	f = nand_new(&c);
	/* pages 0 and 4 = channels * dies: both channel 0, die 0 */
	assert_int_equal(cxd_nand_read(&f->n, 0, 0, &op), tr + XFER_4K);
	assert_int_equal(cxd_nand_read(&f->n, 4, 0, &op), 2 * tr + XFER_4K);
	assert_int_equal(op.channel, 0);
	assert_int_equal(op.die, 0);
	assert_int_equal(op.start_ns, tr);
	assert_int_equal(f->n.die_busy[0], 2 * tr);
	nand_free(f);

	/* tR < xfer: the second transfer also waits for the channel */
	c = test_cfg(2, 2, 4096);
	f = nand_new(&c);
	assert_int_equal(cxd_nand_read(&f->n, 0, 0, NULL), T_R + XFER_4K);
	assert_int_equal(cxd_nand_read(&f->n, 4, 0, &op),
			 T_R + 2 * XFER_4K);
	assert_int_equal(op.start_ns, T_R);
	nand_free(f);
}

/* Dies of one channel read in parallel but share the channel transfer. */
static void test_same_channel_shares_bus(void **state)
{
	struct cxd_nand_cfg c = test_cfg(2, 2, 4096);
	struct nand_fix *f = nand_new(&c);
	struct cxd_nand_op a, b;

	(void)state;
	/* page 0: n=0 -> ch 0 die 0; page 2: n=2 -> ch 0, die (2/2)%2 = 1 */
	assert_int_equal(cxd_nand_read(&f->n, 0, 0, &a), T_R + XFER_4K);
	assert_int_equal(cxd_nand_read(&f->n, 2, 0, &b), T_R + 2 * XFER_4K);
	assert_int_equal(a.channel, 0);
	assert_int_equal(b.channel, 0);
	assert_int_equal(a.die, 0);
	assert_int_equal(b.die, 1);
	assert_int_equal(b.start_ns, 0);	/* the die did not wait */
	assert_int_equal(f->n.die_free[1], T_R);
	assert_int_equal(f->n.chan_free[0], T_R + 2 * XFER_4K);
	nand_free(f);
}

static void test_channels_independent(void **state)
{
	struct cxd_nand_cfg c = test_cfg(2, 2, 4096);
	struct nand_fix *f = nand_new(&c);
	struct cxd_nand_op a, b;

	(void)state;
	assert_int_equal(cxd_nand_read(&f->n, 0, 0, &a), T_R + XFER_4K);
	assert_int_equal(cxd_nand_read(&f->n, 1, 0, &b), T_R + XFER_4K);
	assert_int_equal(a.channel, 0);
	assert_int_equal(b.channel, 1);
	assert_int_equal(b.die, 0);
	assert_int_equal(f->n.chan_free[0], T_R + XFER_4K);
	assert_int_equal(f->n.chan_free[1], T_R + XFER_4K);
	nand_free(f);
}

static void test_program(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct nand_fix *f = nand_new(&c);
	struct cxd_nand_op op;

	(void)state;
	/* transfer [0, xfer) on the channel, then tPROG on the die */
	assert_int_equal(cxd_nand_program(&f->n, 0, 0, &op), XFER_4K + T_PROG);
	assert_int_equal(op.start_ns, XFER_4K);
	assert_int_equal(op.done_ns, XFER_4K + T_PROG);
	assert_int_equal(f->n.chan_free[0], XFER_4K);
	assert_int_equal(f->n.die_free[0], XFER_4K + T_PROG);
	assert_int_equal(f->n.die_busy[0], T_PROG);

	/* a read of another die on the channel waits only for the channel */
	assert_int_equal(cxd_nand_read(&f->n, 8, 0, &op), 2 * XFER_4K);
	assert_int_equal(op.die, 1);

	/* a program behind a busy channel and die */
	assert_int_equal(cxd_nand_program(&f->n, 32, 0, &op),
			 XFER_4K + T_PROG + T_PROG);
	assert_int_equal(op.die, 0);
	assert_int_equal(op.start_ns, XFER_4K + T_PROG);
	assert_int_equal(f->n.chan_free[0], 3 * XFER_4K);
	assert_int_equal(f->n.die_busy[0], 2 * T_PROG);
	nand_free(f);
}

/* A write-back delays a later read of the same die by exactly tPROG. */
static void test_program_delays_read(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct nand_fix *f = nand_new(&c), *g = nand_new(&c);
	struct cxd_nand_op op;
	uint64_t with, without;

	(void)state;
	cxd_nand_program(&f->n, 0, 0, NULL);
	cxd_nand_program(&g->n, 1, 0, NULL);	/* other channel */
	/* arrive when the program's transfer ended */
	with = cxd_nand_read(&f->n, 32, XFER_4K, &op);
	without = cxd_nand_read(&g->n, 32, XFER_4K, NULL);
	assert_int_equal(without, XFER_4K + T_R + XFER_4K);
	assert_int_equal(with, without + T_PROG);
	assert_int_equal(op.start_ns, XFER_4K + T_PROG);
	assert_int_equal(f->n.die_busy[0], T_PROG + T_R);
	nand_free(f);
	nand_free(g);
}

/* Striping orders: channel-first (default), die-first, plane-first. */
static void test_stripe(void **state)
{
	struct cxd_nand_cfg c = test_cfg(4, 2, 4096);
	struct cxd_nand_op op;
	struct nand_fix *f;

	(void)state;
	c.planes_per_die = 2;

	c.stripe = CXD_STRIPE_DIE;
	f = nand_new(&c);
	cxd_nand_read(&f->n, 1, 0, &op);	/* die 1 of channel 0 */
	assert_int_equal(op.channel, 0);
	assert_int_equal(op.die, 1);
	cxd_nand_read(&f->n, 2, 0, &op);	/* then the next channel */
	assert_int_equal(op.channel, 1);
	assert_int_equal(op.die, 0);
	cxd_nand_read(&f->n, 8, 0, &op);	/* then plane 1 */
	assert_int_equal(op.channel, 0);
	assert_int_equal(op.die, 0);
	assert_int_equal(op.plane, 1);
	nand_free(f);

	c.stripe = CXD_STRIPE_PLANE;
	f = nand_new(&c);
	cxd_nand_read(&f->n, 1, 0, &op);	/* plane 1 of ch 0 die 0 */
	assert_int_equal(op.channel, 0);
	assert_int_equal(op.die, 0);
	assert_int_equal(op.plane, 1);
	cxd_nand_read(&f->n, 2, 0, &op);	/* then the next channel */
	assert_int_equal(op.channel, 1);
	assert_int_equal(op.die, 0);
	cxd_nand_read(&f->n, 8, 0, &op);	/* then die 1 */
	assert_int_equal(op.channel, 0);
	assert_int_equal(op.die, 1);
	nand_free(f);

	c.stripe = CXD_STRIPE_NR;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
	assert_int_equal(cxd_stripe_parse("die"), CXD_STRIPE_DIE);
	assert_int_equal(cxd_stripe_parse("dies"), -1);
	assert_string_equal(cxd_stripe_name(CXD_STRIPE_PLANE), "plane");
}

static void test_page_mapping(void **state)
{
	struct cxd_nand_cfg c = test_cfg(8, 4, 16384);
	struct nand_fix *f = nand_new(&c);
	struct cxd_nand_op op;
	uint64_t p;

	(void)state;
	/*
	 * 16 KiB NAND page = 4 host pages: pages 0..3 share ch 0 die 0, and
	 * one tR serves them all (the page stays in the plane's register).
	 */
	for (p = 0; p < 4; p++) {
		assert_int_equal(cxd_nand_read(&f->n, p, 1000000 * p, &op),
				 1000000 * p + (p ? 0 : T_R) + 13654);
		assert_int_equal(op.channel, 0);
		assert_int_equal(op.die, 0);
	}
	assert_int_equal(f->n.die_busy[0], T_R);
	cxd_nand_read(&f->n, 4, 0, &op);	/* NAND page 1 */
	assert_int_equal(op.channel, 1);
	assert_int_equal(op.die, 0);
	cxd_nand_read(&f->n, 4 * 8, 0, &op);	/* NAND page 8 */
	assert_int_equal(op.channel, 0);
	assert_int_equal(op.die, 1);
	cxd_nand_read(&f->n, 4 * (8 * 3 + 5) + 3, 0, &op);	/* NAND page 29 */
	assert_int_equal(op.channel, 5);
	assert_int_equal(op.die, 3);
	cxd_nand_read(&f->n, 4 * 32, 0, &op);	/* wraps to ch 0 die 0 */
	assert_int_equal(op.channel, 0);
	assert_int_equal(op.die, 0);
	nand_free(f);

	/*
	 * 16K pages: 3 waits for the tR of 0 (same NAND page), then only
	 * for the channel; a program on the plane empties the register.
	 */
	c.t_read_ns = 50000;
	f = nand_new(&c);
	assert_int_equal(cxd_nand_read(&f->n, 0, 0, NULL), 50000 + 13654);
	assert_int_equal(cxd_nand_read(&f->n, 3, 0, &op), 50000 + 2 * 13654);
	assert_int_equal(op.start_ns, 50000);
	/* NAND page 32 (host 128) is on ch 0 die 0 too: a new tR */
	assert_int_equal(cxd_nand_read(&f->n, 128, 0, NULL),
			 100000 + 13654);
	assert_int_equal(cxd_nand_read(&f->n, 1, 200000, NULL),
			 250000 + 13654);
	cxd_nand_program(&f->n, 130, 300000, NULL);
	assert_int_equal(f->n.die_free[0], 300000 + 13654 + T_PROG);
	/*
	 * 2 is in NAND page 0 like 1, read last: without the program it
	 * would skip tR; after it, tR is paid again.
	 */
	assert_int_equal(cxd_nand_read(&f->n, 2, 500000, NULL),
			 550000 + 13654);
	assert_int_equal(cxd_nand_read(&f->n, 130, 1000000, NULL),
			 1050000 + 13654);
	nand_free(f);

	/* 4 KiB pages, 3 channels x 2 dies */
	c = test_cfg(3, 2, 4096);
	f = nand_new(&c);
	cxd_nand_read(&f->n, 4, 0, &op);	/* 4 % 3 = 1, (4/3) % 2 = 1 */
	assert_int_equal(op.channel, 1);
	assert_int_equal(op.die, 1);
	assert_int_equal(f->n.die_busy[1 * 2 + 1], T_R);
	cxd_nand_read(&f->n, 7, 0, &op);	/* 7 % 3 = 1, (7/3) % 2 = 0 */
	assert_int_equal(op.channel, 1);
	assert_int_equal(op.die, 0);
	nand_free(f);
}

static void test_live_timing_change(void **state)
{
	struct cxd_nand_cfg c = default_cfg();
	struct nand_fix *f = nand_new(&c);

	(void)state;
	f->n.cfg.t_read_ns = 10000;
	f->n.cfg.channel_mbps = 1000;
	assert_int_equal(cxd_nand_read(&f->n, 0, 0, NULL), 10000 + 4096);
	f->n.cfg.t_prog_ns = 0;
	assert_int_equal(cxd_nand_program(&f->n, 1, 0, NULL), 4096);
	nand_free(f);
}

static void test_new_field_bounds(void **state)
{
	struct cxd_nand_cfg c = default_cfg();

	(void)state;
	c.planes_per_die = CXD_MAX_PLANES;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	c.planes_per_die = CXD_MAX_PLANES + 1;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
	c = default_cfg();
	c.pages_per_block = CXD_MAX_PAGES_PER_BLOCK + 1;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
	c = default_cfg();
	c.t_bers_ns = CXD_MAX_LATENCY_NS + 1;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
	c = default_cfg();
	c.xfer_model = CXD_XFER_NR;
	assert_int_equal(cxd_nand_cfg_valid(&c), -1);
	c.xfer_model = CXD_XFER_NVMEVIRT;
	assert_int_equal(cxd_nand_cfg_valid(&c), 0);
	assert_int_equal(cxd_nand_planes(&c), 1);
	c.planes_per_die = 1;
	assert_int_equal(cxd_nand_planes(&c), 1);
	c.planes_per_die = 4;
	assert_int_equal(cxd_nand_planes(&c), 4);
	/* die_free per plane, progs per plane with blocks, register > 4K */
	c = default_cfg();
	c.planes_per_die = 4;
	assert_int_equal(cxd_nand_state_size(&c), (128 + 8 + 32) * 8);
	c.pages_per_block = 64;
	assert_int_equal(cxd_nand_state_size(&c), (128 + 8 + 32 + 128) * 8);
	c.nand_page_size = 16384;
	assert_int_equal(cxd_nand_state_size(&c),
			 (128 + 8 + 32 + 128 + 128) * 8);
}

/* NVMeVirt's channel model: 128-byte units of a truncated MiB/s time. */
static void test_xfer_nvmevirt(void **state)
{
	struct cxd_nand_cfg c = default_cfg();

	(void)state;
	c.xfer_model = CXD_XFER_NVMEVIRT;
	/* 128e9 / (1200 << 20) = 101.7 -> 101 ns per unit, 32 units */
	assert_int_equal(cxd_nand_xfer_ns(&c), 3232);
	c.nand_page_size = 16384;
	assert_int_equal(cxd_nand_xfer_ns(&c), 128 * 101);
	c.nand_page_size = 4096;
	c.channel_mbps = 800;	/* 152.6 -> 152 */
	assert_int_equal(cxd_nand_xfer_ns(&c), 32 * 152);
	c.channel_mbps = 100000;	/* 1.2 -> 1 */
	assert_int_equal(cxd_nand_xfer_ns(&c), 32);
}

/* Planes of one die read in parallel and share the channel. */
static void test_planes(void **state)
{
	struct cxd_nand_cfg c = test_cfg(1, 1, 4096);
	struct nand_fix *f;
	struct cxd_nand_op a, b;
	const uint64_t tr = 50000;

	(void)state;
	c.t_read_ns = tr;
	c.planes_per_die = 2;
	f = nand_new(&c);
	assert_int_equal(cxd_nand_read(&f->n, 0, 0, &a), tr + XFER_4K);
	assert_int_equal(cxd_nand_read(&f->n, 1, 0, &b), tr + 2 * XFER_4K);
	assert_int_equal(a.plane, 0);
	assert_int_equal(b.plane, 1);
	assert_int_equal(b.start_ns, 0);
	assert_int_equal(f->n.die_busy[0], 2 * tr);
	/* page 2 is plane 0 again: waits for it */
	assert_int_equal(cxd_nand_read(&f->n, 2, 0, &a), 2 * tr + XFER_4K);
	assert_int_equal(a.start_ns, tr);
	nand_free(f);

	/* 2 ch x 2 dies x 2 planes: plane = n / 4 % 2 */
	c = test_cfg(2, 2, 4096);
	c.planes_per_die = 2;
	f = nand_new(&c);
	cxd_nand_read(&f->n, 7, 0, &a);
	assert_int_equal(a.channel, 1);
	assert_int_equal(a.die, 1);
	assert_int_equal(a.plane, 1);
	assert_int_equal(f->n.die_free[(1 * 2 + 1) * 2 + 1], T_R);
	nand_free(f);
}

/* Erases: every pages_per_block-th program of a plane pays tBERS first. */
static void test_erase(void **state)
{
	struct cxd_nand_cfg c = test_cfg(1, 1, 4096);
	struct nand_fix *f;
	const uint64_t bers = 1000000;
	uint64_t t;

	(void)state;
	c.pages_per_block = 2;
	c.t_bers_ns = bers;
	f = nand_new(&c);
	assert_int_equal(cxd_nand_program(&f->n, 0, 0, NULL),
			 XFER_4K + bers + T_PROG);
	assert_int_equal(f->n.erases, 1);
	t = 10 * bers;
	assert_int_equal(cxd_nand_program(&f->n, 0, t, NULL),
			 t + XFER_4K + T_PROG);
	assert_int_equal(f->n.erases, 1);
	assert_int_equal(cxd_nand_program(&f->n, 0, 2 * t, NULL),
			 2 * t + XFER_4K + bers + T_PROG);
	assert_int_equal(f->n.erases, 2);
	assert_int_equal(f->n.die_busy[0], 3 * T_PROG + 2 * bers);
	nand_free(f);

	/* pages_per_block 0: tBERS ignored */
	c.pages_per_block = 0;
	f = nand_new(&c);
	assert_null(f->n.progs);
	assert_int_equal(cxd_nand_program(&f->n, 0, 0, NULL), XFER_4K + T_PROG);
	assert_int_equal(f->n.erases, 0);
	nand_free(f);
}

static void test_presets(void **state)
{
	const struct cxd_preset *p;
	struct nand_fix *f;
	unsigned int i;

	(void)state;
	for (i = 0; (p = cxd_preset_at(i)); i++) {
		assert_int_equal(cxd_nand_cfg_valid(&p->nand), 0);
		assert_ptr_equal(cxd_preset_find(p->name), p);
		assert_non_null(p->source);
	}
	assert_int_equal(i, 4);
	assert_null(cxd_preset_find("znand\n"));
	assert_null(cxd_preset_find(""));
	assert_null(cxd_preset_find(NULL));

	p = cxd_preset_find("znand");
	assert_non_null(p);
	assert_int_equal(p->nand.t_read_ns, 3000);
	assert_int_equal(p->nand.t_prog_ns, 100000);
	assert_int_equal(p->nand.t_bers_ns, 1000000);
	assert_int_equal(p->nand.channel_mbps, 1200);
	assert_int_equal(p->nand.channels * p->nand.dies_per_channel *
			 p->nand.planes_per_die, 8 * 16 * 8);
	/* a serial 4 KiB miss: 3.0 + 3.414 us exact, 3.0 + 3.232 NVMeVirt */
	f = nand_new(&p->nand);
	assert_int_equal(cxd_nand_read(&f->n, 0, 0, NULL), 3000 + 3414);
	f->n.cfg.xfer_model = CXD_XFER_NVMEVIRT;
	assert_int_equal(cxd_nand_read(&f->n, 1, 0, NULL), 6232);
	nand_free(f);

	p = cxd_preset_find("femu");
	assert_non_null(p);
	assert_int_equal(p->nand.t_read_ns, 40000);
	assert_int_equal(p->nand.t_prog_ns, 200000);
	assert_int_equal(p->nand.t_bers_ns, 2000000);
	assert_int_equal(p->nand.channels, 8);
	assert_int_equal(p->nand.dies_per_channel, 8);
	assert_int_equal(p->nand.nand_page_size, 4096);

	p = cxd_preset_find("tlc");
	assert_non_null(p);
	assert_int_equal(p->nand.nand_page_size, 16384);
	assert_int_equal(p->nand.t_read_ns, 50000);
	assert_int_equal(p->nand.t_prog_ns, 600000);
	/* the NAND, geometry and controller limits no other preset sets */
	assert_int_equal(p->nand.mshr + p->nand.ctrl_ns + p->nand.link_mbps, 0);

	p = cxd_preset_find("cmmh");
	assert_non_null(p);
	assert_int_equal(p->nand.nand_page_size, 4096);
	assert_int_equal(p->nand.t_read_ns, 50000);
	assert_int_equal(p->nand.mshr, 0);
	assert_int_equal(p->nand.ctrl_ns, CXD_CMMH_CTRL_NS);
	assert_int_equal(p->nand.link_mbps, CXD_CMMH_LINK_MBPS);
	/* an idle 4 KiB NAND read: tR + 4096 B at 800 MB/s = 50000 + 5120 */
	f = nand_new(&p->nand);
	assert_int_equal(cxd_nand_read(&f->n, 0, 0, NULL), 55120);
	nand_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cfg_bounds),
		cmocka_unit_test(test_state_size_and_init),
		cmocka_unit_test(test_xfer_ns),
		cmocka_unit_test(test_single_read),
		cmocka_unit_test(test_same_die_serialises),
		cmocka_unit_test(test_same_channel_shares_bus),
		cmocka_unit_test(test_channels_independent),
		cmocka_unit_test(test_program),
		cmocka_unit_test(test_program_delays_read),
		cmocka_unit_test(test_page_mapping),
		cmocka_unit_test(test_stripe),
		cmocka_unit_test(test_live_timing_change),
		cmocka_unit_test(test_new_field_bounds),
		cmocka_unit_test(test_xfer_nvmevirt),
		cmocka_unit_test(test_planes),
		cmocka_unit_test(test_erase),
		cmocka_unit_test(test_presets),
	};

	return cmocka_run_group_tests_name("nand", tests, NULL, NULL);
}
