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
 *   4. the page is mapped.
 * Read faults map read-only; the first write goes through ->pfn_mkwrite and
 * marks the line dirty. A fault on a resident page ("minor hit") maps it
 * without NAND time.
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
 */
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
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
 * End the hold the fault took on its page's line (CXD_ACC_HOLD). Return:
 * true if the line was still held, i.e. it is the line this fault filled or
 * found, which no eviction can have taken meanwhile.
 */
static bool cxd_release_line(struct cxd_live *l, u64 pgoff)
{
	int ret;

	spin_lock(&l->lock);
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
	pgprot_t prot;
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
	spin_lock(&l->lock);
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
		cxd_unmap_page(l, acc.victims[i].page);
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

	prot = write ? vm_get_page_prot(vma->vm_flags) : vma->vm_page_prot;
	ret = vmf_insert_pfn_prot(vma, vmf->address, cxd_page_pfn(l, pgoff), prot);

	if (!acc.hit)
		cxd_account_miss(l, pgoff, write, t0, &acc, &st);
	/* Held lines are never evicted: this only fails if the model was reset. */
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
		spin_lock(&l->lock);
		n = cxd_model_drain(&l->model, ktime_get_ns(), v, CXD_DRAIN_BATCH);
		spin_unlock(&l->lock);
		cxd_trace_drain(l, v, n);
		for (i = 0; i < n; i++)
			cxd_unmap_page(l, v[i].page);
		cond_resched();
	} while (n == CXD_DRAIN_BATCH);
}

/*
 * First write to a read-only mapped page: mark its line dirty. If the line
 * was evicted under us, drop the stale PTE and let the access fault again.
 */
static vm_fault_t cxd_pfn_mkwrite(struct vm_fault *vmf)
{
	struct cxd_live *l = vma_live(vmf->vma);
	u64 pgoff = vmf->pgoff;
	int ret;

	if (pgoff >= l->npages)
		return VM_FAULT_SIGBUS;
	spin_lock(&l->lock);
	ret = cxd_cache_set_dirty(&l->model.cache, pgoff);
	spin_unlock(&l->lock);
	if (ret) {
		cxd_unmap_page(l, pgoff);
		return VM_FAULT_NOPAGE;
	}
	return 0;
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
	.pfn_mkwrite	= cxd_pfn_mkwrite,
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
	vm_flags_set(vma, VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
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
	.llseek		= noop_llseek,
};
