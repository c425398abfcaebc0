// SPDX-License-Identifier: GPL-2.0
/*
 * crashrec: a crash-consistency check of a cxdvirt device with a NAND image.
 *
 *   crashrec DEV append N SYNCED   append N records of 256 bytes from the
 *                                  start of DEV; each of the first SYNCED is
 *                                  followed by msync(MS_SYNC) of its page
 *   crashrec DEV fsync N SYNCED    append N records; once the first SYNCED
 *                                  are written, one fsync() of DEV (the
 *                                  whole device: the driver walks its
 *                                  resident set, not the range page by page)
 *   crashrec DEV check N SYNCED    after a power failure: the first SYNCED
 *                                  records are intact; each later one is
 *                                  whole or absent (all zero), never torn
 *   crashrec DEV msync-einval      msync(MS_SYNC) of a RAM-backed device
 *                                  fails with EINVAL, as on device-dax
 *
 * A record is 32 64-bit words: its number, then words derived from it, the
 * last a checksum of the others. Records never span a 4 KiB line. check
 * prints "# whole W absent A" for the records after SYNCED.
 * Exit: 0 fine, 1 a check failed, 2 usage or mapping error.
 */
#include "common.h"

#define REC_WORDS	32
#define REC_BYTES	(REC_WORDS * 8)

static void rec_fill(uint64_t *r, uint64_t n)
{
	uint64_t sum = 0;

	for (int w = 0; w < REC_WORDS - 1; w++) {
		r[w] = w ? pattern(77, n, w) : n + 1;
		sum ^= r[w];
	}
	r[REC_WORDS - 1] = sum;
}

/* 1: record @n is whole, 0: absent (all zero), -1: anything else */
static int rec_state(const uint64_t *r, uint64_t n)
{
	uint64_t want[REC_WORDS], any = 0;

	rec_fill(want, n);
	if (!memcmp(r, want, REC_BYTES))
		return 1;
	for (int w = 0; w < REC_WORDS; w++)
		any |= r[w];
	return any ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long n, synced, whole = 0, absent = 0, bad = 0;
	const char *dev, *op;
	size_t len;
	char *map;
	int fd = -1;

	tap_init();
	if (argc == 3 && !strcmp(argv[2], "msync-einval")) {
		map = map_dev(argv[1], PAGE, NULL);
		if (!map)
			return 2;
		int r, e;

		map[0] = 1;
		r = msync(map, PAGE, MS_SYNC);
		e = errno;
		return ok(r && e == EINVAL,
			  "msync(MS_SYNC) of a RAM-backed device: EINVAL (%s)",
			  r ? strerror(e) : "succeeded") ? 0 : 1;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: crashrec DEV append|fsync|check N SYNCED | DEV msync-einval\n");
		return 2;
	}
	dev = argv[1];
	op = argv[2];
	n = strtoul(argv[3], NULL, 0);
	synced = strtoul(argv[4], NULL, 0);
	len = (n * REC_BYTES + PAGE - 1) / PAGE * PAGE;
	map = map_dev(dev, len, &fd);
	if (!map || !n || synced > n) {
		printf("# crashrec: bad arguments or mmap %s: %s\n", dev, strerror(errno));
		return 2;
	}
	for (unsigned long i = 0; i < n; i++) {
		uint64_t *r = (uint64_t *)(map + i * REC_BYTES);
		char *pg = map + i * REC_BYTES / PAGE * PAGE;
		int st;

		if (!strcmp(op, "append")) {
			rec_fill(r, i);
			if (i < synced && msync(pg, PAGE, MS_SYNC)) {
				printf("# msync of record %lu: %s\n", i, strerror(errno));
				return 1;
			}
			continue;
		}
		if (!strcmp(op, "fsync")) {
			rec_fill(r, i);
			if (i + 1 == synced && fsync(fd)) {
				printf("# fsync after record %lu: %s\n", i, strerror(errno));
				return 1;
			}
			continue;
		}
		st = rec_state(r, i);
		if (i < synced && st != 1 && bad++ < 5)
			printf("# record %lu was msync'd but is %s\n", i,
			       st ? "torn" : "absent");
		if (i >= synced) {
			whole += st == 1;
			absent += st == 0;
			if (st < 0 && bad++ < 5)
				printf("# record %lu is torn\n", i);
		}
	}
	if (!strcmp(op, "check"))
		printf("# whole %lu absent %lu\n", whole, absent);
	munmap(map, len);
	close(fd);
	return bad ? 1 : 0;
}
