// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-sim sweep --merge DIR: the sweep's manifest (DIR/jobs.json,
 * written by sweep.c) and every job's --json report (DIR/results/NAME.json)
 * into one CSV, DIR/results.csv, one row per job; then a gnuplot chart of
 * one result column against one swept key, a line per combination of the
 * other swept keys (DIR/plot.gp, DIR/plot.dat -> DIR/plot.png).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cxu_msg.h"

#include "sim.h"

/* A result column: its CSV name and where it is in a job's report. */
struct col {
	const char *name;
	const char *path;	/* "a.b": key b of object a */
};

static const struct col cols[] = {
	{ "accesses", "accesses" },
	{ "reads", "reads" },
	{ "writes", "writes" },
	{ "hits", "hits" },
	{ "native_hits", "native_hits" },
	{ "misses", "misses" },
	{ "hit_ratio", "hit_ratio" },
	{ "read_misses", "read_misses" },
	{ "write_misses", "write_misses" },
	{ "evictions", "evictions.total" },
	{ "dirty_evictions", "evictions.dirty" },
	{ "writebacks", "evictions.writebacks" },
	{ "erases", "evictions.erases" },
	{ "miss_lat_mean_ns", "miss_latency_ns.mean" },
	{ "miss_lat_p50_ns", "miss_latency_ns.p50" },
	{ "miss_lat_p90_ns", "miss_latency_ns.p90" },
	{ "miss_lat_p99_ns", "miss_latency_ns.p99" },
	{ "miss_lat_p999_ns", "miss_latency_ns.p999" },
	{ "miss_lat_max_ns", "miss_latency_ns.max" },
	{ "prefetch_issued", "prefetch.issued" },
	{ "prefetch_useful", "prefetch.useful" },
	{ "prefetch_late", "prefetch.late" },
	{ "prefetch_coverage", "prefetch.coverage" },
	{ "prefetch_accuracy", "prefetch.accuracy" },
	{ "elapsed_ns", "elapsed_ns" },
	{ "die_util_mean", "dies.utilization_mean" },
	{ "die_util_max", "dies.utilization_max" },
	{ "threads", "threads_replayed" },
	{ "bandwidth_mbps", "bandwidth_mbps" },
	{ "access_lat_mean_ns", "access_latency_ns.mean" },
	{ "access_lat_first_ns", "access_latency_ns.first_tenth" },
	{ "access_lat_last_ns", "access_latency_ns.last_tenth" },
	{ "mshr_waits", "mshr_waits" },
};

/* Only when some job has an FTL (its report has "ftl"). */
static const struct col ftl_cols[] = {
	{ "ftl_host_writes", "ftl.host_writes" },
	{ "ftl_nand_writes", "ftl.nand_writes" },
	{ "ftl_waf", "ftl.waf" },
	{ "ftl_gc_runs", "ftl.gc_runs" },
	{ "ftl_gc_pages_moved", "ftl.gc_pages_moved" },
	{ "ftl_gc_stalls", "ftl.gc_stalls" },
	{ "ftl_gc_stall_ns", "ftl.gc_stall_ns" },
};

/*
 * Only when a job's report has "power_fail": the grid has power-fail-at,
 * a [params] key of values >= 1, so every job has one.
 */
static const struct col pf_cols[] = {
	{ "power_fail_lines_saved", "power_fail.lines_saved" },
	{ "power_fail_lines_lost", "power_fail.lines_lost" },
	{ "power_fail_bytes_lost", "power_fail.bytes_lost" },
};

/*
 * Always, after every other column (added after them, so that the
 * others keep their places): the report's "discards".
 */
static const struct col disc_cols[] = {
	{ "discard_records", "discards.records" },
	{ "discards", "discards.lines" },
	{ "dirty_discards", "discards.dirty" },
};

