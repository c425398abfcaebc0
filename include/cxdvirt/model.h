/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt device model: the in-device DRAM cache and the NAND behind it.
 *
 * Units everywhere: time in ns, sizes in bytes, pages are 4 KiB host pages
 * numbered from 0 (the device-relative page frame offset, "pgoff").
 *
 * This header is the model's API: what the module and the tools call and
 * read. The layouts behind it are private to driver/model/ (its *.h files).
 *
 * Memory: the model never allocates. cxd_model_cfg_state_size() says how
 * many bytes of state a model needs; the caller provides a buffer of that
 * size, 8-byte aligned, of any content (kvzalloc in the module, malloc in
 * userspace), and keeps it while the model is in use.
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
/*
 * Bounds of the controller limits (struct cxd_nand_cfg): outstanding misses
 * (the MSHR table's entries, chosen: more than any published CXL-SSD
 * controller discloses) and the host link's bandwidth (MB/s; 1000000 is
 * above a PCIe 6.0 x16 link's 128 GB/s per direction).
 */
#define CXD_MAX_MSHR		256u
#define CXD_MAX_LINK_MBPS	1000000u
/*
 * The cmmh preset's two fitted constants (driver/model/nand.c; the fit:
 * docs/performance.md, "CMM-H fidelity"). Samsung CMM-H's hit latency,
 * about 800 ns (Samsung's HotStorage'25 characterisation, quoted in Cylon,
 * FAST'26 section 2), is cxdvirt-sim's --hit-ns: hits are not the model's
 * to time in the module.
 */
#define CXD_CMMH_LINK_MBPS	22000u	/* fitted: MLC 22 GB/s at ws/cache 0.33 */
#define CXD_CMMH_CTRL_NS	4300u	/* fitted: MLC 0.84 GB/s at ws/cache 2.67 */
#define CXD_CMMH_HIT_NS		800u	/* published: CMM-H hit latency */

/* ---------------------------------------------------------------- NAND -- */

/* Bounds of planes_per_die and pages_per_block. */
#define CXD_MAX_PLANES		16u
#define CXD_MAX_PAGES_PER_BLOCK	65536u

/**
 * enum cxd_xfer_model - how a NAND page transfer's channel time is computed.
 * @CXD_XFER_EXACT:	ceil(bytes * 1000 / channel_mbps) ns, channel_mbps in
 *			MB/s (10^6 bytes/s). The default.
 * @CXD_XFER_NVMEVIRT:	NVMeVirt's channel model (channel_model.c) on an idle
 *			channel: the page moves in 128-byte units, each taking
 *			floor(128 * 10^9 / (channel_mbps * 2^20)) ns, i.e. the
 *			number is read as MiB/s and each unit's time is
 *			truncated. 4096 bytes at "1200" take 32 * 101 = 3232 ns.
 *			For like-for-like comparisons with NVMeVirt-based
 *			emulators only.
 * @CXD_XFER_NR:	number of models.
 */
enum cxd_xfer_model {
	CXD_XFER_EXACT = 0,
	CXD_XFER_NVMEVIRT,
	CXD_XFER_NR,
};

/** cxd_xfer_model_name() - "exact" or "nvmevirt"; NULL if unknown. */
const char *cxd_xfer_model_name(enum cxd_xfer_model x);
/** cxd_xfer_model_parse() - model for @name (exact), or -1. */
int cxd_xfer_model_parse(const char *name);

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
 * @planes_per_die:	planes per die (0 or 1: one plane; at most
 *			CXD_MAX_PLANES). Planes of a die run operations
 *			independently (asynchronous independent plane reads);
 *			they share the die's channel.
 * @pages_per_block:	NAND pages per erase block; 0: erases not modelled.
 *			When set, every pages_per_block-th program of a plane
 *			(the first of each block, from the first program on)
 *			is preceded by a block erase of @t_bers_ns.
 * @t_bers_ns:		tBERS, block erase time (ns).
 * @xfer_model:		enum cxd_xfer_model; 0 is the exact MB/s formula.
 * @stripe:		enum cxd_stripe; 0 is channel-first.
 * @mshr:		the controller's miss status holding registers: at most
 *			this many NAND reads (demand and prefetch) are
 *			outstanding; a read that arrives while @mshr are
 *			starts when the earliest of them completes. 0: no
 *			limit (1..CXD_MAX_MSHR otherwise).
 * @ctrl_ns:		the controller's time per NAND read (ns): reads pass
 *			the controller one at a time, each occupying it this
 *			long before its NAND read starts. 0: none.
 * @link_mbps:		the host link's bandwidth (MB/s): each 4 KiB line
 *			read from NAND takes it for 4096 / link_mbps us, one
 *			at a time, booked when the read leaves the
 *			controller. 0: no link limit (up to
 *			CXD_MAX_LINK_MBPS).
 *
 * Zero in every field from @planes_per_die on means one plane, no erases,
 * the exact transfer formula, channel-first striping and no controller or
 * link limit (the controller fields: driver/model/ctrl.c).
 *
 * Host page p lives in NAND page n = p / (nand_page_size / 4096). By default
 * NAND pages are striped channel-first: channel = n % channels,
 * die = (n / channels) % dies_per_channel,
 * plane = (n / (channels * dies_per_channel)) % planes; @stripe picks
 * another order (enum cxd_stripe).
 */
struct cxd_nand_cfg {
	uint32_t channels;
	uint32_t dies_per_channel;
	uint32_t nand_page_size;
	uint64_t t_read_ns;
	uint64_t t_prog_ns;
	uint32_t channel_mbps;
	uint32_t planes_per_die;
	uint32_t pages_per_block;
	uint64_t t_bers_ns;
	uint32_t xfer_model;
	uint32_t stripe;
	uint32_t mshr;
	uint64_t ctrl_ns;
	uint32_t link_mbps;
};

/**
 * enum cxd_stripe - how consecutive NAND pages spread over the geometry.
 * @CXD_STRIPE_CHANNEL:	channel-first (the default): channel = n % channels,
 *			then die, then plane.
 * @CXD_STRIPE_DIE:	die-first: die = n % dies_per_channel, then channel,
 *			then plane (consecutive pages share a channel).
 * @CXD_STRIPE_PLANE:	plane-first: plane = n % planes, then channel, then
 *			die (consecutive pages share a die, as multi-plane
 *			operations would use them).
 * @CXD_STRIPE_NR:	number of layouts.
 */
enum cxd_stripe {
	CXD_STRIPE_CHANNEL = 0,
	CXD_STRIPE_DIE,
	CXD_STRIPE_PLANE,
	CXD_STRIPE_NR,
};

