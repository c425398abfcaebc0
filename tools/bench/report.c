// SPDX-License-Identifier: GPL-2.0
/*
 * Reports: text (default), JSON (json-c) and CSV.
 *
 * JSON: one target gives one object (the keys of docs/tools.md); several
 * give {"version": ..., "targets": [object, ...]}.
 * CSV: a header line, then one line per target and class (hits, misses,
 * all).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "bench.h"

#ifndef JSON_C_TO_STRING_NOSLASHESCAPE
#define JSON_C_TO_STRING_NOSLASHESCAPE 0
#endif

/** note() - add a note to a target's report (at most MAX_NOTES). */
void note(struct result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nnotes >= MAX_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(r->note_buf[r->nnotes], sizeof(r->note_buf[0]), fmt, ap);
	va_end(ap);
	r->notes[r->nnotes] = r->note_buf[r->nnotes];
	r->nnotes++;
}

/** agreement() - of classified and counted misses: 1 - |a-b| / max(a, b). */
double agreement(uint64_t a, uint64_t b)
{
	uint64_t hi = a > b ? a : b, d = a > b ? a - b : b - a;

	return hi ? 1.0 - (double)d / (double)hi : 1.0;
}

/* ------------------------------------------------------------- JSON -- */

/* A summary as JSON: the keys of docs/tools.md ("p50_ns", ...). */
static struct json_object *summary_json(const struct cxu_lat_summary *s)
{
	return cxu_lat_json(s, CXU_LAT_JSON_NS | CXU_LAT_JSON_P9999);
}

static struct json_object *stats_json(const struct dev_stats *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "misses", json_object_new_uint64(s->misses));
	json_object_object_add(o, "minor_hits", json_object_new_uint64(s->minor_hits));
	json_object_object_add(o, "evictions", json_object_new_uint64(s->evictions));
	json_object_object_add(o, "dirty_evictions",
			       json_object_new_uint64(s->dirty_evictions));
	json_object_object_add(o, "writebacks", json_object_new_uint64(s->writebacks));
	json_object_object_add(o, "miss_ns_total", json_object_new_uint64(s->miss_ns_total));
	json_object_object_add(o, "model_ns_total",
			       json_object_new_uint64(s->model_ns_total));
	json_object_object_add(o, "fault_model_ns_total",
			       json_object_new_uint64(s->fault_model_ns_total));
	json_object_object_add(o, "fault_unmap_ns_total",
			       json_object_new_uint64(s->fault_unmap_ns_total));
	json_object_object_add(o, "fault_unmaps", json_object_new_uint64(s->fault_unmaps));
	return o;
}

static struct json_object *timer_json(const struct timer_info *ti)
{
	struct json_object *x = json_object_new_object();

	json_object_object_add(x, "clock", json_object_new_string(
		ti->kind == TIMER_TSC ? "rdtscp" : "CLOCK_MONOTONIC"));
	json_object_object_add(x, "overhead_min_ns", json_object_new_uint64(ti->min_ns));
	json_object_object_add(x, "overhead_median_ns", json_object_new_uint64(ti->median_ns));
	json_object_object_add(x, "resolution_ns", json_object_new_uint64(ti->resolution_ns));
	if (ti->kind == TIMER_TSC) {
		json_object_object_add(x, "tsc_ghz", json_object_new_double(ti->tsc_ghz));
		json_object_object_add(x, "calibration_spread",
				       json_object_new_double(ti->calib_spread));
		json_object_object_add(x, "invariant_tsc",
				       json_object_new_boolean(ti->invariant_tsc));
	}
	json_object_object_add(x, "subtracted", json_object_new_boolean(0));
	return x;
}

