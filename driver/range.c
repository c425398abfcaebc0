// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt physical ranges, for both modes: the checks they make on a
 * phys_addr range reserved at boot with memmap=SIZE$ADDR before they use it
 * (devdax maps it, node mode hands it to dax_hmem and kmem), and the table
 * of the ranges powered devices own.
 *
 * The table holds every powered device's range, whatever its mode: the core
 * adds it once the mode's attach has succeeded (cxd_range_claim()) and drops
 * it at power-off (cxd_range_release()); a mode's attach asks it who owns a
 * range (cxd_range_owner()). It is protected by cxd_cfg_mutex, under which
 * every power transition runs, so a range checked free during attach is
 * still free when it is claimed.
 */
#include <linux/ioport.h>
#include <linux/lockdep.h>
#include <linux/minmax.h>
#include <linux/mm.h>

#include "compat.h"
#include "cxdvirt.h"

/* The ranges of powered devices, in power-on order; under cxd_cfg_mutex. */
static LIST_HEAD(cxd_ranges);

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
 * device's physical range: RAM that memmap=SIZE$ADDR reserved at boot?
 * @d:		device, for the log line.
 * @start:	first byte (physical address).
 * @size:	bytes.
 *
 * Three checks: no System RAM; every byte inside a Reserved entry of
 * /proc/iomem (region_intersects() does not see holes, so coverage is
 * walked resource by resource); and every byte RAM in the memory map the
 * firmware handed over (cxd_firmware_ram()). The last one refuses what
 * the firmware itself reserved (stolen graphics memory, MMIO holes, QEMU's
 * 0xfd00000000-0xffffffffff): it too is Reserved and not busy in
 * /proc/iomem, but there may be no memory behind it, or memory that
 * something else uses, and the device would clear it and map it cacheable.
 * Context: process; may sleep.
 * Return: 0, or -EINVAL with one log line saying why.
 */
int cxd_check_reserved_range(struct cxd_dev *d, u64 start, u64 size)
{
	struct cxd_cover c = { .next = start };
	int fw;

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
	fw = cxd_firmware_ram(start, start + size);
	if (fw < 0) {
		cxd_warn(d, "power: phys_addr range [0x%llx, +%llu) refused: cannot read the firmware's memory map (%d)",
			 start, size, fw);
		return -EINVAL;
	}
	if (!fw) {
		cxd_warn(d, "power: phys_addr range [0x%llx, +%llu) is not RAM in the firmware's memory map: only RAM reserved with memmap=SIZE$ADDR can back a device",
			 start, size);
		return -EINVAL;
	}
	return 0;
}

/**
 * cxd_range_owner() - the powered device in mode @mode whose range overlaps
 * [@start, @start + @size).
 * @start:	first byte.
 * @size:	bytes.
 * @mode:	only devices powered in this mode are considered.
 *
 * Context: caller holds cxd_cfg_mutex.
 * Return: the first such device in power-on order, or NULL.
 */
struct cxd_dev *cxd_range_owner(u64 start, u64 size, enum cxd_mode mode)
{
	struct cxd_live *live;

	lockdep_assert_held(&cxd_cfg_mutex);
	list_for_each_entry(live, &cxd_ranges, range.list) {
		const struct cxd_range *r = &live->range;

		if (live->cfg_dev->cfg.mode == mode &&
		    start < r->start + r->size && r->start < start + size)
			return live->cfg_dev;
	}
	return NULL;
}

/**
 * cxd_range_claim() - record that powered device @live owns
 * [@start, @start + @size).
 * @live:	device whose mode's attach has just succeeded, having checked
 *		the range against the owners of the table.
 * @start:	first byte.
 * @size:	bytes.
 *
 * Context: caller holds cxd_cfg_mutex.
 */
void cxd_range_claim(struct cxd_live *live, u64 start, u64 size)
{
	lockdep_assert_held(&cxd_cfg_mutex);
	live->range.start = start;
	live->range.size = size;
	list_add_tail(&live->range.list, &cxd_ranges);
}

/**
 * cxd_range_release() - undo cxd_range_claim() at power-off; nothing if
 * @live owns no range.
 * @live:	device being powered off, its mode's detach done.
 *
 * Context: caller holds cxd_cfg_mutex.
 */
void cxd_range_release(struct cxd_live *live)
{
	lockdep_assert_held(&cxd_cfg_mutex);
	if (live->range.size)
		list_del(&live->range.list);
	live->range.size = 0;
}
