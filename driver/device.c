// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt core: power on and off, and the glue between a powered device and
 * its model.
 *
 * Power-on checks the configuration, builds a struct cxd_live with its model
 * and class device, then hands it to its mode (struct cxd_mode_ops:
 * devdax/devdax.c or hotplug/node.c) to present; a device with a phys_addr
 * range then owns it in the core's table (range.c) until power-off.
 * Power-off asks the mode whether the device may go (-EBUSY while a devdax
 * file is open or mapped, or while node-mode memory is online), stops the
 * scan and the drain, and lets the mode remove what it added; the memory
 * goes with the last reference.
 *
 * The model glue: the settings that may change while powered
 * (cxd_model_apply_runtime(), cxd_apply_policy()) and the background
 * write-back drain (cxd_drain_work()).
 */
#include <linux/configfs.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include <cxdvirt/params.h>

#include "compat.h"
#include "cxdvirt.h"

/*
 * cxd_cfg_mutex serialises every configuration change and power transition
 * of every device (configfs stores, power on/off, rmdir). It is never taken
 * on the fault path.
 */
DEFINE_MUTEX(cxd_cfg_mutex);

static struct class *cxd_class;
static dev_t cxd_devt_base;

/*
 * The module's own workqueue: every work of the module runs on it (the
 * drains and scans of both modes, node mode's arrivals, devdax's polls of
 * held ranges). Unload flushes it before any part of the module goes and
 * destroys it last, so a work queued with a reference on a device but none
 * on the module (a node-mode drain queued as power-off ends) still finishes
 * in module code that exists.
 */
struct workqueue_struct *cxd_wq;
static const struct cxd_mode_ops *cxd_modes[CXD_MODE_NODE + 1];

/**
 * cxd_mode_register() - make @ops what power-on and power-off do for @mode.
 * @mode:	the mode.
 * @ops:	its operations; must outlive the module's devices.
 * Context: module init, before configfs is registered.
 */
void cxd_mode_register(enum cxd_mode mode, const struct cxd_mode_ops *ops)
{
	cxd_modes[mode] = ops;
}

/**
 * cxd_mode_param_check() - may parameter @id take value @v, for every mode?
 * @id:	enum cxd_param_id.
 * @v:	the value, within the table's bounds (an INT's two's complement).
 * @err:	set to the errno of a refusal.
 *
 * Asks each registered mode's param_check in turn (struct cxd_mode_ops):
 * a mode's own parameters depend on what the machine and the running kernel
 * can do, which only the mode knows.
 * Context: process.
 * Return: NULL, or the first refusing mode's reason, *@err its errno.
 */
const char *cxd_mode_param_check(int id, u64 v, int *err)
{
	const char *why;
	unsigned int m;

	for (m = 0; m < ARRAY_SIZE(cxd_modes); m++) {
		if (!cxd_modes[m] || !cxd_modes[m]->param_check)
			continue;
		why = cxd_modes[m]->param_check(id, v, err);
		if (why)
			return why;
	}
	return NULL;
}

/**
 * cxd_mode_param_default() - the default of parameter @id on this kernel:
 * @want where every mode accepts it (cxd_mode_param_check()), else
 * @fallback. The parameter table (include/cxdvirt/params.h) uses it for a
 * default that depends on the kernel (node_latency: on where supported).
 * @id:		enum cxd_param_id.
 * @want:	the default where the kernel allows it.
 * @fallback:	the default otherwise.
 * Context: process (a new device's defaults, configfs mkdir).
 * Return: @want or @fallback.
 */
u64 cxd_mode_param_default(int id, u64 want, u64 fallback)
{
	int err;

	return cxd_mode_param_check(id, want, &err) ? fallback : want;
}

/**
 * cxd_dev_pin() - make rmdir of @d's configfs folder fail with -EBUSY until
 * cxd_dev_unpin() (configfs_depend_item()).
 * @d:	configured device.
 * Context: process, may sleep; not from a configfs callback, not under
 * cxd_cfg_mutex (it takes configfs's root inode lock).
 * Return: 0, or -ENOENT while the folder is being removed.
 */