#define NCOLS		(sizeof(cols) / sizeof(cols[0]))
#define NDISC_COLS	(sizeof(disc_cols) / sizeof(disc_cols[0]))
#define NFTL_COLS	(sizeof(ftl_cols) / sizeof(ftl_cols[0]))
#define NPF_COLS	(sizeof(pf_cols) / sizeof(pf_cols[0]))

/* The value at @path ("a.b") in @o, as the report has it, or "" if absent. */
static const char *get(json_object *o, const char *path)
{
	char key[64];
	const char *dot;
	json_object *v;

	while ((dot = strchr(path, '.'))) {
		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		if (!json_object_object_get_ex(o, key, &o))
			return "";
		path = dot + 1;
	}
	if (!json_object_object_get_ex(o, path, &v) ||
	    json_object_is_type(v, json_type_object) ||
	    json_object_is_type(v, json_type_array))
		return "";
	return json_object_get_string(v);
}

/* @s as a CSV field: quoted when it holds a comma, quote or newline. */
static void csv_field(FILE *f, const char *s, bool first)
{
	if (!first)
		fputc(',', f);
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* @s inside a gnuplot double-quoted string. */
static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/**
 * struct dim - one thing a job varies in: "trace" or a parameter key.
 * @key:   its name.
 * @vals:  its distinct values, in the order of the jobs ...
 * @nvals: ... and how many.
 */
struct dim {
	const char *key;
	const char **vals;
	size_t nvals;
};

/* Job @job's value of @d. */
static const char *dim_val(const struct dim *d, json_object *job)
{
	json_object *p;

	if (!strcmp(d->key, "trace"))
		return get(job, "trace");
	if (!json_object_object_get_ex(job, "params", &p))
		return "";
	return get(p, d->key);
}

static size_t dim_pos(const struct dim *d, const char *v)
{
	size_t i;

	for (i = 0; i < d->nvals && strcmp(d->vals[i], v); i++)
		;
	return i;
}

/* The report path of result column @name, or NULL if there is none. */
static const char *col_path(const char *name)
{
	static const struct {
		const struct col *c;
		size_t n;
	} sets[] = {
		{ cols, NCOLS }, { ftl_cols, NFTL_COLS }, { pf_cols, NPF_COLS },
		{ disc_cols, NDISC_COLS },
	};
	size_t i, k;

	for (k = 0; k < sizeof(sets) / sizeof(sets[0]); k++)
		for (i = 0; i < sets[k].n; i++)
			if (!strcmp(sets[k].c[i].name, name))
				return sets[k].c[i].path;
	return NULL;
}

/* Run gnuplot on DIR/plot.gp in DIR. Return: its status, 127 not found. */
static int run_gnuplot(const char *dir)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		if (chdir(dir))
			_exit(1);
		execlp("gnuplot", "gnuplot", "plot.gp", (char *)NULL);
		_exit(errno == ENOENT ? 127 : 126);
	}
	if (waitpid(pid, &st, 0) < 0)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * The chart: @py of every job against @px (NULL: cache-size if swept, else
 * the first swept key, else the trace), one line per combination of the
 * other swept dimensions. Return: 0, 1 gnuplot failed, 2 a bad --plot-x
 * or --plot-y.
 */
static int plot(const char *dir, json_object *jobs, json_object **res,
		struct dim *dims, size_t ndims, const char *px, const char *py)
{
	size_t i, k, n = json_object_array_length(jobs), x = ndims, nser = 0;
	char path[PATH_MAX], **ser = calloc(n, sizeof(*ser));
	size_t *sid = calloc(n, sizeof(*sid));
	const char *ycol = NULL;
	FILE *dat, *gp;
	int rc;

