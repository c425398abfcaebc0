/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt node-mode latency (hotplug/nodelat.c): the device model applied to
 * the memory of a node-mode device; used by hotplug/node.c.
 */
#ifndef CXDVIRT_HOTPLUG_NODELAT_H
#define CXDVIRT_HOTPLUG_NODELAT_H

#include <linux/types.h>

struct cxd_live;
struct cxd_nodelat;

/**
 * struct cxd_nodelat_stats - node-mode latency counters (hotplug/nodelat.c).
 * @tracked_mms:	address spaces the device's pages are looked up in.
 * @first_touches:	accesses seen as a new page of the node being mapped.
 * @hint_faults:	accesses seen as a fault on a PROT_NONE page.
 * @file_maps:		accesses seen as a file or shmem page of the node being
 *			mapped by its fault.
 * @faultaround_limited: fault-arounds cut to the faulting page, a page of
 *			the node.
 * @faultaround_pages:	pages of the node mapped by the fault-around of
 *			another node's page (charged as reads).
 * @arrivals:		pages copied onto the node by a migration (demotion,
 *			mbind, move_pages, migrate_pages, compaction),
 *			each charged as a write.
 * @departures:		pages copied off the node by a migration (promotion,
 *			NUMA balancing, offline).
 * @departures_discarded: of those, pages whose line was resident in the
 *			model and was dropped (cxd_model_discard(); no
 *			eviction, no write-back).
 * @anon_maps:		accesses seen as an existing anonymous page of the
 *			node being mapped by the faulting task (swap-in).
 * @remote_accesses:	reads (and, where they fault, writes) of another
 *			process's pages of the node by a remote GUP
 *			(/proc/PID/mem, ptrace, process_vm_readv/writev),
 *			charged to the reader; not in @hint_faults.
 * @promotions_refused: hinting faults on pages eviction made PROT_NONE
 *			whose migration off the node was refused (the fault
 *			was the model's, not a NUMA-balancing scan's).
 * @evicted_ptes:	PTEs made PROT_NONE or (file pages) unmapped by
 *			evictions.
 * @evicted_unmaps:	file and shmem pages that evictions unmapped from
 *			every mapping.
 * @evictions_unmapped:	victims found mapped nowhere (freed, migrated, or
 *			mapped where the hooks never saw them).
 * @evictions_moved:	anonymous victims not mapped at their last-seen
 *			address but found at the address their VMA moved
 *			to (mremap), and made non-resident there.
 * @fork_rearmed:	pages a fork had made resident again without an access
 *			(7.2: it restores the parent's device-exclusive
 *			entries), made non-resident again by a later eviction
 *			in that process once no child shared them.
 * @mprotect_rearmed:	pages a change of protection (mprotect()) made
 *			accessible again without an access (6.x: it rewrites
 *			PROT_NONE entries), made PROT_NONE again on the
 *			task's way back to user space.
 * @evictions_uncovered: PTEs of victims that this kernel's mechanism could
 *			not make non-resident, so the page stays resident
 *			there (7.2: shared or read-only VMAs, pages still
 *			shared with a fork; docs/numa-mode.md).
 * @scan_rearmed:	pages the accessed-bit scan found accessed and made
 *			non-resident so that their next access is seen
 *			(7.2, which exports no TLB flush; a hit if the model
 *			holds the page).
 * @scan_walks:	address spaces the accessed-bit scan walked whole, a PTE
 *			table at a time (resident set small against the cache).
 * @scan_lookups:	address spaces it scanned page by page instead, each
 *			device page looked up at its last-seen address.
 * @late_writebacks:	victims the model evicted clean whose PTE was dirty
 *			(written while resident): charged a write-back then.
 * @thp_untracked_pages: pages of the node mapped as THP, which the model
 *			cannot track (residency is per 4 KiB page).
 * @hugetlb_untracked_pages: pages of hugetlb folios of the node's pool
 *			handed to a mapping (a fault, fallocate), which the
 *			model cannot track either (one PMD maps 512 lines).
 * @thp_refused_pages:	pages of large folios allocated on the node for a
 *			fault, a migration or the page cache and given back:
 *			the fault fell back to 4 KiB, the migration split the
 *			folio, the page cache took smaller folios.
 * @thp_collapse_refused: khugepaged or MADV_COLLAPSE checks answered "no
 *			huge page" for an address space the device tracks.
 * @probes_missed:	calls of the hooked kernel functions that ran without
 *			their hook (a kretprobe short of instances, a probe
 *			hit inside another), summed over the hooks, which all
 *			devices share, since they were registered: accesses,
 *			huge pages or collapses the model did not see.
 * @waited_accesses:	accesses a task waited for in its task_work: misses,
 *			and hits on lines still being filled.
 * @waited_ns_total:	their time from the fault's entry (x86's
 *			page_fault_user tracepoint, driver/fentry.c; the
 *			hook's time where it was not stamped) to the end of
 *			the wait and the miss's accounting, summed, ns. What
 *			the user sees beyond it is the return to user space,
 *			which `cxdvirt-dev calibrate` measures for
 *			fault_exit_ns.
 * @kernel_accesses:	accesses by kernel threads, not charged.
 * @events_dropped:	accesses lost to a failed allocation.
 * @pending:		accesses queued on tasks and not yet run.
 */
struct cxd_nodelat_stats {
	u64 tracked_mms;
	u64 first_touches;
	u64 hint_faults;
	u64 file_maps;
	u64 faultaround_limited;
	u64 faultaround_pages;
	u64 arrivals;
	u64 departures;
	u64 departures_discarded;
	u64 anon_maps;
	u64 remote_accesses;
	u64 promotions_refused;
	u64 evicted_ptes;
	u64 evicted_unmaps;
	u64 evictions_unmapped;
	u64 evictions_moved;
	u64 fork_rearmed;
	u64 mprotect_rearmed;
	u64 evictions_uncovered;
	u64 scan_rearmed;
	u64 scan_walks;
	u64 scan_lookups;
	u64 late_writebacks;
	u64 thp_untracked_pages;
	u64 hugetlb_untracked_pages;
	u64 thp_refused_pages;
	u64 thp_collapse_refused;
	u64 probes_missed;
	u64 waited_accesses;
	u64 waited_ns_total;
	u64 kernel_accesses;
	u64 events_dropped;
	u64 pending;
};

bool cxd_nodelat_supported(void);
int cxd_nodelat_start(struct cxd_live *live, const char *name, u64 start,
		      u64 size, unsigned int scan_interval_ms,
		      struct cxd_nodelat **out);
void cxd_nodelat_stop(struct cxd_nodelat *nl);
void cxd_nodelat_get_stats(struct cxd_nodelat *nl,
			   struct cxd_nodelat_stats *st);

int cxd_nl_btf_check(const char *dev, const char *const *protos,
		     unsigned int n);

#endif /* CXDVIRT_HOTPLUG_NODELAT_H */
