// SPDX-License-Identifier: GPL-2.0
/*
 * Targets: what a run maps and measures.
 *
 *   PATH      a cxdvirt device node (its sysfs counters are used) or a
 *             regular file, mapped MAP_SHARED from offset 0
 *   anon      private anonymous memory with the process's policy (so
 *             `numactl --membind=N cxdvirt-bench --target anon` measures
 *             memory of node N)
 *   shm       shared anonymous memory, MAP_SHARED | MAP_ANONYMOUS: shmem
 *             pages, placed by the process's policy as anon's are; unlike
 *             anon, a read fault allocates a real page (no shared zero page)
 *   node:N    private anonymous memory bound to node N with mbind(MPOL_BIND)
 *             (libnuma); the run checks with move_pages() where the pages
 *             landed
 *
 * This memory gets MADV_NOHUGEPAGE unless --thp: a device maps 4 KiB pages,
 * and the baseline should see the same TLB reach. For shm the advice keeps
 * shmem at 4 KiB whatever /sys/kernel/mm/transparent_hugepage/shmem_enabled
 * says (the kernel checks VM_NOHUGEPAGE first, on 6.1 and 6.12); with --thp
 * that setting decides (the default, never: no huge pages), as the THP
 * "enabled" setting decides for anon and node.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

/**
 * target_kind_name() - the name of a target kind in the reports (text, the
 * JSON "kind" key, the CSV kind column).
 * @k:	the kind.
 *
 * Return: "device", "file", "anon", "node" or "shm".
 */
const char *target_kind_name(enum target_kind k)
{
	switch (k) {
	case TGT_DEVICE:
		return "device";
	case TGT_FILE:
		return "file";
	case TGT_ANON:
		return "anon";
	case TGT_NODE:
		return "node";
	case TGT_SHM:
		return "shm";
	}
	return "?";
}

/**
 * target_parse() - a --target or --device argument.
 * Return: 0 or -EINVAL.
 */
int target_parse(const char *spec, struct target *t)
{
	char *end;
	long n;

	memset(t, 0, sizeof(*t));
	t->spec = spec;
	t->fd = -1;
	t->node = -1;
	if (!*spec)
		return -EINVAL;
	if (!strcmp(spec, "anon")) {
		t->kind = TGT_ANON;
	} else if (!strcmp(spec, "shm")) {
		t->kind = TGT_SHM;
	} else if (!strncmp(spec, "node:", 5)) {
		errno = 0;
		n = strtol(spec + 5, &end, 10);
		if (errno || end == spec + 5 || *end || n < 0 || n > 4095)
			return -EINVAL;
		t->kind = TGT_NODE;
		t->node = (int)n;
	} else {
		t->kind = TGT_DEVICE;	/* or TGT_FILE: decided by target_open() */
	}
	snprintf(t->label, sizeof(t->label), "%s", spec);
	return 0;
}

/**
 * target_open() - open a path target and learn its size and counters;
 * check that a node target's node exists.
 * @why:	on failure, the reason (without the program name).
 *
 * Return: 0, or EXIT_ERR / EXIT_USAGE.
 */
int target_open(struct target *t, char *why, size_t len)
{
	struct stat st;

	if (t->kind == TGT_ANON || t->kind == TGT_SHM)
		return 0;
	if (t->kind == TGT_NODE) {
		if (numa_available() < 0) {
			snprintf(why, len, "%s: the kernel has no NUMA support", t->spec);
			return EXIT_ERR;
		}
		if (t->node > numa_max_node() ||
		    !numa_bitmask_isbitset(numa_get_mems_allowed(), (unsigned int)t->node)) {
			snprintf(why, len, "%s: node %d has no memory this process may use",
				 t->spec, t->node);
			return EXIT_ERR;
		}
		devinfo_find_node(t->node, &t->di);
		return 0;
	}
	t->fd = open(t->spec, O_RDWR | O_CLOEXEC);
	if (t->fd < 0) {
		snprintf(why, len, "%s: %s%s", t->spec, strerror(errno),
			 (errno == EACCES || errno == EPERM) && geteuid() ? ": needs root" : "");
		return EXIT_ERR;
	}
	if (fstat(t->fd, &st)) {
		snprintf(why, len, "%s: %s", t->spec, strerror(errno));
		return EXIT_ERR;
	}
	if (S_ISREG(st.st_mode)) {
		t->kind = TGT_FILE;
		t->capacity = (uint64_t)st.st_size;
		memset(&t->di, 0, sizeof(t->di));
	} else if (S_ISCHR(st.st_mode)) {
		t->kind = TGT_DEVICE;
		devinfo_find(t->spec, st.st_rdev, &t->di);
		t->capacity = t->di.capacity;
	} else {
		snprintf(why, len, "%s: not a character device or regular file", t->spec);
		return EXIT_ERR;
	}
	return 0;
}

