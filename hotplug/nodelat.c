// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt node-mode latency: the device model applied, per access, to memory
 * onlined as a NUMA node (node_latency = on). See docs/numa-mode.md.
 *
 * Memory of the node belongs to ordinary processes: the kernel allocates it
 * and maps it, cxdvirt only changes the protection of PTEs that map it.
 *
 * - A page resident in the modeled cache is mapped normally and runs
 *   natively.
 * - A page evicted from the modeled cache is made non-resident in every
 *   process that maps it (compat.h, cxd_nl_make_nonresident()). On 7.2 that
 *   is a device-exclusive entry, whose next touch an MMU interval notifier
 *   per tracked mm sees (cxd_nl_sub_invalidate(); docs/numa-mode.md "Node
 *   latency on 7.2"). On 6.1 and 6.12, as described here, it gets a
 *   PROT_NONE PTE, the same PTE the kernel's NUMA balancing uses (a
 *   "NUMA-hinting" entry). Touching it faults into do_numa_page(), which
 *   makes the PTE accessible again (a task bound to the node never has its
 *   page migrated: its policy has no MPOL_F_MOF).
 * - A kprobe on do_numa_page()'s out-of-line callee (compat.h) sees that
 *   fault, with the PTE lock held. It only records the access and queues a
 *   task_work on the faulting task.
 * - A kprobe on the "new anonymous page" rmap call sees a first touch: a page
 *   of the node newly allocated and mapped. That is an access like any
 *   other (a write; skip_unwritten decides whether it pays tR).
 * - File and shmem pages (MAP_SHARED anonymous memory, memfd, SysV shm,
 *   tmpfs, page cache) are not made PROT_NONE: eviction unmaps them from
 *   every mapping with unmap_mapping_pages(), as devdax does, and the next
 *   touch faults through the mapping's ->fault. A kprobe on the function
 *   that maps a file page for a fault sees it (an access, with the fault's
 *   write flag). Fault-around would map a page's neighbours without a
 *   fault: a kprobe on filemap_map_pages() cuts it to the faulting page
 *   when that page is on a device's node; a neighbour of the node mapped
 *   by the fault-around of another node's page is charged as a read.
 * - Migration onto the node (mbind, move_pages, migrate_pages, compaction,
 *   demotion): a kprobe on folio_migrate_flags() sees each page copied in,
 *   charged as a write by a background work (the copy may be kswapd's); a
 *   kprobe on the "existing anonymous page" rmap call records where the
 *   migration maps it back, in any process. The same call maps swapped-in
 *   pages: the faulting task's access.
 * - A hinting fault on a page eviction made PROT_NONE is the model's, not
 *   NUMA balancing's: a kretprobe on the placement check makes it keep the
 *   page where it is (a default-policy task would have it promoted).
 * - The task_work runs on the task's way back to user space (process
 *   context, no lock held): it runs the model, makes each victim PROT_NONE
 *   wherever it is mapped, and waits until the modeled completion time with
 *   cxd_wait_until(), as the devdax fault path does.
 *
 * The reverse map (device page -> PTEs) is built from what the hooks see:
 * the user address a page was last accessed at, and the set of address
 * spaces (mms) that touched the device, plus their children (the
 * task_newtask tracepoint): anonymous pages keep their address across fork.
 * Eviction looks the page up at that address in each tracked mm.
 *
 * Eviction of an anonymous page follows the rules the kernel's own PROT_NONE
 * changes follow:
 * mmap_lock held for read, the mm's TLB-flush-pending count raised while
 * PTEs change (x86's pte_accessible() trusts a PROT_NONE PTE to be out of
 * every TLB only when no flush is pending), PTEs changed under their lock
 * with ptep_modify_prot_start/commit, then, once per batch, the TLBs of the
 * CPUs that may hold the changed mms' entries flushed (cxd_tlb_batch_*() in
 * compat.h: the kernel's batched-unmap protocol, TLB generation plus
 * mm_cpumask), not every CPU's. A PTE found dirty has its dirty bit moved
 * to the folio first (as try_to_unmap() does); if the model evicted that
 * line as clean, the write it could not see is charged then
 * (cxd_model_late_writeback()). Unmapping a file page moves a dirty PTE's
 * bit to its folio with folio_mark_dirty(); a kprobe there, armed for the
 * pages being unmapped (@unmapping), tells eviction the PTE was dirty.
 *
 * Hits: the accessed-bit scan of this file walks the page tables of the
 * tracked mms every scan_interval_ms (the device pages of an mm whose
 * resident set dwarfs them one by one instead), feeds accessed pages
 * to the policy and moves dirty bits to the model, as driver/devdax/scan.c
 * does for devdax mappings.
 *
 * Remote reads: another process's GUP of evicted pages (/proc/PID/mem,
 * ptrace, process_vm_readv()) is charged to the reader and counted in
 * remote_accesses. On 7.2 the notifier sees the remote fault; on 6.1 and
 * 6.12, where such a GUP may follow the PROT_NONE entry without a fault,
 * return probes on the remote paths charge what was read ("remote reads"
 * below).
 *
 * What this cannot see is counted where possible and listed in
 * docs/numa-mode.md: kernel accesses through the direct map, DMA, a THP
 * that got onto the node anyway (thp_untracked_pages), and hugetlb pages
 * of the node's pool (hugetlb_untracked_pages). Huge pages on the node
 * are refused (the THP section below), and so are KSM merges of its pages
 * (cxd_nl_krp_ksm).
 *
 * Lifetime: struct cxd_nodelat is refcounted. The device holds one reference
 * from cxd_nodelat_start() to cxd_nodelat_stop(); each queued task_work holds
 * one, plus a module reference, so neither the state nor the code goes away
 * under a task that has not yet returned to user space (a remote read's
 * task_work holds only the module reference: it finds the devices while it
 * walks, in an SRCU read section, which cxd_nodelat_stop() waits for). The
 * state holds a reference on the device's struct device, so the model
 * outlives it. The works (drain, arrivals, scan) hold a reference on the
 * state, none on the module: they run on the module's workqueue (cxd_wq),
 * which unload flushes before anything goes. That covers a drain queued
 * after cxd_nodelat_stop() cancelled it, by a task_work that had seen the
 * device running.
 */
#include <linux/compat.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/srcu.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/mmu_notifier.h>
#include <linux/module.h>
#include <linux/pid.h>
#include <linux/rculist.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/tracepoint.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "cxdvirt.h"
#include "nodelat.h"

/**
 * cxd_nodelat_supported() - can this kernel run node_latency?
 * Return: true where compat.h enables it (Debian 6.1, 6.12 and 7.2 layouts);
 * whether the hooks really attach is known only at power-on.
 */
bool cxd_nodelat_supported(void)
{
	return CXD_NODE_LATENCY;
}

#if CXD_NODE_LATENCY

#define CXD_NL_DRAIN_BATCH	32
#define CXD_NL_SCAN_IDLE_MS	500	/* poll period while scanning is off */
#define CXD_NL_SCAN_BATCH	64

static unsigned int node_drain_delay_ms;
module_param(node_drain_delay_ms, uint, 0644);
MODULE_PARM_DESC(node_drain_delay_ms,
		 "testing only: a node-mode access that starts the background drain sleeps this many ms between its check that the device is not stopping and queueing the drain, and the drain sleeps as long before it runs (default 0)");

static unsigned int node_put_delay_ms;
module_param(node_put_delay_ms, uint, 0644);
MODULE_PARM_DESC(node_put_delay_ms,
		 "testing only: the next node-mode access busy-waits this many ms (preemptible, never sleeping) after it dropped its module reference, then the parameter goes back to 0 (default 0)");

/* node_drain_delay_ms: widen the windows around the drain's queueing. */
static void cxd_nl_test_delay(void)
{
	unsigned int ms = READ_ONCE(node_drain_delay_ms);

	if (ms)
		msleep(ms);
}

/*
 * A tracked address space. Where the next access to a non-resident page is
 * seen through an MMU notifier (CXD_NL_NOTIFIER, compat.h), @sub covers the
 * whole user range of @mm from the first eviction in it (registered under
 * cxd_nl_sub_mutex, removed when the entry goes), and @nonres holds the
 * pages made non-resident there: user page number -> pfn (xarray values).
 */
struct cxd_nl_mm {
	struct list_head node;
	struct mm_struct *mm;		/* mmgrab()ed */
	struct xarray nonres;
	struct mmu_interval_notifier sub;
	bool sub_on;			/* @sub registered */
	bool strays;			/* a range invalidation dropped records */
	unsigned long rearm_next;	/* cxd_nl_rearm_forked()'s cursor */
};

/* A record of @nonres whose entry a fork restored (cxd_nl_sub_invalidate()). */
#define CXD_NL_FORKED	XA_MARK_0

/**
 * struct cxd_nodelat - node-mode latency state of one powered device.
 * @list:	entry in cxd_nl_devs (RCU; the hooks look devices up there).
 * @ref:	see "Lifetime" above.
 * @live:		the device; a reference on @live->dev is held.
 * @name:	device name, for log lines.
 * @pfn_lo:	first pfn of the device's range.
 * @pfn_hi:	one past the last pfn.
 * @va:		per device page, the user address it was last accessed at
 *		(0: none seen). Written locklessly (cxd_nl_set_va()), read by
 *		eviction and the scan.
 * @ntracked:	entries of @va that are not 0.
 * @unmapping:	per device page, set while eviction unmaps it (file pages).
 * @unmap_dirty: per device page, set by the folio_mark_dirty() probe when
 *		the unmap found a dirty PTE; read and cleared by eviction.
 * @arrived:	per device page, set when a migration copied a page in; the
 *		arrival work charges it as a write and clears it.
 * @departed:	per device page, set when a migration copied the page off
 *		the node; cleared under the model's lock by whoever drops
 *		its line from the model first: the arrival work, or any
 *		later access (cxd_nl_departures()).
 * @departing:	bits set in @departed.
 * @migrated:	per device page, set by the same migration; cleared when the
 *		page is next mapped (its mapping is the migration's, not an
 *		access).
 * @protnone:	per device page, set while eviction made it PROT_NONE;
 *		cleared by the hinting fault, which then does not migrate it.
 * @mm_lock:	protects @mms and @nmms (taken in the hooks: a spinlock).
 * @mms:	address spaces that touched the device (struct cxd_nl_mm).
 * @nmms:	entries in @mms.
 * @drain_work:	background write-back drain (writeback = drain).
 * @arrive_work: charges the pages in @arrived and drops those in @departed.
 * @scan_work:	accessed-bit scan.
 * @stopping:	set by cxd_nodelat_stop(): works stop re-arming.
 * @pending:	queued task_works not yet run.
 * @st:		counters shown in sysfs (struct cxd_nodelat_stats).
 */
struct cxd_nodelat {
	struct list_head list;
	struct kref ref;
	struct cxd_live *live;
	const char *name;
	unsigned long pfn_lo;
	unsigned long pfn_hi;
	unsigned long *va;
	atomic_long_t ntracked;
	unsigned long *unmapping;
	unsigned long *unmap_dirty;
	unsigned long *arrived;
	unsigned long *departed;
	unsigned long *migrated;
	unsigned long *protnone;
	spinlock_t mm_lock;
	struct list_head mms;
	unsigned int nmms;
	struct work_struct drain_work;
	struct work_struct arrive_work;
	struct delayed_work scan_work;
	bool stopping;
	atomic_t pending;
	atomic_t departing;
	struct {
		atomic64_t thp_pages;
		atomic64_t hugetlb_pages;
		atomic64_t thp_refused;
		atomic64_t collapse_refused;
		atomic64_t kernel_accesses;
		atomic64_t dropped;
		atomic64_t evict_ptes;
		atomic64_t evict_unmaps;
		atomic64_t evict_unmapped;
		atomic64_t evict_moved;
		atomic64_t fork_rearmed;
		atomic64_t mprotect_rearmed;
		atomic64_t evict_uncovered;
		atomic64_t late_writebacks;
		atomic64_t first_touches;
		atomic64_t hint_faults;
		atomic64_t file_maps;
		atomic64_t around_limited;
		atomic64_t around_pages;
		atomic64_t arrivals;
		atomic64_t departures;
		atomic64_t departures_discarded;
		atomic64_t anon_maps;
		atomic64_t remote;
		atomic64_t promotions_refused;
		atomic64_t scan_touched;
		atomic64_t scan_rearmed;
		atomic64_t scan_walks;
		atomic64_t scan_lookups;
		atomic64_t waited;
		atomic64_t waited_ns;
	} st;
};

/* One access seen by a hook, to be run by the task_work. */
struct cxd_nl_work {
	struct callback_head cb;
	struct cxd_nodelat *nl;
	u64 page;
	unsigned long va;
	struct mm_struct *mm;		/* mmgrab()ed if @remote, else compared only */
	unsigned int flags;		/* CXD_ACC_WRITE */
	bool restored;			/* PTE restored dirty (CXD_NL_RESTORES_DIRTY) */
	bool remote;			/* @mm is not the task's: a remote GUP's */
	u64 t_fault;			/* when the hook saw it, ns */
};

static LIST_HEAD(cxd_nl_devs);		/* RCU readers: the hooks */
/*
 * Accesses run by task_works are readers: power-off waits for those that
 * saw the device running before the memory goes (cxd_nodelat_stop()).
 */
DEFINE_STATIC_SRCU(cxd_nl_srcu);
static DEFINE_SPINLOCK(cxd_nl_devs_lock);
static unsigned int cxd_nl_users;	/* under cxd_cfg_mutex */
static atomic_t cxd_nl_unmaps;		/* file-page unmaps in progress */

/* ---------------------------------------------------------- lifetime -- */

/*
 * Free a tracked-mm entry nobody else uses any more (off the list).
 * Context: process; may sleep (the notifier's removal waits for its
 * callbacks in flight).
 */
static void cxd_nl_mm_free(struct cxd_nl_mm *m)
{
#if CXD_NL_NOTIFIER
	if (m->sub_on)
		mmu_interval_notifier_remove(&m->sub);
#endif
	xa_destroy(&m->nonres);
	mmdrop(m->mm);
	kfree(m);
}

static void cxd_nl_release(struct kref *ref)
{
	struct cxd_nodelat *nl = container_of(ref, struct cxd_nodelat, ref);
	struct cxd_nl_mm *m, *tmp;

	list_for_each_entry_safe(m, tmp, &nl->mms, node)
		cxd_nl_mm_free(m);
	kvfree(nl->va);
	kvfree(nl->unmapping);
	kvfree(nl->unmap_dirty);
	kvfree(nl->arrived);
	kvfree(nl->departed);
	kvfree(nl->migrated);
	kvfree(nl->protnone);
	put_device(&nl->live->dev);
	kfree(nl);
}

static void cxd_nl_put(struct cxd_nodelat *nl)
{
	kref_put(&nl->ref, cxd_nl_release);
}

/* --------------------------------------------------------- mm tracking -- */

static bool cxd_nl_mm_tracked(struct cxd_nodelat *nl, struct mm_struct *mm)
{
	struct cxd_nl_mm *m;

	list_for_each_entry(m, &nl->mms, node)
		if (m->mm == mm)
			return true;
	return false;
}

/* cxd_nl_mm_tracked() under @nl->mm_lock. Context: any; never sleeps. */
static bool cxd_nl_tracks(struct cxd_nodelat *nl, struct mm_struct *mm)
{
	unsigned long flags;
	bool tracked;

	spin_lock_irqsave(&nl->mm_lock, flags);
	tracked = cxd_nl_mm_tracked(nl, mm);
	spin_unlock_irqrestore(&nl->mm_lock, flags);
	return tracked;
}

/*
 * Track @mm. @m is a preallocated entry or NULL (then one is allocated with
 * GFP_ATOMIC). Context: any. Return: true if @m was used.
 */
static bool cxd_nl_mm_add(struct cxd_nodelat *nl, struct mm_struct *mm,
			  struct cxd_nl_mm *m)
{
	unsigned long flags;
	bool used = false;

	spin_lock_irqsave(&nl->mm_lock, flags);
	if (!cxd_nl_mm_tracked(nl, mm)) {
		if (!m)
			m = kmalloc(sizeof(*m), GFP_ATOMIC | __GFP_NOWARN);
		else
			used = true;
		if (m) {
			mmgrab(mm);
			m->mm = mm;
			xa_init(&m->nonres);
			m->sub_on = false;
			list_add_tail(&m->node, &nl->mms);
			nl->nmms++;
		} else {
			atomic64_inc(&nl->st.dropped);
		}
	}
	spin_unlock_irqrestore(&nl->mm_lock, flags);
	return used;
}

