/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Node-mode helpers shared by the guest programs that link libnuma
 * (nodelat, remote, swapin).
 */
#ifndef CXDVIRT_GUEST_NODE_H
#define CXDVIRT_GUEST_NODE_H

#include "common.h"

#include <numaif.h>

/*
 * @npages private anonymous pages, 4 KiB only (MADV_NOHUGEPAGE), bound to
 * NUMA node @node (mbind MPOL_BIND). Return: the mapping, or NULL (mbind's
 * error printed as a diagnostic).
 */
static inline void *node_buf(int node, unsigned long npages)
{
	unsigned long mask[16] = { 0 };
	size_t len = npages * PAGE;
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_NOHUGEPAGE);
	mask[node / 64] |= 1ul << (node % 64);
	if (mbind(p, len, MPOL_BIND, mask, sizeof(mask) * 8, 0)) {
		diag("mbind: %s", strerror(errno));
		munmap(p, len);
		return NULL;
	}
	return p;
}

#endif /* CXDVIRT_GUEST_NODE_H */