	if (!ser || !sid) {
		cxu_err("out of memory");
		return 1;
	}
	ycol = col_path(py);
	if (!ycol) {
		cxu_err("--plot-y %s: not a result column of the CSV", py);
		return 2;
	}
	for (i = 0; px && i < ndims; i++)
		if (!strcmp(dims[i].key, px))
			x = i;
	if (px && x == ndims) {
		cxu_err("--plot-x %s: not trace or a key of the grid's [params]", px);
		return 2;
	}
	/* By default cache-size if swept, else the first swept key, else the trace. */
	for (i = 1; !px && i < ndims; i++)
		if (dims[i].nvals > 1 && !strcmp(dims[i].key, "cache-size"))
			x = i;
	for (i = 1; x == ndims && i < ndims; i++)
		if (dims[i].nvals > 1)
			x = i;
	if (x == ndims)
		x = 0;
	/* Series: the other swept dimensions' values, "key=v key=v". */
	for (i = 0; i < n; i++) {
		json_object *job = json_object_array_get_idx(jobs, i);
		char *label = NULL, *t;

		for (k = 0; k < ndims; k++) {
			if (k == x || dims[k].nvals < 2)
				continue;
			if (asprintf(&t, "%s%s%s=%s", label ? label : "",
				     label ? " " : "", dims[k].key,
				     dim_val(&dims[k], job)) < 0)
				return 1;
			free(label);
			label = t;
		}
		if (!label)
			label = strdup(py);
		for (k = 0; k < nser && strcmp(ser[k], label); k++)
			;
		if (k == nser)
			ser[nser++] = label;
		else
			free(label);
		sid[i] = k;
	}
	snprintf(path, sizeof(path), "%s/plot.dat", dir);
	dat = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/plot.gp", dir);
	gp = fopen(path, "w");
	if (!dat || !gp) {
		cxu_err("%s: %s", path, strerror(errno));
		return 1;
	}
	/* One block per series (gnuplot's index), its points in x order. */
	for (k = 0; k < nser; k++) {
		fprintf(dat, "# %s\n", ser[k]);
		for (size_t xv = 0; xv < dims[x].nvals; xv++)
			for (i = 0; i < n; i++) {
				json_object *job = json_object_array_get_idx(jobs, i);

				if (sid[i] != k ||
				    dim_pos(&dims[x], dim_val(&dims[x], job)) != xv)
					continue;
				fprintf(dat, "%zu\t%s\t%s\n", xv,
					*get(res[i], ycol) ? get(res[i], ycol) : "NaN",
					dims[x].vals[xv]);
			}
		fputs("\n\n", dat);
	}
	fputs("# cxdvirt-sim sweep --merge: gnuplot plot.gp (in this folder)\n"
	      "set terminal pngcairo size 1024,768 noenhanced\n"
	      "set output \"plot.png\"\n"
	      "set datafile separator \"\\t\"\n"
	      "set title ", gp);
	gp_str(gp, "cxdvirt-sim sweep");
	fputs("\nset xlabel ", gp);
	gp_str(gp, dims[x].key);
	fputs("\nset ylabel ", gp);
	gp_str(gp, py);
	/* Many lines: the key below the chart, in columns. */
	fputs(nser > 6 ? "\nset key below\n" : "\nset key outside right top\n", gp);
	fputs("set grid\nset offsets 0.25, 0.25, 0, 0\nset yrange [0:*]\nplot \\\n", gp);
	for (k = 0; k < nser; k++) {
		fprintf(gp, "  \"plot.dat\" index %zu using 1:2:xtic(3) with linespoints pointtype 7 title ",
			k);
		gp_str(gp, ser[k]);
		fputs(k + 1 < nser ? ", \\\n" : "\n", gp);
	}
	for (k = 0; k < nser; k++)
		free(ser[k]);
	free(ser);
	free(sid);
	if (fclose(dat) | fclose(gp)) {
		cxu_err("%s: %s", dir, strerror(errno));
		return 1;
	}
	rc = run_gnuplot(dir);
	if (rc == 127) {
		cxu_err("sweep: gnuplot not found, so no %s/plot.png (Debian: gnuplot-nox); the CSV and %s/plot.gp are written",
			dir, dir);
		return 0;
	}
	if (rc) {
		cxu_err("sweep: gnuplot %s/plot.gp failed (exit %d)", dir, rc);
		return 1;
	}
	fprintf(stderr, "cxdvirt-sim: sweep: %s/plot.png: %s against %s\n", dir,
		py, dims[x].key);
	return 0;
}

