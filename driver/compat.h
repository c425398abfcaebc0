/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt kernel-version compatibility: every difference between the kernels
 * cxdvirt builds on (Debian 6.1, 6.12, 7.x) lives here, one shim each, guarded
 * by the kernel version that changed the interface.
 */
#ifndef CXDVIRT_COMPAT_H
#define CXDVIRT_COMPAT_H

#include <linux/version.h>
#include <linux/mm.h>
#include <linux/device.h>
#include <linux/memregion.h>
#include <linux/memory-tiers.h>
#include <linux/notifier.h>
#include <linux/smp.h>
#include <linux/sizes.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <asm/e820/api.h>
#include <asm/tlbflush.h>

/*
 * 6.3 made vma->vm_flags const and added vm_flags_set()
 * (commit bc292ab00f6c "mm: introduce vma->vm_flags wrapper functions").
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void vm_flags_set(struct vm_area_struct *vma, unsigned long flags)
{
	vma->vm_flags |= flags;
}
#endif

/*
 * Drop the lock a fault runs under before returning VM_FAULT_RETRY. 6.5
 * added release_fault_lock() (per-VMA locks reached more faults: the fault
 * may hold the VMA's lock instead of mmap_lock, FAULT_FLAG_VMA_LOCK);
 * before, a ->fault of a file mapping always runs under mmap_read_lock.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
static inline void cxd_release_fault_lock(struct vm_fault *vmf)
{
	mmap_read_unlock(vmf->vma->vm_mm);
}
#else
static inline void cxd_release_fault_lock(struct vm_fault *vmf)
{
	release_fault_lock(vmf);
}
#endif

/*
 * 6.4 dropped the owner argument of class_create()
 * (commit 1aaba11da9aa "driver core: class: remove module * from
 * class_create()").
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define cxd_class_create(name)	class_create(THIS_MODULE, name)
#else
#define cxd_class_create(name)	class_create(name)
#endif

/*
 * 6.2 made struct class::devnode take a const struct device
 * (commit ff62b8e6588f "driver core: make struct class.devnode() take a
 * const *").
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define CXD_DEVNODE_CONST
#else
#define CXD_DEVNODE_CONST const
#endif

/*
 * Declare that mmap() accepts MAP_SHARED_VALIDATE | MAP_SYNC, as
 * device-dax does: file_operations.mmap_supported_flags up to 6.10, the
 * FOP_MMAP_SYNC bit of file_operations.fop_flags from 6.11 (6.12 and 7.2
 * checked; the switch release is assumed).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
#define CXD_FOPS_MAP_SYNC	.mmap_supported_flags = MAP_SYNC
#else
#define CXD_FOPS_MAP_SYNC	.fop_flags = FOP_MMAP_SYNC
#endif

/*
 * Read and clear a PTE's hardware accessed bit. ptep_test_and_clear_young()
 * is not exported to modules (any version); on x86 it is an atomic bit clear
 * on the PTE, done here the same way. Caller holds the PTE lock.
 */
static inline bool cxd_pte_test_and_clear_young(pte_t *ptep)
{
	if (!pte_present(*ptep) || !pte_young(*ptep))
		return false;
	return test_and_clear_bit(_PAGE_BIT_ACCESSED, (unsigned long *)&ptep->pte);
}

/*
 * A dirty PTE of @page is being rewritten clean (between
 * ptep_modify_prot_start() and _commit()): the folio keeps the write, as
 * try_to_unmap() does. Return: @new without its dirty bit. Caller holds
 * the PTE lock.
 */
static inline pte_t cxd_pte_dirty_to_folio(pte_t new, struct page *page)
{
	folio_mark_dirty(page_folio(page));
	return pte_mkclean(new);
}

/*
 * 6.3 added struct memregion_info::range, and dax_hmem's probe takes the
 * range from it instead of the platform device's MEM resource
 * ("dax/hmem: Convey the dax range via memregion_info()"). Node mode fills
 * both, so one platform device works on 6.1 and on newer kernels.
 */
static inline void cxd_memregion_info_set_range(struct memregion_info *mri,
						u64 start, u64 end)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	mri->range.start = start;
	mri->range.end = end;
#endif
}

/*
 * 6.6 renamed destroy_memory_type() to put_memory_type() ("memory tier:
 * rename destroy_memory_type() to put_memory_type()"); same function, it
 * drops a reference.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
#define cxd_put_memory_type(t)	destroy_memory_type(t)
#else
#define cxd_put_memory_type(t)	put_memory_type(t)
#endif

/*
 * 6.7 added abstract-distance algorithms ("memory tiering: add abstract
 * distance calculation algorithms management"): kmem asks them for a node's
 * abstract distance (mt_calc_adistance()), builds the node's memory type
 * itself and, on remove, clears the node's type whoever set it
 * (clear_node_memory_type(node, NULL)). Up to 6.6, kmem gives a node its
 * default dax memory type unless one is set first, and on remove clears only
 * its own. CXD_MT_ALGORITHMS says which of the two this kernel does; before
 * 6.7 the registration functions are stubs, so that hotplug/tier.c builds
 * the same on every kernel.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
#define CXD_MT_ALGORITHMS	true
#else
#define CXD_MT_ALGORITHMS	false

static inline int register_mt_adistance_algorithm(struct notifier_block *nb)
{
	return 0;
}

static inline int unregister_mt_adistance_algorithm(struct notifier_block *nb)
{
	return 0;
}
#endif

/*
 * Modules can no longer link apply_to_existing_page_range() on 7.x: Debian
 * trixie's 6.12 exports it (EXPORT_SYMBOL_GPL), sid's 7.2 does not (the
 * "mm: Unexport apply_to_existing_page_range()" change, "no modular in-tree
 * users"). The release in between that dropped the export is not pinned
 * down here, so every kernel after 6.12 takes the fallback, which always
 * links: apply_to_page_range(), exported on all of them. It also allocates
 * the missing page tables of the range and calls @fn for pte_none() entries
 * too, so @fn must skip non-present PTEs (cxd_pte_test_and_clear_young()
 * does).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#define cxd_apply_to_existing_page_range(mm, addr, size, fn, data) \
	apply_to_existing_page_range(mm, addr, size, fn, data)
#else
#define cxd_apply_to_existing_page_range(mm, addr, size, fn, data) \
	apply_to_page_range(mm, addr, size, fn, data)
#endif

/*
 * 6.16 made the callbacks and the group list of binary sysfs attributes take
 * a const struct bin_attribute ("sysfs: treewide: switch back to
 * bin_attribute::read()/write()"); 6.13 to 6.15 kept the mutable ones under
 * the old names, so the switch is at 6.16.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 16, 0)
#define CXD_BIN_ATTR_CONST
#else
#define CXD_BIN_ATTR_CONST const
#endif

/*
 * cxd_flush_tlb_all_cpus() - flush every CPU's TLB, so that pages whose
 * accessed bit the scan cleared set it again on their next access (x86 sets
 * it only when it fills a TLB entry). CXD_CAN_FLUSH_TLB says whether a
 * module can; where it cannot, this does nothing.
 * __flush_tlb_all() is exported to modules on 6.1 and 6.12; sid's 7.2
 * exports it to the KVM modules only (EXPORT_SYMBOL_FOR_MODULES). The
 * release that restricted it is not pinned down here: 7.0 is assumed, and a
 * kernel between that does restrict it fails at modpost, not silently.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 0, 0)
static inline void cxd_flush_tlb_local(void *unused)
{
	__flush_tlb_all();
}

#define CXD_CAN_FLUSH_TLB	true

static inline void cxd_flush_tlb_all_cpus(void)
{
	on_each_cpu(cxd_flush_tlb_local, NULL, 1);
}

/*
 * cxd_tlb_batch_add() / cxd_tlb_batch_flush() - flush the TLB entries of
 * PTEs changed in several address spaces on the CPUs that may hold them,
 * not on every CPU. This is the kernel's own batched-unmap protocol
 * (x86 arch_tlbbatch_add_pending() and arch_tlbbatch_flush(), used by
 * reclaim), with pieces a module can use on 6.1 and 6.12:
 *
 * - after changing an mm's PTEs, bump its TLB generation and then read its
 *   mm_cpumask. asm/tlbflush.h keeps inc_mm_tlb_gen() from modules (it is
 *   inside #ifndef MODULE), but the generation is mm->context.tlb_gen in
 *   mm_context_t (asm/mmu.h, visible to modules), and the helper is one
 *   fully ordered atomic64_inc_return() on it: cxd_tlb_batch_add() does
 *   that. A kernel that moves the counter fails to build this file.
 *   A CPU that switches to the mm sets its bit in mm_cpumask (a locked op)
 *   before it reads the generation: either it is in the mask we read, or
 *   it sees the new generation and flushes the mm's PCID on its own in
 *   switch_mm_irqs_off(). CPUs that ran the mm earlier and keep its
 *   PCID-tagged entries are in the second case, which is what the
 *   generation is for.
 * - flush every CPU of the union with __flush_tlb_all() (exported; drops
 *   all PCIDs and global entries: more than needed, never less).
 *
 * With one CPU running the mm, as for a single-threaded program evicting
 * its own pages in its task_work, no other CPU is interrupted. Callers
 * keep the mm's flush-pending count raised from the PTE change to the flush
 * (x86 pte_accessible()). A batch of one mm, the common case, flushes that
 * mm's mask as read at the flush (as flush_tlb_mm_range() does; a CPU that
 * joined since the generation bump sees the new generation) and allocates
 * nothing; from a second mm on the union is kept in a mask allocated then,
 * and if that allocation fails the flush falls back to every CPU. @b must
 * come from cxd_tlb_batch_init(), and each mm added must stay alive
 * (mmget) until the flush.
 * Context: process (the mask allocation may sleep); flush waits for the
 * other CPUs.
 */
