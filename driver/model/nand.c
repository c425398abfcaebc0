// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: NAND timing.
 *
 * Each plane of each die and each channel has a "next free" time (absolute
 * ns). A read occupies its plane for tR and then its channel for one page
 * transfer; a program (write-back) occupies the channel for one transfer and
 * then the plane for tPROG (preceded by tBERS when it opens a new block).
 * There is no queueing structure beyond these times, so every operation is
 * O(1). Also here: the table of named NAND presets. Pure C: no kernel or
 * libc calls.
 */
#include "nand.h"
#include "names.h"

static inline uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* log2 of a power of two (floor of log2 for others); 0 for 0. */
static unsigned int ilog2_u32(uint32_t v)
{
	return v ? 31 - (unsigned int)__builtin_clz(v) : 0;
}

/*
 * *@np % @d, leaving *@np / @d in *@np. A 32-bit division where the value
 * fits (host page numbers always do): several times cheaper than a 64-bit
 * one on x86-64, same result.
 */
static uint32_t divmod(uint64_t *np, uint32_t d)
{
	uint64_t v = *np;
	uint32_t r;

	if (v >> 32) {
		r = (uint32_t)(v % d);
		*np = v / d;
	} else {
		r = (uint32_t)v % d;
		*np = (uint32_t)v / d;
	}
	return r;
}

/* 8-byte aligned size of an array of @n u64 values. */
static size_t u64_array_bytes(uint64_t n)
{
	return (size_t)n * sizeof(uint64_t);
}

/**
 * cxd_nand_cfg_valid() - check @cfg against the CXD_* bounds.
 * @cfg: configuration; NULL is invalid.
 *
 * Return: 0 if channels, dies_per_channel, nand_page_size (bytes, power of
 * two), t_read_ns, t_prog_ns (ns), channel_mbps (MB/s), planes_per_die
 * (<= CXD_MAX_PLANES), pages_per_block (<= CXD_MAX_PAGES_PER_BLOCK),
 * t_bers_ns (ns), xfer_model, stripe and the controller's mshr
 * (<= CXD_MAX_MSHR), ctrl_ns (ns) and link_mbps (<= CXD_MAX_LINK_MBPS) are
 * all in range, else -1.
 */
int cxd_nand_cfg_valid(const struct cxd_nand_cfg *cfg)
{
	if (!cfg)
		return -1;
	if (cfg->channels < 1 || cfg->channels > CXD_MAX_CHANNELS)
		return -1;
	if (cfg->dies_per_channel < 1 ||
	    cfg->dies_per_channel > CXD_MAX_DIES_PER_CH)
		return -1;
	if (cfg->nand_page_size < CXD_MIN_NAND_PAGE ||
	    cfg->nand_page_size > CXD_MAX_NAND_PAGE ||
	    (cfg->nand_page_size & (cfg->nand_page_size - 1)))
		return -1;
	if (cfg->t_read_ns > CXD_MAX_LATENCY_NS ||
	    cfg->t_prog_ns > CXD_MAX_LATENCY_NS)
		return -1;
	if (cfg->channel_mbps < 1 || cfg->channel_mbps > CXD_MAX_CHANNEL_MBPS)
		return -1;
	if (cfg->planes_per_die > CXD_MAX_PLANES ||
	    cfg->pages_per_block > CXD_MAX_PAGES_PER_BLOCK ||
	    cfg->t_bers_ns > CXD_MAX_LATENCY_NS ||
	    cfg->xfer_model >= CXD_XFER_NR || cfg->stripe >= CXD_STRIPE_NR)
		return -1;
	if (cfg->mshr > CXD_MAX_MSHR || cfg->ctrl_ns > CXD_MAX_LATENCY_NS ||
	    cfg->link_mbps > CXD_MAX_LINK_MBPS)
		return -1;
	return 0;
}

static const char *const cxd_stripe_names[CXD_STRIPE_NR] = {
	[CXD_STRIPE_CHANNEL] = "channel",
	[CXD_STRIPE_DIE] = "die",
	[CXD_STRIPE_PLANE] = "plane",
};

CXD_NAMED_ENUM(cxd_stripe, enum cxd_stripe, cxd_stripe_names, CXD_STRIPE_NR)

static const char *const cxd_xfer_names[CXD_XFER_NR] = {
	[CXD_XFER_EXACT]	= "exact",
	[CXD_XFER_NVMEVIRT]	= "nvmevirt",
};

CXD_NAMED_ENUM(cxd_xfer_model, enum cxd_xfer_model, cxd_xfer_names,
	       CXD_XFER_NR)

