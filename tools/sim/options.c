// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-sim's options: the device parameters from the table in
 * include/cxdvirt/params.h (and their earlier spellings), setting them into
 * a struct sim_cfg with their bounds checked, the getopt table and --help.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cxu_msg.h"
#include "cxu_num.h"
#include <cxdvirt/params.h>

#include "sim.h"

/* A number (@suffix: a size in bytes), by the tools' one rule (cxu_num.h). */
static int parse_u64(const char *s, uint64_t *v, bool suffix)
{
	if (!s)
		return -1;
	return (suffix ? cxu_parse_size(s, v) : cxu_parse_u64(s, v)) ? -1 : 0;
}

/*
 * The device parameters: the table's shared part (include/cxdvirt/params.h),
 * capacity and cache_size bounded by the model (CXD_MODEL_MAX_CAPACITY)
 * rather than by the module's RAM-backed devices (sim_params_init()).
 */
static struct cxd_param sim_params[] = {
	CXD_PARAMS_SHARED(CXD_P_DESC_)
};
#define SIM_NPARAMS	(sizeof(sim_params) / sizeof(sim_params[0]))

/* Raise capacity's and cache_size's bound to the model's; idempotent. */
static void sim_params_init(void)
{
	size_t i;

	for (i = 0; i < SIM_NPARAMS; i++)
		if (sim_params[i].id == CXD_PARAM_capacity ||
		    sim_params[i].id == CXD_PARAM_cache_size)
			sim_params[i].max = CXD_MODEL_MAX_CAPACITY;
}

/* Spellings of earlier versions, still accepted (not shown in --help). */
static const struct {
	const char *old;
	const char *name;
} sim_aliases[] = {
	{ "cache", "cache-size" },
	{ "degree", "prefetch-degree" },
	{ "distance", "prefetch-distance" },
	{ "cflru-window", "cflru-window-pct" },
	{ "t-read", "t-read-ns" },
	{ "t-prog", "t-prog-ns" },
	{ "t-bers", "t-bers-ns" },
	{ "dies", "dies-per-channel" },
	{ "planes", "planes-per-die" },
	{ "page-size", "nand-page-size" },
	{ "mbps", "channel-mbps" },
	{ "xfer", "xfer-model" },
};
#define SIM_NALIASES	(sizeof(sim_aliases) / sizeof(sim_aliases[0]))

/* Is option @key the parameter @name ('-' in @key for each '_')? */
static bool opt_is(const char *key, const char *name)
{
	for (; *key && *name; key++, name++)
		if (*key != (*name == '_' ? '-' : *name))
			return false;
	return !*key && !*name;
}

/* The parameter of option @key (after the aliases), or NULL. */
static const struct cxd_param *sim_param(const char *key)
{
	size_t i;

	sim_params_init();
	for (i = 0; i < SIM_NALIASES; i++)
		if (!strcmp(key, sim_aliases[i].old))
			key = sim_aliases[i].name;
	for (i = 0; i < SIM_NPARAMS; i++)
		if (opt_is(key, sim_params[i].name))
			return &sim_params[i];
	return NULL;
}

/**
 * sim_param_at() - the device parameters of the options, in their order.
 * @i: index, from 0.
 *
 * Return: the table's entry @i (include/cxdvirt/params.h), or NULL past the
 * last one.
 */
const struct cxd_param *sim_param_at(size_t i)
{
	sim_params_init();
	return i < SIM_NPARAMS ? &sim_params[i] : NULL;
}

/**
 * sim_get() - the value of one device parameter in a configuration.
 * @cfg:     configuration.
 * @id:      enum cxd_param_id of the parameter.
 *
 * Return: the value in the table's unit (sizes in bytes, enums as their
 * number, bools 0/1); 0 for an @id the simulator does not have.
 */
uint64_t sim_get(const struct sim_cfg *cfg, int id)
{
	const struct cxd_params *cxd_p_c = &cfg->p;

	switch (id) {
	CXD_PARAMS_SHARED(CXD_P_GET_)
	}
	return 0;
}

