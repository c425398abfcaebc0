// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt miss glue shared by both exposures: the devdax fault path
 * (fault.c) and node mode's latency backend (hotplug/nodelat.c).
 *
 * - cxd_wait_until(): wait until the modeled completion time of a miss, with
 *   ns precision.
 * - cxd_miss_account(): record one finished miss in the device's measured
 *   statistics and its per-miss trace.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
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
 * cxd_wait_until() - return at CLOCK_MONOTONIC time @deadline (ns), not
 * before, or earlier if a fatal signal is pending.
 * @deadline:	absolute CLOCK_MONOTONIC time, ns.
 *
 * Waits shorter than spin_max_ns spin on ktime. Longer ones sleep on an
 * absolute hrtimer (killable) until wake_early_ns before the deadline, going
 * back to sleep after an early wake-up, then spin the rest; no spin is ever
 * longer than CXD_SPIN_CAP_NS.
 *
 * Context: process, may sleep; no spinlock held.
 * Return: true if the deadline was reached, false if a fatal signal cut the
 * wait short.
 */
bool cxd_wait_until(u64 deadline)
{
	u64 spin = min(READ_ONCE(spin_max_ns), CXD_SPIN_CAP_NS);
	u64 early = min(READ_ONCE(wake_early_ns), CXD_SPIN_CAP_NS);
	u64 now = ktime_get_ns();

	if (deadline <= now)
		return true;
	if (deadline - now > spin) {
		/* Wake no later than CXD_SPIN_CAP_NS before the deadline. */
		ktime_t wake = ns_to_ktime(deadline - max(early, 1ull));

		while (ktime_get_ns() < ktime_to_ns(wake)) {
			if (fatal_signal_pending(current))
				return false;
			set_current_state(TASK_KILLABLE);
			schedule_hrtimeout(&wake, HRTIMER_MODE_ABS);
		}
	}
	while (ktime_get_ns() < deadline) {
		if (fatal_signal_pending(current))
			return false;
		cpu_relax();
	}
	return true;
}

/**
 * cxd_miss_account() - record one finished miss of device @l.
 * @l:		device.
 * @page:	device page of the miss.
 * @write:	the access was a write.
 * @t0:		when the miss arrived (the model's now), CLOCK_MONOTONIC ns.
 * @t1:		when its wait ended, ns.
 * @acc:	the model's outcome for the access.
 *
 * Adds @t1 - @t0 to the measured miss time and histogram and to the per-miss
 * trace. Context: any; caller holds @l->lock. O(1).
 */
void cxd_miss_account(struct cxd_live *l, u64 page, bool write, u64 t0,
		      u64 t1, const struct cxd_access *acc)
{
	lockdep_assert_held(&l->lock);
	l->miss_ns_total += t1 - t0;
	cxd_hist_add(&l->miss_hist, t1 - t0);
	cxd_trace_miss(l, page, write, t0, t1, acc);
}
