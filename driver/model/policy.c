// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: the registry of replacement policies. Each policy
 * is a struct cxd_policy_ops in its own policy_*.c; the cache core
 * (cache.c) reaches them only through this table.
 *
 * Pure C: no kernel or libc calls.
 */
#include "cache_internal.h"
#include "names.h"

static const struct cxd_policy_ops *const cxd_policies[CXD_POLICY_NR] = {
	[CXD_POLICY_FIFO]	= &cxd_policy_fifo,
	[CXD_POLICY_LIFO]	= &cxd_policy_lifo,
	[CXD_POLICY_CLOCK]	= &cxd_policy_clock,
	[CXD_POLICY_LRU]	= &cxd_policy_lru,
	[CXD_POLICY_S3FIFO]	= &cxd_policy_s3fifo,
	[CXD_POLICY_RANDOM]	= &cxd_policy_random,
	[CXD_POLICY_CFLRU]	= &cxd_policy_cflru,
	[CXD_POLICY_2Q]		= &cxd_policy_2q,
};

static const char *const cxd_policy_names[CXD_POLICY_NR] = {
	[CXD_POLICY_FIFO]	= "fifo",
	[CXD_POLICY_LIFO]	= "lifo",
	[CXD_POLICY_CLOCK]	= "clock",
	[CXD_POLICY_LRU]	= "lru",
	[CXD_POLICY_S3FIFO]	= "s3fifo",
	[CXD_POLICY_RANDOM]	= "random",
	[CXD_POLICY_CFLRU]	= "cflru",
	[CXD_POLICY_2Q]		= "2q",
};

const struct cxd_policy_ops *cxd_policy_ops_of(enum cxd_policy p)
{
	return cxd_policies[p];
}

CXD_NAMED_ENUM(cxd_policy, enum cxd_policy, cxd_policy_names, CXD_POLICY_NR)