struct cxd_tlb_batch {
	struct mm_struct *mm;	/* the first mm added */
	cpumask_var_t mask;	/* union of the masks, from a second mm on */
	bool ok;	/* @mask allocated */
	bool all;	/* @mask could not be allocated: flush every CPU */
};

static inline void cxd_tlb_batch_init(struct cxd_tlb_batch *b)
{
	b->mm = NULL;
	b->ok = false;
	b->all = false;
}

static inline void cxd_tlb_batch_add(struct cxd_tlb_batch *b,
				     struct mm_struct *mm)
{
	atomic64_inc_return(&mm->context.tlb_gen);	/* inc_mm_tlb_gen() */
	if (!b->mm) {
		b->mm = mm;
		return;
	}
	if ((mm == b->mm && !b->ok) || b->all)
		return;
	if (!b->ok) {
		b->ok = zalloc_cpumask_var(&b->mask, GFP_KERNEL);
		if (!b->ok) {
			b->all = true;
			return;
		}
		cpumask_copy(b->mask, mm_cpumask(b->mm));
	}
	cpumask_or(b->mask, b->mask, mm_cpumask(mm));
}

static inline void cxd_tlb_batch_flush(struct cxd_tlb_batch *b)
{
	if (!b->mm)
		return;
	if (b->all) {
		cxd_flush_tlb_all_cpus();
	} else if (b->ok) {
		on_each_cpu_mask(b->mask, cxd_flush_tlb_local, NULL, true);
		free_cpumask_var(b->mask);
	} else {
		/* as flush_tlb_mm_range() does: the mm's live mask */
		on_each_cpu_mask(mm_cpumask(b->mm), cxd_flush_tlb_local, NULL,
				 true);
	}
}
#else
#define CXD_CAN_FLUSH_TLB	false

static inline void cxd_flush_tlb_all_cpus(void)
{
}
#endif

/*
 * The memory map the firmware handed over, before memmap= edited the
 * kernel's copy: is a phys_addr range RAM there (e820 type 1, "System RAM")?
 * A memmap=SIZE$ADDR range and a range the firmware reserved (stolen
 * graphics memory, QEMU's 0xfd00000000-0xffffffffff) look the same in
 * /proc/iomem: Reserved, not busy. Only the firmware's map tells them apart.
 *
 * - Up to 6.12: e820__mapped_raw_any(start, end, type), EXPORT_SYMBOL_GPL
 *   (Debian 6.1.0-57 and 6.12.117 Module.symvers), reads
 *   e820_table_firmware, copied before early parameters such as memmap= are
 *   parsed. It answers "does any part of [start, end) have this type", so
 *   the whole range is checked against every non-RAM type the kernel names
 *   and each page for some RAM: a hole of a page or more, or a page the
 *   firmware gave another type, is found. A hole or a type the kernel does
 *   not name smaller than a page, inside a page that is otherwise RAM, is
 *   not; firmware does not make such maps.
 * - 7.x: sid's 7.2 exports it to the KVM modules only (EXPORT_SYMBOL_FOR_KVM,
 *   "module:kvm,kvm-amd,kvm-intel" in Module.symvers). The firmware's map is
 *   read instead where /sys/firmware/memmap shows it (CONFIG_FIRMWARE_MEMMAP,
 *   on in Debian's configs): a kset named "memmap" under firmware_kobj,
 *   built at boot from e820_table_kexec, which is the firmware's map plus
 *   the kernel's own reservations of RAM, without memmap= edits (7.2
 *   arch/x86/kernel/e820.c; drivers/firmware/memmap.c). Each entry is a
 *   kobject with the attributes start, end (inclusive) and type, read
 *   through the entry's own sysfs_ops, as a read of the sysfs file would,
 *   under the kset's list_lock (entries leave the list under it; their
 *   show() only formats numbers). The release that restricted the export is
 *   not pinned down here: 7.0 is assumed, and a kernel between that does
 *   restrict it fails at modpost, not silently.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 0, 0)
/**
 * cxd_firmware_ram() - is every page of [@start, @end) RAM in the memory map
 * the firmware handed over, whatever memmap= made of it since?
 * @start:	first byte (physical address).
 * @end:	first byte after the range.
 *
 * Context: process; may sleep (one table lookup per 4 KiB page, with a
 * reschedule point every 2 MiB).
 * Return: 1 if it is, 0 if not. Never negative here.
 */
static inline int cxd_firmware_ram(u64 start, u64 end)
{
	static const enum e820_type other[] = {
		E820_TYPE_RESERVED, E820_TYPE_ACPI, E820_TYPE_NVS,
		E820_TYPE_UNUSABLE, E820_TYPE_PMEM, E820_TYPE_PRAM,
		E820_TYPE_SOFT_RESERVED,
	};
	unsigned int i;
	u64 p;

	for (i = 0; i < ARRAY_SIZE(other); i++)
		if (e820__mapped_raw_any(start, end, other[i]))
			return 0;
	for (p = start; p < end; p += PAGE_SIZE) {
		if (!e820__mapped_raw_any(p, min(p + PAGE_SIZE, end),
					  E820_TYPE_RAM))
			return 0;
		if (!(p & (SZ_2M - 1)))
			cond_resched();
	}
	return 1;
}
#else
/*
 * Show attribute @name of firmware map entry @k into @buf (PAGE_SIZE
 * bytes). Caller holds the map kset's list_lock. Return: whether it did.
 */
