// SPDX-License-Identifier: GPL-2.0
/*
 * A device as a JSON object, and that object printed as JSON or as text.
 * list, stats and the --json output of the other verbs all go through here,
 * so text and JSON always say the same thing.
 *
 * Object layout (keys present only when known):
 *   name, index, power, dev ("/dev/cxdvirtN" when powered, not in node mode),
 *   every configfs attribute (SHOW_ATTRS; "features" as an array),
 *   cache_used, image_pages, the node-mode files (dax_device, online, online_bytes,
 *   movable_bytes, node_used_bytes, adistance, and node_latency: { the
 *   files of node_latency/ }) when sysfs has them,
 *   and "stats": { counter: value, ..., miss_latency_hist:
 *   [ { low_ns, count }, ... ], mean_miss_ns, mean_model_ns } (SHOW_SYSFS,
 *   powered devices only). mean_* are computed here: total / misses.
 * Numbers are JSON numbers, unless SHOW_HUMAN turns sizes and times into
 * strings with units.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxdvirt-dev.h"

#ifndef JSON_C_TO_STRING_NOSLASHESCAPE
#define JSON_C_TO_STRING_NOSLASHESCAPE 0
#endif

/* Counters in the order docs/interface.md lists them; others follow sorted. */
static const char *const stats_order[] = {
	"misses", "minor_hits", "evictions", "dirty_evictions", "writebacks",
	"miss_ns_total", "model_ns_total", "miss_latency_hist",
};
#define STATS_ORDER_LEN	(sizeof(stats_order) / sizeof(stats_order[0]))

static struct json_object *json_u64_unit(uint64_t v, enum attr_unit unit,
					 bool human)
{
	char buf[64];

	if (!human || unit == UNIT_NONE)
		return json_object_new_uint64(v);
	switch (unit) {
	case UNIT_BYTES:
		return json_object_new_string(cxu_fmt_size(v, buf, sizeof(buf)));
	case UNIT_NS:
		return json_object_new_string(cxu_fmt_ns(v, buf, sizeof(buf)));
	case UNIT_MBPS:
		snprintf(buf, sizeof(buf), "%" PRIu64 " MB/s", v);
		return json_object_new_string(buf);
	default:
		return json_object_new_uint64(v);
	}
}

static struct json_object *words_array(const char *text)
{
	struct json_object *arr = json_object_new_array();
	char *copy = strdup(text), *save = NULL, *w;

