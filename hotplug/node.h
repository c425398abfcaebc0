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

int cxd_node_init(void);
void cxd_node_exit(void);
const char *cxd_node_check_target(int nid);
int cxd_node_attach(struct cxd_dev *d, struct cxd_live *l);
int cxd_node_busy(struct cxd_live *l);
void cxd_node_detach(struct cxd_live *l);
bool cxd_node_range_taken(u64 start, u64 size);
int cxd_node_adistance(const struct cxd_live *l);
void cxd_node_dax_name_get(const struct cxd_live *l, char *buf, size_t len);
void cxd_node_get_state(const struct cxd_live *l, struct cxd_node_state *st);

#endif /* CXDVIRT_HOTPLUG_NODE_H */