int cxd_dev_pin(struct cxd_dev *d)
{
	return configfs_depend_item(d->item.ci_group->cg_subsys, &d->item);
}

/**
 * cxd_dev_pin_unlocked() - cxd_dev_pin() from a configfs callback of @d's
 * own subsystem (configfs_depend_item_unlocked()).
 * @d:	configured device.
 * Context: process; a store of @d's configfs subsystem.
 * Return: 0, or -ENOENT while the folder is being removed.
 */
int cxd_dev_pin_unlocked(struct cxd_dev *d)
{
	return configfs_depend_item_unlocked(d->item.ci_group->cg_subsys,
					     &d->item);
}

/**
 * cxd_dev_unpin() - undo cxd_dev_pin() or cxd_dev_pin_unlocked().
 * @d:	configured device.
 * Context: any; does not sleep.
 */
void cxd_dev_unpin(struct cxd_dev *d)
{
	configfs_undepend_item(&d->item);
}

/**
 * cxd_model_apply_runtime() - copy the settings that may change while a
 * device is powered (NAND timing, prefetch, write policy) from @c into @m,
 * as the table lists them (CXD_PARAMS_TO_MODEL()); the replacement policy
 * and CFLRU window are cxd_apply_policy()'s. O(1).
 * @m:	the powered device's model.
 * @c:	its configuration.
 * Context: caller holds the device's lock (cxd_model_lock()).
 */
void cxd_model_apply_runtime(struct cxd_model *m, const struct cxd_cfg *c)
{
	CXD_PARAMS_TO_MODEL(m, &c->p);
}

/*
 * Steps of a policy switch per device-lock hold. A step visits one line,
 * set or ghost slot in O(1) (a few ns), so a hold stays in the tens of us
 * however large the cache.
 */
#define CXD_RESHAPE_STEPS	8192

/* Run the reshape just begun on @live's cache to its end. Called under @live->lock. */
static void cxd_reshape_run(struct cxd_live *live)
{
	struct cxd_cache *c = &live->model.cache;

	if (!cxd_cache_reshaping(c))
		return;
	live->reshaping = true;
	while (!cxd_cache_reshape_step(c, CXD_RESHAPE_STEPS)) {
		spin_unlock(&live->lock);
		cond_resched();
		spin_lock(&live->lock);
	}
	live->reshaping = false;
	wake_up_all(&live->reshape_wq);
}

/**
 * cxd_apply_policy() - switch powered device @live to the replacement policy
 * and CFLRU window of @c, keeping residency and dirty state.
 * @live:	powered device.
 * @c:	its configuration.
 *
 * Each is O(cache lines) of work, done in steps of CXD_RESHAPE_STEPS with
 * @live->lock dropped (and cond_resched()) between steps; meanwhile model
 * users sleep in cxd_model_lock() instead of spinning on the lock.
 *
 * Context: process, may sleep; caller holds cxd_cfg_mutex (one switch at a
 * time), not @live->lock.
 */
void cxd_apply_policy(struct cxd_live *live, const struct cxd_cfg *c)
{
	cxd_model_lock(live);
	if (!cxd_cache_set_policy_begin(&live->model.cache, c->p.policy))
		cxd_reshape_run(live);
	if (!cxd_cache_set_cflru_window_begin(&live->model.cache,
					      c->p.cflru_window_pct))
		cxd_reshape_run(live);
	spin_unlock(&live->lock);
}

#define CXD_DRAIN_BATCH	32

/**
 * cxd_drain_work() - the background write-back drain (writeback = drain).
 * @work: the device's drain_work, queued by an access that pushed
 *	  occupancy above drain_high_pct.
 *
 * Evicts down to drain_low_pct in batches of CXD_DRAIN_BATCH lines, holding
 * the device lock only while the model picks a batch, and takes each batch
 * away from its users outside it through the mode (cxd_mode_ops.evict; the
 * fault path's residency re-check covers a page mapped meanwhile). Dirty
 * victims are written back at the time the batch runs, occupying their dies
 * like any write-back.
 * Context: workqueue (process), may sleep.
 */
