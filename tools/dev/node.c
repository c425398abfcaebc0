// SPDX-License-Identifier: GPL-2.0
/*
 * Node mode (docs/numa-mode.md): the verbs online and offline, which turn
 * the dax device of a powered node-mode device into memory of its target
 * node and back, and the check of the kernel's auto-online policy.
 *
 * online and offline call libdaxctl, the library daxctl itself is built on,
 * in the order `daxctl reconfigure-device --mode=system-ram` and
 * `daxctl offline-memory` use: disable the devdax driver, bind kmem
 * (daxctl_dev_enable_ram()), online every memory block as ZONE_MOVABLE
 * (daxctl_memory_online()); daxctl_memory_offline() for the way back. The
 * library's own log lines are collected and shown only when a step fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <daxctl/libdaxctl.h>

#include "cxdvirt-dev.h"

/**
 * node_dax_name() - the dax device (e.g. "dax0.0") of powered node-mode
 * device @name, from /sys/class/cxdvirt/cxdvirtN/dax_device.
 * @buf, @len:	the name (@len in bytes).
 *
 * Return: 0, -ENOENT if there is none (not powered, not node mode, or
 * daxctl destroyed it), or another -errno.
 */
int node_dax_name(const char *name, char *buf, size_t len)
{
	int index, ret;

	ret = cxu_dev_index(name, &index);
	if (ret)
		return ret;
	ret = cxu_sysfs_read(index, "dax_device", buf, len);
	if (ret)
		return ret;
	return *buf ? 0 : -ENOENT;
}

/**
 * node_check_auto_online() - refuse to go on when the kernel would online
 * hot-added memory by itself outside ZONE_MOVABLE.
 * @name:	device, for messages.
 * @fix:	set the policy to "offline" instead of refusing.
 *
 * <memory root>/auto_online_blocks says what the kernel does with memory
 * kmem adds: "offline" (left to us) and "online_movable" are fine;
 * "online" (the kernel picks the zone, normally ZONE_NORMAL) and
 * "online_kernel" put the device's memory where unmovable kernel
 * allocations land, so it may never go offline and the device could never
 * be powered off. A missing file (no memory hotplug) is left to the later
 * steps to report.
 *
 * Return: 0 to go on, -1 after a message.
 */
int node_check_auto_online(const char *name, bool fix)
{
	char path[4096], val[64];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/auto_online_blocks", cxu_memory_root());
	if (cxu_read_file(path, val, sizeof(val)))
		return 0;
	if (!strcmp(val, "offline") || !strcmp(val, "online_movable"))
		return 0;
	if (!fix) {
		cxu_err("%s: %s is '%s': the kernel would online the device's memory "
			"itself as kernel memory, which may never go offline again "
			"(then the device cannot be powered off). Set it to offline or "
			"online_movable first, or pass --fix-auto-online to set it to offline",
			name, path, val);
		return -1;
	}
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
	} else {
		if (write(fd, "offline", 7) != 7)
			err = errno ? errno : EIO;
		if (close(fd) && !err)
			err = errno;
	}
	if (err) {
		cxu_err("%s: %s: cannot set it to offline: %s%s%s", name, path,
			strerror(err), cxu_errhint(err) ? ": " : "",
			cxu_errhint(err) ? cxu_errhint(err) : "");
		return -1;
	}
	fprintf(stderr, PROG ": %s: %s was '%s', now 'offline' (--fix-auto-online)\n",
		name, path, val);
	return 0;
}

/* ------------------------------------------------------------ libdaxctl -- */

/* The library's last log line, shown when a step fails. */
static char daxctl_last[512];

static void daxctl_log(struct daxctl_ctx *ctx, int priority, const char *file,
		       int line, const char *fn, const char *format, va_list args)
{
	size_t n;

	(void)ctx; (void)priority; (void)file; (void)line;
	n = (size_t)snprintf(daxctl_last, sizeof(daxctl_last), "%s: ", fn);
	if (n < sizeof(daxctl_last))
		vsnprintf(daxctl_last + n, sizeof(daxctl_last) - n, format, args);
	n = strlen(daxctl_last);
	while (n && daxctl_last[n - 1] == '\n')
		daxctl_last[--n] = '\0';
}

/* Open libdaxctl and find dax device @dax; print why not. */
static struct daxctl_dev *dax_find(const char *name, const char *dax,
				   struct daxctl_ctx **pctx)
{
	struct daxctl_region *region;
	struct daxctl_dev *dev;
	struct daxctl_ctx *ctx;
	int ret;

