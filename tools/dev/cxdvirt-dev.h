/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt-dev: declarations shared by the command's files.
 *
 *   main.c    option parsing, verb dispatch, help
 *   parse.c   numbers and sizes: strict parsing, human-readable formatting
 *   attr.c    the table of configfs attributes and client-side checks
 *   preset.c  the NAND presets, taken from the model's table
 *   libcxd.c  every configfs and sysfs access (the daxctl "library" role)
 *   kmsg.c    the kernel's reason for a failed write, from the kernel log
 *   show.c    a device as JSON and as text (list, stats, --json output)
 *   config.c  the verbs that change things: create, set, enable, disable,
 *             destroy
 *   list.c    the list and stats verbs
 *   node.c    node mode: online and offline (libdaxctl), the auto-online
 *             policy check
 *   doctor.c  the doctor verb: checks of the host, read-only
 *   acpi.c    the acpi-tables verb: SRAT + HMAT override cpio
 */
#ifndef CXDVIRT_DEV_H
#define CXDVIRT_DEV_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdbool.h>

#include <json-c/json.h>

#ifndef CXDVIRT_VERSION
#define CXDVIRT_VERSION "0.1.0"
#endif

#define PROG "cxdvirt-dev"

/* Exit codes. */
#define EXIT_OK		0
#define EXIT_ERR	1
#define EXIT_USAGE	2

/* Longest device name the kernel accepts (docs/interface.md). */
#define CXD_DEV_NAME_MAX	31
/* Longest attribute value read or written. */
#define CXD_VAL_MAX		4096

/* ----------------------------------------------------------- parse.c -- */

int parse_size(const char *s, uint64_t *out);
int parse_u64(const char *s, uint64_t *out);
int parse_s64(const char *s, int64_t *out);
const char *fmt_size(uint64_t bytes, char *buf, size_t len);
const char *fmt_ns(uint64_t ns, char *buf, size_t len);

/* ------------------------------------------------------------ attr.c -- */

enum attr_type {
	ATTR_SIZE,	/* bytes, K/M/G/T suffix accepted, written as decimal */
	ATTR_ADDR,	/* physical address in bytes, like ATTR_SIZE */
	ATTR_U64,	/* unsigned count, ns or MB/s; decimal or 0x-hex */
	ATTR_NODE,	/* NUMA node: -1 or a non-negative number */
	ATTR_BOOL,	/* 0 or 1 */
	ATTR_WORD,	/* a name, passed through */
	ATTR_RO,	/* read-only: refused by set and create */
	ATTR_OTHER,	/* not in the table (a newer module): passed through */
};

enum attr_unit {
	UNIT_NONE,
	UNIT_BYTES,
	UNIT_NS,
	UNIT_MBPS,
};

/**
 * struct attr_desc - one configfs attribute as the tool knows it.
 * @name:	file name in the device's configfs directory.
 * @type:	how a value is checked and normalised before it is written.
 * @unit:	how -u prints it.
 */
struct attr_desc {
	const char *name;
	enum attr_type type;
	enum attr_unit unit;
};

extern const struct attr_desc attr_table[];
extern const size_t attr_table_len;

const struct attr_desc *attr_find(const char *name);
int attr_normalize(const char *name, const char *val, char *out, size_t len,
		   const char **why);

/* ---------------------------------------------------------- preset.c -- */

/**
 * struct preset_kv - one attribute setting of a preset.
 * @attr:	configfs attribute name.
 * @val:	value as written: a number in the attribute's unit (ns,
 *		count, MB/s, bytes) or an enum's name ("channel").
 */
struct preset_kv {
	const char *attr;
	char val[24];
};

/* Every NAND parameter of the table (CXD_PARAMS_NAND): 11. */
#define PRESET_MAX_KV	11

/**
 * struct preset - a named NAND preset of the model (include/cxdvirt/model.h)
 * as configfs attributes.
 * @name:	what --preset takes.
 * @what:	the model's source line (where the figures come from).
 * @kv:		every NAND attribute of the preset, written in this order.
 */
