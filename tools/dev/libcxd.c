// SPDX-License-Identifier: GPL-2.0
/*
 * Every access to the module's files: the configfs directory of each device
 * (configuration) and the sysfs directory of each powered device (state and
 * statistics). The verbs call these and never build paths themselves.
 *
 * The roots can be moved with environment variables so the tool can be
 * tested against a fake tree: CXDVIRT_CONFIGFS (default
 * /sys/kernel/config/cxdvirt), CXDVIRT_SYSFS (default /sys/class/cxdvirt)
 * and CXDVIRT_MEMORY_SYSFS (default /sys/devices/system/memory, where
 * auto_online_blocks is).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cxdvirt-dev.h"

#define DEFAULT_CONFIGFS	"/sys/kernel/config/cxdvirt"
#define DEFAULT_SYSFS		"/sys/class/cxdvirt"
#define DEFAULT_MEMORY		"/sys/devices/system/memory"
#define CONFIGFS_MOUNT		"/sys/kernel/config"
#define CONFIGFS_MAGIC		0x62656570

static const char *env_or(const char *var, const char *def)
{
	const char *v = getenv(var);

	return v && *v ? v : def;
}

/** cxd_configfs_root() - the configfs directory holding one dir per device. */
const char *cxd_configfs_root(void)
{
	return env_or("CXDVIRT_CONFIGFS", DEFAULT_CONFIGFS);
}

/** cxd_sysfs_root() - the class directory holding cxdvirtN per powered device. */
const char *cxd_sysfs_root(void)
{
	return env_or("CXDVIRT_SYSFS", DEFAULT_SYSFS);
}

/** cxd_memory_root() - the memory hotplug directory (auto_online_blocks). */
const char *cxd_memory_root(void)
{
	return env_or("CXDVIRT_MEMORY_SYSFS", DEFAULT_MEMORY);
}

/**
 * cxd_errhint() - a hint to add to strerror(@err), or NULL.
 * @err:	a positive errno value.
 */
const char *cxd_errhint(int err)
{
	if ((err == EACCES || err == EPERM) && geteuid() != 0)
		return "needs root";
	return NULL;
}

/**
 * cxd_check_root() - check the configfs root exists; say why not if it does
 * not (configfs not mounted, module not loaded, no permission).
 *
 * Return: 0, or -1 after printing one line.
 */
int cxd_check_root(void)
{
	const char *root = cxd_configfs_root();
	struct statfs sfs;
	struct stat st;

	if (!stat(root, &st)) {
		if (S_ISDIR(st.st_mode))
			return 0;
		err_msg("configfs %s is not a directory", root);
		return -1;
	}
	if (errno == EACCES) {
		err_msg("configfs %s: %s%s", root, strerror(errno),
			cxd_errhint(errno) ? ": needs root" : "");
		return -1;
	}
	if (getenv("CXDVIRT_CONFIGFS") && *getenv("CXDVIRT_CONFIGFS"))
		err_msg("configfs %s (from CXDVIRT_CONFIGFS) not found", root);
	else if (statfs(CONFIGFS_MOUNT, &sfs) || sfs.f_type != CONFIGFS_MAGIC)
		err_msg("configfs is not mounted on %s: is the cxdvirt module loaded? (mount -t configfs none %s)",
			CONFIGFS_MOUNT, CONFIGFS_MOUNT);
	else
		err_msg("configfs %s not found: is the cxdvirt module loaded?", root);
	return -1;
}

/**
 * cxd_name_valid() - is @name a device name the kernel can accept:
 * 1..31 characters from [A-Za-z0-9_.-], not "." or "..".
 */
bool cxd_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > CXD_DEV_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