/* Forget mms whose address space is gone. Context: process. */
static void cxd_nl_mm_prune(struct cxd_nodelat *nl)
{
	struct cxd_nl_mm *m, *tmp;
	LIST_HEAD(dead);
	unsigned long flags;

	spin_lock_irqsave(&nl->mm_lock, flags);
	list_for_each_entry_safe(m, tmp, &nl->mms, node) {
		if (!atomic_read(&m->mm->mm_users)) {
			list_move(&m->node, &dead);
			nl->nmms--;
		}
	}
	spin_unlock_irqrestore(&nl->mm_lock, flags);
	list_for_each_entry_safe(m, tmp, &dead, node)
		cxd_nl_mm_free(m);
}

/* Tracked mms an eviction snapshots without allocating (cxd_nl_mms_get()). */
#define CXD_NL_MMS_STACK	8

/*
 * Snapshot the tracked mms, each with a reference on its address space
 * (mmget), into @buf (CXD_NL_MMS_STACK entries) when they fit, else into a
 * new array. Context: process. Return: the array (give it to
 * cxd_nl_mms_put() with @buf) or NULL, and the count in *@n.
 */
static struct mm_struct **cxd_nl_mms_get(struct cxd_nodelat *nl,
					 struct mm_struct **buf,
					 unsigned int *n)
{
	struct mm_struct **v = buf;
	struct cxd_nl_mm *m;
	unsigned int cap = READ_ONCE(nl->nmms), i = 0;
	unsigned long flags;

	*n = 0;
	if (cap > CXD_NL_MMS_STACK) {
		cap += 4;
		v = kmalloc_array(cap, sizeof(*v), GFP_KERNEL);
		if (!v)
			return NULL;
	} else {
		cap = CXD_NL_MMS_STACK;
	}
	spin_lock_irqsave(&nl->mm_lock, flags);
	list_for_each_entry(m, &nl->mms, node) {
		if (i == cap)
			break;
		if (mmget_not_zero(m->mm))
			v[i++] = m->mm;
	}
	spin_unlock_irqrestore(&nl->mm_lock, flags);
	*n = i;
	return v;
}

static void cxd_nl_mms_put(struct mm_struct **v, unsigned int n,
			   struct mm_struct **buf)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		mmput(v[i]);
	if (v != buf)
		kfree(v);
}

/* ------------------------------------------------------------ eviction -- */

#if CXD_NL_NOTIFIER
static const struct mmu_interval_notifier_ops cxd_nl_sub_ops;
static DEFINE_MUTEX(cxd_nl_sub_mutex);	/* registers cxd_nl_mm.sub */

/*
 * The map of pages made non-resident in @mm (mmget() held by the caller),
 * where the mechanism sees the next access through an MMU notifier
 * (CXD_NL_NOTIFIER): the notifier covering @mm is registered first.
 * Context: process, may sleep (registering takes @mm's mmap_lock for write
 * when @mm has no notifier yet); no mmap_lock held.
 * Return: the map, or NULL (no notifier needed, @mm not tracked, or the
 * registration failed: then @mm's pages stay resident, counted in
 * evictions_uncovered).
 */
static struct xarray *cxd_nl_nonres_map(struct cxd_nodelat *nl,
					struct mm_struct *mm)
{
	struct cxd_nl_mm *m, *found = NULL;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&nl->mm_lock, flags);
	list_for_each_entry(m, &nl->mms, node)
		if (m->mm == mm)
			found = m;
	spin_unlock_irqrestore(&nl->mm_lock, flags);
	/* the entry stays: prune frees only those of dead address spaces */
	if (!found)
		return NULL;
	mutex_lock(&cxd_nl_sub_mutex);
	if (!READ_ONCE(found->sub_on)) {
		ret = mmu_interval_notifier_insert(&found->sub, mm, 0,
						   mm->task_size,
						   &cxd_nl_sub_ops);
		if (!ret)
			WRITE_ONCE(found->sub_on, true);
	}
	mutex_unlock(&cxd_nl_sub_mutex);
	if (ret) {
		pr_warn_ratelimited(CXD_NAME ": %s: node_latency: cannot watch an address space (%d): its pages stay resident\n",
				    nl->name, ret);
		return NULL;
	}
	return &found->nonres;
}
#else
/* No MMU notifier on this kernel's mechanism: no map to keep. */
static struct xarray *cxd_nl_nonres_map(struct cxd_nodelat *nl,
					struct mm_struct *mm)
{
	return NULL;
}
#endif

/*
 * From @addr (below @end), the end of the range that shares @addr's upper
 * page-table entries: a PMD's range if *@table (a PTE table maps @addr,
 * see cxd_nl_pte_table()) or if only the PMD is empty or huge, else the
 * range of the empty (or huge) PUD, P4D or PGD entry, skipped in one step.
 */
static unsigned long cxd_nl_table_span(struct mm_struct *mm,
				       unsigned long addr, unsigned long end,
				       bool *table)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	p4d_t *p4d;
	pud_t *pud;
	pmd_t pmdv;

	*table = false;
	if (pgd_none(*pgd) || pgd_bad(*pgd))
		return pgd_addr_end(addr, end);
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(*p4d) || p4d_bad(*p4d))
		return p4d_addr_end(addr, end);
	pud = pud_offset(p4d, addr);
	if (pud_none(*pud) || pud_leaf(*pud) || pud_bad(*pud))
		return pud_addr_end(addr, end);
	pmdv = READ_ONCE(*pmd_offset(pud, addr));
	*table = pmd_present(pmdv) && !pmd_leaf(pmdv) && !pmd_bad(pmdv);
	return pmd_addr_end(addr, end);
}

/*
 * Is there a PTE table for @va? apply_to_existing_page_range() warns on a
 * leaf (huge) PMD, so those are skipped here. With the mmap_lock held for
 * read a table cannot turn into a huge PMD at once (anonymous collapse
 * takes the lock for write); since 6.6 khugepaged retracts file THP page
 * tables, and 7.x frees empty ones, without it, so a huge PMD could follow
 * a retracted table between this check and the walk: a window of a few
 * loads, which the callers keep short.
 */
static bool cxd_nl_pte_table(struct mm_struct *mm, unsigned long va)
{
	bool table;

	cxd_nl_table_span(mm, va, va + PAGE_SIZE, &table);
	return table;
}

/* What cxd_nl_clean_pte() found at the PTE of one device page. */
struct cxd_nl_pte {
	struct vm_area_struct *vma;
	unsigned long pfn;
	bool found;		/* a PTE mapped the page */
};

/*
 * The VMA of @mm where device page @page was last accessed, if its PTE may
 * be changed there: accessible, not PFNMAP/MIXEDMAP/IO/hugetlb, with a PTE
 * table (not a huge PMD) at the address. Caller holds @mm's mmap_lock for
 * read. Return: the VMA (*@va: the address) or NULL.
 */
static struct vm_area_struct *cxd_nl_vma_at(struct mm_struct *mm,
					    unsigned long va)
{
	struct vm_area_struct *vma;

	if (!va)
		return NULL;
	vma = vma_lookup(mm, va);
	if (!vma || !vma_is_accessible(vma) ||
	    (vma->vm_flags & (VM_PFNMAP | VM_MIXEDMAP | VM_IO | VM_HUGETLB)))
		return NULL;
	if (!cxd_nl_pte_table(mm, va))
		return NULL;
	return vma;
}

/*
 * Record @va (0: none) as where device page @page was last seen, keeping
 * @nl->ntracked. Context: any; lockless (xchg).
 */
static void cxd_nl_set_va(struct cxd_nodelat *nl, u64 page, unsigned long va)
{
	unsigned long old;

	if (READ_ONCE(nl->va[page]) == va)
		return;
	old = xchg(&nl->va[page], va);
	if (!old && va)
		atomic_long_inc(&nl->ntracked);
	else if (old && !va)
		atomic_long_dec(&nl->ntracked);
}

static struct vm_area_struct *cxd_nl_vma(struct cxd_nodelat *nl,
					 struct mm_struct *mm, u64 page,
					 unsigned long *va)
{
	*va = READ_ONCE(nl->va[page]);
	return cxd_nl_vma_at(mm, *va);
}

/*
 * Record what cxd_nl_make_nonresident() (@ret, @d: the PTE was dirty) did
 * for one victim: *@found and *@dirty for the caller, evicted_ptes or
 * evictions_uncovered (mapped, and stays resident there) for the stats.
 */
static void cxd_nl_nonres_done(struct cxd_nodelat *nl, int ret, bool d,
			       bool *found, bool *dirty)
{
	if (ret > 0) {
		*found = true;
		*dirty |= d;
		atomic64_inc(&nl->st.evict_ptes);
	} else if (ret == -EOPNOTSUPP) {
		*found = true;
		atomic64_inc(&nl->st.evict_uncovered);
	}
}

/*
 * Could device page @page be an anonymous page mapped elsewhere than where
 * it was last seen (cxd_nl_evict_moved())? Not a KSM page (its index is not
 * an address) nor a large folio. Unlocked look; the PTE check decides.
 */
static bool cxd_nl_may_have_moved(struct cxd_nodelat *nl, u64 page)
{
	struct folio *folio = page_folio(pfn_to_page(nl->pfn_lo + page));

	return folio_test_anon(folio) && !folio_test_ksm(folio) &&
	       !folio_test_large(folio);
}

/*
 * Anonymous device page @page was not mapped at its last-seen address in
 * any tracked mm: mremap() (glibc's realloc() of a large block) may have
 * moved it. An anonymous page keeps its linear index (folio->index) when
 * its VMA moves, so its address in a VMA is vm_start + (index - vm_pgoff)
 * pages, as the kernel's rmap computes it. Try each anonymous VMA of @mm
 * whose range holds that index; cxd_nl_make_nonresident() checks the pfn,
 * so a wrong candidate changes nothing. KSM and large folios are skipped
 * (a KSM page's index is not its address). Caller: @b holds @mm locked.
 * Return: cxd_nl_make_nonresident()'s answer at the address found (then
 * recorded as the page's), or 0.
 */
static int cxd_nl_evict_moved(struct cxd_nodelat *nl,
			      struct cxd_nl_pte_batch *b, struct mm_struct *mm,
			      u64 page, bool *dirty)
{
	struct folio *folio = page_folio(pfn_to_page(nl->pfn_lo + page));
	unsigned long old = READ_ONCE(nl->va[page]), va;
	struct vm_area_struct *vma;
	pgoff_t idx;
	int ret;

	VMA_ITERATOR(vmi, mm, 0);
	if (!cxd_nl_may_have_moved(nl, page))
		return 0;
	idx = READ_ONCE(folio->index);
	for_each_vma(vmi, vma) {
		if (!vma->anon_vma || idx < vma->vm_pgoff ||
		    idx - vma->vm_pgoff >= vma_pages(vma))
			continue;
		va = vma->vm_start + ((idx - vma->vm_pgoff) << PAGE_SHIFT);
		if (va == old || cxd_nl_vma_at(mm, va) != vma)
			continue;
		ret = cxd_nl_make_nonresident(b, vma, va, nl->pfn_lo + page,
					      dirty);
		if (ret) {
			cxd_nl_set_va(nl, page, va);
			atomic64_inc(&nl->st.evict_moved);
			return ret;
		}
	}
	return 0;
}

#if CXD_NL_NOTIFIER
/* Records a fork left behind that one eviction looks at, per mm. */
#define CXD_NL_REARM_FORKED	8

/*
 * After a fork, the parent's pages that eviction had made non-resident are
 * resident again without an access (cxd_nl_sub_invalidate()): the model
 * holds no line for them, yet they run at memory speed. While a child
 * still shares a page, nothing can be done (make_device_exclusive()'s
 * write GUP would break the sharing and give the parent a copy: the child's
 * reads of it are not seen either). Once the page is the parent's alone
 * again (the child exited, wrote it, or exec'd), it is made non-resident
 * here, as the model has it, so that its next access is seen. Each eviction
 * in @mm looks at up to CXD_NL_REARM_FORKED marked records, round robin
 * from @m->rearm_next: a page still shared keeps its mark; one made
 * non-resident (or still device-exclusive: the fork failed) loses it; a
 * record whose address no longer maps its page is dropped. Its own
 * counter, fork_rearmed; not an eviction. The model is not asked: it
 * admits a page only through a charged access, and none reached this one
 * while it was resident. Caller: @b holds @mm's mmap_lock (read).
 */
static void cxd_nl_rearm_forked(struct cxd_nodelat *nl,
				struct cxd_nl_pte_batch *b,
				struct mm_struct *mm, struct xarray *nonres)
{
	struct cxd_nl_mm *m = container_of(nonres, struct cxd_nl_mm, nonres);
	unsigned long idx = READ_ONCE(m->rearm_next), pfn, va;
	struct vm_area_struct *vma;
	bool wrapped = false, d;
	unsigned int k;
	void *entry;
	int ret;

	for (k = 0; k < CXD_NL_REARM_FORKED; k++) {
		entry = xa_find(nonres, &idx, ULONG_MAX, CXD_NL_FORKED);
		if (!entry && !wrapped) {
			wrapped = true;
			idx = 0;
			entry = xa_find(nonres, &idx, ULONG_MAX, CXD_NL_FORKED);
		}
		if (!entry)
			break;
		pfn = xa_to_value(entry);
		va = idx << PAGE_SHIFT;
		vma = pfn >= nl->pfn_lo && pfn < nl->pfn_hi ?
		      cxd_nl_vma_at(mm, va) : NULL;
		ret = vma ? cxd_nl_make_nonresident(b, vma, va, pfn, &d) : 0;
		if (ret > 0) {
			xa_clear_mark(nonres, idx, CXD_NL_FORKED);
			atomic64_inc(&nl->st.fork_rearmed);
		} else if (ret == 0) {
			xa_cmpxchg(nonres, idx, entry, NULL, 0);
		}
		if (++idx == 0)
			break;
	}
	WRITE_ONCE(m->rearm_next, idx);
}
#else
static void cxd_nl_rearm_forked(struct cxd_nodelat *nl,
				struct cxd_nl_pte_batch *b,
				struct mm_struct *mm, struct xarray *nonres)
{
}
#endif

/*
 * Evict device page @page if it holds a file or shmem page: unmap it from
 * every mapping of its file, in every process (unmap_mapping_pages(), which
 * flushes the TLBs), so that the next touch faults and the file hook sees
 * it. The folio lock keeps the folio in its mapping, and the mapping alive,
 * meanwhile (the order truncation uses: folio lock, then i_mmap_rwsem).
 * *@found: some PTE mapped it; *@dirty: one of them was dirty (its bit is
 * now the folio's). Context: process, may sleep; no lock held.
 * Return: false if the page is not a file page (anonymous, free), for the
 * PTE path.
 */
static bool cxd_nl_evict_file(struct cxd_nodelat *nl, u64 page, bool *found,
			      bool *dirty)
{
	unsigned long pfn = nl->pfn_lo + page;
	struct page *pg = pfn_to_page(pfn);
	struct folio *folio = page_folio(pg);
	struct address_space *mapping;
	bool file = false;
	int mapped;

	/* unlocked first look; checked again under the folio lock */
	if (folio_test_anon(folio) || !READ_ONCE(folio->mapping))
		return false;
	if (!folio_try_get(folio))
		return false;
	if (page_folio(pg) != folio)
		goto put;
	folio_lock(folio);
	mapping = folio->mapping;
	if (!mapping || folio_test_anon(folio))
		goto unlock;
	file = true;
	if (!folio_mapped(folio))
		goto unlock;
	/* PTEs to unmap; of a large folio's pages, this one's are not known */
	mapped = folio_test_large(folio) ? 1 : cxd_small_folio_mapcount(folio);
	atomic_inc(&cxd_nl_unmaps);
	set_bit(page, nl->unmapping);
	unmap_mapping_pages(mapping, folio->index + (pfn - folio_pfn(folio)), 1,
			    false);
	clear_bit(page, nl->unmapping);
	atomic_dec(&cxd_nl_unmaps);
	*dirty = test_and_clear_bit(page, nl->unmap_dirty);
	*found = true;
	atomic64_add(mapped, &nl->st.evict_ptes);
	atomic64_inc(&nl->st.evict_unmaps);
unlock:
	folio_unlock(folio);
put:
	folio_put(folio);
	return file;
}

/*
 * Evict @n victims: unmap the file pages among them (cxd_nl_evict_file()),
 * make the others PROT_NONE in every tracked mm, then flush once the TLBs of
 * the CPUs that ran the changed mms. A victim found dirty that the model
 * evicted clean is charged a write-back now, and traced (cxdvirt_writeback,
 * by the drain if @drain); its eviction is recounted dirty only if no
 * stats/reset came since the model chose it (@gen: live->stats_gen then).
 * Context: process, may sleep; no lock held.
 */