/** cxd_stripe_name() - "channel", "die", "plane"; NULL if unknown. */
const char *cxd_stripe_name(enum cxd_stripe s);
/** cxd_stripe_parse() - layout for @name (exact), or -1. */
int cxd_stripe_parse(const char *name);

/**
 * struct cxd_nand - NAND timing state: a next-free time per plane and channel.
 * @cfg:	geometry and timing; t_read_ns, t_prog_ns, t_bers_ns,
 *		channel_mbps and xfer_model may be changed between calls.
 * @die_free:	[channels * dies_per_channel * planes] absolute ns at which
 *		each plane is next free; plane p of die d of channel c is at
 *		index (c * dies + d) * planes + p (with one plane: c * dies + d).
 * @chan_free:	[channels] absolute ns at which each channel is next free.
 * @die_busy:	[channels * dies_per_channel] total ns each die's planes were
 *		busy (tR, tPROG, tBERS; summed over planes, so a die with
 *		several planes may be busy longer than the elapsed time).
 * @progs:	[channels * dies * planes] programs per plane, only when
 *		pages_per_block != 0 (else NULL).
 * @reg_page:	[channels * dies * planes] NAND page in each plane's page
 *		register (CXD_NO_PAGE: none), only when nand_page_size >
 *		4096 (else NULL): a read of it skips tR.
 * @erases:	block erases scheduled since the last reset.
 * @ftl:	an FTL decides erases (cxd_nand_gc()); cxd_nand_program()
 *		then never adds one. Set by the model.
 */
struct cxd_nand {
	struct cxd_nand_cfg cfg;
	uint64_t *die_free;
	uint64_t *chan_free;
	uint64_t *die_busy;
	uint64_t *progs;
	uint64_t *reg_page;
	uint64_t erases;
	bool ftl;
};

/**
 * struct cxd_nand_op - where and when one NAND operation ran.
 * @channel:		channel of the NAND page.
 * @die:		die (LUN) of the NAND page within its channel.
 * @start_ns:		when the die started the operation (>= arrival).
 * @done_ns:		completion time (data transferred for a read;
 *			program finished for a write-back).
 * @plane:		plane of the die (0 with one plane).
 */
struct cxd_nand_op {
	uint32_t channel;
	uint32_t die;
	uint64_t start_ns;
	uint64_t done_ns;
	uint32_t plane;
};

/** cxd_nand_cfg_valid() - 0 if @cfg is within the bounds above, else -1. */
int cxd_nand_cfg_valid(const struct cxd_nand_cfg *cfg);
/**
 * cxd_nand_xfer_ns() - channel time of one NAND page.
 * @cfg: NAND configuration (nand_page_size, channel_mbps, xfer_model).
 *
 * Return: ns; with CXD_XFER_EXACT ceil(bytes * 1000 / MBps), see enum
 * cxd_xfer_model.
 */
uint64_t cxd_nand_xfer_ns(const struct cxd_nand_cfg *cfg);
/** cxd_nand_planes() - planes per die of @cfg (1 when planes_per_die is 0). */
uint32_t cxd_nand_planes(const struct cxd_nand_cfg *cfg);
/**
 * struct cxd_preset - a named NAND configuration with its sources.
 * @name:	short name ("znand", "femu", "tlc").
 * @source:	where the figures come from (one line of text).
 * @nand:	the configuration.
 */
struct cxd_preset {
	const char *name;
	const char *source;
	struct cxd_nand_cfg nand;
};

/** cxd_preset_find() - preset called @name (exact), or NULL. */
const struct cxd_preset *cxd_preset_find(const char *name);
/** cxd_preset_at() - the @i-th preset (0-based), NULL past the last. */
const struct cxd_preset *cxd_preset_at(unsigned int i);

/* --------------------------------------------------------------- cache -- */

/**
 * enum cxd_policy - cache replacement policy (per set).
 * @CXD_POLICY_FIFO:	evict the oldest insertion; hits ignored.
 * @CXD_POLICY_LIFO:	evict the newest insertion; hits ignored.
 * @CXD_POLICY_CLOCK:	second chance: a hit sets a reference bit; the hand
 *			(oldest line) clears set bits and moves on.
 * @CXD_POLICY_LRU:	evict the least recently inserted or touched line.
 * @CXD_POLICY_S3FIFO:	S3-FIFO (Yang et al., SOSP'23): small FIFO (10% of
 *			the set), main FIFO with 2-bit frequency, ghost FIFO
 *			of pages recently evicted from the small queue.
 * @CXD_POLICY_RANDOM:	evict a uniformly random line of the set, from a
 *			seeded xorshift64* generator (cxd_cache_set_seed()).
 * @CXD_POLICY_CFLRU:	Clean-First LRU (Park et al., CASES 2006): LRU whose
 *			least recent cflru_window_pct % of each set form the
 *			clean-first window; the least recent clean line of
 *			the window is evicted first, else the least recent
 *			line.
 * @CXD_POLICY_2Q:	2Q (Johnson and Shasha, VLDB 1994), full version:
 *			A1in FIFO (25% of the set), A1out ghost of pages
 *			evicted from A1in (50% of the cache), Am LRU.
 * @CXD_POLICY_NR:	number of policies.
 */
enum cxd_policy {
	CXD_POLICY_FIFO = 0,
	CXD_POLICY_LIFO,
	CXD_POLICY_CLOCK,
	CXD_POLICY_LRU,
	CXD_POLICY_S3FIFO,
	CXD_POLICY_RANDOM,
	CXD_POLICY_CFLRU,
	CXD_POLICY_2Q,
	CXD_POLICY_NR,
};

/** cxd_policy_name() - "fifo", ...; NULL for an unknown value. */
const char *cxd_policy_name(enum cxd_policy p);
/** cxd_policy_parse() - policy for @name (exact, no trailing newline), or -1. */
int cxd_policy_parse(const char *name);

#define CXD_NO_PAGE	(~(uint64_t)0)
/* Upper bound of nlines: the cache numbers its lines with 31 bits. */
#define CXD_MAX_LINES	0x7fffffffu
/**
 * struct cxd_victim - a line the model evicted (cxd_model_access(),
 * cxd_model_drain()); the caller unmaps its page.
 * @page:	the evicted host page (npages <= 2^32).
 * @dirty:	it was dirty; a write-back was scheduled.
 * @prefetched:	it was filled by prefetch and never used by a demand access.
 */
struct cxd_victim {
	uint32_t page;
	bool dirty;
	bool prefetched;
};

struct cxd_line;
struct cxd_cache_set;
struct cxd_policy_ops;

