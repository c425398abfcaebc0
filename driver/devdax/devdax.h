/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt devdax mode (driver/devdax/): /dev/cxdvirtN, a devdax-style
 * character device. The files, each above the ones it calls:
 *
 *   devdax.c   the char device: backing memory (runtime pages or a reserved
 *              range given ZONE_DEVICE pages), open, mmap; the mode's
 *              struct cxd_mode_ops.
 *   fault.c    the fault path of its mappings.
 *   scan.c     the accessed-bit scan of its mappings.
 *
 * What the rest of the module calls: module load and unload (main.c), which
 * register the mode's struct cxd_mode_ops; everything else goes through
 * those. The rest of this header is the mode's own.
 */
#ifndef CXDVIRT_DEVDAX_H
#define CXDVIRT_DEVDAX_H

#include <linux/types.h>

struct cxd_live;
struct vm_area_struct;

/* devdax.c */
int cxd_devdax_init(void);
void cxd_devdax_exit(void);

struct cxd_dev;
struct cxd_victim;
struct page;

/* fault.c */
extern const struct vm_operations_struct cxd_vm_ops;
void cxd_evict_page(struct cxd_live *live, const struct cxd_victim *v);

/**
 * struct cxd_pslot - a slot of the fault path's page locks (cxd_live.pslots).
 * @word:	CXD_PG_* bits.
 * @page:	the device page whose filler @word records (CXD_PG_FILLER),
 *		when slots are shared (NAND image); set before the record.
 */
struct cxd_pslot {
	unsigned long word;
	u64 page;
};

/* Bits of cxd_pslot.word. */
#define CXD_PG_LOCK	0	/* sleeping bit lock, see struct cxd_live */
/*
 * The rest of the word, bits 2 and up: the mapping (struct vm_area_struct,
 * compared only, never dereferenced; at least 8-byte aligned) whose fault
 * waited for the page with mmap_lock dropped and returns VM_FAULT_RETRY,
 * or 0. The retry, a fault on that mapping, maps the page without a second
 * model access; fault.c has the rules.
 */
#define CXD_PG_FILLER	(~3UL)

/* image.c: the NAND image (nand_backing) */
int cxd_img_init(void);
void cxd_img_exit(void);
int cxd_img_open(struct cxd_dev *d, struct cxd_live *live);
void cxd_img_close(struct cxd_live *live, bool lose);
int cxd_img_flush(struct cxd_live *live, loff_t start, loff_t end);
bool cxd_img_direct(struct cxd_live *live);
bool cxd_img_materialised(struct cxd_live *live, u64 pgoff);
u64 cxd_img_pages(struct cxd_live *live);
struct page *cxd_img_page(struct cxd_live *live, u64 pgoff,
			  unsigned int *reads);
void cxd_img_prefetch(struct cxd_live *live, u64 pgoff, unsigned int *reads);
void cxd_img_evict(struct cxd_live *live, const struct cxd_victim *v);
void cxd_img_account(struct cxd_live *live, u64 deadline, u64 io_done,
		     unsigned int reads);

/* scan.c */
void cxd_scan_selftest(void);
void cxd_scan_init(struct cxd_live *live);
void cxd_scan_set_interval(struct cxd_live *live, unsigned int ms);
int cxd_vma_track(struct cxd_live *live, struct vm_area_struct *vma);
void cxd_vma_untrack(struct cxd_live *live, struct vm_area_struct *vma);

#endif /* CXDVIRT_DEVDAX_H */
