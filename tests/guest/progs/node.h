/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Node-mode helpers shared by the guest programs that link libnuma
 * (nodelat, remote, swapin, unseen).
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

/*
 * The node of the page at @addr: move_pages(2)'s status with no target
 * node (a node, or a -errno), -1 if the call fails.
 */
static inline int page_node(void *addr)
{
	int status = -1;
	void *pages[1] = { addr };

	if (move_pages(0, 1, pages, NULL, &status, 0))
		return -1;
	return status;
}

/* node_latency/NAME of device DEV, as dev_stat() reads stats/NAME. */
static inline int64_t nl_stat(const char *dev, const char *name)
{
	char p[256], rel[128];

	snprintf(rel, sizeof(rel), "node_latency/%s", name);
	sys_path(p, sizeof(p), dev, rel);
	return read_i64(p);
}

/*
 * Empty the device cache of every line that was there before: write one
 * word of each page of a second buffer of 2 x the cache's lines, then unmap
 * it. Pages freed by earlier programs may come back to this one while their
 * lines are still cached (a first touch then hits, as it would on the
 * device), and a FIFO started from such an arbitrary order does not thrash
 * on a cyclic scan: it settles into a cycle of fewer misses. Of the
 * buffer's first touches at most "lines" can hit, so at least "lines" miss,
 * and FIFO and LRU both evict every older line (the caller's buffer,
 * allocated and not touched meanwhile, included) before any of these.
 * Return: 0, or -1 (with a TAP failure) if the buffer cannot be had.
 */
static inline int flush_cache(int node, const char *dev)
{
	char p[256];
	int64_t lines;
	unsigned long n, i;
	volatile char *x;

	sys_path(p, sizeof(p), dev, "cache_size");
	lines = read_i64(p) / PAGE;
	n = 2 * (unsigned long)(lines > 0 ? lines : 0);
	x = n ? node_buf(node, n) : NULL;
	if (!ok(x != NULL, "flush buffer of %lu pages (2 x the cache's lines)", n))
		return -1;
	for (i = 0; i < n; i++)
		x[i * PAGE] = 1;
	munmap((void *)x, n * PAGE);
	return 0;
}

/*
 * Pages among the @n at @b that are non-resident device-exclusive entries
 * (7.2's evicted pages) of a frame on @node: /proc/self/pagemap shows such
 * an entry as "swapped" (bit 62, not present) with a swap type of the
 * kernel's special entries (>= 24: MAX_SWAPFILES on Debian's x86-64
 * configs) and, for root, the frame in the offset (bits 5-54). The frame's
 * node: its memory block's link under /sys/devices/system/node/node@node.
 */
static inline unsigned long on_node_nonresident(volatile uint64_t *b,
						 unsigned long n, int node)
{
	unsigned long c = 0, i, block = 0;
	char path[128];
	uint64_t e;
	FILE *f;
	int fd;

	f = fopen("/sys/devices/system/memory/block_size_bytes", "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lx", &block) != 1)
		block = 0;
	fclose(f);
	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0 || !block)
		goto out;
	for (i = 0; i < n; i++) {
		unsigned long va = (unsigned long)b + i * PAGE, pfn;

		if (pread(fd, &e, sizeof(e), (va / PAGE) * sizeof(e)) != sizeof(e))
			break;
		if ((e >> 63) & 1 || !((e >> 62) & 1) || (e & 31) < 24)
			continue;
		pfn = (e >> 5) & ((1ull << 50) - 1);
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/memory%lu",
			 node, pfn * PAGE / block);
		c += !access(path, F_OK);
	}
out:
	if (fd >= 0)
		close(fd);
	return c;
}

/*
 * Pages of the mapping at @b (@n pages) that are on @node:
 * /proc/self/numa_maps's count, which includes PROT_NONE pages (6.1, 6.12)
 * but not device-exclusive entries (7.2: on_node_nonresident() adds those);
 * move_pages(2) reports an evicted page as absent on 6.1 and 7.2
 * (docs/numa-mode.md, measured by 79-node-unseen).
 */
static inline unsigned long on_node(volatile uint64_t *b, unsigned long n, int node)
{
	char line[4096], key[32], addr[32];
	unsigned long c = on_node_nonresident(b, n, node);
	FILE *f = fopen("/proc/self/numa_maps", "r");
	char *k;

	if (!f)
		return c;
	snprintf(addr, sizeof(addr), "%lx ", (unsigned long)b);
	snprintf(key, sizeof(key), " N%d=", node);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, addr, strlen(addr)))
			continue;
		k = strstr(line, key);
		if (k)
			c += strtoul(k + strlen(key), NULL, 10);
		break;
	}
	fclose(f);
	return c;
}

/* Wait until stats/misses and writebacks stop moving (at most 10 s). */
static inline void settle(const char *dev)
{
	int64_t m = -1, w = -1;
	int i;

	for (i = 0; i < 100; i++) {
		int64_t m2 = dev_stat(dev, "misses"), w2 = dev_stat(dev, "writebacks");

		if (m2 == m && w2 == w)
			return;
		m = m2;
		w = w2;
		usleep(100000);
	}
}

#endif /* CXDVIRT_GUEST_NODE_H */
