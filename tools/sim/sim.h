/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt-sim: replay a memory-access trace through the device model.
 */
#ifndef CXDVIRT_SIM_H
#define CXDVIRT_SIM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <cxdvirt/params.h>

#include "cxu_lat.h"

/*
 * One record, packed into 64 bits: the in-memory form of every trace and the
 * record of the binary trace format (docs/tools.md, "Trace formats").
 * Bits 0-47: host page number (4 KiB); bits 48-61: thread; bit 62: a
 * discard (the page left the device: cxd_model_discard()), not an access;
 * bit 63: write (an access only).
 */
#define TRACE_PAGE_BITS		48
#define TRACE_PAGE_MAX		((UINT64_C(1) << TRACE_PAGE_BITS) - 1)
#define TRACE_THREAD_SHIFT	48
#define TRACE_THREAD_MAX	0x3fffu
#define TRACE_DISCARD		(UINT64_C(1) << 62)
#define TRACE_WRITE		(UINT64_C(1) << 63)

/** trace_pack() - one access; @page <= TRACE_PAGE_MAX, @thread <= TRACE_THREAD_MAX. */
static inline uint64_t trace_pack(uint64_t page, bool write, uint32_t thread)
{
	return page | ((uint64_t)thread << TRACE_THREAD_SHIFT) |
	       (write ? TRACE_WRITE : 0);
}

/** trace_discard() - is record @r a discard (not an access)? */
static inline bool trace_discard(uint64_t r)
{
	return r & TRACE_DISCARD;
}

/** trace_page() - the host page of record @r. */
static inline uint64_t trace_page(uint64_t r)
{
	return r & TRACE_PAGE_MAX;
}

/** trace_thread() - the thread of record @r. */
static inline uint32_t trace_thread(uint64_t r)
{
	return (uint32_t)(r >> TRACE_THREAD_SHIFT) & TRACE_THREAD_MAX;
}

/**
 * enum trace_format - what a trace file holds.
 * @TRACE_AUTO:		tell from the content (binary magic, else the first
 *			line that is not blank, a comment or valgrind's `==`).
 * @TRACE_TEXT:		cxdvirt-sim's own `R|W ADDRESS [THREAD]` lines.
 * @TRACE_BINARY:	the binary format (trace_bin.c).
 * @TRACE_LACKEY:	valgrind --tool=lackey --trace-mem=yes output.
 * @TRACE_TRACEPOINT:	cxdvirt_miss tracepoint lines (trace_pipe, perf script).
 */
enum trace_format {
	TRACE_AUTO = 0,
	TRACE_TEXT,
	TRACE_BINARY,
	TRACE_LACKEY,
	TRACE_TRACEPOINT,
};

/**
 * struct trace_opts - how to read a trace.
 * @format:		enum trace_format.
 * @lackey_instr:	lackey: replay instruction fetches (I lines) as reads.
 * @dev:		tracepoint: replay only the misses of this device
 *			(NULL: the trace must hold one device only).
 */
struct trace_opts {
	enum trace_format format;
	bool lackey_instr;
	const char *dev;
};

/**
 * struct trace - a whole trace, in memory or mapped from a binary file.
 * @recs:	the records in order, packed (trace_pack()): accesses and
 *		discards.
 * @n:		number of records.
 * @ndiscards:	of those, discards (TRACE_DISCARD); n - ndiscards are
 *		accesses.
 * @max_page:	highest page touched (binary: as the header says; the replay
 *		checks every record against the capacity).
 * @threads:	highest thread number + 1.
 * @format:	the format it was read from.
 * @map:	internal: the mapping of a binary file (or NULL) ...
 * @map_len:	... and its length in bytes.
 * @buf:	internal: @recs when allocated.
 */
struct trace {
	const uint64_t *recs;
	uint64_t n;
	uint64_t ndiscards;
	uint64_t max_page;
	uint32_t threads;
	enum trace_format format;
	void *map;
	size_t map_len;
	uint64_t *buf;
};