/**
 * cxd_nand_planes() - planes per die.
 * @cfg: configuration.
 *
 * Return: @cfg->planes_per_die, or 1 when it is 0.
 */
uint32_t cxd_nand_planes(const struct cxd_nand_cfg *cfg)
{
	return cfg->planes_per_die ? cfg->planes_per_die : 1;
}

/**
 * cxd_nand_state_size() - bytes of state for @cfg.
 * @cfg: configuration.
 *
 * Layout: die_free[channels * dies * planes], chan_free[channels],
 * die_busy[channels * dies], progs[channels * dies * planes] when
 * pages_per_block != 0, and reg_page[channels * dies * planes] when
 * nand_page_size > 4096, all u64 (so every array is 8-byte aligned).
 *
 * Return: size in bytes, or 0 if @cfg is invalid.
 */
size_t cxd_nand_state_size(const struct cxd_nand_cfg *cfg)
{
	uint64_t ndies, nunits;

	if (cxd_nand_cfg_valid(cfg))
		return 0;
	ndies = (uint64_t)cfg->channels * cfg->dies_per_channel;
	nunits = ndies * cxd_nand_planes(cfg);
	return u64_array_bytes(nunits) + u64_array_bytes(cfg->channels) +
	       u64_array_bytes(ndies) +
	       (cfg->pages_per_block ? u64_array_bytes(nunits) : 0) +
	       (cfg->nand_page_size > CXD_HOST_PAGE_SIZE ?
		u64_array_bytes(nunits) : 0);
}

/**
 * cxd_nand_init() - set up @n over @mem.
 * @n:   NAND state to initialise.
 * @cfg: configuration, copied into @n.
 * @mem: cxd_nand_state_size(@cfg) bytes, 8-byte aligned, any content.
 *
 * All planes and channels start free at time 0 with no busy time, no
 * programs and no erases.
 *
 * Return: 0, or -1 if @cfg is invalid (@n and @mem untouched).
 */
int cxd_nand_init(struct cxd_nand *n, const struct cxd_nand_cfg *cfg, void *mem)
{
	uint64_t ndies, nunits, i;
	uint64_t *p = mem;

	if (!n || !mem || cxd_nand_cfg_valid(cfg))
		return -1;
	n->cfg = *cfg;
	ndies = (uint64_t)cfg->channels * cfg->dies_per_channel;
	nunits = ndies * cxd_nand_planes(cfg);
	n->die_free = p;
	p += nunits;
	n->chan_free = p;
	p += cfg->channels;
	n->die_busy = p;
	p += ndies;
	n->progs = NULL;
	if (cfg->pages_per_block) {
		n->progs = p;
		p += nunits;
	}
	n->reg_page = cfg->nand_page_size > CXD_HOST_PAGE_SIZE ? p : NULL;
	n->erases = 0;
	n->ftl = false;
	for (i = 0; i < nunits; i++) {
		n->die_free[i] = 0;
		if (n->progs)
			n->progs[i] = 0;
		if (n->reg_page)
			n->reg_page[i] = CXD_NO_PAGE;
	}
	for (i = 0; i < ndies; i++)
		n->die_busy[i] = 0;
	for (i = 0; i < cfg->channels; i++)
		n->chan_free[i] = 0;
	return 0;
}

/* NVMeVirt's transfer unit (bytes) and its MB(): a shift by 20. */
#define NVMEVIRT_UNIT_BYTES	128ull

/**
 * cxd_nand_xfer_ns() - channel time of one NAND page transfer.
 * @cfg: configuration.
 *
 * CXD_XFER_EXACT: ceil(nand_page_size [bytes] * 1000 / channel_mbps [MB/s])
 * in ns, e.g. 3414 ns for 4096 bytes at 1200 MB/s.
 * CXD_XFER_NVMEVIRT: ceil(bytes / 128) * floor(128 * 10^9 /
 * (channel_mbps * 2^20)) ns, e.g. 32 * 101 = 3232 ns for 4096 bytes at
 * 1200 (NVMeVirt's channel model on an idle channel).
 *
 * Return: ns; 0 if channel_mbps is 0.
 */
uint64_t cxd_nand_xfer_ns(const struct cxd_nand_cfg *cfg)
{
	uint64_t bytes_x1000 = (uint64_t)cfg->nand_page_size * 1000;
	uint64_t units, unit_ns;

	if (!cfg->channel_mbps)
		return 0;
	if (cfg->xfer_model == CXD_XFER_NVMEVIRT) {
		units = (cfg->nand_page_size + NVMEVIRT_UNIT_BYTES - 1) /
			NVMEVIRT_UNIT_BYTES;
		unit_ns = NVMEVIRT_UNIT_BYTES * 1000000000ull /
			  ((uint64_t)cfg->channel_mbps << 20);
		return units * unit_ns;
	}
	return (bytes_x1000 + cfg->channel_mbps - 1) / cfg->channel_mbps;
}

