// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt devdax fault path: the vm_operations of a mapping of
 * /dev/cxdvirtN (devdax.c maps the device with them).
 *
 * Resident (cached) pages are mapped in the page tables and run natively. A
 * fault on a page that is not resident is a miss:
 *   1. the model picks a victim if the cache is full, and the victim is
 *      unmapped from every mapping of the device (one shared address_space);
 *   2. the NAND model gives the completion time;
 *   3. the fault waits until then with ns precision (busy-wait for short
 *      waits, killable hrtimer sleep plus a short spin for long ones); a
 *      wait that sleeps, or NAND image I/O (image.c), drops mmap_lock and
 *      ends in VM_FAULT_RETRY when the fault may be retried
 *      (cxd_can_drop_lock());
 *   4. the page is mapped: it is handed to the core (locked, as a
 *      page-cache page), which maps it as a refcounted page the kernel can
 *      pin, like device-dax's. Both backings have struct pages: runtime
 *      pages, or a reserved range's ZONE_DEVICE pages (devdax.c).
 * Read faults map read-only; the first write goes through ->page_mkwrite
 * and marks the line dirty. A fault on a resident page ("minor hit") maps
 * it without NAND time.
 *
 * Ordering between a fault mapping page P and an eviction of P: a fault
 * holds P's line in the model (CXD_ACC_HOLD, cxd_cache_hold()) from its
 * access until its PTE is in place, so no concurrent miss, prefetch or drain
 * can evict P meanwhile (with more faulting threads than lines, a miss
 * waits for a line instead: acc.busy). The hold also gives identity: P
 * cannot have been evicted and brought back clean by a prefetch while a
 * write fault maps it writable. Eviction of an unheld P drops it from the
 * model under live->lock, then unmaps it; a racing fault cannot map P in
 * between because mapping requires P resident and held. Whichever order
 * the two run in, no PTE of a non-resident page survives.
 *
 * A page is mapped by the core after ->fault returns, so the hold ends
 * earlier, once the fault has locked the page; the page lock then covers
 * the rest (the core installs the PTE before unlocking), and eviction
 * unmaps a page under its page lock. A write fault's ->page_mkwrite
 * re-checks residency under the page lock before the core maps the page
 * writable.
 */
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "cxdvirt.h"
#include "devdax.h"

static inline struct cxd_live *vma_live(struct vm_area_struct *vma)
{
	return vma->vm_file->private_data;
}

static void cxd_unmap_page(struct cxd_live *live, u64 pgoff)
{
	unmap_mapping_pages(live->inode->i_mapping, pgoff, 1, false);
}

/**
 * cxd_evict_page() - unmap victim @v of an eviction from every mapping
 * of device @live (the fault path's victims; the drain's, through
 * cxd_mode_ops.evict); with a NAND image, also write it back if the model
 * did and free its host page (cxd_img_evict()).
 * @live:	powered devdax device.
 * @v:		the victim: its device page, and whether it was written back.
 *
 * A page is unmapped under its page lock: a fault hands its page
 * to the core locked (cxd_fault()), and the core installs the PTE before
 * unlocking it, so a victim whose fault released its line but whose PTE is
 * not in place yet is unmapped only once the PTE exists.
 *
 * A page that still has references beyond the device's own once
 * its PTEs are gone is held by the kernel (get_user_pages: O_DIRECT in
 * flight, a pipe, ...): it is evicted all the same and counted
 * (stats/pinned_evictions). The data stays where it is, in the page, so
 * the I/O completes against it; the count is approximate (a
 * get_user_pages_fast() that is about to fail holds a reference for an
 * instant).
 *
 * Context: process, may sleep; no page lock held.
 */
void cxd_evict_page(struct cxd_live *live, const struct cxd_victim *v)
{
	struct page *page;

	if (live->img) {
		cxd_img_evict(live, v);
		return;
	}
	page = live->pages[v->page];
	lock_page(page);
	cxd_unmap_page(live, v->page);
	unlock_page(page);
	if (page_ref_count(page) > 1) {
		spin_lock(&live->lock);
		live->pinned_evictions++;
		spin_unlock(&live->lock);
	}
}

/*
 * End the hold the fault took on its page's line (CXD_ACC_HOLD). Return:
 * true if the line was still held, i.e. it is the line this fault filled or
 * found, which no eviction can have taken meanwhile.
 */
static bool cxd_release_line(struct cxd_live *live, u64 pgoff)
{
	int ret;

	cxd_model_lock(live);
	ret = cxd_cache_release(&live->model.cache, pgoff);
	spin_unlock(&live->lock);
	return !ret;
}

