/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt device model: the in-device DRAM cache and the NAND behind it.
 *
 * Units everywhere: time in ns, sizes in bytes, pages are 4 KiB host pages
 * numbered from 0 (the device-relative page frame offset, "pgoff").
 *
 * Memory: the model never allocates. Each object reports how many bytes of
 * state it needs (*_state_size()), the caller provides a zeroed or
 * uninitialised buffer of that size (kvzalloc in the module, calloc in
 * userspace) and keeps it until the object is no longer used.
 *
 * Locking: none inside. One caller-held lock per model instance serialises all
 * calls (the module uses a per-device spinlock; every call is O(1) and never
 * sleeps).
 */
#ifndef CXDVIRT_MODEL_H
#define CXDVIRT_MODEL_H

#include "model_types.h"

#define CXD_HOST_PAGE_SIZE	4096u

/* Bounds shared by configfs, the tools and the model's own validation. */
#define CXD_MAX_CHANNELS	64u
#define CXD_MAX_DIES_PER_CH	64u
#define CXD_MIN_NAND_PAGE	4096u
#define CXD_MAX_NAND_PAGE	65536u
/* Upper bound of every latency attribute: 100 ms. Waits above a few ms sleep. */
#define CXD_MAX_LATENCY_NS	100000000ull
#define CXD_MAX_CHANNEL_MBPS	100000u

/* ---------------------------------------------------------------- NAND -- */

/**
 * struct cxd_nand_cfg - NAND geometry and timing of one device.
 * @channels:		number of channels (1..CXD_MAX_CHANNELS).
 * @dies_per_channel:	dies (LUNs) per channel (1..CXD_MAX_DIES_PER_CH).
 * @nand_page_size:	NAND page size in bytes, a power of two in
 *			[CXD_MIN_NAND_PAGE, CXD_MAX_NAND_PAGE]. A NAND page
 *			holds nand_page_size / 4096 host pages.
 * @t_read_ns:		tR, array read time of one NAND page (ns).
 * @t_prog_ns:		tPROG, program time of one NAND page (ns).
 * @channel_mbps:	channel bandwidth in MB/s (10^6 bytes/s), >= 1.
 *
 * Host page p lives in NAND page n = p / (nand_page_size / 4096). NAND pages
 * are striped channel-first: channel = n % channels,
 * die = (n / channels) % dies_per_channel.
 */
struct cxd_nand_cfg {
	uint32_t channels;
	uint32_t dies_per_channel;
	uint32_t nand_page_size;
	uint64_t t_read_ns;
	uint64_t t_prog_ns;
	uint32_t channel_mbps;
};

/**
 * struct cxd_nand - NAND timing state: a next-free time per die and channel.
 * @cfg:	geometry and timing; timing fields may be changed between calls.
 * @die_free:	[channels * dies_per_channel] absolute ns at which each die
 *		is next free; die d of channel c is at index c * dies + d.
 * @chan_free:	[channels] absolute ns at which each channel is next free.
 * @die_busy:	[channels * dies_per_channel] total ns each die was busy.
 */
struct cxd_nand {
	struct cxd_nand_cfg cfg;
	uint64_t *die_free;
	uint64_t *chan_free;
	uint64_t *die_busy;
};

/**
 * struct cxd_nand_op - where and when one NAND operation ran.
 * @channel, @die:	location of the NAND page.
 * @start_ns:		when the die started the operation (>= arrival).
 * @done_ns:		completion time (data transferred for a read;
 *			program finished for a write-back).
 */
struct cxd_nand_op {
	uint32_t channel;
	uint32_t die;
	uint64_t start_ns;
	uint64_t done_ns;
};

/** cxd_nand_cfg_valid() - 0 if @cfg is within the bounds above, else -1. */
int cxd_nand_cfg_valid(const struct cxd_nand_cfg *cfg);
/** cxd_nand_state_size() - bytes of state cxd_nand_init() needs for @cfg. */
size_t cxd_nand_state_size(const struct cxd_nand_cfg *cfg);
/**
 * cxd_nand_init() - set up @n over @mem (cxd_nand_state_size() bytes, any
 * content); all dies and channels start free at time 0.
 * Return: 0, or -1 if @cfg is invalid.
 */
