// SPDX-License-Identifier: GPL-2.0
/*
 * The arena every workload allocates from, the clock and the progress line.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "wl.h"

#define WL_ARENA_ALIGN (2UL << 20)

bool wl_progress_on;
static uint64_t progress_last_ns;

int wl_arena_open(struct wl_arena *a, const char *dax, size_t size)
{
	int fd = -1;
	void *m;

	memset(a, 0, sizeof(*a));
	size = (size + WL_ARENA_ALIGN - 1) & ~(WL_ARENA_ALIGN - 1);
	if (dax) {
		fd = open(dax, O_RDWR);
		if (fd < 0) {
			fprintf(stderr, "cxdvirt-wl: %s: %m\n", dax);
			return -1;
		}
		m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
	} else {
		m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (m == MAP_FAILED) {
		fprintf(stderr, "cxdvirt-wl: mmap of %zu bytes%s%s: %m\n", size,
			dax ? " of " : "", dax ? dax : "");
		return -1;
	}
	a->base = m;
	a->size = size;
	a->dax = dax;
	return 0;
}

void *wl_alloc(struct wl_arena *a, size_t bytes)
{
	size_t at = (a->used + 63) & ~(size_t)63;

	if (at + bytes > a->size) {
		fprintf(stderr, "cxdvirt-wl: arena of %zu bytes full (want %zu more at %zu)\n",
			a->size, bytes, at);
		exit(1);
	}
	a->used = at + bytes;
	return a->base + at;
}

void wl_arena_close(struct wl_arena *a)
{
	if (a->base)
		munmap(a->base, a->size);
	a->base = NULL;
}

uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void wl_progress(const char *what, uint64_t done, uint64_t total)
{
	uint64_t now;

	if (!wl_progress_on)
		return;
	now = wl_now_ns();
	if (now - progress_last_ns < 1000000000ULL && done != total)
		return;
	progress_last_ns = now;
	fprintf(stderr, "cxdvirt-wl: %s %llu/%llu (%.0f%%)\r", what,
		(unsigned long long)done, (unsigned long long)total,
		total ? 100.0 * (double)done / (double)total : 100.0);
}

void wl_progress_end(void)
{
	if (wl_progress_on)
		fputc('\n', stderr);
}
