// SPDX-License-Identifier: GPL-2.0
/*
 * forkt: fork with a device mapped.
 *
 *   forkt DEV NPAGES
 *
 * The parent fills NPAGES pages with pattern A and forks. The child reads
 * them all (pattern A), writes pattern B over the odd pages and re-reads
 * them. The parent waits, then finds B on the odd pages and A on the even
 * ones. With NPAGES above the cache, pages are evicted and faulted back in
 * both processes on the way.
 */
#include "common.h"

#define WORDS 64	/* 512 bytes of pattern per page keep TCG runs short */

static uint64_t verify(volatile char *map, uint64_t n, int odd_seed, int even_seed)
{
	uint64_t bad = 0;

	for (uint64_t i = 0; i < n; i++) {
		int seed = (i & 1) ? odd_seed : even_seed;
		long w = check_page((volatile uint64_t *)(map + i * PAGE), seed, i, WORDS);

		if (w >= 0 && bad++ < 3)
			diag("page %" PRIu64 " word %ld: not pattern %d", i, w, seed);
	}
	return bad;
}

int main(int argc, char **argv)
{
	volatile char *map;
	uint64_t n, bad;
	int status;
	pid_t pid;

	tap_init();
	if (argc != 3) {
		fprintf(stderr, "usage: forkt DEV NPAGES\n");
		return 2;
	}
	n = strtoull(argv[2], NULL, 0);
	map = map_dev(argv[1], n * PAGE, NULL);
	if (!ok(map != NULL, "mmap %" PRIu64 " pages", n))
		return 1;
	for (uint64_t i = 0; i < n; i++)
		fill_page((volatile uint64_t *)(map + i * PAGE), 11, i, WORDS);
	ok(verify(map, n, 11, 11) == 0, "parent reads back its pattern");

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		ok(0, "fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		ok(verify(map, n, 11, 11) == 0, "child reads the parent's pattern");
		for (uint64_t i = 1; i < n; i += 2)
			fill_page((volatile uint64_t *)(map + i * PAGE), 22, i, WORDS);
		ok(verify(map, n, 22, 11) == 0, "child reads back its own writes");
		fflush(stdout);
		_exit(tap_exit());
	}
	if (waitpid(pid, &status, 0) != pid)
		status = -1;
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child exited cleanly (status %#x)", status);
	bad = verify(map, n, 22, 11);
	ok(bad == 0, "parent sees the child's writes on odd pages and its own on even pages");
	munmap((void *)map, n * PAGE);
	return tap_exit();
}
