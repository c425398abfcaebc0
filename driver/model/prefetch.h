/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt device model, private: the prefetchers. Each one is a struct
 * cxd_pf_ops in its own prefetch_*.c, registered in prefetch.c; it only
 * decides which pages to prefetch, from its own state (struct cxd_pf_state)
 * and what the model tells it of each access (struct cxd_pf_in). model.c
 * issues the reads, counts them, and feeds back the events the learned
 * prefetchers learn from. All O(1) per call (BOP and FDP: a fixed-size
 * table; Leap: its 32-entry history; stride: its 16 streams), no locks, no
 * allocation.
 */
#ifndef CXDVIRT_MODEL_PREFETCH_H
#define CXDVIRT_MODEL_PREFETCH_H

#include "cxdvirt/model.h"

#define CXD_PF_STREAMS		16u

/**
 * struct cxd_pf_stream - one stream of the stride prefetcher
 * (prefetch_stride.c).
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
 * struct cxd_pf_bop - Best-Offset learning state (prefetch_bop.c).
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
 * struct cxd_pf_leap - Leap state (prefetch_leap.c).
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
 * struct cxd_pf_fdp - FDP state (prefetch_fdp.c).
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

/**
 * struct cxd_pf_state - every prefetcher's learning state; the model keeps
 * one (struct cxd_model_priv), and a prefetcher touches only its own part
 * (FDP also trains the stride streams).
 * @streams:	stride: the stream table.
 * @stamp:	stride: stream replacement clock.
 * @bop:	Best-Offset.
 * @leap:	Leap.
 * @fdp:	feedback-directed prefetching.
 */
struct cxd_pf_state {
	struct cxd_pf_stream streams[CXD_PF_STREAMS];
	uint64_t stamp;
	struct cxd_pf_bop bop;
	struct cxd_pf_leap leap;
	struct cxd_pf_fdp fdp;
};

/**
 * struct cxd_pf_in - what a prefetcher sees of one access.
 * @page:	the demand page (host page number).
 * @trigger:	a demand miss, or the first demand use of a prefetched page.
 * @miss:	a demand miss.
 * @prefetch_hit: the first demand use of a prefetched page.
 * @late:	... whose read was still in flight.
 * @degree:	prefetch_degree as set, pages (cxd_pf_degree() reads it).
 * @distance:	prefetch_distance as set, strides (0 counts as 1).
 * @nlines:	cache lines.
 * @p:		the learned prefetchers' parameters.
 */
struct cxd_pf_in {
	uint64_t page;
	bool trigger;
	bool miss;
	bool prefetch_hit;
	bool late;
	uint32_t degree;
	uint32_t distance;
	uint32_t nlines;
	const struct cxd_pf_params *p;
};

/**
 * struct cxd_pf_run - the prefetches a prefetcher asks for: pages
 * page + @stride * (@dist + i), i = 0 .. @n - 1, stopping where a negative
 * stride would wrap below page 0 (model.c, prefetch_run()).
 * @stride:	pages between prefetched pages (negative: downwards).
 * @dist:	strides from the demand page to the first one.
 * @n:		pages.
 */
struct cxd_pf_run {
	int64_t stride;
	uint32_t dist;
	uint32_t n;
};

/**
 * struct cxd_pf_ops - one prefetcher (enum cxd_prefetch_mode), as the model
 * sees it. Every hook may be NULL (nothing to do). Called by model.c only:
 * @decide after each trigger (and with @every_access after every access
 * that was not busy), the demand page pinned; @issued and @evicted as they
 * happen. Fewer hooks than events on
 * purpose: each costs every access a load and a branch, and the model's
 * cost per miss is budgeted (docs/model-cost.md).
 * @reset:	forget what was learned (at model init).
 * @decide:	learn from the access @in (a miss, a hit, a prefetch hit)
 *		and fill @run. Return: true if @run holds prefetches to issue.
 * @issued:	a prefetch filled a line, evicting @victim (CXD_NO_PAGE:
 *		none), before the victim is counted.
 * @evicted:	a line was evicted (demand, prefetch or drain) and counted.
 * @every_access: @decide learns from plain hits too (the stride streams).
 */
struct cxd_pf_ops {
	void (*reset)(struct cxd_pf_state *s);
	bool (*decide)(struct cxd_pf_state *s, const struct cxd_pf_in *in,
		       struct cxd_pf_run *run);
	void (*issued)(struct cxd_pf_state *s, uint64_t victim);
	void (*evicted)(struct cxd_pf_state *s);
	bool every_access;
};

/* The prefetchers, each defined in its prefetch_*.c. */
extern const struct cxd_pf_ops cxd_pf_next;
extern const struct cxd_pf_ops cxd_pf_stride;
extern const struct cxd_pf_ops cxd_pf_bop;
extern const struct cxd_pf_ops cxd_pf_leap;
extern const struct cxd_pf_ops cxd_pf_fdp;

/**
 * cxd_pf_degree() - the prefetch degree @in asks for, in pages.
 * @in: the access.
 *
 * Return: prefetch_degree, 0 counting as 1 and values above
 * CXD_MAX_PREFETCH_DEGREE clamped to it.
 */
static inline uint32_t cxd_pf_degree(const struct cxd_pf_in *in)
{
	if (!in->degree)
		return 1;
	if (in->degree > CXD_MAX_PREFETCH_DEGREE)
		return CXD_MAX_PREFETCH_DEGREE;
	return in->degree;
}

/*
 * The registry (prefetch.c): ops by enum cxd_prefetch_mode, padded to a
 * power of two with CXD_PF_NONE's, so that any mode indexes it masked.
 */
#define CXD_PF_TABLE	8u
extern const struct cxd_pf_ops *const cxd_pf_table[CXD_PF_TABLE];

/**
 * cxd_pf_ops_of() - the ops of prefetch mode @mode. Inline: the model
 * looks them up once per access.
 * @mode: enum cxd_prefetch_mode; CXD_PF_NONE or an unknown value gives
 *        ops with every hook NULL.
 *
 * Return: the prefetcher's ops, never NULL.
 */
static inline const struct cxd_pf_ops *cxd_pf_ops_of(uint32_t mode)
{
	return mode < CXD_PF_NR ? cxd_pf_table[mode & (CXD_PF_TABLE - 1)] :
				  cxd_pf_table[CXD_PF_NONE];
}

/**
 * cxd_pf_reset() - every prefetcher back to its initial state (no streams,
 * BOP offset 1, no Leap history, FDP level 3, filter empty).
 * @s: state.
 */
void cxd_pf_reset(struct cxd_pf_state *s);

/**
 * cxd_pf_stride_train() - train the stride streams with @page
 * (prefetch_stride.c; FDP trains them too).
 * @s:    state.
 * @page: host page of the access.
 *
 * The stream nearest @page within CXD_PF_WINDOW pages takes it; with none,
 * a free or the least recently used stream starts at @page.
 *
 * Return: the stream's stride in pages once it repeated (confidence 2 or
 * more), else 0.
 */
int64_t cxd_pf_stride_train(struct cxd_pf_state *s, uint64_t page);

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