static void cxd_drain_work(struct work_struct *work)
{
	struct cxd_live *live = container_of(work, struct cxd_live, drain_work);
	struct cxd_victim v[CXD_DRAIN_BATCH];
	unsigned int i, n;

	do {
		cxd_model_lock(live);
		n = cxd_model_drain(&live->model, ktime_get_ns(), v,
				    CXD_DRAIN_BATCH);
		spin_unlock(&live->lock);
		cxd_trace_drain(live, v, n);
		for (i = 0; i < n; i++)
			live->ops->evict(live, &v[i]);
		cond_resched();
	} while (n == CXD_DRAIN_BATCH);
}

/* Last reference to the powered device is gone: free what is left. */
static void cxd_live_release(struct device *dev)
{
	struct cxd_live *live = cxd_dev_to_live(dev);

	if (live->ops->release)
		live->ops->release(live);
	kvfree(live->model_mem);
	config_item_put(&live->cfg_dev->item);
	kfree(live);
}

/**
 * cxd_power_on() - bring device @d up as /dev/cxdvirt<index> (devdax/), or
 * in node mode as a dax device for its target node (hotplug/node.c).
 * @d:	configured device.
 * Context: process; caller holds cxd_cfg_mutex; @d is not powered.
 * Return: 0; -EINVAL for an inconsistent configuration or an unusable
 * phys_addr range (one log line says why); -ENOMEM; or the error of
 * creating the char device or registering the dax device.
 */
int cxd_power_on(struct cxd_dev *d)
{
	struct cxd_cfg *c = &d->cfg;
	u64 npages = c->p.capacity / CXD_HOST_PAGE_SIZE;
	struct cxd_live *live;
	const char *why;
	size_t msize;
	int ret;

	/* The model's own checks, as cxdvirt-sim makes them. */
	why = cxd_model_setup_check(&c->p, npages, &msize);
	if (why) {
		cxd_warn(d, "power: %s", why);
		return -EINVAL;
	}

	live = kzalloc(sizeof(*live), GFP_KERNEL);
	if (!live)
		return -ENOMEM;
	/* Keep @d's memory until the last reference of this power cycle. */
	live->cfg_dev = d;
	config_item_get(&d->item);
	live->ops = cxd_modes[c->mode];
	live->npages = npages;
	spin_lock_init(&live->lock);
	init_waitqueue_head(&live->reshape_wq);
	INIT_WORK(&live->drain_work, cxd_drain_work);
	device_initialize(&live->dev);
	live->dev.class = cxd_class;
	live->dev.devt = MKDEV(MAJOR(cxd_devt_base), d->index);
	live->dev.release = cxd_live_release;
	dev_set_drvdata(&live->dev, live);
	ret = dev_set_name(&live->dev, CXD_NAME "%d", d->index);
	if (ret)
		goto err_put;

	ret = -ENOMEM;
	/*
	 * About 4 bytes per device page (the cache's page table) plus the
	 * lines: 16 GiB for a 16 TiB device. Never more than the host has.
	 */
	if (msize / PAGE_SIZE >= totalram_pages()) {
		cxd_warn(d, "power: the model's state needs %zu bytes (about 4 per device page and 32 per cache line), more than the host's memory (%llu bytes): lower capacity or cache_size",
			 msize, (u64)totalram_pages() << PAGE_SHIFT);
		goto err_put;
	}
	/* kvzalloc() refuses more than INT_MAX bytes: devices from 2 TiB */
	live->model_mem = msize <= INT_MAX ?
			  kvzalloc(msize, GFP_KERNEL | __GFP_NOWARN) :
			  vzalloc(msize);
	if (!live->model_mem) {
		cxd_warn(d, "power: cannot allocate the model's state (%zu bytes, about 4 per device page and 32 per cache line)",
			 msize);
		goto err_put;
	}
	/* Not visible yet: the (empty) cache takes its policy at once. */
	why = cxd_model_setup(&live->model, &c->p, npages, live->model_mem);
	if (why) {
		cxd_warn(d, "power: %s", why);
		ret = -EINVAL;
		goto err_put;
	}
	live->stats_t0_ns = ktime_get_ns();

	ret = live->ops->attach(d, live);
	if (ret)
		goto err_put;
	/* The mode checked the range free (cxd_range_owner()): it is ours. */
	if (c->phys_addr)
		cxd_range_claim(live, c->phys_addr, c->p.capacity);
	d->live = live;
	return 0;

err_put:
	put_device(&live->dev);
	return ret;
}