static void cxd_nl_evict(struct cxd_nodelat *nl, const struct cxd_victim *v,
			 unsigned int n, bool drain, u64 gen)
{
	bool found[CXD_MAX_VICTIMS > CXD_NL_DRAIN_BATCH ?
		   CXD_MAX_VICTIMS : CXD_NL_DRAIN_BATCH] = { };
	bool dirty[ARRAY_SIZE(found)] = { };
	bool file[ARRAY_SIZE(found)];
	struct mm_struct *mmbuf[CXD_NL_MMS_STACK];
	struct cxd_live *live = nl->live;
	struct cxd_nl_pte_batch b;
	struct mm_struct **mms;
	unsigned int i, j, nm, nanon = 0, nmoved;
	u64 now;

	/*
	 * Power-off stopped the device: its memory is offline, mapped
	 * nowhere, and may already be removed with its struct pages.
	 */
	if (!n || READ_ONCE(nl->stopping))
		return;
	n = min_t(unsigned int, n, ARRAY_SIZE(found));
	for (i = 0; i < n; i++) {
		file[i] = cxd_nl_evict_file(nl, v[i].page, &found[i],
					    &dirty[i]);
		nanon += !file[i];
	}
	mms = nanon ? cxd_nl_mms_get(nl, mmbuf, &nm) : NULL;
	if (!mms)
		nm = 0;
	/*
	 * before the PTE changes: a hinting fault may follow at once (PROT_NONE
	 * kernels only; 7.2's entries take no hinting fault, and a stale bit
	 * would refuse a NUMA-balancing promotion later)
	 */
	for (i = 0; i < n; i++)
		if (!file[i] && nm && !CXD_NL_EXCLUSIVE)
			set_bit(v[i].page, nl->protnone);
	cxd_nl_pte_batch_init(&b);
	for (j = 0; j < nm; j++) {
		struct mm_struct *mm = mms[j];
		struct xarray *nonres = cxd_nl_nonres_map(nl, mm);

		cxd_nl_pte_batch_lock(&b, mm, nonres);
		for (i = 0; i < n; i++) {
			struct vm_area_struct *vma;
			unsigned long va;
			bool d = false;
			int ret;

			if (file[i])
				continue;
			vma = cxd_nl_vma(nl, mm, v[i].page, &va);
			if (!vma)
				continue;
			ret = cxd_nl_make_nonresident(&b, vma, va,
						      nl->pfn_lo + v[i].page,
						      &d);
			cxd_nl_nonres_done(nl, ret, d, &found[i], &dirty[i]);
		}
		if (nonres)
			cxd_nl_rearm_forked(nl, &b, mm, nonres);
		cxd_nl_pte_batch_unlock(&b, mm);
	}
	cxd_nl_pte_batch_finish(&b, mms, nm);
	/* anonymous victims mapped nowhere they were seen: moved? */
	for (i = 0, nmoved = 0; i < n; i++)
		nmoved += !file[i] && !found[i] &&
			  cxd_nl_may_have_moved(nl, v[i].page);
	cxd_nl_pte_batch_init(&b);
	for (j = 0; nmoved && j < nm; j++) {
		struct mm_struct *mm = mms[j];

		cxd_nl_pte_batch_lock(&b, mm, cxd_nl_nonres_map(nl, mm));
		for (i = 0; i < n; i++) {
			bool d = false;
			int ret;

			if (file[i] || found[i])
				continue;
			ret = cxd_nl_evict_moved(nl, &b, mm, v[i].page, &d);
			cxd_nl_nonres_done(nl, ret, d, &found[i], &dirty[i]);
			if (ret)
				nmoved -= !!nmoved;
		}
		cxd_nl_pte_batch_unlock(&b, mm);
	}
	if (nm)
		cxd_nl_pte_batch_finish(&b, mms, j);
	if (mms)
		cxd_nl_mms_put(mms, nm, mmbuf);

	now = ktime_get_ns();
	for (i = 0; i < n; i++) {
		if (!found[i] && !file[i] && nm && !CXD_NL_EXCLUSIVE)
			clear_bit(v[i].page, nl->protnone);
		if (!found[i])
			atomic64_inc(&nl->st.evict_unmapped);
		if (dirty[i] && !v[i].dirty) {
			cxd_model_lock(live);
			cxd_model_late_writeback(&live->model, v[i].page, now,
						 live->stats_gen == gen);
			spin_unlock(&live->lock);
			cxd_trace_writeback(live, v[i].page, drain);
			atomic64_inc(&nl->st.late_writebacks);
		}
	}
}

/* Clear the dirty bit of a PTE mapping @p->pfn. PTE lock held. */
static int cxd_nl_clean_pte(pte_t *ptep, unsigned long addr, void *data)
{
	struct cxd_nl_pte *p = data;
	pte_t old = ptep_get(ptep);

	if (!pte_present(old) || pte_pfn(old) != p->pfn)
		return 0;
	p->found = true;
	if (!pte_dirty(old))
		return 0;
	old = ptep_modify_prot_start(p->vma, addr, ptep);
	ptep_modify_prot_commit(p->vma, addr, ptep, old, pte_mkclean(old));
	return 0;
}

/*
 * Device page @page was made resident again by a fault that restores its
 * PTE dirty whenever the folio is dirty (CXD_NL_RESTORES_DIRTY): clear that
 * bit, so that eviction and the scan see only the writes made from now on.
 * The folio stays dirty, so no data is at risk; no TLB flush is needed for
 * the faulting task, whose access has not run yet (another thread that
 * filled its TLB meanwhile may write unseen). Context: the current task's
 * task_work; @mm is current->mm, or another task's whose address space the
 * caller holds (cxd_nl_restored_remote()); no lock held.
 * Return: whether the page is mapped (present) at its address: if not, the
 * invalidation was no fault's but a migration's or a reclaim's (by the
 * task itself, or for another task's @mm by whoever ran it), and no access.
 */
static bool cxd_nl_restored_clean(struct cxd_nodelat *nl,
				  struct mm_struct *mm, u64 page,
				  unsigned long va)
{
	struct cxd_nl_pte p = { .pfn = nl->pfn_lo + page };

	mmap_read_lock(mm);
	p.vma = cxd_nl_vma_at(mm, va);
	if (p.vma)
		cxd_apply_to_existing_page_range(mm, va, PAGE_SIZE,
						 cxd_nl_clean_pte, &p);
	mmap_read_unlock(mm);
	return p.found;
}

/*
 * Background write-back drain, as cxd_drain_work() for devdax. Queued with
 * a reference on @nl (cxd_nl_access()), dropped at the end.
 */
static void cxd_nl_drain_work(struct work_struct *work)
{
	struct cxd_nodelat *nl = container_of(work, struct cxd_nodelat,
					      drain_work);
	struct cxd_victim v[CXD_NL_DRAIN_BATCH];
	struct cxd_live *live = nl->live;
	unsigned int n;
	u64 gen;

	cxd_nl_test_delay();
	do {
		cxd_model_lock(live);
		n = cxd_model_drain(&live->model, ktime_get_ns(), v,
				    CXD_NL_DRAIN_BATCH);
		gen = live->stats_gen;
		spin_unlock(&live->lock);
		cxd_trace_drain(live, v, n);
		cxd_nl_evict(nl, v, n, true, gen);
		cond_resched();
	} while (n == CXD_NL_DRAIN_BATCH && !READ_ONCE(nl->stopping));
	cxd_nl_put(nl);	/* taken when queued; the work may free @nl */
}

/* -------------------------------------------------------------- access -- */

/*
 * If device page @page departed (@departed), its line leaves the model at
 * @now (ns): no eviction, no write-back, the data went with the page
 * (cxd_model_discard()). The bit is tested and cleared under the model's
 * lock, so the line is dropped exactly once, whoever gets there first.
 * Context: @nl->live->lock held (cxd_model_lock()).
 */
static void cxd_nl_depart_locked(struct cxd_nodelat *nl, u64 page, u64 now)
	__must_hold(&nl->live->lock)
{
	if (!test_and_clear_bit(page, nl->departed))
		return;
	atomic_dec(&nl->departing);
	if (cxd_model_discard(&nl->live->model, page, now))
		atomic64_inc(&nl->st.departures_discarded);
}

/*
 * Drop the lines of every departed page, in page order, one model lock
 * hold per page. Run by the arrival work, and by any access that finds
 * departures pending before it reaches the model (cxd_nl_charge()), so a
 * departure is applied before every access that comes after it, as the
 * simulator replays a D record. O(device pages / BITS_PER_LONG) for the
 * bitmap walk, only while some departure is pending.
 * Context: process, no lock held; may sleep.
 */
static void cxd_nl_departures(struct cxd_nodelat *nl)
{
	unsigned long n = nl->pfn_hi - nl->pfn_lo, page = 0;
	struct cxd_live *live = nl->live;

	while (atomic_read(&nl->departing) && !READ_ONCE(nl->stopping)) {
		page = find_next_bit(nl->departed, n, page);
		if (page >= n)
			break;
		cxd_model_lock(live);
		cxd_nl_depart_locked(nl, page, ktime_get_ns());
		spin_unlock(&live->lock);
		page++;
		cond_resched();
	}
}

/*
 * Run the model for one access to device page @page at @t0 (CLOCK_MONOTONIC
 * ns; @flags: CXD_ACC_WRITE or 0), evict the victims and, if @wait, wait
 * for the modeled completion. Context: process, no lock held.
 */
static void cxd_nl_charge(struct cxd_nodelat *nl, u64 page, unsigned int flags,
			  u64 t0, bool wait)
{
	struct cxd_live *live = nl->live;
	struct cxd_access acc;	/* about 400 bytes, as in cxd_fault() */
	u64 gen;

	if (atomic_read(&nl->departing))
		cxd_nl_departures(nl);
	cxd_model_lock(live);
	/* departed since the walk: the frame's earlier page goes first */
	cxd_nl_depart_locked(nl, page, t0);
	cxd_model_access(&live->model, page, flags, t0, &acc);
	gen = live->stats_gen;
	spin_unlock(&live->lock);
	cxd_trace_access(live, page, t0, &acc);
	/* The queued drain holds a reference: this task_work's may be the last. */
	if (acc.drain && !READ_ONCE(nl->stopping)) {
		kref_get(&nl->ref);
		cxd_nl_test_delay();
		if (!queue_work(cxd_wq, &nl->drain_work))
			cxd_nl_put(nl);
	}

	cxd_nl_evict(nl, acc.victims, acc.nvictims, false, gen);
	if (wait && (!acc.hit || acc.late)) {
		/*
		 * Less the wake-up's lateness and the work after it (miss.c),
		 * and the return to user space after this task_work, which
		 * the module cannot time (fault_exit_ns, `cxdvirt-dev
		 * calibrate`). Never before the fault's entry.
		 */
		u64 early = READ_ONCE(live->miss_tail_ns) +
			    READ_ONCE(live->cfg_dev->cfg.fault_exit_ns);
		u64 end = acc.done_ns - min(early, acc.done_ns - t0);
		bool waits = ktime_get_ns() < end;
		u64 t1;

		cxd_wait_until(end);
		if (!acc.hit)
			cxd_account_miss(live, page, flags & CXD_ACC_WRITE,
					 t0, &acc, NULL);
		t1 = ktime_get_ns();
		/* calibrate's measure: the user's timing less this */
		atomic64_inc(&nl->st.waited);
		atomic64_add(t1 - t0, &nl->st.waited_ns);
		if (waits)
			cxd_tail_update(live, t1 - end);
		return;
	}
	if (!acc.hit)
		cxd_account_miss(live, page, flags & CXD_ACC_WRITE, t0, &acc,
				 NULL);
}

/*
 * Was device page @page made resident again at @va of @mm (mmgrab()ed by
 * the caller), another task's address space, by the current task's remote
 * GUP (CXD_NL_RESTORES_DIRTY)? As cxd_nl_restored_clean(), with a
 * reference on @mm's address space while it is walked. Context: the
 * current task's task_work; no lock held.
 */
static bool cxd_nl_restored_remote(struct cxd_nodelat *nl,
				   struct mm_struct *mm, u64 page,
				   unsigned long va)
{
	bool mapped;

	if (!mmget_not_zero(mm))
		return false;
	mapped = cxd_nl_restored_clean(nl, mm, page, va);
	mmput(mm);
	return mapped;
}

/*
 * One access to device page @page at user address @va of @mm by the current
 * task, seen by a hook at @t0 (CLOCK_MONOTONIC ns): the model's now, so the
 * time between the fault and this task_work hides inside the modeled wait.
 * Runs the model, evicts the victims and waits for the modeled completion.
 * @remote: @mm is another task's (mmgrab()ed): a remote GUP by the current
 * task faulted the page in there; counted in remote_accesses once charged.
 * Context: task_work (process), no lock held.
 */
static void cxd_nl_access(struct cxd_nodelat *nl, u64 page, unsigned long va,
			  struct mm_struct *mm, unsigned int flags, u64 t0,
			  bool restored, bool remote)
{
	struct cxd_nl_mm *m;

	if (restored && !(remote ?
			  cxd_nl_restored_remote(nl, mm, page, va) :
			  mm == current->mm &&
			  cxd_nl_restored_clean(nl, mm, page, va)))
		return;
	if (remote)
		atomic64_inc(&nl->st.remote);
	cxd_nl_set_va(nl, page, va);
	/* an entry is allocated only for an address space not tracked yet */
	if (mm == current->mm && !cxd_nl_tracks(nl, mm)) {
		m = kmalloc(sizeof(*m), GFP_KERNEL);
		if (m && !cxd_nl_mm_add(nl, mm, m))
			kfree(m);
	}
	cxd_nl_charge(nl, page, flags, t0, true);
}

/*
 * Pages copied off the device by a migration (promotion, NUMA balancing,
 * mbind, move_pages, migrate_pages, offline) leave the model first, in
 * page order: their lines are dropped (cxd_nl_departures()). Then pages
 * copied onto the device (demotion, mbind, move_pages, migrate_pages,
 * compaction): the copy wrote each page, a write access of the device,
 * charged here in page order. Nobody waits for it: the copy may be
 * kswapd's or kcompactd's, and the migrating task is not delayed; the
 * writes occupy the model's channels and dies, which later misses see.
 * Departures always go before the charges (cxd_nl_charge() applies them
 * first too), so a frame freed by a departure and filled by an arrival
 * loses its old line before the new page is charged. Queued with a
 * reference on @nl (cxd_nl_migrate_pre()), dropped at the end.
 * Context: process (workqueue).
 */
static void cxd_nl_arrive_work(struct work_struct *work)
{
	struct cxd_nodelat *nl = container_of(work, struct cxd_nodelat,
					      arrive_work);
	unsigned long n = nl->pfn_hi - nl->pfn_lo, page = 0;

	cxd_nl_departures(nl);
	while (!READ_ONCE(nl->stopping)) {
		page = find_next_bit(nl->arrived, n, page);
		if (page >= n)
			break;
		if (test_and_clear_bit(page, nl->arrived))
			cxd_nl_charge(nl, page, CXD_ACC_WRITE, ktime_get_ns(),
				      false);
		page++;
		cond_resched();
	}
	cxd_nl_put(nl);	/* taken when queued; the work may free @nl */
}

static void cxd_nl_work_fn(struct callback_head *cb)
{
	struct cxd_nl_work *w = container_of(cb, struct cxd_nl_work, cb);
	struct cxd_nodelat *nl = w->nl;
	unsigned int ms;
	int idx;

	idx = srcu_read_lock(&cxd_nl_srcu);
	if (!READ_ONCE(nl->stopping))
		cxd_nl_access(nl, w->page, w->va, w->mm, w->flags,
			      w->t_fault, w->restored, w->remote);
	srcu_read_unlock(&cxd_nl_srcu, idx);
	if (w->remote)
		mmdrop(w->mm);
	atomic_dec(&nl->pending);
	cxd_nl_put(nl);
	kfree(w);
	/* last: unload's synchronize_rcu_tasks() covers the return (main.c) */
	module_put(THIS_MODULE);
	/*
	 * node_put_delay_ms: widen that window. Busy, with cond_resched() so
	 * that the CPU's kworkers run (memory offline waits for them): a
	 * preemption, not a sleep, which is no RCU-tasks quiescent state.
	 */
	ms = xchg(&node_put_delay_ms, 0);
	if (ms) {
		unsigned long end = jiffies + msecs_to_jiffies(ms);

		while (time_before(jiffies, end)) {
			cond_resched();
			cpu_relax();
		}
	}
}

/* The device whose range holds @pfn. Caller is in an RCU read section. */
static struct cxd_nodelat *cxd_nl_find(unsigned long pfn)
{
	struct cxd_nodelat *nl;

	list_for_each_entry_rcu(nl, &cxd_nl_devs, list)
		if (pfn >= nl->pfn_lo && pfn < nl->pfn_hi)
			return nl;
	return NULL;
}

/* How a hook saw an access (each kind has its counter). */
enum cxd_nl_ev {
	/* fault on a non-resident page (remote_accesses: another task's GUP) */
	CXD_NL_EV_HINT,
	CXD_NL_EV_NEW,		/* new anonymous page mapped */
	CXD_NL_EV_FILE,		/* file or shmem page mapped by its fault */
	CXD_NL_EV_AROUND,	/* ... by the fault-around of another page */
	CXD_NL_EV_MAP,		/* existing anonymous page mapped (swap-in) */
};