/**
 * sweep_merge() - DIR/results.csv (and the chart) from a sweep's output.
 * @dir:    the sweep's output folder (--out).
 * @plot_x: the chart's x axis, a key or "trace"; NULL for the default.
 * @plot_y: the chart's y axis, a result column of the CSV.
 * @plot_on: draw the chart.
 *
 * Columns: job (index), name, trace, every key of the grid's [params]
 * (sorted), then the result columns (cols[]; the FTL's when a job has an
 * FTL, the power failure's when a job has one), then the discards'
 * (disc_cols[]). Numbers are copied as the reports have them.
 *
 * The outputs of an earlier merge (results.csv, plot.gp, plot.dat,
 * plot.png) are removed once DIR is known to be a sweep's folder and the
 * axes are good, so a merge that fails leaves none of them behind.
 *
 * Return: the exit status: 0; 1 not a sweep's folder, a result missing or
 * unreadable (no CSV then), or gnuplot failed; 2 a bad --plot-x or
 * --plot-y (nothing removed).
 */
int sweep_merge(const char *dir, const char *plot_x, const char *plot_y,
		bool plot_on)
{
	static const char *const outputs[] = {
		"results.csv", "plot.gp", "plot.dat", "plot.png",
	};
	json_object *man, *jobs, *keys, **res, *job, *p;
	char path[PATH_MAX], tmp[PATH_MAX];
	size_t i, k, n, nkeys, missing = 0;
	const char *first_missing = NULL;
	struct dim *dims;
	bool ftl = false, pf = false;
	int ret = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/jobs.json", dir);
	man = json_object_from_file(path);
	if (!man || !json_object_object_get_ex(man, "jobs", &jobs) ||
	    !json_object_object_get_ex(man, "params", &keys) ||
	    !json_object_is_type(jobs, json_type_array) ||
	    !json_object_is_type(keys, json_type_array)) {
		cxu_err("%s: %s", path, access(path, F_OK) ?
			"no such file: not a sweep's output folder (cxdvirt-sim sweep --out DIR GRID writes it)" :
			"not a sweep manifest");
		return 1;
	}
	n = json_object_array_length(jobs);
	nkeys = json_object_array_length(keys);
	/* The chart's axes before anything is removed: a bad one changes nothing. */
	if (plot_on && !col_path(plot_y)) {
		cxu_err("--plot-y %s: not a result column of the CSV", plot_y);
		return 2;
	}
	for (k = 0; plot_on && plot_x && strcmp(plot_x, "trace") && k < nkeys; k++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(keys, k)),
			    plot_x))
			break;
	if (plot_on && plot_x && strcmp(plot_x, "trace") && k == nkeys) {
		cxu_err("--plot-x %s: not trace or a key of the grid's [params]", plot_x);
		return 2;
	}
	/*
	 * The outputs of an earlier merge go first: a merge that fails must
	 * not leave them looking like its results.
	 */
	for (k = 0; k < sizeof(outputs) / sizeof(outputs[0]); k++) {
		snprintf(path, sizeof(path), "%s/%s", dir, outputs[k]);
		if (unlink(path) && errno != ENOENT) {
			cxu_err("%s: %s", path, strerror(errno));
			return 1;
		}
	}
	res = calloc(n ? n : 1, sizeof(*res));
	dims = calloc(nkeys + 1, sizeof(*dims));
	if (!res || !dims) {
		cxu_err("out of memory");
		return 1;
	}
	for (i = 0; i < n; i++) {
		job = json_object_array_get_idx(jobs, i);
		snprintf(path, sizeof(path), "%s/results/%s.json", dir,
			 get(job, "name"));
		res[i] = access(path, F_OK) ? NULL : json_object_from_file(path);
		if (!res[i] && !access(path, F_OK)) {
			cxu_err("%s: %s", path, json_util_get_last_err());
			return 1;
		}
		if (!res[i] && !missing++)
			first_missing = get(job, "name");
		if (res[i] && json_object_object_get_ex(res[i], "ftl", &p))
			ftl = true;
		if (res[i] && json_object_object_get_ex(res[i], "power_fail", &p))
			pf = true;
	}
	if (missing) {
		cxu_err("sweep: %zu of %zu results missing in %s/results (first: %s.json): no CSV",
			missing, n, dir, first_missing);
		return 1;
	}
	/* Dimensions: the trace, then each key; values in job order. */
	dims[0].key = "trace";
	for (k = 0; k < nkeys; k++)
		dims[k + 1].key = json_object_get_string(
			json_object_array_get_idx(keys, k));
	for (k = 0; k <= nkeys; k++) {
		dims[k].vals = calloc(n ? n : 1, sizeof(*dims[k].vals));
		if (!dims[k].vals)
			return 1;
		for (i = 0; i < n; i++) {
			const char *v = dim_val(&dims[k],
						json_object_array_get_idx(jobs, i));

			if (dim_pos(&dims[k], v) == dims[k].nvals)
				dims[k].vals[dims[k].nvals++] = v;
		}
	}

	snprintf(path, sizeof(path), "%s/results.csv", dir);
	snprintf(tmp, sizeof(tmp), "%s/.results.csv.%d", dir, (int)getpid());
	f = fopen(tmp, "w");
	if (!f) {
		cxu_err("%s: %s", tmp, strerror(errno));
		return 1;
	}
	csv_field(f, "job", true);
	csv_field(f, "name", false);
	for (k = 0; k <= nkeys; k++)
		csv_field(f, dims[k].key, false);
	for (k = 0; k < NCOLS; k++)
		csv_field(f, cols[k].name, false);
	for (k = 0; ftl && k < NFTL_COLS; k++)
		csv_field(f, ftl_cols[k].name, false);
	for (k = 0; pf && k < NPF_COLS; k++)
		csv_field(f, pf_cols[k].name, false);
	for (k = 0; k < NDISC_COLS; k++)
		csv_field(f, disc_cols[k].name, false);
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		job = json_object_array_get_idx(jobs, i);
		csv_field(f, get(job, "index"), true);
		csv_field(f, get(job, "name"), false);
		for (k = 0; k <= nkeys; k++)
			csv_field(f, dim_val(&dims[k], job), false);
		for (k = 0; k < NCOLS; k++)
			csv_field(f, get(res[i], cols[k].path), false);
		for (k = 0; ftl && k < NFTL_COLS; k++)
			csv_field(f, get(res[i], ftl_cols[k].path), false);
		for (k = 0; pf && k < NPF_COLS; k++)
			csv_field(f, get(res[i], pf_cols[k].path), false);
		for (k = 0; k < NDISC_COLS; k++)
			csv_field(f, get(res[i], disc_cols[k].path), false);
		fputc('\n', f);
	}
	if (fclose(f) || rename(tmp, path)) {
		cxu_err("%s: %s", path, strerror(errno));
		unlink(tmp);
		return 1;
	}
	fprintf(stderr, "cxdvirt-sim: sweep: %s: %zu jobs\n", path, n);
	if (plot_on && n)
		ret = plot(dir, jobs, res, dims, nkeys + 1, plot_x, plot_y);
	for (i = 0; i < n; i++)
		json_object_put(res[i]);
	for (k = 0; k <= nkeys; k++)
		free(dims[k].vals);
	free(dims);
	free(res);
	json_object_put(man);
	return ret;
}