int trace_load(const char *path, const struct trace_opts *o, struct trace *t);
void trace_free(struct trace *t);
uint32_t trace_count_threads(const struct trace *t);
int trace_write_binary(const char *path, const struct trace *t);
int trace_format_parse(const char *name);
const char *trace_format_name(enum trace_format f);

/* The growing array a text trace is parsed into (trace_util.c). */
struct trace_buf {
	uint64_t *recs;
	uint64_t n, cap, max_page, ndiscards;
	uint32_t threads;
};

/* trace_util.c: helpers of every text parser; they call no parser. */
int trace_push(struct trace_buf *b, uint64_t page, bool write, uint32_t thread);
int trace_push_discard(struct trace_buf *b, uint64_t page, uint32_t thread);
int trace_parse_dec(const char **s, const char *e, uint64_t *v);
int trace_parse_hex(const char **s, const char *e, uint64_t *v);
void trace_line_error(const char *path, unsigned long lineno, const char *what,
		      const char *s, const char *e);

/* trace_std.c: the standard formats, called by trace_load() (trace.c). */
int trace_parse_lackey(const char *path, const char *p, const char *end,
		       const struct trace_opts *o, struct trace_buf *b);
int trace_parse_tracepoint(const char *path, const char *p, const char *end,
			   const struct trace_opts *o, struct trace_buf *b);

/** is_space() - isspace() of the C locale without the newline. */
static inline bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/**
 * enum trace_shape - the synthetic traces of trace_gen() (gen.c).
 * @TRACE_UNIFORM:	every page equally likely.
 * @TRACE_HOTCOLD:	90% of the accesses to the first 10% of the pages.
 */
enum trace_shape {
	TRACE_UNIFORM,
	TRACE_HOTCOLD,
};

/* gen.c: synthetic traces; calls no other file. */
int trace_shape_parse(const char *name);
int trace_gen(struct trace *t, enum trace_shape shape, uint64_t n,
	      uint64_t pages, unsigned int wpct, uint64_t seed,
	      uint32_t threads, uint64_t scatter);
bool trace_scatter_valid(uint64_t scatter, uint64_t pages);

int trace_bin_open(const char *path, const unsigned char *p, size_t len,
		   struct trace *t);
bool trace_bin_magic(const unsigned char *p, size_t len);

/**
 * struct sim_cfg - everything one run is configured with.
 * @p:		the device parameters (struct cxd_params, generated from
 *		the table in include/cxdvirt/params.h, as the module's
 *		struct cxd_cfg embeds them); @p.capacity 0: the trace's
 *		extent.
 * @preset:	name of the preset @p.nand started from.
 * @think_ns:	time between the end of one access and the next.
 * @hit_ns:	a hit's latency at the device (ns; 0: hits are free, as in
 *		the module, where they run natively): cxd_model_hit(); with
 *		@faults also each native hit's.
 * @warmup:	accesses replayed before the measured window (counters reset
 *		after them) ...
 * @warmup_pct:	... or, when not 0, this percentage of the trace's.
 * @faults:	only what would fault in the module reaches the model
 *		(see replay.c and docs/model.md).
 * @power_fail_at: a modeled power failure (volatile cache) after this many
 *		accesses: the replay stops there and reports the dirty lines
 *		lost (and, with persistence gpf, kept); 0: none.
 */
struct sim_cfg {
	struct cxd_params p;
	const char *preset;
	uint64_t think_ns;
	uint64_t hit_ns;
	uint64_t warmup;
	unsigned int warmup_pct;
	bool faults;
	uint64_t power_fail_at;
};

/*
 * options.c: the options from the parameter table and --help; it calls no
 * other file of the simulator.
 */
struct option;

/* getopt_long() val of the key options: SIM_OPT_KEY + index in the table. */
#define SIM_OPT_KEY	0x1000

int sim_set(struct sim_cfg *cfg, const char *key, const char *val);
bool sim_same(const struct sim_cfg *a, const struct sim_cfg *b);
/* Why the last sim_set() failed: " (reason)" to append to a message, or "". */
extern char sim_why[128];
int sim_apply_opts(struct sim_cfg *cfg, const char *preset,
		   const char *const *name, const char *const *val, int n);
