/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device parameters, each defined once: its name, where it lives in a
 * configuration, its type, bounds (or names), whether it takes a size
 * suffix, whether it may change while a device is powered, its unit and its
 * default. From this table come the configuration struct both the module
 * and the simulator embed (struct cxd_params), the configfs attributes and
 * their `features` list (driver/configfs.c), cxdvirt-dev's attribute keys
 * (tools/dev/attr.c) and presets (tools/dev/preset.c), cxdvirt-sim's
 * options (tools/sim/options.c), the defaults of a new device, of the
 * simulator and of the model (cxd_model_init_cfg()), and the copies of the
 * live settings into the model (cxd_model_setup(), device.c). Values are
 * parsed and shown by one pair of functions, cxd_param_parse() and
 * cxd_param_format() (driver/model/param.c), in the module and the tools.
 *
 * Names: the configfs attribute is the name; a tool option is the name with
 * '-' for '_' (cache_size is --cache-size).
 *
 * Pure C, no kernel or libc header: it builds into the module and into the
 * tools.
 */
#ifndef CXDVIRT_PARAMS_H
#define CXDVIRT_PARAMS_H

#include "model.h"

/**
 * enum cxd_param_type - how a parameter's value is written and read.
 * @CXD_PT_U64:		unsigned number, decimal or 0x-hex.
 * @CXD_PT_U32:		unsigned number that fits 32 bits.
 * @CXD_PT_INT:		signed number (NUMA node; -1: none).
 * @CXD_PT_BOOL:	0 or 1.
 * @CXD_PT_ENUM:	one of the names of @names (0 .. @max).
 */
enum cxd_param_type {
	CXD_PT_U64,
	CXD_PT_U32,
	CXD_PT_INT,
	CXD_PT_BOOL,
	CXD_PT_ENUM,
};

/* Flags of a parameter. */
#define CXD_P_LIVE	0x1u	/* may change while powered (applied at once) */
#define CXD_P_SUFFIX	0x2u	/* a size: K, M, G or T (binary) accepted */
#define CXD_P_HEX	0x4u	/* shown as 0x-hex (an address) */
#define CXD_P_POW2	0x8u	/* must be a power of two */
#define CXD_P_NUMALIAS	0x10u	/* enum: the index (0, 1) is accepted too */

#define CXD_P_U32_MAX	0xffffffffull
#define CXD_P_U64_MAX	(~(uint64_t)0)
#define CXD_P_S32_MAX	0x7fffffffull

/* Units (the unit column of the table), as messages print them. */
#define CXD_UNIT_none		""
#define CXD_UNIT_bytes		"bytes"
#define CXD_UNIT_ns		"ns"
#define CXD_UNIT_ms		"ms"
#define CXD_UNIT_MBps		"MB/s"
#define CXD_UNIT_pct		"%"
#define CXD_UNIT_permille	"per mille"
#define CXD_UNIT_lines		"lines"
#define CXD_UNIT_pages		"pages"
#define CXD_UNIT_blocks		"blocks"
#define CXD_UNIT_strides	"strides"
#define CXD_UNIT_rounds		"rounds"
#define CXD_UNIT_evictions	"evictions"

/*
 * Bounds of parameters that the model itself does not check. The model's
 * own bound, CXD_MODEL_MAX_CAPACITY: page indices are u32 (struct
 * cxd_model_cfg: npages <= 2^32), so 2^32 pages, 16 TiB; cxdvirt-sim takes
 * up to it. The table's bound of capacity and cache_size,
 * CXD_MAX_CAPACITY, is the module's (configfs, a multiple of 2 MiB): the
 * same 16 TiB, for a device with a NAND image; a RAM-backed device is
 * refused at power-on beyond the host's memory.
 */