/**
 * struct cxd_cache - the device's DRAM cache: which host pages are resident.
 * @npages:		device capacity in host pages (read-only).
 * @nlines:		cache capacity in lines (read-only).
 * @used:		resident lines (read-only).
 * @policy:		current replacement policy (read-only).
 * @ways:		lines per set (read-only; nlines when fully
 *			associative).
 * @nsets:		number of sets (read-only).
 * @small_cap:		S3-FIFO: small-queue lines per set.
 * @a1in_cap:		2Q: Kin, A1in lines per set.
 * @cflru_window_pct:	CFLRU: clean-first window, % of a set's lines.
 * @cflru_window:	CFLRU: clean-first window, lines per set.
 * @pin_line:		line never evicted (cxd_cache_pin()), or none.
 * @rng:		random policy: xorshift64* state, never 0.
 * @ops:		the current policy's operations.
 * @line_of_page:	[npages] line of each page, or none / a ghost tag,
 *			stored inverted (all zero: no page resident).
 * @lines:		[nlines] the lines.
 * @sets:		[nsets] the sets.
 * @ghost:		[nlines] ring of ghost pages (S3-FIFO, 2Q).
 * @ghost_cap:		slots of @ghost in use under the current policy.
 * @ghost_next:		next slot of @ghost to write.
 * @drain_cursor:	next set the background drain looks at.
 * @visits:		steps (lines, sets, ghost slots) of sweeps and
 *			reshapes, cumulative (read-only; tests bound each
 *			call's work with it).
 * @rs_phase:		reshape phase, 0 if none is under way.
 * @rs_pos:		next set, line or slot of the phase.
 * @rs_policy:		policy the reshape switches to.
 * @rs_pct:		CFLRU window the reshape sets.
 * @dirty_seq:		[nlines] when each dirty line was dirtied, in
 *			dirtyings (@dirty_clock then): the order of a GPF
 *			flush (cxd_model_power_fail()).
 * @dirty_clock:	dirtyings so far (wraps at 2^32: the order holds
 *			over the last 2^31).
 *
 * nlines 4 KiB lines in nsets sets of @ways lines; host page p maps to set
 * p % nsets (fully associative: one set of nlines). O(1) lookup through a
 * per-page table (4 bytes per device page), O(1) insert and touch, O(1)
 * eviction (clock and S3-FIFO: at most CXD_SWEEP_MAX + 1 steps). Policy
 * switches run in bounded steps (cxd_cache_reshape_step()). Fields not
 * marked read-only belong to the cache (driver/model/cache_internal.h
 * describes the layout behind the pointers).
 */
struct cxd_cache {
	uint64_t npages;
	uint32_t nlines;
	uint32_t used;
	enum cxd_policy policy;
	uint32_t ways;
	uint32_t nsets;
	uint32_t small_cap;
	uint32_t a1in_cap;
	uint32_t cflru_window_pct;
	uint32_t cflru_window;
	uint32_t pin_line;
	uint64_t rng;
	const struct cxd_policy_ops *ops;
	uint32_t *line_of_page;
	struct cxd_line *lines;
	uint32_t *dirty_seq;
	uint32_t dirty_clock;
	struct cxd_cache_set *sets;
	uint32_t *ghost;
	uint32_t ghost_cap;
	uint32_t ghost_next;
	uint32_t drain_cursor;
	uint64_t visits;
	uint32_t rs_phase;
	uint32_t rs_pos;
	enum cxd_policy rs_policy;
	uint32_t rs_pct;
};

/*
 * Most lines one clock or S3-FIFO eviction passes over (clearing a
 * reference bit, decrementing a frequency or moving a line from the small
 * to the main queue) before it evicts the line the next step would look
 * at, whatever its bit or frequency: bounds the work of one eviction
 * (docs/model.md, "Bounded sweeps"). A set of at most this many lines never
 * reaches the bound under clock (a quarter of it under S3-FIFO).
 */
#define CXD_SWEEP_MAX	4096u
/* Default CFLRU window: a quarter of each set (see docs/model.md). */
#define CXD_CFLRU_WINDOW_PCT	25u
/**
 * cxd_cache_set_cflru_window() - set CFLRU's clean-first window.
 * @c:   cache, with no reshape pending.
 * @pct: window, % (0..100) of each set's lines (rounded down); 0 makes
 *       CFLRU plain LRU.
 *
 * O(nlines) when CFLRU is the current policy (the window is rebuilt),
 * else O(1).
 *
 * Return: 0, or -1 if @pct > 100 or a reshape is pending (nothing changes).
 */
int cxd_cache_set_cflru_window(struct cxd_cache *c, uint32_t pct);
/**
 * cxd_cache_set_cflru_window_begin() - begin a change of CFLRU's window.
 * @c:   cache, with no reshape pending.
 * @pct: as for cxd_cache_set_cflru_window().
 *
 * As cxd_cache_set_cflru_window(), but the rebuild (under CFLRU) is left
 * to cxd_cache_reshape_step().
 *
 * Return: 0, or -1 if @pct > 100 or a reshape is pending (nothing changes).
 */
int cxd_cache_set_cflru_window_begin(struct cxd_cache *c, uint32_t pct);
/**
 * cxd_cache_set_dirty() - mark resident @page dirty.
 * @c:    cache.
 * @page: host page number.
 *
 * Not an access for the policy (see cxd_cache_touch()).
 *
 * Return: 0, or -1 if @page is not resident (nothing changes).
 */
int cxd_cache_set_dirty(struct cxd_cache *c, uint64_t page);
/**
 * cxd_cache_clear_dirty() - mark resident @page clean, written back in
 * place (cxd_model_flush() calls it). Not an access for the policy.
 * @c:    cache.
 * @page: host page number.
 * Return: 0, or -1 if @page is not resident (nothing changes).
 */
int cxd_cache_clear_dirty(struct cxd_cache *c, uint64_t page);
/**
 * cxd_cache_dirty_pages() - fill @out with up to @max pages of dirty lines
 * (what a volatile cache loses at a power failure), in line order.
 * @c:   cache.
 * @out: [@max] the pages; may be NULL with @max 0 to count only.
 * @max: entries of @out.
 * O(lines). Return: how many lines are dirty (may exceed @max).
 */
uint64_t cxd_cache_dirty_pages(const struct cxd_cache *c, uint64_t *out,
			       uint64_t max);
/* cxd_cache_warm() stages */
#define CXD_WARM_PAGE	0	/* the page's line_of_page[] entry */
#define CXD_WARM_LINE	1	/* its line (reads the entry) */
#define CXD_WARM_LINKS	2	/* its queue neighbours (reads the line) */
/**
 * cxd_cache_warm() - fetch ahead the state an access to @page will read.
 * @c:     cache.
 * @page:  host page of an access a few accesses ahead (replay loops).
 * @stage: CXD_WARM_PAGE, CXD_WARM_LINE or CXD_WARM_LINKS.
 *
 * A hint only: no model state changes and no result depends on it. Call
 * it with CXD_WARM_PAGE, then CXD_WARM_LINE, then CXD_WARM_LINKS, each
 * some accesses before the access (each stage reads what the last one
 * fetched). Any context, the caller's lock held; O(1).
 */
