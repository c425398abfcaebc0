/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt-sim: replay a memory-access trace through the device model.
 */
#ifndef CXDVIRT_SIM_H
#define CXDVIRT_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include <cxdvirt/model.h>

/**
 * struct trace_rec - one access of a trace.
 * @page:	host page number (4 KiB).
 * @write:	a write (W) rather than a read (R).
 * @thread:	the optional thread field (0 if absent); reported only.
 */
struct trace_rec {
	uint64_t page;
	bool write;
	uint32_t thread;
};

/**
 * struct trace - a whole trace in memory.
 * @recs:	the accesses in order.
 * @n:		number of accesses.
 * @max_page:	highest page touched.
 * @threads:	highest thread number + 1.
 */
struct trace {
	struct trace_rec *recs;
	uint64_t n;
	uint64_t max_page;
	uint32_t threads;
};

int trace_load(const char *path, struct trace *t);
void trace_free(struct trace *t);

/**
 * struct sim_cfg - everything one run is configured with.
 * @capacity:		device size, bytes (0: the trace's extent).
 * @cache:		cache size, bytes.
 * @ways:		lines per set (0: fully associative).
 * @policy:		replacement policy.
 * @nand:		NAND configuration.
 * @preset:		name of the preset @nand started from.
 * @prefetch:		prefetch mode.
 * @degree:		prefetch degree.
 * @distance:		stride prefetch distance.
 * @write_alloc:	enum cxd_write_alloc.
 * @skip_unwritten:	see struct cxd_model.
 * @writeback:		enum cxd_writeback; drain runs at the access that
 *			crossed drain_high_pct (95% -> 85%).
 * @seed:		random policy seed.
 * @cflru_window_pct:	CFLRU clean-first window, % of each set.
 * @pf:			learned prefetchers' parameters.
 * @ftl:		FTL configuration (mode 0: none).
 * @ftl_fill:		map every page before the replay (a full device).
 * @think_ns:		time between the end of one access and the next.
 * @faults:		only what would fault in the module reaches the model
 *			(see run() in main.c and docs/model.md).
 */
struct sim_cfg {
	uint64_t capacity;
	uint64_t cache;
	uint32_t ways;
	enum cxd_policy policy;
	struct cxd_nand_cfg nand;
	const char *preset;
	enum cxd_prefetch_mode prefetch;
	uint32_t degree;
	uint32_t distance;
	uint32_t write_alloc;
	bool skip_unwritten;
	uint32_t writeback;	/* enum cxd_writeback */
	uint64_t seed;
	uint32_t cflru_window_pct;
	struct cxd_pf_params pf;
	struct cxd_ftl_cfg ftl;
	bool ftl_fill;
	uint64_t think_ns;
	bool faults;
};

int sim_set(struct sim_cfg *cfg, const char *key, const char *val);

#endif /* CXDVIRT_SIM_H */