static struct json_object *target_json(const struct opts *o, const struct timer_info *ti,
				       const struct result *r)
{
	struct json_object *root = json_object_new_object(), *x, *arr;
	const struct target *t = r->t;
	unsigned int i;

	json_object_object_add(root, "device", json_object_new_string(t->spec));
	json_object_object_add(root, "label", json_object_new_string(t->label));
	json_object_object_add(root, "kind", json_object_new_string(target_kind_name(t->kind)));
	if (t->kind == TGT_NODE)
		json_object_object_add(root, "node", json_object_new_int(t->node));
	if (t->di.name[0])
		json_object_object_add(root, "name", json_object_new_string(t->di.name));
	if (t->capacity)
		json_object_object_add(root, "capacity", json_object_new_uint64(t->capacity));
	if (t->di.cache_size)
		json_object_object_add(root, "cache_size",
				       json_object_new_uint64(t->di.cache_size));

	x = json_object_new_object();
	json_object_object_add(x, "pages", json_object_new_uint64(o->pages));
	json_object_object_add(x, "page_size", json_object_new_uint64(r->page));
	json_object_object_add(x, "passes", json_object_new_int((int)o->passes));
	json_object_object_add(x, "warmup", json_object_new_int((int)o->warmup));
	json_object_object_add(x, "pattern", json_object_new_string(pattern_name(o->pattern)));
	json_object_object_add(x, "stride", json_object_new_uint64(o->stride));
	json_object_object_add(x, "offset", json_object_new_uint64(o->offset));
	json_object_object_add(x, "threads", json_object_new_int((int)o->threads));
	json_object_object_add(x, "shared", json_object_new_boolean(o->shared));
	json_object_object_add(x, "thread_step", json_object_new_uint64(
		o->thread_step ? o->thread_step : o->pages * o->stride));
	json_object_object_add(x, "seed", json_object_new_uint64(o->seed));
	json_object_object_add(x, "write_ratio", json_object_new_double(o->write_ratio));
	json_object_object_add(x, "access_bytes", json_object_new_int((int)o->access_bytes));
	json_object_object_add(x, "cold", json_object_new_boolean(o->cold));
	json_object_object_add(x, "thp", json_object_new_boolean(o->thp));
	json_object_object_add(x, "evict_pages", json_object_new_uint64(r->evict_pages));
	json_object_object_add(root, "config", x);

	json_object_object_add(root, "timer", timer_json(ti));

	x = json_object_new_object();
	json_object_object_add(x, "ns", json_object_new_uint64(r->thr_ns));
	json_object_object_add(x, "source", json_object_new_string(r->thr_source));
	json_object_object_add(x, "model_miss_ns", json_object_new_uint64(r->model_miss_ns));
	json_object_object_add(x, "min_model_miss_ns", json_object_new_uint64(r->t->di.min_miss_ns));
	json_object_object_add(x, "data_ns", json_object_new_uint64(r->data_thr_ns));
	json_object_object_add(root, "threshold", x);

	json_object_object_add(root, "hits", summary_json(&r->hits));
	json_object_object_add(root, "misses", summary_json(&r->misses));
	json_object_object_add(root, "all", summary_json(&r->all));
	json_object_object_add(root, "accesses", json_object_new_uint64(r->accesses));
	json_object_object_add(root, "bandwidth_mbps", json_object_new_double(r->bandwidth_mbps));

	arr = json_object_new_array();
	for (i = 0; i < o->threads; i++)
		json_object_array_add(arr, summary_json(&r->thread_all[i]));
	json_object_object_add(root, "threads", arr);

	if (r->have_delta) {
		json_object_object_add(root, "device_stats", stats_json(&r->delta));
		x = json_object_new_object();
		json_object_object_add(x, "classified_misses",
				       json_object_new_uint64(r->classified_misses));
		json_object_object_add(x, "device_misses",
				       json_object_new_uint64(r->delta.misses));
		json_object_object_add(x, "ratio", json_object_new_double(
			agreement(r->classified_misses, r->delta.misses)));
		json_object_object_add(root, "agreement", x);
		x = json_object_new_object();
		json_object_object_add(x, "model_mean_ns", json_object_new_double(r->model_mean_ns));
		json_object_object_add(x, "kernel_miss_mean_ns",
				       json_object_new_double(r->kernel_miss_mean_ns));
		json_object_object_add(x, "kernel_own_median_ns",
				       json_object_new_double(r->kernel_own_median_ns));
		json_object_object_add(x, "kernel_model_mean_ns",
				       json_object_new_double(r->kernel_model_mean_ns));
		json_object_object_add(x, "kernel_unmap_mean_ns",
				       json_object_new_double(r->kernel_unmap_mean_ns));
		json_object_object_add(x, "unmaps_per_miss",
				       json_object_new_double(r->unmaps_per_miss));
		json_object_object_add(root, "model", x);
	} else {
		json_object_object_add(root, "device_stats", NULL);
		json_object_object_add(root, "agreement", NULL);
		json_object_object_add(root, "model", NULL);
	}
	if (r->node_checked) {
		x = json_object_new_object();
		json_object_object_add(x, "pages_sampled", json_object_new_uint64(r->node_pages_total));
		json_object_object_add(x, t->kind == TGT_NODE ? "pages_on_node" : "pages_present",
				       json_object_new_uint64(r->node_pages_on));
		json_object_object_add(root, "placement", x);
	}

	arr = json_object_new_array();
	for (i = 0; i < o->passes; i++) {
		x = json_object_new_object();
		json_object_object_add(x, "pass", json_object_new_int((int)i));
		json_object_object_add(x, "wall_ns", json_object_new_uint64(r->pass_ns[i]));
		json_object_object_add(x, "classified_misses",
				       json_object_new_uint64(r->pass_classified[i]));
		if (r->have_delta) {
			json_object_object_add(x, "device_misses",
					       json_object_new_uint64(r->pass_delta[i].misses));
			json_object_object_add(x, "device_minor_hits",
					       json_object_new_uint64(r->pass_delta[i].minor_hits));
			json_object_object_add(x, "device_miss_ns",
					       json_object_new_uint64(r->pass_delta[i].miss_ns_total));
			json_object_object_add(x, "device_model_ns",
					       json_object_new_uint64(r->pass_delta[i].model_ns_total));
		}
		json_object_array_add(arr, x);
	}
	json_object_object_add(root, "passes", arr);

	arr = json_object_new_array();
	for (i = 0; i < r->nnotes; i++)
		json_object_array_add(arr, json_object_new_string(r->notes[i]));
	json_object_object_add(root, "notes", arr);
	return root;
}

