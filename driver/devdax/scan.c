// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt accessed-bit scan: how recency policies learn about hits.
 *
 * Hits run natively, so the fault path never sees them. Every
 * scan_interval_ms a device's scan walks the PTEs of every mapping of the
 * device, reads and clears the hardware accessed bit of each mapped
 * (resident) page, and reports the pages found accessed to the cache policy
 * through cxd_cache_touch(). A page touched many times between two scans
 * counts as one touch, and touches within one interval are unordered: LRU
 * becomes "least recently used at scan granularity" (see docs/model.md).
 *
 * Mappings are tracked through vm_ops open/close. The scan never holds the
 * tracking mutex while it takes an mm's mmap_lock (open/close run under
 * mmap_lock, so the other order would deadlock): it snapshots the list with
 * references on each mm, then walks each mapping under mmap_read_lock,
 * re-validating the VMA. It holds the device lock (the one the fault path
 * needs) only to feed one batch of at most CXD_SCAN_BATCH pages to the
 * policy, and never under a page-table lock: the walk stops when a batch
 * is full, the batch is fed (cxd_model_lock() may sleep while a policy
 * switch runs) and the walk resumes after the last page.
 *
 * x86 sets a PTE's accessed bit only when it loads the PTE into a TLB, so
 * after a pass that cleared any bit every CPU's TLB is flushed once
 * (cxd_flush_tlb_all_cpus()); otherwise the hottest pages, which never
 * leave the TLB, would be seen once and then look cold forever. Where the
 * kernel does not let modules flush (7.x), they are seen again only after
 * their TLB entry is evicted for other reasons.
 */
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "cxdvirt.h"
#include "devdax.h"

#define CXD_SCAN_BATCH	64
#define CXD_SCAN_ZAP_MAX	1024	/* per pass, bounds the fallback's cost */

struct cxd_vma_ref {
	struct list_head node;
	struct vm_area_struct *vma;
	struct mm_struct *mm;		/* mmgrab()ed */
};

struct cxd_scan_ctx {
	struct cxd_live *live;
	struct vm_area_struct *vma;
	unsigned long resume;		/* where a walk stopped for a full batch */
	unsigned int n;
	u64 cleared;			/* accessed bits cleared this pass */
	u64 pages[CXD_SCAN_BATCH];
	/* No TLB flush for modules (7.x): accessed pages to unmap instead. */
	bool zap;
	unsigned int nzap;
	u64 zap_pages[CXD_SCAN_ZAP_MAX];
};

/**
 * cxd_vma_track() - remember a new mapping @vma of device @live.
 * @live:	powered devdax device.
 * @vma:	the new mapping.
 *
 * The record lives in @vma->vm_private_data, so untracking is O(1). A VMA
 * made by vm_ops->open (split, fork, mremap) arrives with its parent's
 * pointer copied there and gets its own record. On failure
 * vm_private_data is NULL: the mapping works but the scan does not see it.
 *
 * Context: ->mmap or vm_ops->open (mmap_lock held for write).
 * Return: 0 or -ENOMEM.
 */
int cxd_vma_track(struct cxd_live *live, struct vm_area_struct *vma)
{
	struct cxd_vma_ref *r = kmalloc(sizeof(*r), GFP_KERNEL);

	vma->vm_private_data = r;
	if (!r)
		return -ENOMEM;
	r->vma = vma;
	r->mm = vma->vm_mm;
	mmgrab(r->mm);
	mutex_lock(&live->vma_lock);
	list_add_tail(&r->node, &live->vmas);
	live->nvmas++;
	mutex_unlock(&live->vma_lock);
	return 0;
}

/**
 * cxd_vma_untrack() - forget mapping @vma of device @live (vm_ops->close), in
 * O(1).
 * @live:	powered devdax device.
 * @vma:	the mapping going away.
 * Context: mmap_lock held for write, may sleep.
 */
void cxd_vma_untrack(struct cxd_live *live, struct vm_area_struct *vma)
{
	struct cxd_vma_ref *r = vma->vm_private_data;

	if (!r)
		return;
	vma->vm_private_data = NULL;
	mutex_lock(&live->vma_lock);
	list_del(&r->node);
	live->nvmas--;
	mutex_unlock(&live->vma_lock);
	mmdrop(r->mm);
	kfree(r);
}

/*
 * Is @vma (found again by address after the snapshot) still a mapping of
 * device @live? Every file of the device, and only those, has its f_mapping
 * pointed at @live's private address_space (devdax.c's open), and every
 * mapping of such a file is a device mapping made by its mmap.
 */
static bool cxd_scan_vma_is_ours(struct vm_area_struct *vma,
				 struct cxd_live *live)
{
	return vma->vm_file && vma->vm_file->f_mapping == live->inode->i_mapping;
}

/* Feed the batch to the policy. Context: process, may sleep (no PTE lock). */
static void cxd_scan_flush(struct cxd_scan_ctx *ctx)
{
	struct cxd_live *live = ctx->live;
	unsigned int i;

	cxd_model_lock(live);
	for (i = 0; i < ctx->n; i++)
		cxd_cache_touch(&live->model.cache, ctx->pages[i]);
	live->scan_touched += ctx->n;
	spin_unlock(&live->lock);
	ctx->n = 0;
}

