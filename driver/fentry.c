// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt: when did a user page fault enter the kernel?
 *
 * A miss of an emulated device should cost the user the modeled time,
 * max(model, the emulation's own cost), not the model plus a page fault. The
 * fault's own cost begins before the module's ->fault handler runs:
 * exception entry, the VMA lookup, the page-table walk. x86 announces every
 * user page fault at its entry in the exceptions:page_fault_user tracepoint
 * (arch/x86/mm/fault.c, handle_page_fault(), interrupts still off), the same
 * in 6.1, 6.12 and 7.2. From the first power-on of a devdax device (or of
 * node latency) until the module unloads, the module hangs a probe on it
 * that stamps the CPU's record with (task, page, TSC); the handler takes
 * the stamp if it is this task's fault on this page, on this CPU, and
 * counts the device's time from there.
 *
 * The probe's cost, paid by every user page fault on the system from then
 * on: one static call and eight instructions (nine with 7.2's IBT
 * endbr64): rdtsc and four stores to a per-CPU record, the TSC's low
 * half, the address as it came, the task and its migration count. The
 * raw TSC, not local_clock(): with a TSC the kernel does not trust as
 * stable, as in a TCG guest, local_clock() takes a slow path of about a
 * hundred instructions. The low 32 bits suffice for the current fault's
 * own record: the handler, on the same CPU, takes the difference modulo
 * 2^32 and converts it with tsc_khz; a fault that really waited 2^32
 * cycles or more (over a second) before its handler reads as a shorter
 * wait, so it counts from a later entry, never an earlier one.
 * docs/performance.md row 2f measures the cost. Nothing is attached
 * before the first power-on.
 *
 * A record that does not match is left alone and the fault counts from its
 * handler's entry, as before: another task's or another page's fault, a
 * fault from the kernel (get_user_pages: no FAULT_FLAG_USER; for node
 * mode's hooks, which see no fault flags, any fault inside a system
 * call), a record older than CXD_FENTRY_MAX_NS, or one from before the
 * task's last migration to another CPU. The last catches a stale record
 * of an earlier fault on the same page whose handler never took it: a
 * fault entered on CPU B and moved to CPU A before its handler would
 * otherwise take A's old stamp and start up to CXD_FENTRY_MAX_NS too
 * early (an MSHR wait of over 100 us seen once in 45-sim-agree on 6.12).
 * A task that stayed on its CPU wrote that CPU's record at each of its
 * faults, so a record of its own with its migration count unchanged is
 * the current fault's, even if the fault slept before its handler (that
 * sleep is then part of the fault's own cost, inside the modeled time, up
 * to CXD_FENTRY_MAX_NS).
 *
 * Node mode's hooks run inside the same faults (a NUMA hinting fault, a
 * first touch) and take the stamp the same way (cxd_fentry_gap_va()). A
 * matching record is consumed, so that one exception serves one fault.
 */
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/tsc.h>

#include "cxdvirt.h"

/*
 * An entry stamp older than this when the handler runs is not used: a
 * fault that waited that long before reaching the handler (mmap_lock held
 * by a writer for milliseconds) is not a fault's entry cost, and a stale
 * record of an earlier exception must not shorten a miss by more.
 */
#define CXD_FENTRY_MAX_NS	NSEC_PER_MSEC

struct cxd_fentry_rec {
	struct task_struct *task;	/* NULL: consumed or never set */
	unsigned long addr;		/* the fault's address, not masked */
	u64 nmig;			/* the task's migrations then */
	u32 tsc;			/* rdtsc() at the tracepoint, low half */
};

/* Migrations of @t between CPUs so far: a record is stale once this moves on. */
static u64 cxd_fentry_migrations(const struct task_struct *t)
{
	return READ_ONCE(t->se.nr_migrations);
}

static DEFINE_PER_CPU(struct cxd_fentry_rec, cxd_fentry_rec);
static DEFINE_MUTEX(cxd_fentry_mutex);
static struct tracepoint *cxd_fentry_tp;
static bool cxd_fentry_attached;

/*
 * The TSC's low 32 bits. rdtsc() would join EDX to them first: two more
 * instructions at every user fault, for bits the handler does not use.
 */
static __always_inline u32 cxd_rdtsc_lo(void)
{
	u32 lo, hi;

	asm volatile("rdtsc" : "=a" (lo), "=d" (hi));
	return lo;
}

/*
 * exceptions:page_fault_user. Context: exception entry, interrupts off.
 * Every user page fault on the system runs this: eight instructions
 * (notrace: no ftrace call site; %gs-relative stores; the TSC's low half;
 * the address as it came), docs/performance.md row 2f.
 */
static notrace void cxd_fentry_probe(void *data, unsigned long address,
				     struct pt_regs *regs,
				     unsigned long error_code)
{
	struct task_struct *t = current;

	/* %gs-relative stores: no address of the record to compute */
	this_cpu_write(cxd_fentry_rec.tsc, cxd_rdtsc_lo());
	this_cpu_write(cxd_fentry_rec.addr, address);
	this_cpu_write(cxd_fentry_rec.nmig, cxd_fentry_migrations(t));
	this_cpu_write(cxd_fentry_rec.task, t);
}

static void cxd_fentry_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "page_fault_user"))
		*(struct tracepoint **)priv = tp;
}

