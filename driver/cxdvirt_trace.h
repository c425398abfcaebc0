/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt tracepoints (trace system "cxdvirt"), in the style of null_blk's
 * trace.h: one event per miss, eviction, write-back and prefetch of a
 * devdax device, for tracefs, perf, trace-cmd and bpftrace:
 *
 *   perf record -e 'cxdvirt:*' -a -- ./workload
 *   echo 1 > /sys/kernel/tracing/events/cxdvirt/enable
 *
 * Every event carries the device (dev, "cxdvirtN") and the device page
 * (page: byte offset / 4096). Times are ns. Disabled tracepoints cost a
 * static branch each (docs/interface.md, "Tracepoints").
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cxdvirt

#if !defined(_CXDVIRT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CXDVIRT_TRACE_H

#include <linux/tracepoint.h>

/* "cxdvirtN" with N < CXD_MAX_DEVICES always fits. */
#define CXD_TRACE_DEV_LEN	16

/* cxdvirt_miss cause; names are the TP_printk strings. */
#define CXD_MISS_READ		0	/* read fault, NAND read */
#define CXD_MISS_WRITE		1	/* write fault, NAND read */
#define CXD_MISS_WRITE_ALLOC	2	/* write miss allocated without a read */
#define CXD_MISS_UNWRITTEN	3	/* read skipped: never written */

/* Who evicted or wrote back: a fault's miss, or the background drain. */
#define CXD_BY_FAULT		0
#define CXD_BY_DRAIN		1

#define cxd_show_cause(c)					\
	__print_symbolic(c, { CXD_MISS_READ, "read" },		\
			 { CXD_MISS_WRITE, "write" },		\
			 { CXD_MISS_WRITE_ALLOC, "write_alloc" },	\
			 { CXD_MISS_UNWRITTEN, "unwritten" })

#define cxd_show_by(b)						\
	__print_symbolic(b, { CXD_BY_FAULT, "fault" }, { CXD_BY_DRAIN, "drain" })

/*
 * cxdvirt_miss - a fault missed the device cache.
 * @die:	flat die number, channel * dies_per_channel + die (the line of
 *		stats/die_busy_ns); U32_MAX when no NAND read was done
 *		(write_alloc, unwritten).
 * @queue_ns:	modeled queueing delay: the die started the read - arrival.
 * @model_ns:	modeled miss latency: completion - arrival.
 * @measured_ns: measured: arrival to the end of the fault's wait.
 */
TRACE_EVENT(cxdvirt_miss,
	TP_PROTO(const char *dev, u64 page, u8 cause, u32 die, u64 queue_ns,
		 u64 model_ns, u64 measured_ns),
	TP_ARGS(dev, page, cause, die, queue_ns, model_ns, measured_ns),
	TP_STRUCT__entry(
		__array(char, dev, CXD_TRACE_DEV_LEN)
		__field(u64, page)
		__field(u64, queue_ns)
		__field(u64, model_ns)
		__field(u64, measured_ns)
		__field(u32, die)
		__field(u8, cause)
	),
	TP_fast_assign(
		strscpy(__entry->dev, dev, CXD_TRACE_DEV_LEN);
		__entry->page = page;
		__entry->queue_ns = queue_ns;
		__entry->model_ns = model_ns;
		__entry->measured_ns = measured_ns;
		__entry->die = die;
		__entry->cause = cause;
	),
	TP_printk("dev=%s page=%llu cause=%s die=%u queue_ns=%llu model_ns=%llu measured_ns=%llu",
		  __entry->dev, __entry->page, cxd_show_cause(__entry->cause),
		  __entry->die, __entry->queue_ns, __entry->model_ns,
		  __entry->measured_ns)
);

/*
 * cxdvirt_evict - a line left the cache (it is unmapped everywhere).
 * @dirty:	it was dirty: a cxdvirt_writeback event follows.
 * @unused_prefetch: it was brought in by prefetch and never used.
 * @by:		fault (a miss or its prefetch made room) or drain.
 */
TRACE_EVENT(cxdvirt_evict,
	TP_PROTO(const char *dev, u64 page, bool dirty, bool unused_prefetch,
		 u8 by),
	TP_ARGS(dev, page, dirty, unused_prefetch, by),
	TP_STRUCT__entry(
		__array(char, dev, CXD_TRACE_DEV_LEN)
		__field(u64, page)
		__field(u8, dirty)
		__field(u8, unused_prefetch)
		__field(u8, by)
	),
	TP_fast_assign(
		strscpy(__entry->dev, dev, CXD_TRACE_DEV_LEN);
		__entry->page = page;
		__entry->dirty = dirty;
		__entry->unused_prefetch = unused_prefetch;
		__entry->by = by;
	),
	TP_printk("dev=%s page=%llu dirty=%u unused_prefetch=%u by=%s",
		  __entry->dev, __entry->page, __entry->dirty,
		  __entry->unused_prefetch, cxd_show_by(__entry->by))
);

/*
 * cxdvirt_writeback - a dirty victim is programmed to NAND (tPROG on its
 * die, after its cxdvirt_evict).
 */
TRACE_EVENT(cxdvirt_writeback,
	TP_PROTO(const char *dev, u64 page, u8 by),
	TP_ARGS(dev, page, by),
	TP_STRUCT__entry(
		__array(char, dev, CXD_TRACE_DEV_LEN)
		__field(u64, page)
		__field(u8, by)
	),
	TP_fast_assign(
		strscpy(__entry->dev, dev, CXD_TRACE_DEV_LEN);
		__entry->page = page;
		__entry->by = by;
	),
	TP_printk("dev=%s page=%llu by=%s", __entry->dev, __entry->page,
		  cxd_show_by(__entry->by))
);

/*
 * cxdvirt_prefetch - the prefetcher made @page resident.
 * @trigger:	the demand page whose miss issued it.
 * @ready_ns:	when its data is available, relative to the miss's arrival.
 */
TRACE_EVENT(cxdvirt_prefetch,
	TP_PROTO(const char *dev, u64 page, u64 trigger, u64 ready_ns),
	TP_ARGS(dev, page, trigger, ready_ns),
	TP_STRUCT__entry(
		__array(char, dev, CXD_TRACE_DEV_LEN)
		__field(u64, page)
		__field(u64, trigger)
		__field(u64, ready_ns)
	),
	TP_fast_assign(
		strscpy(__entry->dev, dev, CXD_TRACE_DEV_LEN);
		__entry->page = page;
		__entry->trigger = trigger;
		__entry->ready_ns = ready_ns;
	),
	TP_printk("dev=%s page=%llu trigger=%llu ready_ns=%llu", __entry->dev,
		  __entry->page, __entry->trigger, __entry->ready_ns)
);

#endif /* _CXDVIRT_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE cxdvirt_trace
#include <trace/define_trace.h>