/*
 * A hook saw an access to a page of a device: queue the model's work on the
 * current task. Context: atomic (kprobe, PTE lock held); never sleeps.
 */
static void cxd_nl_event(const struct cxd_nl_hook_args *a, enum cxd_nl_ev ev)
{
	struct mm_struct *mm = a->vma ? a->vma->vm_mm : a->mm;
	struct cxd_nodelat *nl;
	struct cxd_nl_work *w;
	u64 now, gap;

	rcu_read_lock();
	nl = cxd_nl_find(a->pfn);
	if (!nl || READ_ONCE(nl->stopping))
		goto out;
	if (a->large) {
		/* Residency is per 4 KiB page: a THP escapes the model. */
		if (ev == CXD_NL_EV_NEW)
			atomic64_add(compound_nr(pfn_to_page(a->pfn)),
				     &nl->st.thp_pages);
		goto out;
	}
	/*
	 * A page mapped for the first time, or a file page, in a frame whose
	 * earlier page eviction made PROT_NONE before it was freed (no hook
	 * sees a free): that bit is stale, and the remote-read charge and the
	 * mprotect() re-arm must not take the new page for an evicted one.
	 */
	if (!CXD_NL_EXCLUSIVE && (ev == CXD_NL_EV_NEW || ev == CXD_NL_EV_FILE))
		clear_bit(a->pfn - nl->pfn_lo, nl->protnone);
	if (!current->mm || (current->flags & (PF_KTHREAD | PF_EXITING))) {
		atomic64_inc(&nl->st.kernel_accesses);
		goto out;
	}
	/*
	 * A page put into another process's memory (process_vm_writev(),
	 * UFFDIO_COPY from a handler in another process): charged to the
	 * current task, which did the write, but evictions must find it in
	 * the owner's address space, which may never fault on the device
	 * itself. Track it now: its page table lock, held here, keeps it.
	 */
	if (mm != current->mm)
		cxd_nl_mm_add(nl, mm, NULL);
	w = kmalloc(sizeof(*w), GFP_ATOMIC | __GFP_NOWARN);
	if (!w) {
		atomic64_inc(&nl->st.dropped);
		goto out;
	}
	/* from the fault's entry where it was stamped (driver/fentry.c) */
	if (mm == current->mm) {
		gap = cxd_fentry_gap_va(a->addr, &now);
	} else {
		gap = 0;
		now = ktime_get_ns();
	}
	w->t_fault = now - gap;
	w->page = a->pfn - nl->pfn_lo;
	w->va = a->addr & PAGE_MASK;
	w->mm = mm;
	w->flags = a->write ? CXD_ACC_WRITE : 0;
	w->restored = ev == CXD_NL_EV_HINT && CXD_NL_RESTORES_DIRTY;
	/*
	 * A remote GUP (ptrace, /proc/PID/mem, process_vm_readv/writev) that
	 * faulted a non-resident page of another task in: the reader's
	 * access, charged to it and counted as remote once charged. Its
	 * task_work looks at @mm again: a reference is taken below.
	 */
	w->remote = ev == CXD_NL_EV_HINT && mm != current->mm;
	w->nl = nl;
	kref_get(&nl->ref);	/* the list's reference keeps it above 0 */
	__module_get(THIS_MODULE);
	atomic_inc(&nl->pending);
	init_task_work(&w->cb, cxd_nl_work_fn);
	if (task_work_add(current, &w->cb, TWA_RESUME)) {
		atomic_dec(&nl->pending);
		kref_put(&nl->ref, cxd_nl_release);	/* never the last */
		module_put(THIS_MODULE);
		kfree(w);
		atomic64_inc(&nl->st.dropped);
		goto out;
	}
	/* the task_work runs later in this task: nothing drops it before */
	if (w->remote)
		mmgrab(mm);
	switch (ev) {
	case CXD_NL_EV_HINT:
		if (!w->remote)
			atomic64_inc(&nl->st.hint_faults);
		break;
	case CXD_NL_EV_NEW:
		atomic64_inc(&nl->st.first_touches);
		break;
	case CXD_NL_EV_FILE:
		atomic64_inc(&nl->st.file_maps);
		break;
	case CXD_NL_EV_AROUND:
		atomic64_inc(&nl->st.around_pages);
		break;
	case CXD_NL_EV_MAP:
		atomic64_inc(&nl->st.anon_maps);
		break;
	}
out:
	rcu_read_unlock();
}

#if CXD_NL_NOTIFIER
/*
 * The access at @addr of @range's mm to the page at @pfn, made resident
 * again by the invalidation @range, if it is a fault's (see below).
 */
static void cxd_nl_sub_access(const struct mmu_notifier_range *range,
			      unsigned long pfn, unsigned long addr)
{
	struct cxd_nl_hook_args a = {
		.pfn = pfn,
		.mm = range->mm,
		.addr = addr,
	};
	struct folio *folio = page_folio(pfn_to_page(pfn));

	if (!current->mm || (current->flags & PF_KTHREAD) ||
	    !folio_test_locked(folio))
		return;
	/*
	 * In another task, a migration or a reclaim isolated the folio from
	 * the LRU before unmapping it; a remote GUP's fault finds it there.
	 * Memory offline migrates every page of the node: no task_work per
	 * page for it.
	 */
	if (range->mm != current->mm && !folio_test_lru(folio))
		return;
	cxd_nl_event(&a, CXD_NL_EV_HINT);
}

/*
 * An invalidation of (part of) the user range of a tracked mm
 * (CXD_NL_NOTIFIER). The pages in the range that eviction made non-resident
 * leave @nonres: their entries are gone, or about to be. The one
 * invalidation that is an access is remove_device_exclusive_entry()'s
 * (compat.h): MMU_NOTIFY_CLEAR of one page, no owner, with the page's folio
 * locked by the faulting task, which runs it; it is charged like a hinting
 * fault. The task is the owner's, or another process's remote GUP
 * (/proc/PID/mem, ptrace, process_vm_readv/writev): then the access is the
 * reader's, charged to it (counted in remote_accesses). A migration or
 * reclaim sends the same invalidation, from the owner or from another
 * task (memory offline, move_pages() of another process): in another task
 * it is skipped here if the folio is off the LRU (migration and reclaim
 * isolate it first), and in any case the task_work tells them apart
 * afterwards, by looking whether the page is still mapped at its address
 * (cxd_nl_access()), and charges only a fault's. A kernel thread's
 * (kcompactd, kswapd) is no access. Our own conversions
 * (MMU_NOTIFY_EXCLUSIVE, owner @nonres) are skipped. A fault on an entry
 * whose record is gone (mremap() moved it) is found by reading the entry.
 * Takes no lock of any mm and never sleeps.
 * Context: any the MMU notifiers run in (possibly non-blockable).
 * Return: true (nothing to wait for).
 */
static bool cxd_nl_sub_invalidate(struct mmu_interval_notifier *sub,
				  const struct mmu_notifier_range *range,
				  unsigned long cur_seq)
{
	struct cxd_nl_mm *m = container_of(sub, struct cxd_nl_mm, sub);
	bool one = range->event == MMU_NOTIFY_CLEAR && !range->owner &&
		   range->end - range->start == PAGE_SIZE;
	bool recorded = false, forked;
	unsigned long idx, pfn;
	void *entry;

	if (range->event == MMU_NOTIFY_EXCLUSIVE && range->owner == &m->nonres)
		return true;
	/*
	 * fork() write-protects the parent's private range
	 * (copy_page_range(): MMU_NOTIFY_PROTECTION_PAGE, the one sender of
	 * that event for anonymous private memory), then restores its
	 * device-exclusive entries with no invalidation
	 * (copy_nonpresent_pte()): the pages are resident again, unseen.
	 * Their records stay, marked; eviction makes those pages
	 * non-resident again once nothing shares them
	 * (cxd_nl_rearm_forked()).
	 */
	if (range->event == MMU_NOTIFY_PROTECTION_PAGE) {
		xa_for_each_range(&m->nonres, idx, entry,
				  range->start >> PAGE_SHIFT,
				  (range->end - 1) >> PAGE_SHIFT)
			xa_set_mark(&m->nonres, idx, CXD_NL_FORKED);
		return true;
	}
	xa_for_each_range(&m->nonres, idx, entry, range->start >> PAGE_SHIFT,
			  (range->end - 1) >> PAGE_SHIFT) {
		forked = xa_get_mark(&m->nonres, idx, CXD_NL_FORKED);
		if (xa_erase(&m->nonres, idx) != entry)
			continue;
		recorded = true;
		if (!one) {
			WRITE_ONCE(m->strays, true);
			continue;
		}
		pfn = xa_to_value(entry);
		/*
		 * A record a fork left behind is a fault only if its entry
		 * is still there (the fork failed before it restored it);
		 * else the page was resident, and this is a copy-on-write
		 * fault or a migration.
		 */
		if (forked && cxd_nl_exclusive_pfn(range->mm,
						   idx << PAGE_SHIFT) != pfn)
			continue;
		cxd_nl_sub_access(range, pfn, idx << PAGE_SHIFT);
	}
	/*
	 * A record dropped by a range invalidation may have belonged to an
	 * entry that lives on elsewhere: mremap() moves the page tables,
	 * device-exclusive entries included, after invalidating the old range
	 * (move_page_tables(), mm/mremap.c). Its fault at the new address
	 * finds no record; the entry itself says which page it is. Only in
	 * an mm that lost records this way: every other one-page invalidation
	 * (a copy-on-write fault, say) costs nothing more.
	 */
	if (one && !recorded && READ_ONCE(m->strays)) {
		pfn = cxd_nl_exclusive_pfn(range->mm, range->start);
		if (pfn)
			cxd_nl_sub_access(range, pfn, range->start);
	}
	return true;
}

static const struct mmu_interval_notifier_ops cxd_nl_sub_ops = {
	.invalidate = cxd_nl_sub_invalidate,
};
#endif

/* -------------------------------------------------------- remote reads -- */

/*
 * Remote reads on 6.1 and 6.12 (CXD_NL_REMOTE_VM_SYM, compat.h): a GUP of
 * another process's memory that does not honor NUMA-hinting faults
 * (/proc/PID/mem and ptrace on both, process_vm_readv() on 6.12) follows a
 * PROT_NONE entry without a fault, so the hint probe never sees it. Return
 * probes on the two remote paths know, once the copy is done, which range
 * was read and how many bytes; a task_work on the reader then walks that
 * range of the owner's page tables and charges, in address order, every
 * page of a device that eviction made PROT_NONE and nothing has faulted in
 * since (its @protnone bit is still set): a read, a miss unless an earlier
 * read charged it already, and the reader waits out the modeled time on
 * its way back to user space, as after a fault. The PTE stays PROT_NONE:
 * the owner's next touch faults and is charged as well, a hit while the
 * model holds the page; an eviction finds it non-resident already
 * (cxd_nl_make_nonresident()). Writes are left alone: a write GUP faults
 * on a PROT_NONE entry (its PTE is not writable), which the hint probe
 * sees. A compat task's process_vm_readv() is not followed (its iovecs
 * have another layout). 7.2 needs none of this: a remote GUP faults on a
 * device-exclusive entry, and the notifier sees it.
 */

#define CXD_NL_REMOTE_BATCH	32	/* pages charged per page-table walk */
#define CXD_NL_REMOTE_IOV	8	/* iovecs copied in at a time */
#define CXD_NL_REMOTE_MAXACTIVE	64	/* remote calls in flight probed */

/* One remote read to charge: a task_work on the reader. */
struct cxd_nl_remote {
	struct callback_head cb;
	struct mm_struct *mm;		/* mmgrab()ed; NULL: @pid's */
	struct pid *pid;		/* process_vm_readv()'s target */
	const struct iovec __user *rvec;	/* its remote iovecs */
	unsigned long nvec;
	unsigned long addr;		/* with @mm: the address read */
	size_t len;			/* bytes read */
};

/* What a walk of the read range found (cxd_nl_remote_pte()). */
struct cxd_nl_rwalk {
	unsigned long resume;		/* where a full batch stopped */
	unsigned int n;
	struct {
		struct cxd_nodelat *nl;
		u64 page;
		unsigned long va;	/* where it is mapped */
	} hit[CXD_NL_REMOTE_BATCH];
};

/*
 * Collect device page @pfn, mapped at @addr, into @w if its @protnone bit
 * is set (made non-resident by eviction, not faulted in since). PTE lock
 * held; never sleeps. Return: -EAGAIN once the batch is full, else 0.
 */
static int cxd_nl_rwalk_add(struct cxd_nl_rwalk *w, unsigned long pfn,
			    unsigned long addr)
{
	struct cxd_nodelat *nl;

	rcu_read_lock();
	nl = cxd_nl_find(pfn);
	if (nl && !READ_ONCE(nl->stopping) &&
	    test_bit(pfn - nl->pfn_lo, nl->protnone)) {
		w->hit[w->n].nl = nl;
		w->hit[w->n].va = addr;
		w->hit[w->n++].page = pfn - nl->pfn_lo;
	}
	rcu_read_unlock();
	if (w->n == CXD_NL_REMOTE_BATCH) {
		w->resume = addr + PAGE_SIZE;
		return -EAGAIN;
	}
	return 0;
}

/*
 * PTE callback of the remote-read walk: a PROT_NONE PTE of a device page
 * eviction left non-resident. PTE lock held; never sleeps.
 */
static int cxd_nl_remote_pte(pte_t *ptep, unsigned long addr, void *data)
{
	pte_t pte = ptep_get(ptep);

	if (!pte_protnone(pte))
		return 0;
	return cxd_nl_rwalk_add(data, pte_pfn(pte), addr);
}

/*
 * Collect into @w the pages @fn picks in [@addr, @end) of @mm, up to a
 * batch, skipping what has no PTE table (see cxd_nl_scan_ranges()).
 * Caller holds @mm's mmap_lock for read. Return: where to go on from.
 */
static unsigned long cxd_nl_walk_collect(struct mm_struct *mm,
					 unsigned long addr,
					 unsigned long end,
					 struct cxd_nl_rwalk *w, pte_fn_t fn)
{
	struct vm_area_struct *vma;
	unsigned long next, stop;
	bool table;

	while (addr < end && w->n < CXD_NL_REMOTE_BATCH) {
		vma = find_vma(mm, addr);
		if (!vma || vma->vm_start >= end)
			return end;
		addr = max(addr, vma->vm_start);
		stop = min(end, vma->vm_end);
		if (!vma_is_accessible(vma) ||
		    (vma->vm_flags & (VM_PFNMAP | VM_MIXEDMAP | VM_IO |
				      VM_HUGETLB))) {
			addr = stop;
			continue;
		}
		for (; addr < stop && w->n < CXD_NL_REMOTE_BATCH; addr = next) {
			next = cxd_nl_table_span(mm, addr, stop, &table);
			if (!table)
				continue;
			w->resume = next;
			cxd_apply_to_existing_page_range(mm, addr, next - addr,
							 fn, w);
			next = w->resume;
		}
	}
	return addr;
}

/*
 * Charge the current task's remote read of [@addr, @addr + @len) of @mm
 * (mmget() held): each page collected is one read access, at the time it
 * is charged, waited for before the next. Context: the reader's task_work
 * (process), in an SRCU read section of cxd_nl_srcu; no lock held.
 */
static void cxd_nl_remote_range(struct mm_struct *mm, unsigned long addr,
				size_t len)
{
	unsigned long end = PAGE_ALIGN(addr + len);
	struct cxd_nl_rwalk *w;
	unsigned int i;

	if (!len || end <= addr)
		return;
	w = kmalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return;
	addr &= PAGE_MASK;
	while (addr < end && !fatal_signal_pending(current)) {
		w->n = 0;
		mmap_read_lock(mm);
		addr = cxd_nl_walk_collect(mm, addr, end, w,
					   cxd_nl_remote_pte);
		mmap_read_unlock(mm);
		for (i = 0; i < w->n; i++) {
			struct cxd_nodelat *nl = w->hit[i].nl;

			/* listed when found; cxd_nodelat_stop() waits for us */
			if (READ_ONCE(nl->stopping))
				continue;
			atomic64_inc(&nl->st.remote);
			cxd_nl_charge(nl, w->hit[i].page, 0, ktime_get_ns(),
				      true);
		}
		cond_resched();
	}
	kfree(w);
}

/*
 * The ranges of a process_vm_readv() that read @r->len bytes: its remote
 * iovecs, read again from the caller's memory, in order, until @r->len
 * bytes are accounted for (the kernel copies them in that order). Context:
 * as cxd_nl_remote_range(); the current task's own user memory is read.
 */
