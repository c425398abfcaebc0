// SPDX-License-Identifier: GPL-2.0
/*
 * maperr: what the device node refuses.
 *
 *   maperr DEV CAPACITY
 *
 * MAP_PRIVATE -> EINVAL; read()/write() -> EINVAL; the last page below
 * CAPACITY works; pages at and beyond CAPACITY raise SIGBUS; MADV_DONTNEED
 * succeeds and the data survives (as on device-dax).
 */
#include "common.h"

static sigjmp_buf jb;
static volatile sig_atomic_t got_sig;

static void on_sig(int sig)
{
	got_sig = sig;
	siglongjmp(jb, 1);
}

/* 0 if the access worked, else the signal number. */
static int touch(volatile char *p, int write)
{
	got_sig = 0;
	if (sigsetjmp(jb, 1) == 0) {
		if (write)
			*p = 0x5a;
		else
			(void)*p;
	}
	return got_sig;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sig };
	uint64_t cap;
	const char *dev;
	volatile char *map;
	char buf[PAGE];
	size_t len;
	void *p;
	int fd, sig;
	ssize_t n;

	tap_init();
	if (argc != 3) {
		fprintf(stderr, "usage: maperr DEV CAPACITY\n");
		return 2;
	}
	dev = argv[1];
	cap = strtoull(argv[2], NULL, 0);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);

	fd = open(dev, O_RDWR);
	if (!ok(fd >= 0, "open %s", dev))
		return 1;

	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ok(p == MAP_FAILED && errno == EINVAL, "MAP_PRIVATE fails with EINVAL (%s)",
	   p == MAP_FAILED ? errname(errno) : "mapped");
	if (p != MAP_FAILED)
		munmap(p, PAGE);
	p = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
	ok(p == MAP_FAILED && errno == EINVAL, "read-only MAP_PRIVATE fails with EINVAL (%s)",
	   p == MAP_FAILED ? errname(errno) : "mapped");
	if (p != MAP_FAILED)
		munmap(p, PAGE);

	n = read(fd, buf, sizeof(buf));
	ok(n < 0 && errno == EINVAL, "read() fails with EINVAL (%s)", n < 0 ? errname(errno) : "read data");
	memset(buf, 0, sizeof(buf));
	n = write(fd, buf, sizeof(buf));
	ok(n < 0 && errno == EINVAL, "write() fails with EINVAL (%s)", n < 0 ? errname(errno) : "wrote data");

	len = cap + 2 * PAGE;
	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (!ok(map != MAP_FAILED, "MAP_SHARED of capacity + 2 pages: %s",
		map == MAP_FAILED ? errname(errno) : "OK"))
		return 1;

	sig = touch(map + cap - PAGE, 1);
	ok(sig == 0 && map[cap - PAGE] == 0x5a, "last page below capacity is writable (signal %d)", sig);
	sig = touch(map + cap, 0);
	ok(sig == SIGBUS, "read at capacity raises SIGBUS (signal %d)", sig);
	sig = touch(map + cap + PAGE, 1);
	ok(sig == SIGBUS, "write beyond capacity raises SIGBUS (signal %d)", sig);
	sig = touch(map, 1);
	ok(sig == 0, "page 0 still works after the SIGBUS (signal %d)", sig);

	ok(madvise((void *)map, PAGE, MADV_DONTNEED) == 0 && map[0] == 0x5a,
	   "madvise(MADV_DONTNEED) succeeds and page 0 keeps its data");
	munmap((void *)map, len);
	close(fd);
	return tap_exit();
}