void cxd_cache_warm(const struct cxd_cache *c, uint64_t page,
		    unsigned int stage);
/**
 * cxd_cache_hold() - protect resident @page from eviction while in flight.
 * @c:    cache.
 * @page: host page number.
 *
 * No policy, fill or drain evicts a held line until cxd_cache_release().
 * The module holds a page from its fault's access until the PTE is in
 * place.
 *
 * Return: 0, or -1 if @page is not resident (nothing changes).
 */
int cxd_cache_hold(struct cxd_cache *c, uint64_t page);
/**
 * cxd_cache_release() - end the hold on @page (cxd_cache_hold()).
 * @c:    cache.
 * @page: host page number.
 *
 * Since a held line is never evicted, success also says that the line is
 * the one the holder filled.
 *
 * Return: 0 if @page was resident and held, else -1.
 */
int cxd_cache_release(struct cxd_cache *c, uint64_t page);
/**
 * cxd_cache_resident() - is @page resident?
 * @c:    cache.
 * @page: host page number.
 *
 * Not an access for the policy. Context: the caller's lock held; O(1).
 * Return: true if resident.
 */
bool cxd_cache_resident(const struct cxd_cache *c, uint64_t page);
/**
 * cxd_cache_dirty() - is @page resident and dirty?
 * @c:    cache.
 * @page: host page number.
 *
 * Not an access for the policy. Context: the caller's lock held; O(1).
 * Return: true if resident and dirty.
 */
bool cxd_cache_dirty(const struct cxd_cache *c, uint64_t page);
/**
 * cxd_cache_ready_ns() - when resident @page's data is available.
 * @c:    cache.
 * @page: host page number.
 *
 * Return: absolute time in ns, 0 if @page is not resident.
 */
uint64_t cxd_cache_ready_ns(const struct cxd_cache *c, uint64_t page);
/**
 * cxd_cache_touch() - tell the policy that resident @page was accessed.
 * @c:    cache.
 * @page: host page number; no-op if not resident.
 *
 * Recency or reference bookkeeping (nothing for fifo, lifo and random).
 * cxd_model_access() calls it on every hit.
 */
void cxd_cache_touch(struct cxd_cache *c, uint64_t page);
/**
 * cxd_cache_set_policy() - switch the replacement policy at once.
 * @c:      cache, with no reshape pending.
 * @policy: new policy.
 *
 * Keeps residency and dirty state; O(nlines).
 *
 * Return: 0, or -1 for an unknown policy or a pending reshape.
 */
int cxd_cache_set_policy(struct cxd_cache *c, enum cxd_policy policy);
/**
 * cxd_cache_set_policy_begin() - begin a policy switch.
 * @c:      cache, with no reshape pending.
 * @policy: new policy.
 *
 * The work is done by cxd_cache_reshape_step().
 *
 * Return: 0 (also when @policy is the current one: nothing begun), or -1
 * for an unknown policy or a pending reshape.
 */
int cxd_cache_set_policy_begin(struct cxd_cache *c, enum cxd_policy policy);
/**
 * cxd_cache_reshape_step() - advance a pending policy switch or window change.
 * @c:      cache.
 * @budget: most O(1) steps to do, >= 1.
 *
 * Return: true when none is pending any more.
 */
bool cxd_cache_reshape_step(struct cxd_cache *c, uint32_t budget);
/**
 * cxd_cache_reshaping() - is a policy switch or window change pending?
 * @c: cache.
 *
 * While one is, only cxd_cache_reshape_step(), cxd_cache_release() and
 * the statistics may be used.
 *
 * Return: true if one is pending.
 */
bool cxd_cache_reshaping(const struct cxd_cache *c);

/* ---------------------------------------------------------- statistics -- */

/*
 * Log2 histogram: bucket 0 holds [0, 1024) ns, bucket i >= 1 holds
 * [2^(i+9), 2^(i+10)) ns, the last bucket everything above.
 */
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
 * @misses:		accesses to non-resident pages.
 * @hits:		accesses to resident pages that reached the model
 *			(in the module: faults served from the cache),
 *			including first uses of prefetched pages.
 * @evictions:		lines evicted to make room (demand and prefetch).
 * @dirty_evictions:	evictions of dirty lines.
 * @writebacks:		NAND programs issued for dirty victims.
 * @model_miss_ns:	sum over misses of (completion - arrival), ns.
 * @read_misses:	misses of reads.
 * @write_misses:	misses of writes (fetched or not).
 * @write_allocs:	write misses allocated without a NAND read
 *			(write_alloc = CXD_WA_NOFETCH).
 * @unwritten_skips:	NAND reads skipped because the page was never
 *			written (skip_unwritten), demand and prefetch.
 * @clean_evictions:	evictions of clean lines.
 * @prefetch_issued:	pages inserted by the prefetcher.
 * @prefetch_useful:	prefetched pages used by a demand access before
 *			eviction (prefetch hits).
 * @prefetch_late:	of those, used while their read was still in flight.
 * @prefetch_late_ns:	sum of the waits of late prefetch hits (ns).
 * @prefetch_polluting:	prefetched pages evicted without being used.
 * @queue_ns:		sum over demand NAND reads of read.start_ns - arrival.
 * @drain_evictions:	lines evicted by the background drain (also counted
 *			in evictions).
 * @miss_hist:		log2 histogram of miss latency (done - arrival).
 * @queue_hist:		log2 histogram of the queueing delay of demand reads.
 * @mshr_waits:		NAND reads (demand and prefetch) that waited for a
 *			free MSHR (struct cxd_nand_cfg.mshr) ...
 * @mshr_wait_ns:	... and the sum of those waits (ns).
 * @discards:		resident lines dropped by cxd_model_discard() (the
 *			page left the device; not evictions).
 * @dirty_discards:	of those, dirty lines: write-backs that did not
 *			happen because the data left with the page.
 *
 * Per-die busy time is in struct cxd_nand (die_busy[]), erases in
 * nand.erases; cxd_model_reset_stats() zeroes them too.
 */
struct cxd_model_stats {
	uint64_t misses;
	uint64_t hits;
	uint64_t evictions;
	uint64_t dirty_evictions;
	uint64_t writebacks;
	uint64_t model_miss_ns;
	uint64_t read_misses;
	uint64_t write_misses;
	uint64_t write_allocs;
	uint64_t unwritten_skips;
	uint64_t clean_evictions;
	uint64_t prefetch_issued;
	uint64_t prefetch_useful;
	uint64_t prefetch_late;
	uint64_t prefetch_late_ns;
	uint64_t prefetch_polluting;
	uint64_t queue_ns;
	uint64_t drain_evictions;
	struct cxd_hist miss_hist;
	struct cxd_hist queue_hist;
	uint64_t mshr_waits;
	uint64_t mshr_wait_ns;
	uint64_t discards;
	uint64_t dirty_discards;
};