/**
 * sim_same() - do two configurations replay alike?
 * @a: one configuration ...
 * @b: ... and the other.
 *
 * Return: true when every device parameter (the table's) and every
 * replay setting (preset name, think, hit-ns, warmup, faults,
 * power-fail-at) is the same in both.
 */
bool sim_same(const struct sim_cfg *a, const struct sim_cfg *b)
{
	size_t i;

	for (i = 0; i < SIM_NPARAMS; i++)
		if (sim_get(a, sim_params[i].id) != sim_get(b, sim_params[i].id))
			return false;
	return !strcmp(a->preset ? a->preset : "", b->preset ? b->preset : "") &&
	       a->think_ns == b->think_ns && a->hit_ns == b->hit_ns &&
	       a->warmup == b->warmup && a->warmup_pct == b->warmup_pct &&
	       a->faults == b->faults && a->power_fail_at == b->power_fail_at;
}

/**
 * sim_key_canon() - the canonical spelling of a configuration key.
 * @key: option name without the dashes, as sim_set() takes it ("cache",
 *       "cache-size", "preset", "think", "faults").
 * @buf: where the canonical name goes: the table's name with '-' for '_'
 *       ("cache-size"), or @key itself for preset, think and faults.
 * @len: size of @buf in bytes.
 *
 * Return: 0, or -1 if @key is not a key of sim_set() (@buf then empty).
 */
int sim_key_canon(const char *key, char *buf, size_t len)
{
	const struct cxd_param *p;
	char *q;

	if (!len)
		return -1;
	buf[0] = '\0';
	if (!strcmp(key, "preset") || !strcmp(key, "think") ||
	    !strcmp(key, "faults") || !strcmp(key, "power-fail-at") ||
	    !strcmp(key, "hit-ns") || !strcmp(key, "warmup")) {
		snprintf(buf, len, "%s", key);
		return 0;
	}
	p = sim_param(key);
	if (!p)
		return -1;
	snprintf(buf, len, "%s", p->name);
	for (q = buf; *q; q++)
		if (*q == '_')
			*q = '-';
	return 0;
}

/* @p's option as --help shows it: "--cache-size SIZE". */
static void opt_name(char *buf, size_t len, const struct cxd_param *p)
{
	size_t i;

	snprintf(buf, len, "--%s%s", p->name,
		 p->type == CXD_PT_BOOL ? "" : p->type == CXD_PT_ENUM ? " NAME" :
		 p->flags & CXD_P_SUFFIX ? " SIZE" : " N");
	for (i = 2; buf[i] && buf[i] != ' '; i++)
		if (buf[i] == '_')
			buf[i] = '-';
}

/* @p's names joined by @sep into @buf (@len bytes). Return: @buf. */
static const char *enum_names(char *buf, size_t len, const struct cxd_param *p,
			      const char *sep)
{
	unsigned int v;
	size_t n = 0;

	buf[0] = '\0';
	for (v = 0; v <= p->max && p->names(v) && n < len; v++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", v ? sep : "",
				      p->names(v));
	return buf;
}

/*
 * A flag's value: none (the flag alone) is on, else the module's rule
 * (cxd_parse_flag(): 0, 1, off or on). Return: 0/1, -1.
 */
static int flag_value(const char *val)
{
	bool on;

	if (!val)
		return 1;
	return cxd_parse_flag(val, strlen(val), &on) ? -1 : on;
}

/* One line of --help per device parameter: bounds or names, default. */
static void usage_params(FILE *out, const struct sim_cfg *def)
{
	char opt[48], lo[24], hi[24], dv[24], names[96];
	const struct cxd_param *p;
	size_t i;

	sim_params_init();
	for (i = 0; i < SIM_NPARAMS; i++) {
		p = &sim_params[i];
		opt_name(opt, sizeof(opt), p);
		cxd_param_format(p, sim_get(def, p->id), dv, sizeof(dv));
		if (p->id == CXD_PARAM_capacity)
			snprintf(dv, sizeof(dv), "the trace's extent");
		if (p->type == CXD_PT_ENUM) {
			fprintf(out, "  %-26s %s (default %s)\n", opt,
				enum_names(names, sizeof(names), p, "|"), dv);
		} else if (p->type == CXD_PT_BOOL) {
			fprintf(out, "  %-26s flag; 0|1|off|on in --compare (default %s)\n",
				opt, sim_get(def, p->id) ? "on" : "off");
		} else {
			fprintf(out, "  %-26s [%s, %s]%s%s (default %s)\n", opt,
				cxd_param_format(p, (uint64_t)p->min, lo, sizeof(lo)),
				cxd_param_format(p, p->max, hi, sizeof(hi)),
				*p->unit ? " " : "", p->unit, dv);
		}
	}
}

