// SPDX-License-Identifier: GPL-2.0
/*
 * replay: make a deterministic access trace, or replay one on a device.
 *
 *   replay gen SEED COUNT PAGES [WRITE_PCT]
 *       print COUNT accesses (`R|W PAGE`, the cxdvirt-sim trace format) over
 *       pages 0..PAGES-1: 70% to a hot eighth of the pages, the rest
 *       uniform; WRITE_PCT percent (default 25) are writes. Same SEED, same
 *       trace (xorshift64*).
 *   replay run DEV TRACE
 *       touch the pages of TRACE in order through one shared mapping of DEV:
 *       a read loads one word, a write stores one word. Nothing else
 *       touches the mapping, so the device sees exactly the faults the
 *       trace causes. With REPLAY_THINK_NS in the environment, each
 *       access first waits (spinning) until that many ns have passed since
 *       the previous one ended: the device's reads of one fault
 *       (prefetches behind an MSHR) then end before the next arrives, as
 *       cxdvirt-sim --think assumes.
 *
 * Exit: 0 fine, 2 usage, trace or mapping error.
 */
#include "common.h"

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

static int gen(uint64_t seed, unsigned long count, unsigned long pages,
	       unsigned int write_pct)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1, r;
	unsigned long hot = pages / 8 ? pages / 8 : 1, pg;

	for (unsigned long i = 0; i < count; i++) {
		r = rng_next(&s);
		if (r % 100 < 70)
			pg = (r >> 8) % hot;
		else
			pg = (r >> 8) % pages;
		r = rng_next(&s);
		printf("%c %lu\n", r % 100 < write_pct ? 'W' : 'R', pg);
	}
	return 0;
}

static int run(const char *dev, const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned long pg, max = 0, n = 0;
	uint64_t think, last = 0;
	volatile uint64_t *p;
	char op, line[64];
	size_t len;
	char *map;

	if (!f) {
		printf("# replay: %s: %s\n", path, strerror(errno));
		return 2;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %c %lu", &op, &pg) != 2 ||
		    (op != 'R' && op != 'W')) {
			printf("# replay: %s: bad line: %s", path, line);
			fclose(f);
			return 2;
		}
		if (pg > max)
			max = pg;
	}
	len = (max + 1) * PAGE;
	map = map_dev(dev, len, NULL);
	if (!map) {
		printf("# replay: mmap %s %zu bytes: %s\n", dev, len, strerror(errno));
		fclose(f);
		return 2;
	}
	rewind(f);
	think = getenv("REPLAY_THINK_NS") ? strtoull(getenv("REPLAY_THINK_NS"), NULL, 10) : 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %c %lu", &op, &pg) != 2)
			continue;
		while (think && now_ns() < last + think)
			;
		p = (volatile uint64_t *)(map + pg * PAGE);
		if (op == 'W')
			p[0] = pg;
		else
			(void)p[0];
		n++;
		if (think)
			last = now_ns();
	}
	fclose(f);
	munmap(map, len);
	printf("# replay: %lu accesses\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	tap_init();
	if (argc >= 5 && !strcmp(argv[1], "gen") && strtoul(argv[4], NULL, 0))
		return gen(strtoull(argv[2], NULL, 0), strtoul(argv[3], NULL, 0),
			   strtoul(argv[4], NULL, 0),
			   argc > 5 ? strtoul(argv[5], NULL, 0) : 25);
	if (argc == 4 && !strcmp(argv[1], "run"))
		return run(argv[2], argv[3]);
	fprintf(stderr, "usage: replay gen SEED COUNT PAGES [WRITE_PCT] | replay run DEV TRACE\n");
	return 2;
}