void target_close(struct target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

/**
 * target_map() - map @len bytes of @t.
 * @t:		the target (opened).
 * @len:	bytes.
 * @thp:	let anon, shm and node memory use transparent huge pages (no
 *		MADV_NOHUGEPAGE); whether they get any is the kernel's THP
 *		setting, shmem_enabled for shm.
 * @err:	-errno on failure.
 *
 * Return: the mapping or NULL.
 */
void *target_map(struct target *t, size_t len, bool thp, int *err)
{
	int flags = t->kind == TGT_SHM ? MAP_SHARED : MAP_PRIVATE;
	void *m;

	*err = 0;
	if (t->kind == TGT_DEVICE || t->kind == TGT_FILE) {
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
		if (m == MAP_FAILED) {
			*err = -errno;
			return NULL;
		}
		return m;
	}
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	if (!thp)
		madvise(m, len, MADV_NOHUGEPAGE);	/* best effort: no THP, no error */
	if (t->kind == TGT_NODE) {
		struct bitmask *bm = numa_bitmask_alloc((unsigned int)numa_max_possible_node() + 1);

		if (!bm) {
			munmap(m, len);
			*err = -ENOMEM;
			return NULL;
		}
		numa_bitmask_setbit(bm, (unsigned int)t->node);
		if (mbind(m, len, MPOL_BIND, bm->maskp, bm->size + 1, 0)) {
			*err = -errno;
			numa_bitmask_free(bm);
			munmap(m, len);
			return NULL;
		}
		numa_bitmask_free(bm);
	}
	return m;
}

/**
 * target_node_check() - how many of the pages of [@base, @base + @len) are
 * on the target's node (TGT_NODE) or on any node (TGT_ANON, TGT_SHM: @on
 * counts pages found at all). At most 4096 pages are sampled, evenly spaced.
 * @t:		the target.
 * @base:	start of the range.
 * @len:	bytes of the range.
 * @page:	page size, bytes.
 * @on:		out: sampled pages on the node (present, for anon and shm).
 * @total:	out: pages sampled.
 *
 * move_pages(2) without target nodes: a page that is not mapped in this
 * process (never touched, the shared zero page of an anon read) is not
 * counted, nor is a page a node-mode device evicted (anon: PROT_NONE,
 * shm: unmapped; docs/numa-mode.md) until its next touch.
 *
 * Return: 0 or -errno.
 */
int target_node_check(const struct target *t, void *base, size_t len,
		      size_t page, uint64_t *on, uint64_t *total)
{
	size_t npages = len / page, n = npages < 4096 ? npages : 4096, i;
	void **pages = calloc(n ? n : 1, sizeof(*pages));
	int *status = calloc(n ? n : 1, sizeof(*status));
	long r;

	*on = *total = 0;
	if (!pages || !status) {
		free(pages);
		free(status);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		pages[i] = (uint8_t *)base + (i * npages / n) * page;
	r = numa_move_pages(0, (unsigned long)n, pages, NULL, status, 0);
	if (!r) {
		for (i = 0; i < n; i++)
			if (status[i] >= 0 && (t->kind != TGT_NODE || status[i] == t->node))
				(*on)++;
		*total = n;
	}
	free(pages);
	free(status);
	return r ? -errno : 0;
}