/**
 * sim_usage() - print --help.
 * @out: where to.
 * @def: the defaults shown (the table's, before any option).
 */
void sim_usage(FILE *out, const struct sim_cfg *def)
{
	size_t i;

	fputs(
"usage: cxdvirt-sim [options] TRACE\n"
"       cxdvirt-sim [--format F] --convert OUT TRACE\n"
"       cxdvirt-sim sweep [--run local|parallel|slurm] [--out DIR] GRID\n"
"       cxdvirt-sim sweep --merge DIR\n"
"Replay TRACE (`R|W|D ADDRESS [THREAD]` per line; 0x.. = byte address,\n"
"decimal = 4 KiB page number; # comments) through the device model.\n"
"TRACE may also be a binary trace, valgrind lackey output or cxdvirt_miss\n"
"tracepoint lines; - is standard input. `sweep` runs every job of a grid\n"
"of traces and option lists (cxdvirt-sim sweep --help).\n"
"\n"
"  --format F             auto (default), text, binary, lackey, tracepoint\n"
"  --convert OUT          write TRACE as a binary trace to OUT, no replay\n"
"  --lackey-instr         lackey: replay instruction fetches (I) as reads\n"
"  --dev NAME             tracepoint: replay only the misses of device NAME\n"
"  --timing               print load and replay time (accesses/s) on stderr\n"
"  --preset NAME          NAND preset (every NAND and controller parameter):\n"
"                         znand, femu, tlc, cmmh; later options override it\n"
"  --think NS             time between accesses (default 0)\n"
"  --hit-ns NS            a hit's latency at the device, its line's link\n"
"                         transfer included (default 0: hits are free, as\n"
"                         in the module, where they run natively); with\n"
"                         --faults, native hits cost it too\n"
"  --warmup N|P%          replay N accesses (or P% of the trace), then reset\n"
"                         every counter and measure the rest (default 0)\n"
"  --faults               only accesses that would fault in the module reach\n"
"                         the model (mapped pages are native hits)\n"
"  --power-fail-at N      a power failure after N accesses (in arrival order):\n"
"                         stop there, report the dirty lines kept (GPF) and lost\n"
"  --compare KEY=V1,V2..  run once per value (KEY: any option name)\n"
"  --json                 JSON output\n"
"  -h, --help             this text\n"
"\n"
"Device parameters: the configfs attributes of the same names, '-' for '_'\n"
"(docs/interface.md; the learned prefetchers' in docs/model.md). Sizes\n"
"take K, M, G or T. Bounds, then the default:\n", out);
	usage_params(out, def);
	fputs("Earlier spellings, still accepted:", out);
	for (i = 0; i < SIM_NALIASES; i++)
		fprintf(out, "%s--%s", i % 6 ? " " : "\n  ", sim_aliases[i].old);
	fputc('\n', out);
}

/* Why the last sim_set() failed, for the message. */
char sim_why[128];

/**
 * sim_set() - set one configuration key.
 * @cfg: configuration.
 * @key: option name without the dashes: a device parameter ("cache-size",
 *       or an earlier spelling such as "cache"), "preset", "think",
 *       "hit-ns", "warmup" or "faults".
 * @val: value text; NULL for a flag (a bool parameter, faults).
 *
 * Values are checked against the table's bounds (include/cxdvirt/params.h).
 * Return: 0, or -1 (bad key or value; nothing printed, the reason, if any,
 * in sim_why; @cfg unchanged).
 */