	if (!copy)
		return arr;
	for (w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
		json_object_array_add(arr, json_object_new_string(w));
	free(copy);
	return arr;
}

/* The JSON value of configfs attribute @name whose file holds @text. */
static struct json_object *attr_json(const char *name, const char *text,
				     bool human)
{
	const struct attr_desc *d = attr_find(name);
	char buf[64];
	uint64_t u;
	int64_t s;

	if (!strcmp(name, "features"))
		return words_array(text);
	if (!d || d->type == ATTR_WORD || d->type == ATTR_OTHER) {
		if (!cxu_parse_s64(text, &s))
			return json_object_new_int64(s);
		return json_object_new_string(text);
	}
	if (d->type == ATTR_NODE || d->type == ATTR_BOOL || d->type == ATTR_RO) {
		if (!cxu_parse_s64(text, &s))
			return json_object_new_int64(s);
		return json_object_new_string(text);
	}
	if (cxu_parse_size(text, &u))
		return json_object_new_string(text);
	if (d->type == ATTR_ADDR && human) {
		snprintf(buf, sizeof(buf), "%#" PRIx64, u);
		return json_object_new_string(buf);
	}
	return json_u64_unit(u, d->unit, human);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Regular files in @dir for which @known() is false, sorted by name.
 * Returns the count; *out is malloc'ed (free each entry and the array).
 */
static size_t extra_files(const char *dir, bool (*known)(const char *),
			  char ***out)
{
	char **v = NULL, **nv;
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	*out = NULL;
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || known(de->d_name))
			continue;
		if (de->d_type != DT_REG && de->d_type != DT_UNKNOWN)
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[n] = strdup(de->d_name);
		if (!v[n])
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	*out = v;
	return n;
}

static bool attr_known(const char *name)
{
	return attr_find(name) != NULL;
}

static bool stat_known(const char *name)
{
	size_t i;

	if (!strcmp(name, "reset"))
		return true;	/* write-only */
	for (i = 0; i < STATS_ORDER_LEN; i++)
		if (!strcmp(stats_order[i], name))
			return true;
	return false;
}

static void add_attrs(struct json_object *obj, const char *name, bool human)
{
	char val[CXU_VAL_MAX], dir[4096], **extra;
	size_t i, n;

	for (i = 0; i < attr_table_len; i++) {
		const char *a = attr_table[i].name;

		if (!strcmp(a, "index") || !strcmp(a, "power"))
			continue;	/* already at the top */
		if (!strcmp(a, "preset"))
			continue;	/* reads as the list of presets */
		if (cxu_attr_read(name, a, val, sizeof(val)))
			continue;	/* older module, or unreadable */
		json_object_object_add(obj, a, attr_json(a, val, human));
	}
	if (cxu_dev_path(name, NULL, dir, sizeof(dir)))
		return;
	n = extra_files(dir, attr_known, &extra);
	for (i = 0; i < n; i++) {
		if (!cxu_attr_read(name, extra[i], val, sizeof(val)))
			json_object_object_add(obj, extra[i],
					       attr_json(extra[i], val, human));
		free(extra[i]);
	}
	free(extra);
}

/* "LOW_NS COUNT" lines -> [ { "low_ns": L, "count": C }, ... ] */
static struct json_object *hist_json(char *text, bool human)
{
	struct json_object *arr = json_object_new_array(), *e;
	char *save = NULL, *line;
	unsigned long long low, cnt;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%llu %llu", &low, &cnt) != 2)
			continue;
		e = json_object_new_object();
		json_object_object_add(e, "low_ns", json_u64_unit(low, UNIT_NS, human));
		json_object_object_add(e, "count", json_object_new_uint64(cnt));
		json_object_array_add(arr, e);
	}
	return arr;
}

static void add_stat(struct json_object *stats, int index, const char *stat,
		     bool human)
{
	char rel[256], path[4096], val[CXU_VAL_MAX];
	uint64_t u;

	snprintf(rel, sizeof(rel), "stats/%s", stat);
	if (cxu_sysfs_path(index, rel, path, sizeof(path)) ||
	    cxu_read_file(path, val, sizeof(val)))
		return;
	if (!strcmp(stat, "miss_latency_hist"))
		json_object_object_add(stats, stat, hist_json(val, human));
	else if (!cxu_parse_u64(val, &u))
		json_object_object_add(stats, stat,
				       json_u64_unit(u, strstr(stat, "_ns") ?
						     UNIT_NS : UNIT_NONE, human));
	else
		json_object_object_add(stats, stat, json_object_new_string(val));
}

static uint64_t stat_u64(int index, const char *stat)
{
	char rel[256], path[4096], val[64];
	uint64_t u = 0;

	snprintf(rel, sizeof(rel), "stats/%s", stat);
	if (cxu_sysfs_path(index, rel, path, sizeof(path)) ||
	    cxu_read_file(path, val, sizeof(val)) || cxu_parse_u64(val, &u))
		return 0;
	return u;
}

/*
 * The node-mode files of a powered device (docs/interface.md), present only
 * in node mode: where the memory went and how much of it is online.
 */
static const struct {
	const char *file;
	enum attr_unit unit;
	bool text;
} node_files[] = {
	{ "dax_device",		UNIT_NONE,	true },
	{ "online",		UNIT_NONE,	true },
	{ "online_bytes",	UNIT_BYTES,	false },
	{ "movable_bytes",	UNIT_BYTES,	false },
	{ "node_used_bytes",	UNIT_BYTES,	false },
	{ "adistance",		UNIT_NONE,	false },
};