/**
 * cxd_fentry_get() - a device is powering on that wants fault entries
 * stamped: attach the probe if it is not attached yet.
 *
 * The probe stays attached until the module unloads (cxd_fentry_exit()),
 * not only while a device is powered: attaching and detaching patch the
 * kernel's text (a static key), and the guest suite powers devices
 * thousands of times; under multi-threaded TCG a text patch racing
 * another vCPU has ended in an "Oops: int3" (the same kind of patch perf
 * and the tracepoint tests make). One attach per module load keeps that to
 * a minimum.
 *
 * Without the tracepoint (not x86) or if attaching fails, faults count from
 * their handler's entry: a warning, and 0 all the same, because the device
 * works, only its misses cost the part of the fault's entry before the
 * handler on top of the model (stats/miss_entry_stamped stays 0).
 * Context: process, may sleep.
 * Return: 0.
 */
int cxd_fentry_get(void)
{
	int ret;

	mutex_lock(&cxd_fentry_mutex);
	if (cxd_fentry_attached)
		goto out;
	if (!cxd_fentry_tp)
		for_each_kernel_tracepoint(cxd_fentry_find, &cxd_fentry_tp);
	if (!cxd_fentry_tp) {
		pr_warn_once(CXD_NAME ": no exceptions:page_fault_user tracepoint: misses count from the fault handler, not the fault's entry\n");
		goto out;
	}
	ret = tracepoint_probe_register(cxd_fentry_tp, cxd_fentry_probe, NULL);
	if (ret)
		pr_warn(CXD_NAME ": page_fault_user probe: error %d: misses count from the fault handler, not the fault's entry\n",
			ret);
	else
		cxd_fentry_attached = true;
out:
	mutex_unlock(&cxd_fentry_mutex);
	return 0;
}

/**
 * cxd_fentry_exit() - module unload: detach the probe and wait until no
 * CPU runs it.
 * Context: process, may sleep (an RCU grace period).
 */
void cxd_fentry_exit(void)
{
	mutex_lock(&cxd_fentry_mutex);
	if (cxd_fentry_attached) {
		tracepoint_probe_unregister(cxd_fentry_tp, cxd_fentry_probe,
					    NULL);
		tracepoint_synchronize_unregister();
		cxd_fentry_attached = false;
	}
	mutex_unlock(&cxd_fentry_mutex);
}

/*
 * Is @t inside a system call? Its user registers' ax holds -ENOSYS from the
 * syscall's entry until its return value replaces it (x86-64 entry code, the
 * same on 6.1, 6.12 and 7.2); at a user page fault it holds the program's
 * rax, which is -ENOSYS only by chance (the stamp is then not used: the
 * safe side). A fault that the kernel takes on a user address inside a
 * system call (copy_to_user into a page the program had only read) fires
 * no page_fault_user, so the record it would find is an older exception's.
 */
static bool cxd_fentry_in_syscall(struct task_struct *t)
{
	return task_pt_regs(t)->ax == (unsigned long)-ENOSYS;
}

/**
 * cxd_fentry_gap_va() - how long ago the current task's user page fault
 * at @addr entered the kernel, in ns, if its entry was stamped on this CPU,
 * and the time it is measured to.
 * @addr:	the fault's user address.
 * @now_ns:	if not NULL, set to ktime_get_ns() read after the TSC the gap
 *		ends at.
 *
 * The fault entered at *@now_ns - gap, never earlier than it really did:
 * the gap ends at a TSC read made before *@now_ns is read, so time lost
 * between the two (an interrupt; under TCG, a vCPU the host descheduled
 * for a few hundred us) delays the entry, never advances it. (Reading the
 * clock first and the TSC after would put such a stall into the gap and
 * the entry before the previous fault's end: an MSHR wait that never
 * happened, seen in 45-sim-agree.)
 *
 * Consumes the stamp. For node mode's hooks on the fault path, which
 * cannot tell a user fault from the kernel's: no stamp inside a system
 * call (see cxd_fentry_in_syscall()); a fault handler uses
 * cxd_fentry_gap(), which has FAULT_FLAG_USER.
 * Context: any; preemption is disabled inside.
 * Return: ns from the tracepoint to the TSC read (TSC cycles of this CPU
 * at tsc_khz), or 0 when unknown (see the file's comment).
 */
u64 cxd_fentry_gap_va(unsigned long addr, u64 *now_ns)
{
	unsigned int khz = READ_ONCE(tsc_khz);
	struct cxd_fentry_rec *r;
	u64 gap = 0, tsc;

	r = get_cpu_ptr(&cxd_fentry_rec);
	tsc = rdtsc_ordered();
	if (r->task == current && !cxd_fentry_in_syscall(current) &&
	    (r->addr & PAGE_MASK) == (addr & PAGE_MASK) &&
	    r->nmig == cxd_fentry_migrations(current)) {
		if (khz)
			gap = mul_u64_u32_div((u32)tsc - r->tsc, USEC_PER_SEC,
					      khz);
		r->task = NULL;
		if (gap > CXD_FENTRY_MAX_NS)
			gap = 0;
	}
	put_cpu_ptr(&cxd_fentry_rec);
	if (now_ns)
		*now_ns = ktime_get_ns();
	return gap;
}

/**
 * cxd_fentry_gap() - cxd_fentry_gap_va() for the fault @vmf, if it is a
 * user fault (not get_user_pages()).
 * @vmf:	the fault, in a ->fault or ->page_mkwrite handler.
 * @now_ns:	if not NULL, set to ktime_get_ns() (see cxd_fentry_gap_va()).
 *
 * Context: process (a fault handler).
 * Return: ns, or 0 when unknown.
 */
u64 cxd_fentry_gap(const struct vm_fault *vmf, u64 *now_ns)
{
	if (!(vmf->flags & FAULT_FLAG_USER)) {
		if (now_ns)
			*now_ns = ktime_get_ns();
		return 0;
	}
	return cxd_fentry_gap_va(vmf->address, now_ns);
}