/*
 * Waits that sleep do not hold mmap_lock (or the per-VMA lock) when the
 * fault may be retried: the fault drops it, waits (killable) for the data
 * and returns VM_FAULT_RETRY, as the page cache does for I/O. Before it
 * drops the lock it records its mapping as the page's filler
 * (CXD_PG_FILLER); the retried fault, on the same mapping, takes the record
 * and, if the line is still resident and ready, maps the page without a
 * second model access (the access was counted once). Without
 * FAULT_FLAG_ALLOW_RETRY the wait holds the lock, as it must. Either way a
 * fatal signal ends the wait.
 *
 * A record whose retry never comes must not serve anyone else uncounted:
 * - a fault on another mapping leaves it and makes its own model access;
 * - the filler killed in its wait clears it;
 * - the mapping going away (munmap, a MAP_FIXED mapping over it, exit of a
 *   task killed between its wait and its retry) clears every record of it
 *   (cxd_fill_forget()), so a later mapping that happens to reuse the
 *   struct's address finds none.
 * A mapping split (mprotect, partial munmap) while a fault waits leaves the
 * page in a new struct: its retry then makes a model access of its own (a
 * hit) and its record goes with the old part.
 */
static bool cxd_can_drop_lock(const struct vm_fault *vmf)
{
	return fault_flag_allow_retry_first(vmf->flags) &&
	       !(vmf->flags & FAULT_FLAG_RETRY_NOWAIT);
}

static unsigned long cxd_fill_tag(const struct vm_area_struct *vma)
{
	return (unsigned long)vma & CXD_PG_FILLER;
}

/*
 * Record @vma as the filler of device page @pgoff in its slot @ps
 * (replacing a record of another mapping or page, whose retry then makes
 * its own access). The caller holds the slot's CXD_PG_LOCK and @vma's
 * mmap_lock (or VMA lock).
 */
static void cxd_fill_set(struct cxd_live *live, struct cxd_pslot *ps,
			 const struct vm_area_struct *vma, u64 pgoff)
{
	unsigned long *pf = &ps->word;
	unsigned long old = READ_ONCE(*pf);

	WRITE_ONCE(ps->page, pgoff);

	while (!try_cmpxchg(pf, &old, (old & ~CXD_PG_FILLER) | cxd_fill_tag(vma)))
		;
	if (!(old & CXD_PG_FILLER))
		atomic_inc(&live->fills);
}

/*
 * Clear the filler record in the slot whose word is @pf if it is @vma's
 * (@vma is compared only: it may be gone), whatever its page. Context: any;
 * never sleeps. Return: true if @vma's record was there.
 */
static bool cxd_fill_clear(struct cxd_live *live, unsigned long *pf,
			   const struct vm_area_struct *vma)
{
	unsigned long old = READ_ONCE(*pf);

	do {
		if ((old & CXD_PG_FILLER) != cxd_fill_tag(vma))
			return false;
	} while (!try_cmpxchg(pf, &old, old & ~CXD_PG_FILLER));
	atomic_dec(&live->fills);
	return true;
}

/**
 * cxd_fill_forget() - mapping @vma of device @live is going away: clear
 * the filler records it left (faults whose retry will never come).
 * @live:	powered devdax device.
 * @vma:	the mapping (vm_ops->close).
 *
 * Nothing to do, in O(1), while no slot has a record; else O(pages of
 * @vma), at most O(slots).
 * Context: process, may sleep; @vma's mmap_lock held for write (or the mm
 * being torn down).
 */
static void cxd_fill_forget(struct cxd_live *live, struct vm_area_struct *vma)
{
	u64 pg = vma->vm_pgoff, end = pg + vma_pages(vma);

	if (!atomic_read(&live->fills))
		return;
	end = min(end, live->npages);
	if (pg >= end)
		return;
	if (end - pg > live->pslot_mask) {	/* every slot */
		pg = 0;
		end = live->pslot_mask + 1;
	}
	for (; pg < end; pg++) {
		cxd_fill_clear(live, &live->pslots[pg & live->pslot_mask].word,
			       vma);
		if (!(pg % 4096))
			cond_resched();
	}
}

/*
 * Drop the fault's mmap_lock (or per-VMA lock) for a wait, keeping the
 * device: a reference on the mapping's file keeps the file open (power-off
 * and rmdir refuse with -EBUSY meanwhile), and with it the char device,
 * the powered device and the module, until fput() after the wait; the last
 * fput() then runs from task_work, outside the module and any lock of the
 * faulting caller. As filemap's maybe_unlock_mmap_for_io().
 * Return: the file, for fput() once the wait is over.
 */
