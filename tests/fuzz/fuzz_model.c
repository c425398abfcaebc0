// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the cxdvirt device model (tools/libcxdmodel.a).
 *
 * The input is a configuration (shape, policy, prefetch, write policy, NAND
 * geometry and timing) followed by a sequence of operations: accesses, dirty
 * marks, policy and prefetch switches, scan touches, stats resets and time
 * jumps. After every operation the target checks the model's invariants and
 * aborts on the first violation:
 *   - residency never exceeds the cache (used <= nlines), and the resident
 *     set seen through cxd_cache_resident() has exactly `used` pages;
 *   - `used` equals insertions (demand misses + prefetched pages) minus
 *     evictions, counted from the access results;
 *   - an accessed in-range page is resident afterwards (a hit exactly when
 *     it was resident before); every victim is gone afterwards unless a
 *     prefetch of the same access brought it back, and is never the
 *     accessed page;
 *   - completion times are not before the arrival;
 *   - counters: misses = read misses + write misses, evictions = clean +
 *     dirty evictions, writebacks <= dirty evictions, dirty bits only on
 *     resident pages;
 *   - every policy's queues (CFLRU's three, 2Q's and S3-FIFO's two) link
 *     exactly the resident lines of their set;
 *   - the learned prefetchers stay in range (BOP's offset is 0 or a
 *     candidate, Leap's window <= 16, FDP's level 1..5) whatever their
 *     parameters (a prefetch switch also sets those from the page bytes);
 *   - with an FTL: l2p and p2l are inverse, each block's valid count is its
 *     mapped pages, free counts match block states, NAND writes = host
 *     writes + GC copies, host writes = write-backs, erases = GC runs.
 *
 * New state is reached without changing how older inputs parse (the files
 * in regressions/ keep exercising what they were saved for): the FTL is
 * configured from bits of the timing bytes (on when pages_per_block >= 2
 * and bit 0 of the tR byte pair is set; configurations the FTL refuses run
 * without it), and a policy switch also sets CFLRU's window from the
 * operation's page byte.
 *
 * Build and run: make fuzz (longer) or the smoke run in make check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cxdvirt/model.h>
#include "cache_internal.h"
#include "model_internal.h"

struct input {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct input *in, unsigned int bytes)
{
	uint64_t v = 0;

	while (bytes--) {
		v <<= 8;
		if (in->n) {
			v |= *in->p++;
			in->n--;
		}
	}
	return v;
}

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "invariant failed: %s: ", #cond);	\
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
		abort();						\
	}								\
} while (0)

static uint64_t count_resident(const struct cxd_model *m)
{
	uint64_t pg, n = 0;

	for (pg = 0; pg < m->cache.npages; pg++) {
		if (cxd_cache_resident(&m->cache, pg))
			n++;
		else
			CHECK(!cxd_cache_dirty(&m->cache, pg), "page %lu", (unsigned long)pg);
	}
	return n;
}

static void check_counters(const struct cxd_model *m, uint64_t inserted,
			   uint64_t evicted)
{
	const struct cxd_model_stats *s = &m->stats;

	CHECK(m->cache.used <= m->cache.nlines, "used %u nlines %u",
	      m->cache.used, m->cache.nlines);
	CHECK(m->cache.used == inserted - evicted, "used %u ins %lu ev %lu",
	      m->cache.used, (unsigned long)inserted, (unsigned long)evicted);
	CHECK(s->misses == s->read_misses + s->write_misses, "misses %lu",
	      (unsigned long)s->misses);
	CHECK(s->evictions == s->clean_evictions + s->dirty_evictions,
	      "evictions %lu", (unsigned long)s->evictions);
	CHECK(s->writebacks <= s->dirty_evictions, "writebacks %lu",
	      (unsigned long)s->writebacks);
}