int cxd_nand_init(struct cxd_nand *n, const struct cxd_nand_cfg *cfg, void *mem);
/** cxd_nand_xfer_ns() - channel time for one NAND page: bytes*1000/MBps, rounded up. */
uint64_t cxd_nand_xfer_ns(const struct cxd_nand_cfg *cfg);
/**
 * cxd_nand_read() - schedule a read of the NAND page holding host @page,
 * arriving at @now_ns: start = max(now, die free); die busy for tR; then
 * the transfer on the channel once it is free. The die is free again after
 * tR (its page register drains over the channel).
 * Return: completion time in ns (absolute). @op, if not NULL, is filled.
 */
uint64_t cxd_nand_read(struct cxd_nand *n, uint64_t page, uint64_t now_ns,
		       struct cxd_nand_op *op);
/**
 * cxd_nand_program() - schedule a write-back of host @page at @now_ns:
 * the transfer on the channel once it is free, then tPROG on the die once
 * the die is free. The die stays busy until the program ends.
 * Return: completion time in ns.
 */
uint64_t cxd_nand_program(struct cxd_nand *n, uint64_t page, uint64_t now_ns,
			  struct cxd_nand_op *op);

/* --------------------------------------------------------------- cache -- */

enum cxd_policy {
	CXD_POLICY_FIFO = 0,
	CXD_POLICY_NR,
};

/** cxd_policy_name() - "fifo", ...; NULL for an unknown value. */
const char *cxd_policy_name(enum cxd_policy p);
/** cxd_policy_parse() - policy for @name (exact, no trailing newline), or -1. */
int cxd_policy_parse(const char *name);

#define CXD_NO_PAGE	(~(uint64_t)0)
/* Private to cache.c: "no line" in line_of_page[] and the queue links. */
#define CXD_NO_LINE	(~(uint32_t)0)
/* Private to cache.c: bits of line_flags[]. */
#define CXD_LINE_DIRTY	0x1u

/**
 * struct cxd_cache - the device's DRAM cache: which host pages are resident.
 *
 * Fully associative, nlines 4 KiB lines. O(1) lookup through a per-page
 * table (4 bytes per device page), O(1) insert and eviction.
 * Fields are private to cache.c except where noted.
 * @npages:	device capacity in host pages (read-only).
 * @nlines:	cache capacity in lines (read-only).
 * @used:	resident lines (read-only).
 */
struct cxd_cache {
	uint64_t npages;
	uint32_t nlines;
	uint32_t used;
	enum cxd_policy policy;
	uint32_t *line_of_page;	/* [npages], CXD_NO_LINE if absent */
	uint64_t *page_of_line;	/* [nlines] */
	uint8_t *line_flags;	/* [nlines] CXD_LINE_* */
	uint32_t *next;		/* [nlines] policy queue links */
	uint32_t *prev;		/* [nlines] */
	uint32_t head, tail;	/* policy queue ends (oldest at head) */
	uint32_t free_head;	/* free-line list through next[] */
};

/**
 * cxd_cache_state_size() - bytes of state for a cache of @nlines over a
 * device of @npages. Return: 0 if the shape is invalid (nlines == 0,
 * nlines > npages, npages >= 2^32).
 */
size_t cxd_cache_state_size(uint64_t npages, uint32_t nlines);
/** cxd_cache_init() - empty cache over @mem. Return: 0 or -1 (bad shape/policy). */
int cxd_cache_init(struct cxd_cache *c, uint64_t npages, uint32_t nlines,
		   enum cxd_policy policy, void *mem);
/** cxd_cache_resident() - true if @page is resident. */
bool cxd_cache_resident(const struct cxd_cache *c, uint64_t page);
/** cxd_cache_dirty() - true if @page is resident and dirty. */
bool cxd_cache_dirty(const struct cxd_cache *c, uint64_t page);
/**
 * cxd_cache_set_dirty() - mark resident @page dirty.
 * Return: 0, or -1 if @page is not resident (nothing changes).
 */
int cxd_cache_set_dirty(struct cxd_cache *c, uint64_t page);
/**
 * cxd_cache_insert() - make absent @page resident (clean). If the cache is
 * full, the policy evicts a victim first.
 * Return: the evicted page and *@victim_dirty, or CXD_NO_PAGE if none.
 */