#define CXD_MAX_CAPACITY	(1ull << 44)			/* bytes */
#define CXD_MODEL_MAX_CAPACITY	(((uint64_t)1 << 32) * CXD_HOST_PAGE_SIZE)
#define CXD_MAX_GC_BLOCKS	65536u		/* gc_low, gc_high: blocks */
#define CXD_MAX_SCAN_MS		60000u		/* scan_interval_ms */
/*
 * fault_exit_ns: a fault's cost the module cannot timestamp (the return to
 * user space after the devdax handler or node mode's task_work, the
 * exception's delivery before x86's page_fault_user tracepoint). About
 * 0.3-1 us on hardware and 1-3 us in a TCG guest (docs/performance.md rows
 * 2 and 2f); 1 ms bounds a typo.
 */
#define CXD_MAX_FAULT_EXIT_NS	1000000ull
#define CXD_MAX_PERMILLE	1000u
/*
 * gpf_budget_ns: Linux waits at most 20 s for a device's GPF phase 2
 * (drivers/cxl, 6.15); the default 10 ms is a guess (CMM-H's energy budget
 * is not published).
 */
#define CXD_MAX_GPF_NS		20000000000ull
#define CXD_GPF_NS		10000000ull

/*
 * Names of the enum parameters, as functions of the value (NULL past the
 * last): the model's, plus the few the model has no names for.
 */
static inline const char *cxd_pn_policy(unsigned int v)
{
	return cxd_policy_name((enum cxd_policy)v);
}

static inline const char *cxd_pn_prefetch(unsigned int v)
{
	return cxd_prefetch_name((enum cxd_prefetch_mode)v);
}

static inline const char *cxd_pn_writeback(unsigned int v)
{
	return cxd_writeback_name((enum cxd_writeback)v);
}

static inline const char *cxd_pn_persistence(unsigned int v)
{
	return cxd_persistence_name((enum cxd_persistence)v);
}

static inline const char *cxd_pn_stripe(unsigned int v)
{
	return cxd_stripe_name((enum cxd_stripe)v);
}

static inline const char *cxd_pn_ftl(unsigned int v)
{
	return cxd_ftl_name((enum cxd_ftl_mode)v);
}

static inline const char *cxd_pn_write_alloc(unsigned int v)
{
	return cxd_write_alloc_name((enum cxd_write_alloc)v);
}

static inline const char *cxd_pn_xfer_model(unsigned int v)
{
	return cxd_xfer_model_name((enum cxd_xfer_model)v);
}

/*
 * CXD_P_NAMES(fn, names...) defines the names function @fn of an enum the
 * model does not name, from its names in value order.
 */
#define CXD_P_NAMES(fn, ...)						\
static inline const char *fn(unsigned int v)				\
{									\
	static const char *const n_[] = { __VA_ARGS__ };		\
									\
	return v < sizeof(n_) / sizeof(n_[0]) ? n_[v] : NULL;		\
}

/* enum cxd_mode (driver/cxdvirt.h) */
CXD_P_NAMES(cxd_pn_mode, "devdax", "node")
CXD_P_NAMES(cxd_pn_onoff, "off", "on")

/*
 * The table. Each group lists X(grp, name, field, type, min, max, default,
 * flags, unit, names): @grp. @field is the member in struct cxd_params
 * (for CXD_PARAMS_KERNEL, in the module's struct cxd_cfg), @min and @max are inclusive bounds (for an enum 0 and the last
 * value), @unit is a CXD_UNIT_* suffix for messages and documentation,
 * @names is the names function of an enum (else NULL).
 *
 * Default NAND: 8 channels x 4 dies x 1 plane with Samsung Z-NAND SLC timing
 * (tR 3 us, tPROG 100 us; Cheong et al., ISSCC 2018; tBERS 1 ms) on a
 * 1200 MB/s channel, erases not modelled. The default device is 64 MiB: the
 * znand preset's geometry (1024 planes, 768-page blocks) is a large SSD's,
 * and on 64 MiB each of its planes would hold 16 pages, not one block.
 * The module and the simulator start from these same figures.
 */

