// SPDX-License-Identifier: GPL-2.0
/*
 * dax-kmem NODE MIB: allocate MIB MiB with memkind's MEMKIND_DAX_KMEM kind
 * (memory of the nodes that kmem onlined from dax devices), write a pattern
 * into every byte, read it back, and ask the kernel (move_pages() with no
 * target nodes) where each page lives: all of them must be on NODE.
 *
 * Prints unnumbered TAP lines for tests/guest/lib.sh run_sub. Built by
 * tests/vm/build-initramfs.sh when libmemkind-dev is installed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <memkind.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHUNK	(1ul << 20)
#define PAGE	4096ul

static int failed;

static void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		failed = 1;
}

static uint64_t pattern(const void *p, size_t i)
{
	return ((uintptr_t)p + i * 8) * 0x9e3779b97f4a7c15ull;
}

int main(int argc, char **argv)
{
	size_t nchunks, npages, i, j, bad = 0, on_node = 0, other = 0, err_pages = 0;
	char **chunks;
	void **pages;
	int *status, node, ret;
	char msg[MEMKIND_ERROR_MESSAGE_SIZE];

	if (argc != 3) {
		fprintf(stderr, "usage: %s NODE MIB\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	node = atoi(argv[1]);
	nchunks = strtoul(argv[2], NULL, 0);

	ret = memkind_check_available(MEMKIND_DAX_KMEM);
	if (ret) {
		memkind_error_message(ret, msg, sizeof(msg));
		ok(0, "MEMKIND_DAX_KMEM is available (%s)", msg);
		return 1;
	}
	ok(1, "MEMKIND_DAX_KMEM is available");

	chunks = calloc(nchunks, sizeof(*chunks));
	/* a chunk that is not page aligned touches CHUNK / PAGE + 1 pages */
	npages = nchunks * (CHUNK / PAGE + 1);
	pages = calloc(npages, sizeof(*pages));
	status = calloc(npages, sizeof(*status));
	if (!chunks || !pages || !status)
		return 1;
	for (i = 0; i < nchunks; i++) {
		chunks[i] = memkind_malloc(MEMKIND_DAX_KMEM, CHUNK);
		if (!chunks[i])
			break;
	}
	ok(i == nchunks, "memkind_malloc(MEMKIND_DAX_KMEM): %zu of %zu MiB", i, nchunks);
	if (i != nchunks)
		return 1;

	for (i = 0; i < nchunks; i++)
		for (j = 0; j < CHUNK / 8; j++)
			((uint64_t *)chunks[i])[j] = pattern(chunks[i], j);
	for (i = 0; i < nchunks; i++)
		for (j = 0; j < CHUNK / 8; j++)
			if (((uint64_t *)chunks[i])[j] != pattern(chunks[i], j))
				bad++;
	ok(!bad, "%zu MiB written and read back (%zu bad words)", nchunks, bad);

	/* memkind's chunks are not page aligned: take every page they touch */
	npages = 0;
	for (i = 0; i < nchunks; i++) {
		uintptr_t a = (uintptr_t)chunks[i] & ~(PAGE - 1);

		for (; a < (uintptr_t)chunks[i] + CHUNK; a += PAGE)
			pages[npages++] = (void *)a;
	}
	ret = syscall(SYS_move_pages, 0, npages, pages, NULL, status, 0);
	ok(ret == 0, "move_pages() query of %zu pages (%s)", npages,
	   ret ? strerror(errno) : "ok");
	for (i = 0; i < npages; i++) {
		if (status[i] == node)
			on_node++;
		else if (status[i] >= 0)
			other++;
		else
			err_pages++;
	}
	printf("# pages: %zu on node %d, %zu on other nodes, %zu not present\n",
	       on_node, node, other, err_pages);
	ok(on_node == npages, "all %zu pages are on node %d", npages, node);

	for (i = 0; i < nchunks; i++)
		memkind_free(MEMKIND_DAX_KMEM, chunks[i]);
	free(chunks);
	free(pages);
	free(status);
	return failed;
}
