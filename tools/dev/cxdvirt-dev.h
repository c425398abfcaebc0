/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt-dev: declarations shared by the command's files.
 *
 *   main.c    option parsing, verb dispatch, help
 *   attr.c    the table of configfs attributes and client-side checks
 *   preset.c  the NAND presets, taken from the model's table
 *   show.c    a device as JSON and as text (list, stats, --json output)
 *   config.c  the verbs that change things: create, set, enable, disable,
 *             destroy
 *   list.c    the list and stats verbs
 *   node.c    node mode: online and offline (libdaxctl), the auto-online
 *             policy check
 *   doctor.c  the doctor verb: checks of the host, read-only
 *   calibrate.c the calibrate verb: a devdax fault's untimed remainder
 *   acpi.c    the acpi-tables verb: SRAT + HMAT override cpio
 *
 * Numbers and sizes, messages and every configfs and sysfs access are the
 * tools' library (tools/lib/: cxu_num.h, cxu_msg.h, cxu_devfs.h).
 */
#ifndef CXDVIRT_DEV_H
#define CXDVIRT_DEV_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdbool.h>

#include <json-c/json.h>

#include "cxu_devfs.h"
#include "cxu_msg.h"
#include "cxu_num.h"

#ifndef CXDVIRT_VERSION
#define CXDVIRT_VERSION "0.1.0"
#endif

#define PROG "cxdvirt-dev"

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

/* Every NAND parameter of the table (CXD_PARAMS_NAND): 14. */
#define PRESET_MAX_KV	14

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
int cmd_calibrate(int argc, char **argv, struct verb_ctx *ctx);
int cmd_acpi_tables(int argc, char **argv, struct verb_ctx *ctx);

/* ------------------------------------------------------------ node.c -- */

int node_check_auto_online(const char *name, bool fix);
int node_dax_name(const char *name, char *buf, size_t len);

/* main.c */
void verb_help(const char *verb);

#endif /* CXDVIRT_DEV_H */