/* Device and cache. */
#define CXD_PARAMS_DEVICE(X)						\
	X(, capacity, capacity, CXD_PT_U64, CXD_HOST_PAGE_SIZE,		\
	  CXD_MAX_CAPACITY, 64ull << 20, CXD_P_SUFFIX, bytes, NULL)	\
	X(, cache_size, cache_size, CXD_PT_U64, CXD_HOST_PAGE_SIZE,	\
	  CXD_MAX_CAPACITY, 8ull << 20, CXD_P_SUFFIX, bytes, NULL)	\
	X(, ways, ways, CXD_PT_U32, 0, CXD_MAX_LINES, 0, 0, lines, NULL) \
	X(, policy, policy, CXD_PT_ENUM, 0, CXD_POLICY_NR - 1,		\
	  CXD_POLICY_FIFO, CXD_P_LIVE, none, cxd_pn_policy)		\
	X(, cflru_window_pct, cflru_window_pct, CXD_PT_U32, 0, 100,	\
	  CXD_CFLRU_WINDOW_PCT, CXD_P_LIVE, pct, NULL)			\
	X(, seed, seed, CXD_PT_U64, 0, CXD_P_U64_MAX, 0, CXD_P_LIVE, none, NULL)

/*
 * NAND geometry and timing, then the controller's limits in front of it
 * (mshr, ctrl_ns, link_mbps; driver/model/ctrl.c; 0: none, so today's
 * devices keep their timing): members of struct cxd_nand_cfg, so that a
 * preset carries them. Only the cmmh preset sets them (Samsung CMM-H:
 * HotStorage'25 characterisation, quoted in Cylon, FAST'26 section 2):
 * link_mbps CXD_CMMH_LINK_MBPS (22000) fitted on Intel MLC's 22 GB/s at
 * working set / cache 0.33, ctrl_ns CXD_CMMH_CTRL_NS (4300) fitted on
 * 0.84 GB/s at 2.67, mshr 0 (not disclosed); its NAND is the tlc preset's
 * TLC timing with 4 KiB pages; its 800 ns hit (published) is the
 * simulator's --hit-ns, not a parameter: the module's hits run natively.
 * docs/model.md ("Controller and link") and docs/performance.md ("CMM-H
 * fidelity") give the fit.
 */
#define CXD_PARAMS_NAND(X)						\
	X(nand., channels, channels, CXD_PT_U32, 1, CXD_MAX_CHANNELS,	\
	  8, 0, none, NULL)						\
	X(nand., dies_per_channel, dies_per_channel, CXD_PT_U32, 1,	\
	  CXD_MAX_DIES_PER_CH, 4, 0, none, NULL)			\
	X(nand., nand_page_size, nand_page_size, CXD_PT_U32,		\
	  CXD_MIN_NAND_PAGE, CXD_MAX_NAND_PAGE, 4096,			\
	  CXD_P_SUFFIX | CXD_P_POW2, bytes, NULL)			\
	X(nand., t_read_ns, t_read_ns, CXD_PT_U64, 0,			\
	  CXD_MAX_LATENCY_NS, 3000, CXD_P_LIVE, ns, NULL)		\
	X(nand., t_prog_ns, t_prog_ns, CXD_PT_U64, 0,			\
	  CXD_MAX_LATENCY_NS, 100000, CXD_P_LIVE, ns, NULL)		\
	X(nand., channel_mbps, channel_mbps, CXD_PT_U32, 1,		\
	  CXD_MAX_CHANNEL_MBPS, 1200, CXD_P_LIVE, MBps, NULL)		\
	X(nand., planes_per_die, planes_per_die, CXD_PT_U32, 1,		\
	  CXD_MAX_PLANES, 1, 0, none, NULL)				\
	X(nand., pages_per_block, pages_per_block, CXD_PT_U32, 0,	\
	  CXD_MAX_PAGES_PER_BLOCK, 0, 0, pages, NULL)			\
	X(nand., t_bers_ns, t_bers_ns, CXD_PT_U64, 0,			\
	  CXD_MAX_LATENCY_NS, 1000000, CXD_P_LIVE, ns, NULL)		\
	X(nand., xfer_model, xfer_model, CXD_PT_ENUM, 0,		\
	  CXD_XFER_NR - 1, CXD_XFER_EXACT, CXD_P_LIVE, none,		\
	  cxd_pn_xfer_model)						\
	X(nand., stripe, stripe, CXD_PT_ENUM, 0, CXD_STRIPE_NR - 1,	\
	  CXD_STRIPE_CHANNEL, 0, none, cxd_pn_stripe)		\
	X(nand., mshr, mshr, CXD_PT_U32, 0, CXD_MAX_MSHR, 0,		\
	  CXD_P_LIVE, none, NULL)					\
	X(nand., ctrl_ns, ctrl_ns, CXD_PT_U64, 0, CXD_MAX_LATENCY_NS,	\
	  0, CXD_P_LIVE, ns, NULL)					\
	X(nand., link_mbps, link_mbps, CXD_PT_U32, 0,			\
	  CXD_MAX_LINK_MBPS, 0, CXD_P_LIVE, MBps, NULL)

