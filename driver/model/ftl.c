// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: a page-mapped FTL with greedy garbage collection.
 *
 * Each plane is an FTL of its own: it holds the host pages that stripe to
 * it (the NAND section's layout, so a read lands on the die it would land
 * on without an FTL) in blocks = ceil(ceil(L * (100 + op_pct) / 100) /
 * pages_per_block) erase blocks, L its logical pages. A write-back programs
 * the page out of place at the plane's write point and invalidates its old
 * copy. A write that leaves a plane with fewer than gc_low free blocks
 * starts garbage collection there; from then on every write-back to the
 * plane reclaims one block, until the plane has gc_high free blocks: the
 * victim is the full block with the fewest valid pages (greedy; among
 * equals the one that has been there longest), its valid pages are copied
 * to the write point inside the die, then it is erased. The die is busy
 * meanwhile (cxd_nand_gc()), so a demand miss that needs it waits: GC on
 * the load path.
 *
 * One block per write-back is enough: while a plane is below gc_high free
 * blocks, the victim has an invalid page (cxd_ftl_check() leaves gc_high + 1
 * blocks of spare pages), so each write-back frees at least the page it
 * takes, and the plane never runs out (collection starts with at least
 * gc_low blocks minus one page free, and a victim needs at most
 * pages_per_block - 1).
 *
 * Cost: a write-back is O(1) plus, while its plane collects, O(pages per
 * block) for the copies and the victim: full blocks sit in buckets by
 * valid count (as in MQSim and real FTLs), so the victim is the first
 * block of the lowest non-empty bucket, found from a lower bound that
 * falls by at most one per invalidated page. Nothing depends on the
 * number of blocks, so the work per write-back does not grow with
 * capacity.
 *
 * Pure C: no kernel or libc calls.
 */
#include "model_internal.h"
#include "nand.h"
#include "names.h"

#define FTL_NONE	(~(uint32_t)0)

enum { BLK_FREE = 0, BLK_OPEN = 1, BLK_FULL = 2, BLK_VICTIM = 3 };

static const char *const cxd_ftl_names[CXD_FTL_NR] = {
	[CXD_FTL_OFF] = "off",
	[CXD_FTL_PAGE] = "page",
};

CXD_NAMED_ENUM(cxd_ftl, enum cxd_ftl_mode, cxd_ftl_names, CXD_FTL_NR)

struct ftl_geo {
	uint64_t units, lpp, blocks, ppb;
};

static uint64_t align8(uint64_t v)
{
	return (v + 7) & ~(uint64_t)7;
}

/* Geometry of @cfg's FTL; Return: NULL or why it cannot be built. */
static const char *ftl_geometry(const struct cxd_model_cfg *cfg,
				struct ftl_geo *g)
{
	const struct cxd_ftl_cfg *f = &cfg->ftl;
	uint64_t per, np, need, spare;

	if (f->mode >= CXD_FTL_NR)
		return "ftl: unknown mode";
	if (cxd_nand_cfg_valid(&cfg->nand))
		return "ftl: invalid NAND geometry";
	g->ppb = cfg->nand.pages_per_block;
	if (g->ppb < 2)
		return "ftl: ftl=page needs pages_per_block >= 2";
	if (f->op_pct > CXD_FTL_MAX_OP_PCT)
		return "ftl: op_pct above 100";
	if (f->gc_low < 1 || f->gc_high <= f->gc_low)
		return "ftl: gc_low must be >= 1 and below gc_high";
	g->units = (uint64_t)cfg->nand.channels * cfg->nand.dies_per_channel *
		   cxd_nand_planes(&cfg->nand);
	per = cfg->nand.nand_page_size / CXD_HOST_PAGE_SIZE;
	np = (cfg->npages + per - 1) / per;
	g->lpp = (np + g->units - 1) / g->units * per;
	need = (g->lpp * (100 + f->op_pct) + 99) / 100;
	g->blocks = (need + g->ppb - 1) / g->ppb;
	spare = g->blocks * g->ppb - g->lpp;
	if (spare < (f->gc_high + 1) * g->ppb)
		return "ftl: too few spare blocks per plane: capacity + op_pct must leave gc_high + 1 blocks (raise op_pct, or lower pages_per_block or gc_high)";
	if (g->units * g->blocks * g->ppb >= FTL_NONE)
		return "ftl: too many physical pages (more than 2^32)";
	return NULL;
}

