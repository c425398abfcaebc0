/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt node mode (hotplug/node.c): a device's reserved physical range
 * becomes a dax device through the stock dax_hmem driver, which kmem can
 * online as the memory of a CPU-less NUMA node. See docs/numa-mode.md.
 */
#ifndef CXDVIRT_HOTPLUG_NODE_H
#define CXDVIRT_HOTPLUG_NODE_H

#include <linux/types.h>

struct cxd_dev;
struct cxd_live;

/**
 * struct cxd_node_state - what node mode shows in sysfs.
 * @online_bytes:	bytes of the range in online memory blocks.
 * @movable_bytes:	of those, bytes in ZONE_MOVABLE.
 * @node_used_bytes:	pages of the target node in use (managed - free),
 *			bytes; the node holds only this device's memory.
 */
struct cxd_node_state {
	u64 online_bytes;
	u64 movable_bytes;
	u64 node_used_bytes;
};

/**
 * struct cxd_nodelat_stats - node-mode latency counters (hotplug/nodelat.c).
 * @tracked_mms:	address spaces the device's pages are looked up in.
 * @first_touches:	accesses seen as a new page of the node being mapped.
 * @hint_faults:	accesses seen as a fault on a PROT_NONE page.
 * @evicted_ptes:	PTEs made PROT_NONE by evictions.
 * @evictions_unmapped:	victims found mapped nowhere (freed, migrated, or
 *			mapped where the hooks never saw them).
 * @late_writebacks:	victims the model evicted clean whose PTE was dirty
 *			(written while resident): charged a write-back then.
 * @thp_untracked_pages: pages of the node mapped as THP, which the model
 *			cannot track (residency is per 4 KiB page).
 * @kernel_accesses:	accesses by kernel threads, not charged.
 * @events_dropped:	accesses lost to a failed allocation.
 * @pending:		accesses queued on tasks and not yet run.
 */
struct cxd_nodelat_stats {
	u64 tracked_mms;
	u64 first_touches;
	u64 hint_faults;
	u64 evicted_ptes;
	u64 evictions_unmapped;
	u64 late_writebacks;
	u64 thp_untracked_pages;
	u64 kernel_accesses;
	u64 events_dropped;
	u64 pending;
};

struct cxd_nodelat;

bool cxd_nodelat_supported(void);
int cxd_nodelat_start(struct cxd_live *l, const char *name, u64 start,
		      u64 size, unsigned int scan_interval_ms,
		      struct cxd_nodelat **out);
void cxd_nodelat_stop(struct cxd_nodelat *nl);
void cxd_nodelat_get_stats(struct cxd_nodelat *nl,
			   struct cxd_nodelat_stats *st);
void cxd_node_get_lat_stats(const struct cxd_live *l,
			    struct cxd_nodelat_stats *st);

int cxd_node_init(void);
void cxd_node_exit(void);
const char *cxd_node_check_target(int nid);
int cxd_node_attach(struct cxd_dev *d, struct cxd_live *l);
int cxd_node_close(struct cxd_live *l);
void cxd_node_detach(struct cxd_live *l);
bool cxd_node_range_taken(u64 start, u64 size);
int cxd_node_adistance(const struct cxd_live *l);
void cxd_node_dax_name_get(const struct cxd_live *l, char *buf, size_t len);
void cxd_node_get_state(const struct cxd_live *l, struct cxd_node_state *st);

#endif /* CXDVIRT_HOTPLUG_NODE_H */
