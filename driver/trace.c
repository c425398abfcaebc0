// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt tracepoints: the per-miss trace, and evictions, write-backs and
 * prefetches (the events are defined in cxdvirt_trace.h).
 *
 * This is the one way to get a per-miss trace: a kernel tracepoint,
 * cxdvirt:cxdvirt_miss, read with tracefs, perf, trace-cmd or bpftrace
 * (docs/interface.md, "Tracepoints"). The tracing core gives per-CPU
 * buffers, timestamps, filters and overrun counts; a disabled event costs
 * one static branch on the fault path.
 */
#include <linux/kernel.h>
#include <linux/string.h>

#include "cxdvirt.h"

#define CREATE_TRACE_POINTS
#include "cxdvirt_trace.h"

static u32 cxd_trace_die(const struct cxd_live *live, const struct cxd_nand_op *op)
{
	return op->channel * live->model.nand.cfg.dies_per_channel + op->die;
}

/**
 * cxd_trace_miss() - emit cxdvirt_miss for one miss of device @live.
 * @live:		device.
 * @page:	the faulting device page.
 * @write:	the fault was a write.
 * @t0:		fault arrival, CLOCK_MONOTONIC ns (the model's now).
 * @t1:		when the fault's wait ended, ns.
 * @acc:	the model's outcome for the fault (a miss).
 *
 * The cause is the model's reason for the miss (@acc->miss): read or
 * write when a NAND read was done, write_alloc for a write miss allocated
 * without a read, unwritten for a read skipped by skip_unwritten; die is
 * U32_MAX without a read.
 * Context: any; the fault path calls it under @live->lock. Never sleeps.
 */
void cxd_trace_miss(struct cxd_live *live, u64 page, bool write, u64 t0, u64 t1,
		    const struct cxd_access *acc)
{
	static const u8 cause[CXD_MR_NR] = {
		[CXD_MR_READ]		= CXD_MISS_READ,
		[CXD_MR_WRITE]		= CXD_MISS_WRITE,
		[CXD_MR_WRITE_ALLOC]	= CXD_MISS_WRITE_ALLOC,
		[CXD_MR_UNWRITTEN]	= CXD_MISS_UNWRITTEN,
	};
	bool nand = acc->miss == CXD_MR_READ || acc->miss == CXD_MR_WRITE;

	if (!trace_cxdvirt_miss_enabled() || acc->miss >= CXD_MR_NR)
		return;
	trace_cxdvirt_miss(dev_name(&live->dev), page, cause[acc->miss],
			   nand ? cxd_trace_die(live, &acc->read) : U32_MAX,
			   acc->read.start_ns - t0, acc->done_ns - t0, t1 - t0);
}

static void cxd_trace_victims(struct cxd_live *live, const struct cxd_victim *v,
			      unsigned int n, u8 by)
{
	const char *dev = dev_name(&live->dev);
	unsigned int i;

	for (i = 0; i < n; i++) {
		trace_cxdvirt_evict(dev, v[i].page, v[i].dirty,
				    v[i].prefetched, by);
		if (v[i].dirty)
			trace_cxdvirt_writeback(dev, v[i].page, by);
	}
}

/**
 * cxd_trace_access() - emit the evictions, write-backs and prefetches of
 * one access of device @live.
 * @live:		device.
 * @page:	the faulting device page.
 * @t0:		fault arrival, CLOCK_MONOTONIC ns (the model's now).
 * @acc:	the model's outcome for the fault.
 *
 * Context: any, never sleeps; no lock needed (@acc is the caller's).
 */
void cxd_trace_access(struct cxd_live *live, u64 page, u64 t0,
		      const struct cxd_access *acc)
{
	const char *dev = dev_name(&live->dev);
	unsigned int i;

	cxd_trace_victims(live, acc->victims, acc->nvictims, CXD_BY_FAULT);
	if (!trace_cxdvirt_prefetch_enabled())
		return;
	for (i = 0; i < acc->nprefetched; i++)
		trace_cxdvirt_prefetch(dev, acc->prefetched[i], page,
				       acc->prefetch_done_ns[i] - t0);
}

/**
 * cxd_trace_writeback() - emit cxdvirt_writeback for a late write-back of
 * device @live: a victim whose eviction was traced clean (dirty=0) turned
 * out dirty (node mode: a dirty PTE found at eviction).
 * @live:	device.
 * @page:	the victim's device page.
 * @drain:	the eviction was the background drain's, not a fault's.
 *
 * Context: any, never sleeps.
 */
void cxd_trace_writeback(struct cxd_live *live, u64 page, bool drain)
{
	trace_cxdvirt_writeback(dev_name(&live->dev), page,
				drain ? CXD_BY_DRAIN : CXD_BY_FAULT);
}

/**
 * cxd_trace_drain() - emit the evictions and write-backs of one batch of
 * the background drain of device @live.
 * @live:	device.
 * @v:		the batch's victims (cxd_model_drain()).
 * @n:		entries in @v.
 *
 * Context: any, never sleeps.
 */
void cxd_trace_drain(struct cxd_live *live, const struct cxd_victim *v,
		     unsigned int n)
{
	cxd_trace_victims(live, v, n, CXD_BY_DRAIN);
}
