// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-sim sweep: expand a grid file (INI, parsed by libinih) into jobs,
 * traces x every combination of the parameter lists, and run them: here
 * (one after the other or -j N at once), through GNU parallel (here or
 * over ssh logins), or as a Slurm job array whose task N runs
 * `cxdvirt-sim sweep --job N GRID`. Each job writes the simulator's --json
 * report to DIR/results/NAME.json; sweep --merge (sweep_merge.c) collects
 * them into one CSV and a gnuplot chart.
 *
 * The grid (docs/tools.md, "Sweeps"):
 *
 *   [traces]
 *   NAME = PATH                           a trace file (relative to the grid)
 *   NAME = uniform|hotcold pages=P accesses=N [write-pct=W] [seed=S]
 *          [threads=T] [scatter=S]
 *   [params]
 *   KEY = V1,V2,...                       any device option, preset, think,
 *                                         faults
 *
 * Job i is trace i / (product of the list lengths), then the parameters in
 * the sorted order of their keys, the last key changing fastest; its name
 * is the trace's, then KEY=VALUE of every key with more than one value, in
 * that order, joined by "__". Both depend on the grid alone, so every
 * host, array task and later run agrees on them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ini.h>
#include <json-c/json.h>

#include "cxu_msg.h"
#include "cxu_num.h"
#include <cxdvirt/params.h>

#include "sim.h"

/* More jobs than this is surely a mistake in the grid. */
#define SWEEP_MAX_JOBS	1000000u
#define SWEEP_NAME_MAX	200
/* Keys in [params]: more than the simulator has options, all different. */
#define SWEEP_MAX_PARAMS	64
/* --sshlogin and sbatch arguments at most. */
#define SWEEP_MAX_SSH		64
#define SWEEP_MAX_SBATCH	256

/**
 * struct sweep_trace - one trace of the grid.
 * @name:  its key in [traces] (letters, digits, '.', '_', '-').
 * @spec:  the value as written.
 * @path:  a file: its path (relative ones made relative to the grid's
 *         folder); NULL for a generator.
 * @shape: a generator: enum trace_shape ...
 * @n:     ... accesses (a file: its accesses, once checked) ...
 * @pages: ... pages ...
 * @wpct:  ... percent writes ...
 * @seed:  ... seed ...
 * @threads: ... threads ...
 * @scatter: ... and scatter span (trace_gen()), 0 for none.
 * @max_page: its highest page, once checked (a generator: pages - 1, or
 *         scatter - 1).
 */
struct sweep_trace {
	char *name, *spec, *path;
	int shape;
	uint64_t n, pages, seed, max_page, scatter;
	unsigned int wpct;
	uint32_t threads;
};

/**
 * struct sweep_param - one key of [params].
 * @key:   the canonical option name (sim_key_canon()).
 * @vals:  its values, in the grid's order ...
 * @nvals: ... and how many (>= 1).
 */
struct sweep_param {
	char *key;
	char **vals;
	unsigned int nvals;
};

/**
 * struct sweep_grid - a parsed grid.
 * @path:    the grid file, absolute.
 * @dir:     its folder.
 * @traces:  the traces, in the grid's order.
 * @ntraces: how many.
 * @params:  the parameters, sorted by key.
 * @nparams: how many.
 * @njobs:   traces x the product of the list lengths.
 * @section: parser state: the current section.
 * @err:     the first error, for the message.
 */
struct sweep_grid {
	char *path, *dir;
	struct sweep_trace *traces;
	unsigned int ntraces;
	struct sweep_param *params;
	unsigned int nparams;
	uint64_t njobs;
	char err[256];
};

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		cxu_err("out of memory");
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		cxu_err("out of memory");
		exit(1);
	}
	return d;
}

/* Strip blanks at both ends of @s in place. Return: @s past its blanks. */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* Is @s one or more of [A-Za-z0-9._-]? */
static bool name_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && *s != '.' && *s != '_' &&
		    *s != '-')
			return false;
	return true;
}

/*
 * A generator line "SHAPE pages=P accesses=N [write-pct=W] [seed=S]
 * [threads=T] [scatter=S]" into @t.
 */
static int parse_gen(struct sweep_grid *g, struct sweep_trace *t, char *spec)
{
	char *w, *save = NULL, *eq;
	bool have_n = false, have_pages = false;
	uint64_t v;

	w = strtok_r(spec, " \t", &save);
	t->shape = trace_shape_parse(w);
	t->seed = 1;
	t->threads = 1;
	while ((w = strtok_r(NULL, " \t", &save))) {
		eq = strchr(w, '=');
		if (!eq || cxu_parse_u64(eq + 1, &v)) {
			snprintf(g->err, sizeof(g->err),
				 "[traces] %s: '%s' is not KEY=NUMBER", t->name, w);
			return -1;
		}
		*eq = '\0';
		if (!strcmp(w, "pages")) {
			t->pages = v;
			have_pages = true;
		} else if (!strcmp(w, "accesses")) {
			t->n = v;
			have_n = true;
		} else if (!strcmp(w, "write-pct")) {
			if (v > 100) {
				snprintf(g->err, sizeof(g->err),
					 "[traces] %s: write-pct above 100", t->name);
				return -1;
			}
			t->wpct = (unsigned int)v;
		} else if (!strcmp(w, "seed")) {
			t->seed = v;
		} else if (!strcmp(w, "threads")) {
			if (!v || v > TRACE_THREAD_MAX + 1) {
				snprintf(g->err, sizeof(g->err),
					 "[traces] %s: threads not 1..%u", t->name,
					 TRACE_THREAD_MAX + 1);
				return -1;
			}
			t->threads = (uint32_t)v;
		} else if (!strcmp(w, "scatter")) {
			t->scatter = v;
		} else {
			snprintf(g->err, sizeof(g->err),
				 "[traces] %s: unknown '%s' (pages, accesses, write-pct, seed, threads, scatter)",
				 t->name, w);
			return -1;
		}
	}
	if (!have_pages || !have_n || !t->n || !t->pages ||
	    t->pages >= (1ull << 32)) {
		snprintf(g->err, sizeof(g->err),
			 "[traces] %s: a generator needs pages=1..2^32-1 and accesses>=1",
			 t->name);
		return -1;
	}
	if (!trace_scatter_valid(t->scatter, t->pages)) {
		snprintf(g->err, sizeof(g->err),
			 "[traces] %s: scatter is not a power of two from pages to 2^32",
			 t->name);
		return -1;
	}
	return 0;
}

