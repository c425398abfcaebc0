/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-width types for the cxdvirt device model.
 *
 * The model (cache, NAND timing, statistics) is plain C: it calls no kernel
 * function and no libc function, so the same sources build into cxdvirt.ko
 * and into the userspace library used by the unit tests and tools. This is the
 * only header through which it sees its environment.
 */
#ifndef CXDVIRT_MODEL_TYPES_H
#define CXDVIRT_MODEL_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>	/* uint32_t, uint64_t, bool, size_t */
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#endif /* CXDVIRT_MODEL_TYPES_H */