/* node_latency/ (docs/numa-mode.md): the model applied to node memory. */
static const char *const nodelat_files[] = {
	"enabled", "tracked_mms", "first_touches", "hint_faults",
	"file_maps", "faultaround_limited", "faultaround_pages",
	"arrivals", "departures", "departures_discarded", "anon_maps",
	"remote_accesses", "promotions_refused",
	"evicted_ptes", "evicted_unmaps", "evictions_unmapped",
	"evictions_moved", "fork_rearmed",
	"mprotect_rearmed",
	"late_writebacks", "evictions_uncovered", "scan_rearmed",
	"scan_walks", "scan_lookups",
	"thp_untracked_pages", "hugetlb_untracked_pages", "thp_refused_pages",
	"thp_collapse_refused",
	"probes_missed", "waited_accesses", "waited_ns_total", "kernel_accesses", "events_dropped", "pending",
};

static void add_nodelat(struct json_object *obj, int index)
{
	struct json_object *nl = NULL;
	char rel[64], val[CXU_VAL_MAX];
	uint64_t u;
	size_t i;

	for (i = 0; i < sizeof(nodelat_files) / sizeof(nodelat_files[0]); i++) {
		snprintf(rel, sizeof(rel), "node_latency/%s", nodelat_files[i]);
		if (cxu_sysfs_read(index, rel, val, sizeof(val)) ||
		    cxu_parse_u64(val, &u))
			continue;
		if (!nl)
			nl = json_object_new_object();
		json_object_object_add(nl, nodelat_files[i],
				       json_object_new_uint64(u));
	}
	if (nl)
		json_object_object_add(obj, "node_latency", nl);
}

static void add_node(struct json_object *obj, int index, bool human)
{
	char val[CXU_VAL_MAX];
	uint64_t u;
	size_t i;

	for (i = 0; i < sizeof(node_files) / sizeof(node_files[0]); i++) {
		if (cxu_sysfs_read(index, node_files[i].file, val, sizeof(val)))
			continue;
		if (node_files[i].text || cxu_parse_u64(val, &u))
			json_object_object_add(obj, node_files[i].file,
					       json_object_new_string(val));
		else
			json_object_object_add(obj, node_files[i].file,
					       json_u64_unit(u, node_files[i].unit, human));
	}
	add_nodelat(obj, index);
}

static void add_sysfs(struct json_object *obj, int index, bool human)
{
	char path[4096], val[CXU_VAL_MAX], **extra;
	struct json_object *stats;
	uint64_t u, misses;
	size_t i, n;

	if (!cxu_sysfs_path(index, "cache_used", path, sizeof(path)) &&
	    !cxu_read_file(path, val, sizeof(val)) && !cxu_parse_u64(val, &u))
		json_object_object_add(obj, "cache_used",
				       json_u64_unit(u, UNIT_BYTES, human));
	if (!cxu_sysfs_path(index, "image_pages", path, sizeof(path)) &&
	    !cxu_read_file(path, val, sizeof(val)) && !cxu_parse_u64(val, &u))
		json_object_object_add(obj, "image_pages",
				       json_u64_unit(u, UNIT_NONE, human));
	add_node(obj, index, human);
	if (cxu_sysfs_path(index, "stats", path, sizeof(path)))
		return;
	stats = json_object_new_object();
	for (i = 0; i < STATS_ORDER_LEN; i++)
		add_stat(stats, index, stats_order[i], human);
	n = extra_files(path, stat_known, &extra);
	for (i = 0; i < n; i++) {
		add_stat(stats, index, extra[i], human);
		free(extra[i]);
	}
	free(extra);
	misses = stat_u64(index, "misses");
	if (misses) {
		json_object_object_add(stats, "mean_miss_ns",
				       json_u64_unit(stat_u64(index, "miss_ns_total") / misses,
						     UNIT_NS, human));
		json_object_object_add(stats, "mean_model_ns",
				       json_u64_unit(stat_u64(index, "model_ns_total") / misses,
						     UNIT_NS, human));
	}
	json_object_object_add(obj, "stats", stats);
}

