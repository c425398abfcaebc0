// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt node mode: the memory tier of a node-mode device's target node.
 *
 * The node's abstract distance is derived from the modeled device
 * (cxd_tier_adistance()) and must be in place before kmem onlines the
 * memory, because kmem decides the node's memory type then:
 *
 * - Up to 6.6, kmem gives a node its default dax memory type unless one is
 *   set first, and on remove clears only its own: cxdvirt sets its own type
 *   before kmem binds (cxd_tier_set()) and clears it after the unbind.
 * - From 6.7 kmem asks the abstract-distance algorithms and builds the
 *   node's type itself, and on remove clears the node's type whoever set it;
 *   a type of our own would then be dropped twice (a NULL dereference under
 *   memory_tier_lock on 6.12 and 7.2). So cxdvirt registers an algorithm
 *   that answers for its target nodes, and kmem does the rest.
 *
 * compat.h's CXD_MT_ALGORITHMS says which of the two this kernel does.
 */
#include <linux/err.h>
#include <linux/math.h>
#include <linux/memory-tiers.h>
#include <linux/minmax.h>
#include <linux/notifier.h>
#include <linux/numa.h>

#include "compat.h"
#include "tier.h"

/* Unloaded DRAM access latency the abstract distance is scaled against. */
#define CXD_DRAM_NS		100
/* Bounds of the modeled miss latency / DRAM latency ratio (see below). */
#define CXD_ADIST_MIN_RATIO	2
#define CXD_ADIST_MAX_RATIO	100

/*
 * Abstract distance per target node of a powered device; 0: not ours.
 * Written under cxd_cfg_mutex, read by kmem through cxd_tier_notify().
 */
static int cxd_tier_adist[MAX_NUMNODES];

/* The abstract-distance algorithm (6.7+): answers for our nodes only. */
static int cxd_tier_notify(struct notifier_block *nb, unsigned long nid,
			   void *data)
{
	int a = nid < MAX_NUMNODES ? READ_ONCE(cxd_tier_adist[nid]) : 0;

	if (!a)
		return NOTIFY_OK;
	*(int *)data = a;
	return NOTIFY_STOP;
}

static struct notifier_block cxd_tier_nb = {
	.notifier_call	= cxd_tier_notify,
	.priority	= 200,	/* ahead of HMAT's (100) for our nodes */
};

/**
 * cxd_tier_init() - module load: where kmem asks abstract-distance
 * algorithms (6.7+), register ours.
 * Context: module init.
 * Return: 0 or the registration's negative errno.
 */
int cxd_tier_init(void)
{
	if (!CXD_MT_ALGORITHMS)
		return 0;
	return register_mt_adistance_algorithm(&cxd_tier_nb);
}

/** cxd_tier_exit() - module unload; no node-mode device is powered. */
void cxd_tier_exit(void)
{
	if (CXD_MT_ALGORITHMS)
		unregister_mt_adistance_algorithm(&cxd_tier_nb);
}

/**
 * cxd_tier_adistance() - abstract distance of a device with NAND @nand.
 * @nand:	the device's NAND geometry and timing.
 *
 * A memory tier groups nodes whose abstract distance falls in one
 * MEMTIER_CHUNK_SIZE chunk; DRAM is MEMTIER_ADISTANCE_DRAM and kmem's
 * default for dax memory is 5x that. DRAM's value is scaled by the ratio of
 * the modeled unloaded miss latency (tR plus the transfer of one NAND page,
 * ns) to a DRAM access (CXD_DRAM_NS, 100 ns), rounded up and bounded to
 * [2, 100]: at least one tier below DRAM, and far below the tier ids
 * overflowing. The Z-NAND default (3 us + 3.4 us) gives 65x.
 *
 * Context: any.
 * Return: the abstract distance (see memory-tiers.h).
 */
int cxd_tier_adistance(const struct cxd_nand_cfg *nand)
{
	u64 miss_ns = nand->t_read_ns + cxd_nand_xfer_ns(nand);
	u64 ratio = DIV_ROUND_UP_ULL(miss_ns, CXD_DRAM_NS);

	ratio = clamp_t(u64, ratio, CXD_ADIST_MIN_RATIO, CXD_ADIST_MAX_RATIO);
	return MEMTIER_ADISTANCE_DRAM * (int)ratio;
}

/**
 * cxd_tier_set() - give node @nid abstract distance @adist, before kmem
 * binds to the node's memory.
 * @nid:	target node.
 * @adist:	abstract distance (cxd_tier_adistance()).
 * @mtype:	receives the memory type set on @nid (up to 6.6), else NULL;
 *		pass it to cxd_tier_clear().
 *
 * Context: process; caller holds cxd_cfg_mutex.
 * Return: 0, or the negative errno of alloc_memory_type().
 */
int cxd_tier_set(int nid, int adist, struct memory_dev_type **mtype)
{
	*mtype = NULL;
	if (!CXD_MT_ALGORITHMS) {
		*mtype = alloc_memory_type(adist);
		if (IS_ERR(*mtype))
			return PTR_ERR(*mtype);
	}
	WRITE_ONCE(cxd_tier_adist[nid], adist);
	if (*mtype)
		init_node_memory_type(nid, *mtype);
	return 0;
}

/**
 * cxd_tier_clear() - undo cxd_tier_set() once kmem has let go of @nid's
 * memory (the platform device is unregistered).
 * @nid:	target node.
 * @mtype:	what cxd_tier_set() returned.
 * Context: process; caller holds cxd_cfg_mutex.
 */
void cxd_tier_clear(int nid, struct memory_dev_type *mtype)
{
	WRITE_ONCE(cxd_tier_adist[nid], 0);
	if (!CXD_MT_ALGORITHMS) {
		clear_node_memory_type(nid, mtype);
		cxd_put_memory_type(mtype);
	}
}