uint64_t cxd_cache_insert(struct cxd_cache *c, uint64_t page, bool *victim_dirty);
/**
 * cxd_cache_touch() - tell the policy that resident @page was accessed
 * (recency/reference bookkeeping; nothing for fifo). No-op if @page is not
 * resident. cxd_model_access() calls it on every hit.
 */
void cxd_cache_touch(struct cxd_cache *c, uint64_t page);
/** cxd_cache_set_policy() - switch policy keeping residency. Return: 0 or -1. */
int cxd_cache_set_policy(struct cxd_cache *c, enum cxd_policy policy);

/* ---------------------------------------------------------- statistics -- */

/* Log2 histogram: bucket 0 holds [0, 1024) ns, bucket i >= 1 holds
 * [2^(i+9), 2^(i+10)) ns, the last bucket everything above. */
#define CXD_HIST_BUCKETS	24

struct cxd_hist {
	uint64_t count[CXD_HIST_BUCKETS];
};

/** cxd_hist_bucket() - bucket index for @ns. */
unsigned int cxd_hist_bucket(uint64_t ns);
/** cxd_hist_lower_ns() - lower bound in ns of bucket @i. */
uint64_t cxd_hist_lower_ns(unsigned int i);
/** cxd_hist_add() - count one sample of @ns. */
void cxd_hist_add(struct cxd_hist *h, uint64_t ns);

/**
 * struct cxd_model_stats - what the model counted since the last reset.
 * @misses:		accesses to non-resident pages (one NAND read each).
 * @hits:		accesses to resident pages that reached the model
 *			(in the module: faults served from the cache).
 * @evictions:		lines evicted to make room.
 * @dirty_evictions:	evictions of dirty lines.
 * @writebacks:		NAND programs issued for dirty victims.
 * @model_miss_ns:	sum over misses of (completion - arrival), ns.
 */
struct cxd_model_stats {
	uint64_t misses;
	uint64_t hits;
	uint64_t evictions;
	uint64_t dirty_evictions;
	uint64_t writebacks;
	uint64_t model_miss_ns;
};

/* ---------------------------------------------------------- the model -- */

/** struct cxd_model - one emulated device: cache + NAND + counters. */
struct cxd_model {
	struct cxd_cache cache;
	struct cxd_nand nand;
	struct cxd_model_stats stats;
};

#define CXD_ACC_WRITE	0x1u

/**
 * struct cxd_access - outcome of cxd_model_access().
 * @hit:		page was resident; no NAND time.
 * @victim:		page evicted to make room, or CXD_NO_PAGE. The caller
 *			must unmap it from every mapping.
 * @victim_dirty:	the victim was dirty; a write-back was scheduled.
 * @done_ns:		absolute time at which the data is available
 *			(== now for a hit).
 * @read:		where and when the NAND read ran (misses only).
 */
struct cxd_access {
	bool hit;
	uint64_t victim;
	bool victim_dirty;
	uint64_t done_ns;
	struct cxd_nand_op read;
};

/** cxd_model_state_size() - bytes of state for the whole model. 0 if invalid. */
size_t cxd_model_state_size(uint64_t npages, uint32_t nlines,
			    const struct cxd_nand_cfg *nand);
/** cxd_model_init() - set up @m over @mem. Return: 0, or -1 if invalid. */
int cxd_model_init(struct cxd_model *m, uint64_t npages, uint32_t nlines,
		   const struct cxd_nand_cfg *nand, enum cxd_policy policy,
		   void *mem);
/**
 * cxd_model_access() - one access to @page at @now_ns.
 * Hit: counts a hit; a write marks the line dirty. Miss: if the cache is full
 * the policy evicts a victim (a dirty victim is written back to its die at
 * @now_ns, before the read is scheduled); then the page is read from NAND and
 * inserted, dirty if the access is a write.
 * @flags: CXD_ACC_WRITE or 0.
 */
void cxd_model_access(struct cxd_model *m, uint64_t page, unsigned int flags,
		      uint64_t now_ns, struct cxd_access *res);
/** cxd_model_reset_stats() - zero @m->stats and the dies' busy time. */
void cxd_model_reset_stats(struct cxd_model *m);

#endif /* CXDVIRT_MODEL_H */
