// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt devdax-style file and its fault path.
 *
 * Resident (cached) pages are mapped in the page tables and run natively. A
 * fault on a page that is not resident is a miss:
 *   1. the model picks a victim if the cache is full, and the victim is
 *      unmapped from every mapping of the device (one shared address_space);
 *   2. the NAND model gives the completion time;
 *   3. the fault waits until then with ns precision (busy-wait for short
 *      waits, killable hrtimer sleep plus a short spin for long ones); a
 *      wait that sleeps drops mmap_lock and ends in VM_FAULT_RETRY when the
 *      fault may be retried (cxd_can_drop_lock());
 *   4. the page is mapped: a runtime page is handed to the core (locked,
 *      as a page-cache page), which maps it as a refcounted page the
 *      kernel can pin, like device-dax's; a reserved range gets special
 *      PTEs (VM_MIXEDMAP).
 * Read faults map read-only; the first write goes through ->page_mkwrite
 * (->pfn_mkwrite for a reserved range) and marks the line dirty. A fault on
 * a resident page ("minor hit") maps it without NAND time.
 *
 * Ordering between a fault mapping page P and an eviction of P: a fault
 * holds P's line in the model (CXD_ACC_HOLD, cxd_cache_hold()) from its
 * access until its PTE is in place, so no concurrent miss, prefetch or drain
 * can evict P meanwhile (with more faulting threads than lines, a miss
 * waits for a line instead: acc.busy). The hold also gives identity: P
 * cannot have been evicted and brought back clean by a prefetch while a
 * write fault maps it writable. Eviction of an unheld P drops it from the
 * model under l->lock, then unmaps it; a racing fault cannot map P in
 * between because mapping requires P resident and held. Whichever order
 * the two run in, no PTE of a non-resident page survives.
 *
 * A runtime page is mapped by the core after ->fault returns, so there
 * the hold ends earlier, once the fault has locked the page; the page
 * lock then covers the rest (the core installs the PTE before unlocking),
 * and eviction unmaps a runtime page under its page lock. A write fault's
 * ->page_mkwrite re-checks residency under the page lock before the core
 * maps the page writable.
 */
#include <linux/delay.h>
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

static inline struct cxd_live *vma_live(struct vm_area_struct *vma)
{
	return vma->vm_file->private_data;
}

static void cxd_unmap_page(struct cxd_live *l, u64 pgoff)
{
	unmap_mapping_pages(l->inode->i_mapping, pgoff, 1, false);
}

/*
 * Unmap victim @pgoff of an eviction from every mapping.
 *
 * A runtime page is unmapped under its page lock: a fault hands its page
 * to the core locked (cxd_fault()), and the core installs the PTE before
 * unlocking it, so a victim whose fault released its line but whose PTE is
 * not in place yet is unmapped only once the PTE exists.
 *
 * A runtime page that still has references beyond the device's own once
 * its PTEs are gone is held by the kernel (get_user_pages: O_DIRECT in
 * flight, a pipe, ...): it is evicted all the same and counted
 * (stats/pinned_evictions). The data stays where it is, in the page, so
 * the I/O completes against it; the count is approximate (a
 * get_user_pages_fast() that is about to fail holds a reference for an
 * instant).
 * Context: process, may sleep; no page lock held.
 */
static void cxd_evict_page(struct cxd_live *l, u64 pgoff)
{
	struct page *page;

	if (!l->pages) {
		cxd_unmap_page(l, pgoff);
		return;
	}
	page = l->pages[pgoff];
	lock_page(page);
	cxd_unmap_page(l, pgoff);
	unlock_page(page);
	if (page_ref_count(page) > 1) {
		spin_lock(&l->lock);
		l->pinned_evictions++;
		spin_unlock(&l->lock);
	}
}

/*
 * End the hold the fault took on its page's line (CXD_ACC_HOLD). Return:
 * true if the line was still held, i.e. it is the line this fault filled or
 * found, which no eviction can have taken meanwhile.
 */
static bool cxd_release_line(struct cxd_live *l, u64 pgoff)
{
	int ret;

	cxd_model_lock(l);
	ret = cxd_cache_release(&l->model.cache, pgoff);
	spin_unlock(&l->lock);
	return !ret;
}

/*
 * Waits that sleep do not hold mmap_lock (or the per-VMA lock) when the
 * fault may be retried: the fault drops it, waits (killable) for the data,
 * marks the page CXD_PG_FILLED and returns VM_FAULT_RETRY, as the page
 * cache does for I/O. The retried fault finds the page resident and
 * CXD_PG_FILLED and maps it without a second model access (the access was
 * counted once). Without FAULT_FLAG_ALLOW_RETRY the wait holds the lock, as
 * it must. Either way a fatal signal ends the wait.
 */