/* FTL: members of struct cxd_ftl_cfg, then the precondition. */
#define CXD_PARAMS_FTL(X)						\
	CXD_PARAMS_FTL_CFG(X)						\
	CXD_PARAMS_FTL_FILL(X)

#define CXD_PARAMS_FTL_CFG(X)						\
	X(ftl., ftl, mode, CXD_PT_ENUM, 0, CXD_FTL_NR - 1, CXD_FTL_OFF,	\
	  0, none, cxd_pn_ftl)						\
	X(ftl., op_pct, op_pct, CXD_PT_U32, 0, CXD_FTL_MAX_OP_PCT,	\
	  CXD_FTL_OP_PCT, 0, pct, NULL)					\
	X(ftl., gc_low, gc_low, CXD_PT_U32, 1, CXD_MAX_GC_BLOCKS,	\
	  CXD_FTL_GC_LOW, 0, blocks, NULL)				\
	X(ftl., gc_high, gc_high, CXD_PT_U32, 1, CXD_MAX_GC_BLOCKS,	\
	  CXD_FTL_GC_HIGH, 0, blocks, NULL)

#define CXD_PARAMS_FTL_FILL(X)						\
	X(, ftl_fill, ftl_fill, CXD_PT_BOOL, 0, 1, 0, 0, none, NULL)

/*
 * Prefetch and write policy: the same members in struct cxd_model, where
 * they may change between calls (all live).
 */
#define CXD_PARAMS_MODEL(X)						\
	X(, prefetch, prefetch, CXD_PT_ENUM, 0, CXD_PF_NR - 1,		\
	  CXD_PF_NONE, CXD_P_LIVE, none, cxd_pn_prefetch)		\
	X(, prefetch_degree, prefetch_degree, CXD_PT_U32, 0,		\
	  CXD_MAX_PREFETCH_DEGREE, 1, CXD_P_LIVE, pages, NULL)		\
	X(, prefetch_distance, prefetch_distance, CXD_PT_U32, 0,	\
	  CXD_PF_WINDOW, 1, CXD_P_LIVE, strides, NULL)			\
	X(, write_alloc, write_alloc, CXD_PT_ENUM, 0, CXD_WA_NR - 1,	\
	  CXD_WA_FETCH, CXD_P_LIVE | CXD_P_NUMALIAS, none,		\
	  cxd_pn_write_alloc)						\
	X(, skip_unwritten, skip_unwritten, CXD_PT_BOOL, 0, 1, 0,	\
	  CXD_P_LIVE, none, NULL)					\
	X(, writeback, writeback, CXD_PT_ENUM, 0, CXD_WB_NR - 1,	\
	  CXD_WB_EVICT, CXD_P_LIVE, none, cxd_pn_writeback)		\
	X(, drain_high_pct, drain_high_pct, CXD_PT_U32, 1, 100, 95,	\
	  CXD_P_LIVE, pct, NULL)					\
	X(, drain_low_pct, drain_low_pct, CXD_PT_U32, 0, 99, 85,	\
	  CXD_P_LIVE, pct, NULL)					\
	X(, persistence, persistence, CXD_PT_ENUM, 0, CXD_PERSIST_NR - 1, \
	  CXD_PERSIST_VOLATILE, CXD_P_LIVE, none, cxd_pn_persistence)	\
	X(, gpf_budget_ns, gpf_budget_ns, CXD_PT_U64, 0, CXD_MAX_GPF_NS, \
	  CXD_GPF_NS, CXD_P_LIVE, ns, NULL)

