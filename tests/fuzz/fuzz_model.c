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
 *     resident pages.
 *
 * Build and run: make fuzz (longer) or the smoke run in make check.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cxdvirt/model.h>

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
			break;
		case 13:
			m.prefetch = take(&in, 1) % CXD_PF_NR;
			m.prefetch_degree = take(&in, 1) % (CXD_MAX_PREFETCH_DEGREE + 1);
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
		if (++op_count % 64 == 0)
			CHECK(count_resident(&m) == m.cache.used, "resident set");
	}
	CHECK(count_resident(&m) == m.cache.used, "resident set at end");
	free(mem);
	return 0;
}
