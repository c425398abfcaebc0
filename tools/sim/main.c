// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-sim: replay a trace through the cxdvirt device model (the same
 * code the module runs) on one clock per trace thread, and report hit ratio, miss
 * latency percentiles, prefetch metrics and die utilisation.
 *
 * The options are in options.c, the replay in replay.c (what --faults and
 * --think do), the report in report.c, the trace formats in trace*.c.
 *
 * Usage: see sim_usage() in options.c, docs/tools.md (options, trace
 * formats) and docs/model.md (what the model does).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cxu_msg.h"
#include <cxdvirt/params.h>

#include "sim.h"

#define MAX_COMPARE	32

/* Do paths @a and @b name one existing file? */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return strcmp(a, "-") && strcmp(b, "-") && !stat(a, &sa) &&
	       !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* @clk (CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID) in seconds, for --timing. */
static double now_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct sim_cfg base;
	struct sim_cfg cfgs[MAX_COMPARE];
	struct metrics xs[MAX_COMPARE];
	char *compare = NULL, *cvals[MAX_COMPARE], *ckey = NULL, *s, *tok;
	unsigned int n = 1, i;
	bool json = false, timing = false;
	struct trace_opts topts = { 0 };
	const char *convert = NULL;
	double t0, t1, c0, c1;
	struct trace t;
	const struct option *long_opts;
	int opt, idx, ret = 0, nex = 0;
	const char **ex_name, **ex_val, *preset = NULL;
	struct sim_cfg defaults;

	cxu_set_prog("cxdvirt-sim");
	if (argc > 1 && !strcmp(argv[1], "sweep"))
		return sim_sweep_main(argc - 1, argv + 1);
	/* The table's defaults, as a new configfs device has them. */
	memset(&base, 0, sizeof(base));
	CXD_PARAMS_DEFAULTS(&base.p, CXD_PARAMS_SHARED);
	base.p.capacity = 0;	/* the trace's extent */
	base.preset = "default";
	long_opts = sim_build_opts();
	/*
	 * The device options are applied after the loop: --preset first,
	 * then the others in their order, so an explicit NAND setting wins
	 * over the preset wherever it is given (as in cxdvirt-dev create).
	 */
	ex_name = calloc(argc, sizeof(*ex_name));
	ex_val = calloc(argc, sizeof(*ex_val));
	if (!ex_name || !ex_val)
		return 1;
	opterr = 0;	/* ':' first: a missing value is ':', not '?' */
	while ((opt = getopt_long(argc, argv, ":h", long_opts, &idx)) != -1) {
		if (opt >= SIM_OPT_KEY) {	/* a key of sim_set() */
			if (!strcmp(long_opts[opt - SIM_OPT_KEY].name, "preset")) {
				preset = optarg;
				continue;
			}
			ex_name[nex] = long_opts[opt - SIM_OPT_KEY].name;
			ex_val[nex++] = optarg;
			continue;
		}
		switch (opt) {
		case 'f':
			if (trace_format_parse(optarg) < 0) {
				cxu_err("--format: bad value '%s'", optarg);
				return 2;
			}
			topts.format = trace_format_parse(optarg);
			break;
		case 'o':
			convert = optarg;
			break;
		case 'i':
			topts.lackey_instr = true;
			break;
		case 'd':
			topts.dev = optarg;
			break;
		case 't':
			timing = true;
			break;
		case 'c':
			compare = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			sim_usage(stdout, &base);
			return 0;
		case ':':
			return cxu_usage_err(NULL, "option '%s' needs a value",
					     argv[optind - 1]);
		default:
			return cxu_usage_err(NULL, "unrecognized or ambiguous option '%s'",
					     argv[optind - 1]);
		}
	}
	/*
	 * The options' values first: an option missing its value takes the
	 * TRACE as one ("--hit-ns t.txt"), and its bad value is the error
	 * to report, not the missing TRACE.
	 */
	defaults = base;
	if (sim_apply_opts(&base, preset, ex_name, ex_val, nex))
		return 2;
	if (optind != argc - 1)
		return cxu_usage_err(NULL, optind == argc ? "no TRACE given" :
				     "one TRACE only");

	cfgs[0] = base;
	if (compare) {
		ckey = compare;
		s = strchr(compare, '=');
		if (!s || s == compare || !s[1]) {
			cxu_err("--compare wants KEY=V1,V2,...");
			return 2;
		}
		*s++ = 0;
		n = 0;
		for (tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
			if (n == MAX_COMPARE) {
				cxu_err("at most %d values",
					MAX_COMPARE);
				return 2;
			}
			cvals[n] = tok;
			if (!strcmp(ckey, "preset")) {
				/* Each preset, under the explicit settings. */
				cfgs[n] = defaults;
				if (sim_apply_opts(&cfgs[n], tok, ex_name,
						   ex_val, nex))
					return 2;
			} else {
				cfgs[n] = base;
				if (sim_set(&cfgs[n], ckey, tok)) {
					cxu_err("--compare %s: bad value '%s'%s",
						ckey, tok, sim_why);
					return 2;
				}
			}
			/* A value twice would only print one run twice. */
			for (i = 0; i < n; i++) {
				if (!sim_same(&cfgs[i], &cfgs[n]))
					continue;
				if (!strcmp(cvals[i], tok))
					cxu_err("--compare %s: '%s' given twice",
						ckey, tok);
				else
					cxu_err("--compare %s: '%s' is the same as '%s'",
						ckey, tok, cvals[i]);
				return 2;
			}
			n++;
		}
		if (!n) {
			cxu_err("--compare wants values");
			return 2;
		}
	}

	/* A configuration the model refuses whatever the trace: usage. */
	for (i = 0; !convert && i < n; i++) {
		const char *why = sim_check_opts(&cfgs[i]);

		if (why && compare)
			cxu_err("--compare %s=%s: %s", ckey, cvals[i], why);
		else if (why)
			cxu_err("%s", why);
		if (why)
			return 2;
	}

	t0 = now_s(CLOCK_MONOTONIC);
	c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	if (trace_load(argv[optind], &topts, &t))
		return 1;
	t1 = now_s(CLOCK_MONOTONIC);
	c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	if (timing)
		fprintf(stderr, "cxdvirt-sim: load: %s, %" PRIu64 " accesses, %.3f s, cpu %.3f s\n",
			trace_format_name(t.format), t.n, t1 - t0, c1 - c0);
	if (convert) {
		if (same_file(convert, argv[optind])) {
			cxu_err("--convert: %s is the input",
				convert);
			trace_free(&t);
			return 2;
		}
		ret = trace_write_binary(convert, &t) ? 1 : 0;
		if (!ret && t.ndiscards)
			fprintf(stderr, "cxdvirt-sim: %s: %" PRIu64 " accesses, %" PRIu64 " discards, max page %" PRIu64 ", %u threads (highest %u)\n",
				convert, t.n - t.ndiscards, t.ndiscards,
				t.max_page, trace_count_threads(&t),
				t.threads ? t.threads - 1 : 0);
		else if (!ret)
			fprintf(stderr, "cxdvirt-sim: %s: %" PRIu64 " accesses, max page %" PRIu64 ", %u threads (highest %u)\n",
				convert, t.n, t.max_page,
				trace_count_threads(&t),
				t.threads ? t.threads - 1 : 0);
		trace_free(&t);
		return ret;
	}
	for (i = 0; i < n; i++) {
		t0 = now_s(CLOCK_MONOTONIC);
		c0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
		if (sim_run(&cfgs[i], &t, &xs[i])) {
			trace_free(&t);
			return 1;
		}
		t1 = now_s(CLOCK_MONOTONIC);
		c1 = now_s(CLOCK_PROCESS_CPUTIME_ID);
		if (timing)
			fprintf(stderr, "cxdvirt-sim: replay %u: %.3f s, cpu %.3f s, %.2f M accesses/s (cpu)\n",
				i + 1, t1 - t0, c1 - c0,
				c1 > c0 ? (double)t.n / (c1 - c0) / 1e6 : 0.0);
	}

	if (json)
		sim_print_json(stdout, compare ? ckey : NULL, cvals, cfgs, xs, n);
	else
		sim_print_text(compare ? ckey : NULL, cvals, cfgs, xs, n);
	for (i = 0; i < n; i++)
		free(xs[i].lost_pages);
	trace_free(&t);
	return ret;
}