static struct file *cxd_unlock_for_wait(struct vm_fault *vmf)
{
	struct file *file = get_file(vmf->vma->vm_file);

	cxd_release_fault_lock(vmf);
	return file;
}

/*
 * The host page of device page @pgoff, which the fault holds (slot lock and
 * line), to map once its deadline is reached. With a NAND image a page not
 * materialised is read from the image now, and so are the pages the miss
 * prefetched: *@reads counts the reads, which the caller accounts (with an
 * overrun if they ended after the deadline: cxd_img_account()).
 * Context: process, may sleep. Return: the page, NULL without memory, or
 * the ERR_PTR of a failed image read.
 */
static struct page *cxd_fault_page(struct cxd_live *live, u64 pgoff,
				   const struct cxd_access *acc,
				   unsigned int *reads)
{
	struct page *page;
	unsigned int i;

	if (!live->img)
		return live->pages[pgoff];
	page = cxd_img_page(live, pgoff, reads);
	for (i = 0; i < acc->nprefetched; i++)
		cxd_img_prefetch(live, acc->prefetched[i], reads);
	return page;
}

/*
 * Account the @reads NAND image reads of a fault, done at @now, with an
 * overrun if @now is past its wait's target @deadline: a miss's go with
 * its other counts (@st, cxd_account_miss()), a hit's (a prefetched line's
 * first use) at once (cxd_img_account()).
 */
static void cxd_fault_io(struct cxd_live *live, const struct cxd_access *acc,
			 struct cxd_miss_stages *st, unsigned int reads,
			 u64 deadline, u64 now)
{
	if (!reads)
		return;
	if (acc->hit) {
		cxd_img_account(live, deadline, now, reads);
		return;
	}
	st->io_reads = reads;
	st->io_over_ns = now > deadline ? now - deadline : 0;
}

/*
 * Must the fault of @pgoff, which holds its slot lock and line, drop
 * mmap_lock for NAND image I/O? A write-back of a
 * dirty victim always: the image's write takes its inode's i_rwsem, which
 * a write() to the image holds while it faults (mmap_lock). A read only
 * when the image is O_DIRECT (ext4 and xfs take i_rwsem shared for a
 * direct read); a buffered read takes what filemap_fault() itself takes
 * under mmap_lock, and costs no retry.
 */
static bool cxd_img_io(struct cxd_live *live, u64 pgoff,
		       const struct cxd_access *acc)
{
	unsigned int i;

	if (!live->img)
		return false;
	for (i = 0; i < acc->nvictims; i++)
		if (acc->victims[i].dirty)
			return true;
	return cxd_img_direct(live) &&
	       (acc->nprefetched || !cxd_img_materialised(live, pgoff));
}

/*
 * The end of the wait of a fault that entered the kernel at @entry and
 * whose data is there at @deadline (CLOCK_MONOTONIC ns): @deadline less
 * the fault's cost after the wait that the module cannot time
 * (fault_exit_ns, `cxdvirt-dev calibrate`), so that the user sees the
 * modeled time, not the model plus the fault. Never before @entry: a model
 * shorter than the fault's own cost costs the fault's own cost.
 */
static u64 cxd_fault_deadline(struct cxd_live *live, u64 entry, u64 deadline)
{
	u64 exit_ns = READ_ONCE(live->cfg_dev->cfg.fault_exit_ns);

	exit_ns += READ_ONCE(live->miss_tail_ns);
	return deadline - min(exit_ns, deadline - entry);
}


/*
 * A fault on a resident line that waited for nothing mapped its page: its
 * time from @entry to now goes to stats/minor_faults and
 * minor_fault_ns_total, which `cxdvirt-dev calibrate` compares with the
 * user's timing of the same faults to find fault_exit_ns.
 */
static void cxd_account_minor(struct cxd_live *live, u64 entry)
{
	u64 t1 = ktime_get_ns();

	spin_lock(&live->lock);
	live->minor_faults++;
	live->minor_fault_ns_total += t1 - entry;
	spin_unlock(&live->lock);
}

