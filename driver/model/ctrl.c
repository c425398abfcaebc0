// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: the device controller between the host link and
 * the NAND. Three limits, each off (0) by default, so a device without them
 * times its reads exactly as the NAND alone does:
 *
 * - MSHRs (nand.cfg.mshr): at most this many NAND reads are outstanding.
 *   A read that arrives while all are busy takes the one that completes
 *   first and starts when it does (a miss status holding register, as in
 *   CPU caches and MQSim-CXL's CXL-SSD controller).
 * - Controller time (nand.cfg.ctrl_ns): reads pass the controller one at a
 *   time, each occupying it this long before its NAND read starts, so the
 *   controller serves at most 10^9 / ctrl_ns reads per second.
 * - Host link (nand.cfg.link_mbps): each 4 KiB line takes the link for
 *   4096 bytes / link_mbps, one line at a time. A read books its slot when
 *   it leaves the controller, in arrival order, not when its NAND read
 *   ends: booking at the NAND completion, tens of us ahead, would make
 *   every hit arriving meanwhile wait behind it (a next-free time cannot
 *   hold gaps). The line is delivered at max(NAND done, slot start) plus
 *   the transfer time.
 *
 * A read holds its MSHR until its line has crossed the link. Write-backs
 * go to NAND directly: they take no MSHR, controller time or link time.
 * Every operation is O(1) but the MSHR lookup, O(mshr) <= CXD_MAX_MSHR.
 *
 * Pure C: no kernel or libc calls.
 */
#include "model_internal.h"
#include "nand.h"

static inline uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/**
 * cxd_ctrl_reset() - every MSHR free, the controller and the link idle.
 * @c: controller state.
 *
 * Context: any; O(CXD_MAX_MSHR).
 */
void cxd_ctrl_reset(struct cxd_ctrl *c)
{
	unsigned int i;

	for (i = 0; i < CXD_MAX_MSHR; i++)
		c->mshr_done[i] = 0;
	c->ctrl_free = 0;
	c->link_free = 0;
}

/**
 * cxd_ctrl_link_ns() - time of one 4 KiB line on the host link.
 * @cfg: configuration (link_mbps, MB/s = 10^6 bytes/s).
 *
 * Return: ceil(4096 * 1000 / link_mbps) ns, e.g. 187 ns at 22000 MB/s;
 * 0 when link_mbps is 0 (no link limit).
 */
uint64_t cxd_ctrl_link_ns(const struct cxd_nand_cfg *cfg)
{
	uint64_t mbps = cfg->link_mbps;

	if (!mbps)
		return 0;
	return ((uint64_t)CXD_HOST_PAGE_SIZE * 1000 + mbps - 1) / mbps;
}

/**
 * cxd_ctrl_link() - one 4 KiB line over the host link.
 * @c:        controller state.
 * @cfg:      configuration (link_mbps).
 * @ready_ns: when the line is ready to cross (ns, absolute).
 *
 * The transfer starts at max(@ready_ns, link free) and occupies the link
 * cxd_ctrl_link_ns(); without a link limit nothing changes.
 *
 * Return: when the transfer starts (ns).
 */
uint64_t cxd_ctrl_link(struct cxd_ctrl *c, const struct cxd_nand_cfg *cfg,
		       uint64_t ready_ns)
{
	uint64_t t = cxd_ctrl_link_ns(cfg), start;

	if (!t)
		return ready_ns;
	start = max_u64(ready_ns, c->link_free);
	c->link_free = start + t;
	return start;
}

/* The MSHR that frees first among the first @n (ties: the lowest index). */
static unsigned int mshr_earliest(const struct cxd_ctrl *c, unsigned int n)
{
	unsigned int i, best = 0;

	for (i = 1; i < n; i++)
		if (c->mshr_done[i] < c->mshr_done[best])
			best = i;
	return best;
}

/**
 * cxd_ctrl_read() - one NAND read through the controller.
 * @m:      model (nand.cfg's mshr, ctrl_ns, link_mbps; stats).
 * @page:   host page to read.
 * @now_ns: when the read arrives at the controller (ns, absolute).
 * @op:     if not NULL, filled by cxd_nand_read() (the NAND part).
 *
 * start = @now_ns, or with every MSHR busy the earliest completion among
 * them (counted in stats.mshr_waits and mshr_wait_ns); then the controller:
 * start = max(start, controller free) + ctrl_ns; the NAND read from start,
 * and the line's link slot booked at start (cxd_ctrl_link()). The MSHR is
 * held until the read completes.
 *
 * Return: completion time (ns): max(NAND read done, link slot start) +
 * cxd_ctrl_link_ns(), or the NAND read's end without a link limit.
 */
uint64_t cxd_ctrl_read(struct cxd_model *m, uint64_t page, uint64_t now_ns,
		       struct cxd_nand_op *op)
{
	const struct cxd_nand_cfg *cfg = &m->nand.cfg;
	struct cxd_ctrl *c = &m->priv->ctrl;
	unsigned int n = cfg->mshr, slot = 0;
	uint64_t start = now_ns, done;

	if (n > CXD_MAX_MSHR)
		n = CXD_MAX_MSHR;
	if (n) {
		slot = mshr_earliest(c, n);
		if (c->mshr_done[slot] > start) {
			m->stats.mshr_waits++;
			m->stats.mshr_wait_ns += c->mshr_done[slot] - start;
			start = c->mshr_done[slot];
		}
	}
	if (cfg->ctrl_ns) {
		start = max_u64(start, c->ctrl_free) + cfg->ctrl_ns;
		c->ctrl_free = start;
	}
	done = cxd_nand_read(&m->nand, page, start, op);
	if (cfg->link_mbps)
		done = max_u64(done, cxd_ctrl_link(c, cfg, start)) +
		       cxd_ctrl_link_ns(cfg);
	if (n)
		c->mshr_done[slot] = done;
	return done;
}

/**
 * cxd_model_hit() - the time of a hit served by the device (simulator).
 * @m:      model.
 * @now_ns: when the hit arrives (ns, absolute).
 * @hit_ns: the hit latency with an idle link (ns), transfer included.
 *
 * See include/cxdvirt/model.h. The hit completes at the later of
 * start + @hit_ns and the end of its transfer, start being when its line
 * starts crossing the link.
 *
 * Return: the completion time (ns, absolute).
 */
uint64_t cxd_model_hit(struct cxd_model *m, uint64_t now_ns, uint64_t hit_ns)
{
	struct cxd_ctrl *c = &m->priv->ctrl;
	uint64_t start = cxd_ctrl_link(c, &m->nand.cfg, now_ns);

	return start + max_u64(hit_ns, cxd_ctrl_link_ns(&m->nand.cfg));
}
