// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt: emulated CXL-SSDs on a stock kernel.
 *
 * Module setup, bottom up: the core (char device region, device class),
 * devdax mode (the pseudo filesystem that gives every device one private
 * address_space), node mode, and last the configfs subsystem through which
 * devices are made.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>

#include "cxdvirt.h"
#include "devdax.h"
#include "node.h"

static int __init cxd_init(void)
{
	int ret;

	ret = cxd_device_init();
	if (ret)
		return ret;

	ret = cxd_devdax_init();
	if (ret)
		goto err_device;

	ret = cxd_node_init();
	if (ret)
		goto err_devdax;

	ret = cxd_configfs_init();
	if (ret)
		goto err_node;

	pr_info(CXD_NAME ": loaded\n");
	return 0;

err_node:
	cxd_node_exit();
err_devdax:
	cxd_devdax_exit();
err_device:
	cxd_device_exit();
	return ret;
}

static void __exit cxd_exit(void)
{
	/* configfs pins the module while any device directory exists. */
	cxd_configfs_exit();
	/* works queued for devices already powered off end here */
	cxd_device_quiesce();
	cxd_node_exit();
	cxd_devdax_exit();
	cxd_device_exit();
	cxd_fentry_exit();
	/*
	 * A node-mode task_work drops its module reference as its last act
	 * (cxd_nl_work_fn()), then still has to return through our code. An
	 * RCU-tasks grace period ends only once every task has switched out
	 * voluntarily or run in user space since it began, so none is left
	 * in this module's text when its memory goes.
	 */
	synchronize_rcu_tasks();
	pr_info(CXD_NAME ": unloaded\n");
}

module_init(cxd_init);
module_exit(cxd_exit);

MODULE_DESCRIPTION("cxdvirt: emulated CXL-SSDs (DRAM cache in front of NAND) as devdax-style devices");
MODULE_AUTHOR("The cxdvirt authors");
MODULE_LICENSE("GPL");
