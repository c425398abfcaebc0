// SPDX-License-Identifier: GPL-2.0
/*
 * pages: touch a range of pages of a cxdvirt device through a shared mapping.
 *
 *   pages DEV OP FIRST COUNT [-s SEED] [-p PASSES] [-w WORDS] [-S STRIDE]
 *
 * OP:
 *   read     read one word of each page
 *   write    fill each page with the pattern SEED (WORDS 64-bit words,
 *            default the whole page)
 *   verify   check the pattern SEED; prints "# page N word W: got/want" for
 *            the first few mismatches
 *
 * Pages FIRST, FIRST+STRIDE, ... (COUNT of them) are visited in order,
 * PASSES times. Each run is its own open() and mmap() of DEV, so two runs
 * are two processes sharing the device. Exit: 0 fine, 1 verify mismatch,
 * 2 usage or mapping error.
 */
#include "common.h"

int main(int argc, char **argv)
{
	unsigned long first, count, stride = 1, passes = 1, words = PAGE / 8;
	uint64_t seed = 1, bad = 0;
	const char *dev, *op;
	size_t len;
	char *map;
	int c;

	tap_init();
	while ((c = getopt(argc, argv, "s:p:w:S:")) != -1) {
		switch (c) {
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'p': passes = strtoul(optarg, NULL, 0); break;
		case 'w': words = strtoul(optarg, NULL, 0); break;
		case 'S': stride = strtoul(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	if (argc - optind != 4 || !stride || !words || words > PAGE / 8) {
		fprintf(stderr, "usage: pages DEV read|write|verify FIRST COUNT [-s SEED] [-p PASSES] [-w WORDS] [-S STRIDE]\n");
		return 2;
	}
	dev = argv[optind];
	op = argv[optind + 1];
	first = strtoul(argv[optind + 2], NULL, 0);
	count = strtoul(argv[optind + 3], NULL, 0);
	if (!count)
		return 0;
	len = (first + (count - 1) * stride + 1) * PAGE;
	map = map_dev(dev, len, NULL);
	if (!map) {
		printf("# pages: mmap %s %zu bytes: %s\n", dev, len, strerror(errno));
		return 2;
	}
	for (unsigned long pass = 0; pass < passes; pass++) {
		for (unsigned long i = 0; i < count; i++) {
			unsigned long pg = first + i * stride;
			volatile uint64_t *p = (volatile uint64_t *)(map + pg * PAGE);
			long w;

			if (!strcmp(op, "read")) {
				(void)p[0];
			} else if (!strcmp(op, "write")) {
				fill_page(p, seed, pg, words);
			} else if (!strcmp(op, "verify")) {
				w = check_page(p, seed, pg, words);
				if (w >= 0 && bad++ < 5)
					printf("# page %lu word %ld: got %#" PRIx64 " want %#" PRIx64 "\n",
					       pg, w, (uint64_t)p[w], pattern(seed, pg, w));
			} else {
				fprintf(stderr, "pages: unknown op %s\n", op);
				return 2;
			}
		}
	}
	munmap(map, len);
	if (bad) {
		printf("# pages: %" PRIu64 " of %lu page checks wrong (seed %" PRIu64 ")\n",
		       bad, count * passes, seed);
		return 1;
	}
	return 0;
}