/**
 * cxd_ftl_check() - can the FTL of @cfg be built?
 * @cfg: model configuration (npages, NAND geometry, FTL).
 *
 * Checks pages_per_block >= 2, op_pct <= 100, 1 <= gc_low < gc_high, and
 * that each plane's blocks leave at least gc_high + 1 blocks beyond its
 * logical pages (GC's target, plus the block being written), and that the
 * physical pages fit in 32 bits.
 *
 * Return: NULL if the FTL is off or can be built, else a one-line reason
 * starting "ftl: ".
 */
const char *cxd_ftl_check(const struct cxd_model_cfg *cfg)
{
	struct ftl_geo g;

	if (!cfg || cfg->ftl.mode == CXD_FTL_OFF)
		return NULL;
	return ftl_geometry(cfg, &g);
}

/**
 * cxd_ftl_state_size() - bytes of FTL state for @cfg.
 * @cfg: model configuration.
 *
 * Layout (each array 8-byte aligned): l2p u32[npages], p2l u32[physical
 * pages], valid u32[blocks], free_stack u32[blocks], state u8[blocks],
 * nfree, open, wp u32[planes], gc_end u64[2 * dies] (start and end),
 * bhead u32[planes * (pages_per_block + 1)], bnext, bprev u32[blocks],
 * minv u32[planes], gc_on u8[planes].
 *
 * Return: 0 with the FTL off, (size_t)-1 if it cannot be built, else the
 * size.
 */
size_t cxd_ftl_state_size(const struct cxd_model_cfg *cfg)
{
	uint64_t nblk, ndies, sz;
	struct ftl_geo g;

	if (cfg->ftl.mode == CXD_FTL_OFF)
		return 0;
	if (ftl_geometry(cfg, &g))
		return (size_t)-1;
	nblk = g.units * g.blocks;
	ndies = (uint64_t)cfg->nand.channels * cfg->nand.dies_per_channel;
	sz = align8(cfg->npages * 4) + align8(nblk * g.ppb * 4) +
	     2 * align8(nblk * 4) + align8(nblk) + 3 * align8(g.units * 4) +
	     2 * ndies * 8 + align8(g.units * (g.ppb + 1) * 4) +
	     2 * align8(nblk * 4) + align8(g.units * 4) + align8(g.units);
	return (size_t)sz;
}

/**
 * cxd_ftl_init() - set up an empty FTL over @mem.
 * @f:   FTL state.
 * @cfg: configuration, with a buildable FTL (cxd_ftl_check()).
 * @mem: cxd_ftl_state_size() bytes, 8-byte aligned, any content.
 *
 * No page is mapped; each plane's first block is open, the others free.
 */
void cxd_ftl_init(struct cxd_ftl *f, const struct cxd_model_cfg *cfg,
		  void *mem)
{
	uint64_t nblk, ndies, i, u, b;
	unsigned char *p = mem;
	struct ftl_geo g;

	f->cfg = cfg->ftl;
	if (cfg->ftl.mode == CXD_FTL_OFF || ftl_geometry(cfg, &g)) {
		f->cfg.mode = CXD_FTL_OFF;
		return;
	}
	f->units = (uint32_t)g.units;
	f->blocks = (uint32_t)g.blocks;
	f->ppb = (uint32_t)g.ppb;
	f->lpp = (uint32_t)g.lpp;
	nblk = g.units * g.blocks;
	ndies = (uint64_t)cfg->nand.channels * cfg->nand.dies_per_channel;

	f->l2p = (uint32_t *)p;
	p += align8(cfg->npages * 4);
	f->p2l = (uint32_t *)p;
	p += align8(nblk * g.ppb * 4);
	f->valid = (uint32_t *)p;
	p += align8(nblk * 4);
	f->free_stack = (uint32_t *)p;
	p += align8(nblk * 4);
	f->state = (uint8_t *)p;
	p += align8(nblk);
	f->nfree = (uint32_t *)p;
	p += align8(g.units * 4);
	f->open = (uint32_t *)p;
	p += align8(g.units * 4);
	f->wp = (uint32_t *)p;
	p += align8(g.units * 4);
	f->gc_end = (uint64_t *)p;
	p += 2 * ndies * 8;
	f->bhead = (uint32_t *)p;
	p += align8(g.units * (g.ppb + 1) * 4);
	f->bnext = (uint32_t *)p;
	p += align8(nblk * 4);
	f->bprev = (uint32_t *)p;
	p += align8(nblk * 4);
	f->minv = (uint32_t *)p;
	p += align8(g.units * 4);
	f->gc_on = (uint8_t *)p;

	for (i = 0; i < cfg->npages; i++)
		f->l2p[i] = FTL_NONE;
	for (i = 0; i < nblk * g.ppb; i++)
		f->p2l[i] = FTL_NONE;
	for (u = 0; u < g.units; u++) {
		/* block 0 open; blocks blocks-1 .. 1 on the stack, 1 on top */
		for (b = 0; b < g.blocks; b++) {
			f->valid[u * g.blocks + b] = 0;
			f->state[u * g.blocks + b] = b ? BLK_FREE : BLK_OPEN;
			if (b)
				f->free_stack[u * g.blocks + b - 1] =
					(uint32_t)(g.blocks - b);
		}
		f->nfree[u] = (uint32_t)(g.blocks - 1);
		f->open[u] = 0;
		f->wp[u] = 0;
		f->minv[u] = (uint32_t)g.ppb;
		f->gc_on[u] = 0;
	}
	for (i = 0; i < g.units * (g.ppb + 1); i++)
		f->bhead[i] = FTL_NONE;
	for (i = 0; i < 2 * ndies; i++)
		f->gc_end[i] = 0;
}