static inline bool cxd_fw_entry_show(struct kobject *k, const char *name,
				     char *buf)
{
	const struct kobj_type *t = k->ktype;
	const struct attribute_group **g;
	struct attribute **a;

	if (!t || !t->sysfs_ops || !t->sysfs_ops->show || !t->default_groups)
		return false;
	for (g = t->default_groups; *g; g++)
		for (a = (*g)->attrs; a && *a; a++)
			if (!strcmp((*a)->name, name))
				return t->sysfs_ops->show(k, *a, buf) > 0;
	return false;
}

/**
 * cxd_firmware_ram() - is every byte of [@start, @end) RAM in the memory map
 * the firmware handed over, whatever memmap= made of it since?
 * @start:	first byte (physical address).
 * @end:	first byte after the range.
 *
 * Context: process; may sleep (allocates a page, takes kernfs's lock); the
 * walk itself runs under the map kset's list_lock, one pass per entry
 * joined at most.
 * Return: 1 if it is, 0 if not; -ENOENT if this kernel shows no firmware
 * memory map (CONFIG_FIRMWARE_MEMMAP off), -ENOMEM.
 */
static inline int cxd_firmware_ram(u64 start, u64 end)
{
	struct kernfs_node *kn;
	struct kobject *k;
	struct kset *set;
	u64 next = start, s, e;
	bool moved = true;
	char *buf;

	buf = (char *)get_zeroed_page(GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	kn = kernfs_find_and_get(firmware_kobj->sd, "memmap");
	if (!kn || kernfs_type(kn) != KERNFS_DIR || !kn->priv) {
		kernfs_put(kn);
		free_page((unsigned long)buf);
		return -ENOENT;
	}
	set = to_kset(kn->priv);
	/* Join the RAM entries that continue the covered part until none does. */
	while (next < end && moved) {
		moved = false;
		spin_lock(&set->list_lock);
		list_for_each_entry(k, &set->list, entry) {
			if (!cxd_fw_entry_show(k, "type", buf) ||
			    strcmp(buf, "System RAM\n"))
				continue;
			if (!cxd_fw_entry_show(k, "start", buf) ||
			    kstrtou64(buf, 0, &s) ||
			    !cxd_fw_entry_show(k, "end", buf) ||
			    kstrtou64(buf, 0, &e))
				continue;
			if (s <= next && next <= e) {
				next = e == U64_MAX ? end : e + 1;
				moved = true;
			}
		}
		spin_unlock(&set->list_lock);
	}
	kernfs_put(kn);
	free_page((unsigned long)buf);
	return next >= end;
}
#endif

/*
 * Node-mode latency (hotplug/nodelat.c): the hooks it needs and where their
 * arguments are. CXD_NODE_LATENCY says whether this kernel is supported.
 *
 * - The NUMA-hinting fault: do_numa_page() is inlined in Debian's builds; its
 *   out-of-line callee is probed at entry: 6.1 numa_migrate_prep(page, vma,
 *   addr, page_nid, flags); from 6.12 (renamed in the 6.12 cycle)
 *   numa_migrate_check(folio, vmf, addr, flags, writable, last_cpupid). Both
 *   run with the PTE lock held, for every hinting fault, before any
 *   migration decision.
 * - A new anonymous page being mapped (the first touch): 6.1
 *   page_add_new_anon_rmap(page, vma, address); 6.12
 *   folio_add_new_anon_rmap(folio, vma, address, flags). PTE lock held.
 * - A file or shmem page being mapped by a fault, fault-around included
 *   (the "read fault" and "shared fault" paths; a write fault of a private
 *   mapping maps a new anonymous copy, seen by the hook above): 6.1
 *   do_set_pte(vmf, page, addr); 6.12 set_pte_range(vmf, folio, page, nr,
 *   addr). PTE lock held.
 * - Eviction makes a PTE PROT_NONE the way change_prot_numa() does: 6.1
 *   keeps the write bit as its "saved write" (x86's pte_mk_savedwrite() is
 *   pte_mkwrite(), and 6.1's do_numa_page() restores writability from it);
 *   from 6.3 do_numa_page() recomputes writability, so the bit is dropped.
 *   Then the CPUs that ran the changed address spaces flush their TLBs
 *   (cxd_tlb_batch_*() above; __flush_tlb_all, exported up to 6.12).
 *   7.2 exports neither apply_to_existing_page_range() nor
 *   __flush_tlb_all() to modules: there eviction makes the page
 *   device-exclusive instead (CXD_NL_EXCLUSIVE, "Node latency's
 *   kernel-specific half" below).
 *
 * Only the three series whose sources the argument layouts were checked
 * against are enabled: 6.1.x, 6.12.x and 7.2.x (Debian sid's 7.2.13: the
 * probed prototypes are 6.12's but for __thp_vma_allowable_orders(), which
 * takes an enum tva_type). 6.2-6.11, 6.13-7.1 and 7.3 on were not checked (a
 * changed probe prototype would oops in every fault it probes). On all of
 * those, node_latency stays off and writing "on" fails with EOPNOTSUPP.
 */
#include <linux/kprobes.h>
#include <linux/pgtable.h>
#include <linux/mm_inline.h>

/*
 * pte_modify(old, PAGE_NONE) without pte_modify(): on x86 its change mask
 * includes _PAGE_CC, i.e. cc_mask, which is not exported to modules. Keeps
 * what pte_modify() keeps (pfn, caching, accessed, dirty, soft-dirty,
 * uffd-wp and the encryption bit, all outside the flags cleared here),
 * drops present/user/write/NX, sets PROTNONE and accessed as PAGE_NONE does,
 * then inverts the pfn of the now non-present entry as x86's L1TF
 * mitigation requires (flip_protnone_guard(), as in pte_modify()). @keep:
 * flags of @old to keep (6.1's saved write bit).
 */
static inline pte_t __cxd_pte_mkprotnone(pte_t old, pteval_t keep)
{
	pteval_t v = pte_val(old), n;

	n = v & ~(_PAGE_PRESENT | _PAGE_RW | _PAGE_USER | _PAGE_NX |
		  _PAGE_GLOBAL);
	n |= (v & keep) | _PAGE_PROTNONE | _PAGE_ACCESSED;
	n = flip_protnone_guard(v, n, PTE_PFN_MASK);
	return __pte(n);
}

struct cxd_nl_hook_args {
	unsigned long pfn;
	struct vm_area_struct *vma;	/* NULL: see @mm */
	struct mm_struct *mm;	/* the address space, when @vma is NULL */
	unsigned long addr;
	bool write;		/* known to be a write access */
	bool large;		/* a THP or other large folio */
};

/* A file or shmem page range being mapped by a fault (CXD_NL_FILE_SYM). */
struct cxd_nl_file_args {
	struct vm_fault *vmf;
	unsigned long pfn;	/* first page */
	unsigned int nr;	/* pages, consecutive pfns and addresses */
	unsigned long addr;	/* user address of the first */
};

/*
 * filemap_map_pages(vmf, start_pgoff, end_pgoff), the ->map_pages of
 * shmem, ramfs and most disk file systems (fault-around), on both series:
 * cut its range to the faulting page, from a kprobe at its entry (x86-64
 * passes the two offsets in rsi and rdx; a kprobe's changes to the
 * registers take effect, on the int3 and the ftrace paths alike).
 */
#define CXD_NL_AROUND_SYM	"filemap_map_pages"

static inline void cxd_nl_around_limit(struct pt_regs *regs, pgoff_t pgoff)
{
	regs->si = pgoff;
	regs->dx = pgoff;
}

/*
 * PTEs mapping a small folio. folio_mapcount() is out of line and not
 * exported on 6.1, inline from 6.3; for a small folio both read this.
 */
static inline int cxd_small_folio_mapcount(struct folio *folio)
{
	return atomic_read(&folio->_mapcount) + 1;
}

/* folio_mark_dirty(folio): a zap moving a PTE's dirty bit to a file folio */
#define CXD_NL_DIRTY_SYM	"folio_mark_dirty"

/*
 * folio_migrate_flags(newfolio, folio): every migration (mbind, move_pages,
 * migrate_pages, compaction, demotion, NUMA-balancing promotion, memory
 * offline) calls it once per folio after copying the data, both folios
 * locked; exported and out of line on both series.
 */
#define CXD_NL_MIGRATE_SYM	"folio_migrate_flags"

/*
 * alloc_migration_target(src, private): the target of demotion, move_pages
 * and migrate_pages on both series (6.1: struct page *, 6.12: struct
 * folio *, in and out).
 */
#define CXD_NL_MIGALLOC_SYM	"alloc_migration_target"

/*
 * Remote reads of another process's memory on 6.1 and 6.12: GUP follows a
 * PROT_NONE (NUMA-hinting) PTE without a fault when the caller does not
 * honor hinting faults: 6.1's FOLL_FORCE (/proc/PID/mem, ptrace), and on
 * 6.12 every remote GUP that does not ask for FOLL_HONOR_NUMA_FAULT
 * (access_remote_vm() and process_vm_readv() do not). The hint probe never
 * sees those reads, so the two remote paths are probed on return, when
 * the bytes they read are known, and the pages of the range still
 * PROT_NONE are charged to the reader (hotplug/nodelat.c, "remote reads"):
 *
 * - __access_remote_vm(mm, addr, buf, len, gup_flags): /proc/PID/mem
 *   (mem_rw(), one call per page), ptrace's PEEKDATA and /proc/PID/cmdline
 *   and environ; out of line on both series, global on 6.1, static on 6.12
 *   (BTF lists it on both). Return: bytes accessed.
 * - process_vm_rw(pid, lvec, liovcnt, rvec, riovcnt, flags, vm_write):
 *   both process_vm_readv() and process_vm_writev() (process_vm_rw_core()
 *   is inlined into it on both); the seventh argument is on the stack.
 *   Return: bytes copied. @rvec is the caller's array of struct iovec (a
 *   compat task's struct compat_iovec: not followed).
 *
 * 7.2's non-resident entries are device-exclusive: a remote GUP faults on
 * them and the MMU notifier sees it, so nothing is probed there.
 */
#define CXD_NL_REMOTE_PROTOS_6X						\
	"int __access_remote_vm(struct mm_struct *mm, long unsigned int addr, void *buf, int len, unsigned int gup_flags)", \
	"ssize_t process_vm_rw(pid_t pid, const struct iovec *lvec, long unsigned int liovcnt, const struct iovec *rvec, long unsigned int riovcnt, long unsigned int flags, int vm_write)",

/* __access_remote_vm()'s (mm, addr) and gup_flags */
static inline void cxd_nl_remote_vm_args(struct pt_regs *regs,
					 struct mm_struct **mm,
					 unsigned long *addr,
					 unsigned int *gup_flags)
{
	*mm = (struct mm_struct *)regs_get_kernel_argument(regs, 0);
	*addr = regs_get_kernel_argument(regs, 1);
	*gup_flags = (unsigned int)regs_get_kernel_argument(regs, 4);
}

/* process_vm_rw()'s pid, rvec, riovcnt and vm_write */
static inline void cxd_nl_vm_rw_args(struct pt_regs *regs, pid_t *pid,
				     const struct iovec __user **rvec,
				     unsigned long *riovcnt, bool *write)
{
	*pid = (pid_t)regs_get_kernel_argument(regs, 0);
	*rvec = (const struct iovec __user *)regs_get_kernel_argument(regs, 3);
	*riovcnt = regs_get_kernel_argument(regs, 4);
	*write = (int)regs_get_kernel_argument(regs, 6);
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define CXD_NODE_LATENCY	1
#define CXD_NL_EXCLUSIVE	0
#define CXD_NL_REMOTE_VM_SYM	"__access_remote_vm"
#define CXD_NL_VM_RW_SYM	"process_vm_rw"
#define CXD_NL_REMOTE_PROTOS	CXD_NL_REMOTE_PROTOS_6X
#define CXD_NL_MPROT_SYM	"change_protection"
#define CXD_NL_MPROT_FLAGS_ARG	5
#define CXD_NL_HINT_SYM		"numa_migrate_prep"
#define CXD_NL_NEW_SYM		"page_add_new_anon_rmap"
/* vma_alloc_folio(gfp, order, vma, addr, hugepage) */
#define CXD_NL_THP_ALLOC_SYM	"vma_alloc_folio"
/* none: shmem and mbind's migration target allocate through vma_alloc_folio() */
#define CXD_NL_THP_MPOL_SYM	NULL
#define CXD_NL_MBIND_TARGET_SYM	NULL
/* hugepage_vma_check(vma, vm_flags, smaps, in_pf, enforce_sysfs) */
#define CXD_NL_THP_CHECK_SYM	"hugepage_vma_check"
/* hugetlb's allocation of a pool page for a mapping (a struct page * here) */
#define CXD_NL_HUGETLB_SYM	"alloc_huge_page"
/*
 * filemap_alloc_folio(gfp, order): the page cache's allocator (readahead,
 * __filemap_get_folio()); large folios here for file systems that have
 * them (XFS; not ext4 before 6.16)
 */
#define CXD_NL_PCACHE_SYM	"filemap_alloc_folio"

/*
 * The prototypes of the probed functions, as this series' sources and BTF
 * have them (cxd_nl_btf_check() compares them with the running kernel's).
 */
#define CXD_NL_PROTOS {							\
	"int numa_migrate_prep(struct page *page, struct vm_area_struct *vma, long unsigned int addr, int page_nid, int *flags)", \
	"void page_add_new_anon_rmap(struct page *page, struct vm_area_struct *vma, long unsigned int address)", \
	"struct folio *vma_alloc_folio(gfp_t gfp, int order, struct vm_area_struct *vma, long unsigned int addr, bool hugepage)", \
	"bool hugepage_vma_check(struct vm_area_struct *vma, long unsigned int vm_flags, bool smaps, bool in_pf, bool enforce_sysfs)", \
	"void do_set_pte(struct vm_fault *vmf, struct page *page, long unsigned int addr)", \
	"void page_add_anon_rmap(struct page *page, struct vm_area_struct *vma, long unsigned int address, rmap_t flags)", \
	"vm_fault_t filemap_map_pages(struct vm_fault *vmf, long unsigned int start_pgoff, long unsigned int end_pgoff)", \
	"bool folio_mark_dirty(struct folio *folio)",			\
	"void folio_migrate_flags(struct folio *newfolio, struct folio *folio)", \
	"struct page *alloc_migration_target(struct page *page, long unsigned int private)", \
	"int memcmp_pages(struct page *page1, struct page *page2)",	\
	"struct page *alloc_huge_page(struct vm_area_struct *vma, long unsigned int addr, int avoid_reserve)", \
	"struct folio *filemap_alloc_folio(gfp_t gfp, unsigned int order)", \
	"long int change_protection(struct mmu_gather *tlb, struct vm_area_struct *vma, long unsigned int start, long unsigned int end, pgprot_t newprot, long unsigned int cp_flags)", \
	CXD_NL_REMOTE_PROTOS						\
}

/* Is this THP check a collapse's (khugepaged, MADV_COLLAPSE), not a fault's or smaps'? */
static inline bool cxd_nl_thp_check_collapse(struct pt_regs *regs)
{
	/* bools: only their low byte is defined */
	return !(u8)regs_get_kernel_argument(regs, 2) &&
	       !(u8)regs_get_kernel_argument(regs, 3);
}

/*
 * The 6.1 hooks whose first three arguments are (page, vma, address):
 * numa_migrate_prep(), page_add_new_anon_rmap(), page_add_anon_rmap().
 */
static inline void __cxd_nl_page_vma_args(struct pt_regs *regs,
					  struct cxd_nl_hook_args *a,
					  bool write)
{
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 0);

	a->vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 1);
	a->addr = regs_get_kernel_argument(regs, 2);
	a->pfn = page_to_pfn(page);
	a->large = PageCompound(page);
	a->write = write;
}