static bool cxd_can_drop_lock(const struct vm_fault *vmf)
{
	return fault_flag_allow_retry_first(vmf->flags) &&
	       !(vmf->flags & FAULT_FLAG_RETRY_NOWAIT);
}

static vm_fault_t cxd_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct cxd_live *l = vma_live(vma);
	bool write = vmf->flags & FAULT_FLAG_WRITE;
	bool can_drop = cxd_can_drop_lock(vmf);
	u64 pgoff = vmf->pgoff;
	struct cxd_miss_stages st = { 0 };
	struct cxd_access acc;
	unsigned long *pf;
	unsigned int i;
	vm_fault_t ret;
	bool filled;
	u64 t0, deadline;
	int err;

	if (pgoff >= l->npages)
		return VM_FAULT_SIGBUS;
	pf = &l->pflags[pgoff];

	if (test_and_set_bit_lock(CXD_PG_LOCK, pf)) {
		/* Another fault is filling the page: wait for it, unlocked if we may. */
		if (can_drop) {
			get_device(&l->dev);
			cxd_release_fault_lock(vmf);
			wait_on_bit(pf, CXD_PG_LOCK, TASK_KILLABLE);
			put_device(&l->dev);
			return VM_FAULT_RETRY;
		}
		if (wait_on_bit_lock(pf, CXD_PG_LOCK, TASK_KILLABLE))
			return VM_FAULT_NOPAGE;	/* fatal signal: let it be delivered */
	}

	t0 = ktime_get_ns();
	filled = test_and_clear_bit(CXD_PG_FILLED, pf);
	cxd_model_lock(l);	/* sleeps while a policy switch runs */
	if (filled && cxd_cache_ready_ns(&l->model.cache, pgoff) <= t0 &&
	    !cxd_cache_hold(&l->model.cache, pgoff)) {
		/* The retry of a fault that waited unlocked: already counted. */
		memset(&acc, 0, sizeof(acc));
		acc.hit = true;
		acc.done_ns = t0;
		if (write)
			cxd_cache_set_dirty(&l->model.cache, pgoff);
	} else {
		cxd_model_access(&l->model, pgoff, CXD_ACC_HOLD |
				 (write ? CXD_ACC_WRITE : 0), t0, &acc);
	}
	if (acc.busy) {
		/*
		 * Every line the page may use is held by faults in flight:
		 * wait for one to finish (a tick, unlocked if we may), then
		 * fault again.
		 */
		spin_unlock(&l->lock);
		clear_and_wake_up_bit(CXD_PG_LOCK, pf);
		if (can_drop) {
			get_device(&l->dev);
			cxd_release_fault_lock(vmf);
			schedule_timeout_killable(1);
			put_device(&l->dev);
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
	deadline = max(acc.done_ns, cxd_cache_ready_ns(&l->model.cache, pgoff));
	spin_unlock(&l->lock);
	/* A miss's own time before the wait, by stage: two clock reads. */
	if (!acc.hit)
		st.model_ns = ktime_get_ns();
	if (acc.drain)
		queue_work(system_unbound_wq, &l->drain_work);
	cxd_trace_access(l, pgoff, t0, &acc);

	/* Victims of the demand miss and of its prefetches leave every mapping. */
	for (i = 0; i < acc.nvictims; i++)
		cxd_evict_page(l, acc.victims[i].page);
	if (!acc.hit) {
		st.unmap_ns = ktime_get_ns() - st.model_ns;
		st.model_ns -= t0;
		st.unmaps = acc.nvictims;
	}

	if (can_drop && deadline > t0 && cxd_wait_sleeps(deadline - t0)) {
		get_device(&l->dev);
		cxd_release_fault_lock(vmf);
		/* vma and vmf->vma may be gone from here on. */
		if (!cxd_wait_until(deadline)) {
			if (!acc.hit)
				cxd_account_miss(l, pgoff, write, t0, &acc, &st);
			set_bit(CXD_PG_FILLED, pf);
		}
		cxd_release_line(l, pgoff);
		clear_and_wake_up_bit(CXD_PG_LOCK, pf);
		put_device(&l->dev);
		return VM_FAULT_RETRY;
	}
	err = cxd_wait_until(deadline);
	if (err) {
		cxd_release_line(l, pgoff);
		clear_and_wake_up_bit(CXD_PG_LOCK, pf);
		return VM_FAULT_NOPAGE;	/* fatal signal: let it be delivered */
	}

	if (!acc.hit)
		cxd_account_miss(l, pgoff, write, t0, &acc, &st);

	if (l->pages) {
		/*
		 * A runtime page goes to the core, locked, with a reference,
		 * as a page-cache page does: the core maps it (writable for a
		 * write fault, after ->page_mkwrite) as a normal, refcounted
		 * page the kernel can pin. It is locked before the line is
		 * released, so an eviction from then on waits for the PTE
		 * (cxd_evict_page()).
		 */
		struct page *page = l->pages[pgoff];

		get_page(page);
		lock_page(page);
		/* Held lines are never evicted: this only fails on a model reset. */
		if (!cxd_release_line(l, pgoff)) {
			unlock_page(page);
			put_page(page);
			clear_and_wake_up_bit(CXD_PG_LOCK, pf);
			return VM_FAULT_NOPAGE;
		}
		clear_and_wake_up_bit(CXD_PG_LOCK, pf);
		vmf->page = page;
		return VM_FAULT_LOCKED;
	}

	/*
	 * A reserved range has no struct pages: a special PTE, read-only; a
	 * write then faults once more into ->pfn_mkwrite, which finds the
	 * line dirty already.
	 */
	ret = cxd_insert_mixed(vma, vmf->address, PHYS_PFN(l->phys) + pgoff);
	if (!cxd_release_line(l, pgoff))
		cxd_unmap_page(l, pgoff);
	clear_and_wake_up_bit(CXD_PG_LOCK, pf);
	return ret;
}

#define CXD_DRAIN_BATCH	32

/**
 * cxd_drain_work() - the background write-back drain (writeback = drain).
 * @work: the device's drain_work, queued by a fault whose access pushed
 *	  occupancy above drain_high_pct.
 *
 * Evicts down to drain_low_pct in batches of CXD_DRAIN_BATCH lines, holding
 * the device lock only while the model picks a batch, and unmaps each batch
 * from every mapping outside it (the fault path's residency re-check covers
 * a page mapped meanwhile). Dirty victims are written back at the time the
 * batch runs, occupying their dies like any write-back.
 * Context: workqueue (process), may sleep.
 */
void cxd_drain_work(struct work_struct *work)
{
	struct cxd_live *l = container_of(work, struct cxd_live, drain_work);
	struct cxd_victim v[CXD_DRAIN_BATCH];
	unsigned int i, n;

	do {
		cxd_model_lock(l);
		n = cxd_model_drain(&l->model, ktime_get_ns(), v, CXD_DRAIN_BATCH);
		spin_unlock(&l->lock);
		cxd_trace_drain(l, v, n);
		for (i = 0; i < n; i++)
			cxd_evict_page(l, v[i].page);
		cond_resched();
	} while (n == CXD_DRAIN_BATCH);
}

/*
 * First write to a read-only mapped page: mark its line dirty. If the line
 * was evicted under us, drop the stale PTE and let the access fault again.
 * Return: 0 (make the PTE writable) or VM_FAULT_NOPAGE.
 */
static vm_fault_t cxd_mkwrite(struct vm_fault *vmf)
{
	struct cxd_live *l = vma_live(vmf->vma);
	u64 pgoff = vmf->pgoff;
	int ret;

	if (pgoff >= l->npages)
		return VM_FAULT_SIGBUS;
	cxd_model_lock(l);
	ret = cxd_cache_set_dirty(&l->model.cache, pgoff);
	spin_unlock(&l->lock);
	if (ret) {
		cxd_unmap_page(l, pgoff);
		return VM_FAULT_NOPAGE;
	}
	return 0;
}

/*
 * A runtime page's PTE. The core expects the page locked on success
 * (VM_FAULT_LOCKED), as for page-cache pages: it then sets the PTE
 * writable and the page dirty (a no-op for the device's address_space).
 */
static vm_fault_t cxd_page_mkwrite(struct vm_fault *vmf)
{
	vm_fault_t ret;

	lock_page(vmf->page);
	ret = cxd_mkwrite(vmf);
	if (ret) {
		unlock_page(vmf->page);
		return ret;
	}
	return VM_FAULT_LOCKED;
}

/*
 * ->access: /proc/PID/mem and ptrace on a reserved range, whose special
 * PTEs get_user_pages() cannot follow (runtime pages never get here: GUP
 * pins them and faults them in through the model). Copies straight from
 * or to the range, at most to the end of the page at @addr; not a model
 * access (no miss time, like the kernel's own accesses through its
 * direct map), but a write marks a resident line dirty.
 * Context: mmap_lock held. Return: bytes copied, or -EINVAL past the
 * device's end.
 */
static int cxd_vm_access(struct vm_area_struct *vma, unsigned long addr,
			 void *buf, int len, int write)
{
	struct cxd_live *l = vma_live(vma);
	u64 pgoff = vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT);
	unsigned long off = offset_in_page(addr);
	void *va;

	if (pgoff >= l->npages || !l->wb_map)
		return -EINVAL;
	len = min_t(unsigned long, len, PAGE_SIZE - off);
	va = l->wb_map + (pgoff << PAGE_SHIFT) + off;
	if (write) {
		memcpy(va, buf, len);
		cxd_model_lock(l);
		cxd_cache_set_dirty(&l->model.cache, pgoff);
		spin_unlock(&l->lock);
	} else {
		memcpy(buf, va, len);
	}
	return len;
}

