/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt device model, private: the learned prefetchers (prefetch.c).
 * They decide which pages to prefetch; model.c issues the reads and feeds
 * them the events they learn from. All O(1) per call (BOP and FDP: a
 * fixed-size table; Leap: its 32-entry history), no locks, no allocation.
 */
#ifndef CXDVIRT_MODEL_PREFETCH_H
#define CXDVIRT_MODEL_PREFETCH_H

#include "cxdvirt/model.h"

#define CXD_PF_STREAMS		16u

/**
 * struct cxd_pf_stream - one stream of the stride prefetcher (model.c).
 * @last:	last page, CXD_NO_PAGE if unused.
 * @stride:	pages, 0 until known.
 * @conf:	times the stride repeated, capped at 3.
 * @stamp:	last use, for replacement.
 */
struct cxd_pf_stream {
	uint64_t last;
	int64_t stride;
	uint32_t conf;
	uint64_t stamp;
};

/*
 * Best-Offset parameters (Michaud, HPCA 2016, section 4.2 and its DPC-2
 * code): the 52 offsets 1..256 whose prime factors are 2, 3 and 5, a
 * 256-entry recent-requests table, SCORE_MAX 31, ROUND_MAX 100,
 * BAD_SCORE 1 (the defaults of struct cxd_pf_params, cxdvirt/model.h).
 * Offsets are in 4 KiB pages here (cache lines there).
 */
#define CXD_BOP_OFFSETS		52u
#define CXD_BOP_RR		256u

/**
 * struct cxd_pf_bop - Best-Offset learning state (prefetch.c; model.c reads it).
 * @rr:		recent requests, direct-mapped by page; CXD_NO_PAGE: empty.
 * @score:	score of each candidate offset in this phase.
 * @test:	index of the next offset to test.
 * @round:	rounds completed in this phase.
 * @offset:	offset in use, pages; 0: prefetching off (best score was
 *		at most CXD_BOP_BAD_SCORE). 1 until the first phase ends.
 * @phases:	learning phases completed.
 */
struct cxd_pf_bop {
	uint64_t rr[CXD_BOP_RR];
	uint8_t score[CXD_BOP_OFFSETS];
	uint32_t test;
	uint32_t round;
	uint32_t offset;
	uint32_t phases;
};

/*
 * Leap parameters (Maruf and Chowdhury, USENIX ATC 2020): a history of 32
 * deltas (Hsize, the paper's); the trend search starts with the 4 most
 * recent (Hsize / Nsplit, Nsplit = 8 chosen) and doubles the window; the
 * prefetch window is at most 8 pages (Linux's default swap readahead, the
 * paper's baseline and maximum).
 */

/**
 * struct cxd_pf_leap - Leap state (prefetch.c; model.c reads it).
 * @delta:	ring of the last CXD_LEAP_HIST deltas between triggers.
 * @head:	next slot of @delta.
 * @n:		valid entries of @delta.
 * @last:	last trigger page, CXD_NO_PAGE before the first.
 * @trend:	majority delta of the last decision, 0: none found.
 * @pw:		prefetch window of the last decision, pages.
 * @hits:	prefetch hits since the last decision (Chit).
 */
struct cxd_pf_leap {
	int64_t delta[CXD_LEAP_HIST];
	uint32_t head;
	uint32_t n;
	uint64_t last;
	int64_t trend;
	uint32_t pw;
	uint32_t hits;
};

/*
 * Feedback-directed prefetching (Srinath et al., HPCA 2007): five levels
 * of (distance, degree), the paper's Table 1 read in pages; thresholds
 * A_high 0.75, A_low 0.40, T_lateness 0.01, T_pollution 0.005; a 4096-bit
 * pollution filter; an interval ends after evictions of half the cache's
 * lines (8192 of a 1 MB L2's 16384 blocks in the paper); counters decay
 * by half each interval; the level starts at 3 (middle of the road).
 */
#define CXD_FDP_LEVELS		5u
#define CXD_FDP_FILTER_BITS	4096u

/**
 * struct cxd_pf_fdp - FDP state (prefetch.c; model.c reads it).
 * @level:	aggressiveness 1 (very conservative) .. 5 (very aggressive).
 * @evictions:	evictions in this interval.
 * @issued:	prefetches issued in this interval.
 * @useful:	prefetched pages used in this interval.
 * @late:	... of them used while their read was in flight.
 * @misses:	demand misses in this interval.
 * @pollution:	demand misses to pages a prefetch evicted (pollution
 *		filter hits) in this interval.
 * @d_issued:	@issued decayed over past intervals (x 1/2 each interval).
 * @d_useful:	@useful, decayed the same way.
 * @d_late:	@late, decayed the same way.
 * @d_misses:	@misses, decayed the same way.
 * @d_pollution: @pollution, decayed the same way.
 * @intervals:	intervals completed.
 * @filter:	pollution filter, one bit per hash of a page.
 */
struct cxd_pf_fdp {
	uint32_t level;
	uint64_t evictions;
	uint64_t issued, useful, late, misses, pollution;
	uint64_t d_issued, d_useful, d_late, d_misses, d_pollution;
	uint32_t intervals;
	uint8_t filter[CXD_FDP_FILTER_BITS / 8];
};

void cxd_pf_learned_reset(struct cxd_model *m);
uint32_t cxd_bop_train(struct cxd_pf_bop *b, const struct cxd_pf_params *p,
		       uint64_t page);
uint32_t cxd_leap_decide(struct cxd_pf_leap *l, const struct cxd_pf_params *p,
			 uint64_t page, bool miss, int64_t *delta);
void cxd_fdp_interval(struct cxd_pf_fdp *f, const struct cxd_pf_params *p,
		      uint32_t nlines);
void cxd_fdp_level(const struct cxd_pf_fdp *f, uint32_t *distance,
		   uint32_t *degree);
void cxd_fdp_prefetch_evicted(struct cxd_pf_fdp *f, uint64_t page);
void cxd_fdp_demand_miss(struct cxd_pf_fdp *f, uint64_t page);

#endif /* CXDVIRT_MODEL_PREFETCH_H */