struct preset {
	const char *name;
	const char *what;
	struct preset_kv kv[PRESET_MAX_KV];
};

int preset_find(const char *name, struct preset *out);
const char *preset_names(void);
void preset_print_all(FILE *f);

/* ---------------------------------------------------------- libcxd.c -- */

const char *cxd_configfs_root(void);
const char *cxd_sysfs_root(void);
const char *cxd_memory_root(void);
int cxd_check_root(void);
bool cxd_name_valid(const char *name);
int cxd_dev_path(const char *name, const char *attr, char *buf, size_t len);
int cxd_dev_exists(const char *name);
int cxd_list_names(char ***names, size_t *n);
void cxd_free_names(char **names, size_t n);
int cxd_read_file(const char *path, char *buf, size_t len);
int cxd_attr_read(const char *name, const char *attr, char *buf, size_t len);
int cxd_attr_write(const char *name, const char *attr, const char *val,
		   char *why, size_t whylen);
int cxd_dev_index(const char *name, int *index);
int cxd_dev_power(const char *name, int *power);
int cxd_sysfs_path(int index, const char *rel, char *buf, size_t len);
int cxd_sysfs_read(int index, const char *rel, char *buf, size_t len);
int cxd_dev_is_node(const char *name);
int cxd_mkdir(const char *name, char *why, size_t whylen);
int cxd_rmdir(const char *name, char *why, size_t whylen);
const char *cxd_errhint(int err);

/* ------------------------------------------------------------ kmsg.c -- */

/**
 * struct kmsg_mark - a position in the kernel log taken before a write.
 * @fd:		/dev/kmsg opened at its end, or -1.
 * @klog_last:	with no /dev/kmsg: the newest "cxdvirt" line seen through
 *		klogctl() before the write ("" if none).
 */
struct kmsg_mark {
	int fd;
	char klog_last[512];
};

void kmsg_mark(struct kmsg_mark *m);
void kmsg_reason(struct kmsg_mark *m, const char *dev, char *buf, size_t len);
void kmsg_release(struct kmsg_mark *m);

/* ------------------------------------------------------------ show.c -- */

#define SHOW_ATTRS	0x1	/* every configfs attribute */
#define SHOW_SYSFS	0x2	/* cache_used and stats/ when powered */
#define SHOW_HUMAN	0x4	/* -u: sizes and times as strings with units */

struct json_object *show_device(const char *name, unsigned int flags);
void show_print(struct json_object *obj, bool json);
void show_print_text(struct json_object *dev);

/* ----------------------------------------------------------- verbs ---- */

/**
 * struct verb_ctx - what every verb gets besides its arguments.
 * @json:	--json given before the verb (verbs accept it after, too).
 */
struct verb_ctx {
	bool json;
};

int cmd_list(int argc, char **argv, struct verb_ctx *ctx);
int cmd_create(int argc, char **argv, struct verb_ctx *ctx);
int cmd_set(int argc, char **argv, struct verb_ctx *ctx);
int cmd_enable(int argc, char **argv, struct verb_ctx *ctx);
int cmd_disable(int argc, char **argv, struct verb_ctx *ctx);
int cmd_destroy(int argc, char **argv, struct verb_ctx *ctx);
int cmd_stats(int argc, char **argv, struct verb_ctx *ctx);
int cmd_online(int argc, char **argv, struct verb_ctx *ctx);
int cmd_offline(int argc, char **argv, struct verb_ctx *ctx);
int cmd_doctor(int argc, char **argv, struct verb_ctx *ctx);
int cmd_acpi_tables(int argc, char **argv, struct verb_ctx *ctx);

/* ------------------------------------------------------------ node.c -- */

int node_check_auto_online(const char *name, bool fix);
int node_dax_name(const char *name, char *buf, size_t len);

/* main.c */
int usage_error(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void verb_help(const char *verb);
void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CXDVIRT_DEV_H */
