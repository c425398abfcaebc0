// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt miss glue shared by both exposures: the devdax fault path
 * (devdax/fault.c) and node mode's latency backend (hotplug/nodelat.c).
 *
 * - cxd_wait_until(), cxd_wait_sleeps(): wait until the modeled completion
 *   time of a miss, with ns precision.
 * - cxd_account_miss(): record one finished miss in the device's measured
 *   statistics and the cxdvirt_miss tracepoint.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>

#include "cxdvirt.h"

/* Longest busy-wait ever done, so a bad parameter cannot cause a soft lockup. */
#define CXD_SPIN_CAP_NS	5000000ul

static unsigned long spin_max_ns = 1000000;
module_param(spin_max_ns, ulong, 0644);
MODULE_PARM_DESC(spin_max_ns,
		 "miss waits up to this many ns busy-wait; longer ones sleep (default 1000000, at most 5000000)");

static unsigned long wake_early_ns = 200000;
module_param(wake_early_ns, ulong, 0644);
MODULE_PARM_DESC(wake_early_ns,
		 "a sleeping miss wakes this many ns early and spins to the deadline (default 200000)");

/**
 * cxd_wait_sleeps() - would a wait of @ns sleep rather than spin?
 * @ns:	length of the wait, ns.
 * Context: any.
 * Return: true if cxd_wait_until() would sleep.
 */
bool cxd_wait_sleeps(u64 ns)
{
	return ns > min(READ_ONCE(spin_max_ns), CXD_SPIN_CAP_NS);
}

/*
 * Busy-wait until CLOCK_MONOTONIC time @deadline (ns).
 *
 * The spin measures the remaining time with local_clock() (the TSC on
 * x86) and reads CLOCK_MONOTONIC only to take the remaining time and to
 * confirm the deadline. Spinning on ktime_get_ns() itself would read the
 * clocksource in a tight loop; when that is the HPET (the usual choice of
 * a guest whose TSC the kernel marked unstable), each read is an MMIO
 * access, and a QEMU TCG guest then serialises every vCPU on those reads.
 * If local_clock() runs slow, or the task moves to a CPU whose
 * local_clock() differs, the loop goes round again from a fresh
 * CLOCK_MONOTONIC read: the wait never ends before @deadline.
 */
static void cxd_spin_until(u64 deadline)
{
	for (;;) {
		u64 now = ktime_get_ns();
		u64 left, start;

		if (now >= deadline)
			return;
		left = deadline - now;
		start = local_clock();
		while (local_clock() - start < left)
			cpu_relax();
	}
}

/**
 * cxd_wait_until() - return at CLOCK_MONOTONIC time @deadline (ns), not
 * before, unless a fatal signal arrives.
 * @deadline:	absolute CLOCK_MONOTONIC time, ns.
 *
 * Short waits spin (cxd_spin_until()); long ones sleep (killable) on an
 * absolute hrtimer until wake_early_ns before the deadline, then spin. A wake-up
 * before that time (spurious, or a signal that is not fatal) sleeps again,
 * so the spin never exceeds CXD_SPIN_CAP_NS.
 *
 * Context: process, may sleep; no spinlock held.
 * Return: 0, or -EINTR on a fatal signal.
 */
int cxd_wait_until(u64 deadline)
{
	u64 now = ktime_get_ns();
	ktime_t wake;

	if (deadline <= now)
		return 0;
	if (cxd_wait_sleeps(deadline - now)) {
		u64 early = min(READ_ONCE(wake_early_ns), CXD_SPIN_CAP_NS);

		wake = ns_to_ktime(deadline - min(early, deadline - now));
		while (ktime_get_ns() < ktime_to_ns(wake)) {
			if (fatal_signal_pending(current))
				return -EINTR;
			set_current_state(TASK_KILLABLE);
			schedule_hrtimeout(&wake, HRTIMER_MODE_ABS);
		}
	}
	cxd_spin_until(deadline);
	return 0;
}

/**
 * cxd_account_miss() - record one finished miss of device @live.
 * @live:		device.
 * @page:	device page of the miss.
 * @write:	the access was a write.
 * @t0:		when the miss arrived (the model's now): the fault's entry
 *		where it was stamped (devdax), CLOCK_MONOTONIC ns.
 * @acc:	the model's outcome for the access.
 * @st:		the miss's time before the wait by stage (devdax), or NULL.
 *
 * Adds now - @t0 to the measured miss time and histogram, @st to the
 * per-stage totals (stats/fault_*) and the NAND image's counts, and emits
 * the cxdvirt_miss tracepoint.
 * Context: any; takes @live->lock. O(1).
 */
void cxd_account_miss(struct cxd_live *live, u64 page, bool write, u64 t0,
		      const struct cxd_access *acc,
		      const struct cxd_miss_stages *st)
{
	u64 t1 = ktime_get_ns();

	spin_lock(&live->lock);
	live->miss_ns_total += t1 - t0;
	if (st) {
		live->fault_model_ns_total += st->model_ns;
		live->fault_unmap_ns_total += st->unmap_ns;
		live->fault_unmaps += st->unmaps;
		if (st->entry_ns) {
			live->miss_entry_ns_total += st->entry_ns;
			live->miss_entry_stamped++;
		}
		live->io_reads += st->io_reads;
		if (st->io_over_ns) {
			live->io_overruns++;
			live->io_over_ns += st->io_over_ns;
		}
	}
	cxd_hist_add(&live->miss_hist, t1 - t0);
	cxd_trace_miss(live, page, write, t0, t1, acc);
	spin_unlock(&live->lock);
}

/**
 * cxd_tail_update() - a miss of device @live that waited ended @ns after
 * its wait's target: how late the wait woke (a spin's last clock read, an
 * hrtimer's slack) plus the miss's own work after it (devdax: its
 * accounting, the page lock, the line's release up to the handler's
 * return; node mode: its accounting in the task_work).
 * @live:	device.
 * @ns:		that time, ns.
 *
 * The next misses' waits end early by @live->miss_tail_ns (on top of
 * fault_exit_ns in devdax). It tracks the median: it moves by
 * CXD_TAIL_STEP_NS towards each sample, so an interrupt or a first run of
 * cold code moves it by one step, not by its length. It starts at 0.
 * Context: any; lockless (racy updates lose a step at worst).
 */
void cxd_tail_update(struct cxd_live *live, u64 ns)
{
	u64 old = READ_ONCE(live->miss_tail_ns);

	if (ns > old)
		WRITE_ONCE(live->miss_tail_ns, old + CXD_TAIL_STEP_NS);
	else if (ns < old)
		WRITE_ONCE(live->miss_tail_ns,
			   old - min_t(u64, old, CXD_TAIL_STEP_NS));
}