static void cxd_nl_remote_iov(struct mm_struct *mm, struct cxd_nl_remote *r)
{
	struct iovec iov[CXD_NL_REMOTE_IOV];
	size_t left = r->len;
	unsigned long i = 0, j, n;

	while (left && i < r->nvec) {
		n = min_t(unsigned long, r->nvec - i, CXD_NL_REMOTE_IOV);
		if (copy_from_user(iov, r->rvec + i, n * sizeof(*iov)))
			return;
		for (j = 0; j < n && left; j++) {
			size_t l = min(left, iov[j].iov_len);

			cxd_nl_remote_range(mm, (unsigned long)iov[j].iov_base,
					    l);
			left -= l;
		}
		i += n;
	}
}

static void cxd_nl_remote_fn(struct callback_head *cb)
{
	struct cxd_nl_remote *r = container_of(cb, struct cxd_nl_remote, cb);
	struct task_struct *task;
	struct mm_struct *mm = NULL;
	int idx;

	if (r->mm) {
		if (mmget_not_zero(r->mm))
			mm = r->mm;
	} else {
		task = get_pid_task(r->pid, PIDTYPE_PID);
		if (task) {
			mm = get_task_mm(task);
			put_task_struct(task);
		}
	}
	if (mm) {
		idx = srcu_read_lock(&cxd_nl_srcu);
		if (r->mm)
			cxd_nl_remote_range(mm, r->addr, r->len);
		else
			cxd_nl_remote_iov(mm, r);
		srcu_read_unlock(&cxd_nl_srcu, idx);
		mmput(mm);
	}
	if (r->mm)
		mmdrop(r->mm);
	put_pid(r->pid);
	kfree(r);
	/* last: unload's synchronize_rcu_tasks() covers the return (main.c) */
	module_put(THIS_MODULE);
}

/*
 * Is @mm (compared only) an address space some device tracks? Context:
 * any; never sleeps.
 */
static bool cxd_nl_tracked_anywhere(struct mm_struct *mm)
{
	struct cxd_nodelat *nl;
	bool tracked = false;

	rcu_read_lock();
	list_for_each_entry_rcu(nl, &cxd_nl_devs, list) {
		if (cxd_nl_tracks(nl, mm)) {
			tracked = true;
			break;
		}
	}
	rcu_read_unlock();
	return tracked;
}

/*
 * Queue the charge of a remote read on the current task: of @len bytes at
 * @addr of @mm (compared only here, a reference is taken), or with @mm
 * NULL of @len bytes through @rvec's @nvec iovecs of process @pid (a
 * number in the current task's namespace). A failed allocation loses the
 * read (it is no device's yet). Context: a return probe of the remote
 * path, in the reader; never sleeps.
 */
static void cxd_nl_remote_queue(struct mm_struct *mm, unsigned long addr,
				pid_t pid, const struct iovec __user *rvec,
				unsigned long nvec, size_t len)
{
	struct cxd_nl_remote *r;

	r = kzalloc(sizeof(*r), GFP_ATOMIC | __GFP_NOWARN);
	if (!r)
		return;
	r->addr = addr;
	r->rvec = rvec;
	r->nvec = nvec;
	r->len = len;
	__module_get(THIS_MODULE);
	init_task_work(&r->cb, cxd_nl_remote_fn);
	if (task_work_add(current, &r->cb, TWA_RESUME)) {
		module_put(THIS_MODULE);
		kfree(r);
		return;
	}
	/* the task_work runs later in this task: nothing frees @r before */
	if (mm) {
		mmgrab(mm);
		r->mm = mm;
	} else {
		r->pid = find_get_pid(pid);
	}
}

/* What a remote path's entry saw, for its return (kretprobe data). */
struct cxd_nl_remote_call {
	struct mm_struct *mm;
	unsigned long addr;
	pid_t pid;
	const struct iovec __user *rvec;
	unsigned long nvec;
};

/* Is the current task one whose remote reads are charged? */
static bool cxd_nl_remote_reader(void)
{
	return current->mm && !(current->flags & (PF_KTHREAD | PF_EXITING));
}

/*
 * __access_remote_vm()'s entry: a read (no FOLL_WRITE) of a tracked mm by
 * a user task is followed to its return. Context: the call's entry
 * (kretprobe); never sleeps. Return: 0 to probe the return, 1 not to.
 */
static int cxd_nl_remote_vm_entry(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	struct cxd_nl_remote_call *c = (void *)ri->data;
	unsigned int gup_flags;

	cxd_nl_remote_vm_args(regs, &c->mm, &c->addr, &gup_flags);
	if ((gup_flags & FOLL_WRITE) || !cxd_nl_remote_reader())
		return 1;
	return !cxd_nl_tracked_anywhere(c->mm);
}

/* __access_remote_vm()'s return: the bytes read, charged on the reader. */
static int cxd_nl_remote_vm_ret(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct cxd_nl_remote_call *c = (void *)ri->data;
	int ret = (int)regs_return_value(regs);

	if (ret > 0)
		cxd_nl_remote_queue(c->mm, c->addr, 0, NULL, 0, ret);
	return 0;
}

/*
 * process_vm_rw()'s entry: a process_vm_readv() by a 64-bit user task of
 * a process whose mm a device tracks (a racy look at its task's mm,
 * compared only) is followed to its return. Context: the call's entry
 * (kretprobe); never sleeps. Return: 0 to probe the return, 1 not to.
 */
static int cxd_nl_vm_rw_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct cxd_nl_remote_call *c = (void *)ri->data;
	struct task_struct *task;
	bool write, tracked = false;

	cxd_nl_vm_rw_args(regs, &c->pid, &c->rvec, &c->nvec, &write);
	if (write || in_compat_syscall() || !cxd_nl_remote_reader())
		return 1;
	rcu_read_lock();
	task = pid_task(find_vpid(c->pid), PIDTYPE_PID);
	if (task && READ_ONCE(task->mm))
		tracked = cxd_nl_tracked_anywhere(READ_ONCE(task->mm));
	rcu_read_unlock();
	return !tracked;
}

/* process_vm_rw()'s return: the bytes read, charged on the reader. */
static int cxd_nl_vm_rw_ret(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct cxd_nl_remote_call *c = (void *)ri->data;
	long ret = (long)regs_return_value(regs);

	if (ret > 0)
		cxd_nl_remote_queue(NULL, 0, c->pid, c->rvec, c->nvec, ret);
	return 0;
}

static struct kretprobe cxd_nl_krp_remote_vm = {
	.kp.symbol_name = CXD_NL_REMOTE_VM_SYM,
	.entry_handler = cxd_nl_remote_vm_entry,
	.handler = cxd_nl_remote_vm_ret,
	.data_size = sizeof(struct cxd_nl_remote_call),
	.maxactive = CXD_NL_REMOTE_MAXACTIVE,
};

static struct kretprobe cxd_nl_krp_vm_rw = {
	.kp.symbol_name = CXD_NL_VM_RW_SYM,
	.entry_handler = cxd_nl_vm_rw_entry,
	.handler = cxd_nl_vm_rw_ret,
	.data_size = sizeof(struct cxd_nl_remote_call),
	.maxactive = CXD_NL_REMOTE_MAXACTIVE,
};

/* ------------------------------------------------- mprotect() re-arm -- */

/*
 * Re-arm after a change of protection on 6.1 and 6.12 (CXD_NL_MPROT_SYM,
 * compat.h): mprotect() gives every present PTE of the range the VMA's new
 * protection, and a PROT_NONE entry that eviction made is a present PTE,
 * so the evicted pages there become accessible without an access. The
 * model holds no line for them: no eviction would ever make them
 * non-resident again, and they would run at memory speed for good. A
 * return probe on change_protection() (not NUMA balancing's, which skips
 * PROT_NONE entries) queues a task_work on the task; on its way back to
 * user space, before its next access, it walks the range and makes each
 * accessible page of a device whose @protnone bit is still set (no fault
 * made it resident since) PROT_NONE again (mprotect_rearmed). 7.2 needs
 * none of this: its device-exclusive entries survive mprotect().
 */

/*
 * PTE callback of the re-arm walk: an accessible PTE of a device page
 * eviction left non-resident. PTE lock held; never sleeps.
 */
static int cxd_nl_mprot_pte(pte_t *ptep, unsigned long addr, void *data)
{
	pte_t pte = ptep_get(ptep);

	if (!pte_present(pte) || pte_protnone(pte))
		return 0;
	return cxd_nl_rwalk_add(data, pte_pfn(pte), addr);
}

/*
 * Make the pages cxd_nl_mprot_pte() finds in [@addr, @end) of @mm (mmget()
 * held) non-resident again, a batch at a time, each batch's TLB entries
 * flushed. Context: the task's task_work (process), in an SRCU read
 * section of cxd_nl_srcu; no lock held.
 */
static void cxd_nl_mprot_rearm(struct mm_struct *mm, unsigned long addr,
			       unsigned long end)
{
	struct cxd_nl_pte_batch b;
	struct cxd_nl_rwalk *w;
	unsigned int i;
	bool d;

	w = kmalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return;
	addr &= PAGE_MASK;
	while (addr < end && !fatal_signal_pending(current)) {
		w->n = 0;
		cxd_nl_pte_batch_init(&b);
		cxd_nl_pte_batch_lock(&b, mm, NULL);
		addr = cxd_nl_walk_collect(mm, addr, end, w, cxd_nl_mprot_pte);
		for (i = 0; i < w->n; i++) {
			struct cxd_nodelat *nl = w->hit[i].nl;
			unsigned long va = w->hit[i].va;
			struct vm_area_struct *vma;

			/* listed when found; cxd_nodelat_stop() waits for us */
			if (READ_ONCE(nl->stopping))
				continue;
			vma = cxd_nl_vma_at(mm, va);
			if (vma &&
			    cxd_nl_make_nonresident(&b, vma, va,
						    nl->pfn_lo + w->hit[i].page,
						    &d) > 0)
				atomic64_inc(&nl->st.mprotect_rearmed);
		}
		cxd_nl_pte_batch_unlock(&b, mm);
		cxd_nl_pte_batch_finish(&b, &mm, 1);
		cond_resched();
	}
	kfree(w);
}

/* One range whose protection changed: a task_work on the changing task. */
struct cxd_nl_mprot {
	struct callback_head cb;
	struct mm_struct *mm;		/* mmgrab()ed */
	unsigned long start;
	unsigned long end;
};

static void cxd_nl_mprot_fn(struct callback_head *cb)
{
	struct cxd_nl_mprot *r = container_of(cb, struct cxd_nl_mprot, cb);
	int idx;

	/* checked here: the probe's handlers may run in NMI context */
	if (cxd_nl_tracked_anywhere(r->mm) && mmget_not_zero(r->mm)) {
		idx = srcu_read_lock(&cxd_nl_srcu);
		cxd_nl_mprot_rearm(r->mm, r->start, r->end);
		srcu_read_unlock(&cxd_nl_srcu, idx);
		mmput(r->mm);
	}
	mmdrop(r->mm);
	kfree(r);
	/* last: unload's synchronize_rcu_tasks() covers the return (main.c) */
	module_put(THIS_MODULE);
}

/* What change_protection()'s entry saw, for its return (kretprobe data). */
struct cxd_nl_mprot_call {
	struct mm_struct *mm;
	unsigned long start;
	unsigned long end;
};

/*
 * change_protection()'s entry: a change by a user task of its own mm, not
 * NUMA balancing's (MM_CP_PROT_NUMA), is followed to its return. Whether
 * a device tracks the mm is left to the task_work: on a kernel without
 * ftrace the probe is an int3 one, its handlers run in NMI context, and
 * the tracked-mm list takes a spinlock. Context: the call's entry
 * (kretprobe), mmap_lock held; never sleeps. Return: 0 to probe the
 * return, 1 not to.
 */
static int cxd_nl_mprot_entry(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct cxd_nl_mprot_call *c = (void *)ri->data;
	struct vm_area_struct *vma;
	unsigned long cp_flags;

	cxd_nl_mprot_args(regs, &vma, &c->start, &c->end, &cp_flags);
	if ((cp_flags & MM_CP_PROT_NUMA) || !cxd_nl_remote_reader() ||
	    vma->vm_mm != current->mm)
		return 1;
	c->mm = vma->vm_mm;
	return 0;
}

/*
 * change_protection()'s return (the PTEs it changed): the re-arm of the
 * range queued on the task. A failed allocation loses it (the pages stay
 * accessible, as before this probe). Context: the call's return; never
 * sleeps.
 */
static int cxd_nl_mprot_ret(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct cxd_nl_mprot_call *c = (void *)ri->data;
	struct cxd_nl_mprot *r;

	if ((long)regs_return_value(regs) <= 0)
		return 0;
	r = kzalloc(sizeof(*r), GFP_ATOMIC | __GFP_NOWARN);
	if (!r)
		return 0;
	r->start = c->start;
	r->end = c->end;
	__module_get(THIS_MODULE);
	init_task_work(&r->cb, cxd_nl_mprot_fn);
	if (task_work_add(current, &r->cb, TWA_RESUME)) {
		module_put(THIS_MODULE);
		kfree(r);
		return 0;
	}
	/* the task_work runs later in this task: nothing frees @r before */
	mmgrab(c->mm);
	r->mm = c->mm;
	return 0;
}

static struct kretprobe cxd_nl_krp_mprot = {
	.kp.symbol_name = CXD_NL_MPROT_SYM,
	.entry_handler = cxd_nl_mprot_entry,
	.handler = cxd_nl_mprot_ret,
	.data_size = sizeof(struct cxd_nl_mprot_call),
	.maxactive = CXD_NL_REMOTE_MAXACTIVE,
};

static int cxd_nl_hint_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct cxd_nl_hook_args a;

	cxd_nl_hint_args(regs, &a);
	cxd_nl_event(&a, CXD_NL_EV_HINT);
	return 0;
}

static int cxd_nl_new_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct cxd_nl_hook_args a;

	cxd_nl_new_args(regs, &a);
	cxd_nl_event(&a, CXD_NL_EV_NEW);
	return 0;
}

/*
 * A file or shmem page range being mapped by a fault: one access per page
 * of a device (a read unless the fault is a write; a page mapped by the
 * fault-around of another page is a read). A write fault of a private
 * mapping maps a new anonymous copy instead: cxd_nl_new_pre() sees it.
 */
static int cxd_nl_file_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct cxd_nl_file_args f;
	struct cxd_nl_hook_args a = { };
	unsigned long fault_va;
	unsigned int i;
	bool write;

	cxd_nl_file_args(regs, &f);
	a.vma = f.vmf->vma;
	write = f.vmf->flags & FAULT_FLAG_WRITE;
	if (write && !(a.vma->vm_flags & VM_SHARED))
		return 0;
	fault_va = f.vmf->address & PAGE_MASK;
	for (i = 0; i < f.nr; i++) {
		a.pfn = f.pfn + i;
		a.addr = f.addr + i * PAGE_SIZE;
		a.write = write && a.addr == fault_va;
		cxd_nl_event(&a, a.addr == fault_va ? CXD_NL_EV_FILE :
			     CXD_NL_EV_AROUND);
	}
	return 0;
}

/*
 * Fault-around (filemap_map_pages()) would map the faulting page's
 * neighbours without a fault, so their later touches would go unseen. When
 * the faulting page is on a device's node, map only that page.
 * Context: the fault, preemption off (kprobe); never sleeps.
 */
static int cxd_nl_around_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct vm_fault *vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	struct file *file = vmf->vma->vm_file;
	struct cxd_nodelat *nl;
	void *entry;

	if (!file)
		return 0;
	rcu_read_lock();
	entry = xa_load(&file->f_mapping->i_pages, vmf->pgoff);
	/* the folio is not held: only its pfn is computed, never read */
	nl = entry && !xa_is_value(entry) ?
	     cxd_nl_find(folio_pfn((struct folio *)entry)) : NULL;
	if (nl && !READ_ONCE(nl->stopping)) {
		cxd_nl_around_limit(regs, vmf->pgoff);
		atomic64_inc(&nl->st.around_limited);
	}
	rcu_read_unlock();
	return 0;
}

/*
 * folio_mark_dirty() on a device page that cxd_nl_evict_file() is
 * unmapping: the zap found its PTE dirty. Context: any; never sleeps.
 */
static int cxd_nl_dirty_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct folio *folio = (struct folio *)regs_get_kernel_argument(regs, 0);
	unsigned long pfn, i, n;
	struct cxd_nodelat *nl;

	if (!atomic_read(&cxd_nl_unmaps))
		return 0;
	pfn = folio_pfn(folio);
	rcu_read_lock();
	nl = cxd_nl_find(pfn);
	/* the caller holds a reference on @folio */
	n = nl ? min(folio_nr_pages(folio), nl->pfn_hi - pfn) : 0;
	for (i = 0; i < n; i++)
		if (test_bit(pfn - nl->pfn_lo + i, nl->unmapping))
			set_bit(pfn - nl->pfn_lo + i, nl->unmap_dirty);
	rcu_read_unlock();
	return 0;
}