void report_json(const struct opts *o, const struct timer_info *ti,
		 struct result *res, unsigned int n)
{
	struct json_object *root, *arr;
	unsigned int i;

	if (n == 1) {
		root = target_json(o, ti, &res[0]);
	} else {
		root = json_object_new_object();
		json_object_object_add(root, "version", json_object_new_string(CXDVIRT_VERSION));
		arr = json_object_new_array();
		for (i = 0; i < n; i++)
			json_object_array_add(arr, target_json(o, ti, &res[i]));
		json_object_object_add(root, "targets", arr);
	}
	printf("%s\n", json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
		JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
}

/* -------------------------------------------------------------- CSV -- */

/* A CSV field: quoted when it holds a comma, quote or newline. */
static void csv_str(const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

void report_csv(const struct opts *o, struct result *res, unsigned int n)
{
	static const char *const cls[] = { "hits", "misses", "all" };
	unsigned int i, c;

	puts("label,target,kind,pattern,pages,passes,threads,class,count,mean_ns,p50_ns,"
	     "p90_ns,p99_ns,p999_ns,p9999_ns,max_ns,bandwidth_mbps,threshold_ns,"
	     "classified_misses,device_misses,model_mean_ns");
	for (i = 0; i < n; i++) {
		const struct result *r = &res[i];
		const struct cxu_lat_summary *s[] = { &r->hits, &r->misses, &r->all };

		for (c = 0; c < 3; c++) {
			csv_str(r->t->label);
			putchar(',');
			csv_str(r->t->spec);
			printf(",%s,%s,%" PRIu64 ",%u,%u,%s,%" PRIu64 ",%.1f,%" PRIu64 ",%" PRIu64
			       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.2f,%" PRIu64
			       ",%" PRIu64 ",",
			       target_kind_name(r->t->kind), pattern_name(o->pattern), o->pages,
			       o->passes, o->threads, cls[c], s[c]->count, s[c]->mean_ns,
			       s[c]->p50_ns, s[c]->p90_ns, s[c]->p99_ns, s[c]->p999_ns,
			       s[c]->p9999_ns, s[c]->max_ns, r->bandwidth_mbps, r->thr_ns,
			       r->classified_misses);
			if (r->have_delta)
				printf("%" PRIu64 ",%.1f\n", r->delta.misses, r->model_mean_ns);
			else
				printf(",\n");
		}
	}
}

/* ------------------------------------------------------------- text -- */

static void print_row(const char *what, const struct cxu_lat_summary *s)
{
	printf("  %-7s %9" PRIu64 " %9.0f %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64
	       " %9" PRIu64 " %9" PRIu64 "\n", what, s->count, s->mean_ns, s->p50_ns, s->p90_ns,
	       s->p99_ns, s->p999_ns, s->p9999_ns, s->max_ns);
}

static void text_one(const struct opts *o, const struct timer_info *ti,
		     const struct result *r)
{
	const struct target *t = r->t;
	unsigned int i;

	printf("%s%s%s%s: %" PRIu64 " pages of %zu bytes x %u passes, %s, seed %" PRIu64
	       ", write ratio %.2f, evict %" PRIu64 " pages/pass\n",
	       t->label, t->di.name[0] ? " (" : "", t->di.name, t->di.name[0] ? ")" : "",
	       o->pages, r->page, o->passes, pattern_name(o->pattern), o->seed,
	       o->write_ratio, r->evict_pages);
	printf("target: %s %s", target_kind_name(t->kind), t->spec);
	if (o->threads > 1)
		printf("; %u threads, %s regions", o->threads, o->shared ? "one shared" : "disjoint");
	if (o->stride != 1 || o->offset)
		printf("; stride %" PRIu64 ", offset %" PRIu64, o->stride, o->offset);
	if (o->cold)
		printf("; cold (first touch)");
	if (o->warmup)
		printf("; %u warm-up pass%s", o->warmup, o->warmup > 1 ? "es" : "");
	putchar('\n');
	if (t->di.cache_size)
		printf("cache: %" PRIu64 " lines of %zu bytes; working set %" PRIu64 " pages\n",
		       t->di.cache_size / r->page, r->page, o->pages * o->threads);
	if (ti->kind == TIMER_TSC)
		printf("timer: rdtscp at %.4f GHz (two calibrations %.2f%% apart, %s TSC) pair costs min %"
		       PRIu64 " ns, median %" PRIu64 " ns; not subtracted\n",
		       ti->tsc_ghz, 100 * ti->calib_spread,
		       ti->invariant_tsc ? "invariant" : "NOT invariant", ti->min_ns, ti->median_ns);
	else
		printf("timer: clock_gettime(CLOCK_MONOTONIC) pair costs min %" PRIu64
		       " ns, median %" PRIu64 " ns (resolution %" PRIu64 " ns); not subtracted\n",
		       ti->min_ns, ti->median_ns, ti->resolution_ns);
	if (!strcmp(r->thr_source, "model"))
		printf("threshold: %" PRIu64 " ns = half the %s modeled miss (mean %" PRIu64
		       " ns); from the data alone: %" PRIu64 " ns\n", r->thr_ns,
		       r->thr_ns * 2 < r->model_miss_ns ? "shortest" : "mean",
		       r->model_miss_ns, r->data_thr_ns);
	else if (!strcmp(r->thr_source, "data"))
		printf("threshold: %" PRIu64 " ns, derived from the data (Otsu, log scale)\n",
		       r->thr_ns);
	else if (!strcmp(r->thr_source, "user"))
		printf("threshold: %" PRIu64 " ns (--threshold); from the data: %" PRIu64 " ns\n",
		       r->thr_ns, r->data_thr_ns);
	else
		printf("threshold: none: the latencies show one class; all accesses are hits\n");
	printf("\n  %-7s %9s %9s %9s %9s %9s %9s %9s %9s   (ns)\n", "", "count", "mean", "p50",
	       "p90", "p99", "p99.9", "p99.99", "max");
	print_row("hits", &r->hits);
	print_row("misses", &r->misses);
	print_row("all", &r->all);
	if (o->threads > 1) {
		char name[16];

		for (i = 0; i < o->threads; i++) {
			snprintf(name, sizeof(name), "thr%u", i);
			print_row(name, &r->thread_all[i]);
		}
	}
	printf("\nbandwidth: %.2f MB/s (%" PRIu64 " accesses of %u bytes over the passes' wall time)\n",
	       r->bandwidth_mbps, r->accesses, o->access_bytes);
	if (r->node_checked)
		printf("placement: %" PRIu64 " of %" PRIu64 " sampled pages %s\n",
		       r->node_pages_on, r->node_pages_total,
		       t->kind == TGT_NODE ? "on the node" : "present");
	if (r->have_delta) {
		printf("device (measured passes): misses %" PRIu64 ", minor_hits %" PRIu64
		       ", evictions %" PRIu64 ", writebacks %" PRIu64 "\n",
		       r->delta.misses, r->delta.minor_hits, r->delta.evictions,
		       r->delta.writebacks);
		if (r->delta.misses)
			printf("model: mean modeled miss %.0f ns, mean in-kernel miss %.0f ns\n",
			       r->model_mean_ns, r->kernel_miss_mean_ns);
		printf("misses: classified %" PRIu64 ", device %" PRIu64 ", agreement %.1f%%\n",
		       r->classified_misses, r->delta.misses,
		       100.0 * agreement(r->classified_misses, r->delta.misses));
		for (i = 0; i < o->passes; i++)
			printf("  pass %u: classified %" PRIu64 ", device misses %" PRIu64
			       ", minor_hits %" PRIu64 "\n", i, r->pass_classified[i],
			       r->pass_delta[i].misses, r->pass_delta[i].minor_hits);
	} else {
		printf("misses: classified %" PRIu64 "; no device counters to compare\n",
		       r->classified_misses);
	}
	for (i = 0; i < r->nnotes; i++)
		printf("note: %s\n", r->notes[i]);
}

void report_text(const struct opts *o, const struct timer_info *ti,
		 struct result *res, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (i)
			puts("\n----");
		text_one(o, ti, &res[i]);
	}
	if (n < 2)
		return;
	printf("\n%-24s %10s %10s %10s %10s %10s   (ns; ratio: all p50 / first target's)\n",
	       "target", "hit p50", "miss p50", "all p50", "MB/s", "ratio");
	for (i = 0; i < n; i++)
		printf("%-24s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10.1f %10.3f\n",
		       res[i].t->label, res[i].hits.p50_ns, res[i].misses.p50_ns,
		       res[i].all.p50_ns, res[i].bandwidth_mbps,
		       res[0].all.p50_ns ? (double)res[i].all.p50_ns / (double)res[0].all.p50_ns : 0);
}
