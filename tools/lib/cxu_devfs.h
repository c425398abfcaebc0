/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every access to the module's files (the daxctl "library" role): the
 * configfs directory of each device (configuration) and the sysfs
 * directory of each powered device (state and statistics). The tools call
 * these and build no configfs or sysfs path themselves.
 *
 * The roots can be moved with environment variables so the tools can be
 * tested against a fake tree: CXDVIRT_CONFIGFS (default
 * /sys/kernel/config/cxdvirt), CXDVIRT_SYSFS (default /sys/class/cxdvirt)
 * and CXDVIRT_MEMORY_SYSFS (default /sys/devices/system/memory, where
 * auto_online_blocks is).
 *
 * Errors are negative errno values; nothing here prints, except
 * cxu_check_root().
 */
#ifndef CXU_DEVFS_H
#define CXU_DEVFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest device name the kernel accepts (docs/interface.md). */
#define CXU_DEV_NAME_MAX	31
/* Longest attribute value read or written, bytes. */
#define CXU_VAL_MAX		4096

/**
 * cxu_env_or() - the value of environment variable @var, or @def when it
 * is unset or empty.
 */
const char *cxu_env_or(const char *var, const char *def);

/** cxu_configfs_root() - the configfs directory holding one dir per device. */
const char *cxu_configfs_root(void);

/** cxu_sysfs_root() - the class directory holding cxdvirtN per powered device. */
const char *cxu_sysfs_root(void);

/** cxu_memory_root() - the memory hotplug directory (auto_online_blocks). */
const char *cxu_memory_root(void);

/**
 * cxu_errhint() - a hint to add to strerror(@err), or NULL.
 * @err:	a positive errno value.
 */
const char *cxu_errhint(int err);

/**
 * cxu_check_root() - check the configfs root exists; say why not if it does
 * not (configfs not mounted, module not loaded, no permission).
 *
 * Return: 0, or -1 after printing one line.
 */
int cxu_check_root(void);

/**
 * cxu_name_valid() - is @name a device name the kernel can accept:
 * 1..31 characters from [A-Za-z0-9_.-], not "." or "..".
 */
bool cxu_name_valid(const char *name);

/**
 * cxu_dev_path() - path of device @name's configfs directory, or of its
 * attribute @attr if @attr is not NULL.
 * @buf, @len:	where to write the path (@len in bytes).
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int cxu_dev_path(const char *name, const char *attr, char *buf, size_t len);

/**
 * cxu_dev_exists() - 1 if device @name has a configfs directory, 0 if not,
 * -errno if that cannot be told.
 */
int cxu_dev_exists(const char *name);

/**
 * cxu_list_names() - the names of all devices, in natural order (cxd2
 * before cxd10).
 * @names:	set to a malloc'ed array of malloc'ed strings.
 * @n:		set to the number of names.
 *
 * Return: 0 or -errno.
 */
int cxu_list_names(char ***names, size_t *n);

/** cxu_free_names() - free what cxu_list_names() returned. */
void cxu_free_names(char **names, size_t n);

/**
 * cxu_read_file() - read a small text file, without its trailing newlines.
 * @path:	the file.
 * @buf:	the content, NUL terminated (cut at @len - 1 bytes).
 * @len:	size of @buf in bytes.
 *
 * Return: 0 or -errno.
 */
int cxu_read_file(const char *path, char *buf, size_t len);

/**
 * cxu_write_file() - write @val to a configfs or sysfs file in one write()
 * call, as the kernel expects.
 * @path:	the file.
 * @val:	the value, NUL-terminated (written without the NUL).
 *
 * Return: 0 or -errno (-EIO: the kernel took only part of @val).
 */
int cxu_write_file(const char *path, const char *val);

/**
 * cxu_attr_read() - read configfs attribute @attr of device @name.
 * @buf, @len:	the value without trailing newline (@len in bytes).
 *
 * Return: 0 or -errno.
 */
int cxu_attr_read(const char *name, const char *attr, char *buf, size_t len);

/**
 * cxu_attr_write() - write @val to configfs attribute @attr of device @name
 * in one write() call, as the kernel expects.
 * @why:	on failure, the kernel's reason from its log, or "" if none
 *		could be found (best effort).
 * @whylen:	size of @why in bytes.
 *
 * Return: 0 or -errno (-ENOENT: the device has no such attribute).
 */
int cxu_attr_write(const char *name, const char *attr, const char *val,
		   char *why, size_t whylen);

/**
 * cxu_dev_index() - N of /dev/cxdvirtN for device @name, from its configfs
 * `index` attribute.
 *
 * Return: 0 or -errno (-EINVAL if the attribute is not a number >= 0).
 */
int cxu_dev_index(const char *name, int *index);

/**
 * cxu_dev_power() - device @name's `power` attribute: 0 or 1.
 *
 * Return: 0 or -errno.
 */
int cxu_dev_power(const char *name, int *power);

/**
 * cxu_sysfs_path() - path of @rel (e.g. "stats/misses", or "" for the
 * directory itself) in the sysfs directory of /dev/cxdvirt@index.
 * @buf, @len:	where to write it (@len in bytes).
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int cxu_sysfs_path(int index, const char *rel, char *buf, size_t len);

/**
 * cxu_mkdir() - create the configfs directory of device @name.
 * @why, @whylen: on failure, the kernel's logged reason or "".
 *
 * Return: 0 or -errno.
 */
int cxu_mkdir(const char *name, char *why, size_t whylen);

/**
 * cxu_rmdir() - remove the configfs directory of device @name.
 * @why, @whylen: on failure, the kernel's logged reason or "".
 *
 * Return: 0 or -errno (-EBUSY: the device is open or mapped).
 */
int cxu_rmdir(const char *name, char *why, size_t whylen);

/**
 * cxu_sysfs_read() - read file @rel of the sysfs directory of
 * /dev/cxdvirt@index (see cxu_sysfs_path()).
 * @buf, @len:	the value without trailing newline (@len in bytes).
 *
 * Return: 0 or -errno.
 */
int cxu_sysfs_read(int index, const char *rel, char *buf, size_t len);

/**
 * cxu_dev_is_node() - 1 if device @name is configured for node mode (its
 * configfs `mode` is "node"), 0 if not or if the module has no modes.
 */
int cxu_dev_is_node(const char *name);

/**
 * cxu_read_u64() - read a file holding one number (a sysfs counter, a
 * configfs attribute): decimal or 0x-hex, see cxu_parse_u64().
 * @path:	the file.
 * @v:		the number; unchanged on error.
 *
 * Return: 0 or -errno (-EINVAL: not a number).
 */
int cxu_read_u64(const char *path, uint64_t *v);

#endif /* CXU_DEVFS_H */
