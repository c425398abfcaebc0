// SPDX-License-Identifier: GPL-2.0
/*
 * Every access to the module's configfs and sysfs files (cxu_devfs.h).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cxu_devfs.h"
#include "cxu_msg.h"
#include "cxu_num.h"
#include "kmsg.h"

#define DEFAULT_CONFIGFS	"/sys/kernel/config/cxdvirt"
#define DEFAULT_SYSFS		"/sys/class/cxdvirt"
#define DEFAULT_MEMORY		"/sys/devices/system/memory"
#define CONFIGFS_MOUNT		"/sys/kernel/config"
#define CONFIGFS_MAGIC		0x62656570

const char *cxu_env_or(const char *var, const char *def)
{
	const char *v = getenv(var);

	return v && *v ? v : def;
}

const char *cxu_configfs_root(void)
{
	return cxu_env_or("CXDVIRT_CONFIGFS", DEFAULT_CONFIGFS);
}

const char *cxu_sysfs_root(void)
{
	return cxu_env_or("CXDVIRT_SYSFS", DEFAULT_SYSFS);
}

const char *cxu_memory_root(void)
{
	return cxu_env_or("CXDVIRT_MEMORY_SYSFS", DEFAULT_MEMORY);
}

const char *cxu_errhint(int err)
{
	if ((err == EACCES || err == EPERM) && geteuid() != 0)
		return "needs root";
	return NULL;
}

int cxu_check_root(void)
{
	const char *root = cxu_configfs_root();
	struct statfs sfs;
	struct stat st;

	if (!stat(root, &st)) {
		if (S_ISDIR(st.st_mode))
			return 0;
		cxu_err("configfs %s is not a directory", root);
		return -1;
	}
	if (errno == EACCES) {
		cxu_err("configfs %s: %s%s", root, strerror(errno),
			cxu_errhint(errno) ? ": needs root" : "");
		return -1;
	}
	if (getenv("CXDVIRT_CONFIGFS") && *getenv("CXDVIRT_CONFIGFS"))
		cxu_err("configfs %s (from CXDVIRT_CONFIGFS) not found", root);
	else if (statfs(CONFIGFS_MOUNT, &sfs) || sfs.f_type != CONFIGFS_MAGIC)
		cxu_err("configfs is not mounted on %s: is the cxdvirt module loaded? (mount -t configfs none %s)",
			CONFIGFS_MOUNT, CONFIGFS_MOUNT);
	else
		cxu_err("configfs %s not found: is the cxdvirt module loaded?", root);
	return -1;
}

bool cxu_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (!n || n > CXU_DEV_NAME_MAX || !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

int cxu_dev_path(const char *name, const char *attr, char *buf, size_t len)
{
	int n;

	if (attr)
		n = snprintf(buf, len, "%s/%s/%s", cxu_configfs_root(), name, attr);
	else
		n = snprintf(buf, len, "%s/%s", cxu_configfs_root(), name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int cxu_dev_exists(const char *name)
{
	char path[4096];
	struct stat st;

	if (cxu_dev_path(name, NULL, path, sizeof(path)))
		return -ENAMETOOLONG;
	if (!stat(path, &st))
		return S_ISDIR(st.st_mode);
	return errno == ENOENT ? 0 : -errno;
}

static int cmp_names(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

int cxu_list_names(char ***names, size_t *n)
{
	char **v = NULL, **nv;
	size_t cnt = 0;
	struct dirent *de;
	DIR *dir;

	dir = opendir(cxu_configfs_root());
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (cxu_dev_exists(de->d_name) != 1)
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
	cxu_free_names(v, cnt);
	return -ENOMEM;
}

void cxu_free_names(char **names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int cxu_read_file(const char *path, char *buf, size_t len)
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

int cxu_attr_read(const char *name, const char *attr, char *buf, size_t len)
{
	char path[4096];

	if (cxu_dev_path(name, attr, path, sizeof(path)))
		return -ENAMETOOLONG;
	return cxu_read_file(path, buf, len);
}

int cxu_write_file(const char *path, const char *val)
{
	size_t n = strlen(val);
	ssize_t r;
	int fd, err = 0;

	/* configfs and sysfs take each write() as the whole value: no O_TRUNC */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, val, n);
	if (r < 0)
		err = -errno;
	else if ((size_t)r != n)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int cxu_attr_write(const char *name, const char *attr, const char *val,
		   char *why, size_t whylen)
{
	struct cxu_kmsg_mark mark;
	char path[4096];
	int err;

	why[0] = '\0';
	if (cxu_dev_path(name, attr, path, sizeof(path)))
		return -ENAMETOOLONG;
	cxu_kmsg_mark(&mark);
	err = cxu_write_file(path, val);
	if (err && err != -ENOENT)
		cxu_kmsg_reason(&mark, name, why, whylen);
	cxu_kmsg_release(&mark);
	return err;
}

int cxu_dev_index(const char *name, int *index)
{
	char buf[64];
	int64_t v;
	int ret;

	ret = cxu_attr_read(name, "index", buf, sizeof(buf));
	if (ret)
		return ret;
	if (cxu_parse_s64(buf, &v) || v < 0 || v > INT32_MAX)
		return -EINVAL;
	*index = (int)v;
	return 0;
}

int cxu_dev_power(const char *name, int *power)
{
	char buf[64];
	int ret;

	ret = cxu_attr_read(name, "power", buf, sizeof(buf));
	if (ret)
		return ret;
	if (strcmp(buf, "0") && strcmp(buf, "1"))
		return -EINVAL;
	*power = buf[0] == '1';
	return 0;
}

int cxu_sysfs_path(int index, const char *rel, char *buf, size_t len)
{
	int n;

	n = snprintf(buf, len, "%s/cxdvirt%d%s%s", cxu_sysfs_root(), index,
		     *rel ? "/" : "", rel);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* mkdir or rmdir of configfs folder @name; the kernel's reason into @why. */
static int dir_op(const char *name, bool make, char *why, size_t whylen)
{
	struct cxu_kmsg_mark mark;
	char path[4096];
	int err = 0;

	why[0] = '\0';
	if (cxu_dev_path(name, NULL, path, sizeof(path)))
		return -ENAMETOOLONG;
	cxu_kmsg_mark(&mark);
	if (make ? mkdir(path, 0755) : rmdir(path)) {
		err = -errno;
		if (!make || err != -EEXIST)
			cxu_kmsg_reason(&mark, name, why, whylen);
	}
	cxu_kmsg_release(&mark);
	return err;
}

int cxu_mkdir(const char *name, char *why, size_t whylen)
{
	return dir_op(name, true, why, whylen);
}

int cxu_rmdir(const char *name, char *why, size_t whylen)
{
	return dir_op(name, false, why, whylen);
}

int cxu_sysfs_read(int index, const char *rel, char *buf, size_t len)
{
	char path[4096];

	if (cxu_sysfs_path(index, rel, path, sizeof(path)))
		return -ENAMETOOLONG;
	return cxu_read_file(path, buf, len);
}

int cxu_dev_is_node(const char *name)
{
	char buf[64];

	if (cxu_attr_read(name, "mode", buf, sizeof(buf)))
		return 0;
	return !strcmp(buf, "node");
}

int cxu_read_u64(const char *path, uint64_t *v)
{
	char buf[64];
	int ret;

	ret = cxu_read_file(path, buf, sizeof(buf));
	if (ret)
		return ret;
	return cxu_parse_u64(buf, v) ? -EINVAL : 0;
}
