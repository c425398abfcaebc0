// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt reserved ranges: the checks both modes make on a phys_addr range
 * reserved at boot with memmap=SIZE$ADDR before they use it (devdax maps it,
 * node mode hands it to dax_hmem and kmem).
 */
#include <linux/ioport.h>
#include <linux/minmax.h>
#include <linux/mm.h>

#include "cxdvirt.h"

struct cxd_cover {
	u64 next;	/* first byte not yet covered */
	bool gap;
};

static int cxd_cover_one(struct resource *r, void *arg)
{
	struct cxd_cover *c = arg;

	if (r->start > c->next)
		c->gap = true;
	c->next = max_t(u64, c->next, r->end + 1);
	return 0;
}

/**
 * cxd_check_reserved_range() - is [@start, @start + @size) usable as a
 * device's physical range: no System RAM, and every byte inside a reserved
 * entry of the memory map (memmap=SIZE$ADDR)? region_intersects() does not
 * see holes, so coverage is walked resource by resource.
 * @d:		device, for the log line.
 * @start:	first byte.
 * @size:	bytes.
 * Context: process.
 * Return: 0, or -EINVAL with one log line saying why.
 */
int cxd_check_reserved_range(struct cxd_dev *d, u64 start, u64 size)
{
	struct cxd_cover c = { .next = start };

	if (region_intersects(start, size, IORESOURCE_SYSTEM_RAM,
			      IORES_DESC_NONE) != REGION_DISJOINT) {
		cxd_warn(d, "power: phys_addr range [0x%llx, +%llu) overlaps System RAM: reserve it with memmap=SIZE$ADDR",
			 start, size);
		return -EINVAL;
	}
	walk_iomem_res_desc(IORES_DESC_RESERVED, IORESOURCE_MEM, start,
			    start + size - 1, &c, cxd_cover_one);
	if (c.gap || c.next < start + size) {
		cxd_warn(d, "power: phys_addr range [0x%llx, +%llu) is not entirely reserved memory (memmap=SIZE$ADDR)",
			 start, size);
		return -EINVAL;
	}
	return 0;
}