static vm_fault_t cxd_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct cxd_live *live = vma_live(vma);
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	bool can_drop = cxd_can_drop_lock(vmf);
	u64 pgoff = vmf->pgoff;
	struct cxd_miss_stages st = { 0 };
	struct cxd_access acc;
	struct cxd_pslot *ps;
	unsigned long *pf;
	struct file *file;
	struct page *page;
	unsigned int i, reads = 0;
	bool filled, drop;
	u64 t0, entry, deadline, twait, c0, c1 = 0;
	int err;

	if (pgoff >= live->npages)
		return VM_FAULT_SIGBUS;
	ps = &live->pslots[pgoff & live->pslot_mask];
	pf = &ps->word;

	if (test_and_set_bit_lock(CXD_PG_LOCK, pf)) {
		/* Another fault is filling the page: wait for it, unlocked if we may. */
		if (can_drop) {
			file = cxd_unlock_for_wait(vmf);
			wait_on_bit(pf, CXD_PG_LOCK, TASK_KILLABLE);
			fput(file);
			return VM_FAULT_RETRY;
		}
		if (wait_on_bit_lock(pf, CXD_PG_LOCK, TASK_KILLABLE))
			return VM_FAULT_NOPAGE;	/* fatal signal: let it be delivered */
	}

	/* The access reaches the device when the fault entered the kernel. */
	st.entry_ns = cxd_fentry_gap(vmf, &t0);
	c0 = cxd_cycles();
	entry = t0 - st.entry_ns;
	/* A record in a shared slot (NAND image) may be another page's. */
	filled = READ_ONCE(ps->page) == pgoff && cxd_fill_clear(live, pf, vma);
	cxd_model_lock(live);	/* sleeps while a policy switch runs */
	if (filled && cxd_cache_ready_ns(&live->model.cache, pgoff) <= t0 &&
	    !cxd_cache_hold(&live->model.cache, pgoff)) {
		/* The retry of a fault that waited unlocked: already counted. */
		memset(&acc, 0, sizeof(acc));
		acc.hit = true;
		acc.done_ns = t0;
		if (write)
			cxd_cache_set_dirty(&live->model.cache, pgoff);
	} else {
		cxd_model_access(&live->model, pgoff, CXD_ACC_HOLD |
				 (write ? CXD_ACC_WRITE : 0), entry, &acc);
	}
	if (acc.busy) {
		/*
		 * Every line the page may use is held by faults in flight:
		 * wait for one to finish (a tick, unlocked if we may), then
		 * fault again.
		 */
		spin_unlock(&live->lock);
		clear_and_wake_up_bit(CXD_PG_LOCK, pf);
		if (can_drop) {
			file = cxd_unlock_for_wait(vmf);
			schedule_timeout_killable(1);
			fput(file);
			return VM_FAULT_RETRY;
		}
		usleep_range(20, 100);
		return VM_FAULT_NOPAGE;
	}
	/*
	 * Never map a line before its data is there: a miss or a late
	 * prefetch waits for its read (acc.done_ns); a hit on a line whose
	 * filling fault was killed waits for the rest of that read.
	 */
	deadline = max(acc.done_ns, cxd_cache_ready_ns(&live->model.cache, pgoff));
	spin_unlock(&live->lock);
	deadline = cxd_fault_deadline(live, entry, deadline);
	/* A miss's own time before the wait, by stage: three TSC reads. */
	if (!acc.hit)
		c1 = cxd_cycles();
	if (acc.drain)
		queue_work(cxd_wq, &live->drain_work);
	cxd_trace_access(live, pgoff, t0, &acc);

	/*
	 * A wait that sleeps, or image I/O (cxd_img_io()), runs with the
	 * fault's lock dropped when it may be: the image's filesystem takes
	 * its own locks (i_rwsem), which a write() to it holds while it
	 * faults (mmap_lock).
	 */
	drop = can_drop && ((deadline > t0 && cxd_wait_sleeps(deadline - t0)) ||
			    cxd_img_io(live, pgoff, &acc));
	if (drop) {
		/* while @vma is certainly alive: its close clears the record */
		cxd_fill_set(live, ps, vma, pgoff);
		file = cxd_unlock_for_wait(vmf);
		/* vma and vmf->vma may be gone from here on. */
	}

	/* Victims of the demand miss and of its prefetches leave every mapping. */
	for (i = 0; i < acc.nvictims; i++)
		cxd_evict_page(live, &acc.victims[i]);
	if (!acc.hit) {
		st.unmap_ns = cxd_cycles_ns(c1, cxd_cycles());
		st.model_ns = cxd_cycles_ns(c0, c1);
		st.unmaps = acc.nvictims;
	}

	if (drop) {
		/* The retry maps the page, or finds the read failed again. */
		cxd_fault_page(live, pgoff, &acc, &reads);
		cxd_fault_io(live, &acc, &st, reads, deadline, ktime_get_ns());
		err = cxd_wait_until(deadline);
		/* The model counted the miss: killed or not, so does the rest. */
		if (!acc.hit)
			cxd_account_miss(live, pgoff, write, entry, &acc, &st);
		if (err)	/* no retry comes */
			cxd_fill_clear(live, pf, vma);
		cxd_release_line(live, pgoff);
		clear_and_wake_up_bit(CXD_PG_LOCK, pf);
		fput(file);
		return VM_FAULT_RETRY;
	}
	page = cxd_fault_page(live, pgoff, &acc, &reads);
	twait = ktime_get_ns();	/* did the miss wait at all? */
	cxd_fault_io(live, &acc, &st, reads, deadline, twait);
	err = cxd_wait_until(deadline);
	if (!acc.hit)
		cxd_account_miss(live, pgoff, write, entry, &acc, &st);
	if (err || IS_ERR_OR_NULL(page)) {
		cxd_release_line(live, pgoff);
		clear_and_wake_up_bit(CXD_PG_LOCK, pf);
		if (err)
			return VM_FAULT_NOPAGE;	/* fatal signal: let it be delivered */
		return page ? VM_FAULT_SIGBUS : VM_FAULT_OOM;
	}

	/*
	 * The page goes to the core, locked, with a reference, as a
	 * page-cache page does: the core maps it (writable for a write fault,
	 * after ->page_mkwrite) as a normal, refcounted page the kernel can
	 * pin. It is locked before the line is released, so an eviction from
	 * then on waits for the PTE (cxd_evict_page()).
	 */
	get_page(page);
	lock_page(page);
	/* Held lines are never evicted: this only fails on a model reset. */
	if (!cxd_release_line(live, pgoff)) {
		unlock_page(page);
		put_page(page);
		clear_and_wake_up_bit(CXD_PG_LOCK, pf);
		return VM_FAULT_NOPAGE;
	}
	clear_and_wake_up_bit(CXD_PG_LOCK, pf);
	if (acc.hit && !filled && deadline <= t0)
		cxd_account_minor(live, entry);
	else if (!acc.hit && twait < deadline)
		cxd_tail_update(live, ktime_get_ns() - deadline);
	vmf->page = page;
	return VM_FAULT_LOCKED;
}

