/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt: emulated CXL-SSDs. Internal declarations shared by the driver's
 * files: configfs.c (configuration, one config_item per device), device.c
 * (power on/off: backing memory, model, char device), fault.c (the devdax-style
 * file and its fault path), sysfs.c (state and statistics), trace.c (the
 * tracepoints: misses, evictions, write-backs, prefetches), miss.c (the
 * miss wait and accounting both exposures share) and, for node mode,
 * hotplug/node.c (the range as a dax device and a NUMA node) and
 * hotplug/nodelat.c (the model applied to the node's memory).
 */
#ifndef CXDVIRT_H
#define CXDVIRT_H

#include <linux/cdev.h>
#include <linux/configfs.h>
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <cxdvirt/model.h>

#define CXD_NAME		"cxdvirt"
#define CXD_NAME_MAX		32
#define CXD_MAX_DEVICES		256

/**
 * enum cxd_mode - how a powered device is presented.
 * @CXD_MODE_DEVDAX:	/dev/cxdvirtN, a devdax-style character device.
 * @CXD_MODE_NODE:	the phys_addr range as a dax device (dax_hmem) that
 *			kmem can online as memory of @target_node (NUMA node).
 */
enum cxd_mode {
	CXD_MODE_DEVDAX = 0,
	CXD_MODE_NODE,
};

/**
 * struct cxd_cfg - one device's configuration, as written through configfs.
 * Sizes in bytes, times in ns, bandwidth in MB/s. See docs/interface.md.
 */
struct cxd_cfg {
	u64 capacity;
	u64 cache_size;
	bool cache_size_set;	/* written; else it follows capacity / 8 */
	int backing_node;
	u64 phys_addr;
	enum cxd_mode mode;
	int target_node;
	struct cxd_nand_cfg nand;
	enum cxd_policy policy;
	u32 scan_interval_ms;
	u32 ways;			/* 0: fully associative */
	u32 prefetch;			/* enum cxd_prefetch_mode */
	u32 prefetch_degree;
	u32 prefetch_distance;
	u32 write_alloc;		/* enum cxd_write_alloc */
	u32 skip_unwritten;		/* 0 or 1 */
	u32 writeback;			/* enum cxd_writeback */
	u32 drain_high_pct;
	u32 drain_low_pct;
	u64 seed;			/* random policy */
	u32 cflru_window_pct;		/* CFLRU clean-first window, % */
	struct cxd_pf_params pf;	/* learned prefetchers */
	struct cxd_ftl_cfg ftl;		/* mode 0: no FTL */
	u32 ftl_fill;			/* 1: map every page at power-on */
	u32 node_latency;		/* node mode: apply the model (0 or 1) */
};

struct cxd_live;
struct cxd_node;

/**
 * struct cxd_dev - one configured device (a configfs directory).
 * @item:	the configfs item; its name is the device name.
 * @cfg:	configuration; written only under cxd_cfg_mutex.
 * @index:	N of /dev/cxdvirtN, fixed for the item's life.
 * @live:	runtime state while powered, else NULL; changed only under
 *		cxd_cfg_mutex.
 */
struct cxd_dev {
	struct config_item item;
	struct cxd_cfg cfg;
	int index;
	struct cxd_live *live;
};

/**
 * struct cxd_live - a powered device: backing memory, model, char device.
 *
 * Lifetime: created by cxd_power_on(), torn down by cxd_power_off(); the
 * memory is freed by the release of @dev once the last reference (an open
 * file holds one) is gone.
 *
 * Locking:
 * - @lock (spinlock) protects @model, @miss_hist, the measured counters
 *   (@miss_ns_total, @pinned_evictions, ...), @stats_t0_ns, @reshaping.
 *   No critical section sleeps, and each does bounded work: O(1) per model
 *   call, except a clock or S3-FIFO eviction (at most CXD_SWEEP_MAX + 1
 *   steps per evicted line) and a set-aside step per held line a policy
 *   skips; the scan feeds at most CXD_SCAN_BATCH pages per hold, the drain
 *   evicts a batch; a policy switch or CFLRU window change runs in steps of
 *   CXD_RESHAPE_STEPS (cxd_cache_reshape_step()), dropping @lock between
 *   steps with @reshaping set. It is per device: the fault path takes no
 *   global lock.
 * - Model calls take @lock through cxd_model_lock(), which sleeps on
 *   @reshape_wq while @reshaping: in between two steps of a switch the
 *   cache is in no policy's shape. Only counters are read under plain
 *   spin_lock().
 * - @pflags holds one sleeping bit lock per page (CXD_PG_LOCK). A fault holds
 *   its page's bit lock from the residency check to the PTE insert, so
 *   concurrent faults on one page coalesce into one NAND read.
 * - @open_lock protects @open_count and @dead.
 */
struct cxd_live {
	struct cxd_dev *cdev_owner;
	struct device dev;
	struct cdev cdev;
	struct inode *inode;		/* private inode: one address_space */

	u64 npages;
	/* Backing: runtime pages, or a reserved range mapped write-back. */
	struct page **pages;
	phys_addr_t phys;
	void *wb_map;
	struct resource *res;
	char res_name[CXD_NAME_MAX + sizeof(CXD_NAME ":")];	/* in /proc/iomem */

	spinlock_t lock;
	bool reshaping;			/* policy switch under way, under @lock */
	wait_queue_head_t reshape_wq;	/* model users wait for it here */
	struct cxd_model model;
	void *model_mem;
	struct cxd_hist miss_hist;	/* measured miss latency */
	u64 miss_ns_total;		/* measured, ns */
	/* devdax misses, measured: fault entry to the model's answer, ns */
	u64 fault_model_ns_total;
	/* then to the start of the wait (victims unmapped), ns */
	u64 fault_unmap_ns_total;
	u64 fault_unmaps;		/* victims unmapped by those misses */
	u64 stats_t0_ns;		/* power-on or last reset, CLOCK_MONOTONIC ns */
	u64 pinned_evictions;		/* victims the kernel still held (GUP) */

	unsigned long *pflags;

	/* Accessed-bit scan (scan.c): mappings, and the periodic work. */
	struct mutex vma_lock;		/* protects @vmas */
	struct list_head vmas;		/* struct cxd_vma_ref */
	unsigned int nvmas;		/* entries of @vmas, under @vma_lock */
	struct delayed_work scan_work;
	struct work_struct drain_work;	/* background write-back (fault.c) */
	unsigned int scan_interval_ms;	/* 0: stopped */
	u64 scan_passes;		/* under @lock */
	u64 scan_touched;		/* pages found accessed, under @lock */

	struct cxd_node *node;		/* node mode (hotplug/node.c), else NULL */

	spinlock_t open_lock;
	unsigned int open_count;
	bool dead;
};

/**
 * cxd_model_lock() - take @l->lock to call into @l's model, first waiting
 * (asleep) for a policy switch under way to end (struct cxd_live, Locking).
 * @l:	powered device.
 *
 * Context: process, may sleep; no spinlock held. Release with
 * spin_unlock(&@l->lock).
 */
static inline void cxd_model_lock(struct cxd_live *l)
	__acquires(&l->lock)
{
	spin_lock(&l->lock);
	while (unlikely(l->reshaping)) {
		spin_unlock(&l->lock);
		wait_event(l->reshape_wq, !READ_ONCE(l->reshaping));
		spin_lock(&l->lock);
	}
}

/* Bits of cxd_live.pflags[page]. */
#define CXD_PG_LOCK	0	/* sleeping bit lock, see struct cxd_live */
/* Data arrived for a fault that returned VM_FAULT_RETRY: map it uncounted. */
#define CXD_PG_FILLED	1

extern struct mutex cxd_cfg_mutex;
extern struct class *cxd_class;
extern dev_t cxd_devt_base;
extern struct vfsmount *cxd_mnt;
extern struct configfs_subsystem cxd_subsys;
extern const struct attribute_group *cxd_dev_groups[];

/* device.c */
int cxd_power_on(struct cxd_dev *d);
int cxd_power_off(struct cxd_dev *d);
int cxd_check_reserved_range(struct cxd_dev *d, u64 start, u64 size);
void cxd_model_apply_runtime(struct cxd_model *m, const struct cxd_cfg *c);
void cxd_apply_policy(struct cxd_live *l, const struct cxd_cfg *c);

/* fault.c */
extern const struct file_operations cxd_fops;
bool cxd_vma_is_ours(struct vm_area_struct *vma, struct cxd_live *l);
void cxd_drain_work(struct work_struct *work);

/* miss.c: shared by the devdax fault path and node-mode latency */
bool cxd_wait_sleeps(u64 ns);
int cxd_wait_until(u64 deadline);
/**
 * struct cxd_miss_stages - where a devdax miss spent its time before the
 * wait (CLOCK_MONOTONIC ns, see cxd_account_miss()).
 * @model_ns:	fault entry to the model's answer: page lock bit, device
 *		lock, cxd_model_access() (victim choice included).
 * @unmap_ns:	from there to the start of the wait: the victims unmapped
 *		from every mapping (plus the access tracepoint and the drain
 *		kick, both nearly free when unused).
 * @unmaps:	victims unmapped.
 */
struct cxd_miss_stages {
	u64 model_ns;
	u64 unmap_ns;
	u32 unmaps;
};
void cxd_account_miss(struct cxd_live *l, u64 page, bool write, u64 t0,
		      const struct cxd_access *acc,
		      const struct cxd_miss_stages *st);

/* scan.c */
void cxd_scan_selftest(void);
void cxd_scan_init(struct cxd_live *l);
void cxd_scan_set_interval(struct cxd_live *l, unsigned int ms);
void cxd_scan_stop(struct cxd_live *l);
int cxd_vma_track(struct cxd_live *l, struct vm_area_struct *vma);
void cxd_vma_untrack(struct cxd_live *l, struct vm_area_struct *vma);

/* trace.c */
void cxd_trace_miss(struct cxd_live *l, u64 page, bool write, u64 t0, u64 t1,
		    const struct cxd_access *acc);
void cxd_trace_access(struct cxd_live *l, u64 page, u64 t0,
		      const struct cxd_access *acc);
void cxd_trace_drain(struct cxd_live *l, const struct cxd_victim *v,
		     unsigned int n);

/* configfs.c */
int cxd_configfs_init(void);
void cxd_configfs_exit(void);

#define cxd_warn(d, fmt, ...) \
	pr_warn(CXD_NAME ": %s: " fmt "\n", config_item_name(&(d)->item), ##__VA_ARGS__)

#endif /* CXDVIRT_H */