static inline void cxd_nl_hint_args(struct pt_regs *regs,
				    struct cxd_nl_hook_args *a)
{
	/* 6.1 does not pass the fault flags */
	__cxd_nl_page_vma_args(regs, a, false);
}

static inline void cxd_nl_new_args(struct pt_regs *regs,
				   struct cxd_nl_hook_args *a)
{
	__cxd_nl_page_vma_args(regs, a, true);
}

/* do_set_pte(vmf, page, addr): one page */
#define CXD_NL_FILE_SYM		"do_set_pte"

/*
 * page_add_anon_rmap(page, vma, address, flags): an existing anonymous page
 * mapped (migration's remove_migration_pte(), do_swap_page(), KSM's
 * replace_page(), swapoff). Return: pages mapped (1).
 */
#define CXD_NL_ANON_SYM		"page_add_anon_rmap"

static inline unsigned int cxd_nl_anon_args(struct pt_regs *regs,
					    struct cxd_nl_hook_args *a)
{
	__cxd_nl_page_vma_args(regs, a, false);
	return 1;
}

static inline void cxd_nl_file_args(struct pt_regs *regs,
				    struct cxd_nl_file_args *f)
{
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 1);

	f->vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	f->pfn = page_to_pfn(page);
	f->nr = 1;
	f->addr = regs_get_kernel_argument(regs, 2);
}

