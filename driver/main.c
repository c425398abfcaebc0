// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt: emulated CXL-SSDs on a stock kernel.
 *
 * Module setup: the char device region, the device class, the pseudo
 * filesystem that gives every device one private address_space, and the
 * configfs subsystem through which devices are made.
 */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/pseudo_fs.h>

#include "compat.h"
#include "cxdvirt.h"
#include "../hotplug/node.h"

#define CXD_FS_MAGIC	0x63786476	/* "cxdv" */

/*
 * cxd_cfg_mutex serialises every configuration change and power transition
 * of every device (configfs stores, power on/off, rmdir). It is never taken
 * on the fault path.
 */
DEFINE_MUTEX(cxd_cfg_mutex);
struct class *cxd_class;
dev_t cxd_devt_base;
struct vfsmount *cxd_mnt;

static int cxd_fs_init_fs_context(struct fs_context *fc)
{
	return init_pseudo(fc, CXD_FS_MAGIC) ? 0 : -ENOMEM;
}

static struct file_system_type cxd_fs_type = {
	.name		 = CXD_NAME,
	.init_fs_context = cxd_fs_init_fs_context,
	.kill_sb	 = kill_anon_super,
};

static char *cxd_devnode(CXD_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0600;
	return NULL;
}

static int __init cxd_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&cxd_devt_base, 0, CXD_MAX_DEVICES, CXD_NAME);
	if (ret)
		return ret;

	cxd_class = cxd_class_create(CXD_NAME);
	if (IS_ERR(cxd_class)) {
		ret = PTR_ERR(cxd_class);
		goto err_region;
	}
	cxd_class->devnode = cxd_devnode;
	cxd_class->dev_groups = cxd_dev_groups;

	cxd_mnt = kern_mount(&cxd_fs_type);
	if (IS_ERR(cxd_mnt)) {
		ret = PTR_ERR(cxd_mnt);
		goto err_class;
	}

	cxd_scan_selftest();

	ret = cxd_node_init();
	if (ret)
		goto err_mnt;

	ret = cxd_configfs_init();
	if (ret)
		goto err_node;

	pr_info(CXD_NAME ": loaded\n");
	return 0;

err_node:
	cxd_node_exit();
err_mnt:
	kern_unmount(cxd_mnt);
err_class:
	class_destroy(cxd_class);
err_region:
	unregister_chrdev_region(cxd_devt_base, CXD_MAX_DEVICES);
	return ret;
}

static void __exit cxd_exit(void)
{
	/* configfs pins the module while any device directory exists. */
	cxd_configfs_exit();
	cxd_node_exit();
	kern_unmount(cxd_mnt);
	class_destroy(cxd_class);
	unregister_chrdev_region(cxd_devt_base, CXD_MAX_DEVICES);
	pr_info(CXD_NAME ": unloaded\n");
}

module_init(cxd_init);
module_exit(cxd_exit);

MODULE_DESCRIPTION("cxdvirt: emulated CXL-SSDs (DRAM cache in front of NAND) as devdax-style devices");
MODULE_AUTHOR("The cxdvirt authors");
MODULE_LICENSE("GPL");