/* Where a NAND page lives: channel, die, plane, and the array indexes. */
struct nand_loc {
	uint64_t nand_page;
	uint32_t ch, die, plane;
	uint64_t die_idx;	/* into die_busy[] */
	uint64_t unit;		/* into die_free[] and progs[] */
};

static void nand_locate(const struct cxd_nand *n, uint64_t page,
			struct nand_loc *loc)
{
	unsigned int shift = ilog2_u32(n->cfg.nand_page_size) -
			     ilog2_u32(CXD_HOST_PAGE_SIZE);
	uint64_t np = page >> shift;
	uint32_t planes = cxd_nand_planes(&n->cfg);

	loc->nand_page = np;
	switch (n->cfg.stripe) {
	case CXD_STRIPE_DIE:
		loc->die = divmod(&np, n->cfg.dies_per_channel);
		loc->ch = divmod(&np, n->cfg.channels);
		loc->plane = divmod(&np, planes);
		break;
	case CXD_STRIPE_PLANE:
		loc->plane = divmod(&np, planes);
		loc->ch = divmod(&np, n->cfg.channels);
		loc->die = divmod(&np, n->cfg.dies_per_channel);
		break;
	default:	/* CXD_STRIPE_CHANNEL */
		loc->ch = divmod(&np, n->cfg.channels);
		loc->die = divmod(&np, n->cfg.dies_per_channel);
		loc->plane = divmod(&np, planes);
		break;
	}
	loc->die_idx = (uint64_t)loc->ch * n->cfg.dies_per_channel + loc->die;
	loc->unit = loc->die_idx * planes + loc->plane;
}

static void nand_fill_op(struct cxd_nand_op *op, const struct nand_loc *loc,
			 uint64_t start, uint64_t done)
{
	if (!op)
		return;
	op->channel = loc->ch;
	op->die = loc->die;
	op->plane = loc->plane;
	op->start_ns = start;
	op->done_ns = done;
}

/**
 * cxd_nand_read() - schedule a read of the NAND page holding host @page.
 * @n:      NAND state.
 * @page:   host page number (4 KiB units).
 * @now_ns: arrival time (ns, absolute).
 * @op:     if not NULL, filled with location, die start and completion.
 *
 * start = max(now, plane free); the plane is busy for tR (and free again at
 * start + tR); the transfer starts at max(start + tR, channel free) and takes
 * cxd_nand_xfer_ns(); the channel is free again when it ends. A NAND page
 * larger than 4 KiB moves whole. Its plane's page register keeps it until
 * the plane's next program: a read of another host page of the same NAND
 * page meanwhile skips tR (only the transfer). One tR serves every host
 * page a NAND page holds.
 *
 * Return: completion time (end of the transfer), ns absolute.
 */
uint64_t cxd_nand_read(struct cxd_nand *n, uint64_t page, uint64_t now_ns,
		       struct cxd_nand_op *op)
{
	struct nand_loc loc;
	uint64_t start, read_end, xfer_start, done;

	nand_locate(n, page, &loc);

	start = max_u64(now_ns, n->die_free[loc.unit]);
	if (n->reg_page && n->reg_page[loc.unit] == loc.nand_page) {
		read_end = start;	/* still in the page register */
	} else {
		read_end = start + n->cfg.t_read_ns;
		n->die_free[loc.unit] = read_end;
		n->die_busy[loc.die_idx] += n->cfg.t_read_ns;
		if (n->reg_page)
			n->reg_page[loc.unit] = loc.nand_page;
	}

	xfer_start = max_u64(read_end, n->chan_free[loc.ch]);
	done = xfer_start + cxd_nand_xfer_ns(&n->cfg);
	n->chan_free[loc.ch] = done;

	nand_fill_op(op, &loc, start, done);
	return done;
}

/**
 * cxd_nand_program() - schedule a write-back of the NAND page holding @page.
 * @n:      NAND state.
 * @page:   host page number (4 KiB units).
 * @now_ns: arrival time (ns, absolute).
 * @op:     if not NULL, filled; start_ns is when the plane starts tPROG
 *          (or the erase before it).
 *
 * The transfer runs on the channel from max(now, channel free); tPROG then
 * runs on the plane from max(transfer end, plane free); the plane stays busy
 * until the program ends. With pages_per_block set, a program that opens a
 * new block (every pages_per_block-th of the plane, the first included) is
 * preceded by a tBERS erase on the plane (no valid-page copies: write
 * amplification 1).
 *
 * Return: completion time (end of tPROG), ns absolute.
 */