/*
 * A migration copied @folio (arg 1) to @newfolio (arg 0): folio_migrate_flags()
 * runs once per migrated folio, after the data, both folios locked. A page
 * copied onto a device arrives (charged as a write by the arrival work, and
 * its next mapping is not an access); a page copied off a device departs
 * (its address is forgotten, and the same work drops its line from the
 * model: the data went with the page; the model's lock may sleep, so not
 * here). Context: atomic (kprobe); never sleeps.
 */
static int cxd_nl_migrate_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct folio *dst = (struct folio *)regs_get_kernel_argument(regs, 0);
	struct folio *src = (struct folio *)regs_get_kernel_argument(regs, 1);
	struct cxd_nodelat *nl;
	u64 page;

	rcu_read_lock();
	nl = cxd_nl_find(folio_pfn(src));
	if (nl && !folio_test_large(src)) {
		page = folio_pfn(src) - nl->pfn_lo;
		cxd_nl_set_va(nl, page, 0);
		clear_bit(page, nl->migrated);
		atomic64_inc(&nl->st.departures);
		/* the new page's PTE is not one eviction made PROT_NONE */
		clear_bit(page, nl->protnone);
		if (!READ_ONCE(nl->stopping)) {
			if (!test_and_set_bit(page, nl->departed))
				atomic_inc(&nl->departing);
			kref_get(&nl->ref);
			if (!queue_work(cxd_wq, &nl->arrive_work))
				kref_put(&nl->ref, cxd_nl_release);	/* never the last */
		}
	}
	nl = cxd_nl_find(folio_pfn(dst));
	if (!nl || READ_ONCE(nl->stopping))
		goto out;
	if (folio_test_large(dst)) {
		/* Residency is per 4 KiB page: a THP escapes the model. */
		atomic64_add(folio_nr_pages(dst), &nl->st.thp_pages);
		goto out;
	}
	page = folio_pfn(dst) - nl->pfn_lo;
	cxd_nl_set_va(nl, page, 0);
	set_bit(page, nl->migrated);
	set_bit(page, nl->arrived);
	atomic64_inc(&nl->st.arrivals);
	kref_get(&nl->ref);
	if (!queue_work(cxd_wq, &nl->arrive_work))
		kref_put(&nl->ref, cxd_nl_release);	/* never the last */
out:
	rcu_read_unlock();
	return 0;
}

/*
 * An existing anonymous page being mapped: a migration putting a page back
 * (then the page is in @migrated), a swap-in, KSM, swapoff. Its address
 * and address space go into the reverse map, so that eviction finds it.
 * A swap-in by the faulting task is that task's access. Context: atomic
 * (kprobe, PTE lock held); never sleeps.
 */
static int cxd_nl_anon_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct cxd_nl_hook_args a;
	struct cxd_nodelat *nl;
	unsigned int nr, i;
	bool access = false;
	u64 page;

	nr = cxd_nl_anon_args(regs, &a);
	rcu_read_lock();
	nl = cxd_nl_find(a.pfn);
	if (!nl || READ_ONCE(nl->stopping))
		goto out;
	if (a.large) {
		atomic64_add(nr, &nl->st.thp_pages);
		goto out;
	}
	cxd_nl_mm_add(nl, a.vma->vm_mm, NULL);
	for (i = 0; i < nr && a.pfn + i < nl->pfn_hi; i++) {
		page = a.pfn + i - nl->pfn_lo;
		cxd_nl_set_va(nl, page, (a.addr & PAGE_MASK) + i * PAGE_SIZE);
		if (!test_and_clear_bit(page, nl->migrated))
			access = true;
	}
	/* a.pfn, a.addr: the first page; the fault is the task's own */
	access &= nr == 1 && a.vma->vm_mm == current->mm;
out:
	rcu_read_unlock();
	if (access)
		cxd_nl_event(&a, CXD_NL_EV_MAP);
	return 0;
}

/*
 * The hinting fault's placement check (CXD_NL_HINT_SYM) on a page that
 * eviction made PROT_NONE: the fault is the model's, not a NUMA-balancing
 * scan's, so it must not migrate the page (a default-policy task's page
 * would otherwise be promoted off the node at its second miss). The check
 * runs under the PTE lock and never sleeps.
 */
static int cxd_nl_promote_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct cxd_nl_hook_args a;
	struct cxd_nodelat *nl;
	bool ours = false;

	cxd_nl_hint_args(regs, &a);
	rcu_read_lock();
	nl = cxd_nl_find(a.pfn);
	if (nl && !a.large)
		ours = test_and_clear_bit(a.pfn - nl->pfn_lo, nl->protnone);
	*(struct cxd_nodelat **)ri->data = ours ? nl : NULL;
	rcu_read_unlock();
	return !ours;	/* 1: no return probe */
}

static int cxd_nl_promote_ret(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct cxd_nodelat *nl = *(struct cxd_nodelat **)ri->data;

	if ((int)regs_return_value(regs) == NUMA_NO_NODE)
		return 0;
	regs_set_return_value(regs, (unsigned long)NUMA_NO_NODE);
	rcu_read_lock();
	/* @nl is only counted while it is listed */
	if (cxd_nl_find(nl->pfn_lo) == nl)
		atomic64_inc(&nl->st.promotions_refused);
	rcu_read_unlock();
	return 0;
}

static struct kretprobe cxd_nl_krp_promote = {
	.kp.symbol_name = CXD_NL_HINT_SYM,
	.entry_handler = cxd_nl_promote_entry,
	.handler = cxd_nl_promote_ret,
	.data_size = sizeof(struct cxd_nodelat *),
	.maxactive = 64,
};

static struct kprobe cxd_nl_kp_migrate = {
	.symbol_name = CXD_NL_MIGRATE_SYM,
	.pre_handler = cxd_nl_migrate_pre,
};

static struct kprobe cxd_nl_kp_anon = {
	.symbol_name = CXD_NL_ANON_SYM,
	.pre_handler = cxd_nl_anon_pre,
};

static struct kprobe cxd_nl_kp_hint = {
	.symbol_name = CXD_NL_HINT_SYM,
	.pre_handler = cxd_nl_hint_pre,
};

static struct kprobe cxd_nl_kp_new = {
	.symbol_name = CXD_NL_NEW_SYM,
	.pre_handler = cxd_nl_new_pre,
};

static struct kprobe cxd_nl_kp_file = {
	.symbol_name = CXD_NL_FILE_SYM,
	.pre_handler = cxd_nl_file_pre,
};

static struct kprobe cxd_nl_kp_around = {
	.symbol_name = CXD_NL_AROUND_SYM,
	.pre_handler = cxd_nl_around_pre,
};

static struct kprobe cxd_nl_kp_dirty = {
	.symbol_name = CXD_NL_DIRTY_SYM,
	.pre_handler = cxd_nl_dirty_pre,
};

/* ------------------------------------------------------------------ THP -- */

/*
 * Residency is per 4 KiB line, so a device's node is mapped with 4 KiB
 * pages only (docs/numa-mode.md, "Huge pages"):
 * - a large folio (THP, or an mTHP order) that the VMA allocator returns on
 *   a device's node for a fault is given back, and the allocator returns
 *   NULL: the fault falls back to smaller orders and then to 4 KiB, as when
 *   a huge page cannot be had (THP_FAULT_FALLBACK). Counted in
 *   thp_refused_pages;
 * - khugepaged and MADV_COLLAPSE, which would merge a range of 4 KiB pages
 *   into one huge page on the node, are told that no huge page is allowed
 *   in an address space the device tracks (the THP check their callers
 *   make, for them only; faults and smaps ask it too, and keep its answer).
 *   Counted in thp_collapse_refused.
 * - a large folio that a migration (demotion, move_pages, migrate_pages)
 *   would copy onto the node gets no target: alloc_migration_target()
 *   returns NULL for it, and the migration splits the folio and moves its
 *   4 KiB pages (demotion and the syscalls split on -ENOMEM; a NUMA-fault
 *   migration leaves the folio where it is). Counted in thp_refused_pages.
 * - from 6.7, tmpfs/shmem huge folios come from the policy allocator
 *   (folio_alloc_mpol_noprof()) and mbind's migration target from its own
 *   callback (alloc_migration_target_by_mpol()), neither under the VMA
 *   allocator: the same refusal at both (shmem falls back to 4 KiB
 *   pages, mbind splits the folio on -ENOMEM).
 * - a large page-cache folio (file systems with large folios: XFS, ext4
 *   from 6.16; readahead asks for PMD-sized ones under MADV_HUGEPAGE, and
 *   a PMD would then map the file's 512 pages with one entry) from the
 *   page cache's allocator, filemap_alloc_folio(): the same refusal, for
 *   the orders the caller can do without: readahead then reads 4 KiB
 *   pages, __filemap_get_folio() tries each smaller order.
 * All are kretprobes: the functions are the allocators and the check every
 * such path goes through on the supported kernels (compat.h).
 */

/* Entry of the VMA allocator: only large orders go on to the return. */
static int cxd_nl_thp_alloc_entry(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	return (int)regs_get_kernel_argument(regs, 1) > 0 ? 0 : 1;
}

/*
 * A large @folio an allocator is about to return (@regs: its return): if
 * it is on a running device's node, count it in thp_refused, free it (the
 * allocator's reference: not yet mapped, listed or charged) and make the
 * allocator return NULL. Context: a kretprobe's return; never sleeps.
 */
static void cxd_nl_refuse_large(struct folio *folio, struct pt_regs *regs)
{
	struct cxd_nodelat *nl;

	rcu_read_lock();
	nl = cxd_nl_find(folio_pfn(folio));
	if (nl && !READ_ONCE(nl->stopping)) {
		atomic64_add(folio_nr_pages(folio), &nl->st.thp_refused);
		folio_put(folio);
		regs_set_return_value(regs, 0);
	}
	rcu_read_unlock();
}

/*
 * A large folio allocated on a device's node: free it and return NULL.
 * Context: the allocator's return (preemption off); never sleeps.
 */
static int cxd_nl_thp_alloc_ret(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct folio *folio = (struct folio *)regs_return_value(regs);

	if (folio && folio_test_large(folio))
		cxd_nl_refuse_large(folio, regs);
	return 0;
}

/*
 * The target of a migration: a large folio on a device's node (not
 * hugetlb, whose pages come from the pool) is freed and NULL returned.
 * alloc_migration_target() returns a struct page * on 6.1, a struct folio *
 * on 6.12: the same address. Context: the allocator's return (may be
 * preemptible); never sleeps.
 */
static int cxd_nl_thp_migalloc_ret(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	struct page *page = (struct page *)regs_return_value(regs);
	struct folio *folio;

	if (!page)
		return 0;
	folio = page_folio(page);
	if (folio_test_large(folio) && !folio_test_hugetlb(folio))
		cxd_nl_refuse_large(folio, regs);
	return 0;
}

/*
 * Entry of the page cache's allocator: only large orders that may fail go
 * on to the return. Every caller that can fall back asks with
 * __GFP_NORETRY (readahead, whose folios are optional, and
 * __filemap_get_folio() for each order above the mapping's minimum); the
 * minimum order of a file system whose blocks are larger than a page
 * (XFS from 6.12, ext4 on 7.2) is asked for without it, and refusing it
 * would fail the read: it is left alone.
 */
static int cxd_nl_pcache_alloc_entry(struct kretprobe_instance *ri,
				     struct pt_regs *regs)
{
	gfp_t gfp = (__force gfp_t)(unsigned int)regs_get_kernel_argument(regs, 0);

	return (int)regs_get_kernel_argument(regs, 1) > 0 &&
	       (gfp & __GFP_NORETRY) ? 0 : 1;
}

/* Entry of the THP check: remember the mm of a collapse's question. */
static int cxd_nl_thp_check_entry(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	struct vm_area_struct *vma;

	if (!cxd_nl_thp_check_collapse(regs))
		return 1;
	vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 0);
	*(struct mm_struct **)ri->data = vma->vm_mm;
	return 0;
}

/*
 * A collapse would be allowed in an mm a device tracks: answer no.
 * Context: the check's return (preemption off); never sleeps.
 */
static int cxd_nl_thp_check_ret(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct mm_struct *mm = *(struct mm_struct **)ri->data;
	struct cxd_nodelat *nl;

	if (!regs_return_value(regs) || !mm)
		return 0;
	rcu_read_lock();
	list_for_each_entry_rcu(nl, &cxd_nl_devs, list) {
		if (cxd_nl_tracks(nl, mm) && !READ_ONCE(nl->stopping)) {
			atomic64_inc(&nl->st.collapse_refused);
			regs_set_return_value(regs, 0);
			break;
		}
	}
	rcu_read_unlock();
	return 0;
}

/*
 * Instances: one per call in flight. A huge allocation may sleep in
 * compaction, so allow many; a call that finds none left runs unprobed
 * (kretprobe nmissed), and its huge page is then counted untracked.
 */
#define CXD_NL_THP_MAXACTIVE	256

static struct kretprobe cxd_nl_krp_alloc = {
	.kp.symbol_name = CXD_NL_THP_ALLOC_SYM,
	.entry_handler = cxd_nl_thp_alloc_entry,
	.handler = cxd_nl_thp_alloc_ret,
	.maxactive = CXD_NL_THP_MAXACTIVE,
};

/* The policy allocator under shmem and mbind (6.12, 7.2; none on 6.1). */
static struct kretprobe cxd_nl_krp_mpol = {
	.kp.symbol_name = CXD_NL_THP_MPOL_SYM,
	.entry_handler = cxd_nl_thp_alloc_entry,
	.handler = cxd_nl_thp_alloc_ret,
	.maxactive = CXD_NL_THP_MAXACTIVE,
};

/* mbind's migration target (6.12, 7.2; none on 6.1). */
static struct kretprobe cxd_nl_krp_mbind = {
	.kp.symbol_name = CXD_NL_MBIND_TARGET_SYM,
	.handler = cxd_nl_thp_migalloc_ret,
	.maxactive = CXD_NL_THP_MAXACTIVE,
};

/* The page cache's allocator (filemap_alloc_folio(), compat.h). */
static struct kretprobe cxd_nl_krp_pcache = {
	.kp.symbol_name = CXD_NL_PCACHE_SYM,
	.entry_handler = cxd_nl_pcache_alloc_entry,
	.handler = cxd_nl_thp_alloc_ret,
	.maxactive = CXD_NL_THP_MAXACTIVE,
};

static struct kretprobe cxd_nl_krp_migalloc = {
	.kp.symbol_name = CXD_NL_MIGALLOC_SYM,
	.handler = cxd_nl_thp_migalloc_ret,
	.maxactive = CXD_NL_THP_MAXACTIVE,
};

static struct kretprobe cxd_nl_krp_check = {
	.kp.symbol_name = CXD_NL_THP_CHECK_SYM,
	.entry_handler = cxd_nl_thp_check_entry,
	.handler = cxd_nl_thp_check_ret,
	.data_size = sizeof(struct mm_struct *),
	.maxactive = CXD_NL_THP_MAXACTIVE,
};

/*
 * KSM on the node. KSM merges pages of identical contents into one page
 * mapped read-only at every address that had one. The reverse map keeps
 * one address per page (6.x), and 7.2's device-exclusive entries cannot
 * cover a page mapped twice, so a merged page of the node would be evicted
 * through one mapping at most and hit without a fault through the others.
 * As with huge pages, pages of the node are not merged: a comparison KSM
 * makes (memcmp_pages(), which its stable and unstable tree searches and
 * its final pages_identical() check all call) that finds a page of a
 * running device's node equal to another page answers "different"
 * instead. The order stays total, so KSM's trees stay searchable: pages
 * compare by contents first, as before; of equal contents, every page off
 * the node comes before every page of the node, and pages of the node
 * come in frame order. Two equal pages off the node still compare equal
 * and meet in the trees wherever pages of the node sit. The program reads
 * and writes the same data; the node holds one page per mapping, as
 * without KSM. The zero-page checks of THP splitting and migration (6.12,
 * 7.2) call the same function: a page of the node is not taken for the
 * zero page there either.
 */

/* Is @pfn a page of a running device's node? Caller: rcu_read_lock(). */
static bool cxd_nl_ours(unsigned long pfn)
{
	struct cxd_nodelat *nl = cxd_nl_find(pfn);

	return nl && !READ_ONCE(nl->stopping);
}