/*
 * The learned prefetchers (struct cxd_pf_params, pf in both struct
 * cxd_model and the configurations); cxd_pf_params_check() relates them.
 */
#define CXD_PARAMS_PF(X)						\
	X(pf., bop_score_max, bop_score_max, CXD_PT_U32, 1, 255,	\
	  CXD_BOP_SCORE_MAX, CXD_P_LIVE, none, NULL)			\
	X(pf., bop_round_max, bop_round_max, CXD_PT_U32, 1,		\
	  CXD_P_U32_MAX, CXD_BOP_ROUND_MAX, CXD_P_LIVE, rounds, NULL)	\
	X(pf., bop_bad_score, bop_bad_score, CXD_PT_U32, 0, 254,	\
	  CXD_BOP_BAD_SCORE, CXD_P_LIVE, none, NULL)			\
	X(pf., leap_split, leap_split, CXD_PT_U32, 1, CXD_LEAP_HIST,	\
	  CXD_LEAP_SPLIT, CXD_P_LIVE, none, NULL)			\
	X(pf., leap_window_max, leap_window_max, CXD_PT_U32, 1,		\
	  CXD_MAX_PREFETCH_DEGREE, CXD_LEAP_PW_MAX, CXD_P_LIVE, pages,	\
	  NULL)								\
	X(pf., fdp_interval, fdp_interval, CXD_PT_U32, 0,		\
	  CXD_P_U32_MAX, 0, CXD_P_LIVE, evictions, NULL)		\
	X(pf., fdp_accuracy_high, fdp_acc_high, CXD_PT_U32, 0,		\
	  CXD_MAX_PERMILLE, CXD_FDP_ACC_HIGH, CXD_P_LIVE, permille, NULL) \
	X(pf., fdp_accuracy_low, fdp_acc_low, CXD_PT_U32, 0,		\
	  CXD_MAX_PERMILLE, CXD_FDP_ACC_LOW, CXD_P_LIVE, permille, NULL) \
	X(pf., fdp_lateness, fdp_late, CXD_PT_U32, 0, CXD_MAX_PERMILLE,	\
	  CXD_FDP_LATE, CXD_P_LIVE, permille, NULL)			\
	X(pf., fdp_pollution, fdp_poll, CXD_PT_U32, 0, CXD_MAX_PERMILLE, \
	  CXD_FDP_POLL, CXD_P_LIVE, permille, NULL)

/*
 * The module's own: backing memory, node mode, the accessed-bit scan, the
 * fault cost hidden inside the modeled time (fault_exit_ns). Only
 * the module expands this group's defaults (node_latency's is on where the
 * kernel supports it, as the module's modes say; NUMA_NO_NODE is -1).
 */