/* ------------------------------------------------------------ prefetch -- */

/**
 * enum cxd_prefetch_mode - what the prefetcher does.
 * @CXD_PF_NONE:	nothing (the default).
 * @CXD_PF_NEXT:	tagged next-N: on a demand miss, and on the first use
 *			of a prefetched page, fetch pages page+1 ..
 *			page+degree that are not resident.
 * @CXD_PF_STRIDE:	per-stream stride detection: a small table of streams
 *			(CXD_PF_STREAMS), each the last page and stride of a
 *			run of accesses within CXD_PF_WINDOW pages; once a
 *			stride repeated (3 accesses page, page+s, page+2s), a
 *			miss or first use of a prefetched page fetches
 *			page + s * (distance + i), i = 0 .. degree-1.
 * @CXD_PF_BOP:		Best-Offset (Michaud, HPCA 2016): learns, in rounds
 *			over a fixed list of offsets, which offset d would
 *			have found page - d among recent requests, and
 *			prefetches page + d * i, i = 1 .. degree.
 * @CXD_PF_LEAP:	Leap (Maruf and Chowdhury, USENIX ATC 2020): the
 *			majority delta (Boyer-Moore vote) of the recent
 *			trigger history, and a prefetch window sized by the
 *			prefetch hits since the last decision.
 * @CXD_PF_FDP:		feedback-directed (Srinath et al., HPCA 2007): the
 *			stride prefetcher (next-page where no stride is
 *			confirmed) at one of five (distance, degree) levels,
 *			moved each interval by accuracy, lateness and cache
 *			pollution.
 * @CXD_PF_NR:		number of modes.
 */
enum cxd_prefetch_mode {
	CXD_PF_NONE = 0,
	CXD_PF_NEXT,
	CXD_PF_STRIDE,
	CXD_PF_BOP,
	CXD_PF_LEAP,
	CXD_PF_FDP,
	CXD_PF_NR,
};

#define CXD_MAX_PREFETCH_DEGREE	16u
#define CXD_PF_WINDOW		64u	/* pages: largest |stride| tracked */
/* Victims one access can produce: its own and one per prefetched page. */
#define CXD_MAX_VICTIMS		(1u + CXD_MAX_PREFETCH_DEGREE)

/**
 * cxd_str_eq() - are two NUL-terminated strings equal?
 * @a: a string.
 * @b: another string.
 *
 * The model's one string comparison (the model calls no libc), also the
 * name lookup of every enum parameter (cxd_param_enum_value(), params.h).
 * Return: true if equal (exact, case-sensitive).
 */
bool cxd_str_eq(const char *a, const char *b);

/** cxd_prefetch_name() - "none", "next", "stride", "bop", "leap", "fdp"; NULL if unknown. */
const char *cxd_prefetch_name(enum cxd_prefetch_mode mode);
/** cxd_prefetch_parse() - mode for @name (exact), or -1. */
int cxd_prefetch_parse(const char *name);

/*
 * Defaults of struct cxd_pf_params, with their sources:
 * - Best-Offset (Michaud, HPCA 2016, section 4.2 and its DPC-2 code):
 *   SCORE_MAX 31, ROUND_MAX 100, BAD_SCORE 1;
 * - Leap (Maruf and Chowdhury, USENIX ATC 2020): a history of 32 deltas
 *   (Hsize), Nsplit 8 (chosen), a prefetch window of at most 8 pages
 *   (Linux's default swap readahead, the paper's baseline);
 * - FDP (Srinath et al., HPCA 2007) thresholds in per mille: A_high 0.75,
 *   A_low 0.40, T_lateness 0.01, T_pollution 0.005.
 */
#define CXD_BOP_SCORE_MAX	31u
#define CXD_BOP_ROUND_MAX	100u
#define CXD_BOP_BAD_SCORE	1u
#define CXD_LEAP_HIST		32u
#define CXD_LEAP_SPLIT		8u
#define CXD_LEAP_PW_MAX		8u
#define CXD_FDP_ACC_HIGH	750u
#define CXD_FDP_ACC_LOW		400u
#define CXD_FDP_LATE		10u
#define CXD_FDP_POLL		5u

/**
 * struct cxd_pf_params - the learned prefetchers' parameters (set to the
 * defaults above by init; may change between calls; out-of-range values
 * are clamped where used, see cxd_pf_params_check() for the ranges).
 * @bop_score_max:	BOP: a score that ends a phase (1..255; 31).
 * @bop_round_max:	BOP: rounds that end a phase (>= 1; 100).
 * @bop_bad_score:	BOP: best score at or below which prefetching turns
 *			off (< bop_score_max; 1).
 * @leap_split:		Leap: Nsplit, the first trend window is
 *			CXD_LEAP_HIST / leap_split deltas (1..32; 8).
 * @leap_window_max:	Leap: largest prefetch window, pages (1..16; 8).
 * @fdp_interval:	FDP: evictions per interval; 0: half the cache's
 *			lines (the default).
 * @fdp_acc_high:	FDP: accuracy above this is high, per mille (750).
 * @fdp_acc_low:	FDP: accuracy below this is low, per mille (400).
 * @fdp_late:		FDP: lateness above this is late, per mille (10).
 * @fdp_poll:		FDP: pollution above this is polluting, per mille (5).
 */
struct cxd_pf_params {
	uint32_t bop_score_max;
	uint32_t bop_round_max;
	uint32_t bop_bad_score;
	uint32_t leap_split;
	uint32_t leap_window_max;
	uint32_t fdp_interval;
	uint32_t fdp_acc_high;
	uint32_t fdp_acc_low;
	uint32_t fdp_late;
	uint32_t fdp_poll;
};

/**
 * cxd_pf_params_default() - the learned prefetchers' defaults.
 * @p: filled with the papers' defaults (the parameter table's,
 *     include/cxdvirt/params.h, which cites them).
 */
void cxd_pf_params_default(struct cxd_pf_params *p);
/**
 * cxd_pf_params_check() - are the learned prefetchers' parameters valid?
 * @p: parameters.
 *
 * Bounds: the parameter table's (CXD_PARAMS_PF); bop_bad_score below
 * bop_score_max; fdp_accuracy_low below fdp_accuracy_high.
 *
 * Return: NULL if @p is valid, else a one-line reason naming the field.
 */
const char *cxd_pf_params_check(const struct cxd_pf_params *p);