static inline pte_t cxd_pte_mkprotnone(pte_t old)
{
	return __cxd_pte_mkprotnone(old, pte_write(old) ? _PAGE_RW : 0);
}
#elif (LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)) || \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(7, 3, 0))
#define CXD_NODE_LATENCY	1
#define CXD_NL_HINT_SYM		"numa_migrate_check"
#define CXD_NL_NEW_SYM		"folio_add_new_anon_rmap"
/* 6.12: vma_alloc_folio_noprof(gfp, order, vma, addr, hugepage); 7.2 drops hugepage */
#define CXD_NL_THP_ALLOC_SYM	"vma_alloc_folio_noprof"
/*
 * folio_alloc_mpol_noprof(gfp, order, pol, ilx, nid): the policy allocator
 * of shmem_alloc_folio() (tmpfs, shmem, memfd huge folios) and of mbind's
 * migration target (alloc_migration_target_by_mpol()), which do not go
 * through vma_alloc_folio_noprof() as they do on 6.1; the order is
 * argument 1, as there
 */
#define CXD_NL_THP_MPOL_SYM	"folio_alloc_mpol_noprof"
/*
 * alloc_migration_target_by_mpol(src, private): mbind's migration target
 * (a callback of migrate_pages(), so never inlined), which allocates with
 * alloc_pages_mpol_noprof(), under every page allocation: probed itself
 */
#define CXD_NL_MBIND_TARGET_SYM	"alloc_migration_target_by_mpol"
/*
 * __thp_vma_allowable_orders(vma, vm_flags, tva_flags, orders); 7.2 passes
 * an enum tva_type instead of the flags
 */
#define CXD_NL_THP_CHECK_SYM	"__thp_vma_allowable_orders"
/* hugetlb's allocation of a pool folio for a mapping (6.7: folios) */
#define CXD_NL_HUGETLB_SYM	"alloc_hugetlb_folio"
/*
 * filemap_alloc_folio_noprof(gfp, order[, policy]): the page cache's
 * allocator (readahead, __filemap_get_folio()); large folios for file
 * systems that have them (XFS; ext4 from 6.16). 7.2 adds a policy (NULL
 * but for guest_memfd, which then allocates through the policy allocator
 * above).
 */
#define CXD_NL_PCACHE_SYM	"filemap_alloc_folio_noprof"

#if LINUX_VERSION_CODE < KERNEL_VERSION(7, 0, 0)
#define CXD_NL_EXCLUSIVE	0
#define CXD_NL_REMOTE_VM_SYM	"__access_remote_vm"
#define CXD_NL_VM_RW_SYM	"process_vm_rw"
#define CXD_NL_REMOTE_PROTOS	CXD_NL_REMOTE_PROTOS_6X
#define CXD_NL_MPROT_SYM	"change_protection"
#define CXD_NL_MPROT_FLAGS_ARG	4
/* The prototypes of the probed functions (see the 6.1 series above). */
#define CXD_NL_PROTOS {							\
	"int numa_migrate_check(struct folio *folio, struct vm_fault *vmf, long unsigned int addr, int *flags, bool writable, int *last_cpupid)", \
	"void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma, long unsigned int address, rmap_t flags)", \
	"struct folio *vma_alloc_folio_noprof(gfp_t gfp, int order, struct vm_area_struct *vma, long unsigned int addr, bool hugepage)", \
	"struct folio *folio_alloc_mpol_noprof(gfp_t gfp, unsigned int order, struct mempolicy *pol, long unsigned int ilx, int nid)", \
	"struct folio *alloc_migration_target_by_mpol(struct folio *src, long unsigned int private)", \
	"long unsigned int __thp_vma_allowable_orders(struct vm_area_struct *vma, long unsigned int vm_flags, long unsigned int tva_flags, long unsigned int orders)", \
	"void set_pte_range(struct vm_fault *vmf, struct folio *folio, struct page *page, unsigned int nr, long unsigned int addr)", \
	"void folio_add_anon_rmap_ptes(struct folio *folio, struct page *page, int nr_pages, struct vm_area_struct *vma, long unsigned int address, rmap_t flags)", \
	"vm_fault_t filemap_map_pages(struct vm_fault *vmf, long unsigned int start_pgoff, long unsigned int end_pgoff)", \
	"bool folio_mark_dirty(struct folio *folio)",			\
	"void folio_migrate_flags(struct folio *newfolio, struct folio *folio)", \
	"struct folio *alloc_migration_target(struct folio *src, long unsigned int private)", \
	"int memcmp_pages(struct page *page1, struct page *page2)",	\
	"struct folio *alloc_hugetlb_folio(struct vm_area_struct *vma, long unsigned int addr, bool cow_from_owner)", \
	"struct folio *filemap_alloc_folio_noprof(gfp_t gfp, unsigned int order)", \
	"long int change_protection(struct mmu_gather *tlb, struct vm_area_struct *vma, long unsigned int start, long unsigned int end, long unsigned int cp_flags)", \
	CXD_NL_REMOTE_PROTOS						\
}

/* Is this THP check a collapse's (khugepaged, MADV_COLLAPSE), not a fault's or smaps'? */
static inline bool cxd_nl_thp_check_collapse(struct pt_regs *regs)
{
	return !(regs_get_kernel_argument(regs, 2) & (TVA_SMAPS | TVA_IN_PF));
}
#else
/*
 * 7.2: a non-resident page is a device-exclusive entry, not a PROT_NONE PTE
 * (see "Node latency on 7.2" below). The checks that the mechanism's
 * interfaces exist on this build: without DEVICE_PRIVATE there is no
 * make_device_exclusive(), without MMU_NOTIFIER no interval notifier; a
 * missing export fails at modpost.
 */