/* Every queue of every set links exactly that set's resident lines. */
static void check_queues(const struct cxd_cache *c)
{
	uint32_t s, l, n, total = 0, len, q;

	for (s = 0; s < c->nsets; s++) {
		const struct cxd_queue *qs[3] = {
			&c->sets[s].main, &c->sets[s].small, &c->sets[s].aux,
		};

		n = 0;
		for (q = 0; q < 3; q++) {
			len = 0;
			for (l = qs[q]->head; l != CXD_NO_LINE; l = c->lines[l].next) {
				CHECK(l / c->ways == s, "line %u in set %u", l, s);
				CHECK(len++ < c->ways, "queue loops");
			}
			CHECK(len == qs[q]->len, "queue len %u != %u", len, qs[q]->len);
			n += len;
		}
		CHECK(n == c->sets[s].used, "set %u links %u, used %u", s, n,
		      c->sets[s].used);
		total += n;
	}
	CHECK(total == c->used, "linked %u used %u", total, c->used);
}

static void check_ftl(const struct cxd_model *m)
{
	const struct cxd_ftl *t = &m->priv->ftl;
	uint64_t nblk, b, i, n, mapped = 0, valid = 0, u, nfree;

	if (t->cfg.mode == CXD_FTL_OFF)
		return;
	nblk = (uint64_t)t->units * t->blocks;
	for (i = 0; i < m->cache.npages; i++) {
		if (t->l2p[i] == ~0u)
			continue;
		CHECK(t->l2p[i] < nblk * t->ppb && t->p2l[t->l2p[i]] == i,
		      "l2p/p2l of page %lu", (unsigned long)i);
		mapped++;
	}
	for (b = 0; b < nblk; b++) {
		n = 0;
		for (i = 0; i < t->ppb; i++)
			n += t->p2l[b * t->ppb + i] != ~0u;
		CHECK(n == t->valid[b], "block %lu valid %u, mapped %lu",
		      (unsigned long)b, t->valid[b], (unsigned long)n);
		valid += n;
	}
	CHECK(valid == mapped, "valid %lu mapped %lu", (unsigned long)valid,
	      (unsigned long)mapped);
	for (u = 0; u < t->units; u++) {
		nfree = 0;
		for (b = 0; b < t->blocks; b++)
			nfree += t->state[u * t->blocks + b] == 0;
		CHECK(nfree == t->nfree[u], "plane %lu free", (unsigned long)u);
	}
	CHECK(m->ftl_stats.nand_writes ==
	      m->ftl_stats.host_writes + m->ftl_stats.gc_moved, "nand writes");
	CHECK(m->ftl_stats.host_writes == m->stats.writebacks, "host writes");
	CHECK(m->nand.erases == m->ftl_stats.gc_runs, "erases %lu gc %lu",
	      (unsigned long)m->nand.erases,
	      (unsigned long)m->ftl_stats.gc_runs);
}

static void check_learned(const struct cxd_model *m)
{
	uint32_t o = m->priv->pf.bop.offset, r = o;

	while (r && r % 2 == 0)
		r /= 2;
	while (r && r % 3 == 0)
		r /= 3;
	while (r && r % 5 == 0)
		r /= 5;
	CHECK(o <= 256 && (o == 0 || r == 1), "bop offset %u", o);
	CHECK(m->priv->pf.bop.test < CXD_BOP_OFFSETS, "bop test %u", m->priv->pf.bop.test);
	CHECK(m->priv->pf.leap.pw <= CXD_MAX_PREFETCH_DEGREE && m->priv->pf.leap.n <= CXD_LEAP_HIST,
	      "leap pw %u n %u", m->priv->pf.leap.pw, m->priv->pf.leap.n);
	CHECK(m->priv->pf.fdp.level >= 1 && m->priv->pf.fdp.level <= CXD_FDP_LEVELS,
	      "fdp level %u", m->priv->pf.fdp.level);
}