/**
 * enum cxd_write_alloc - what a write miss does.
 * @CXD_WA_FETCH:	read the page from NAND, then write it (the default).
 * @CXD_WA_NOFETCH:	allocate the line without a NAND read (the whole
 *			page is assumed overwritten); done at arrival.
 * @CXD_WA_NR:		number of modes.
 */
enum cxd_write_alloc {
	CXD_WA_FETCH = 0,
	CXD_WA_NOFETCH,
	CXD_WA_NR,
};

/** cxd_write_alloc_name() - "fetch" or "nofetch"; NULL if unknown. */
const char *cxd_write_alloc_name(enum cxd_write_alloc wa);
/** cxd_write_alloc_parse() - mode for @name (exact), or -1. */
int cxd_write_alloc_parse(const char *name);

/**
 * enum cxd_writeback - when dirty lines are written back to NAND.
 * @CXD_WB_EVICT:	when a miss evicts them (the default).
 * @CXD_WB_DRAIN:	also by a background drain: once more than
 *			drain_high_pct of the lines are resident, lines are
 *			evicted (dirty ones written back) until at most
 *			drain_low_pct are, so misses usually find a free line
 *			and do not wait for a write-back (CXDVirt drains
 *			95% -> 85%). The drain runs off the miss path: the
 *			module in a worker, the simulator at the access that
 *			crossed the mark.
 * @CXD_WB_NR:		number of modes.
 */
enum cxd_writeback {
	CXD_WB_EVICT = 0,
	CXD_WB_DRAIN,
	CXD_WB_NR,
};

/**
 * enum cxd_persistence - what the device's DRAM cache keeps at a power
 * failure (cxd_model_power_fail(); the module's power_fail with a NAND
 * image, cxdvirt-sim --power-fail-at).
 * @CXD_PERSIST_VOLATILE: nothing: every dirty line not yet written back is
 *			lost (the default).
 * @CXD_PERSIST_GPF:	CXL Global Persistent Flush (CXL 2.0, 8.2.9.8): the
 *			device programs its dirty lines, oldest-dirtied
 *			first, on stored energy; a line whose program ends
 *			within gpf_budget_ns of the failure is kept, the
 *			rest are lost.
 * @CXD_PERSIST_NR:	number of modes.
 */
enum cxd_persistence {
	CXD_PERSIST_VOLATILE = 0,
	CXD_PERSIST_GPF,
	CXD_PERSIST_NR,
};

/** cxd_persistence_name() - "volatile" or "gpf"; NULL if unknown. */
const char *cxd_persistence_name(enum cxd_persistence p);
/** cxd_persistence_parse() - mode for @name (exact), or -1. */
int cxd_persistence_parse(const char *name);

/** cxd_writeback_name() - "evict" or "drain"; NULL if unknown. */
const char *cxd_writeback_name(enum cxd_writeback wb);
/** cxd_writeback_parse() - mode for @name (exact), or -1. */
int cxd_writeback_parse(const char *name);

/* ----------------------------------------------------------------- FTL -- */

/**
 * enum cxd_ftl_mode - flash translation behind the cache.
 * @CXD_FTL_OFF:	no FTL (the default): logical pages are programmed in
 *			place, no garbage collection; with pages_per_block
 *			set, an erase opens every block (write amplification 1).
 * @CXD_FTL_PAGE:	page-mapped FTL with greedy garbage collection; see
 *			struct cxd_ftl_cfg and docs/model.md.
 * @CXD_FTL_NR:		number of modes.
 */
enum cxd_ftl_mode {
	CXD_FTL_OFF = 0,
	CXD_FTL_PAGE,
	CXD_FTL_NR,
};

/*
 * Default over-provisioning 7%, after MQSim's Overprovisioning_Ratio 0.07
 * (there a share of the whole space, here of the logical pages).
 */
#define CXD_FTL_OP_PCT		7u
/* GC below 2 free blocks of a plane, up to 3 (chosen; docs/model.md). */
#define CXD_FTL_GC_LOW		2u
#define CXD_FTL_GC_HIGH		3u
#define CXD_FTL_MAX_OP_PCT	100u

/**
 * struct cxd_ftl_cfg - FTL configuration (structural: fixed at init).
 * @mode:	enum cxd_ftl_mode; 0 is off (the other fields are ignored).
 * @op_pct:	over-provisioning, % of the logical pages of a plane added
 *		as physical pages (0..CXD_FTL_MAX_OP_PCT).
 * @gc_low:	GC starts when a plane has fewer free blocks than this (>= 1).
 * @gc_high:	... and runs until it has this many (> gc_low).
 *
 * Needs nand.pages_per_block (pages per erase block, >= 2). Each plane
 * keeps the logical pages that stripe to it (the layout of the NAND
 * section, so reads land where they do without an FTL) and has
 * blocks = ceil(ceil(L * (100 + op_pct) / 100) / pages_per_block) blocks,
 * L its logical pages. An FTL page is one NAND page holding one host page.
 */
struct cxd_ftl_cfg {
	uint32_t mode;
	uint32_t op_pct;
	uint32_t gc_low;
	uint32_t gc_high;
};

/**
 * struct cxd_ftl_stats - what the FTL counted since the last reset.
 * @host_writes:	pages written back by the cache (host writes).
 * @nand_writes:	pages programmed: host writes + pages GC moved.
 *			WAF = nand_writes / host_writes.
 * @gc_runs:		blocks reclaimed by garbage collection.
 * @gc_moved:		valid pages GC copied.
 * @gc_stalls:		demand misses whose NAND read waited behind a GC.
 * @gc_stall_ns:	their total wait caused by GC, ns.
 */
struct cxd_ftl_stats {
	uint64_t host_writes;
	uint64_t nand_writes;
	uint64_t gc_runs;
	uint64_t gc_moved;
	uint64_t gc_stalls;
	uint64_t gc_stall_ns;
};

/** cxd_ftl_name() - "off" or "page"; NULL if unknown. */
const char *cxd_ftl_name(enum cxd_ftl_mode mode);
/** cxd_ftl_parse() - mode for @name (exact), or -1. */
int cxd_ftl_parse(const char *name);

/* ---------------------------------------------------------- the model -- */

struct cxd_model_priv;