#if !IS_ENABLED(CONFIG_DEVICE_PRIVATE) || !IS_ENABLED(CONFIG_MMU_NOTIFIER)
#error "cxdvirt: node latency on 7.2 needs CONFIG_DEVICE_PRIVATE=y and CONFIG_MMU_NOTIFIER=y (make_device_exclusive(), mmu_interval_notifier_insert())"
#endif
#define CXD_NL_EXCLUSIVE	1
/* remote GUPs fault on device-exclusive entries: the notifier sees them */
#define CXD_NL_REMOTE_VM_SYM	NULL
#define CXD_NL_VM_RW_SYM	NULL
/* device-exclusive entries survive mprotect(): nothing to re-arm */
#define CXD_NL_MPROT_SYM	NULL
#define CXD_NL_MPROT_FLAGS_ARG	4
#define CXD_NL_PROTOS {							\
	"int numa_migrate_check(struct folio *folio, struct vm_fault *vmf, long unsigned int addr, int *flags, bool writable, int *last_cpupid)", \
	"void folio_add_new_anon_rmap(struct folio *folio, struct vm_area_struct *vma, long unsigned int address, rmap_t flags)", \
	"struct folio *vma_alloc_folio_noprof(gfp_t gfp, int order, struct vm_area_struct *vma, long unsigned int addr)", \
	"struct folio *folio_alloc_mpol_noprof(gfp_t gfp, unsigned int order, struct mempolicy *pol, long unsigned int ilx, int nid)", \
	"struct folio *alloc_migration_target_by_mpol(struct folio *src, long unsigned int private)", \
	"long unsigned int __thp_vma_allowable_orders(struct vm_area_struct *vma, vm_flags_t vm_flags, enum tva_type type, long unsigned int orders)", \
	"void set_pte_range(struct vm_fault *vmf, struct folio *folio, struct page *page, unsigned int nr, long unsigned int addr)", \
	"void folio_add_anon_rmap_ptes(struct folio *folio, struct page *page, int nr_pages, struct vm_area_struct *vma, long unsigned int address, rmap_t flags)", \
	"vm_fault_t filemap_map_pages(struct vm_fault *vmf, long unsigned int start_pgoff, long unsigned int end_pgoff)", \
	"bool folio_mark_dirty(struct folio *folio)",			\
	"void folio_migrate_flags(struct folio *newfolio, struct folio *folio)", \
	"struct folio *alloc_migration_target(struct folio *src, long unsigned int private)", \
	"int memcmp_pages(struct page *page1, struct page *page2)",	\
	"struct folio *alloc_hugetlb_folio(struct vm_area_struct *vma, long unsigned int addr, bool cow_from_owner)", \
	"struct folio *filemap_alloc_folio_noprof(gfp_t gfp, unsigned int order, struct mempolicy *policy)", \
}

static inline bool cxd_nl_thp_check_collapse(struct pt_regs *regs)
{
	enum tva_type t = (enum tva_type)regs_get_kernel_argument(regs, 2);

	return t == TVA_KHUGEPAGED || t == TVA_FORCED_COLLAPSE;
}
#endif

static inline void cxd_nl_hint_args(struct pt_regs *regs,
				    struct cxd_nl_hook_args *a)
{
	struct folio *folio = (struct folio *)regs_get_kernel_argument(regs, 0);
	struct vm_fault *vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 1);

	a->vma = vmf->vma;
	a->addr = regs_get_kernel_argument(regs, 2);
	a->pfn = pte_pfn(vmf->orig_pte);
	a->large = folio_test_large(folio);
	a->write = vmf->flags & FAULT_FLAG_WRITE;
}

static inline void cxd_nl_new_args(struct pt_regs *regs,
				   struct cxd_nl_hook_args *a)
{
	struct folio *folio = (struct folio *)regs_get_kernel_argument(regs, 0);

	a->vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 1);
	a->addr = regs_get_kernel_argument(regs, 2);
	a->pfn = folio_pfn(folio);
	a->large = folio_test_large(folio);
	a->write = true;
}

/* set_pte_range(vmf, folio, page, nr, addr): nr pages of one folio */
#define CXD_NL_FILE_SYM		"set_pte_range"

/*
 * folio_add_anon_rmap_ptes(folio, page, nr, vma, address, flags): nr pages
 * of an existing anonymous folio mapped (migration, swap-in, KSM, swapoff;
 * folio_add_anon_rmap_pte() is an inline wrapper). Return: nr.
 */
#define CXD_NL_ANON_SYM		"folio_add_anon_rmap_ptes"

static inline unsigned int cxd_nl_anon_args(struct pt_regs *regs,
					    struct cxd_nl_hook_args *a)
{
	struct folio *folio = (struct folio *)regs_get_kernel_argument(regs, 0);
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 1);

	a->vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 3);
	a->addr = regs_get_kernel_argument(regs, 4);
	a->pfn = page_to_pfn(page);
	a->large = folio_test_large(folio);
	a->write = false;
	return (unsigned int)regs_get_kernel_argument(regs, 2);
}

static inline void cxd_nl_file_args(struct pt_regs *regs,
				    struct cxd_nl_file_args *f)
{
	struct page *page = (struct page *)regs_get_kernel_argument(regs, 2);

	f->vmf = (struct vm_fault *)regs_get_kernel_argument(regs, 0);
	f->pfn = page_to_pfn(page);
	f->nr = (unsigned int)regs_get_kernel_argument(regs, 3);
	f->addr = regs_get_kernel_argument(regs, 4);
}

static inline pte_t cxd_pte_mkprotnone(pte_t old)
{
	return __cxd_pte_mkprotnone(old, 0);
}
#else
#define CXD_NODE_LATENCY	0
#define CXD_NL_EXCLUSIVE	0
#endif

#if CXD_NODE_LATENCY
#include <linux/xarray.h>
#include <linux/mmu_notifier.h>
#include <linux/rmap.h>

/*
 * change_protection(tlb, vma, start, end, [newprot,] cp_flags): the rewrite
 * of a range's PTEs by mprotect() (and userfaultfd's write-protection, and
 * NUMA balancing's scan with MM_CP_PROT_NUMA). It gives every present PTE
 * the VMA's protection, so on 6.x the PROT_NONE entries of evicted pages
 * become accessible again without an access (CXD_NL_MPROT_SYM). 6.1 passes
 * newprot before cp_flags (a pgprot_t is one word: one register); 6.2
 * dropped it (CXD_NL_MPROT_FLAGS_ARG).
 */
static inline void cxd_nl_mprot_args(struct pt_regs *regs,
				     struct vm_area_struct **vma,
				     unsigned long *start, unsigned long *end,
				     unsigned long *cp_flags)
{
	*vma = (struct vm_area_struct *)regs_get_kernel_argument(regs, 1);
	*start = regs_get_kernel_argument(regs, 2);
	*end = regs_get_kernel_argument(regs, 3);
	*cp_flags = regs_get_kernel_argument(regs, CXD_NL_MPROT_FLAGS_ARG);
}

