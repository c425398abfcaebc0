/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt: emulated CXL-SSDs. Internal declarations of the driver's core,
 * which both modes use. The files, each above the ones it calls:
 *
 *   main.c       module load and unload: calls every part's init and exit,
 *                the modes' too (the one core file that includes their
 *                headers).
 *   configfs.c   configuration, one config_item per device; the power store.
 *   device.c     the core: power on and off through the mode's struct
 *                cxd_mode_ops, the class device, cxd_cfg_mutex, and the glue
 *                between a powered device and its model (runtime settings,
 *                policy switch, background drain).
 *   sysfs.c      the class device's state and statistics files.
 *   miss.c       the miss wait and accounting both modes share.
 *   trace.c      the tracepoints: misses, evictions, write-backs, prefetches.
 *   range.c      checks on a reserved phys_addr range (memmap=SIZE$ADDR),
 *                and the table of the ranges powered devices own.
 *
 * The modes plug in through struct cxd_mode_ops; each has its own folder
 * and header, which only main.c includes besides the mode's own files:
 *   devdax mode: driver/devdax/ (devdax.h): devdax.c (the char device:
 *           backing memory, open, mmap), fault.c (its fault path) and scan.c
 *           (the accessed-bit scan of its mappings).
 *   node mode: hotplug/ (node.h): node.c (the range as a dax device and a
 *           NUMA node, its sysfs files), tier.c (the node's memory tier),
 *           nodelat.c (the model applied to the node's memory).
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
#include <linux/xarray.h>
#include <linux/math64.h>
#include <linux/time64.h>
#include <asm/tsc.h>

#include <cxdvirt/params.h>

struct cxd_resv;

#define CXD_NAME		"cxdvirt"
#define CXD_NAME_MAX		32
#define CXD_MAX_DEVICES		256
/* Longest nand_backing path, bytes with the NUL. */
#define CXD_PATH_MAX		256

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
 * Each member is the configfs attribute of that name (docs/interface.md).
 * @p:			the model's parameters (struct cxd_params, generated
 *			from include/cxdvirt/params.h, as cxdvirt-sim's
 *			configuration embeds them): sizes in bytes, times in
 *			ns, bandwidth in MB/s.
 * @cache_size_set:	@p.cache_size was written; else it follows
 *			@p.capacity / 8.
 * @nand_backing:	devdax: the NAND image's path (a regular file or block device,
 *			driver/devdax/image.c), or "" for host RAM ("ram",
 *			the default).
 *
 * The other members are the module's own parameters, CXD_PARAMS_KERNEL of
 * the table, generated with their table types: backing_node (NUMA node of
 * the runtime backing pages, or NUMA_NO_NODE), phys_addr (first byte of a
 * reserved range, memmap=SIZE$ADDR, or 0 for runtime pages),
 * scan_interval_ms (accessed-bit scan period, 0: off), mode (enum
 * cxd_mode), target_node (node mode's NUMA node) and node_latency (node
 * mode: apply the model, 0 or 1).
 */
struct cxd_cfg {
	struct cxd_params p;
	/* the module's own rows, generated (kernel-doc above) */
	CXD_PARAMS_KERNEL(CXD_P_FIELD_)
	bool cache_size_set;
	char nand_backing[CXD_PATH_MAX];
};

struct cxd_live;
struct cxd_node;
struct cxd_img;
struct cxd_victim;

/**
 * struct cxd_range - the physical range a powered device owns, an entry of
 * the core's table (range.c).
 * @list:	entry in the table; under cxd_cfg_mutex.
 * @start:	first byte.
 * @size:	bytes; 0 while the device owns no range (runtime pages).
 */