const struct option *sim_build_opts(void);
void sim_usage(FILE *out, const struct sim_cfg *def);
int sim_key_canon(const char *key, char *buf, size_t len);
const struct cxd_param *sim_param_at(size_t i);
uint64_t sim_get(const struct sim_cfg *cfg, int id);

/**
 * struct metrics - what one replay measured (sim_run()).
 * @accesses:	the trace's accesses (after --warmup) ...
 * @reads:	... its reads ...
 * @writes:	... and writes.
 * @elapsed_ns:	from the first measured access's arrival to the latest
 *		thread clock after its last access and think time, ns.
 * @threads:	the threads replayed, each on its own clock: the distinct
 *		thread numbers of the trace with an access (R or W; not
 *		the highest + 1, not a thread of discards only).
 * @acc_sum:	sum over measured accesses of completion - arrival (hits
 *		included: 0, or --hit-ns's cost), ns ...
 * @acc_first_ns: ... the mean over the first tenth of them ...
 * @acc_last_ns: ... and over the last tenth.
 * @npages:	the device's capacity, in 4 KiB pages.
 * @native_hits: --faults: accesses to mapped pages (they never reach the
 *		model).
 * @discard_records: discard records replayed (after --warmup); the lines
 *		they dropped are st.discards.
 * @st:		the model's counters.
 * @ftl:	the FTL's counters (zero without an FTL).
 * @erases:	NAND block erases.
 * @lat:	miss latency percentiles, ns.
 * @lat_sum:	the sum of the miss latencies, ns.
 * @state_bytes: the model's state, bytes (see docs/model.md).
 * @lines_saved: --power-fail-at: the dirty lines a GPF flush kept ...
 * @lines_lost:	... the dirty lines lost ...
 * @lost_pages:	... and their device pages, in line order (malloc'd;
 *		sim_metrics_free()).
 * @util_mean:	die utilisation, mean over the dies, as a fraction ...
 * @util_max:	... and the busiest die's.
 */
struct metrics {
	uint64_t accesses, reads, writes, elapsed_ns, npages, native_hits;
	uint64_t discard_records;
	uint32_t threads;
	uint64_t acc_sum, acc_first_ns, acc_last_ns;
	struct cxd_model_stats st;
	struct cxd_ftl_stats ftl;
	uint64_t erases;
	struct cxu_lat_summary lat;	/* miss latencies */
	uint64_t lat_sum;		/* their sum, ns */
	uint64_t state_bytes;	/* the model's state: see docs/model.md */
	uint64_t lines_saved;	/* --power-fail-at: dirty lines GPF kept */
	uint64_t lines_lost;	/* --power-fail-at: dirty lines lost */
	uint64_t *lost_pages;	/* ... their pages (malloc'd, or NULL) */
	double util_mean, util_max;
};

/** ratio() - @a / @b, or 0 when @b is 0. */
static inline double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

/* replay.c: one replay through the model; calls no other file. */
int sim_run(const struct sim_cfg *cfg, const struct trace *t,
	    struct metrics *out);
const char *sim_check(const struct sim_cfg *cfg, uint64_t max_page,
		      uint64_t *npages, size_t *msize);
const char *sim_check_opts(const struct sim_cfg *cfg);
const char *sim_check_len(const struct sim_cfg *cfg, uint64_t n);

/* report.c: the text and JSON reports; calls options.c only. */
void sim_print_text(const char *ckey, char **cvals,
		    const struct sim_cfg *cfgs, const struct metrics *xs,
		    unsigned int n);
void sim_print_json(FILE *out, const char *ckey, char **cvals,
		    const struct sim_cfg *cfgs, const struct metrics *xs,
		    unsigned int n);

/* sweep.c: cxdvirt-sim sweep (grids, jobs, running them, merging). */
int sim_sweep_main(int argc, char **argv);
/* sweep_merge.c: sweep --merge; calls no other file of the simulator. */
int sweep_merge(const char *dir, const char *plot_x, const char *plot_y,
		bool plot_on);

#endif /* CXDVIRT_SIM_H */