/*
 * Node latency's kernel-specific half, one interface for hotplug/nodelat.c:
 * "make this page non-resident" (eviction), the batch of PTE changes in
 * several address spaces it belongs to, and how the next access is seen.
 *
 *	cxd_nl_pte_batch_init(&b);
 *	for each mm:	cxd_nl_pte_batch_lock(&b, mm, nonres);
 *			cxd_nl_make_nonresident(&b, vma, va, pfn, &dirty) per
 *			page (or other PTE changes, then
 *			cxd_nl_pte_batch_changed(&b));
 *			cxd_nl_pte_batch_unlock(&b, mm);
 *	cxd_nl_pte_batch_finish(&b, mms, nm);
 *
 * @nonres is the mm's map of pages this made non-resident (user page number
 * -> pfn, an xarray of values), kept by the mechanisms that see the next
 * access through an MMU notifier (CXD_NL_NOTIFIER).
 *
 * - 6.1 and 6.12 (CXD_NL_EXCLUSIVE 0): a non-resident page has a PROT_NONE
 *   PTE; its next touch takes the NUMA-hinting fault, which the hint probe
 *   (CXD_NL_HINT_SYM) sees. The kernel's own rules for PROT_NONE changes
 *   (change_prot_numa()): the mmap_lock held for read, the mm's
 *   TLB-flush-pending count raised from the first PTE change to the flush
 *   (x86's pte_accessible() trusts a PROT_NONE PTE to be out of every TLB
 *   only when no flush is pending), PTEs changed under their lock with
 *   ptep_modify_prot_start/commit, then one flush of the CPUs that may hold
 *   the changed mms' entries (cxd_tlb_batch_*()).
 * - 7.2 (CXD_NL_EXCLUSIVE 1): neither apply_to_existing_page_range() nor
 *   __flush_tlb_all() is exported, make_device_exclusive() is (Debian sid
 *   builds DEVICE_PRIVATE=y). A non-resident anonymous page has a
 *   device-exclusive entry (mm/rmap.c: the PTE is cleared with
 *   ptep_clear_flush(), which flushes the TLBs, and replaced by a swap
 *   entry holding the pfn). A CPU access, or a GUP, faults into
 *   do_swap_page() -> remove_device_exclusive_entry() (mm/memory.c), which
 *   locks the folio, then calls the MMU notifiers with MMU_NOTIFY_CLEAR and
 *   no owner for that one page, in the faulting task, blockable, and then
 *   restores the PTE (restore_exclusive_pte(): old, writable in a writable
 *   VMA, dirty if the folio is). The interval notifier of hotplug/nodelat.c
 *   sees that. Limits, all from make_device_exclusive(): anonymous, not
 *   hugetlb, in a private writable VMA (its GUP is FOLL_WRITE, which would
 *   copy a page still shared with a fork: those are refused here, see
 *   below); a PMD THP is split (FOLL_SPLIT_PMD). The entry counts as clean
 *   and old to the core mm; fork restores it in the parent without a
 *   notifier (copy_nonpresent_pte() -> try_restore_exclusive_pte()).
 */
#define CXD_NL_NOTIFIER		CXD_NL_EXCLUSIVE

/*
 * Can the accessed-bit scan not flush the TLBs after clearing the bits
 * (CXD_CAN_FLUSH_TLB false)? Then a hot page that stays in a TLB would never
 * set its accessed bit again, and the policy would never see it hit. The
 * scan makes each page it found accessed non-resident instead
 * (cxd_nl_make_nonresident(), which flushes): its next access faults and is
 * seen, a hit while the model holds the page, like devdax's zap on the
 * same kernels (driver/devdax/scan.c).
 */
#define CXD_NL_SCAN_REARM	CXD_NL_EXCLUSIVE

/*
 * Does the fault that makes a page resident again restore its PTE dirty
 * whenever the folio is dirty (7.2's restore_exclusive_pte())? Then the
 * access clears that bit (a folio once written stays dirty, and its PTE
 * would look written at every later eviction).
 */
#define CXD_NL_RESTORES_DIRTY	CXD_NL_EXCLUSIVE

#if !CXD_NL_EXCLUSIVE
struct cxd_nl_pte_batch {
	struct cxd_tlb_batch tlb;
	bool changed;		/* a PTE of the locked mm changed */
};

static inline void cxd_nl_pte_batch_init(struct cxd_nl_pte_batch *b)
{
	cxd_tlb_batch_init(&b->tlb);
}

/*
 * Start changing PTEs of @mm (mmget() held); @nonres is not used here.
 * Context: process, sleeps.
 */
static inline void cxd_nl_pte_batch_lock(struct cxd_nl_pte_batch *b,
					 struct mm_struct *mm,
					 struct xarray *nonres)
{
	mmap_read_lock(mm);
	inc_tlb_flush_pending(mm);
	b->changed = false;
}

/* A PTE of the locked mm changed in a way its TLB entries must follow. */
static inline void cxd_nl_pte_batch_changed(struct cxd_nl_pte_batch *b)
{
	b->changed = true;
}

static inline void cxd_nl_pte_batch_unlock(struct cxd_nl_pte_batch *b,
					   struct mm_struct *mm)
{
	mmap_read_unlock(mm);
	if (b->changed)
		cxd_tlb_batch_add(&b->tlb, mm);
}

/*
 * Flush the TLBs of the changed mms, then drop the flush-pending counts
 * taken by cxd_nl_pte_batch_lock() on each of @mms (every mm locked once).
 */
static inline void cxd_nl_pte_batch_finish(struct cxd_nl_pte_batch *b,
					   struct mm_struct **mms,
					   unsigned int nm)
{
	unsigned int j;

	cxd_tlb_batch_flush(&b->tlb);
	for (j = 0; j < nm; j++)
		dec_tlb_flush_pending(mms[j]);
}

struct cxd_nl_nonres {
	struct vm_area_struct *vma;
	unsigned long pfn;
	bool found;
	bool dirty;
	bool already;		/* a PROT_NONE PTE of the page */
};

/* PTE callback of cxd_nl_make_nonresident(); PTE lock held. */
static inline int cxd_nl_nonres_pte(pte_t *ptep, unsigned long addr,
				    void *data)
{
	struct cxd_nl_nonres *r = data;
	pte_t old = ptep_get(ptep), new;
	struct page *page;

	if (!pte_present(old) || pte_pfn(old) != r->pfn)
		return 0;
	page = pfn_to_page(r->pfn);
	if (!PageAnon(page))
		return 0;
	/*
	 * PROT_NONE already: the model charged a read that followed the
	 * entry without a fault (a remote read: CXD_NL_REMOTE_VM_SYM), and
	 * the page stayed non-resident here, as 7.2's "already" below.
	 */
	if (pte_protnone(old)) {
		r->already = true;
		return 0;
	}
	r->found = true;
	old = ptep_modify_prot_start(r->vma, addr, ptep);
	new = cxd_pte_mkprotnone(old);
	if (pte_dirty(old)) {
		new = cxd_pte_dirty_to_folio(new, page);
		r->dirty = true;
	}
	ptep_modify_prot_commit(r->vma, addr, ptep, old, new);
	return 0;
}

/**
 * cxd_nl_make_nonresident() - make the anonymous page @pfn, mapped at @va of
 * @vma, non-resident: its next touch faults, and the access is seen.
 * @b:		batch; @vma's mm locked by cxd_nl_pte_batch_lock().
 * @vma:	the VMA holding @va (accessible, not PFNMAP/MIXEDMAP/IO/hugetlb).
 * @va:		user address, page aligned; a PTE table must exist there (not
 *		a huge PMD: apply_to_existing_page_range() warns on a leaf).
 * @pfn:	the page; nothing changes unless the PTE maps this anonymous
 *		page, present and resident.
 * @dirty:	set if the PTE was dirty (its bit moved to the folio).
 *
 * Context: process, may sleep; PTE lock taken inside.
 * Return: 1 if a PTE mapped the page and it is now non-resident (or was
 * already); 0 if no PTE there mapped it; -EOPNOTSUPP if one did but this
 * kernel's mechanism cannot cover the page (never on 6.1 and 6.12).
 */