static bool prefetched(const struct cxd_access *acc, uint64_t page)
{
	uint32_t i;

	for (i = 0; i < acc->nprefetched; i++)
		if (acc->prefetched[i] == page)
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	struct cxd_model_cfg cfg;
	struct cxd_model m;
	uint64_t now = 0, inserted = 0, evicted = 0;
	uint32_t ways, divisors[8], nd = 0, d;
	unsigned int op_count = 0;
	size_t msize;
	void *mem;

	memset(&cfg, 0, sizeof(cfg));
	cfg.npages = 1 + take(&in, 2) % 2048;
	cfg.nlines = 1 + take(&in, 2) % cfg.npages;
	/* ways: 0 (full) or a divisor of nlines */
	divisors[nd++] = 0;
	for (d = 1; d <= cfg.nlines && nd < 8; d *= 2)
		if (cfg.nlines % d == 0)
			divisors[nd++] = d;
	ways = divisors[take(&in, 1) % nd];
	cfg.ways = ways;
	cfg.policy = take(&in, 1) % CXD_POLICY_NR;
	cfg.nand.channels = 1 + take(&in, 1) % 8;
	cfg.nand.dies_per_channel = 1 + take(&in, 1) % 8;
	cfg.nand.planes_per_die = 1 + take(&in, 1) % 4;
	cfg.nand.nand_page_size = CXD_MIN_NAND_PAGE << (take(&in, 1) % 5);
	cfg.nand.pages_per_block = take(&in, 1) % 2 ? 1 + take(&in, 1) % 64 : 0;
	cfg.nand.t_read_ns = take(&in, 2) * 10;
	cfg.nand.t_prog_ns = take(&in, 2) * 10;
	cfg.nand.t_bers_ns = take(&in, 2) * 100;
	cfg.nand.channel_mbps = 1 + take(&in, 2) % CXD_MAX_CHANNEL_MBPS;
	cfg.nand.xfer_model = take(&in, 1) % 2;
	cfg.nand.stripe = take(&in, 1) % CXD_STRIPE_NR;
	/*
	 * The controller's limits, from bytes already taken (a new byte
	 * would shift every input of the regression corpus): often off.
	 */
	cfg.nand.mshr = (cfg.nand.t_prog_ns / 10) % 7 < 3 ?
			(cfg.nand.t_prog_ns / 70) % 5 : 0;
	cfg.nand.ctrl_ns = (cfg.nand.t_bers_ns / 100) % 4 == 1 ?
			   cfg.nand.t_read_ns / 3 : 0;
	cfg.nand.link_mbps = cfg.nand.channel_mbps % 3 == 0 ?
			     cfg.nand.channel_mbps * 7 : 0;

	if (cfg.nand.pages_per_block >= 2 && (cfg.nand.t_read_ns / 10) % 2) {
		cfg.ftl.mode = CXD_FTL_PAGE;
		cfg.ftl.op_pct = (cfg.nand.t_prog_ns / 10) % 101;
		cfg.ftl.gc_low = 1 + (cfg.nand.t_bers_ns / 100) % 3;
		cfg.ftl.gc_high = cfg.ftl.gc_low + 1 +
				  (cfg.nand.t_bers_ns / 300) % 3;
		if (cxd_ftl_check(&cfg))
			memset(&cfg.ftl, 0, sizeof(cfg.ftl));
	}
	msize = cxd_model_cfg_state_size(&cfg);
	if (!msize)
		return 0;	/* invalid shape: refused, nothing to check */
	mem = malloc(msize);
	if (!mem)
		return 0;
	CHECK(!cxd_model_init_cfg(&m, &cfg, mem), "init");
	m.prefetch = take(&in, 1) % CXD_PF_NR;
	m.prefetch_degree = take(&in, 1) % (CXD_MAX_PREFETCH_DEGREE + 1);
	m.prefetch_distance = take(&in, 1) % 8;
	m.write_alloc = take(&in, 1) % 2;
	m.skip_unwritten = take(&in, 1) % 2;
	m.writeback = take(&in, 1) % CXD_WB_NR;
	m.drain_high_pct = 1 + take(&in, 1) % 100;
	m.drain_low_pct = take(&in, 1) % m.drain_high_pct;
	cxd_model_set_seed(&m, take(&in, 4));
	if (cfg.ftl.mode && (cfg.nand.t_read_ns / 20) % 2) {
		cxd_model_ftl_fill(&m);
		check_ftl(&m);
	}

	while (in.n) {
		unsigned int op = take(&in, 1) % 17;
		uint64_t pg = take(&in, 2) % (cfg.npages + 2);	/* some out of range */
		struct cxd_access acc;
		bool before;
		uint32_t i;

		switch (op) {
		case 0 ... 9: {		/* access */
			bool write = op & 1;

			before = cxd_cache_resident(&m.cache, pg);
			cxd_model_access(&m, pg, write ? CXD_ACC_WRITE : 0, now, &acc);
			CHECK(acc.done_ns >= now, "done %lu now %lu",
			      (unsigned long)acc.done_ns, (unsigned long)now);
			if (pg >= cfg.npages) {
				CHECK(!acc.nvictims && !acc.nprefetched, "out of range page");
				break;
			}
			CHECK(acc.hit == before, "hit %d resident before %d", acc.hit, before);
			CHECK(cxd_cache_resident(&m.cache, pg), "accessed page %lu not resident",
			      (unsigned long)pg);
			if (write)
				CHECK(cxd_cache_dirty(&m.cache, pg), "written page not dirty");
			CHECK(acc.nvictims <= CXD_MAX_VICTIMS, "nvictims %u", acc.nvictims);
			/* A victim is gone, unless a prefetch of this access brought it back. */
			for (i = 0; i < acc.nvictims; i++) {
				CHECK(acc.victims[i].page != pg, "accessed page evicted");
				CHECK(!cxd_cache_resident(&m.cache, acc.victims[i].page) ||
				      prefetched(&acc, acc.victims[i].page),
				      "victim %lu still resident",
				      (unsigned long)acc.victims[i].page);
			}
			CHECK(acc.nprefetched <= CXD_MAX_PREFETCH_DEGREE, "nprefetched");
			inserted += (before ? 0 : 1) + acc.nprefetched;
			evicted += acc.nvictims;
			now += 1 + take(&in, 1) * 100;
			break;
		}
		case 10:		/* first write to a mapped page */
			before = cxd_cache_resident(&m.cache, pg);
			CHECK((cxd_cache_set_dirty(&m.cache, pg) == 0) == before, "set_dirty");
			break;
		case 11:		/* the accessed-bit scan saw the page */
			cxd_cache_touch(&m.cache, pg);
			break;
		case 12:
			CHECK(!cxd_cache_set_policy(&m.cache, take(&in, 1) % CXD_POLICY_NR),
			      "set_policy");
			CHECK(!cxd_cache_set_cflru_window(&m.cache, pg % 101),
			      "cflru window");
			check_queues(&m.cache);
			break;
		case 13:
			m.prefetch = take(&in, 1) % CXD_PF_NR;
			m.prefetch_degree = take(&in, 1) % (CXD_MAX_PREFETCH_DEGREE + 1);
			/* the learned prefetchers' parameters, any value */
			m.pf.bop_score_max = pg % 300;
			m.pf.bop_round_max = pg % 5;
			m.pf.bop_bad_score = pg % 3;
			m.pf.leap_split = pg % 40;
			m.pf.leap_window_max = pg % 20;
			m.pf.fdp_interval = pg % 9;
			break;
		case 14:
			cxd_model_reset_stats(&m);
			break;
		case 15:
			now += take(&in, 3) * 1000;
			break;
		case 16: {		/* the background drain ran */
			struct cxd_victim dv[32];
			uint32_t n = cxd_model_drain(&m, now, dv, 1 + pg % 32);
			uint32_t low = (uint32_t)((uint64_t)m.cache.nlines *
						  m.drain_low_pct / 100);

			CHECK(n <= 1 + pg % 32, "drained %u", n);
			CHECK(m.cache.used >= low || !n, "drained below the low mark");
			for (i = 0; i < n; i++)
				CHECK(!cxd_cache_resident(&m.cache, dv[i].page),
				      "drained page %lu still resident",
				      (unsigned long)dv[i].page);
			evicted += n;
			break;
		}
		}
		check_counters(&m, inserted, evicted);
		check_learned(&m);
		if (++op_count % 64 == 0) {
			CHECK(count_resident(&m) == m.cache.used, "resident set");
			check_queues(&m.cache);
			check_ftl(&m);
		}
	}
	CHECK(count_resident(&m) == m.cache.used, "resident set at end");
	check_queues(&m.cache);
	check_ftl(&m);
	free(mem);
	return 0;
}