	*pctx = NULL;
	ret = daxctl_new(&ctx);
	if (ret) {
		cxu_err("%s: libdaxctl: %s", name, strerror(-ret));
		return NULL;
	}
	daxctl_set_log_fn(ctx, daxctl_log);
	daxctl_set_log_priority(ctx, 3 /* LOG_ERR */);
	daxctl_last[0] = '\0';
	daxctl_region_foreach(ctx, region)
		daxctl_dev_foreach(region, dev)
			if (!strcmp(daxctl_dev_get_devname(dev), dax)) {
				*pctx = ctx;
				return dev;
			}
	cxu_err("%s: %s not found by libdaxctl (is the dax driver loaded?)", name, dax);
	daxctl_unref(ctx);
	return NULL;
}

/* "NAME: STEP DAX: strerror(-ret)[: hint][ (libdaxctl: ...)]" */
static void dax_fail(const char *name, const char *step, const char *dax,
		     int ret, const char *hint)
{
	cxu_err("%s: %s %s: %s%s%s%s%s%s", name, step, dax, strerror(-ret),
		hint ? ": " : "", hint ? hint : "",
		*daxctl_last ? " (libdaxctl: " : "", daxctl_last,
		*daxctl_last ? ")" : "");
}

/*
 * Common start of online and offline: options, a powered node-mode
 * device, its dax device. Returns 0, or an exit code (>0) or -1 (--help).
 */
static int node_verb_start(const char *verb, int argc, char **argv,
			   bool *json, bool *fix, const char **name,
			   char *dax, size_t daxlen)
{
	static const struct option opts[] = {
		{ "json",		no_argument, NULL, 'j' },
		{ "fix-auto-online",	no_argument, NULL, 'F' },
		{ "help",		no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, ret, power;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': *json = true; break;
		case 'F':
			if (!fix)
				return cxu_usage_err(verb, NULL);
			*fix = true;
			break;
		case 'h': verb_help(verb); return -1;
		default: return cxu_usage_err(verb, NULL);
		}
	}
	if (optind >= argc)
		return cxu_usage_err(verb, "missing device name");
	*name = argv[optind++];
	if (optind < argc)
		return cxu_usage_err(verb, "unexpected '%s'", argv[optind]);
	if (!cxu_name_valid(*name))
		return cxu_usage_err(verb, "'%s': not a device name", *name);
	if (cxu_check_root())
		return EXIT_ERR;
	ret = cxu_dev_exists(*name);
	if (ret != 1) {
		cxu_err("%s: %s", *name, ret ? strerror(-ret) : "no such device");
		return EXIT_ERR;
	}
	if (!cxu_dev_is_node(*name)) {
		cxu_err("%s: not a node-mode device (mode is not 'node')", *name);
		return EXIT_ERR;
	}
	if (cxu_dev_power(*name, &power) || !power) {
		cxu_err("%s: not enabled (power 0): no dax device yet", *name);
		return EXIT_ERR;
	}
	ret = node_dax_name(*name, dax, daxlen);
	if (ret == -ENOENT) {
		cxu_err("%s: no dax device (destroyed with daxctl? power the device off and on)",
			*name);
		return EXIT_ERR;
	}
	if (ret) {
		cxu_err("%s: dax_device: %s", *name, strerror(-ret));
		return EXIT_ERR;
	}
	return 0;
}

/* Print the outcome: the device as JSON, or "DAX STATE" in text. */
static void node_print(const char *name, const char *dax, bool json)
{
	struct json_object *obj;
	char state[64] = "", bytes[64] = "", node[32] = "", sz[32];
	uint64_t u = 0;
	int index;

	if (json) {
		obj = show_device(name, SHOW_ATTRS | SHOW_SYSFS);
		show_print(obj, true);
		json_object_put(obj);
		return;
	}
	if (!cxu_dev_index(name, &index)) {
		cxu_sysfs_read(index, "online", state, sizeof(state));
		cxu_sysfs_read(index, "online_bytes", bytes, sizeof(bytes));
	}
	cxu_attr_read(name, "target_node", node, sizeof(node));
	cxu_parse_u64(bytes, &u);
	printf("%s %s%s%s%s%s\n", dax, *state ? state : "?",
	       u ? ": " : "", u ? cxu_fmt_size(u, sz, sizeof(sz)) : "",
	       *node ? " on node " : "", *node ? node : "");
}

/**
 * cmd_online() - `online <name> [--fix-auto-online]`: the dax device of a
 * powered node-mode device becomes ZONE_MOVABLE memory of its target node.
 *
 * Return: exit code.
 */