static inline int cxd_nl_make_nonresident(struct cxd_nl_pte_batch *b,
					  struct vm_area_struct *vma,
					  unsigned long va, unsigned long pfn,
					  bool *dirty)
{
	struct cxd_nl_nonres r = { .vma = vma, .pfn = pfn };

	cxd_apply_to_existing_page_range(vma->vm_mm, va, PAGE_SIZE,
					 cxd_nl_nonres_pte, &r);
	if (r.already)
		return 1;
	if (r.found)
		b->changed = true;
	*dirty = r.dirty;
	return r.found;
}
#else /* CXD_NL_EXCLUSIVE */
struct cxd_nl_pte_batch {
	struct xarray *nonres;	/* the locked mm's */
};

static inline void cxd_nl_pte_batch_init(struct cxd_nl_pte_batch *b)
{
	b->nonres = NULL;
}

/* Start changing PTEs of @mm (mmget() held). Context: process, sleeps. */
static inline void cxd_nl_pte_batch_lock(struct cxd_nl_pte_batch *b,
					 struct mm_struct *mm,
					 struct xarray *nonres)
{
	mmap_read_lock(mm);
	b->nonres = nonres;
}

/*
 * The scan cleared accessed or dirty bits. 7.2 exports no TLB flush to
 * modules (CXD_CAN_FLUSH_TLB): the scan re-arms accessed pages instead
 * (CXD_NL_SCAN_REARM), and a dirty bit cleared under a stale TLB entry is
 * set again only once that entry goes.
 */
static inline void cxd_nl_pte_batch_changed(struct cxd_nl_pte_batch *b)
{
}

static inline void cxd_nl_pte_batch_unlock(struct cxd_nl_pte_batch *b,
					   struct mm_struct *mm)
{
	mmap_read_unlock(mm);
	b->nonres = NULL;
}

/* make_device_exclusive() flushed each PTE it changed: nothing left. */
static inline void cxd_nl_pte_batch_finish(struct cxd_nl_pte_batch *b,
					   struct mm_struct **mms,
					   unsigned int nm)
{
}

struct cxd_nl_nonres {
	unsigned long pfn;
	bool found;
	bool dirty;
	bool shared;
	bool already;		/* a device-exclusive entry of the page */
};

/* First look at the PTE, under its lock: is it the page, and may it go? */
static inline int cxd_nl_nonres_pte(pte_t *ptep, unsigned long addr,
				    void *data)
{
	struct cxd_nl_nonres *r = data;
	pte_t pte = ptep_get(ptep);
	struct folio *folio;

	if (!pte_present(pte)) {
		softleaf_t e = softleaf_from_pte(pte);

		/* non-resident already (the scan re-armed it: see below) */
		r->already = softleaf_is_device_exclusive(e) &&
			     softleaf_to_pfn(e) == r->pfn;
		return 0;
	}
	if (pte_pfn(pte) != r->pfn)
		return 0;
	folio = page_folio(pfn_to_page(r->pfn));
	if (!folio_test_anon(folio) || folio_test_large(folio))
		return 0;
	r->found = true;
	r->dirty = pte_dirty(pte);
	/*
	 * Mapped read-only by more than one PTE: a page still shared with a
	 * fork. make_device_exclusive()'s write GUP would break the sharing
	 * and give this mm a copy (and its memory) instead.
	 */
	r->shared = !pte_write(pte) && cxd_small_folio_mapcount(folio) > 1;
	return 0;
}

/**
 * cxd_nl_exclusive_pfn() - the page a device-exclusive entry at @addr holds.
 * @mm:		the address space.
 * @addr:	a user address in @mm.
 *
 * Reads @mm's page tables without their locks, as GUP-fast does
 * (mm/gup.c, gup_fast_pgd_range() and below): with interrupts off no page
 * table can be freed under the walk (the free waits for an IPI or an RCU
 * grace period that cannot pass), and each level is read once. x86-64 has
 * no HIGHPTE, so the PTE table is in the direct map (pte_offset_kernel()
 * on the value read; __pte_offset_map() is not exported). Used by the MMU
 * notifier, before remove_device_exclusive_entry() restores the PTE, for a
 * page whose record @nonres no longer has (mremap moved it: the record was
 * keyed by the old address).
 * Context: any; does not sleep.
 * Return: the pfn of the device-exclusive entry at @addr, 0 if there is none
 * (no page table, a present PTE, any other swap entry, a huge mapping).
 */
static inline unsigned long cxd_nl_exclusive_pfn(struct mm_struct *mm,
						 unsigned long addr)
{
	unsigned long flags, pfn = 0;
	pgd_t *pgdp, pgd;
	p4d_t *p4dp, p4d;
	pud_t *pudp, pud;
	pmd_t *pmdp, pmd;
	pte_t pte;
	softleaf_t e;

	local_irq_save(flags);
	pgdp = pgd_offset(mm, addr);
	pgd = READ_ONCE(*pgdp);
	if (pgd_none(pgd))
		goto out;
	p4dp = p4d_offset_lockless(pgdp, pgd, addr);
	p4d = READ_ONCE(*p4dp);
	if (!p4d_present(p4d))
		goto out;
	pudp = pud_offset_lockless(p4dp, p4d, addr);
	pud = READ_ONCE(*pudp);
	if (!pud_present(pud) || pud_leaf(pud))
		goto out;
	pmdp = pmd_offset_lockless(pudp, pud, addr);
	pmd = pmdp_get_lockless(pmdp);
	if (!pmd_present(pmd) || pmd_leaf(pmd))
		goto out;
	pte = ptep_get_lockless(pte_offset_kernel(&pmd, addr));
	if (pte_present(pte) || pte_none(pte))
		goto out;
	e = softleaf_from_pte(pte);
	if (softleaf_is_device_exclusive(e))
		pfn = softleaf_to_pfn(e);
out:
	local_irq_restore(flags);
	return pfn;
}

/*
 * 7.2: see the comment above the 6.x one. @b->nonres gets the page (user
 * page number -> pfn) while its folio is still locked, so the fault that
 * makes it resident again, which takes that lock before it calls the
 * notifiers, finds it there. Refused (-EOPNOTSUPP): a page of a shared or
 * read-only VMA, or a page still shared with a fork.
 */
static inline int cxd_nl_make_nonresident(struct cxd_nl_pte_batch *b,
					  struct vm_area_struct *vma,
					  unsigned long va, unsigned long pfn,
					  bool *dirty)
{
	struct cxd_nl_nonres r = { .pfn = pfn };
	struct folio *folio;
	struct page *page;
	int ret;

	*dirty = false;
	cxd_apply_to_existing_page_range(vma->vm_mm, va, PAGE_SIZE,
					 cxd_nl_nonres_pte, &r);
	if (r.already)
		return 1;
	if (!r.found)
		return 0;
	if (!b->nonres || r.shared || !(vma->vm_flags & VM_WRITE) ||
	    (vma->vm_flags & VM_SHARED))
		return -EOPNOTSUPP;
	/* owner: the notifier ignores the MMU_NOTIFY_EXCLUSIVE of its own */
	page = make_device_exclusive(vma->vm_mm, va, b->nonres, &folio);
	if (IS_ERR(page))
		return PTR_ERR(page) == -EOPNOTSUPP ? -EOPNOTSUPP : 0;
	/*
	 * The GUP may have found another page at @va by now; it is the one
	 * made exclusive, and recorded.
	 */
	ret = xa_err(xa_store(b->nonres, va >> PAGE_SHIFT,
			      xa_mk_value(page_to_pfn(page)), GFP_KERNEL));
	folio_unlock(folio);
	folio_put(folio);
	if (ret || page_to_pfn(page) != pfn)
		return 0;
	*dirty = r.dirty;
	return 1;
}
#endif /* CXD_NL_EXCLUSIVE */
#endif /* CXD_NODE_LATENCY */

#endif /* CXDVIRT_COMPAT_H */