/* Append full block @b of plane @u to the bucket of its valid count. */
static void bucket_add(struct cxd_ftl *f, uint32_t u, uint32_t b)
{
	uint32_t base = u * f->blocks, v = f->valid[base + b];
	uint32_t *head = &f->bhead[u * (f->ppb + 1) + v], h = *head, t;

	if (h == FTL_NONE) {
		f->bnext[base + b] = b;
		f->bprev[base + b] = b;
		*head = b;
	} else {
		t = f->bprev[base + h];
		f->bnext[base + t] = b;
		f->bprev[base + b] = t;
		f->bnext[base + b] = h;
		f->bprev[base + h] = b;
	}
	if (v < f->minv[u])
		f->minv[u] = v;
}

/* Take full block @b of plane @u out of its bucket. */
static void bucket_del(struct cxd_ftl *f, uint32_t u, uint32_t b)
{
	uint32_t base = u * f->blocks, v = f->valid[base + b];
	uint32_t *head = &f->bhead[u * (f->ppb + 1) + v];
	uint32_t n = f->bnext[base + b], pv = f->bprev[base + b];

	if (n == b) {
		*head = FTL_NONE;
		return;
	}
	f->bnext[base + pv] = n;
	f->bprev[base + n] = pv;
	if (*head == b)
		*head = n;
}

/* Next physical page of plane @u (opening a free block when needed). */
static uint32_t ftl_alloc(struct cxd_ftl *f, uint32_t u)
{
	uint32_t base = u * f->blocks, blk;

	if (f->wp[u] == f->ppb) {
		f->state[base + f->open[u]] = BLK_FULL;
		bucket_add(f, u, f->open[u]);
		/* cxd_ftl_check() keeps a free block for this */
		blk = f->free_stack[base + --f->nfree[u]];
		f->state[base + blk] = BLK_OPEN;
		f->open[u] = blk;
		f->wp[u] = 0;
	}
	return (base + f->open[u]) * f->ppb + f->wp[u]++;
}

/* Map host @page to a new physical page of plane @u. */
static void ftl_map(struct cxd_ftl *f, uint32_t u, uint32_t page)
{
	uint32_t old = f->l2p[page], ppn, ob;

	if (old != FTL_NONE) {
		ob = old / f->ppb;
		f->p2l[old] = FTL_NONE;
		if (f->state[ob] == BLK_FULL) {
			bucket_del(f, u, ob - u * f->blocks);
			f->valid[ob]--;
			bucket_add(f, u, ob - u * f->blocks);
		} else {
			f->valid[ob]--;
		}
	}
	ppn = ftl_alloc(f, u);
	f->p2l[ppn] = page;
	f->l2p[page] = ppn;
	f->valid[ppn / f->ppb]++;
}

/*
 * Greedy: take the full block of plane @u with the fewest valid pages, the
 * oldest of them, out of its bucket. Return: its plane-relative index, or
 * FTL_NONE if every full block is valid throughout (nothing to gain).
 */
static uint32_t ftl_victim(struct cxd_ftl *f, uint32_t u)
{
	const uint32_t *heads = &f->bhead[u * (f->ppb + 1)];
	uint32_t v, b;

	for (v = f->minv[u]; v < f->ppb; v++) {
		b = heads[v];
		if (b == FTL_NONE)
			continue;
		f->minv[u] = v;
		bucket_del(f, u, b);
		f->state[u * f->blocks + b] = BLK_VICTIM;
		return b;
	}
	f->minv[u] = f->ppb;
	return FTL_NONE;
}

/*
 * Reclaim one block of plane @u (holding host @page), and stop collecting
 * once the plane has gc_high free blocks. With @m->nand timing (@timed),
 * the block occupies the die from @now_ns (cxd_nand_gc()) and is counted.
 */
