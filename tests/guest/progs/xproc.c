// SPDX-License-Identifier: GPL-2.0
/*
 * xproc: two processes, each with its own open() and mmap() of one device.
 *
 *   xproc DEV NPAGES EVICT_FIRST EVICT_COUNT
 *
 * The parent writes pattern 5 over pages 0..NPAGES-1 through its mapping.
 * The child (its own open and mmap, nothing inherited) reads them back: hits
 * in the shared cache, no new miss. The child then reads EVICT_COUNT pages
 * from EVICT_FIRST, more than the cache holds, which evicts the parent's
 * pages and must unmap them from the parent too. The parent, whose mapping
 * is untouched meanwhile, reads its pages again: each one faults (a miss)
 * and the data written before the eviction is back.
 */
#include "common.h"

static void step(int fd_w, int fd_r)
{
	char c = 1;

	if (fd_w >= 0 && write(fd_w, &c, 1) != 1)
		_exit(3);
	if (fd_r >= 0 && read(fd_r, &c, 1) != 1)
		_exit(3);
}

static uint64_t verify(volatile char *map, uint64_t n)
{
	uint64_t bad = 0;

	for (uint64_t i = 0; i < n; i++)
		if (check_page((volatile uint64_t *)(map + i * PAGE), 5, i, PAGE / 8) >= 0)
			bad++;
	return bad;
}

int main(int argc, char **argv)
{
	uint64_t n, ef, ec;
	int p2c[2], c2p[2], status;
	int64_t m0, m1, h0, h1, e0, e1;
	volatile char *map;
	const char *dev;
	pid_t pid;

	tap_init();
	if (argc != 5) {
		fprintf(stderr, "usage: xproc DEV NPAGES EVICT_FIRST EVICT_COUNT\n");
		return 2;
	}
	dev = argv[1];
	n = strtoull(argv[2], NULL, 0);
	ef = strtoull(argv[3], NULL, 0);
	ec = strtoull(argv[4], NULL, 0);
	if (pipe(p2c) || pipe(c2p))
		return 2;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		volatile char *m2;
		int64_t a, b;

		close(p2c[1]);
		close(c2p[0]);
		m2 = map_dev(dev, (ef + ec) * PAGE, NULL);
		if (!ok(m2 != NULL, "child: own mmap"))
			_exit(1);
		step(-1, p2c[0]);		/* parent has written */
		a = dev_stat(dev, "misses");
		ok(verify(m2, n) == 0, "child reads the parent's data");
		b = dev_stat(dev, "misses");
		ok(a == b, "child's reads hit the shared cache (misses %" PRId64 " -> %" PRId64 ")", a, b);
		step(c2p[1], p2c[0]);
		for (uint64_t i = 0; i < ec; i++)
			(void)m2[(ef + i) * PAGE];
		fflush(stdout);
		step(c2p[1], -1);		/* evicted */
		_exit(tap_exit());
	}
	close(p2c[0]);
	close(c2p[1]);

	map = map_dev(dev, n * PAGE, NULL);
	if (!ok(map != NULL, "parent: mmap %" PRIu64 " pages", n))
		return 1;
	dev_stats_reset(dev);
	for (uint64_t i = 0; i < n; i++)
		fill_page((volatile uint64_t *)(map + i * PAGE), 5, i, PAGE / 8);
	m0 = dev_stat(dev, "misses");
	ok(m0 == (int64_t)n, "parent's writes missed once per page (%" PRId64 ")", m0);
	step(p2c[1], c2p[0]);	/* child verified */
	h0 = dev_stat(dev, "minor_hits");
	ok(h0 >= (int64_t)n, "child's first touches counted as minor hits (%" PRId64 ")", h0);
	e0 = dev_stat(dev, "dirty_evictions");
	step(p2c[1], c2p[0]);	/* child evicted */
	e1 = dev_stat(dev, "dirty_evictions");
	ok(e1 - e0 >= (int64_t)n, "the %" PRIu64 " dirty pages were evicted (dirty_evictions +%" PRId64 ")",
	   n, e1 - e0);
	ok(dev_stat(dev, "writebacks") > 0, "dirty victims were written back (writebacks %" PRId64 ")",
	   dev_stat(dev, "writebacks"));

	m0 = dev_stat(dev, "misses");
	h1 = verify(map, n);
	m1 = dev_stat(dev, "misses");
	ok(h1 == 0, "parent reads its data back after the eviction (%" PRId64 " bad pages)", h1);
	ok(m1 - m0 == (int64_t)n,
	   "each evicted page faulted again in the parent: unmapped everywhere (misses +%" PRId64 ", want %" PRIu64 ")",
	   m1 - m0, n);
	if (waitpid(pid, &status, 0) != pid)
		status = -1;
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child finished (status %#x)", status);
	munmap((void *)map, n * PAGE);
	return tap_exit();
}