/**
 * struct cxd_model - one emulated device: cache + NAND + counters.
 * @cache:		the DRAM cache.
 * @nand:		the NAND timing state.
 * @stats:		the counters.
 * @prefetch:		enum cxd_prefetch_mode; may change between calls.
 * @prefetch_degree:	pages per prefetch (1..CXD_MAX_PREFETCH_DEGREE;
 *			0 counts as 1, larger values are clamped).
 * @prefetch_distance:	stride mode: strides ahead of the first prefetched
 *			page (0 counts as 1).
 * @write_alloc:	enum cxd_write_alloc; may change between calls.
 * @skip_unwritten:	a read of a page never written back to NAND since
 *			init costs no NAND time (off by default).
 * @writeback:		enum cxd_writeback; may change between calls.
 * @drain_high_pct:	drain starts above this % of lines resident (1..100).
 * @drain_low_pct:	drain stops at this % (< drain_high_pct).
 * @persistence:	enum cxd_persistence: what a power failure keeps.
 * @gpf_budget_ns:	GPF: how long after the failure a program may end and
 *			still keep its line, ns.
 * @written:		[npages bits] the model's: page was programmed to NAND.
 * @pf:			learned prefetchers' parameters; may change between
 *			calls.
 * @ftl_stats:		FTL counters; cxd_model_reset_stats() zeroes them.
 * @priv:		the model's own state (prefetchers, FTL), in the
 *			state buffer (driver/model/model_internal.h).
 */
struct cxd_model {
	struct cxd_cache cache;
	struct cxd_nand nand;
	struct cxd_model_stats stats;
	uint32_t prefetch;
	uint32_t prefetch_degree;
	uint32_t prefetch_distance;
	uint32_t write_alloc;
	bool skip_unwritten;
	uint32_t writeback;
	uint32_t drain_high_pct;
	uint32_t drain_low_pct;
	uint32_t persistence;
	uint64_t gpf_budget_ns;
	uint8_t *written;
	struct cxd_pf_params pf;
	struct cxd_ftl_stats ftl_stats;
	struct cxd_model_priv *priv;
};

/**
 * struct cxd_model_cfg - structural configuration of a model.
 * @npages:	device capacity in 4 KiB host pages (1..2^32).
 * @nlines:	cache capacity in 4 KiB lines (1..npages).
 * @ways:	lines per set; 0: fully associative. Must divide @nlines.
 * @policy:	initial replacement policy.
 * @nand:	NAND configuration (copied).
 * @ftl:	FTL configuration; all zero: no FTL.
 * @zeroed:	the state memory given to cxd_model_init_cfg() is all zero
 *		(kvzalloc, calloc, a fresh mapping): init leaves the per-page
 *		arrays (the cache's page table, the written-page bitmap)
 *		untouched, so a page costs host memory only once used (a
 *		2^32-page model's 16.5 GiB of per-page state in a fresh
 *		mapping). false: any content, init writes every byte.
 */
struct cxd_model_cfg {
	uint64_t npages;
	uint32_t nlines;
	uint32_t ways;
	enum cxd_policy policy;
	struct cxd_nand_cfg nand;
	struct cxd_ftl_cfg ftl;
	bool zeroed;
};

/**
 * cxd_ftl_check() - can the FTL hold the capacity plus over-provisioning?
 * @cfg: the model's configuration (npages, nand, ftl).
 *
 * Return: NULL if yes (or the FTL is off), else a one-line reason, e.g. too
 * few spare blocks per plane for gc_high.
 */
const char *cxd_ftl_check(const struct cxd_model_cfg *cfg);

#define CXD_ACC_WRITE	0x1u
/* Hold the demand page's line after the access (cxd_cache_hold()). */
#define CXD_ACC_HOLD	0x2u

/**
 * enum cxd_miss_reason - how a miss was served.
 * @CXD_MR_NONE:	not a miss (a hit, or a busy miss that changed nothing).
 * @CXD_MR_READ:	a read miss: the page was read from NAND.
 * @CXD_MR_WRITE:	a write miss: the page was read from NAND, then
 *			written (write_alloc CXD_WA_FETCH).
 * @CXD_MR_WRITE_ALLOC:	a write miss allocated without a NAND read
 *			(write_alloc CXD_WA_NOFETCH).
 * @CXD_MR_UNWRITTEN:	the NAND read was skipped: the page was never
 *			written back (skip_unwritten).
 * @CXD_MR_NR:		number of reasons.
 */
enum cxd_miss_reason {
	CXD_MR_NONE = 0,
	CXD_MR_READ,
	CXD_MR_WRITE,
	CXD_MR_WRITE_ALLOC,
	CXD_MR_UNWRITTEN,
	CXD_MR_NR,
};


/**
 * struct cxd_access - outcome of cxd_model_access().
 * @hit:		page was resident; no NAND read for it.
 * @prefetch_hit:	first demand use of a page brought in by prefetch.
 * @late:		... whose read was still in flight (done_ns > now).
 * @drain:		writeback is CXD_WB_DRAIN and occupancy is above
 *			drain_high_pct: the caller should run
 *			cxd_model_drain() soon, off the miss path.
 * @busy:		a miss found every line of its set held: nothing
 *			changed and nothing was counted; try again once a
 *			holder released its line.
 * @miss:		enum cxd_miss_reason: how a miss was served
 *			(CXD_MR_NONE for a hit or a busy miss).
 * @nvictims:		entries in @victims. Every one must be unmapped by
 *			the caller. The demand page's victim comes first.
 * @nprefetched:	entries in @prefetched.
 * @done_ns:		absolute time at which the data is available: now
 *			for an ordinary hit, the NAND completion for a miss,
 *			the prefetch's completion for a late prefetch hit.
 * @read:		where and when the demand NAND read ran (misses with
 *			a read only; otherwise start = done = now).
 * @victims:		pages evicted by this access and its prefetches. A
 *			page prefetched by this call may appear here too (a
 *			later prefetch of the same call evicted it).
 * @prefetched:		pages the prefetcher made resident in this call
 *			(npages <= 2^32); their data is available at
 *			@prefetch_done_ns[i].
 * @prefetch_done_ns:	completion of each prefetch's NAND read (ns).
 *
 * 376 bytes on x86-64: callers keep it on the stack (the fault handler).
 */
struct cxd_access {
	bool hit;
	bool prefetch_hit;
	bool late;
	bool drain;
	bool busy;
	uint8_t miss;
	uint8_t nvictims;
	uint8_t nprefetched;
	uint64_t done_ns;
	struct cxd_nand_op read;
	struct cxd_victim victims[CXD_MAX_VICTIMS];
	uint32_t prefetched[CXD_MAX_PREFETCH_DEGREE];
	uint64_t prefetch_done_ns[CXD_MAX_PREFETCH_DEGREE];
};

/** cxd_model_cfg_state_size() - bytes of state for @cfg; 0 if invalid. */
size_t cxd_model_cfg_state_size(const struct cxd_model_cfg *cfg);
/** cxd_model_init_cfg() - set up @m for @cfg over @mem. Return: 0 or -1. */
int cxd_model_init_cfg(struct cxd_model *m, const struct cxd_model_cfg *cfg,
		       void *mem);