struct cxd_range {
	struct list_head list;
	u64 start;
	u64 size;
};

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
 * struct cxd_mode_ops - what a mode (enum cxd_mode) does at power-on and
 * power-off; each mode registers its own (cxd_mode_register()), and the
 * core calls them in this order. Context: process, may sleep, under
 * cxd_cfg_mutex, except @evict and @release.
 * @attach:	present powered device @live of @d (model ready, class device
 *		initialised, not added): add the class device and whatever
 *		the mode shows. A mode that uses the phys_addr range checks
 *		it against the ranges of powered devices (cxd_range_owner());
 *		once @attach returns 0 the core records the range as @live's
 *		(cxd_range_claim()) until power-off. Return: 0, or a negative
 *		errno with one log line, having undone its own steps except
 *		what @release frees.
 * @close:	may @live be powered off? Return: 0, and from then on the
 *		mode refuses what would make it busy again; or -EBUSY with one
 *		log line, nothing changed.
 * @detach:	undo @attach once @close returned 0: remove what it added.
 * @evict:	take victim @v (its device page, and whether the model
 *		wrote it back), evicted from the model, away from every user
 *		(the background drain, cxd_drain_work()); needed by a mode
 *		whose accesses queue &cxd_live.drain_work (devdax).
 *		Context: process, may sleep.
 * @release:	optional: free what the mode keeps in @live, at the last
 *		reference to it (struct device release). Context: any
 *		process context.
 * @param_check: optional: may a parameter the mode owns (@id, enum
 *		cxd_param_id; node mode: target_node, node_latency) take value
 *		@v (an INT's two's complement, within the table's bounds) on
 *		this machine and kernel? Asked of every mode for every device,
 *		whatever its mode, when the parameter is written
 *		(cxd_mode_param_check()), and for a default that depends on the
 *		kernel (cxd_mode_param_default()). Context: process. Return:
 *		NULL, or the reason with *@err set to the errno (-EINVAL, or
 *		-EOPNOTSUPP for what this kernel cannot do).
 * @scan_interval: the accessed-bit scan period of @live is now @ms: a live
 *		write of scan_interval_ms, or 0 at power-off once @close
 *		returned 0. Record it in &cxd_live.scan_interval_ms, which the
 *		mode's scan reads, and (re)start or stop that scan; with 0,
 *		return once no pass of it runs. Context: process, may sleep,
 *		under cxd_cfg_mutex.
 */
struct cxd_mode_ops {
	int (*attach)(struct cxd_dev *d, struct cxd_live *live);
	int (*close)(struct cxd_live *live);
	void (*detach)(struct cxd_live *live);
	void (*evict)(struct cxd_live *live, const struct cxd_victim *v);
	void (*release)(struct cxd_live *live);
	const char *(*param_check)(int id, u64 v, int *err);
	void (*scan_interval)(struct cxd_live *live, unsigned int ms);
};

/**
 * struct cxd_live - a powered device: model, class device and what its
 * mode adds (char device and backing memory, or a NUMA node).
 * @cfg_dev:	the configured device this powers; a reference on its item
 *		is held until @dev's release.
 * @ops:	its mode's power-on/off operations.
 * @dev:	class device cxdvirtN (sysfs); its release frees this.
 * @cdev:	devdax: /dev/cxdvirtN.
 * @inode:	devdax: private inode, the one address_space of every
 *		mapping of the device.
 * @npages:	device pages (capacity / 4 KiB).
 * @pages:	devdax: the page of each device page (runtime pages, or the
 *		reserved range's ZONE_DEVICE pages); NULL with a NAND image.
 * @img:	devdax: the NAND image (nand_backing) and its resident set
 *		(host pages of materialised device pages), or NULL.
 * @resv:	devdax reserved-range backing (devdax/devdax.c), or NULL.
 * @range:	the phys_addr range it owns, while powered (range.c).
 * @lock:	see Locking.
 * @reshaping:	a policy switch is under way (under @lock).
 * @reshape_wq:	model users wait here for @reshaping to end.
 * @model:	the device model (under @lock).
 * @model_mem:	the model's state memory.
 * @miss_hist:	measured miss latency histogram.
 * @miss_ns_total: measured miss time, ns.
 * @fault_model_ns_total: devdax misses, measured: fault entry to the
 *		model's answer, ns.
 * @fault_unmap_ns_total: then to the start of the wait (victims unmapped),
 *		ns.
 * @fault_unmaps: victims unmapped by those misses.
 * @miss_entry_ns_total: devdax misses whose fault entry was stamped
 *		(fentry.c): the time from that entry to the handler, summed,
 *		ns; part of @miss_ns_total.
 * @miss_entry_stamped: those misses.
 * @minor_faults: devdax faults on a resident line (no NAND wait) that
 *		mapped their page, counted from the fault's entry where it
 *		was stamped, else from the handler's: what
 *		`cxdvirt-dev calibrate` compares with a user's timing.
 * @minor_fault_ns_total: their time from that entry to the handler's
 *		return, summed, ns.
 * @miss_tail_ns: the running median of how long a miss that waited took
 *		after its wait's target (the wake-up's lateness and the
 *		path's own work after it), ns; waits end that much early
 *		(cxd_tail_update()).
 * @stats_t0_ns: power-on or last reset, CLOCK_MONOTONIC ns.
 * @stats_gen:	stats/reset count since power-on: tells whether a model
 *		answer read under @lock belongs to the current statistics.
 * @pinned_evictions: victims the kernel still held (GUP).
 * @pinned_released: NAND image: host pages of such victims let go once
 *		their holder had dropped them (cxd_img_reap()).
 * @io_reads:	NAND image: device pages read from the image.
 * @io_writes:	NAND image: device pages written to it (write-backs).
 * @io_overruns: NAND image: faults whose image reads (their page, the
 *		pages they prefetched) ended after the modeled completion.
 * @io_over_ns:	the time by which they overran, summed, ns.
 * @io_errors:	image reads or writes that failed (the miss gets SIGBUS,
 *		the write-back's data is lost).
 * @dirty_shutdowns: NAND image: power failures that lost dirty lines, over
 *		the image's life (kept in its header; not reset).
 * @lines_lost:	NAND image: dirty lines the last of them lost.
 * @power_failing: a modeled power failure (power_fail) is powering the
 *		device off: its dirty lines are lost, not written back.
 * @pslots:	devdax: the fault path's page locks and filler records,
 *		CXD_PG_* bits (devdax/devdax.h): one slot per device page
 *		(@pslot_mask + 1 >= @npages), or, with a NAND image, a hash
 *		table of four slots per cache line, which pages share.
 * @pslot_mask:	slots - 1 (a power of two minus one).
 * @fills:	devdax: slots that record a filling mapping
 *		(CXD_PG_FILLER).
 * @vma_lock:	protects @vmas and @nvmas.
 * @vmas:	devdax mappings (devdax/scan.c's struct cxd_vma_ref).
 * @nvmas:	entries of @vmas.
 * @scan_work:	devdax: the periodic accessed-bit scan (devdax/scan.c).
 * @drain_work:	the background write-back drain (device.c).
 * @scan_interval_ms: scan period, ms; 0: stopped (cxd_mode_ops.scan_interval).
 * @scan_passes: scan passes (under @lock).
 * @scan_touched: pages found accessed (under @lock).
 * @scan_ns_total: time the scan passes took, ns (CLOCK_MONOTONIC, from a
 *		pass's start to its end, waits for locks included; under @lock).
 * @node:	node mode (hotplug/node.c), else NULL.
 * @open_mutex:	devdax: serialises the first open and the last release,
 *		which take and drop the configfs pin (see @open_count).
 * @open_lock:	devdax: protects @open_count and @dead.
 * @open_count:	devdax: open files (see below).
 * @dead:	devdax: power-off has begun; no open succeeds.
 *
 * Lifetime: created by cxd_power_on(), torn down by cxd_power_off(); the
 * memory is freed by the release of @dev once the last reference is gone.
 *
 * Open files (devdax): @open_count is the one thing an open file holds;
 * an mmap holds its file open. While it is not zero:
 * - power-off refuses with -EBUSY; once it is zero power-off sets @dead,
 *   so no open succeeds afterwards;
 * - the device pins its configfs item (cxd_dev_pin(), taken by the open
 *   that makes it 1, dropped by the release that makes it 0), so rmdir
 *   refuses with -EBUSY instead of reaching a power-off that must not
 *   fail.
 * The memory outlives every open file without a reference of ours: an open
 * file holds @cdev (chrdev_open() to after ->release), and @cdev holds
 * @dev (cdev_device_add()).
 *
 * Locking:
 * - @lock (spinlock) protects @model, @miss_hist, the measured counters
 *   (@miss_ns_total, @pinned_evictions, ...), @stats_t0_ns, @stats_gen,
 *   @reshaping.
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
 * - @pslots hold one sleeping bit lock per slot (CXD_PG_LOCK). A fault holds
 *   its page's slot lock from the residency check to the PTE insert, so
 *   concurrent faults on one page coalesce into one NAND read (pages that
 *   share a slot wait for each other).
 * - @open_mutex is never taken under cxd_cfg_mutex: configfs_depend_item()
 *   takes configfs's root inode lock, and rmdir takes cxd_cfg_mutex under
 *   a configfs inode lock. Power-off takes only @open_lock.
 */
struct cxd_live {
	struct cxd_dev *cfg_dev;
	const struct cxd_mode_ops *ops;
	struct device dev;
	struct cdev cdev;
	struct inode *inode;

	u64 npages;
	struct page **pages;
	struct cxd_img *img;
	struct cxd_resv *resv;
	struct cxd_range range;

	spinlock_t lock;
	bool reshaping;
	wait_queue_head_t reshape_wq;
	struct cxd_model model;
	void *model_mem;
	struct cxd_hist miss_hist;
	u64 miss_ns_total;
	u64 fault_model_ns_total;
	u64 fault_unmap_ns_total;
	u64 fault_unmaps;
	u64 miss_entry_ns_total;
	u64 miss_entry_stamped;
	u64 minor_faults;
	u64 minor_fault_ns_total;
	u64 miss_tail_ns;
	u64 stats_t0_ns;
	u64 stats_gen;
	u64 pinned_evictions;
	u64 pinned_released;
	u64 io_reads;
	u64 io_writes;
	u64 io_overruns;
	u64 io_over_ns;
	u64 io_errors;
	u64 dirty_shutdowns;
	u64 lines_lost;
	bool power_failing;

	struct cxd_pslot *pslots;
	u64 pslot_mask;
	atomic_t fills;

	struct mutex vma_lock;
	struct list_head vmas;
	unsigned int nvmas;
	struct delayed_work scan_work;
	struct work_struct drain_work;
	unsigned int scan_interval_ms;
	u64 scan_passes;
	u64 scan_touched;
	u64 scan_ns_total;

	struct cxd_node *node;

	struct mutex open_mutex;
	spinlock_t open_lock;
	unsigned int open_count;
	bool dead;
};

/**
 * cxd_model_lock() - take @live->lock to call into @live's model, first
 * waiting (asleep) for a policy switch under way to end (struct cxd_live,
 * Locking).
 * @live:	powered device.
 *
 * Context: process, may sleep; no spinlock held. Release with
 * spin_unlock(&@live->lock).
 */
static inline void cxd_model_lock(struct cxd_live *live)
	__acquires(&live->lock)
{
	spin_lock(&live->lock);
	while (unlikely(live->reshaping)) {
		spin_unlock(&live->lock);
		wait_event(live->reshape_wq, !READ_ONCE(live->reshaping));
		spin_lock(&live->lock);
	}
}

/**
 * cxd_dev_to_live() - the powered device whose class device is @dev.
 * @dev:	&cxd_live.dev.
 * Return: the struct cxd_live that embeds @dev.
 */
static inline struct cxd_live *cxd_dev_to_live(struct device *dev)
{
	return container_of(dev, struct cxd_live, dev);
}

/* device.c */
extern struct mutex cxd_cfg_mutex;
extern struct workqueue_struct *cxd_wq;
int cxd_device_init(void);
void cxd_device_quiesce(void);
void cxd_device_exit(void);
void cxd_mode_register(enum cxd_mode mode, const struct cxd_mode_ops *ops);
const char *cxd_mode_param_check(int id, u64 v, int *err);
u64 cxd_mode_param_default(int id, u64 want, u64 fallback);
int cxd_power_on(struct cxd_dev *d);
int cxd_power_off(struct cxd_dev *d);
int cxd_power_fail(struct cxd_dev *d);
int cxd_dev_pin(struct cxd_dev *d);
int cxd_dev_pin_unlocked(struct cxd_dev *d);
void cxd_dev_unpin(struct cxd_dev *d);
void cxd_model_apply_runtime(struct cxd_model *m, const struct cxd_cfg *c);
void cxd_apply_policy(struct cxd_live *live, const struct cxd_cfg *c);

/* sysfs.c */
extern const struct attribute_group *cxd_dev_groups[];

/* range.c */
int cxd_check_reserved_range(struct cxd_dev *d, u64 start, u64 size);
struct cxd_dev *cxd_range_owner(u64 start, u64 size, enum cxd_mode mode);
void cxd_range_claim(struct cxd_live *live, u64 start, u64 size);
void cxd_range_release(struct cxd_live *live);

/* miss.c: shared by the devdax fault path and node-mode latency */
bool cxd_wait_sleeps(u64 ns);
int cxd_wait_until(u64 deadline);
/**
 * struct cxd_miss_stages - where a devdax miss spent its time before the
 * wait (CLOCK_MONOTONIC ns, see cxd_account_miss()).
 * @model_ns:	handler entry to the model's answer: page lock bit, device
 *		lock, cxd_model_access() (victim choice included).
 * @unmap_ns:	from there to the start of the wait: the victims unmapped
 *		from every mapping (plus the access tracepoint and the drain
 *		kick, both nearly free when unused).
 * @unmaps:	victims unmapped.
 * @entry_ns:	the fault's entry (x86 page_fault_user tracepoint,
 *		fentry.c) to its handler; 0 when the entry was not stamped.
 * @io_reads:	NAND image reads the miss made (its page, its prefetches;
 *		stats/io_reads).
 * @io_over_ns:	how much later than the wait's target they ended, ns
 *		(stats/io_overruns, io_over_ns); 0 if not later.
 */
struct cxd_miss_stages {
	u64 entry_ns;
	u64 model_ns;
	u64 unmap_ns;
	u32 unmaps;
	u32 io_reads;
	u64 io_over_ns;
};
void cxd_account_miss(struct cxd_live *live, u64 page, bool write, u64 t0,
		      const struct cxd_access *acc,
		      const struct cxd_miss_stages *st);
/* cxd_tail_update()'s step towards each sample, ns: 100 misses reach 1 us */
#define CXD_TAIL_STEP_NS	10
void cxd_tail_update(struct cxd_live *live, u64 ns);

/* devdax/scan.c: the load-time self-test of the kernel's page-table walk */
bool cxd_scan_walk_works(void);

/**
 * cxd_cycles() - a timestamp for timing the stages of one fault: the TSC,
 * read unordered (one instruction; ktime_get_ns() reads the clocksource,
 * under TCG the HPET, about 80 instructions).
 * Context: any. Return: TSC cycles.
 */
static inline u64 cxd_cycles(void)
{
	return rdtsc();
}

/**
 * cxd_cycles_ns() - ns between two TSC stamps (cxd_cycles(), at tsc_khz).
 * @from:	the earlier stamp, cycles.
 * @to:		the later stamp, cycles.
 *
 * Stamps of two CPUs (a fault that slept and woke elsewhere) are apart by
 * their TSCs' skew too, which the kernel keeps small where it trusts them.
 * Context: any.
 * Return: ns; 0 if @to is not later (another CPU's TSC) or tsc_khz is
 * unknown.
 */
static inline u64 cxd_cycles_ns(u64 from, u64 to)
{
	unsigned int khz = READ_ONCE(tsc_khz);

	if (!khz || to <= from)
		return 0;
	return mul_u64_u32_div(to - from, USEC_PER_SEC, khz);
}

/* fentry.c */
int cxd_fentry_get(void);
void cxd_fentry_exit(void);
u64 cxd_fentry_gap_va(unsigned long addr, u64 *now_ns);
u64 cxd_fentry_gap(const struct vm_fault *vmf, u64 *now_ns);

/* trace.c */
void cxd_trace_miss(struct cxd_live *live, u64 page, bool write, u64 t0,
		    u64 t1, const struct cxd_access *acc);
void cxd_trace_access(struct cxd_live *live, u64 page, u64 t0,
		      const struct cxd_access *acc);
void cxd_trace_drain(struct cxd_live *live, const struct cxd_victim *v,
		     unsigned int n);
void cxd_trace_writeback(struct cxd_live *live, u64 page, bool drain);

/* configfs.c */
int cxd_configfs_init(void);
void cxd_configfs_exit(void);

#define cxd_warn(d, fmt, ...) \
	pr_warn(CXD_NAME ": %s: " fmt "\n", config_item_name(&(d)->item), ##__VA_ARGS__)

#endif /* CXDVIRT_H */