#define CXD_PARAMS_KERNEL(X)						\
	X(, backing_node, backing_node, CXD_PT_INT, -1, CXD_P_S32_MAX,	\
	  -1, 0, none, NULL)						\
	X(, phys_addr, phys_addr, CXD_PT_U64, 0, CXD_P_U64_MAX, 0,	\
	  CXD_P_SUFFIX | CXD_P_HEX, bytes, NULL)			\
	X(, scan_interval_ms, scan_interval_ms, CXD_PT_U32, 0,		\
	  CXD_MAX_SCAN_MS, 100, CXD_P_LIVE, ms, NULL)			\
	X(, fault_exit_ns, fault_exit_ns, CXD_PT_U64, 0,		\
	  CXD_MAX_FAULT_EXIT_NS, 0, CXD_P_LIVE, ns, NULL)		\
	X(, mode, mode, CXD_PT_ENUM, 0, 1, 0, 0, none, cxd_pn_mode)	\
	X(, target_node, target_node, CXD_PT_INT, -1, CXD_P_S32_MAX,	\
	  -1, 0, none, NULL)						\
	X(, node_latency, node_latency, CXD_PT_ENUM, 0, 1,		\
	  cxd_mode_param_default(CXD_PARAM_node_latency, 1, 0), 0,	\
	  none, cxd_pn_onoff)

/* What the module and the simulator share: the model's parameters. */
#define CXD_PARAMS_SHARED(X)						\
	CXD_PARAMS_DEVICE(X)						\
	CXD_PARAMS_NAND(X)						\
	CXD_PARAMS_FTL(X)						\
	CXD_PARAMS_MODEL(X)						\
	CXD_PARAMS_PF(X)

/* Every parameter: the configfs attributes (with preset, index, power...). */
#define CXD_PARAMS_ALL(X)						\
	CXD_PARAMS_SHARED(X)						\
	CXD_PARAMS_KERNEL(X)

/* The C type of each parameter type, in a configuration. */
#define CXD_P_CTYPE_CXD_PT_U64	uint64_t
#define CXD_P_CTYPE_CXD_PT_U32	uint32_t
#define CXD_P_CTYPE_CXD_PT_INT	int32_t
#define CXD_P_CTYPE_CXD_PT_BOOL	bool
#define CXD_P_CTYPE_CXD_PT_ENUM	uint32_t

/* A member of a configuration, for the rows of an ungrouped list. */
#define CXD_P_FIELD_(g, n, f, t, lo, hi, def, fl, u, nm)		\
	CXD_P_CTYPE_##t f;

/**
 * struct cxd_params - one device's model parameters: a member per row of
 * CXD_PARAMS_SHARED, of the row's type (U64 uint64_t, U32 and ENUM
 * uint32_t, INT int32_t, BOOL bool), generated from the table. The module's
 * struct cxd_cfg and the simulator's struct sim_cfg both embed it as @p;
 * cxd_model_setup() builds a model from it. Units are the table's (sizes in
 * bytes, times in ns, bandwidth in MB/s).
 * @nand:	the NAND rows (CXD_PARAMS_NAND), the model's own struct.
 * @ftl:	the FTL rows (CXD_PARAMS_FTL_CFG), the model's own struct.
 * @pf:		the learned prefetchers' rows (CXD_PARAMS_PF).
 *
 * The other members are the rows of CXD_PARAMS_DEVICE, CXD_PARAMS_FTL_FILL
 * and CXD_PARAMS_MODEL, named by their field column.
 */
struct cxd_params {
	CXD_PARAMS_DEVICE(CXD_P_FIELD_)
	CXD_PARAMS_FTL_FILL(CXD_P_FIELD_)
	CXD_PARAMS_MODEL(CXD_P_FIELD_)
	struct cxd_nand_cfg nand;
	struct cxd_ftl_cfg ftl;
	struct cxd_pf_params pf;
};

#define CXD_P_ID_(g, n, f, t, lo, hi, def, fl, u, nm)	CXD_PARAM_##n,