int sim_set(struct sim_cfg *cfg, const char *key, const char *val)
{
	const struct cxd_param *p = sim_param(key);
	const struct cxd_preset *ps;
	char lo[24], hi[24];
	const char *why;
	uint64_t v = 0;
	int e;

	sim_why[0] = '\0';
	if (!strcmp(key, "faults")) {
		e = flag_value(val);
		if (e < 0) {
			snprintf(sim_why, sizeof(sim_why), " (0, 1, off or on)");
			return -1;
		}
		cfg->faults = e;
		return 0;
	}
	if (!strcmp(key, "preset")) {
		ps = val ? cxd_preset_find(val) : NULL;
		if (!ps) {
			int n = snprintf(sim_why, sizeof(sim_why), " (one of:");

			for (e = 0; cxd_preset_at(e) && n < (int)sizeof(sim_why); e++)
				n += snprintf(sim_why + n, sizeof(sim_why) - n,
					      " %s", cxd_preset_at(e)->name);
			if (n < (int)sizeof(sim_why))
				snprintf(sim_why + n, sizeof(sim_why) - n, ")");
			return -1;
		}
		cfg->p.nand = ps->nand;
		cfg->preset = ps->name;
		return 0;
	}
	if (!strcmp(key, "think")) {
		if (!parse_u64(val, &cfg->think_ns, false))
			return 0;
		snprintf(sim_why, sizeof(sim_why), " (not a number of ns)");
		return -1;
	}
	if (!strcmp(key, "power-fail-at")) {
		if (!parse_u64(val, &cfg->power_fail_at, false) &&
		    cfg->power_fail_at)
			return 0;
		cfg->power_fail_at = 0;
		snprintf(sim_why, sizeof(sim_why), " (not a number of accesses >= 1)");
		return -1;
	}
	if (!strcmp(key, "hit-ns")) {
		if (!parse_u64(val, &v, false) && v <= CXD_MAX_LATENCY_NS) {
			cfg->hit_ns = v;
			return 0;
		}
		snprintf(sim_why, sizeof(sim_why),
			 " (a number of ns, at most %llu)", CXD_MAX_LATENCY_NS);
		return -1;
	}
	if (!strcmp(key, "warmup")) {
		char num[24];
		size_t l = val ? strlen(val) : 0;

		if (l && l < sizeof(num) && val[l - 1] == '%') {
			memcpy(num, val, l - 1);
			num[l - 1] = '\0';
			if (!parse_u64(num, &v, false) && v < 100) {
				cfg->warmup = 0;
				cfg->warmup_pct = (unsigned int)v;
				return 0;
			}
		} else if (!parse_u64(val, &v, false)) {
			cfg->warmup = v;
			cfg->warmup_pct = 0;
			return 0;
		}
		snprintf(sim_why, sizeof(sim_why),
			 " (a number of accesses, or 0%% .. 99%% of the trace)");
		return -1;
	}
	if (!p) {
		snprintf(sim_why, sizeof(sim_why), " (no such option)");
		return -1;
	}
	switch (p->type) {
	case CXD_PT_BOOL:
		e = flag_value(val);
		if (e < 0) {
			snprintf(sim_why, sizeof(sim_why), " (0, 1, off or on)");
			return -1;
		}
		v = (uint64_t)e;
		break;
	case CXD_PT_ENUM:
		if (!val || cxd_param_parse(p, val, strlen(val), &v)) {
			char names[96];

			snprintf(sim_why, sizeof(sim_why), " (one of: %s)",
				 enum_names(names, sizeof(names), p, " "));
			return -1;
		}
		break;
	default:
		/* the number alone: the bounds are checked below */
		if (!val || cxd_parse_u64(val, strlen(val),
					  p->flags & CXD_P_SUFFIX, &v)) {
			snprintf(sim_why, sizeof(sim_why), "%s",
				 p->flags & CXD_P_SUFFIX ?
				 " (not a size: a number with an optional K, M, G or T suffix)" :
				 " (not a number: decimal or 0x-hex)");
			return -1;
		}
		break;
	}
	why = cxd_param_bad(p, v);
	if (why) {
		snprintf(sim_why, sizeof(sim_why), " (%s [%s, %s]%s%s)", why,
			 cxd_param_format(p, (uint64_t)p->min, lo, sizeof(lo)),
			 cxd_param_format(p, p->max, hi, sizeof(hi)),
			 *p->unit ? " " : "", p->unit);
		return -1;
	}
	CXD_PARAMS_SET(&cfg->p, p->id, v, CXD_PARAMS_SHARED);
	return 0;
}