static void ftl_gc_step(struct cxd_model *m, uint32_t u, uint64_t page,
			uint64_t now_ns, bool timed)
{
	struct cxd_ftl *f = &m->priv->ftl;
	uint32_t base = u * f->blocks, blk, i, moved = 0, lp;
	uint64_t die, start, end;

	blk = ftl_victim(f, u);
	if (blk == FTL_NONE) {
		f->gc_on[u] = 0;
		return;
	}
	for (i = 0; i < f->ppb; i++) {
		lp = f->p2l[(base + blk) * f->ppb + i];
		if (lp == FTL_NONE)
			continue;
		ftl_map(f, u, lp);
		moved++;
	}
	f->state[base + blk] = BLK_FREE;
	f->valid[base + blk] = 0;
	f->free_stack[base + f->nfree[u]++] = blk;
	if (f->nfree[u] >= f->cfg.gc_high)
		f->gc_on[u] = 0;
	if (!timed)
		return;
	end = cxd_nand_gc(&m->nand, page, moved, now_ns, &start);
	die = cxd_nand_die_of(&m->nand, page, NULL);
	f->gc_end[2 * die] = start;
	f->gc_end[2 * die + 1] = end;
	m->ftl_stats.gc_runs++;
	m->ftl_stats.gc_moved += moved;
	m->ftl_stats.nand_writes += moved;
}

/*
 * Write host @page into its plane's FTL; start collecting if the plane
 * runs short, and reclaim one block while it collects.
 */
static void ftl_write(struct cxd_model *m, uint64_t page, uint64_t now_ns,
		      bool timed)
{
	struct cxd_ftl *f = &m->priv->ftl;
	uint64_t unit;

	cxd_nand_die_of(&m->nand, page, &unit);
	ftl_map(f, (uint32_t)unit, (uint32_t)page);
	if (f->nfree[unit] < f->cfg.gc_low)
		f->gc_on[unit] = 1;
	if (f->gc_on[unit])
		ftl_gc_step(m, (uint32_t)unit, page, now_ns, timed);
}

/**
 * cxd_ftl_write() - a write-back of host @page was programmed at @now_ns
 * (cxd_nand_program()): map it out of place, invalidate its old copy,
 * count it, and reclaim one block of its plane while the plane collects
 * (below gc_low free blocks, until it has gc_high; the GC queues on the
 * die behind the program). O(pages_per_block) at most, whatever the
 * capacity.
 * @m:      model with an FTL.
 * @page:   host page (< npages).
 * @now_ns: when the write-back was issued.
 */
void cxd_ftl_write(struct cxd_model *m, uint64_t page, uint64_t now_ns)
{
	m->ftl_stats.host_writes++;
	m->ftl_stats.nand_writes++;
	ftl_write(m, page, now_ns, true);
}

/**
 * cxd_ftl_read_stall() - count how long a demand read waited behind GC.
 * @m:      model with an FTL.
 * @page:   host page read.
 * @now_ns: arrival of the miss.
 * @read:   the read as scheduled (start_ns: when its die started it).
 *
 * The wait caused by GC is the part of [arrival, start) that the last GC
 * of the page's die covered. A positive wait counts one stalled miss.
 */
void cxd_ftl_read_stall(struct cxd_model *m, uint64_t page, uint64_t now_ns,
			const struct cxd_nand_op *read)
{
	uint64_t die = cxd_nand_die_of(&m->nand, page, NULL);
	const uint64_t *gc_end = m->priv->ftl.gc_end;
	uint64_t gs = gc_end[2 * die], ge = gc_end[2 * die + 1];
	uint64_t from = gs > now_ns ? gs : now_ns;
	uint64_t to = read->start_ns < ge ? read->start_ns : ge;

	if (to > from) {
		m->ftl_stats.gc_stalls++;
		m->ftl_stats.gc_stall_ns += to - from;
	}
}

/**
 * cxd_model_ftl_fill() - precondition the FTL (map every host page once).
 * @m: model.
 *
 * Pages not yet mapped are written in page order without time passing and
 * without counting, so a run starts from a full device: every later
 * write-back overwrites, as on an SSD in steady state. No-op without an
 * FTL. O(npages).
 */
void cxd_model_ftl_fill(struct cxd_model *m)
{
	uint64_t p;

	if (m->priv->ftl.cfg.mode == CXD_FTL_OFF)
		return;
	for (p = 0; p < m->cache.npages; p++)
		if (m->priv->ftl.l2p[p] == FTL_NONE)
			ftl_write(m, p, 0, false);
}