/**
 * cxd_dev_path() - path of device @name's configfs directory, or of its
 * attribute @attr if @attr is not NULL.
 * @buf, @len:	where to write the path (@len in bytes).
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int cxd_dev_path(const char *name, const char *attr, char *buf, size_t len)
{
	int n;

	if (attr)
		n = snprintf(buf, len, "%s/%s/%s", cxd_configfs_root(), name, attr);
	else
		n = snprintf(buf, len, "%s/%s", cxd_configfs_root(), name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/**
 * cxd_dev_exists() - 1 if device @name has a configfs directory, 0 if not,
 * -errno if that cannot be told.
 */
int cxd_dev_exists(const char *name)
{
	char path[4096];
	struct stat st;

	if (cxd_dev_path(name, NULL, path, sizeof(path)))
		return -ENAMETOOLONG;
	if (!stat(path, &st))
		return S_ISDIR(st.st_mode);
	return errno == ENOENT ? 0 : -errno;
}

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/**
 * cxd_list_names() - the names of all devices, in natural order (cxd2
 * before cxd10).
 * @names:	set to a malloc'ed array of malloc'ed strings.
 * @n:		set to the number of names.
 *
 * Return: 0 or -errno.
 */
int cxd_list_names(char ***names, size_t *n)
{
	char **v = NULL, **nv;
	size_t cnt = 0;
	struct dirent *de;
	DIR *dir;

	dir = opendir(cxd_configfs_root());
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (cxd_dev_exists(de->d_name) != 1)
			continue;
		nv = realloc(v, (cnt + 1) * sizeof(*v));
		if (!nv)
			goto nomem;
		v = nv;
		v[cnt] = strdup(de->d_name);
		if (!v[cnt])
			goto nomem;
		cnt++;
	}
	closedir(dir);
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_names);
	*names = v;
	*n = cnt;
	return 0;
nomem:
	closedir(dir);
	cxd_free_names(v, cnt);
	return -ENOMEM;
}