/** enum cxd_param_id - CXD_PARAM_<name> for each parameter of the table. */
enum cxd_param_id {
	CXD_PARAMS_ALL(CXD_P_ID_)
	CXD_PARAM_NR
};

/**
 * struct cxd_param - one row of the table, for code that walks it.
 * @name:	name (configfs attribute; '-' for '_' as a tool option).
 * @id:		enum cxd_param_id.
 * @type:	enum cxd_param_type.
 * @flags:	CXD_P_*.
 * @min:	smallest value (inclusive).
 * @max:	largest value (inclusive; an enum's last value).
 * @unit:	unit for messages ("" if none).
 * @names:	an enum's names, by value; NULL otherwise.
 */
struct cxd_param {
	const char *name;
	int id;
	int type;
	unsigned int flags;
	int64_t min;
	uint64_t max;
	const char *unit;
	const char *(*names)(unsigned int v);
};

/* Initialiser of a struct cxd_param: CXD_PARAMS_SHARED(CXD_P_DESC_). */
#define CXD_P_DESC_(g, n, f, t, lo, hi, def, fl, u, nm)			\
	{ .name = #n, .id = CXD_PARAM_##n, .type = t, .flags = fl,	\
	  .min = lo, .max = hi, .unit = CXD_UNIT_##u, .names = nm },

/* "NAME out of range" per row, for an array parallel to CXD_P_DESC_'s. */
#define CXD_P_BAD_MSG_(g, n, f, t, lo, hi, def, fl, u, nm)		\
	#n " out of range",

/* A configfs-style list of names: CXD_PARAMS_ALL(CXD_P_NAME_) is "a b ...". */
#define CXD_P_NAME_(g, n, f, t, lo, hi, def, fl, u, nm)	#n " "

/**
 * cxd_param_enum_value() - the value named @s of enum parameter @p.
 * @p:	a CXD_PT_ENUM parameter.
 * @s:	the name, NUL-terminated, exact.
 *
 * The one name lookup of configfs and cxdvirt-sim.
 * Return: the value, 0 .. @p->max, or -1 if @s is none of @p's names.
 */
static inline int cxd_param_enum_value(const struct cxd_param *p,
				       const char *s)
{
	unsigned int i;

	for (i = 0; i <= p->max && p->names(i); i++)
		if (cxd_str_eq(s, p->names(i)))
			return (int)i;
	return -1;
}

/**
 * cxd_param_bad() - is @v outside the bounds of @p?
 * @p:	parameter.
 * @v:	value; for CXD_PT_INT the two's complement of a negative value.
 *
 * Return: NULL if @v is in range, else the reason ("out of range", "not a
 * power of two in"), to be followed by @p's bounds.
 */
static inline const char *cxd_param_bad(const struct cxd_param *p, uint64_t v)
{
	if (p->type == CXD_PT_INT) {
		int64_t s = (int64_t)v;

		if (s < p->min || s > (int64_t)p->max)
			return "out of range";
		return NULL;
	}
	if (v < (uint64_t)p->min || v > p->max)
		return "out of range";
	if ((p->flags & CXD_P_POW2) && (v & (v - 1)))
		return "not a power of two in";
	return NULL;
}

/**
 * cxd_hex_digit() - the value of hexadecimal digit @c.
 * @c:	a character.
 *
 * Inline: cxdvirt-sim's trace parser calls it once per digit, as does
 * cxd_parse_u64().
 * Return: 0..15, or -1 if @c is not a hex digit (either case).
 */
static inline int cxd_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Errors of cxd_parse_u64() and cxd_parse_s64(). */
#define CXD_PARSE_SYNTAX	(-1)
#define CXD_PARSE_RANGE		(-2)

int cxd_parse_u64(const char *s, size_t len, bool suffix, uint64_t *out);
int cxd_parse_s64(const char *s, size_t len, int64_t *out);
int cxd_parse_flag(const char *s, size_t len, bool *on);
const char *cxd_param_parse(const struct cxd_param *p, const char *s,
			    size_t len, uint64_t *v);
char *cxd_param_format(const struct cxd_param *p, uint64_t v, char *buf,
		       size_t len);

/* Bytes cxd_param_format() needs for any value. */
#define CXD_PARAM_FMT_LEN	24

const char *cxd_model_setup_check(const struct cxd_params *p, uint64_t npages,
				  size_t *size);
const char *cxd_model_setup(struct cxd_model *m, const struct cxd_params *p,
			    uint64_t npages, void *mem);

/*
 * Generated code over a configuration: each expects the configuration as
 * the pointer cxd_p_c (and the model as cxd_p_m, the value as cxd_p_v).
 */
#define CXD_P_DEF_(g, n, f, t, lo, hi, def, fl, u, nm)			\
	cxd_p_c->g f = (def);
#define CXD_P_SET_(g, n, f, t, lo, hi, def, fl, u, nm)			\
	case CXD_PARAM_##n: cxd_p_c->g f = cxd_p_v; break;
#define CXD_P_GET_(g, n, f, t, lo, hi, def, fl, u, nm)			\
	case CXD_PARAM_##n: return (uint64_t)cxd_p_c->g f;
#define CXD_P_TO_MODEL_(g, n, f, t, lo, hi, def, fl, u, nm)		\
	cxd_p_m->g f = cxd_p_c->g f;
#define CXD_P_NAND_TO_MODEL_(g, n, f, t, lo, hi, def, fl, u, nm)	\
	if ((fl) & CXD_P_LIVE)						\
		cxd_p_m->nand.cfg.f = cxd_p_c->nand.f;

/**
 * CXD_PARAMS_DEFAULTS() - set every parameter of group list @LIST (e.g.
 * CXD_PARAMS_SHARED) in configuration @c to its default.
 * @c:		struct cxd_params * (CXD_PARAMS_SHARED and its groups), the
 *		module's struct cxd_cfg * (CXD_PARAMS_KERNEL) or, for
 *		CXD_PARAMS_MODEL and CXD_PARAMS_PF, struct cxd_model *.
 * @LIST:	a group list of this file.
 */
#define CXD_PARAMS_DEFAULTS(c, LIST) do {				\
	__typeof__(c) cxd_p_c = (c);					\
	LIST(CXD_P_DEF_)						\
} while (0)

