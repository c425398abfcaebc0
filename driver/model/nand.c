// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: NAND timing.
 *
 * Each die and each channel has a "next free" time (absolute ns). A read
 * occupies its die for tR and then its channel for one page transfer; a
 * program (write-back) occupies the channel for one transfer and then the die
 * for tPROG. There is no queueing structure beyond these times, so every
 * operation is O(1). Pure C: no kernel or libc calls.
 */
#include "cxdvirt/model.h"

static inline uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* log2 of a power of two; @v is never 0 here. */
static unsigned int ilog2_u32(uint32_t v)
{
	unsigned int r = 0;

	while (v > 1) {
		v >>= 1;
		r++;
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
 * two), t_read_ns, t_prog_ns (ns) and channel_mbps (MB/s) are all in range,
 * else -1.
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
	return 0;
}

/**
 * cxd_nand_state_size() - bytes of state for @cfg.
 * @cfg: configuration.
 *
 * Layout: die_free[channels * dies], chan_free[channels],
 * die_busy[channels * dies], all u64 (so every array is 8-byte aligned).
 *
 * Return: size in bytes, or 0 if @cfg is invalid.
 */
size_t cxd_nand_state_size(const struct cxd_nand_cfg *cfg)
{
	uint64_t ndies;

	if (cxd_nand_cfg_valid(cfg))
		return 0;
	ndies = (uint64_t)cfg->channels * cfg->dies_per_channel;
	return 2 * u64_array_bytes(ndies) + u64_array_bytes(cfg->channels);
}

/**
 * cxd_nand_init() - set up @n over @mem.
 * @n:   NAND state to initialise.
 * @cfg: configuration, copied into @n.
 * @mem: cxd_nand_state_size(@cfg) bytes, 8-byte aligned, any content.
 *
 * All dies and channels start free at time 0 with no busy time.
 *
 * Return: 0, or -1 if @cfg is invalid (@n and @mem untouched).
 */
int cxd_nand_init(struct cxd_nand *n, const struct cxd_nand_cfg *cfg, void *mem)
{
	uint64_t ndies, i;
	uint64_t *p = mem;

	if (!n || !mem || cxd_nand_cfg_valid(cfg))
		return -1;
	n->cfg = *cfg;
	ndies = (uint64_t)cfg->channels * cfg->dies_per_channel;
	n->die_free = p;
	p += ndies;
	n->chan_free = p;
	p += cfg->channels;
	n->die_busy = p;
	for (i = 0; i < ndies; i++) {
		n->die_free[i] = 0;
		n->die_busy[i] = 0;
	}
	for (i = 0; i < cfg->channels; i++)
		n->chan_free[i] = 0;
	return 0;
}

/**
 * cxd_nand_xfer_ns() - channel time of one NAND page transfer.
 * @cfg: configuration.
 *
 * Return: ceil(nand_page_size [bytes] * 1000 / channel_mbps [MB/s]) in ns,
 * e.g. 3414 ns for 4096 bytes at 1200 MB/s; 0 if channel_mbps is 0.
 */
uint64_t cxd_nand_xfer_ns(const struct cxd_nand_cfg *cfg)
{
	uint64_t bytes_x1000 = (uint64_t)cfg->nand_page_size * 1000;

	if (!cfg->channel_mbps)
		return 0;
	return (bytes_x1000 + cfg->channel_mbps - 1) / cfg->channel_mbps;
}

/* Channel and die index (into die_free[]/die_busy[]) of host @page. */
static void nand_locate(const struct cxd_nand *n, uint64_t page,
			uint32_t *ch, uint32_t *die)
{
	unsigned int shift = ilog2_u32(n->cfg.nand_page_size) -
			     ilog2_u32(CXD_HOST_PAGE_SIZE);
	uint64_t np = page >> shift;

	*ch = (uint32_t)(np % n->cfg.channels);
	*die = (uint32_t)((np / n->cfg.channels) % n->cfg.dies_per_channel);
}

static void nand_fill_op(struct cxd_nand_op *op, uint32_t ch, uint32_t die,
			 uint64_t start, uint64_t done)
{
	if (!op)
		return;
	op->channel = ch;
	op->die = die;
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
 * start = max(now, die free); the die is busy for tR (and free again at
 * start + tR); the transfer starts at max(start + tR, channel free) and takes
 * cxd_nand_xfer_ns(); the channel is free again when it ends.
 *
 * Return: completion time (end of the transfer), ns absolute.
 */
uint64_t cxd_nand_read(struct cxd_nand *n, uint64_t page, uint64_t now_ns,
		       struct cxd_nand_op *op)
{
	uint32_t ch, die;
	uint64_t idx, start, read_end, xfer_start, done;

	nand_locate(n, page, &ch, &die);
	idx = (uint64_t)ch * n->cfg.dies_per_channel + die;

	start = max_u64(now_ns, n->die_free[idx]);
	read_end = start + n->cfg.t_read_ns;
	n->die_free[idx] = read_end;
	n->die_busy[idx] += n->cfg.t_read_ns;

	xfer_start = max_u64(read_end, n->chan_free[ch]);
	done = xfer_start + cxd_nand_xfer_ns(&n->cfg);
	n->chan_free[ch] = done;

	nand_fill_op(op, ch, die, start, done);
	return done;
}

/**
 * cxd_nand_program() - schedule a write-back of the NAND page holding @page.
 * @n:      NAND state.
 * @page:   host page number (4 KiB units).
 * @now_ns: arrival time (ns, absolute).
 * @op:     if not NULL, filled; start_ns is when the die starts tPROG.
 *
 * The transfer runs on the channel from max(now, channel free); tPROG then
 * runs on the die from max(transfer end, die free); the die stays busy until
 * the program ends.
 *
 * Return: completion time (end of tPROG), ns absolute.
 */
uint64_t cxd_nand_program(struct cxd_nand *n, uint64_t page, uint64_t now_ns,
			  struct cxd_nand_op *op)
{
	uint32_t ch, die;
	uint64_t idx, xfer_end, start, done;

	nand_locate(n, page, &ch, &die);
	idx = (uint64_t)ch * n->cfg.dies_per_channel + die;

	xfer_end = max_u64(now_ns, n->chan_free[ch]) +
		   cxd_nand_xfer_ns(&n->cfg);
	n->chan_free[ch] = xfer_end;

	start = max_u64(xfer_end, n->die_free[idx]);
	done = start + n->cfg.t_prog_ns;
	n->die_free[idx] = done;
	n->die_busy[idx] += n->cfg.t_prog_ns;

	nand_fill_op(op, ch, die, start, done);
	return done;
}
