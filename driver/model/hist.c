// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt device model: log2 latency histogram.
 *
 * Bucket 0 holds [0, 1024) ns, bucket i >= 1 holds [2^(i+9), 2^(i+10)) ns and
 * the last bucket (CXD_HIST_BUCKETS - 1) everything from 2^(CXD_HIST_BUCKETS
 * + 8) ns up. Pure C: no kernel or libc calls.
 */
#include "cxdvirt/model.h"

/* 1-based index of the most significant set bit; 0 for 0. */
static unsigned int fls_u64(uint64_t v)
{
	unsigned int r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1) {
		v >>= 1;
		r += 1;
	}
	return r + (unsigned int)v;
}

/**
 * cxd_hist_bucket() - bucket index for a latency.
 * @ns: latency in ns.
 *
 * Return: 0 for @ns < 1024, else min(fls(@ns) - 10, CXD_HIST_BUCKETS - 1).
 */
unsigned int cxd_hist_bucket(uint64_t ns)
{
	unsigned int b;

	if (ns < 1024)
		return 0;
	b = fls_u64(ns) - 10;
	return b < CXD_HIST_BUCKETS ? b : CXD_HIST_BUCKETS - 1;
}

/**
 * cxd_hist_lower_ns() - lower bound of a bucket.
 * @i: bucket index.
 *
 * Return: 0 for bucket 0, 2^(@i + 9) ns for 1 <= @i < CXD_HIST_BUCKETS,
 * ~0 (no such bucket) otherwise.
 */
uint64_t cxd_hist_lower_ns(unsigned int i)
{
	if (i == 0)
		return 0;
	if (i >= CXD_HIST_BUCKETS)
		return ~(uint64_t)0;
	return (uint64_t)1 << (i + 9);
}

/**
 * cxd_hist_add() - count one sample.
 * @h:  histogram.
 * @ns: latency in ns.
 */
void cxd_hist_add(struct cxd_hist *h, uint64_t ns)
{
	h->count[cxd_hist_bucket(ns)]++;
}