/* Entry: the answer for equal contents, kept for the return if needed. */
static int cxd_nl_ksm_cmp_entry(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	unsigned long f1 = page_to_pfn((struct page *)regs_get_kernel_argument(regs, 0));
	unsigned long f2 = page_to_pfn((struct page *)regs_get_kernel_argument(regs, 1));
	bool n1, n2;

	if (f1 == f2)
		return 1;
	rcu_read_lock();
	n1 = cxd_nl_ours(f1);
	n2 = cxd_nl_ours(f2);
	rcu_read_unlock();
	if (!n1 && !n2)
		return 1;	/* no return handler: the real answer */
	*(int *)ri->data = n1 != n2 ? (n1 ? 1 : -1) : (f1 < f2 ? -1 : 1);
	return 0;
}

/*
 * Equal contents, one page of the node: the answer the entry chose.
 * Context: memcmp_pages()'s return (may be preemptible); never sleeps.
 */
static int cxd_nl_ksm_cmp_ret(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	if (!(int)regs_return_value(regs))
		regs_set_return_value(regs,
				      (unsigned long)(long)*(int *)ri->data);
	return 0;
}

static struct kretprobe cxd_nl_krp_ksm = {
	.kp.symbol_name = "memcmp_pages",
	.entry_handler = cxd_nl_ksm_cmp_entry,
	.handler = cxd_nl_ksm_cmp_ret,
	.data_size = sizeof(int),
	.maxactive = CXD_NL_THP_MAXACTIVE,
};

/*
 * A hugetlb page of the node's pool handed to a mapping (a fault,
 * fallocate): one PMD maps its 512 lines (a PUD 262144), so residency per
 * 4 KiB line cannot be tracked, and the pool's pages cannot be refused
 * as THP's are (a bound task would get SIGBUS). Counted in
 * hugetlb_untracked_pages. alloc_huge_page() returns a struct page * on
 * 6.1, alloc_hugetlb_folio() a struct folio * on 6.12 and 7.2: the same
 * address; an ERR_PTR on failure. Context: the allocator's return (it may
 * have slept); never sleeps.
 */
static int cxd_nl_hugetlb_ret(struct kretprobe_instance *ri,
			      struct pt_regs *regs)
{
	struct page *page = (struct page *)regs_return_value(regs);
	struct cxd_nodelat *nl;

	if (IS_ERR_OR_NULL(page))
		return 0;
	rcu_read_lock();
	nl = cxd_nl_find(page_to_pfn(page));
	if (nl && !READ_ONCE(nl->stopping))
		atomic64_add(folio_nr_pages(page_folio(page)),
			     &nl->st.hugetlb_pages);
	rcu_read_unlock();
	return 0;
}

static struct kretprobe cxd_nl_krp_hugetlb = {
	.kp.symbol_name = CXD_NL_HUGETLB_SYM,
	.handler = cxd_nl_hugetlb_ret,
	.maxactive = CXD_NL_THP_MAXACTIVE,
};

/*
 * Register @rp (reused across power cycles: clear what an earlier
 * registration left); a probe with no symbol (none on this kernel,
 * compat.h) is skipped. Return: 0, or -EOPNOTSUPP with one log line.
 */
static int cxd_nl_kretprobe_add(struct kretprobe *rp, const char *name)
{
	int ret;

	if (!rp->kp.symbol_name)
		return 0;
	rp->kp.addr = NULL;
	rp->kp.flags = 0;
	rp->kp.nmissed = 0;
	rp->nmissed = 0;
	ret = register_kretprobe(rp);
	if (ret) {
		pr_warn(CXD_NAME ": %s: power: node_latency: cannot probe %s (%d): this kernel is not supported\n",
			name, rp->kp.symbol_name, ret);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Unregister @rp, registered by cxd_nl_kretprobe_add(). */
static void cxd_nl_kretprobe_del(struct kretprobe *rp)
{
	if (rp->kp.symbol_name)
		unregister_kretprobe(rp);
}

/*
 * A new task: a child with its own mm (fork) inherits its parent's anonymous
 * pages at the same addresses, so it is tracked wherever the parent is.
 * Context: the task_newtask tracepoint (preemption off).
 */
static void cxd_nl_newtask(void *data, struct task_struct *task,
			   unsigned long clone_flags)
{
	struct mm_struct *parent = current->mm, *child = task->mm;
	struct cxd_nodelat *nl;

	if (!parent || !child || child == parent || (clone_flags & CLONE_VM))
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(nl, &cxd_nl_devs, list)
		if (cxd_nl_tracks(nl, parent))
			cxd_nl_mm_add(nl, child, NULL);
	rcu_read_unlock();
}

static struct tracepoint *cxd_nl_tp_newtask;

static void cxd_nl_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "task_newtask"))
		cxd_nl_tp_newtask = tp;
}

/*
 * Register @kp (reused across power cycles: clear what an earlier
 * registration left). Return: 0, or -EOPNOTSUPP with one log line.
 */
static int cxd_nl_kprobe_add(struct kprobe *kp, const char *name)
{
	int ret;

	kp->addr = NULL;
	kp->flags = 0;
	kp->nmissed = 0;
	ret = register_kprobe(kp);
	if (ret) {
		pr_warn(CXD_NAME ": %s: power: node_latency: cannot probe %s (%d): this kernel is not supported\n",
			name, kp->symbol_name, ret);
		return -EOPNOTSUPP;
	}
	return 0;
}

/* The probed functions' prototypes, checked against BTF first (nlbtf.c) */
static const char *const cxd_nl_protos[] = CXD_NL_PROTOS;

/*
 * Register the hooks for the first user, once the probed functions'
 * prototypes match this kernel's BTF. Context: cxd_cfg_mutex held.
 */
static int cxd_nl_hooks_get(const char *name)
{
	int ret;

	lockdep_assert_held(&cxd_cfg_mutex);
	if (cxd_nl_users++)
		return 0;
	ret = cxd_nl_btf_check(name, cxd_nl_protos, ARRAY_SIZE(cxd_nl_protos));
	if (ret)
		goto err;
	for_each_kernel_tracepoint(cxd_nl_find_tp, NULL);
	if (!cxd_nl_tp_newtask) {
		pr_warn(CXD_NAME ": %s: power: node_latency: tracepoint task_newtask not found\n",
			name);
		ret = -EOPNOTSUPP;
		goto err;
	}
	ret = tracepoint_probe_register(cxd_nl_tp_newtask, cxd_nl_newtask,
					NULL);
	if (ret) {
		pr_warn(CXD_NAME ": %s: power: node_latency: cannot attach to task_newtask: %d\n",
			name, ret);
		goto err;
	}
	ret = cxd_nl_kprobe_add(&cxd_nl_kp_hint, name);
	if (ret)
		goto err_tp;
	ret = cxd_nl_kprobe_add(&cxd_nl_kp_new, name);
	if (ret)
		goto err_hint;
	ret = cxd_nl_kretprobe_add(&cxd_nl_krp_alloc, name);
	if (ret)
		goto err_new;
	ret = cxd_nl_kretprobe_add(&cxd_nl_krp_check, name);
	if (ret)
		goto err_alloc;
	ret = cxd_nl_kretprobe_add(&cxd_nl_krp_migalloc, name);
	if (ret)
		goto err_check;
	ret = cxd_nl_kretprobe_add(&cxd_nl_krp_mpol, name);
	if (ret)
		goto err_migalloc;
	ret = cxd_nl_kretprobe_add(&cxd_nl_krp_mbind, name);
	if (ret)
		goto err_mpol;
	ret = cxd_nl_kretprobe_add(&cxd_nl_krp_pcache, name);
	if (ret)
		goto err_mbind;
	ret = cxd_nl_kretprobe_add(&cxd_nl_krp_ksm, name);
	if (ret)
		goto err_pcache;
	ret = cxd_nl_kretprobe_add(&cxd_nl_krp_hugetlb, name);
	if (ret)
		goto err_ksm;
	ret = cxd_nl_kprobe_add(&cxd_nl_kp_dirty, name);
	if (ret)
		goto err_hugetlb;
	ret = cxd_nl_kprobe_add(&cxd_nl_kp_around, name);
	if (ret)
		goto err_dirty;
	ret = cxd_nl_kretprobe_add(&cxd_nl_krp_promote, name);
	if (ret)
		goto err_around;
	ret = cxd_nl_kprobe_add(&cxd_nl_kp_anon, name);
	if (ret)
		goto err_promote;
	ret = cxd_nl_kprobe_add(&cxd_nl_kp_migrate, name);
	if (ret)
		goto err_anon;
	ret = cxd_nl_kretprobe_add(&cxd_nl_krp_remote_vm, name);
	if (ret)
		goto err_migrate;
	ret = cxd_nl_kretprobe_add(&cxd_nl_krp_vm_rw, name);
	if (ret)
		goto err_remote_vm;
	ret = cxd_nl_kretprobe_add(&cxd_nl_krp_mprot, name);
	if (ret)
		goto err_vm_rw;
	/* last: it starts file-page evictions, which need dirty and around */
	ret = cxd_nl_kprobe_add(&cxd_nl_kp_file, name);
	if (ret)
		goto err_mprot;
	return 0;

err_mprot:
	cxd_nl_kretprobe_del(&cxd_nl_krp_mprot);
err_vm_rw:
	cxd_nl_kretprobe_del(&cxd_nl_krp_vm_rw);
err_remote_vm:
	cxd_nl_kretprobe_del(&cxd_nl_krp_remote_vm);
err_migrate:
	unregister_kprobe(&cxd_nl_kp_migrate);
err_anon:
	unregister_kprobe(&cxd_nl_kp_anon);
err_promote:
	unregister_kretprobe(&cxd_nl_krp_promote);
err_around:
	unregister_kprobe(&cxd_nl_kp_around);
err_dirty:
	unregister_kprobe(&cxd_nl_kp_dirty);
err_hugetlb:
	unregister_kretprobe(&cxd_nl_krp_hugetlb);
err_ksm:
	unregister_kretprobe(&cxd_nl_krp_ksm);
err_pcache:
	unregister_kretprobe(&cxd_nl_krp_pcache);
err_mbind:
	cxd_nl_kretprobe_del(&cxd_nl_krp_mbind);
err_mpol:
	cxd_nl_kretprobe_del(&cxd_nl_krp_mpol);
err_migalloc:
	unregister_kretprobe(&cxd_nl_krp_migalloc);
err_check:
	unregister_kretprobe(&cxd_nl_krp_check);
err_alloc:
	unregister_kretprobe(&cxd_nl_krp_alloc);
err_new:
	unregister_kprobe(&cxd_nl_kp_new);
err_hint:
	unregister_kprobe(&cxd_nl_kp_hint);
err_tp:
	tracepoint_probe_unregister(cxd_nl_tp_newtask, cxd_nl_newtask, NULL);
	tracepoint_synchronize_unregister();
err:
	cxd_nl_users--;
	return ret;
}

/* Unregister the hooks after the last user. Context: cxd_cfg_mutex held. */
static void cxd_nl_hooks_put(void)
{
	lockdep_assert_held(&cxd_cfg_mutex);
	if (--cxd_nl_users)
		return;
	unregister_kprobe(&cxd_nl_kp_file);
	cxd_nl_kretprobe_del(&cxd_nl_krp_mprot);
	cxd_nl_kretprobe_del(&cxd_nl_krp_vm_rw);
	cxd_nl_kretprobe_del(&cxd_nl_krp_remote_vm);
	unregister_kprobe(&cxd_nl_kp_migrate);
	unregister_kprobe(&cxd_nl_kp_anon);
	unregister_kretprobe(&cxd_nl_krp_promote);
	unregister_kprobe(&cxd_nl_kp_around);
	unregister_kprobe(&cxd_nl_kp_dirty);
	unregister_kretprobe(&cxd_nl_krp_hugetlb);
	unregister_kretprobe(&cxd_nl_krp_ksm);
	unregister_kretprobe(&cxd_nl_krp_pcache);
	cxd_nl_kretprobe_del(&cxd_nl_krp_mbind);
	cxd_nl_kretprobe_del(&cxd_nl_krp_mpol);
	unregister_kretprobe(&cxd_nl_krp_migalloc);
	unregister_kretprobe(&cxd_nl_krp_check);
	unregister_kretprobe(&cxd_nl_krp_alloc);
	unregister_kprobe(&cxd_nl_kp_new);
	unregister_kprobe(&cxd_nl_kp_hint);
	tracepoint_probe_unregister(cxd_nl_tp_newtask, cxd_nl_newtask, NULL);
	tracepoint_synchronize_unregister();
}

/*
 * Calls of the hooked functions that ran without their hook since the
 * hooks were registered (shared by all devices): a kretprobe that found no
 * free instance (more calls in flight than maxactive) or a probe hit while
 * another probe ran on the CPU. Each is an access, a huge page or a
 * collapse the model did not see. Context: any.
 */
static u64 cxd_nl_probes_missed(void)
{
	static struct kprobe *const kps[] = {
		&cxd_nl_kp_hint, &cxd_nl_kp_new, &cxd_nl_kp_dirty,
		&cxd_nl_kp_around, &cxd_nl_kp_anon, &cxd_nl_kp_migrate,
		&cxd_nl_kp_file,
	};
	static struct kretprobe *const krps[] = {
		&cxd_nl_krp_alloc, &cxd_nl_krp_check, &cxd_nl_krp_migalloc,
		&cxd_nl_krp_promote, &cxd_nl_krp_mpol, &cxd_nl_krp_mbind,
		&cxd_nl_krp_ksm, &cxd_nl_krp_hugetlb, &cxd_nl_krp_pcache,
		&cxd_nl_krp_remote_vm, &cxd_nl_krp_vm_rw, &cxd_nl_krp_mprot,
	};
	u64 n = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(kps); i++)
		n += READ_ONCE(kps[i]->nmissed);
	/*
	 * The promotion kretprobe shares its function with cxd_nl_kp_hint:
	 * the kernel merges the two, and a call that misses them counts in
	 * both kprobes' nmissed. Count it once.
	 */
	for (i = 0; i < ARRAY_SIZE(krps); i++) {
		n += READ_ONCE(krps[i]->nmissed);
		if (krps[i] != &cxd_nl_krp_promote)
			n += READ_ONCE(krps[i]->kp.nmissed);
	}
	return n;
}

/* ---------------------------------------------------------------- scan -- */

/*
 * A tracked mm whose resident set is at most node_scan_dense times the
 * device pages with a last-seen address (@ntracked) is scanned by walking
 * its page tables (cxd_nl_scan_ranges()), any other page by page
 * (cxd_nl_scan_pages()), which costs a VMA lookup and a walk from the PGD
 * per tracked page. Measured with redis-server bound to the node in a
 * QEMU icount guest (docs/numa-mode.md): about 0.85 us of guest
 * instructions per tracked page looked up against 0.06 us per PTE walked,
 * so the two cost the same at about 14 PTEs per tracked page.
 */
static unsigned int node_scan_dense = 16;
module_param(node_scan_dense, uint, 0644);
MODULE_PARM_DESC(node_scan_dense,
		 "a node-mode accessed-bit scan walks the page tables of a process whose resident set is at most this many times the device pages it tracks, and looks the device pages up one by one otherwise (default 16; 0: always one by one)");

/*
 * One pass's findings, moved to the model in batches (the PTE callback runs
 * under the PTE lock; the model's lock sleeps), and on CXD_NL_SCAN_REARM
 * kernels the accessed pages to make non-resident, which takes the PTE lock
 * itself. @vma is the VMA being walked, @resume where a walk stopped by a
 * full batch goes on.
 */
struct cxd_nl_scan {
	struct cxd_nodelat *nl;
	struct cxd_nl_pte_batch b;
	struct vm_area_struct *vma;
	unsigned long resume;
	unsigned int nt, nd, nr;
	u64 touched[CXD_NL_SCAN_BATCH];
	u64 dirtied[CXD_NL_SCAN_BATCH];
	struct {
		struct vm_area_struct *vma;
		unsigned long va;
		u64 page;
	} rearm[CXD_NL_SCAN_BATCH];
};

static bool cxd_nl_scan_full(const struct cxd_nl_scan *s)
{
	return s->nt == CXD_NL_SCAN_BATCH || s->nd == CXD_NL_SCAN_BATCH;
}

/*
 * Scan one PTE of @s->vma: if it maps a page of the device, resident, clear
 * and record its accessed and dirty bits. PTE lock held. Return: -EAGAIN
 * (@s->resume set) when a batch is full, else 0.
 */
static int cxd_nl_scan_pte(pte_t *ptep, unsigned long addr, void *data)
{
	struct cxd_nl_scan *s = data;
	struct cxd_nodelat *nl = s->nl;
	pte_t old = ptep_get(ptep), new;
	unsigned long pfn;
	u64 page;

	if (!pte_present(old) || pte_protnone(old))
		return 0;
	pfn = pte_pfn(old);
	if (pfn < nl->pfn_lo || pfn >= nl->pfn_hi ||
	    (!pte_young(old) && !pte_dirty(old)))
		return 0;
	page = pfn - nl->pfn_lo;
	old = ptep_modify_prot_start(s->vma, addr, ptep);
	new = pte_mkold(old);
	if (pte_dirty(old)) {
		new = cxd_pte_dirty_to_folio(new, pfn_to_page(pfn));
		s->dirtied[s->nd++] = page;
	}
	if (pte_young(old)) {
		s->touched[s->nt++] = page;
		if (CXD_NL_SCAN_REARM) {
			s->rearm[s->nr].vma = s->vma;
			s->rearm[s->nr].va = addr;
			s->rearm[s->nr++].page = page;
		}
	}
	ptep_modify_prot_commit(s->vma, addr, ptep, old, new);
	cxd_nl_pte_batch_changed(&s->b);
	if (cxd_nl_scan_full(s)) {
		s->resume = addr + PAGE_SIZE;
		return -EAGAIN;
	}
	return 0;
}

