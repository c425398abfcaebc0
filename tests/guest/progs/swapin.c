// SPDX-License-Identifier: GPL-2.0
/*
 * swapin: node-mode pages that leave for swap and come back.
 *
 *   swapin NODE DEV NPAGES
 *
 * Maps NPAGES private anonymous pages bound to NODE, writes them, pushes
 * them out to swap (MADV_PAGEOUT), then reads them three times (cyclic
 * passes). Prints "swap kB N" (the mapping's Swap: after the push),
 * "anon_maps +N" (node_latency/anon_maps over the first pass, the
 * swap-ins seen), "P<k> misses N" per pass and a TAP line per pass for the
 * content. With NPAGES above the cache every later pass must miss on
 * nearly every page: a page read back from swap is under the model again.
 */
#include "node.h"

#define SEED	0x5a9000ull

static long smaps_swap_kb(void *addr)
{
	char line[256], want[32];
	FILE *f = fopen("/proc/self/smaps", "r");
	int in = 0;
	long kb = -1;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "%lx-", (unsigned long)addr);
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '-') && strchr(line, ' ') &&
		    strchr(line, '-') < strchr(line, ' ')) {
			if (in)
				break;
			in = !strncmp(line, want, strlen(want));
			continue;
		}
		if (in && sscanf(line, "Swap: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	unsigned long n, i, bad;
	const char *dev;
	int node, pass, r;
	int64_t m, a0;
	uint64_t *b;
	size_t len;

	tap_init();
	if (argc != 4) {
		fprintf(stderr, "usage: swapin NODE DEV NPAGES\n");
		return 2;
	}
	node = atoi(argv[1]);
	dev = argv[2];
	n = strtoul(argv[3], NULL, 0);
	len = n * PAGE;
	b = node_buf(node, n);
	if (!ok(b != NULL, "%lu private anonymous pages bound to node %d", n,
		node))
		return tap_exit();
	for (i = 0; i < n; i++)
		fill_page(b + i * (PAGE / 8), SEED + i, i, PAGE / 8);
	r = madvise(b, len, MADV_PAGEOUT);
	ok(!r, "MADV_PAGEOUT (%s)", r ? strerror(errno) : "ok");
	printf("swap kB %ld\n", smaps_swap_kb(b));
	a0 = nl_stat(dev, "anon_maps");
	for (pass = 1; pass <= 3; pass++) {
		m = dev_stat(dev, "misses");
		bad = 0;
		for (i = 0; i < n; i++)
			if (check_page(b + i * (PAGE / 8), SEED + i, i, PAGE / 8) >= 0)
				bad++;
		printf("P%d misses %" PRId64 "\n", pass, dev_stat(dev, "misses") - m);
		if (pass == 1)
			printf("anon_maps +%" PRId64 "\n", nl_stat(dev, "anon_maps") - a0);
		ok(!bad, "pass %d: every page reads back what was written before the swap-out (%lu bad)",
		   pass, bad);
	}
	printf("swap kB after %ld\n", smaps_swap_kb(b));
	return tap_exit();
}