static int grid_trace(struct sweep_grid *g, const char *name, const char *value)
{
	struct sweep_trace *t;
	char *spec, *first, c;
	int fd, shape, ret;
	unsigned int i;
	size_t len;

	if (!name_ok(name)) {
		snprintf(g->err, sizeof(g->err),
			 "[traces] '%s': a name is letters, digits, '.', '_' or '-'",
			 name);
		return -1;
	}
	for (i = 0; i < g->ntraces; i++)
		if (!strcmp(g->traces[i].name, name)) {
			snprintf(g->err, sizeof(g->err),
				 "[traces] %s: duplicate key", name);
			return -1;
		}
	g->traces = xrealloc(g->traces, (g->ntraces + 1) * sizeof(*g->traces));
	t = &g->traces[g->ntraces++];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->spec = xstrdup(value);
	spec = xstrdup(value);
	first = trim(spec);
	if (!*first) {
		free(spec);
		snprintf(g->err, sizeof(g->err), "[traces] %s: empty value", name);
		return -1;
	}
	/* A generator when the first word is a shape's name. */
	len = strcspn(first, " \t");
	c = first[len];
	first[len] = '\0';
	shape = trace_shape_parse(first);
	first[len] = c;
	if (shape >= 0) {
		ret = parse_gen(g, t, first);
		free(spec);
		return ret;
	}
	free(spec);
	/* A file, relative to the grid's folder. */
	if (value[0] == '/') {
		t->path = xstrdup(value);
	} else if (asprintf(&t->path, "%s/%s", g->dir, value) < 0) {
		cxu_err("out of memory");
		exit(1);
	}
	t->shape = -1;
	fd = open(t->path, O_RDONLY);
	if (fd < 0) {
		snprintf(g->err, sizeof(g->err), "[traces] %s: %s: %s", name,
			 t->path, strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static int grid_param(struct sweep_grid *g, const char *name, const char *value)
{
	char key[64], *list, *tok, *save = NULL;
	struct sweep_param *p;
	struct sim_cfg cfg;
	unsigned int i, j;

	if (sim_key_canon(name, key, sizeof(key))) {
		snprintf(g->err, sizeof(g->err),
			 "[params] %s: unknown option (a device option, preset, think, hit-ns, warmup, power-fail-at or faults; cxdvirt-sim --help)",
			 name);
		return -1;
	}
	if (g->nparams == SWEEP_MAX_PARAMS) {
		snprintf(g->err, sizeof(g->err), "[params]: more than %d keys",
			 SWEEP_MAX_PARAMS);
		return -1;
	}
	for (i = 0; i < g->nparams; i++)
		if (!strcmp(g->params[i].key, key)) {
			snprintf(g->err, sizeof(g->err),
				 "[params] %s: duplicate key%s", name,
				 strcmp(name, key) ? " (another spelling of one above)" : "");
			return -1;
		}
	g->params = xrealloc(g->params, (g->nparams + 1) * sizeof(*g->params));
	p = &g->params[g->nparams++];
	memset(p, 0, sizeof(*p));
	p->key = xstrdup(key);
	list = xstrdup(value);
	/* "a,b," has an empty last value: count the commas, not the tokens. */
	for (tok = list, i = 1; *tok; tok++)
		i += *tok == ',';
	p->vals = xrealloc(NULL, i * sizeof(*p->vals));
	for (tok = list; tok; tok = save) {
		save = strchr(tok, ',');
		if (save)
			*save++ = '\0';
		tok = trim(tok);
		if (!*tok) {
			snprintf(g->err, sizeof(g->err),
				 "[params] %s: empty value in the list", name);
			free(list);
			return -1;
		}
		for (j = 0; j < p->nvals; j++)
			if (!strcmp(p->vals[j], tok)) {
				snprintf(g->err, sizeof(g->err),
					 "[params] %s: '%s' twice in the list",
					 name, tok);
				free(list);
				return -1;
			}
		memset(&cfg, 0, sizeof(cfg));
		CXD_PARAMS_DEFAULTS(&cfg.p, CXD_PARAMS_SHARED);
		if (sim_set(&cfg, key, tok)) {
			snprintf(g->err, sizeof(g->err),
				 "[params] %s: bad value '%s'%s", name, tok, sim_why);
			free(list);
			return -1;
		}
		p->vals[p->nvals++] = xstrdup(tok);
	}
	free(list);
	return 0;
}

/* libinih's handler: one `name = value` line. Return: 1 ok, 0 error. */
static int grid_line(void *user, const char *section, const char *name,
		     const char *value)
{
	struct sweep_grid *g = user;

	if (g->err[0])
		return 0;
	if (!strcmp(section, "traces"))
		return !grid_trace(g, name, value);
	if (!strcmp(section, "params"))
		return !grid_param(g, name, value);
	if (*section)
		snprintf(g->err, sizeof(g->err),
			 "[%s]: unknown section ([traces] and [params] only)",
			 section);
	else
		snprintf(g->err, sizeof(g->err),
			 "%s: not in a section ([traces] or [params])", name);
	return 0;
}

static int cmp_param(const void *a, const void *b)
{
	return strcmp(((const struct sweep_param *)a)->key,
		      ((const struct sweep_param *)b)->key);
}

/**
 * grid_load() - parse and check a grid file.
 * @path: the grid (INI).
 * @g:    filled on success.
 *
 * Checks every key and value (sim_set()), that each trace file can be
 * opened and that the jobs' names are distinct.
 *
 * Return: 0, or -1 after printing one line on what is wrong.
 */
static int grid_load(const char *path, struct sweep_grid *g)
{
	char *slash;
	int line;

	memset(g, 0, sizeof(*g));
	g->path = realpath(path, NULL);
	if (!g->path) {
		cxu_err("%s: %s", path, strerror(errno));
		return -1;
	}
	g->dir = xstrdup(g->path);
	slash = strrchr(g->dir, '/');
	if (slash)
		slash[slash == g->dir ? 1 : 0] = '\0';
	/*
	 * Debian's libinih has these settings at run time: lines of any
	 * length, no continuation lines (an indented line is a line of its
	 * own), stop at the first error.
	 */
	ini_use_stack = false;
	ini_allow_realloc = true;
	ini_max_line = 1 << 20;
	ini_allow_multiline = false;
	ini_stop_on_first_error = true;
	line = ini_parse(g->path, grid_line, g);
	if (line < 0) {
		cxu_err("%s: %s", path, line == -1 ? strerror(errno) :
			"out of memory");
		return -1;
	}
	if (line > 0) {
		cxu_err("%s:%d: %s", path, line, g->err[0] ? g->err :
			"not a [section] or a `key = value` line");
		return -1;
	}
	if (!g->ntraces) {
		cxu_err("%s: no trace: [traces] needs at least one", path);
		return -1;
	}
	qsort(g->params, g->nparams, sizeof(*g->params), cmp_param);
	g->njobs = g->ntraces;
	for (line = 0; line < (int)g->nparams; line++) {
		g->njobs *= g->params[line].nvals;
		if (g->njobs > SWEEP_MAX_JOBS) {
			cxu_err("%s: more than %u jobs", path, SWEEP_MAX_JOBS);
			return -1;
		}
	}
	return 0;
}

/* Job @idx's value index of each parameter into @vi, and its trace. */
static const struct sweep_trace *job_at(const struct sweep_grid *g,
					uint64_t idx, unsigned int *vi)
{
	unsigned int i;

	for (i = g->nparams; i-- > 0;) {
		vi[i] = (unsigned int)(idx % g->params[i].nvals);
		idx /= g->params[i].nvals;
	}
	return &g->traces[idx];
}

/**
 * job_name() - the job's file name (without .json).
 * @g:   the grid.
 * @idx: job index, < @g->njobs.
 * @buf: where the name goes, @len bytes.
 * @len: see @buf.
 *
 * The trace's name, then __KEY=VALUE for each key with more than one
 * value (sorted keys); characters other than [A-Za-z0-9._+-] in a value
 * become '_'. A name longer than SWEEP_NAME_MAX is cut and ends in a
 * hash of the whole.
 */
static void job_name(const struct sweep_grid *g, uint64_t idx, char *buf,
		     size_t len)
{
	unsigned int vi[SWEEP_MAX_PARAMS], i;
	const struct sweep_trace *t = job_at(g, idx, vi);
	char full[4096], *q;
	size_t n;
	uint64_t h = 0xcbf29ce484222325ull;	/* FNV-1a */

	n = (size_t)snprintf(full, sizeof(full), "%s", t->name);
	for (i = 0; i < g->nparams && n < sizeof(full); i++) {
		if (g->params[i].nvals < 2)
			continue;
		n += (size_t)snprintf(full + n, sizeof(full) - n, "__%s=",
				      g->params[i].key);
		for (q = g->params[i].vals[vi[i]]; *q && n + 1 < sizeof(full); q++)
			full[n++] = (strchr("._+-", *q) ||
				     (*q >= 'a' && *q <= 'z') ||
				     (*q >= 'A' && *q <= 'Z') ||
				     (*q >= '0' && *q <= '9')) ? *q : '_';
		full[n < sizeof(full) ? n : sizeof(full) - 1] = '\0';
	}
	if (strlen(full) <= SWEEP_NAME_MAX) {
		snprintf(buf, len, "%s", full);
		return;
	}
	for (q = full; *q; q++)
		h = (h ^ (unsigned char)*q) * 0x100000001b3ull;
	snprintf(buf, len, "%.*s~%016" PRIx64, SWEEP_NAME_MAX - 17, full, h);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every job's name distinct? (values that differ only in what becomes '_') */
static int names_distinct(const struct sweep_grid *g)
{
	char **names = xrealloc(NULL, g->njobs * sizeof(*names));
	char buf[SWEEP_NAME_MAX + 1];
	uint64_t i;
	int ret = 0;

	for (i = 0; i < g->njobs; i++) {
		job_name(g, i, buf, sizeof(buf));
		names[i] = xstrdup(buf);
	}
	qsort(names, g->njobs, sizeof(*names), cmp_str);
	for (i = 1; i < g->njobs && !ret; i++)
		if (!strcmp(names[i - 1], names[i])) {
			cxu_err("%s: two jobs named %s (values that differ only in characters outside A-Z a-z 0-9 . _ + -)",
				g->path, names[i]);
			ret = -1;
		}
	for (i = 0; i < g->njobs; i++)
		free(names[i]);
	free(names);
	return ret;
}

/* The job's configuration: the defaults, its preset, then the rest in key order. */
static int job_cfg(const struct sweep_grid *g, const unsigned int *vi,
		   struct sim_cfg *cfg)
{
	unsigned int i;

	memset(cfg, 0, sizeof(*cfg));
	CXD_PARAMS_DEFAULTS(&cfg->p, CXD_PARAMS_SHARED);
	cfg->p.capacity = 0;	/* the trace's extent, as cxdvirt-sim */
	cfg->preset = "default";
	for (i = 0; i < g->nparams; i++)
		if (!strcmp(g->params[i].key, "preset") &&
		    sim_set(cfg, "preset", g->params[i].vals[vi[i]])) {
			cxu_err("preset: bad value '%s'%s",
				g->params[i].vals[vi[i]], sim_why);
			return -1;
		}
	for (i = 0; i < g->nparams; i++)
		if (strcmp(g->params[i].key, "preset") &&
		    sim_set(cfg, g->params[i].key, g->params[i].vals[vi[i]])) {
			cxu_err("%s: bad value '%s'%s", g->params[i].key,
				g->params[i].vals[vi[i]], sim_why);
			return -1;
		}
	return 0;
}

/**
 * check_jobs() - before running anything: load each trace file and check
 * every job's configuration as sim_run() would (sim_check(), and
 * sim_check_len(): warmup and power-fail-at within the trace).
 * @g:    the grid.
 * @only: check job @only alone (an array task), or all with -1.
 *
 * Return: 0, or -1 after printing one line on the first problem.
 */
static int check_jobs(struct sweep_grid *g, int64_t only)
{
	struct trace_opts topts = { 0 };
	unsigned int vi[SWEEP_MAX_PARAMS], i;
	char name[SWEEP_NAME_MAX + 1];
	struct sweep_trace *tr;
	struct sim_cfg cfg;
	uint64_t j, npages;
	const char *why;
	struct trace t;
	size_t msize;

	for (i = 0; i < g->ntraces; i++) {
		tr = &g->traces[i];
		if (only >= 0 && job_at(g, (uint64_t)only, vi) != tr)
			continue;
		if (!tr->path) {
			tr->max_page = (tr->scatter ? tr->scatter : tr->pages) - 1;
			continue;
		}
		if (trace_load(tr->path, &topts, &t))
			return -1;	/* trace_load() said why, naming the file */
		tr->max_page = t.n ? t.max_page : 0;
		tr->n = t.n - t.ndiscards;	/* accesses: D records are not */
		trace_free(&t);
	}
	for (j = only >= 0 ? (uint64_t)only : 0; j < g->njobs; j++) {
		tr = (struct sweep_trace *)job_at(g, j, vi);
		if (job_cfg(g, vi, &cfg))
			return -1;
		why = sim_check(&cfg, tr->max_page, &npages, &msize);
		if (!why)
			why = sim_check_len(&cfg, tr->n);
		if (why) {
			job_name(g, j, name, sizeof(name));
			cxu_err("%s: job %" PRIu64 " (%s): %s", g->path, j, name, why);
			return -1;
		}
		if (only >= 0)
			break;
	}
	return 0;
}

/**
 * run_job() - run one job in this process, its report into DIR/results.
 * @g:   the grid.
 * @idx: job index.
 * @dir: the output folder (DIR/results must exist).
 *
 * The report is the one `cxdvirt-sim --json` prints, written to a
 * temporary file and renamed to NAME.json when complete.
 *
 * Return: 0, or -1 after printing why.
 */
static int run_job(const struct sweep_grid *g, uint64_t idx, const char *dir)
{
	static char prog[SWEEP_NAME_MAX + 64];
	char name[SWEEP_NAME_MAX + 1], *tmp = NULL, *out = NULL;
	const struct sweep_trace *tr;
	struct trace_opts topts = { 0 };
	unsigned int vi[SWEEP_MAX_PARAMS];
	struct sim_cfg cfg;
	struct metrics x;
	struct trace t;
	int ret = -1, e;
	FILE *f;

	tr = job_at(g, idx, vi);
	job_name(g, idx, name, sizeof(name));
	/* Its messages name the job (a child or an array task: no way back). */
	snprintf(prog, sizeof(prog), "cxdvirt-sim: sweep job %" PRIu64 " (%s)",
		 idx, name);
	cxu_set_prog(prog);
	if (job_cfg(g, vi, &cfg))
		return -1;
	if (tr->path) {
		if (trace_load(tr->path, &topts, &t))
			return -1;
	} else {
		e = trace_gen(&t, tr->shape, tr->n, tr->pages, tr->wpct, tr->seed,
			      tr->threads, tr->scatter);
		if (e) {
			cxu_err("trace %s: %s", tr->name, strerror(-e));
			return -1;
		}
	}
	if (sim_run(&cfg, &t, &x))
		goto out;
	if (asprintf(&out, "%s/results/%s.json", dir, name) < 0 ||
	    asprintf(&tmp, "%s/results/.%s.json.%d", dir, name, (int)getpid()) < 0) {
		cxu_err("out of memory");
		goto out;
	}
	f = fopen(tmp, "w");
	if (!f) {
		cxu_err("%s: %s", tmp, strerror(errno));
		goto out;
	}
	sim_print_json(f, NULL, NULL, &cfg, &x, 1);
	if (fclose(f) || rename(tmp, out)) {
		cxu_err("%s: %s", out, strerror(errno));
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	trace_free(&t);
	free(tmp);
	free(out);
	return ret;
}

/* mkdir -p for DIR and DIR/results, DIR/logs. */
static int make_dirs(const char *dir)
{
	char path[PATH_MAX], *q;
	const char *sub[] = { "", "/results", "/logs" };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (snprintf(path, sizeof(path), "%s%s", dir, sub[i]) >= (int)sizeof(path)) {
			cxu_err("%s: path too long", dir);
			return -1;
		}
		for (q = path + 1; ; q++) {
			if (*q && *q != '/')
				continue;
			char c = *q;

			*q = '\0';
			if (mkdir(path, 0777) && errno != EEXIST) {
				cxu_err("%s: %s", path, strerror(errno));
				return -1;
			}
			*q = c;
			if (!c)
				break;
		}
	}
	return 0;
}

/**
 * write_manifest() - DIR/jobs.json: what sweep --merge needs.
 * @g:   the grid.
 * @dir: the output folder.
 *
 * {"grid": PATH, "params": [KEY...], "traces": {NAME: SPEC},
 *  "jobs": [{"index": I, "name": N, "trace": T, "params": {KEY: V}}]}.
 *
 * Return: 0, or -1 after printing why.
 */
static int write_manifest(const struct sweep_grid *g, const char *dir)
{
	json_object *root = json_object_new_object(), *a, *o, *p;
	char name[SWEEP_NAME_MAX + 1], path[PATH_MAX];
	const struct sweep_trace *t;
	unsigned int vi[SWEEP_MAX_PARAMS], i;
	uint64_t j;
	int ret = 0;

	json_object_object_add(root, "grid", json_object_new_string(g->path));
	a = json_object_new_array();
	for (i = 0; i < g->nparams; i++)
		json_object_array_add(a, json_object_new_string(g->params[i].key));
	json_object_object_add(root, "params", a);
	o = json_object_new_object();
	for (i = 0; i < g->ntraces; i++)
		json_object_object_add(o, g->traces[i].name,
				       json_object_new_string(g->traces[i].spec));
	json_object_object_add(root, "traces", o);
	a = json_object_new_array();
	for (j = 0; j < g->njobs; j++) {
		t = job_at(g, j, vi);
		job_name(g, j, name, sizeof(name));
		o = json_object_new_object();
		json_object_object_add(o, "index", json_object_new_uint64(j));
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "trace", json_object_new_string(t->name));
		p = json_object_new_object();
		for (i = 0; i < g->nparams; i++)
			json_object_object_add(p, g->params[i].key,
				json_object_new_string(g->params[i].vals[vi[i]]));
		json_object_object_add(o, "params", p);
		json_object_array_add(a, o);
	}
	json_object_object_add(root, "jobs", a);
	snprintf(path, sizeof(path), "%s/jobs.json", dir);
	if (json_object_to_file_ext(path, root, JSON_C_TO_STRING_PRETTY |
				    JSON_C_TO_STRING_NOSLASHESCAPE)) {
		cxu_err("%s: %s", path, json_util_get_last_err());
		ret = -1;
	}
	json_object_put(root);
	return ret;
}

/* Wait for one child; note a failure. Return: its job index, or -1. */
static int64_t reap(pid_t *pids, uint64_t *idxs, unsigned int *nrun,
		    const struct sweep_grid *g, unsigned int *failed)
{
	char name[SWEEP_NAME_MAX + 1];
	unsigned int i;
	int64_t idx;
	int st;
	pid_t pid = wait(&st);

	if (pid < 0)
		return -1;
	for (i = 0; i < *nrun && pids[i] != pid; i++)
		;
	if (i == *nrun)
		return -1;
	idx = (int64_t)idxs[i];
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		job_name(g, (uint64_t)idx, name, sizeof(name));
		cxu_err("sweep: job %" PRId64 " (%s) failed (%s %d)", idx, name,
			WIFEXITED(st) ? "exit" : "signal",
			WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		(*failed)++;
	}
	pids[i] = pids[*nrun - 1];
	idxs[i] = idxs[*nrun - 1];
	(*nrun)--;
	return idx;
}

/* --run local: every job in a child of its own, @jobs at once. */
static int run_local(const struct sweep_grid *g, const char *dir,
		     unsigned int jobs)
{
	pid_t *pids = xrealloc(NULL, jobs * sizeof(*pids));
	uint64_t *idxs = xrealloc(NULL, jobs * sizeof(*idxs)), j;
	unsigned int nrun = 0, failed = 0;
	pid_t pid;

	fflush(NULL);
	for (j = 0; j < g->njobs; j++) {
		if (nrun == jobs)
			reap(pids, idxs, &nrun, g, &failed);
		pid = fork();
		if (pid < 0) {
			cxu_err("fork: %s", strerror(errno));
			failed++;
			break;
		}
		if (!pid)
			_exit(run_job(g, j, dir) ? 1 : 0);
		pids[nrun] = pid;
		idxs[nrun++] = j;
	}
	while (nrun)
		reap(pids, idxs, &nrun, g, &failed);
	free(pids);
	free(idxs);
	fprintf(stderr, "cxdvirt-sim: sweep: %" PRIu64 " jobs, %" PRIu64 " done, %u failed: %s/results\n",
		g->njobs, g->njobs - failed, failed, dir);
	return failed ? 1 : 0;
}

/*
 * Run @argv (execvp) and wait; with @buf, its standard output into @buf
 * (@len bytes, NUL-terminated, the rest dropped). Return: its exit status,
 * 127 not found.
 */
static int spawn(char *const *argv, char *buf, size_t len)
{
	char chunk[512];
	size_t got = 0, n;
	int st, fd[2];
	ssize_t r;
	pid_t pid;

	fflush(NULL);
	if (buf && pipe(fd)) {
		cxu_err("pipe: %s", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		cxu_err("fork: %s", strerror(errno));
		return 1;
	}
	if (!pid) {
		if (buf) {
			dup2(fd[1], STDOUT_FILENO);
			close(fd[0]);
			close(fd[1]);
		}
		execvp(argv[0], argv);
		cxu_err("%s: %s%s", argv[0], strerror(errno),
			errno == ENOENT ? !strcmp(argv[0], "parallel") ?
			" (Debian: parallel)" : !strcmp(argv[0], "sbatch") ||
			!strcmp(argv[0], "squeue") ?
			" (Debian: slurm-client; a Slurm cluster's login node)" : "" : "");
		_exit(127);
	}
	if (buf) {
		close(fd[1]);
		/* Keep what fits, read (and drop) the rest until EOF. */
		while ((r = read(fd[0], chunk, sizeof(chunk))) != 0) {
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				break;
			n = (size_t)r < len - 1 - got ? (size_t)r : len - 1 - got;
			memcpy(buf + got, chunk, n);
			got += n;
		}
		buf[got] = '\0';
		close(fd[0]);
	}
	if (waitpid(pid, &st, 0) < 0)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* @s quoted for sh: '...' with ' as '\''. Return: malloc'd. */
static char *sh_quote(const char *s)
{
	char *q = xrealloc(NULL, 4 * strlen(s) + 3), *p = q;

	*p++ = '\'';
	for (; *s; s++) {
		if (*s == '\'') {
			memcpy(p, "'\\''", 4);
			p += 4;
		} else {
			*p++ = *s;
		}
	}
	*p++ = '\'';
	*p = '\0';
	return q;
}

/* Results present in DIR/results, of the grid's jobs. */
static uint64_t count_results(const struct sweep_grid *g, const char *dir)
{
	char name[SWEEP_NAME_MAX + 1], path[PATH_MAX];
	uint64_t j, n = 0;

	for (j = 0; j < g->njobs; j++) {
		job_name(g, j, name, sizeof(name));
		snprintf(path, sizeof(path), "%s/results/%s.json", dir, name);
		n += !access(path, R_OK);
	}
	return n;
}

/**
 * struct sweep_opts - sweep's command line.
 * @self:     this program's absolute path (what parallel and Slurm run).
 * @dir:      the output folder, absolute.
 * @jobs:     -j: jobs at once (local, parallel), Slurm's array throttle.
 * @ssh:      --sshlogin values for GNU parallel, @nssh of them.
 * @nssh:     see @ssh.
 * @sbatch:   extra sbatch arguments (--partition, --time, --sbatch-arg).
 * @nsbatch:  see @sbatch.
 * @wait:     slurm: wait for the array to finish.
 */
struct sweep_opts {
	char self[PATH_MAX];
	char *dir;
	unsigned int jobs;
	char **ssh;
	unsigned int nssh;
	char **sbatch;
	unsigned int nsbatch;
	bool wait;
};

/* --run parallel: GNU parallel runs `SELF sweep --out DIR --job N GRID`. */
static int run_parallel(const struct sweep_grid *g, const struct sweep_opts *o)
{
	char list[PATH_MAX], jarg[16], *argv[16 + 2 * SWEEP_MAX_SSH];
	unsigned int n = 0, i;
	uint64_t j;
	FILE *f;
	int rc;

	snprintf(list, sizeof(list), "%s/jobs.list", o->dir);
	f = fopen(list, "w");
	if (!f) {
		cxu_err("%s: %s", list, strerror(errno));
		return 1;
	}
	for (j = 0; j < g->njobs; j++)
		fprintf(f, "%" PRIu64 "\n", j);
	if (fclose(f)) {
		cxu_err("%s: %s", list, strerror(errno));
		return 1;
	}
	argv[n++] = "parallel";
	argv[n++] = "-q";		/* quote the command: paths with blanks */
	argv[n++] = "--joblog";
	argv[n++] = xstrdup(list);
	strcpy(strrchr(argv[n - 1], '/'), "/logs/parallel.log");
	if (o->jobs) {
		snprintf(jarg, sizeof(jarg), "%u", o->jobs);
		argv[n++] = "-j";
		argv[n++] = jarg;
	}
	for (i = 0; i < o->nssh; i++) {
		argv[n++] = "--sshlogin";
		argv[n++] = o->ssh[i];
	}
	argv[n++] = (char *)o->self;
	argv[n++] = "sweep";
	argv[n++] = "--out";
	argv[n++] = o->dir;
	argv[n++] = "--job";
	argv[n++] = "{}";
	argv[n++] = g->path;
	argv[n++] = "::::";
	argv[n++] = list;
	argv[n] = NULL;
	rc = spawn(argv, NULL, 0);
	j = count_results(g, o->dir);
	fprintf(stderr, "cxdvirt-sim: sweep: %" PRIu64 " jobs, %" PRIu64 " results in %s/results%s\n",
		g->njobs, j, o->dir, rc ? " (parallel failed: see logs/parallel.log)" : "");
	return rc || j != g->njobs ? 1 : 0;
}

/*
 * Wait until Slurm job @jobid (an array) has left the queue: squeue every
 * half second for the first 10 s, then every 2 s for a minute, then every
 * 15 s. (sbatch --wait polls at ever longer intervals, up to half a
 * minute after a short array is done.) A job squeue no longer knows is
 * done.
 */
static void slurm_wait(const char *jobid)
{
	char *argv[] = { "squeue", "--noheader", "--format=%i", "--jobs",
			 (char *)jobid, NULL };
	struct timespec ts;
	uint64_t ms, waited = 0;
	char out[256];

	for (;;) {
		if (spawn(argv, out, sizeof(out)) || !out[0])
			return;
		ms = waited < 10000 ? 500 : waited < 70000 ? 2000 : 15000;
		ts.tv_sec = (time_t)(ms / 1000);
		ts.tv_nsec = (long)(ms % 1000) * 1000000;
		nanosleep(&ts, NULL);
		waited += ms;
	}
}

/* --run slurm: DIR/sweep.sbatch as a job array of one task per job. */
static int run_slurm(const struct sweep_grid *g, const struct sweep_opts *o)
{
	char script[PATH_MAX], array[64], output[PATH_MAX];
	char *argv[16 + SWEEP_MAX_SBATCH];
	char jobid[128];
	char *qs, *qd, *qg;
	unsigned int n = 0, i;
	uint64_t have;
	FILE *f;
	int rc;

	snprintf(script, sizeof(script), "%s/sweep.sbatch", o->dir);
	f = fopen(script, "w");
	if (!f) {
		cxu_err("%s: %s", script, strerror(errno));
		return 1;
	}
	qs = sh_quote(o->self);
	qd = sh_quote(o->dir);
	qg = sh_quote(g->path);
	fprintf(f, "#!/bin/sh\n"
		"# cxdvirt-sim sweep: array task N runs job N of the grid.\n"
		"exec %s sweep --out %s --job \"$SLURM_ARRAY_TASK_ID\" %s\n",
		qs, qd, qg);
	free(qs);
	free(qd);
	free(qg);
	if (fclose(f)) {
		cxu_err("%s: %s", script, strerror(errno));
		return 1;
	}
	if (o->jobs)
		snprintf(array, sizeof(array), "--array=0-%" PRIu64 "%%%u",
			 g->njobs - 1, o->jobs);
	else
		snprintf(array, sizeof(array), "--array=0-%" PRIu64, g->njobs - 1);
	snprintf(output, sizeof(output), "--output=%s/logs/slurm-%%A_%%a.out",
		 o->dir);
	argv[n++] = "sbatch";
	argv[n++] = "--parsable";
	argv[n++] = "--job-name=cxdvirt-sweep";
	argv[n++] = array;
	argv[n++] = output;
	for (i = 0; i < o->nsbatch; i++)
		argv[n++] = o->sbatch[i];
	argv[n++] = script;
	argv[n] = NULL;
	fprintf(stderr, "cxdvirt-sim: sweep: submitting %" PRIu64 " array tasks (%s)\n",
		g->njobs, script);
	rc = spawn(argv, jobid, sizeof(jobid));
	jobid[strcspn(jobid, ";\n")] = '\0';	/* --parsable: ID[;CLUSTER] */
	if (rc || !*jobid) {
		cxu_err("sweep: sbatch failed (exit %d)", rc);
		return 1;
	}
	if (!o->wait) {
		printf("%s\n", jobid);
		fprintf(stderr, "cxdvirt-sim: sweep: job %s; when it is done: cxdvirt-sim sweep --merge %s\n",
			jobid, o->dir);
		return 0;
	}
	slurm_wait(jobid);
	have = count_results(g, o->dir);
	fprintf(stderr, "cxdvirt-sim: sweep: job %s: %" PRIu64 " jobs, %" PRIu64 " results in %s/results%s\n",
		jobid, g->njobs, have, o->dir,
		have == g->njobs ? "" : " (task logs: logs/slurm-*.out)");
	return have == g->njobs ? 0 : 1;
}

static void sweep_usage(FILE *out)
{
	fputs(
"usage: cxdvirt-sim sweep [options] GRID\n"
"       cxdvirt-sim sweep --job INDEX [--out DIR] GRID\n"
"       cxdvirt-sim sweep --merge DIR [--plot-x KEY] [--plot-y COLUMN] [--no-plot]\n"
"Run every job of GRID (an INI file: [traces] NAME = FILE or a generator,\n"
"[params] KEY = V1,V2,...; docs/tools.md, \"Sweeps\"): one replay per trace\n"
"and combination of values, its --json report in DIR/results/NAME.json.\n"
"\n"
"  --out DIR              output folder (default: GRID's name without .ini,\n"
"                         then .sweep, in the current folder)\n"
"  --run MODE             local (default): here; parallel: GNU parallel;\n"
"                         slurm: a Slurm job array (sbatch --array)\n"
"  -j, --jobs N           jobs at once (local: default 1; parallel: its -j;\n"
"                         slurm: the array's %N throttle)\n"
"  --sshlogin LOGIN       parallel: run on LOGIN (repeatable; : is here; DIR,\n"
"                         GRID, traces and this program at one path on all)\n"
"  --partition NAME       slurm: sbatch --partition\n"
"  --time LIMIT           slurm: sbatch --time (per task)\n"
"  --sbatch-arg ARG       slurm: pass ARG to sbatch (repeatable)\n"
"  --wait                 slurm: wait until every task is done, then check\n"
"                         the results (else print the job id and return)\n"
"  --list                 print each job's index and name, run nothing\n"
"  --job INDEX            run job INDEX only (what parallel and Slurm run)\n"
"  --merge DIR            DIR/results.csv from DIR's results, and a gnuplot\n"
"                         chart DIR/plot.png\n"
"  --plot-x KEY           merge: the x axis (default cache-size if swept,\n"
"                         else the first swept key)\n"
"  --plot-y COLUMN        merge: the y axis, a CSV column (default hit_ratio)\n"
"  --no-plot              merge: the CSV only\n"
"  -h, --help             this text\n", out);
}

/* Default output folder: GRID's base name without .ini, then .sweep. */
static char *default_dir(const char *grid)
{
	const char *b = strrchr(grid, '/');
	char *d;
	size_t n;

	b = b ? b + 1 : grid;
	n = strlen(b);
	if (n > 4 && !strcmp(b + n - 4, ".ini"))
		n -= 4;
	if (asprintf(&d, "%.*s.sweep", (int)n, b) < 0) {
		cxu_err("out of memory");
		exit(1);
	}
	return d;
}

/**
 * sim_sweep_main() - `cxdvirt-sim sweep ...`.
 * @argc: arguments, from "sweep" ...
 * @argv: ... on.
 *
 * Return: the exit status: 0 every job ran (or merged), 1 a job or a
 * command failed, 2 a usage error or a bad grid (nothing run).
 */
int sim_sweep_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "run", required_argument, NULL, 'r' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "sshlogin", required_argument, NULL, 'S' },
		{ "partition", required_argument, NULL, 'P' },
		{ "time", required_argument, NULL, 'T' },
		{ "sbatch-arg", required_argument, NULL, 'A' },
		{ "wait", no_argument, NULL, 'w' },
		{ "list", no_argument, NULL, 'l' },
		{ "job", required_argument, NULL, 'J' },
		{ "merge", required_argument, NULL, 'm' },
		{ "plot-x", required_argument, NULL, 'x' },
		{ "plot-y", required_argument, NULL, 'y' },
		{ "no-plot", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *run = "local", *merge = NULL, *px = NULL, *py = "hit_ratio";
	char *out = NULL, name[SWEEP_NAME_MAX + 1], *arg;
	struct sweep_opts o = { .jobs = 0 };
	bool list = false, plot = true;
	int64_t job = -1;
	struct sweep_grid g;
	uint64_t v, j;
	ssize_t len;
	int opt;

	o.ssh = xrealloc(NULL, (size_t)argc * sizeof(*o.ssh));
	o.sbatch = xrealloc(NULL, (size_t)argc * sizeof(*o.sbatch));
	opterr = 0;	/* ':' first: a missing value is ':', not '?' */
	while ((opt = getopt_long(argc, argv, ":hj:", lo, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'r':
			run = optarg;
			if (strcmp(run, "local") && strcmp(run, "parallel") &&
			    strcmp(run, "slurm"))
				return cxu_usage_err("sweep", "--run: local, parallel or slurm, not '%s'",
						     run);
			break;
		case 'j':
			if (cxu_parse_u64(optarg, &v) || !v || v > 4096)
				return cxu_usage_err("sweep", "--jobs: 1 to 4096, not '%s'",
						     optarg);
			o.jobs = (unsigned int)v;
			break;
		case 'S':
			if (o.nssh == SWEEP_MAX_SSH)
				return cxu_usage_err("sweep", "at most %d --sshlogin",
						     SWEEP_MAX_SSH);
			o.ssh[o.nssh++] = optarg;
			break;
		case 'P':
		case 'T':
		case 'A':
			if (o.nsbatch == SWEEP_MAX_SBATCH)
				return cxu_usage_err("sweep", "at most %d sbatch arguments",
						     SWEEP_MAX_SBATCH);
			if (opt == 'A') {
				o.sbatch[o.nsbatch++] = optarg;
				break;
			}
			if (asprintf(&arg, "--%s=%s", opt == 'P' ? "partition" : "time",
				     optarg) < 0)
				return 1;
			o.sbatch[o.nsbatch++] = arg;
			break;
		case 'w':
			o.wait = true;
			break;
		case 'l':
			list = true;
			break;
		case 'J':
			if (cxu_parse_u64(optarg, &v) || v >= SWEEP_MAX_JOBS)
				return cxu_usage_err("sweep", "--job: not a job index: '%s'",
						     optarg);
			job = (int64_t)v;
			break;
		case 'm':
			merge = optarg;
			break;
		case 'x':
			px = optarg;
			break;
		case 'y':
			py = optarg;
			break;
		case 'n':
			plot = false;
			break;
		case 'h':
			sweep_usage(stdout);
			return 0;
		case ':':
			return cxu_usage_err("sweep", "option '%s' needs a value",
					     argv[optind - 1]);
		default:
			return cxu_usage_err("sweep", "unrecognized option '%s'",
					     argv[optind - 1]);
		}
	}
	if (merge) {
		if (optind != argc)
			return cxu_usage_err("sweep", "--merge takes a DIR, no GRID");
		return sweep_merge(merge, px, py, plot);
	}
	if (optind != argc - 1)
		return cxu_usage_err("sweep", optind == argc ? "no GRID given" :
				     "one GRID only");
	if ((o.nssh && strcmp(run, "parallel")) ||
	    (o.nsbatch && strcmp(run, "slurm")) || (o.wait && strcmp(run, "slurm")))
		return cxu_usage_err("sweep", "--sshlogin is for --run parallel; --partition, --time, --sbatch-arg and --wait for --run slurm");
	if (grid_load(argv[optind], &g) || names_distinct(&g))
		return 2;
	if (job >= (int64_t)g.njobs) {
		cxu_err("--job %" PRId64 ": the grid has %" PRIu64 " jobs (0 to %" PRIu64 ")",
			job, g.njobs, g.njobs - 1);
		return 2;
	}
	if (!list && check_jobs(&g, job))
		return 2;
	if (list) {
		for (j = 0; j < g.njobs; j++) {
			job_name(&g, j, name, sizeof(name));
			printf("%" PRIu64 "\t%s\n", j, name);
		}
		return 0;
	}
	if (!out)
		out = default_dir(argv[optind]);
	if (make_dirs(out))
		return 1;
	o.dir = realpath(out, NULL);
	if (!o.dir) {
		cxu_err("%s: %s", out, strerror(errno));
		return 1;
	}
	if (job >= 0)
		return run_job(&g, (uint64_t)job, o.dir) ? 1 : 0;
	if (write_manifest(&g, o.dir))
		return 1;
	if (!strcmp(run, "local"))
		return run_local(&g, o.dir, o.jobs ? o.jobs : 1);
	len = readlink("/proc/self/exe", o.self, sizeof(o.self) - 1);
	if (len <= 0) {
		cxu_err("/proc/self/exe: %s", strerror(errno));
		return 1;
	}
	o.self[len] = '\0';
	if (!strcmp(run, "parallel"))
		return run_parallel(&g, &o);
	return run_slurm(&g, &o);
}