/*
 * Move @s's findings to the model and re-arm the accessed pages. The
 * mmap_lock of the mm they were found in is held (the re-arm entries'
 * VMAs are valid); no other lock.
 */
static void cxd_nl_scan_flush(struct cxd_nl_scan *s)
{
	struct cxd_live *live = s->nl->live;
	unsigned int i;
	bool d;

	for (i = 0; i < s->nr; i++)
		if (cxd_nl_make_nonresident(&s->b, s->rearm[i].vma,
					    s->rearm[i].va,
					    s->nl->pfn_lo + s->rearm[i].page,
					    &d) > 0)
			atomic64_inc(&s->nl->st.scan_rearmed);
	if (s->nt || s->nd) {
		cxd_model_lock(live);
		for (i = 0; i < s->nt; i++)
			cxd_cache_touch(&live->model.cache, s->touched[i]);
		for (i = 0; i < s->nd; i++)
			cxd_cache_set_dirty(&live->model.cache, s->dirtied[i]);
		live->scan_touched += s->nt;
		spin_unlock(&live->lock);
		atomic64_add(s->nt, &s->nl->st.scan_touched);
	}
	s->nt = 0;
	s->nd = 0;
	s->nr = 0;
}

/* Let others run; @s's findings go to the model first (its VMAs may go). */
static void cxd_nl_scan_resched(struct cxd_nl_scan *s, struct mm_struct *mm)
{
	cxd_nl_scan_flush(s);
	mmap_read_unlock(mm);
	cond_resched();
	mmap_read_lock(mm);
}

/*
 * Walk [@addr, @end) of @s->vma, inside one PTE table, with the scan's
 * callback. A full batch stops the walk; it goes to the model, and the walk
 * goes on once the table is checked again (the flush may sleep, and 6.6+
 * retracts file THP page tables and 7.x frees empty ones without the
 * mmap_lock held for write: a huge PMD could have replaced the table).
 */
static void cxd_nl_scan_walk(struct cxd_nl_scan *s, struct mm_struct *mm,
			     unsigned long addr, unsigned long end)
{
	for (;;) {
		s->resume = end;
		cxd_apply_to_existing_page_range(mm, addr, end - addr,
						 cxd_nl_scan_pte, s);
		if (cxd_nl_scan_full(s))
			cxd_nl_scan_flush(s);
		addr = s->resume;
		if (addr >= end || !cxd_nl_pte_table(mm, addr))
			return;
	}
}

/* Scan the tracked pages of @mm one by one, at their last-seen addresses. */
static void cxd_nl_scan_pages(struct cxd_nl_scan *s, struct mm_struct *mm)
{
	struct cxd_nodelat *nl = s->nl;
	u64 page;

	for (page = 0; page < nl->live->npages; page++) {
		unsigned long va;

		if (!READ_ONCE(nl->va[page]))
			continue;
		s->vma = cxd_nl_vma(nl, mm, page, &va);
		if (s->vma)
			cxd_nl_scan_walk(s, mm, va, va + PAGE_SIZE);
		if (!(page % 1024) && need_resched())
			cxd_nl_scan_resched(s, mm);
	}
	cxd_nl_scan_flush(s);
}

/*
 * Scan every PTE of @mm's accessible VMAs, one PTE table (a PMD's range) at
 * a time; ranges without a table (nothing mapped, or a huge PMD, which
 * apply_to_existing_page_range() would warn on and 7.x's fallback would
 * allocate around) are skipped, empty upper levels in one step.
 */
static void cxd_nl_scan_ranges(struct cxd_nl_scan *s, struct mm_struct *mm)
{
	struct vm_area_struct *vma;
	unsigned long addr = 0, next;
	bool table;

	while ((vma = find_vma(mm, addr))) {
		addr = max(addr, vma->vm_start);
		if (!vma_is_accessible(vma) ||
		    (vma->vm_flags & (VM_PFNMAP | VM_MIXEDMAP | VM_IO |
				      VM_HUGETLB))) {
			addr = vma->vm_end;
		} else {
			s->vma = vma;
			for (; addr < vma->vm_end; addr = next) {
				next = cxd_nl_table_span(mm, addr,
							 vma->vm_end, &table);
				if (table)
					cxd_nl_scan_walk(s, mm, addr, next);
				if (need_resched())
					break;
			}
			if (addr < vma->vm_end)
				addr = next;
		}
		/* the VMA may change meanwhile: the next is looked up again */
		if (need_resched())
			cxd_nl_scan_resched(s, mm);
	}
	cxd_nl_scan_flush(s);
}

/*
 * One accessed-bit pass over the tracked mms: an accessed page is reported
 * to the policy (cxd_cache_touch()), a dirty one marks its line dirty.
 * Where the kernel's page-table walk skips PTEs (cxd_scan_walk_works()),
 * only the page-by-page scan is used: it walks a single PTE at a time.
 */
static void cxd_nl_scan_pass(struct cxd_nodelat *nl)
{
	struct cxd_live *live = nl->live;
	struct mm_struct *mmbuf[CXD_NL_MMS_STACK];
	unsigned int j, nm, dense = READ_ONCE(node_scan_dense);
	u64 tracked = atomic_long_read(&nl->ntracked);
	struct mm_struct **mms;
	struct cxd_nl_scan *s;

	if (!cxd_scan_walk_works())
		dense = 0;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return;
	s->nl = nl;
	mms = cxd_nl_mms_get(nl, mmbuf, &nm);
	cxd_nl_pte_batch_init(&s->b);
	for (j = 0; j < nm; j++) {
		struct mm_struct *mm = mms[j];

		cxd_nl_pte_batch_lock(&s->b, mm, CXD_NL_SCAN_REARM ?
				      cxd_nl_nonres_map(nl, mm) : NULL);
		if (dense && get_mm_rss(mm) <= (u64)dense * tracked) {
			cxd_nl_scan_ranges(s, mm);
			atomic64_inc(&nl->st.scan_walks);
		} else {
			cxd_nl_scan_pages(s, mm);
			atomic64_inc(&nl->st.scan_lookups);
		}
		cxd_nl_pte_batch_unlock(&s->b, mm);
	}
	spin_lock(&live->lock);
	live->scan_passes++;
	spin_unlock(&live->lock);
	/* The accessed and dirty bits are set again only on a TLB fill. */
	cxd_nl_pte_batch_finish(&s->b, mms, nm);
	if (mms)
		cxd_nl_mms_put(mms, nm, mmbuf);
	kfree(s);
}

static void cxd_nl_scan_work(struct work_struct *work)
{
	struct cxd_nodelat *nl = container_of(to_delayed_work(work),
					      struct cxd_nodelat, scan_work);
	unsigned int ms = READ_ONCE(nl->live->scan_interval_ms);

	cxd_nl_mm_prune(nl);
	if (ms) {
		u64 t0 = ktime_get_ns();

		cxd_nl_scan_pass(nl);
		t0 = ktime_get_ns() - t0;
		spin_lock(&nl->live->lock);
		nl->live->scan_ns_total += t0;
		spin_unlock(&nl->live->lock);
	}
	if (!READ_ONCE(nl->stopping))
		queue_delayed_work(cxd_wq, &nl->scan_work,
				   msecs_to_jiffies(ms ? ms : CXD_NL_SCAN_IDLE_MS));
}

/* ----------------------------------------------------------------- API -- */

/**
 * cxd_nodelat_start() - apply the model to the memory of node-mode device @live.
 * @live:		powered node-mode device (its model is initialised).
 * @name:	device name, for log lines; must outlive the state.
 * @start:	first byte of the device's range.
 * @size:	bytes.
 * @scan_interval_ms: accessed-bit scan period, ms (0: off); follows
 *		@live->scan_interval_ms from then on (a live attribute).
 * @out:	receives the new state.
 *
 * Context: process; caller holds cxd_cfg_mutex.
 * Return: 0; -ENOMEM; -EOPNOTSUPP (one log line) when the hooks cannot be
 * attached on this kernel.
 */
int cxd_nodelat_start(struct cxd_live *live, const char *name, u64 start,
		      u64 size, unsigned int scan_interval_ms,
		      struct cxd_nodelat **out)
{
	struct cxd_nodelat *nl;
	int ret;

	nl = kzalloc(sizeof(*nl), GFP_KERNEL);
	if (!nl)
		return -ENOMEM;
	nl->va = kvcalloc(size >> PAGE_SHIFT, sizeof(*nl->va), GFP_KERNEL);
	/* kvcalloc: 32 KiB per bitmap and GiB of device */
	nl->unmapping = kvcalloc(BITS_TO_LONGS(size >> PAGE_SHIFT),
				 sizeof(long), GFP_KERNEL);
	nl->unmap_dirty = kvcalloc(BITS_TO_LONGS(size >> PAGE_SHIFT),
				   sizeof(long), GFP_KERNEL);
	nl->arrived = kvcalloc(BITS_TO_LONGS(size >> PAGE_SHIFT),
			       sizeof(long), GFP_KERNEL);
	nl->departed = kvcalloc(BITS_TO_LONGS(size >> PAGE_SHIFT),
				sizeof(long), GFP_KERNEL);
	nl->migrated = kvcalloc(BITS_TO_LONGS(size >> PAGE_SHIFT),
				sizeof(long), GFP_KERNEL);
	nl->protnone = kvcalloc(BITS_TO_LONGS(size >> PAGE_SHIFT),
				sizeof(long), GFP_KERNEL);
	if (!nl->va || !nl->unmapping || !nl->unmap_dirty || !nl->arrived ||
	    !nl->departed || !nl->migrated || !nl->protnone) {
		kvfree(nl->va);
		kvfree(nl->unmapping);
		kvfree(nl->unmap_dirty);
		kvfree(nl->arrived);
		kvfree(nl->departed);
		kvfree(nl->migrated);
		kvfree(nl->protnone);
		kfree(nl);
		return -ENOMEM;
	}
	kref_init(&nl->ref);
	nl->live = live;
	get_device(&live->dev);
	nl->name = name;
	nl->pfn_lo = PHYS_PFN(start);
	nl->pfn_hi = PHYS_PFN(start + size);
	spin_lock_init(&nl->mm_lock);
	INIT_LIST_HEAD(&nl->mms);
	INIT_WORK(&nl->drain_work, cxd_nl_drain_work);
	INIT_WORK(&nl->arrive_work, cxd_nl_arrive_work);
	INIT_DELAYED_WORK(&nl->scan_work, cxd_nl_scan_work);

	ret = cxd_nl_hooks_get(name);
	if (ret) {
		cxd_nl_put(nl);
		return ret;
	}
	cxd_fentry_get();
	spin_lock(&cxd_nl_devs_lock);
	list_add_tail_rcu(&nl->list, &cxd_nl_devs);
	spin_unlock(&cxd_nl_devs_lock);
	WRITE_ONCE(live->scan_interval_ms, scan_interval_ms);
	queue_delayed_work(cxd_wq, &nl->scan_work, 0);
	*out = nl;
	return 0;
}

/**
 * cxd_nodelat_stop() - stop applying the model; undo cxd_nodelat_start().
 * @nl:	state; may live on until queued task_works have run (they see it
 *	stopping and do nothing).
 *
 * The device's memory is offline by now (power-off refuses otherwise), so no
 * PTE of any process maps it and no PROT_NONE entry of ours survives. Waits
 * for the accesses that saw the device running (an SRCU grace period: each
 * may wait out its modeled time) and for the drain, arrival and scan works,
 * so nothing walks the device's struct pages once this returns and the
 * memory can be removed.
 * Context: process, sleeps; caller holds cxd_cfg_mutex (no access takes it).
 */
void cxd_nodelat_stop(struct cxd_nodelat *nl)
{
	WRITE_ONCE(nl->stopping, true);
	spin_lock(&cxd_nl_devs_lock);
	list_del_rcu(&nl->list);
	spin_unlock(&cxd_nl_devs_lock);
	cxd_nl_hooks_put();
	synchronize_rcu();	/* no hook sees @nl any more */
	/*
	 * Accesses that saw the device running end before its memory goes:
	 * they walk its struct pages and page tables, and may queue the drain
	 * (cancelled below).
	 */
	synchronize_srcu(&cxd_nl_srcu);
	cancel_delayed_work_sync(&nl->scan_work);
	if (cancel_work_sync(&nl->drain_work))
		cxd_nl_put(nl);	/* the cancelled drain's reference */
	if (cancel_work_sync(&nl->arrive_work))
		cxd_nl_put(nl);	/* the cancelled arrival work's */
	cxd_nl_put(nl);
}

/**
 * cxd_nodelat_get_stats() - counters of node-mode latency @nl.
 * @nl:	state, or NULL (node_latency off): all zero.
 * @st:	filled in (see struct cxd_nodelat_stats).
 * Context: any.
 */
void cxd_nodelat_get_stats(struct cxd_nodelat *nl,
			   struct cxd_nodelat_stats *st)
{
	unsigned long flags;

	memset(st, 0, sizeof(*st));
	if (!nl)
		return;
	st->thp_untracked_pages = atomic64_read(&nl->st.thp_pages);
	st->hugetlb_untracked_pages = atomic64_read(&nl->st.hugetlb_pages);
	st->thp_refused_pages = atomic64_read(&nl->st.thp_refused);
	st->thp_collapse_refused = atomic64_read(&nl->st.collapse_refused);
	st->probes_missed = cxd_nl_probes_missed();
	st->kernel_accesses = atomic64_read(&nl->st.kernel_accesses);
	st->events_dropped = atomic64_read(&nl->st.dropped);
	st->evicted_ptes = atomic64_read(&nl->st.evict_ptes);
	st->evictions_unmapped = atomic64_read(&nl->st.evict_unmapped);
	st->evictions_moved = atomic64_read(&nl->st.evict_moved);
	st->fork_rearmed = atomic64_read(&nl->st.fork_rearmed);
	st->mprotect_rearmed = atomic64_read(&nl->st.mprotect_rearmed);
	st->evictions_uncovered = atomic64_read(&nl->st.evict_uncovered);
	st->scan_rearmed = atomic64_read(&nl->st.scan_rearmed);
	st->scan_walks = atomic64_read(&nl->st.scan_walks);
	st->scan_lookups = atomic64_read(&nl->st.scan_lookups);
	st->waited_accesses = atomic64_read(&nl->st.waited);
	st->waited_ns_total = atomic64_read(&nl->st.waited_ns);
	st->late_writebacks = atomic64_read(&nl->st.late_writebacks);
	st->first_touches = atomic64_read(&nl->st.first_touches);
	st->hint_faults = atomic64_read(&nl->st.hint_faults);
	st->file_maps = atomic64_read(&nl->st.file_maps);
	st->faultaround_limited = atomic64_read(&nl->st.around_limited);
	st->faultaround_pages = atomic64_read(&nl->st.around_pages);
	st->evicted_unmaps = atomic64_read(&nl->st.evict_unmaps);
	st->arrivals = atomic64_read(&nl->st.arrivals);
	st->departures = atomic64_read(&nl->st.departures);
	st->departures_discarded = atomic64_read(&nl->st.departures_discarded);
	st->anon_maps = atomic64_read(&nl->st.anon_maps);
	st->remote_accesses = atomic64_read(&nl->st.remote);
	st->promotions_refused = atomic64_read(&nl->st.promotions_refused);
	st->pending = atomic_read(&nl->pending);
	spin_lock_irqsave(&nl->mm_lock, flags);
	st->tracked_mms = nl->nmms;
	spin_unlock_irqrestore(&nl->mm_lock, flags);
}
#else /* !CXD_NODE_LATENCY */

int cxd_nodelat_start(struct cxd_live *live, const char *name, u64 start,
		      u64 size, unsigned int scan_interval_ms,
		      struct cxd_nodelat **out)
{
	pr_warn(CXD_NAME ": %s: power: node_latency is not supported on this kernel\n",
		name);
	return -EOPNOTSUPP;
}

void cxd_nodelat_stop(struct cxd_nodelat *nl)
{
}

void cxd_nodelat_get_stats(struct cxd_nodelat *nl,
			   struct cxd_nodelat_stats *st)
{
	memset(st, 0, sizeof(*st));
}

#endif /* CXD_NODE_LATENCY */
