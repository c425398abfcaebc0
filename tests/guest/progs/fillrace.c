// SPDX-License-Identifier: GPL-2.0
/*
 * fillrace: a miss whose retry never comes back to the device.
 *
 *   fillrace DEV PAGE MS
 *
 * Maps DEV (pages 0..PAGE) and starts a thread that reads word 0 of page
 * PAGE: a miss whose modeled wait sleeps with mmap_lock dropped (set a long
 * t_read_ns), after which the fault returns VM_FAULT_RETRY. MS
 * milliseconds after the thread starts its read, while it waits, the main thread maps anonymous
 * memory over the mapping (MAP_FIXED): the retry then finds anonymous memory
 * at the address and never comes back to the device. Prints "read V" (the
 * value the thread read: 0, anonymous memory). Exit: 0, or 2 on a mapping
 * or thread error.
 */
#include "common.h"

#include <pthread.h>
#include <sched.h>

static volatile uint64_t *target;
static volatile int started;
static uint64_t got;

static void *reader(void *arg)
{
	started = 1;
	got = *target;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long page, ms;
	struct timespec ts;
	pthread_t t;
	size_t len;
	char *map;
	int fd;

	tap_init();
	if (argc != 4) {
		fprintf(stderr, "usage: fillrace DEV PAGE MS\n");
		return 2;
	}
	page = strtoul(argv[2], NULL, 0);
	ms = strtoul(argv[3], NULL, 0);
	len = (page + 1) * PAGE;
	map = map_dev(argv[1], len, &fd);
	if (!map)
		return 2;
	target = (volatile uint64_t *)(map + page * PAGE);
	if (pthread_create(&t, NULL, reader, NULL))
		return 2;
	while (!started)
		sched_yield();
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000;
	nanosleep(&ts, NULL);
	if (mmap(map, len, PROT_READ | PROT_WRITE,
		 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != map) {
		perror("mmap MAP_FIXED");
		return 2;
	}
	pthread_join(t, NULL);
	printf("read %" PRIu64 "\n", got);
	close(fd);
	return 0;
}