/*
 * The options: the device parameters (and their earlier spellings) from the
 * table, then the simulator's own. Built by sim_build_opts().
 */
static struct option long_opts[SIM_NPARAMS + SIM_NALIASES + 16];
static char opt_names[SIM_NPARAMS][40];

/**
 * sim_build_opts() - fill the getopt_long() table.
 *
 * The options whose val is SIM_OPT_KEY + their index (--preset, --think,
 * --faults, every device parameter and earlier spelling) are the keys of
 * sim_set(); the others have a letter as val, handled in main().
 *
 * Return: the table, ended by a zeroed entry; the same static table on
 * every call.
 */
const struct option *sim_build_opts(void)
{
	static const struct option own[] = {
		{ "preset", required_argument, NULL, 0 },
		{ "think", required_argument, NULL, 0 },
		{ "faults", no_argument, NULL, 0 },
		{ "power-fail-at", required_argument, NULL, 0 },
		{ "hit-ns", required_argument, NULL, 0 },
		{ "warmup", required_argument, NULL, 0 },
		{ "format", required_argument, NULL, 'f' },
		{ "convert", required_argument, NULL, 'o' },
		{ "lackey-instr", no_argument, NULL, 'i' },
		{ "dev", required_argument, NULL, 'd' },
		{ "timing", no_argument, NULL, 't' },
		{ "compare", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
	};
	size_t i, k, n = 0;
	char *q;

	/*
	 * Each key option gets its own val (SIM_OPT_KEY + its index), so that
	 * getopt_long() refuses an abbreviation several of them share
	 * ("--prefetch-d") instead of taking the first: glibc counts options
	 * with the same has_arg, flag and val as one.
	 */
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		long_opts[n] = own[i];
		if (!own[i].val)
			long_opts[n].val = SIM_OPT_KEY + (int)n;
		n++;
	}
	for (i = 0; i < SIM_NPARAMS; i++) {
		snprintf(opt_names[i], sizeof(opt_names[i]), "%s",
			 sim_params[i].name);
		for (q = opt_names[i]; *q; q++)
			if (*q == '_')
				*q = '-';
		long_opts[n].name = opt_names[i];
		long_opts[n].has_arg = sim_params[i].type == CXD_PT_BOOL ?
				       no_argument : required_argument;
		long_opts[n].flag = NULL;
		long_opts[n].val = SIM_OPT_KEY + (int)n;
		n++;
	}
	for (i = 0; i < SIM_NALIASES; i++) {
		for (k = 0; k < SIM_NPARAMS; k++)
			if (!strcmp(opt_names[k], sim_aliases[i].name))
				break;
		long_opts[n].name = sim_aliases[i].old;
		long_opts[n].has_arg = k < SIM_NPARAMS &&
				       sim_params[k].type == CXD_PT_BOOL ?
				       no_argument : required_argument;
		long_opts[n].flag = NULL;
		long_opts[n].val = SIM_OPT_KEY + (int)n;
		n++;
	}
	memset(&long_opts[n], 0, sizeof(long_opts[n]));
	return long_opts;
}

/**
 * sim_apply_opts() - set up a configuration from the command line.
 * @cfg:    configuration, changed in place.
 * @preset: --preset NAME, or NULL; applied first.
 * @name:   option names without the dashes, @n of them ...
 * @val:    ... and their values (NULL for a flag), applied in this order.
 * @n:      number of options.
 *
 * Return: 0, or -1 after printing which option was refused and why (@cfg
 * may then hold the options before it).
 */
int sim_apply_opts(struct sim_cfg *cfg, const char *preset,
		   const char *const *name, const char *const *val, int n)
{
	int i;

	if (preset && sim_set(cfg, "preset", preset)) {
		cxu_err("--preset: bad value '%s'%s", preset, sim_why);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (sim_set(cfg, name[i], val[i])) {
			cxu_err("--%s: bad value '%s'%s", name[i],
				val[i] ? val[i] : "", sim_why);
			return -1;
		}
	}
	return 0;
}