/*
 * Called for each present PTE of the mapping, with the PTE lock held. A full
 * batch stops the walk (non-zero return) at @addr + PAGE_SIZE, so that
 * cxd_scan_one() feeds it with no PTE lock held and resumes there.
 */
static int cxd_scan_pte(pte_t *pte, unsigned long addr, void *data)
{
	struct cxd_scan_ctx *ctx = data;
	struct vm_area_struct *vma = ctx->vma;

	if (!cxd_pte_test_and_clear_young(pte))
		return 0;
	ctx->cleared++;
	ctx->pages[ctx->n] = vma->vm_pgoff +
			     ((addr - vma->vm_start) >> PAGE_SHIFT);
	if (ctx->zap && ctx->nzap < CXD_SCAN_ZAP_MAX)
		ctx->zap_pages[ctx->nzap++] = ctx->pages[ctx->n];
	ctx->n++;
	if (ctx->n == CXD_SCAN_BATCH) {
		ctx->resume = addr + PAGE_SIZE;
		return -EAGAIN;
	}
	return 0;
}

struct cxd_scan_target {
	struct mm_struct *mm;
	unsigned long start;
};

/*
 * Bytes of @vma to walk: only the part that maps device pages (below
 * capacity; the rest can never have a PTE, its faults raise SIGBUS). Where
 * the walk is apply_to_page_range() (7.x, see compat.h), which allocates
 * page tables for the whole range it is given, this bounds them by the
 * device's capacity instead of the mapping's size: a 1 TiB MAP_NORESERVE
 * mapping of a small device would otherwise cost 2 GiB of page tables.
 * Caller checked vm_pgoff < npages.
 */
static unsigned long cxd_scan_len(struct cxd_live *live, struct vm_area_struct *vma)
{
	u64 pages = min_t(u64, vma_pages(vma), live->npages - vma->vm_pgoff);

	return pages << PAGE_SHIFT;
}

static void cxd_scan_one(struct cxd_live *live, struct cxd_scan_target *t,
			 struct cxd_scan_ctx *ctx)
{
	struct vm_area_struct *vma;
	unsigned long addr, end;

	if (!mmget_not_zero(t->mm))
		return;
	mmap_read_lock(t->mm);
	vma = find_vma(t->mm, t->start);
	/* The mapping may have gone or changed since the snapshot. */
	if (vma && vma->vm_start == t->start && cxd_scan_vma_is_ours(vma, live) &&
	    vma->vm_pgoff < live->npages) {
		ctx->vma = vma;
		end = vma->vm_start + cxd_scan_len(live, vma);
		for (addr = vma->vm_start; addr < end; addr = ctx->resume) {
			ctx->resume = end;
			cxd_apply_to_existing_page_range(t->mm, addr,
							 end - addr,
							 cxd_scan_pte, ctx);
			if (ctx->n)
				cxd_scan_flush(ctx);
		}
	}
	mmap_read_unlock(t->mm);
	mmput(t->mm);
}

static void cxd_scan_work(struct work_struct *work)
{
	struct cxd_live *live = container_of(to_delayed_work(work),
					  struct cxd_live, scan_work);
	struct cxd_scan_target *t = NULL;
	struct cxd_scan_ctx *ctx;
	struct cxd_vma_ref *r;
	unsigned int i, n = 0, cap;
	unsigned int ms;
	u64 t0 = ktime_get_ns();

	ctx = kmalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		goto rearm;
	ctx->live = live;
	ctx->n = 0;
	ctx->cleared = 0;
	ctx->nzap = 0;
	ctx->zap = !CXD_CAN_FLUSH_TLB;

	/* kvmalloc: hundreds of thousands of mappings exceed kmalloc's limit. */
	mutex_lock(&live->vma_lock);
	cap = live->nvmas;
	if (cap)
		t = kvmalloc_array(cap, sizeof(*t), GFP_KERNEL);
	if (t) {
		list_for_each_entry(r, &live->vmas, node) {
			t[n].mm = r->mm;
			t[n].start = r->vma->vm_start;
			mmgrab(r->mm);
			n++;
		}
	}
	mutex_unlock(&live->vma_lock);

	for (i = 0; i < n; i++) {
		cxd_scan_one(live, &t[i], ctx);
		mmdrop(t[i].mm);
		cond_resched();
	}
	/*
	 * Without a flush, a hot page's cached TLB entry never sets it again.
	 * Where modules cannot flush, unmap (at most CXD_SCAN_ZAP_MAX of) the
	 * pages seen accessed: their next access faults as a minor hit, which
	 * reaches the policy directly, and maps them with a fresh TLB entry.
	 */
	if (ctx->cleared)
		cxd_flush_tlb_all_cpus();
	for (i = 0; i < ctx->nzap; i++)
		unmap_mapping_pages(live->inode->i_mapping, ctx->zap_pages[i], 1, false);
	kvfree(t);
	kfree(ctx);
	spin_lock(&live->lock);
	live->scan_passes++;
	live->scan_ns_total += ktime_get_ns() - t0;
	spin_unlock(&live->lock);
rearm:
	ms = READ_ONCE(live->scan_interval_ms);
	if (ms)
		queue_delayed_work(cxd_wq, &live->scan_work,
				   msecs_to_jiffies(ms));
}