/**
 * CXD_PARAMS_SET() - set parameter @id of @c to @v (already checked).
 * @c:		configuration.
 * @id:		enum cxd_param_id.
 * @v:		value (uint64_t; an INT's two's complement).
 * @LIST:	the group list @c has members for.
 */
#define CXD_PARAMS_SET(c, id, v, LIST) do {				\
	__typeof__(c) cxd_p_c = (c);					\
	uint64_t cxd_p_v = (v);						\
	switch (id) {							\
	LIST(CXD_P_SET_)						\
	default:							\
		break;							\
	}								\
} while (0)

/**
 * CXD_PARAMS_TO_MODEL() - copy the settings that may change between model
 * calls (prefetch, write policy, learned prefetchers, NAND timing) from
 * parameters @c into model @m. O(1); the policy, CFLRU window and seed
 * have their own calls (they reshape or reseed the cache).
 * @m:	struct cxd_model *.
 * @c:	struct cxd_params *.
 */
#define CXD_PARAMS_TO_MODEL(m, c) do {					\
	struct cxd_model *cxd_p_m = (m);				\
	__typeof__(c) cxd_p_c = (c);					\
	CXD_PARAMS_MODEL(CXD_P_TO_MODEL_)				\
	CXD_PARAMS_PF(CXD_P_TO_MODEL_)					\
	CXD_PARAMS_NAND(CXD_P_NAND_TO_MODEL_)				\
} while (0)

#endif /* CXDVIRT_PARAMS_H */
