// SPDX-License-Identifier: GPL-2.0
/*
 * The binary trace format of cxdvirt-sim (docs/tools.md, "Trace formats").
 *
 * A 64-byte header, then one 8-byte record per access or discard, all
 * little-endian:
 *
 *   offset  size  field
 *        0     8  magic "CXDTRACE"
 *        8     4  version, 1 or 2
 *       12     4  header size in bytes, 64 (records start here)
 *       16     8  number of records
 *       24     8  highest page of any record
 *       32     4  highest thread of any record + 1
 *       36     8  version 2: number of discard records; version 1: zero
 *       44    20  zero
 *
 * Record: bits 0-47 host page number (4 KiB pages), bits 48-61 thread,
 * bit 62 set for a discard (version 2 only), bit 63 set for a write
 * (trace_pack()). Version 1 gave the thread bits 48-62: a version 1 file
 * with at most 2^14 threads reads the same under both layouts (bit 62
 * clear), so it is read as is, and one with more is refused. A trace
 * without discards is written as version 1, byte for byte what earlier
 * releases wrote. 100 M accesses take 800 MB, and the replay reads them
 * straight from the file's mapping.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cxu_msg.h"
#include "sim.h"

#define BIN_MAGIC	"CXDTRACE"
#define BIN_VERSION	2u	/* the newest this reader knows */
#define BIN_HDR_SIZE	64u

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the binary trace is replayed in place: little-endian hosts only"
#endif

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static void put64(unsigned char *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static void put32(unsigned char *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

/** trace_bin_magic() - do the @len bytes at @p start with the magic? */
bool trace_bin_magic(const unsigned char *p, size_t len)
{
	return len >= 8 && !memcmp(p, BIN_MAGIC, 8);
}

/**
 * trace_bin_open() - check a binary trace's header and point @t at it.
 * @path: file name, for messages.
 * @p:    the whole file, 8-byte aligned (a mapping or a malloc'd buffer).
 * @len:  its length in bytes.
 * @t:    recs, n, ndiscards, max_page and threads are set; the records
 *        stay in @p.
 *
 * Return: 0, or -1 after printing what is wrong.
 */
int trace_bin_open(const char *path, const unsigned char *p, size_t len,
		   struct trace *t)
{
	uint64_t n, max_page, nd;
	uint32_t threads, version;

	if (!trace_bin_magic(p, len) || len < BIN_HDR_SIZE) {
		cxu_err("%s: not a binary trace (no %s header)",
			path, BIN_MAGIC);
		return -1;
	}
	version = get32(p + 8);
	if (version < 1 || version > BIN_VERSION ||
	    get32(p + 12) != BIN_HDR_SIZE) {
		cxu_err(
			"%s: binary trace version %u, header %u bytes: this cxdvirt-sim reads versions 1 to %u, %u bytes",
			path, version, get32(p + 12), BIN_VERSION,
			BIN_HDR_SIZE);
		return -1;
	}
	n = get64(p + 16);
	max_page = get64(p + 24);
	threads = get32(p + 32);
	nd = version >= 2 ? get64(p + 36) : 0;
	if (version == 1 && threads > TRACE_THREAD_MAX + 1) {
		cxu_err(
			"%s: a version 1 binary trace with %u threads: this cxdvirt-sim replays at most %u (the thread field lost a bit to discards in version 2)",
			path, threads, TRACE_THREAD_MAX + 1);
		return -1;
	}
	if (n > (len - BIN_HDR_SIZE) / 8 || len - BIN_HDR_SIZE != n * 8) {
		cxu_err(
			"%s: header says %" PRIu64 " records, the file holds %zu bytes of records (truncated or corrupt)",
			path, n, len - BIN_HDR_SIZE);
		return -1;
	}
	if (max_page > TRACE_PAGE_MAX || threads > TRACE_THREAD_MAX + 1 ||
	    nd > n) {
		cxu_err("%s: corrupt header (max page %" PRIu64 ", threads %u, discards %" PRIu64 ")",
			path, max_page, threads, nd);
		return -1;
	}
	/*
	 * Every record within the header's bounds: the replay sizes its
	 * per-thread and per-page arrays from them (a record beyond would
	 * read past them). One pass, at memory speed.
	 */
	{
		const uint64_t *r = (const uint64_t *)(const void *)(p + BIN_HDR_SIZE);
		uint64_t i;

		for (i = 0; i < n; i++)
			if (trace_thread(r[i]) >= threads ||
			    trace_page(r[i]) > max_page) {
				cxu_err("%s: record %" PRIu64 " (page %" PRIu64 ", thread %u) is beyond the header's max page %" PRIu64 " and %u threads (corrupt)",
					path, i, trace_page(r[i]),
					trace_thread(r[i]), max_page, threads);
				return -1;
			}
	}
	t->recs = (const uint64_t *)(const void *)(p + BIN_HDR_SIZE);
	t->n = n;
	t->ndiscards = nd;
	t->max_page = max_page;
	t->threads = threads;
	return 0;
}

/**
 * trace_write_binary() - write @t as a binary trace: version 1 when it has
 * no discards (what earlier releases wrote and read), else version 2.
 * @path: output file ("-": standard output); replaced if it exists.
 * @t:    the trace.
 *
 * Return: 0, or -1 after printing what is wrong (a partial file is removed).
 */
int trace_write_binary(const char *path, const struct trace *t)
{
	bool out = !strcmp(path, "-");
	FILE *f = out ? stdout : fopen(path, "wb");
	unsigned char hdr[BIN_HDR_SIZE] = { 0 };
	bool ok;
	int err;

	if (!f) {
		cxu_err("%s: %s", path, strerror(errno));
		return -1;
	}
	memcpy(hdr, BIN_MAGIC, 8);
	put32(hdr + 8, t->ndiscards ? 2 : 1);
	put32(hdr + 12, BIN_HDR_SIZE);
	put64(hdr + 16, t->n);
	put64(hdr + 24, t->max_page);
	put32(hdr + 32, t->threads);
	put64(hdr + 36, t->ndiscards);
	ok = fwrite(hdr, 1, sizeof(hdr), f) == sizeof(hdr) &&
	     (!t->n || fwrite(t->recs, sizeof(*t->recs), t->n, f) == t->n) &&
	     !fflush(f);
	err = errno;
	if (!out && fclose(f) && ok) {
		ok = false;
		err = errno;
	}
	if (!ok) {
		cxu_err("%s: %s", path, strerror(err));
		if (!out)
			unlink(path);
		return -1;
	}
	return 0;
}
