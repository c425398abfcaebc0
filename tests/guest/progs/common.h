/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest test programs: TAP output, sysfs/configfs
 * access, device mapping, page patterns and time.
 *
 * The programs print unnumbered TAP lines ("ok - ...", "not ok - ...",
 * "# ...") with no plan; tests/guest/lib.sh (run_sub) numbers them into the
 * calling script's stream.
 */
#ifndef CXDVIRT_GUEST_COMMON_H
#define CXDVIRT_GUEST_COMMON_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096ul

static int tap_failed __attribute__((unused));

static inline void tap_init(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	setvbuf(stderr, NULL, _IOLBF, 0);
}

static inline void __attribute__((format(printf, 1, 2))) diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static inline int __attribute__((format(printf, 2, 3))) ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		tap_failed = 1;
	return cond;
}

static inline int tap_exit(void)
{
	return tap_failed ? 1 : 0;
}

static inline const char *errname(int e)
{
	const char *n;

	if (e == 0)
		return "OK";
	n = strerrorname_np(e);
	return n ? n : "E?";
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Write VALUE to a sysfs/configfs file in one write(); 0 or an errno. */
static inline int write_attr(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int e = 0;

	if (fd < 0)
		return errno;
	n = write(fd, value, strlen(value));
	if (n < 0)
		e = errno;
	else if ((size_t)n != strlen(value))
		e = EIO;
	close(fd);
	return e;
}

/* Read a file into BUF (trailing newline removed); 0 or an errno. */
static inline int read_attr(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return errno;
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

static inline int64_t read_i64(const char *path)
{
	char buf[64];

	if (read_attr(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 0);
}

/* /dev/cxdvirtN -> /sys/class/cxdvirt/cxdvirtN/REL */
static inline void sys_path(char *out, size_t len, const char *dev, const char *rel)
{
	const char *base = strrchr(dev, '/');

	snprintf(out, len, "/sys/class/cxdvirt/%s/%s", base ? base + 1 : dev, rel);
}

static inline int64_t dev_stat(const char *dev, const char *name)
{
	char p[256], rel[128];

	snprintf(rel, sizeof(rel), "stats/%s", name);
	sys_path(p, sizeof(p), dev, rel);
	return read_i64(p);
}

static inline int dev_stats_reset(const char *dev)
{
	char p[256];

	sys_path(p, sizeof(p), dev, "stats/reset");
	return write_attr(p, "1");
}

/* Map LEN bytes of DEV shared, read-write; NULL (and errno) on failure. */
static inline void *map_dev(const char *dev, size_t len, int *fdp)
{
	int fd = open(dev, O_RDWR);
	void *p;

	if (fd < 0)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		int e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	return p;
}

/* The value of 64-bit word W of page PG in the pattern SEED (splitmix64). */
static inline uint64_t pattern(uint64_t seed, uint64_t pg, uint64_t w)
{
	uint64_t z = seed * 0x9e3779b97f4a7c15ull + pg * 0xbf58476d1ce4e5b9ull + w + 1;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void fill_page(volatile uint64_t *p, uint64_t seed, uint64_t pg, unsigned int words)
{
	for (unsigned int w = 0; w < words; w++)
		p[w] = pattern(seed, pg, w);
}

/* Index of the first wrong word, or -1. */
static inline long check_page(const volatile uint64_t *p, uint64_t seed, uint64_t pg, unsigned int words)
{
	for (unsigned int w = 0; w < words; w++)
		if (p[w] != pattern(seed, pg, w))
			return w;
	return -1;
}

static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The Q-quantile (0..1) of N values; sorts V. */
static inline uint64_t quantile(uint64_t *v, size_t n, double q)
{
	size_t i;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	i = (size_t)(q * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

#endif
