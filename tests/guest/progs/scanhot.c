// SPDX-License-Identifier: GPL-2.0
/*
 * scanhot DEV STREAM BURST SLEEP_MS
 *
 * Keeps page 0 hot while streaming through pages 1..STREAM of DEV: after
 * each page of the stream it touches page 0 again. Page 0 stays mapped, so
 * those touches are native hits the module never sees; only the
 * accessed-bit scan can tell the policy about them. Every BURST stream
 * pages it sleeps SLEEP_MS so that a scan runs between bursts.
 *
 * Prints "extra N": misses beyond the STREAM + 1 distinct pages, i.e. how
 * often page 0 was evicted and faulted back in.
 */
#include "common.h"

int main(int argc, char **argv)
{
	unsigned long stream, burst, sleep_ms, i;
	volatile char *m;
	int64_t before, after;

	tap_init();
	if (argc != 5) {
		fprintf(stderr, "usage: scanhot DEV STREAM BURST SLEEP_MS\n");
		return 2;
	}
	stream = strtoul(argv[2], NULL, 0);
	burst = strtoul(argv[3], NULL, 0);
	sleep_ms = strtoul(argv[4], NULL, 0);
	m = map_dev(argv[1], (stream + 1) * PAGE, NULL);
	if (!m) {
		perror("map");
		return 1;
	}
	before = dev_stat(argv[1], "misses");
	m[0] = 1;
	for (i = 1; i <= stream; i++) {
		m[i * PAGE] = 1;
		m[0]++;
		if (i % burst == 0)
			usleep(sleep_ms * 1000);
	}
	after = dev_stat(argv[1], "misses");
	if (before < 0 || after < 0)
		return 1;
	printf("extra %" PRId64 "\n", after - before - (int64_t)(stream + 1));
	return 0;
}