uint64_t cxd_nand_program(struct cxd_nand *n, uint64_t page, uint64_t now_ns,
			  struct cxd_nand_op *op)
{
	struct nand_loc loc;
	uint64_t xfer_end, start, busy, done;

	nand_locate(n, page, &loc);

	xfer_end = max_u64(now_ns, n->chan_free[loc.ch]) +
		   cxd_nand_xfer_ns(&n->cfg);
	n->chan_free[loc.ch] = xfer_end;

	start = max_u64(xfer_end, n->die_free[loc.unit]);
	busy = n->cfg.t_prog_ns;
	if (n->progs && n->cfg.pages_per_block && !n->ftl) {
		if (n->progs[loc.unit] % n->cfg.pages_per_block == 0) {
			busy += n->cfg.t_bers_ns;
			n->erases++;
		}
		n->progs[loc.unit]++;
	}
	done = start + busy;
	n->die_free[loc.unit] = done;
	if (n->reg_page)
		n->reg_page[loc.unit] = CXD_NO_PAGE;
	n->die_busy[loc.die_idx] += busy;

	nand_fill_op(op, &loc, start, done);
	return done;
}

/**
 * cxd_nand_die_of() - where host @page's NAND page lives.
 * @n:    NAND state.
 * @page: host page number.
 * @unit: if not NULL, set to its plane index (die index * planes + plane).
 *
 * Return: its die index, channel * dies_per_channel + die.
 */
uint64_t cxd_nand_die_of(const struct cxd_nand *n, uint64_t page,
			 uint64_t *unit)
{
	struct nand_loc loc;

	nand_locate(n, page, &loc);
	if (unit)
		*unit = loc.unit;
	return loc.die_idx;
}

/**
 * cxd_nand_gc() - schedule the garbage collection of one block.
 * @n:        NAND state.
 * @page:     a host page on the die (its plane's block is reclaimed).
 * @moved:    valid pages to copy.
 * @now_ns:   when GC is asked for (ns, absolute).
 * @start_ns: if not NULL, set to when the die starts it.
 *
 * The copies stay inside the die (copyback: tR then tPROG per page, no
 * channel transfer, no ECC pass through the controller), then the block is
 * erased (tBERS). GC holds the whole die: every plane of it is busy from
 * the latest of @now_ns and the planes' free times until the end. The die's
 * busy time grows by the duration, the erase count by one.
 *
 * Return: the end of the GC, ns absolute.
 */
uint64_t cxd_nand_gc(struct cxd_nand *n, uint64_t page, uint32_t moved,
		     uint64_t now_ns, uint64_t *start_ns)
{
	uint32_t planes = cxd_nand_planes(&n->cfg), p;
	uint64_t start = now_ns, first, dur, end;
	struct nand_loc loc;

	nand_locate(n, page, &loc);
	first = loc.die_idx * planes;
	for (p = 0; p < planes; p++)
		start = max_u64(start, n->die_free[first + p]);
	dur = (uint64_t)moved * (n->cfg.t_read_ns + n->cfg.t_prog_ns) +
	      n->cfg.t_bers_ns;
	end = start + dur;
	for (p = 0; p < planes; p++) {
		n->die_free[first + p] = end;
		if (n->reg_page)
			n->reg_page[first + p] = CXD_NO_PAGE;
	}
	n->die_busy[loc.die_idx] += dur;
	n->erases++;
	if (start_ns)
		*start_ns = start;
	return end;
}

/* ------------------------------------------------------------- presets -- */

/*
 * Named configurations. Each source line says where the figures come from;
 * figures without a source are marked "chosen".
 */