/* Set by cxd_scan_selftest(): the page-table walk sees every present PTE. */
static bool cxd_scan_walk_ok = true;
module_param_named(scan_walk_ok, cxd_scan_walk_ok, bool, 0444);
MODULE_PARM_DESC(scan_walk_ok,
		 "result of the load-time page-table walk self-test; N: accessed-bit scanning is refused (read-only)");

/**
 * cxd_scan_walk_works() - did the load-time self-test find the kernel's
 * page-table walk whole (cxd_scan_selftest())?
 * Context: any, after module init.
 * Return: false where apply_to_existing_page_range() stops at the first
 * empty PTE of a table: a range walk would miss present PTEs.
 */
bool cxd_scan_walk_works(void)
{
	return cxd_scan_walk_ok;
}

static int cxd_selftest_pte(pte_t *pte, unsigned long addr, void *data)
{
	unsigned long *present = data;

	if (pte_present(*pte))
		(*present)++;
	return 0;
}

/**
 * cxd_scan_selftest() - check the kernel's page-table walk.
 *
 * Does this kernel's page-table walk reach a present PTE that follows an
 * empty one in the same table? Stable kernels before the backport of "mm: fix
 * apply_to_existing_page_range()" (6.1.135 and 6.12.25, per the Debian
 * changelogs) stop calling the callback at the first empty PTE of a
 * table, so the scan would miss most accessed pages and lru, clock and
 * s3fifo would silently act like fifo. The test maps two pages of
 * anonymous memory in the caller's mm, within one page table, faults in
 * only the second, and walks both: exactly one present PTE must be seen.
 * Where the walk fails, the scan is refused (cxd_scan_set_interval()) and
 * one log line says why.
 *
 * Context: module init, in the loading process (it has an mm).
 */
void cxd_scan_selftest(void)
{
	struct mm_struct *mm = current->mm;
	unsigned long addr, a, present = 0;
	struct page *page;
	int i;

	if (!mm)
		return;
	addr = vm_mmap(NULL, 0, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, 0);
	if (IS_ERR_VALUE(addr))
		return;
	/* Two consecutive pages of the four share one PTE table. */
	for (i = 0; i < 2; i++)
		if (((addr + i * PAGE_SIZE) & PMD_MASK) ==
		    ((addr + (i + 1) * PAGE_SIZE) & PMD_MASK))
			break;
	a = addr + i * PAGE_SIZE;
	if (get_user_pages_fast(a + PAGE_SIZE, 1, FOLL_WRITE, &page) == 1) {
		mmap_read_lock(mm);
		cxd_apply_to_existing_page_range(mm, a, 2 * PAGE_SIZE,
						 cxd_selftest_pte, &present);
		mmap_read_unlock(mm);
		put_page(page);
		cxd_scan_walk_ok = present == 1;
	}
	vm_munmap(addr, 4 * PAGE_SIZE);
	if (!cxd_scan_walk_ok)
		pr_warn(CXD_NAME ": this kernel's page-table walk stops at the first empty PTE (needs \"mm: fix apply_to_existing_page_range()\", 6.1.135 or 6.12.25): accessed-bit scanning is disabled, lru, clock and s3fifo see only faults\n");
}

/**
 * cxd_scan_set_interval() - (re)start the scan of @live every @ms
 * milliseconds; 0 stops it and waits for a running pass
 * (cxd_mode_ops.scan_interval of devdax mode).
 * @live:	powered devdax device.
 * @ms:	scan period, ms; 0: stop.
 *
 * No scan runs on a kernel that failed cxd_scan_selftest().
 * Context: process, may sleep; caller holds cxd_cfg_mutex.
 */
void cxd_scan_set_interval(struct cxd_live *live, unsigned int ms)
{
	if (!cxd_scan_walk_ok) {
		if (ms)
			pr_warn_ratelimited(CXD_NAME "%d: scan_interval_ms ignored: this kernel's page-table walk is broken (see the log at module load)\n",
					    MINOR(live->dev.devt));
		return;
	}
	WRITE_ONCE(live->scan_interval_ms, ms);
	if (ms)
		mod_delayed_work(cxd_wq, &live->scan_work,
				 msecs_to_jiffies(ms));
	else
		cancel_delayed_work_sync(&live->scan_work);
}

/**
 * cxd_scan_init() - prepare the (stopped) scan of @live.
 * @live:	device being powered on.
 */
void cxd_scan_init(struct cxd_live *live)
{
	mutex_init(&live->vma_lock);
	INIT_LIST_HEAD(&live->vmas);
	INIT_DELAYED_WORK(&live->scan_work, cxd_scan_work);
}