/**
 * cxd_power_off() - tear down powered device @d: the mode's close, then the
 * mode's scan (cxd_mode_ops.scan_interval, 0) and the drain stop, then the
 * mode's detach; its range, if any, is given up (cxd_range_release()).
 * @d:	configured device, powered.
 * Context: process; caller holds cxd_cfg_mutex.
 * Return: 0, or -EBUSY (nothing changes) while a file of the device is open
 * or mapped, or, in node mode, while part of its range is online memory.
 */
int cxd_power_off(struct cxd_dev *d)
{
	struct cxd_live *live = d->live;

	if (live->ops->close(live))
		return -EBUSY;
	live->ops->scan_interval(live, 0);
	cancel_work_sync(&live->drain_work);
	live->ops->detach(live);
	cxd_range_release(live);
	d->live = NULL;
	put_device(&live->dev);
	return 0;
}

/**
 * cxd_power_fail() - a modeled sudden power loss of powered devdax device
 * @d with a NAND image: power-off without writing its dirty lines back
 * (they are lost; the image keeps their older contents), counted in the
 * image's header (stats/dirty_shutdowns, stats/lines_lost).
 * @d:	configured device, powered, with a NAND image.
 * Context: process; caller holds cxd_cfg_mutex.
 * Return: 0, or -EBUSY (nothing changes) while a file of the device is
 * open or mapped.
 */
int cxd_power_fail(struct cxd_dev *d)
{
	int ret;

	d->live->power_failing = true;
	ret = cxd_power_off(d);
	if (ret)
		d->live->power_failing = false;
	return ret;
}

static char *cxd_devnode(CXD_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0600;
	return NULL;
}

/**
 * cxd_device_init() - module load: the char device region (minor = device
 * index) and the class of the devices (/sys/class/cxdvirt).
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int cxd_device_init(void)
{
	int ret;

	cxd_wq = alloc_workqueue(CXD_NAME, WQ_UNBOUND, 0);
	if (!cxd_wq)
		return -ENOMEM;
	ret = alloc_chrdev_region(&cxd_devt_base, 0, CXD_MAX_DEVICES, CXD_NAME);
	if (ret)
		goto err_wq;
	cxd_class = cxd_class_create(CXD_NAME);
	if (IS_ERR(cxd_class)) {
		ret = PTR_ERR(cxd_class);
		goto err_region;
	}
	cxd_class->devnode = cxd_devnode;
	cxd_class->dev_groups = cxd_dev_groups;
	return 0;

err_region:
	unregister_chrdev_region(cxd_devt_base, CXD_MAX_DEVICES);
err_wq:
	destroy_workqueue(cxd_wq);
	return ret;
}

/**
 * cxd_device_quiesce() - module unload, first step once no device is
 * configured: wait for the works still queued on cxd_wq (a node-mode drain
 * queued after its device's power-off holds the device, not the module),
 * so that they end, and release what they hold, while every part of the
 * module is still there. Delayed works are their owners' to cancel.
 * Context: module exit, may sleep.
 */
void cxd_device_quiesce(void)
{
	flush_workqueue(cxd_wq);
}

/**
 * cxd_device_exit() - module unload; no device is powered. Destroys
 * cxd_wq (which waits for any work still on it) before the class goes.
 */
void cxd_device_exit(void)
{
	destroy_workqueue(cxd_wq);
	class_destroy(cxd_class);
	unregister_chrdev_region(cxd_devt_base, CXD_MAX_DEVICES);
}