int cmd_online(int argc, char **argv, struct verb_ctx *ctx)
{
	struct daxctl_memory *mem;
	struct daxctl_ctx *dctx;
	struct daxctl_dev *dev;
	bool json = ctx->json, fix = false;
	char dax[64], on_b[64], mov_b[64];
	uint64_t on_u = 0, mov_u = 0;
	int ret, nsec, non, index;
	const char *name;

	ret = node_verb_start("online", argc, argv, &json, &fix, &name, dax, sizeof(dax));
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	/* Unless all of it is online already, the policy matters. */
	if ((cxu_dev_index(name, &index) ||
	     cxu_sysfs_read(index, "online", on_b, sizeof(on_b)) ||
	     strcmp(on_b, "online")) && node_check_auto_online(name, fix))
		return EXIT_ERR;
	dev = dax_find(name, dax, &dctx);
	if (!dev)
		return EXIT_ERR;
	mem = daxctl_dev_get_memory(dev);
	if (!mem) {
		/* devdax mode: unbind device_dax, bind kmem (adds the memory) */
		if (daxctl_dev_is_enabled(dev)) {
			ret = daxctl_dev_disable(dev);
			if (ret) {
				dax_fail(name, "disable", dax, ret, ret == -EBUSY ?
					 "is the dax device open or mapped by a process?" : NULL);
				ret = EXIT_ERR;
				goto out;
			}
		}
		ret = daxctl_dev_enable_ram(dev);
		if (ret) {
			dax_fail(name, "enable system-ram (kmem) on", dax, ret,
				 "is the kmem module loaded?");
			ret = EXIT_ERR;
			goto out;
		}
		mem = daxctl_dev_get_memory(dev);
		if (!mem) {
			dax_fail(name, "system-ram", dax, -ENXIO, "no memory object after binding kmem");
			ret = EXIT_ERR;
			goto out;
		}
	}
	nsec = daxctl_memory_num_sections(mem);
	non = daxctl_memory_is_online(mem);
	if (nsec < 0 || non < 0) {
		dax_fail(name, "memory blocks of", dax, nsec < 0 ? nsec : non, NULL);
		ret = EXIT_ERR;
		goto out;
	}
	if (non < nsec) {
		ret = daxctl_memory_online(mem);
		non = daxctl_memory_is_online(mem);
		if (ret < 0 || non < nsec) {
			dax_fail(name, "online", dax, ret < 0 ? ret : -EIO, NULL);
			if (non >= 0)
				cxu_err("%s: %d of %d memory blocks of %s are online", name,
					non, nsec, dax);
			ret = EXIT_ERR;
			goto out;
		}
	}
	/* Blocks onlined by someone else may sit in ZONE_NORMAL: say so. */
	if (!cxu_dev_index(name, &index) &&
	    !cxu_sysfs_read(index, "online_bytes", on_b, sizeof(on_b)) &&
	    !cxu_sysfs_read(index, "movable_bytes", mov_b, sizeof(mov_b)) &&
	    !cxu_parse_u64(on_b, &on_u) && !cxu_parse_u64(mov_b, &mov_u) && mov_u < on_u)
		fprintf(stderr, PROG ": %s: warning: %" PRIu64 " of %" PRIu64
			" online bytes of %s are not in ZONE_MOVABLE: they may not go offline again\n",
			name, on_u - mov_u, on_u, dax);
	node_print(name, dax, json);
	ret = EXIT_OK;
out:
	daxctl_unref(dctx);
	return ret;
}

/**
 * cmd_offline() - `offline <name>`: offline the memory of a node-mode
 * device. The pages in use move to other nodes; when some cannot move the
 * kernel refuses with EBUSY and the memory stays (partly) online.
 *
 * Return: exit code.
 */
int cmd_offline(int argc, char **argv, struct verb_ctx *ctx)
{
	struct daxctl_memory *mem;
	struct daxctl_ctx *dctx;
	struct daxctl_dev *dev;
	bool json = ctx->json;
	char dax[64], node[32] = "?";
	int ret, nsec, non;
	const char *name;

	ret = node_verb_start("offline", argc, argv, &json, NULL, &name, dax, sizeof(dax));
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	dev = dax_find(name, dax, &dctx);
	if (!dev)
		return EXIT_ERR;
	mem = daxctl_dev_get_memory(dev);
	if (mem) {
		nsec = daxctl_memory_num_sections(mem);
		non = daxctl_memory_is_online(mem);
		if (nsec < 0 || non < 0) {
			dax_fail(name, "memory blocks of", dax, nsec < 0 ? nsec : non, NULL);
			ret = EXIT_ERR;
			goto out;
		}
		if (non > 0) {
			ret = daxctl_memory_offline(mem);
			non = daxctl_memory_is_online(mem);
			if (ret < 0 || non != 0) {
				cxu_attr_read(name, "target_node", node, sizeof(node));
				if (ret == -EBUSY || (ret >= 0 && non > 0))
					cxu_err("%s: offline %s: %s: %d of %d memory blocks are still online: "
						"some pages on node %s could not be migrated (unmovable or "
						"pinned, or no room on other nodes); stop what uses the node "
						"and retry", name, dax, strerror(EBUSY),
						non > 0 ? non : nsec, nsec, node);
				else
					dax_fail(name, "offline", dax, ret < 0 ? ret : -EIO, NULL);
				ret = EXIT_ERR;
				goto out;
			}
		}
	}
	node_print(name, dax, json);
	ret = EXIT_OK;
out:
	daxctl_unref(dctx);
	return ret;
}
