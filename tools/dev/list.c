// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs that only look: list (configuration and state of every device)
 * and stats (one device's counters, optionally reset afterwards).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cxdvirt-dev.h"

/**
 * cmd_list() - `list [--json] [-u] [name...]`: every device (or the named
 * ones) with all attributes and, when powered, cache_used and stats.
 * JSON output is always an array.
 *
 * Return: exit code.
 */
int cmd_list(int argc, char **argv, struct verb_ctx *ctx)
{
	static const struct option opts[] = {
		{ "json",	 no_argument, NULL, 'j' },
		{ "human",	 no_argument, NULL, 'u' },
		{ "help",	 no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int flags = SHOW_ATTRS | SHOW_SYSFS;
	struct json_object *arr;
	bool json = ctx->json;
	char **names = NULL;
	size_t n = 0, i;
	int c, ret, rc = EXIT_OK;

	while ((c = getopt_long(argc, argv, "juh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'u': flags |= SHOW_HUMAN; break;
		case 'h': verb_help("list"); return EXIT_OK;
		default: return cxu_usage_err("list", NULL);
		}
	}
	for (i = (size_t)optind; i < (size_t)argc; i++)
		if (!cxu_name_valid(argv[i]))
			return cxu_usage_err("list", "'%s': not a device name", argv[i]);
	if (cxu_check_root())
		return EXIT_ERR;
	ret = cxu_list_names(&names, &n);
	if (ret) {
		cxu_err("%s: %s", cxu_configfs_root(), strerror(-ret));
		return EXIT_ERR;
	}
	arr = json_object_new_array();
	if (optind < argc) {
		for (i = (size_t)optind; i < (size_t)argc; i++) {
			if (cxu_dev_exists(argv[i]) != 1) {
				cxu_err("%s: no such device", argv[i]);
				rc = EXIT_ERR;
				continue;
			}
			json_object_array_add(arr, show_device(argv[i], flags));
		}
	} else {
		for (i = 0; i < n; i++)
			json_object_array_add(arr, show_device(names[i], flags));
	}
	if (json || json_object_array_length(arr))
		show_print(arr, json);
	json_object_put(arr);
	cxu_free_names(names, n);
	return rc;
}

/**
 * cmd_stats() - `stats <name> [--reset] [--json] [-u]`: print the sysfs
 * counters of a powered device; with --reset, zero them after printing.
 *
 * Return: exit code.
 */
int cmd_stats(int argc, char **argv, struct verb_ctx *ctx)
{
	static const struct option opts[] = {
		{ "reset",	 no_argument, NULL, 'r' },
		{ "json",	 no_argument, NULL, 'j' },
		{ "human",	 no_argument, NULL, 'u' },
		{ "help",	 no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int flags = SHOW_SYSFS;
	bool json = ctx->json, reset = false;
	struct json_object *obj;
	char path[4096], dir[4096];
	const char *name;
	int c, index, power, err;

	while ((c = getopt_long(argc, argv, "rjuh", opts, NULL)) != -1) {
		switch (c) {
		case 'r': reset = true; break;
		case 'j': json = true; break;
		case 'u': flags |= SHOW_HUMAN; break;
		case 'h': verb_help("stats"); return EXIT_OK;
		default: return cxu_usage_err("stats", NULL);
		}
	}
	if (optind >= argc)
		return cxu_usage_err("stats", "missing device name");
	name = argv[optind++];
	if (optind < argc)
		return cxu_usage_err("stats", "unexpected '%s'", argv[optind]);
	if (!cxu_name_valid(name))
		return cxu_usage_err("stats", "'%s': not a device name", name);
	if (cxu_check_root())
		return EXIT_ERR;
	if (cxu_dev_exists(name) != 1) {
		cxu_err("%s: no such device", name);
		return EXIT_ERR;
	}
	if (cxu_dev_index(name, &index) || cxu_dev_power(name, &power)) {
		cxu_err("%s: cannot read index and power", name);
		return EXIT_ERR;
	}
	if (!power) {
		cxu_err("%s: not enabled (power 0): no statistics", name);
		return EXIT_ERR;
	}
	if (cxu_sysfs_path(index, "stats", dir, sizeof(dir)) ||
	    access(dir, R_OK | X_OK)) {
		cxu_err("%s: %s: %s", name, dir, strerror(errno));
		return EXIT_ERR;
	}
	obj = show_device(name, flags);
	show_print(obj, json);
	json_object_put(obj);
	if (!reset)
		return EXIT_OK;

	if (cxu_sysfs_path(index, "stats/reset", path, sizeof(path)))
		return EXIT_ERR;
	err = -cxu_write_file(path, "1");
	if (err) {
		cxu_err("%s: %s: %s%s%s", name, path, strerror(err),
			cxu_errhint(err) ? ": " : "",
			cxu_errhint(err) ? cxu_errhint(err) : "");
		return EXIT_ERR;
	}
	return EXIT_OK;
}
