// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs that change devices: create, set, enable, disable, destroy.
 *
 * Every value is checked for syntax before anything is touched (a bad one
 * is a usage error, exit 2); then the writes go to configfs in order, and
 * the first one the kernel refuses stops the verb with one line naming the
 * device, the attribute, strerror() and the kernel's logged reason (exit 1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cxdvirt-dev.h"

/**
 * struct kv - one attribute write.
 * @key:	attribute name.
 * @val:	normalised value (what is written).
 * @uval:	the value as the user gave it, for messages.
 */
struct kv {
	char key[64];
	char val[CXU_VAL_MAX];
	char uval[128];
};

struct kv_list {
	struct kv *v;
	size_t n;
};

static void kvs_free(struct kv_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/*
 * Append @key=@val to @l after checking it. @verb and @arg (the argument
 * as typed) are for the usage message. Return 0, EXIT_USAGE (after a
 * message) or EXIT_ERR.
 */
static int kvs_add(struct kv_list *l, const char *verb, const char *key,
		   const char *val, const char *arg)
{
	const char *why;
	struct kv *nv, *e;

	if (!*key || strlen(key) >= sizeof(e->key) ||
	    strspn(key, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(key))
		return cxu_usage_err(verb, "'%s': not an attribute name", arg);
	nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
	if (!nv) {
		cxu_err("out of memory");
		return EXIT_ERR;
	}
	l->v = nv;
	e = &l->v[l->n];
	if (attr_normalize(key, val, e->val, sizeof(e->val), &why))
		return cxu_usage_err(verb, "%s: %s", arg, why);
	snprintf(e->key, sizeof(e->key), "%s", key);
	snprintf(e->uval, sizeof(e->uval), "%s", val);
	l->n++;
	return 0;
}

/* Add every "key=value" argument in @argv[0..@argc). */
static int kvs_parse(struct kv_list *l, const char *verb, int argc, char **argv)
{
	char key[64];
	const char *eq;
	int i, ret;

	for (i = 0; i < argc; i++) {
		eq = strchr(argv[i], '=');
		if (!eq)
			return cxu_usage_err(verb, "'%s': expected key=value", argv[i]);
		if ((size_t)(eq - argv[i]) >= sizeof(key))
			return cxu_usage_err(verb, "'%s': not an attribute name", argv[i]);
		memcpy(key, argv[i], (size_t)(eq - argv[i]));
		key[eq - argv[i]] = '\0';
		ret = kvs_add(l, verb, key, eq + 1, argv[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Print the one-line failure of writing @what on device @dev: strerror,
 * a hint, and the kernel's reason if there was one.
 */
static void report(const char *dev, const char *what, int err, const char *why,
		   const char *hint)
{
	const char *h = cxu_errhint(err);

	if (!h)
		h = hint;
	cxu_err("%s: %s: %s%s%s%s%s%s", dev, what, strerror(err),
		h ? ": " : "", h ? h : "",
		why && *why ? " (kernel: " : "", why && *why ? why : "",
		why && *why ? ")" : "");
}

/* A hint for a failed power write or rmdir. */
static const char *power_hint(const char *name, int err, bool on)
{
	static char buf[160];
	char dax[64];
	int index;

	if (err == EBUSY && !on && cxu_dev_is_node(name)) {
		if (!node_dax_name(name, dax, sizeof(dax)))
			snprintf(buf, sizeof(buf),
				 "the memory of %s is online (" PROG " offline %s first)",
				 dax, name);
		else
			snprintf(buf, sizeof(buf), "the device's memory is online (" PROG
				 " offline %s first)", name);
		return buf;
	}
	if (err == EBUSY && !on) {
		if (!cxu_dev_index(name, &index))
			snprintf(buf, sizeof(buf),
				 "/dev/cxdvirt%d is open or mapped by a process", index);
		else
			snprintf(buf, sizeof(buf), "the device is open or mapped by a process");
		return buf;
	}
	if (err == ENOMEM && on)
		return "no memory for the backing pages";
	return NULL;
}

/*
 * Write one attribute; on failure print why and return EXIT_ERR. A missing
 * file means the module has no such attribute.
 */
static int write_kv(const char *name, const struct kv *e)
{
	char why[512], feat[CXU_VAL_MAX], what[256];
	int ret;

	ret = cxu_attr_write(name, e->key, e->val, why, sizeof(why));
	if (!ret)
		return 0;
	if (ret == -ENOENT) {
		if (cxu_dev_exists(name) == 0) {
			cxu_err("%s: no such device", name);
		} else if (!cxu_attr_read(name, "features", feat, sizeof(feat))) {
			cxu_err("%s: %s: no such attribute (this module has: %s)",
				name, e->key, feat);
		} else {
			cxu_err("%s: %s: no such attribute", name, e->key);
		}
		return EXIT_ERR;
	}
	snprintf(what, sizeof(what), "%s=%s", e->key, e->uval);
	report(name, what, -ret, why,
	       !strcmp(e->key, "power") ? power_hint(name, -ret, e->val[0] == '1') : NULL);
	return EXIT_ERR;
}

/* Check the root and that device @name exists; print why not. */
static int need_device(const char *name)
{
	int ret;

	if (cxu_check_root())
		return EXIT_ERR;
	ret = cxu_dev_exists(name);
	if (ret == 1)
		return 0;
	if (ret == 0)
		cxu_err("%s: no such device", name);
	else
		cxu_err("%s: %s%s%s", name, strerror(-ret), cxu_errhint(-ret) ? ": " : "",
			cxu_errhint(-ret) ? cxu_errhint(-ret) : "");
	return EXIT_ERR;
}

static int check_name(const char *verb, const char *name)
{
	if (!cxu_name_valid(name))
		return cxu_usage_err(verb, "'%s': not a device name (1..%d characters from A-Z a-z 0-9 _ . -)",
				     name, CXU_DEV_NAME_MAX);
	return 0;
}

/* --json output of a device after a verb changed it. */
static void print_json_device(const char *name)
{
	struct json_object *obj = show_device(name, SHOW_ATTRS | SHOW_SYSFS);

	show_print(obj, true);
	json_object_put(obj);
}

/* What enable prints: /dev/cxdvirtN, or in node mode the dax device. */
static void print_dev_node(const char *name)
{
	char dax[64];
	int index;

	if (cxu_dev_is_node(name)) {
		if (!node_dax_name(name, dax, sizeof(dax)))
			printf("%s\n", dax);
		return;
	}
	if (!cxu_dev_index(name, &index))
		printf("/dev/cxdvirt%d\n", index);
}

/* Remove a half-created device; say so if that fails too. */
static void rollback(const char *name)
{
	char why[512];
	int ret;

	ret = cxu_rmdir(name, why, sizeof(why));
	if (ret)
		report(name, "could not remove the half-created device", -ret, why, NULL);
	else
		cxu_err("%s: removed the half-created device", name);
}

enum { OPT_PRESET = 256, OPT_ENABLE, OPT_FIX, OPT_PARAM };

/*
 * The configfs attributes create takes as options (--cache-size for
 * cache_size), written first and in this order: each is named once here.
 */
static const char *const create_params[] = {
	"capacity", "cache_size", "backing_node", "phys_addr", "mode",
	"target_node",
};
#define NCREATE	(sizeof(create_params) / sizeof(create_params[0]))

/* @param as an option name, '-' for '_', into @buf (@len bytes). */
static const char *opt_of(char *buf, size_t len, const char *param)
{
	size_t i;

	for (i = 0; param[i] && i + 1 < len; i++)
		buf[i] = param[i] == '_' ? '-' : param[i];
	buf[i] = '\0';
	return buf;
}

/*
 * Is the configured mode (after the writes of create) node mode? Then the
 * auto-online policy must not online the memory as kernel memory when the
 * device powers on (kernels from 6.3 hand the range to kmem at once).
 */
static int check_node_power_on(const char *name, bool fix)
{
	if (!cxu_dev_is_node(name))
		return 0;
	return node_check_auto_online(name, fix) ? EXIT_ERR : 0;
}

/**
 * cmd_create() - `create <name> [options] [key=value...]`: mkdir, write the
 * options, the preset, then key=value in order (they override the preset),
 * then power=1 with --enable. Any failure removes the directory again.
 *
 * Return: exit code.
 */
int cmd_create(int argc, char **argv, struct verb_ctx *ctx)
{
	static const struct option own[] = {
		{ "preset",		required_argument, NULL, OPT_PRESET },
		{ "enable",		no_argument,	   NULL, OPT_ENABLE },
		{ "fix-auto-online",	no_argument,	   NULL, OPT_FIX },
		{ "json",		no_argument,	   NULL, 'j' },
		{ "help",		no_argument,	   NULL, 'h' },
	};
	static char optname[NCREATE][32];
	struct option opts[NCREATE + sizeof(own) / sizeof(own[0]) + 1];
	const char *val[NCREATE] = { NULL };
	static const struct kv power_on = { .key = "power", .val = "1", .uval = "1" };
	struct kv_list first = { 0 }, rest = { 0 };
	struct preset preset_buf, *preset = NULL;
	bool enable = false, fix = false, json = ctx->json;
	const char *name;
	char arg[128], why[512], cur[64];
	uint64_t cap_new, cache_cur;
	int c, ret;
	size_t i, k;

	for (k = 0; k < NCREATE; k++) {
		opts[k].name = opt_of(optname[k], sizeof(optname[k]),
				      create_params[k]);
		opts[k].has_arg = required_argument;
		opts[k].flag = NULL;
		opts[k].val = OPT_PARAM + (int)k;
	}
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		opts[NCREATE + i] = own[i];
	memset(&opts[NCREATE + i], 0, sizeof(opts[0]));
	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (c >= OPT_PARAM && c < OPT_PARAM + (int)NCREATE) {
			val[c - OPT_PARAM] = optarg;
			continue;
		}
		switch (c) {
		case OPT_ENABLE: enable = true; break;
		case OPT_FIX: fix = true; break;
		case 'j': json = true; break;
		case OPT_PRESET:
			if (preset_find(optarg, &preset_buf))
				return cxu_usage_err("create", "--preset %s: unknown (%s)",
						     optarg, preset_names());
			preset = &preset_buf;
			break;
		case 'h': verb_help("create"); return EXIT_OK;
		default: return cxu_usage_err("create", NULL);
		}
	}
	if (optind >= argc)
		return cxu_usage_err("create", "missing device name");
	name = argv[optind++];
	ret = check_name("create", name);
	if (ret)
		return ret;

	/* Every value is checked before the mkdir. */
	for (k = 0; k < NCREATE; k++) {
		if (!val[k])
			continue;
		snprintf(arg, sizeof(arg), "--%s %s", opts[k].name, val[k]);
		ret = kvs_add(&first, "create", create_params[k], val[k], arg);
		if (ret)
			goto out;
	}
	for (k = 0; preset && k < PRESET_MAX_KV; k++) {
		const char *val = preset->kv[k].val;

		snprintf(arg, sizeof(arg), "%s=%s (preset %s)", preset->kv[k].attr,
			 val, preset->name);
		ret = kvs_add(&rest, "create", preset->kv[k].attr, val, arg);
		if (ret)
			goto out;
	}
	ret = kvs_parse(&rest, "create", argc - optind, argv + optind);
	if (ret)
		goto out;

	ret = EXIT_ERR;
	if (cxu_check_root())
		goto out;
	ret = cxu_mkdir(name, why, sizeof(why));
	if (ret) {
		if (ret == -EEXIST)
			cxu_err("%s: already exists", name);
		else
			report(name, "mkdir", -ret, why, NULL);
		ret = EXIT_ERR;
		goto out;
	}

	/*
	 * cache_size may not exceed capacity: when the new capacity is below
	 * the current cache_size, write cache_size first.
	 */
	if (val[0] && val[1] && first.n >= 2 &&	/* capacity, cache_size */
	    !cxu_parse_u64(first.v[0].val, &cap_new) &&
	    !cxu_attr_read(name, "cache_size", cur, sizeof(cur)) &&
	    !cxu_parse_size(cur, &cache_cur) && cap_new < cache_cur) {
		struct kv tmp = first.v[0];

		first.v[0] = first.v[1];
		first.v[1] = tmp;
	}
	for (i = 0; i < first.n + rest.n; i++) {
		const struct kv *e = i < first.n ? &first.v[i] : &rest.v[i - first.n];

		if (write_kv(name, e)) {
			rollback(name);
			ret = EXIT_ERR;
			goto out;
		}
	}
	if (enable && (check_node_power_on(name, fix) || write_kv(name, &power_on))) {
		rollback(name);
		ret = EXIT_ERR;
		goto out;
	}
	ret = EXIT_OK;
	if (json)
		print_json_device(name);
	else if (enable)
		print_dev_node(name);
out:
	kvs_free(&first);
	kvs_free(&rest);
	return ret;
}

/*
 * Parse the options every simple verb takes: --json and --help, and
 * --fix-auto-online when @fix is not NULL.
 */
static int simple_opts(const char *verb, int argc, char **argv, bool *json,
		       bool *fix)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "fix-auto-online", no_argument, NULL, OPT_FIX },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': *json = true; break;
		case 'h': verb_help(verb); return -1;
		case OPT_FIX:
			if (fix) {
				*fix = true;
				break;
			}
			/* fall through */
		default: return cxu_usage_err(verb, NULL);
		}
	}
	return 0;
}

/**
 * cmd_set() - `set <name> key=value...`: write in order, stop at the first
 * failure and say which settings were applied before it.
 *
 * Return: exit code.
 */
int cmd_set(int argc, char **argv, struct verb_ctx *ctx)
{
	struct kv_list l = { 0 };
	bool json = ctx->json;
	const char *name;
	size_t i, j;
	int ret;

	ret = simple_opts("set", argc, argv, &json, NULL);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (optind >= argc)
		return cxu_usage_err("set", "missing device name");
	name = argv[optind++];
	ret = check_name("set", name);
	if (ret)
		return ret;
	if (optind >= argc)
		return cxu_usage_err("set", "nothing to set: give key=value");
	ret = kvs_parse(&l, "set", argc - optind, argv + optind);
	if (ret)
		goto out;
	ret = need_device(name);
	if (ret)
		goto out;
	for (i = 0; i < l.n; i++) {
		if (!write_kv(name, &l.v[i]))
			continue;
		if (l.n > 1) {
			fprintf(stderr, PROG ": %s: applied:", name);
			for (j = 0; j < i; j++)
				fprintf(stderr, " %s", l.v[j].key);
			fprintf(stderr, "%s; not attempted:", i ? "" : " none");
			for (j = i + 1; j < l.n; j++)
				fprintf(stderr, " %s", l.v[j].key);
			fprintf(stderr, "%s\n", i + 1 < l.n ? "" : " none");
		}
		ret = EXIT_ERR;
		goto out;
	}
	if (json)
		print_json_device(name);
out:
	kvs_free(&l);
	return ret;
}

/* enable and disable: write power, unless it already has that value. */
static int set_power(const char *verb, int argc, char **argv,
		     struct verb_ctx *ctx, bool on)
{
	struct kv e = { .key = "power" };
	bool json = ctx->json, fix = false;
	const char *name;
	int ret, power;

	ret = simple_opts(verb, argc, argv, &json, on ? &fix : NULL);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (optind >= argc)
		return cxu_usage_err(verb, "missing device name");
	name = argv[optind++];
	if (optind < argc)
		return cxu_usage_err(verb, "unexpected '%s'", argv[optind]);
	ret = check_name(verb, name);
	if (ret)
		return ret;
	ret = need_device(name);
	if (ret)
		return ret;
	if (cxu_dev_power(name, &power) || power != on) {
		if (on && check_node_power_on(name, fix))
			return EXIT_ERR;
		snprintf(e.val, sizeof(e.val), "%d", on);
		snprintf(e.uval, sizeof(e.uval), "%d", on);
		if (write_kv(name, &e))
			return EXIT_ERR;
	}
	if (json)
		print_json_device(name);
	else if (on)
		print_dev_node(name);
	return EXIT_OK;
}

/** cmd_enable() - `enable <name>`: power=1; prints /dev/cxdvirtN. */
int cmd_enable(int argc, char **argv, struct verb_ctx *ctx)
{
	return set_power("enable", argc, argv, ctx, true);
}

/** cmd_disable() - `disable <name>`: power=0. */
int cmd_disable(int argc, char **argv, struct verb_ctx *ctx)
{
	return set_power("disable", argc, argv, ctx, false);
}

/**
 * cmd_destroy() - `destroy <name>`: power=0 if powered, then rmdir.
 *
 * Return: exit code.
 */
int cmd_destroy(int argc, char **argv, struct verb_ctx *ctx)
{
	struct kv e = { .key = "power", .val = "0", .uval = "0" };
	bool json = ctx->json;
	const char *name;
	char why[512];
	int ret, power;

	ret = simple_opts("destroy", argc, argv, &json, NULL);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if (optind >= argc)
		return cxu_usage_err("destroy", "missing device name");
	name = argv[optind++];
	if (optind < argc)
		return cxu_usage_err("destroy", "unexpected '%s'", argv[optind]);
	ret = check_name("destroy", name);
	if (ret)
		return ret;
	ret = need_device(name);
	if (ret)
		return ret;
	if (!cxu_dev_power(name, &power) && power && write_kv(name, &e))
		return EXIT_ERR;
	ret = cxu_rmdir(name, why, sizeof(why));
	if (ret) {
		report(name, "rmdir", -ret, why, power_hint(name, -ret, false));
		return EXIT_ERR;
	}
	return EXIT_OK;
}