/* A mapping was split (mprotect, partial munmap), copied (fork) or moved. */
static void cxd_vm_open(struct vm_area_struct *vma)
{
	/* On -ENOMEM the mapping works but is not seen by the scan. */
	cxd_vma_track(vma_live(vma), vma);
}

static void cxd_vm_close(struct vm_area_struct *vma)
{
	cxd_vma_untrack(vma_live(vma), vma);
}

static const struct vm_operations_struct cxd_vm_ops = {
	.open		= cxd_vm_open,
	.close		= cxd_vm_close,
	.fault		= cxd_fault,
	.page_mkwrite	= cxd_page_mkwrite,
	.pfn_mkwrite	= cxd_mkwrite,	/* a reserved range's special PTE */
	.access		= cxd_vm_access,
};

/** cxd_vma_is_ours() - true if @vma is a mapping of device @l. */
bool cxd_vma_is_ours(struct vm_area_struct *vma, struct cxd_live *l)
{
	return vma->vm_ops == &cxd_vm_ops && vma->vm_file &&
	       vma->vm_file->private_data == l;
}

static int cxd_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct cxd_live *l = file->private_data;

	/*
	 * VM_MAYSHARE, not VM_SHARED: for a file opened read-only the kernel
	 * clears VM_SHARED (and VM_MAYWRITE) from a MAP_SHARED mapping, which
	 * is still shared. devdax (check_vma()) tests VM_MAYSHARE too.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE)) {
		pr_info_ratelimited(CXD_NAME "%d: %s[%d]: MAP_PRIVATE is not supported, use MAP_SHARED\n",
				    MINOR(l->dev.devt), current->comm,
				    task_pid_nr(current));
		return -EINVAL;
	}
	if (cxd_vma_track(l, vma))
		return -ENOMEM;
	vma->vm_ops = &cxd_vm_ops;
	/*
	 * Runtime pages are mapped by the core as normal, refcounted pages
	 * (->fault returns them), which get_user_pages() can pin (O_DIRECT,
	 * shared futexes, vmsplice). A reserved range has no struct pages:
	 * special PTEs, which need VM_MIXEDMAP. Runtime mappings carry it
	 * too, as device-dax's VMAs are special to mm: mlock() neither splits
	 * nor locks them, NUMA balancing leaves them alone (the pages are
	 * not on the LRU; there is nothing to lock or migrate). Not
	 * VM_PFNMAP, not VM_DONTEXPAND: MADV_DONTNEED zaps, and mremap may
	 * grow the mapping (faults past the device's end raise SIGBUS), as
	 * with device-dax; from 6.12 (at the latest) mm refuses to grow a
	 * VM_MIXEDMAP mapping in place (ENOMEM), see docs/interface.md.
	 */
	vm_flags_set(vma, VM_MIXEDMAP | VM_DONTDUMP);
	return 0;
}

