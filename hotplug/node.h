/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt node mode (hotplug/): a device's reserved physical range becomes a
 * dax device through the stock dax_hmem driver, which kmem can online as the
 * memory of a CPU-less NUMA node. See docs/numa-mode.md.
 *
 * What the rest of the module calls: module load and unload, which register
 * the mode's struct cxd_mode_ops; everything else goes through those.
 */
#ifndef CXDVIRT_HOTPLUG_NODE_H
#define CXDVIRT_HOTPLUG_NODE_H

#include <linux/types.h>

int cxd_node_init(void);
void cxd_node_exit(void);

#endif /* CXDVIRT_HOTPLUG_NODE_H */