static const struct cxd_preset cxd_presets[] = {
	{
		.name = "znand",
		.source = "Samsung Z-NAND SLC tR 3 us, tPROG 100 us (Cheong et al., ISSCC 2018); tBERS 1 ms, 1200 MB/s, 4 KiB, 8 ch x 16 dies x 8 planes as the CXDVirt Z-NAND preset; 768 pages/block chosen",
		.nand = {
			.channels = 8,
			.dies_per_channel = 16,
			.nand_page_size = 4096,
			.t_read_ns = 3000,
			.t_prog_ns = 100000,
			.channel_mbps = 1200,
			.planes_per_die = 8,
			.pages_per_block = 768,
			.t_bers_ns = 1000000,
			.xfer_model = CXD_XFER_EXACT,
		},
	},
	{
		.name = "femu",
		.source = "FEMU blackbox SSD defaults (MoatLab/FEMU bbssd: 40/200/2000 us, 8 ch x 8 LUN, 1 plane, 4 KiB pages, 256 pages/block, ch_xfer_lat 0: fastest channel here)",
		.nand = {
			.channels = 8,
			.dies_per_channel = 8,
			.nand_page_size = 4096,
			.t_read_ns = 40000,
			.t_prog_ns = 200000,
			.channel_mbps = CXD_MAX_CHANNEL_MBPS,
			.planes_per_die = 1,
			.pages_per_block = 256,
			.t_bers_ns = 2000000,
			.xfer_model = CXD_XFER_EXACT,
		},
	},
	{
		.name = "tlc",
		.source = "TLC: 16 KiB pages, tR 50 us, tPROG 600 us (mid-range of 45-60 / 500-700 us TLC figures); tBERS 3.8 ms, 8 ch x 8 dies x 2 planes, 256 pages/block as MQSim's default ssdconfig.xml; 800 MB/s channel (ONFI 4.0 NV-DDR3 800 MT/s x8)",
		.nand = {
			.channels = 8,
			.dies_per_channel = 8,
			.nand_page_size = 16384,
			.t_read_ns = 50000,
			.t_prog_ns = 600000,
			.channel_mbps = 800,
			.planes_per_die = 2,
			.pages_per_block = 256,
			.t_bers_ns = 3800000,
			.xfer_model = CXD_XFER_EXACT,
		},
	},
	{
		/*
		 * Samsung CMM-H (Samsung's HotStorage'25 characterisation,
		 * as quoted in Cylon, FAST'26, section 2): the back end is a
		 * 1 TB NVMe SSD whose NAND is not disclosed, so it takes
		 * the tlc preset's TLC figures, with 4 KiB NAND pages: a
		 * miss moves only its 4 KiB line over the channel (a
		 * partial-page read), not the 16 KiB page. Two constants
		 * are fitted, each on one published Intel MLC bandwidth
		 * (8 threads, uniform random 4 KiB lines, LRU, 48 GiB
		 * cache; docs/performance.md, "CMM-H fidelity"):
		 * link_mbps on 22 GB/s at working set / cache 0.33, where
		 * every access hits and the link bounds 8 threads of
		 * 800 ns hits; ctrl_ns on 0.84 GB/s at 2.67. mshr is not
		 * disclosed and no published point constrains it (at most
		 * 8 accesses are outstanding): no limit.
		 */
		.name = "cmmh",
		.source = "Samsung CMM-H as characterised by Samsung (HotStorage'25) and quoted by Cylon (FAST'26 sec. 2): NAND as tlc (tR 50 us, tPROG 600 us, tBERS 3.8 ms, 8 ch x 8 dies x 2 planes, 800 MB/s) with 4 KiB pages (a miss moves its 4 KiB line); link 22000 MB/s fitted on MLC 22 GB/s at working set/cache 0.33, controller 4300 ns per read fitted on 0.84 GB/s at 2.67; MSHRs not disclosed (none)",
		.nand = {
			.channels = 8,
			.dies_per_channel = 8,
			.nand_page_size = 4096,
			.t_read_ns = 50000,
			.t_prog_ns = 600000,
			.channel_mbps = 800,
			.planes_per_die = 2,
			.pages_per_block = 256,
			.t_bers_ns = 3800000,
			.xfer_model = CXD_XFER_EXACT,
			.mshr = 0,
			.ctrl_ns = CXD_CMMH_CTRL_NS,
			.link_mbps = CXD_CMMH_LINK_MBPS,
		},
	},
};

#define CXD_NR_PRESETS	(sizeof(cxd_presets) / sizeof(cxd_presets[0]))

/**
 * cxd_preset_at() - preset by index, for listing them.
 * @i: 0-based index.
 *
 * Return: the preset, or NULL if @i is past the last one.
 */
const struct cxd_preset *cxd_preset_at(unsigned int i)
{
	return i < CXD_NR_PRESETS ? &cxd_presets[i] : NULL;
}

/**
 * cxd_preset_find() - preset by name.
 * @name: exact name ("znand", "femu", "tlc"); NULL finds nothing.
 *
 * Return: the preset, or NULL if there is none of that name.
 */
const struct cxd_preset *cxd_preset_find(const char *name)
{
	unsigned int i;

	if (!name)
		return NULL;
	for (i = 0; i < CXD_NR_PRESETS; i++)
		if (cxd_str_eq(name, cxd_presets[i].name))
			return &cxd_presets[i];
	return NULL;
}