/*
 * First write to a read-only mapped page: mark its line dirty. If the line
 * was evicted under us, drop the stale PTE and let the access fault again.
 * Caller holds the page lock.
 * Return: 0 (make the PTE writable) or VM_FAULT_NOPAGE.
 */
static vm_fault_t cxd_mkwrite(struct vm_fault *vmf)
{
	struct cxd_live *live = vma_live(vmf->vma);
	u64 pgoff = vmf->pgoff;
	int ret;

	if (pgoff >= live->npages)
		return VM_FAULT_SIGBUS;
	cxd_model_lock(live);
	ret = cxd_cache_set_dirty(&live->model.cache, pgoff);
	spin_unlock(&live->lock);
	if (ret) {
		cxd_unmap_page(live, pgoff);
		return VM_FAULT_NOPAGE;
	}
	return 0;
}

/*
 * ->page_mkwrite. The core expects the page locked on success
 * (VM_FAULT_LOCKED), as for page-cache pages: it then sets the PTE
 * writable and the page dirty (a no-op for the device's address_space).
 */
static vm_fault_t cxd_page_mkwrite(struct vm_fault *vmf)
{
	vm_fault_t ret;

	/* this write fault's entry stamp serves no miss: consume it */
	cxd_fentry_gap(vmf, NULL);
	lock_page(vmf->page);
	ret = cxd_mkwrite(vmf);
	if (ret) {
		unlock_page(vmf->page);
		return ret;
	}
	return VM_FAULT_LOCKED;
}

/* A mapping was split (mprotect, partial munmap), copied (fork) or moved. */
static void cxd_vm_open(struct vm_area_struct *vma)
{
	/* On -ENOMEM the mapping works but is not seen by the scan. */
	cxd_vma_track(vma_live(vma), vma);
}

static void cxd_vm_close(struct vm_area_struct *vma)
{
	cxd_fill_forget(vma_live(vma), vma);
	cxd_vma_untrack(vma_live(vma), vma);
}

/* The devdax mapping (devdax.c's mmap). */
const struct vm_operations_struct cxd_vm_ops = {
	.open		= cxd_vm_open,
	.close		= cxd_vm_close,
	.fault		= cxd_fault,
	.page_mkwrite	= cxd_page_mkwrite,
};