/*
 * open: point the file at the device's private address_space, so every
 * mapping, through any device node, is reached by unmap_mapping_pages(); and
 * pin the configfs item so rmdir fails with -EBUSY while the file is open.
 */
static int cxd_open(struct inode *inode, struct file *file)
{
	struct cxd_live *l = container_of(inode->i_cdev, struct cxd_live, cdev);
	int ret;

	ret = configfs_depend_item(&cxd_subsys, &l->cdev_owner->item);
	if (ret)
		return -ENODEV;

	spin_lock(&l->open_lock);
	if (l->dead) {
		spin_unlock(&l->open_lock);
		configfs_undepend_item(&l->cdev_owner->item);
		return -ENODEV;
	}
	l->open_count++;
	spin_unlock(&l->open_lock);

	get_device(&l->dev);
	file->private_data = l;
	file->f_mapping = l->inode->i_mapping;
	return 0;
}

static int cxd_release(struct inode *inode, struct file *file)
{
	struct cxd_live *l = file->private_data;
	struct config_item *item = &l->cdev_owner->item;

	spin_lock(&l->open_lock);
	l->open_count--;
	spin_unlock(&l->open_lock);
	configfs_undepend_item(item);
	put_device(&l->dev);
	return 0;
}

const struct file_operations cxd_fops = {
	.owner		= THIS_MODULE,
	.open		= cxd_open,
	.release	= cxd_release,
	.mmap		= cxd_mmap,
	CXD_FOPS_MAP_SYNC,
	.llseek		= noop_llseek,
};