/**
 * show_device() - device @name as a JSON object (layout at the top of this
 * file).
 * @name:	device name.
 * @flags:	SHOW_ATTRS, SHOW_SYSFS, SHOW_HUMAN.
 *
 * Return: a new object (json_object_put() it), never NULL.
 */
struct json_object *show_device(const char *name, unsigned int flags)
{
	struct json_object *obj = json_object_new_object();
	bool human = flags & SHOW_HUMAN;
	int index = -1, power = -1;
	char dev[64];

	json_object_object_add(obj, "name", json_object_new_string(name));
	if (!cxu_dev_index(name, &index))
		json_object_object_add(obj, "index", json_object_new_int(index));
	if (!cxu_dev_power(name, &power))
		json_object_object_add(obj, "power", json_object_new_int(power));
	if (power == 1 && index >= 0 && !cxu_dev_is_node(name)) {
		snprintf(dev, sizeof(dev), "/dev/cxdvirt%d", index);
		json_object_object_add(obj, "dev", json_object_new_string(dev));
	}
	if (flags & SHOW_ATTRS)
		add_attrs(obj, name, human);
	if ((flags & SHOW_SYSFS) && power == 1 && index >= 0)
		add_sysfs(obj, index, human);
	return obj;
}

static void print_scalar(struct json_object *v)
{
	if (json_object_is_type(v, json_type_string))
		fputs(json_object_get_string(v), stdout);
	else
		fputs(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN), stdout);
}

static void print_value(const char *key, struct json_object *v, int depth)
{
	size_t i, n;

	if (json_object_is_type(v, json_type_object)) {
		printf("%*s%s:\n", depth * 2, "", key);
		json_object_object_foreach(v, k, sub)
			print_value(k, sub, depth + 1);
		return;
	}
	if (json_object_is_type(v, json_type_array)) {
		n = json_object_array_length(v);
		if (n && json_object_is_type(json_object_array_get_idx(v, 0),
					     json_type_object)) {
			/* rows: one line each, values in key order */
			printf("%*s%s:\n", depth * 2, "", key);
			for (i = 0; i < n; i++) {
				bool first = true;

				printf("%*s", (depth + 1) * 2, "");
				json_object_object_foreach(json_object_array_get_idx(v, i), k, cell) {
					(void)k;
					fputs(first ? "" : "  ", stdout);
					print_scalar(cell);
					first = false;
				}
				putchar('\n');
			}
			return;
		}
		printf("%*s%-*s ", depth * 2, "", 19 - depth * 2, key);
		for (i = 0; i < n; i++) {
			fputs(i ? " " : "", stdout);
			print_scalar(json_object_array_get_idx(v, i));
		}
		putchar('\n');
		return;
	}
	printf("%*s%-*s ", depth * 2, "", 19 - depth * 2, key);
	print_scalar(v);
	putchar('\n');
}

/**
 * show_print_text() - print one device object as indented "key value"
 * lines, headed by its name.
 * @dev:	an object from show_device().
 */
void show_print_text(struct json_object *dev)
{
	struct json_object *name;

	if (json_object_object_get_ex(dev, "name", &name))
		printf("%s\n", json_object_get_string(name));
	json_object_object_foreach(dev, k, v) {
		if (!strcmp(k, "name"))
			continue;
		print_value(k, v, 1);
	}
}

/**
 * show_print() - print a device object, or an array of them, to stdout.
 * @obj:	from show_device(), or an array of such.
 * @json:	pretty JSON if true, else text (devices separated by a blank
 *		line).
 */
void show_print(struct json_object *obj, bool json)
{
	size_t i, n;

	if (json) {
		printf("%s\n", json_object_to_json_string_ext(obj,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
			JSON_C_TO_STRING_NOSLASHESCAPE));
		return;
	}
	if (!json_object_is_type(obj, json_type_array)) {
		show_print_text(obj);
		return;
	}
	n = json_object_array_length(obj);
	for (i = 0; i < n; i++) {
		if (i)
			putchar('\n');
		show_print_text(json_object_array_get_idx(obj, i));
	}
}