/**
 * cxd_model_access() - one access to @page at @now_ns.
 * @m:      model; the caller holds its lock.
 * @page:   host page number (< npages; out of range changes nothing).
 * @flags:  CXD_ACC_WRITE, CXD_ACC_HOLD (hold the demand line), or 0.
 * @now_ns: arrival time, absolute ns.
 * @res:    the outcome (required).
 *
 * Hit: counts a hit, tells the policy; a write marks the line dirty; a first
 * use of a prefetched page waits for its read if still in flight. Miss: the
 * page is inserted, evicting within its set if needed (a dirty victim is
 * written back at @now_ns, before the read is scheduled); then the page is
 * read from NAND (unless write_alloc/skip_unwritten say otherwise), dirty if
 * the access is a write. Then the prefetcher may insert more pages, each
 * read at @now_ns after the demand read, each possibly evicting one more.
 * Held lines are never victims; a miss whose set has only held lines sets
 * @res->busy and changes nothing. O(1) (bounded sweeps, see CXD_SWEEP_MAX).
 */
void cxd_model_access(struct cxd_model *m, uint64_t page, unsigned int flags,
		      uint64_t now_ns, struct cxd_access *res);
/**
 * cxd_model_drain() - background write-back drain.
 * @m:      model; the caller holds its lock.
 * @now_ns: when the drain runs (absolute ns).
 * @out:    [@max] the victims; the caller unmaps them.
 * @max:    most lines to evict in this call.
 *
 * While more than drain_low_pct of the lines are resident, evicts lines
 * chosen by the policy (dirty ones written back to NAND at @now_ns).
 *
 * Return: the number of victims (< @max when the low mark was reached).
 */
uint32_t cxd_model_drain(struct cxd_model *m, uint64_t now_ns,
			 struct cxd_victim *out, uint32_t max);
/**
 * cxd_model_power_fail() - a power failure of @m at @now_ns: which dirty
 * lines its persistence mode (m->persistence) keeps and which it loses.
 * @m:       model; the caller holds its lock.
 * @now_ns:  when the power fails (absolute ns).
 * @pages:   [cache.nlines] scratch, filled with the dirty lines' pages:
 *           first the @nsaved kept, in flush order, then the lost ones
 *           (volatile: in line order; GPF: in no particular order).
 * @nsaved:  out: lines a GPF flush kept (0 for a volatile cache).
 *
 * Volatile: every dirty line is lost. GPF: the dirty lines are programmed
 * from @now_ns, oldest-dirtied first, at the modeled tPROG and channel
 * time (queued behind what the dies and channels still have to do); each
 * whose program ends by @now_ns + m->gpf_budget_ns is kept and marked
 * clean, the others stay dirty and are lost. The kept lines' programs are
 * counted in writebacks. O(d log d) for d dirty lines, no allocation.
 *
 * Return: the number of dirty lines at the failure (kept + lost).
 */
uint64_t cxd_model_power_fail(struct cxd_model *m, uint64_t now_ns,
			      uint64_t *pages, uint64_t *nsaved);
/**
 * cxd_model_flush() - write resident dirty @page back to NAND at @now_ns
 * and keep it resident and clean (a persistence barrier: msync on a device
 * with a NAND image). Counted in writebacks. The caller holds the lock.
 * @m:      model.
 * @page:   host page number.
 * @now_ns: when the write-back starts (absolute ns).
 * Return: when the program completes (ns); @now_ns if @page is not
 * resident and dirty (nothing changes).
 */
uint64_t cxd_model_flush(struct cxd_model *m, uint64_t page, uint64_t now_ns);
/**
 * cxd_model_discard() - @page left the device (node mode: migrated off the
 * node): its line leaves the cache with no eviction and no write-back.
 * @m:      model; the caller holds its lock; no reshape pending.
 * @page:   host page number (< npages; out of range changes nothing).
 * @now_ns: when the page left (absolute ns); no NAND operation is
 *          scheduled, so nothing depends on it.
 *
 * A dirty line is dropped, not programmed to NAND (its data went with the
 * page). Later accesses behave as if the line had never been filled: the
 * page misses, the freed line takes its set's next fill before any
 * eviction, S3-FIFO and 2Q do not ghost it (and forget a ghost of @page).
 * Counted in stats.discards and stats.dirty_discards. O(1).
 *
 * Return: true if @page was resident, false if not (only a ghost of it is
 * forgotten).
 */
bool cxd_model_discard(struct cxd_model *m, uint64_t page, uint64_t now_ns);
/** cxd_model_reset_stats() - zero @m->stats, the dies' busy time and erases. */
void cxd_model_reset_stats(struct cxd_model *m);
/**
 * cxd_model_late_writeback() - a victim evicted clean was dirty after all.
 * @m:       model.
 * @page:    the victim's host page.
 * @now_ns:  when its write-back starts.
 * @recount: the eviction was counted (clean) in the current statistics,
 *           i.e. no cxd_model_reset_stats() since.
 *
 * For exposures that learn of a write to a resident page only when it is
 * evicted (node mode reads the PTE's dirty bit then): the page is programmed
 * to NAND at @now_ns (writebacks). With @recount, the eviction counted clean
 * is recounted as dirty (clean_evictions - 1, dirty_evictions + 1); without
 * it the eviction belongs to statistics a reset cleared, and only the
 * write-back is counted, so evictions = clean + dirty still holds.
 */
void cxd_model_late_writeback(struct cxd_model *m, uint64_t page,
			      uint64_t now_ns, bool recount);
/**
 * cxd_model_ftl_fill() - precondition the FTL: map every host page once.
 * @m: model.
 *
 * Pages are mapped in page order, as if each had been written back (no
 * time passes, no counter changes; GC runs as needed). No-op without an
 * FTL. O(npages).
 */
void cxd_model_ftl_fill(struct cxd_model *m);
/** cxd_model_set_seed() - reseed the random policy (same seed, same run). */
void cxd_model_set_seed(struct cxd_model *m, uint64_t seed);
/**
 * cxd_model_hit() - the time of a hit served by the device (simulator).
 * @m:      model.
 * @now_ns: when the hit arrives (ns, absolute).
 * @hit_ns: the device's hit latency (ns) with an idle link, the line's
 *          transfer included.
 *
 * For a replay that charges hits (cxdvirt-sim --hit-ns): the line crosses
 * the host link (link_mbps; one 4 KiB transfer, after the misses and hits
 * already scheduled on it) and the hit completes @hit_ns after its
 * transfer started. The module never calls it: its hits run natively.
 * Counts nothing. O(1).
 *
 * Return: the completion time (ns, absolute), @now_ns + @hit_ns with an
 * idle link or no link limit.
 */
uint64_t cxd_model_hit(struct cxd_model *m, uint64_t now_ns, uint64_t hit_ns);

#endif /* CXDVIRT_MODEL_H */
