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

#endif /* CXDVIRT_COMPAT_H */
