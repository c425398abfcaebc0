/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt node mode: the memory tier of a node-mode device's target node
 * (hotplug/tier.c), used by hotplug/node.c.
 */
#ifndef CXDVIRT_HOTPLUG_TIER_H
#define CXDVIRT_HOTPLUG_TIER_H

#include <cxdvirt/model.h>

struct memory_dev_type;

int cxd_tier_init(void);
void cxd_tier_exit(void);
int cxd_tier_adistance(const struct cxd_nand_cfg *nand);
int cxd_tier_set(int nid, int adist, struct memory_dev_type **mtype);
void cxd_tier_clear(int nid, struct memory_dev_type *mtype);

#endif /* CXDVIRT_HOTPLUG_TIER_H */