/** cxd_free_names() - free what cxd_list_names() returned. */
void cxd_free_names(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/**
 * cxd_read_file() - read a small text file, without its trailing newlines.
 * @path:	the file.
 * @buf:	the content, NUL terminated (cut at @len - 1 bytes).
 * @len:	size of @buf in bytes.
 *
 * Return: 0 or -errno.
 */
int cxd_read_file(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (got + 1 < len) {
		r = read(fd, buf + got, len - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (!r)
			break;
		got += (size_t)r;
	}
	close(fd);
	while (got && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		got--;
	buf[got] = '\0';
	return 0;
}

/**
 * cxd_attr_read() - read configfs attribute @attr of device @name.
 * @buf, @len:	the value without trailing newline (@len in bytes).
 *
 * Return: 0 or -errno.
 */
int cxd_attr_read(const char *name, const char *attr, char *buf, size_t len)
{
	char path[4096];

	if (cxd_dev_path(name, attr, path, sizeof(path)))
		return -ENAMETOOLONG;
	return cxd_read_file(path, buf, len);
}

/**
 * cxd_attr_write() - write @val to configfs attribute @attr of device @name
 * in one write() call, as the kernel expects.
 * @why:	on failure, the kernel's reason from its log, or "" if none
 *		could be found (best effort).
 * @whylen:	size of @why in bytes.
 *
 * Return: 0 or -errno (-ENOENT: the device has no such attribute).
 */
int cxd_attr_write(const char *name, const char *attr, const char *val,
		   char *why, size_t whylen)
{
	size_t n = strlen(val);
	struct kmsg_mark mark;
	char path[4096];
	ssize_t r;
	int fd, err = 0;

	why[0] = '\0';
	if (cxd_dev_path(name, attr, path, sizeof(path)))
		return -ENAMETOOLONG;
	kmsg_mark(&mark);
	/* configfs takes each write() as the whole value; no O_TRUNC needed */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
	} else {
		r = write(fd, val, n);
		if (r < 0)
			err = -errno;
		else if ((size_t)r != n)
			err = -EIO;
		if (close(fd) && !err)
			err = -errno;
	}
	if (err && err != -ENOENT)
		kmsg_reason(&mark, name, why, whylen);
	kmsg_release(&mark);
	return err;
}

/**
 * cxd_dev_index() - N of /dev/cxdvirtN for device @name, from its configfs
 * `index` attribute.
 *
 * Return: 0 or -errno (-EINVAL if the attribute is not a number >= 0).
 */
int cxd_dev_index(const char *name, int *index)
{
	char buf[64];
	int64_t v;
	int ret;

	ret = cxd_attr_read(name, "index", buf, sizeof(buf));
	if (ret)
		return ret;
	if (parse_s64(buf, &v) || v < 0 || v > INT32_MAX)
		return -EINVAL;
	*index = (int)v;
	return 0;
}

/**
 * cxd_dev_power() - device @name's `power` attribute: 0 or 1.
 *
 * Return: 0 or -errno.
 */
int cxd_dev_power(const char *name, int *power)
{
	char buf[64];
	int ret;

	ret = cxd_attr_read(name, "power", buf, sizeof(buf));
	if (ret)
		return ret;
	if (strcmp(buf, "0") && strcmp(buf, "1"))
		return -EINVAL;
	*power = buf[0] == '1';
	return 0;
}

/**
 * cxd_sysfs_path() - path of @rel (e.g. "stats/misses", or "" for the
 * directory itself) in the sysfs directory of /dev/cxdvirt@index.
 * @buf, @len:	where to write it (@len in bytes).
 *
 * Return: 0, or -ENAMETOOLONG.
 */
int cxd_sysfs_path(int index, const char *rel, char *buf, size_t len)
{
	int n;

	n = snprintf(buf, len, "%s/cxdvirt%d%s%s", cxd_sysfs_root(), index,
		     *rel ? "/" : "", rel);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/**
 * cxd_mkdir() - create the configfs directory of device @name.
 * @why, @whylen: on failure, the kernel's logged reason or "".
 *
 * Return: 0 or -errno.
 */
int cxd_mkdir(const char *name, char *why, size_t whylen)
{
	struct kmsg_mark mark;
	char path[4096];
	int err = 0;

	why[0] = '\0';
	if (cxd_dev_path(name, NULL, path, sizeof(path)))
		return -ENAMETOOLONG;
	kmsg_mark(&mark);
	if (mkdir(path, 0755)) {
		err = -errno;
		if (err != -EEXIST)
			kmsg_reason(&mark, name, why, whylen);
	}
	kmsg_release(&mark);
	return err;
}

/**
 * cxd_rmdir() - remove the configfs directory of device @name.
 * @why, @whylen: on failure, the kernel's logged reason or "".
 *
 * Return: 0 or -errno (-EBUSY: the device is open or mapped).
 */
int cxd_rmdir(const char *name, char *why, size_t whylen)
{
	struct kmsg_mark mark;
	char path[4096];
	int err = 0;

	why[0] = '\0';
	if (cxd_dev_path(name, NULL, path, sizeof(path)))
		return -ENAMETOOLONG;
	kmsg_mark(&mark);
	if (rmdir(path)) {
		err = -errno;
		kmsg_reason(&mark, name, why, whylen);
	}
	kmsg_release(&mark);
	return err;
}

/**
 * cxd_sysfs_read() - read file @rel of the sysfs directory of
 * /dev/cxdvirt@index (see cxd_sysfs_path()).
 * @buf, @len:	the value without trailing newline (@len in bytes).
 *
 * Return: 0 or -errno.
 */
int cxd_sysfs_read(int index, const char *rel, char *buf, size_t len)
{
	char path[4096];

	if (cxd_sysfs_path(index, rel, path, sizeof(path)))
		return -ENAMETOOLONG;
	return cxd_read_file(path, buf, len);
}

/**
 * cxd_dev_is_node() - 1 if device @name is configured for node mode (its
 * configfs `mode` is "node"), 0 if not or if the module has no modes.
 */
int cxd_dev_is_node(const char *name)
{
	char buf[64];

	if (cxd_attr_read(name, "mode", buf, sizeof(buf)))
		return 0;
	return !strcmp(buf, "node");
}
