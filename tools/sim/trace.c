// SPDX-License-Identifier: GPL-2.0
/*
 * Trace files for cxdvirt-sim: reading the file, telling its format, and
 * the simulator's own text format.
 *
 * Own text format, one record per line: `R|W|D ADDRESS [THREAD]`, R and W
 * an access, D a discard (the page left the device, cxd_model_discard());
 * the record type in upper case (a lower-case one is refused, by name).
 * An address written with a 0x prefix is a byte address (its page is
 * address / 4096); a plain decimal number is a page number. Blank lines and lines starting
 * with # are ignored. Anything else is an error naming the line.
 *
 * A regular file is mapped (mmap, MADV_SEQUENTIAL); standard input and
 * other non-mappable files are read in 1 MiB blocks. A binary trace is
 * replayed straight from its mapping; the text formats are parsed in one
 * pass into packed 8-byte records (trace_pack()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cxu_msg.h"
#include "sim.h"

static const char *const format_names[] = {
	[TRACE_AUTO] = "auto",
	[TRACE_TEXT] = "text",
	[TRACE_BINARY] = "binary",
	[TRACE_LACKEY] = "lackey",
	[TRACE_TRACEPOINT] = "tracepoint",
};

/** trace_format_parse() - enum trace_format for @name, or -1. */
int trace_format_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < sizeof(format_names) / sizeof(format_names[0]); i++)
		if (!strcmp(name, format_names[i]))
			return (int)i;
	return -1;
}

/** trace_format_name() - the option value naming @f. */
const char *trace_format_name(enum trace_format f)
{
	return (unsigned int)f < sizeof(format_names) / sizeof(format_names[0]) ?
	       format_names[f] : "?";
}

/* One line [s, e) of the own format, not blank, not a comment. */
static int parse_line(const char *s, const char *e, uint64_t *page,
		      bool *write, bool *discard, uint32_t *thread)
{
	uint64_t v;

	while (s < e && is_space(*s))
		s++;
	if (s == e)
		return -1;
	*write = false;
	*discard = false;
	if (*s == 'W')
		*write = true;
	else if (*s == 'D')
		*discard = true;
	else if (*s != 'R')
		return -1;
	s++;
	if (s == e || !is_space(*s))
		return -1;
	while (s < e && is_space(*s))
		s++;
	if (e - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		if (trace_parse_hex(&s, e, &v))
			return -1;
		v /= CXD_HOST_PAGE_SIZE;
	} else if (trace_parse_dec(&s, e, &v)) {
		return -1;
	}
	if (v > TRACE_PAGE_MAX)
		return -1;
	*page = v;
	*thread = 0;
	while (s < e && is_space(*s))
		s++;
	if (s < e) {
		if (trace_parse_dec(&s, e, &v) || v > TRACE_THREAD_MAX)
			return -1;
		*thread = (uint32_t)v;
		while (s < e && is_space(*s))
			s++;
		if (s < e)
			return -1;
	}
	return 0;
}

static int parse_text(const char *path, const char *p, const char *end,
		      struct trace_buf *b)
{
	unsigned long lineno = 0;
	const char *e, *s;
	bool write, discard;
	uint32_t thread;
	uint64_t page;

	for (; p < end; p = e + 1) {
		e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		lineno++;
		for (s = p; s < e && is_space(*s); s++)
			;
		if (s == e || *s == '#')
			continue;
		if ((*s == 'r' || *s == 'w' || *s == 'd') &&
		    (s + 1 == e || is_space(s[1]))) {
			trace_line_error(path, lineno,
					 "record type in lower case: R, W or D",
					 s, e);
			return -1;
		}
		if (parse_line(s, e, &page, &write, &discard, &thread)) {
			trace_line_error(path, lineno,
					 "not `R|W|D ADDRESS [THREAD]` (page < 2^48, thread < 2^14)",
					 s, e);
			return -1;
		}
		if (discard ? trace_push_discard(b, page, thread) :
			      trace_push(b, page, write, thread))
			return -1;
	}
	return 0;
}

/* The format of a text trace, from its first significant line. */
static enum trace_format sniff(const char *p, const char *end)
{
	const char *e, *s;

	for (; p < end; p = e + 1) {
		e = memchr(p, '\n', (size_t)(end - p));
		if (!e)
			e = end;
		if (memmem(p, (size_t)(e - p), "cxdvirt_", 8))
			return TRACE_TRACEPOINT;
		if (e - p >= 2 && (p[0] == 'I' || p[0] == ' ') &&
		    (p[1] == ' ' || p[1] == 'L' || p[1] == 'S' || p[1] == 'M') &&
		    memchr(p, ',', (size_t)(e - p)))
			return TRACE_LACKEY;
		for (s = p; s < e && is_space(*s); s++)
			;
		if (s == e || *s == '#' || (e - s >= 2 && s[0] == '=' && s[1] == '='))
			continue;
		return TRACE_TEXT;
	}
	return TRACE_TEXT;
}

/*
 * The whole of @path in memory: mapped (*mapped = true) or read into a
 * malloc'd buffer. Return: 0, or -1 (message printed).
 */
static int slurp(const char *path, unsigned char **data, size_t *len,
		 bool *mapped)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	size_t cap = 0, n = 0;
	unsigned char *buf = NULL, *nb;
	struct stat st;
	ssize_t r;

	*mapped = false;
	if (fd < 0) {
		cxu_err("%s: %s", path, strerror(errno));
		return -1;
	}
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
			   fd, 0);
		if (buf != MAP_FAILED) {
			madvise(buf, (size_t)st.st_size, MADV_SEQUENTIAL);
			if (fd)
				close(fd);
			*data = buf;
			*len = (size_t)st.st_size;
			*mapped = true;
			return 0;
		}
		buf = NULL;
	}
	for (;;) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 20;
			nb = realloc(buf, cap);
			if (!nb) {
				cxu_err("out of memory");
				goto fail;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			cxu_err("%s: %s", path,
				strerror(errno));
			goto fail;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	if (fd)
		close(fd);
	*data = buf;
	*len = n;
	return 0;
fail:
	if (fd)
		close(fd);
	free(buf);
	return -1;
}

/*
 * Refuse a trace @t of @path without an access: an empty one (or comments
 * only), or one of discards only. Return: 0, or -1 (printed).
 */
static int trace_check_accesses(const char *path, const struct trace *t)
{
	if (t->n > t->ndiscards)
		return 0;
	if (t->n)
		cxu_err("%s: only discard (D) records, no access (R or W): nothing to replay",
			path);
	else
		cxu_err("%s: no access (R or W record): nothing to replay",
			path);
	return -1;
}

/**
 * trace_load() - read a whole trace file.
 * @path:	file name; "-" is standard input.
 * @o:		format and format options.
 * @t:		filled on success (free with trace_free()).
 *
 * A binary trace of a regular file stays mapped and is replayed from the
 * mapping; anything else ends up as one malloc'd array of 8-byte records.
 *
 * A trace without an access (empty, comments only, or discards only) is
 * refused: it has nothing to replay or convert.
 *
 * Return: 0, or -1 after printing what is wrong (file and line).
 */
int trace_load(const char *path, const struct trace_opts *o, struct trace *t)
{
	enum trace_format f = o->format;
	struct trace_buf b = { 0 };
	unsigned char *data;
	const char *p, *end;
	size_t len;
	bool mapped;
	int ret;

	memset(t, 0, sizeof(*t));
	if (slurp(path, &data, &len, &mapped))
		return -1;
	if (f == TRACE_AUTO)
		f = trace_bin_magic(data, len) ? TRACE_BINARY :
		    sniff((const char *)data, (const char *)data + len);
	t->format = f;
	if (f == TRACE_BINARY) {
		if (trace_bin_open(path, data, len, t))
			goto fail;
		if (mapped) {
			t->map = data;
			t->map_len = len;
		} else {
			t->buf = (uint64_t *)data;	/* malloc'd: aligned */
		}
		if (trace_check_accesses(path, t)) {
			trace_free(t);
			return -1;
		}
		return 0;
	}
	/* a text trace of a regular file: ~8 bytes of text per access */
	if (mapped && len / 8 > 65536) {
		b.cap = len / 8;
		b.recs = malloc(b.cap * sizeof(*b.recs));
		if (!b.recs)
			b.cap = 0;
	}
	p = (const char *)data;
	end = p + len;
	if (f == TRACE_LACKEY)
		ret = trace_parse_lackey(path, p, end, o, &b);
	else if (f == TRACE_TRACEPOINT)
		ret = trace_parse_tracepoint(path, p, end, o, &b);
	else
		ret = parse_text(path, p, end, &b);
	if (mapped)
		munmap(data, len);
	else
		free(data);
	if (ret) {
		free(b.recs);
		return -1;
	}
	t->buf = b.recs;
	t->recs = b.recs;
	t->n = b.n;
	t->ndiscards = b.ndiscards;
	t->max_page = b.max_page;
	t->threads = b.threads;
	if (trace_check_accesses(path, t)) {
		trace_free(t);
		return -1;
	}
	return 0;
fail:
	if (mapped)
		munmap(data, len);
	else
		free(data);
	memset(t, 0, sizeof(*t));
	return -1;
}

/**
 * trace_count_threads() - the distinct threads of a trace.
 * @t: the trace.
 *
 * @t->threads is the highest thread number + 1 (what the binary header
 * stores, the size of the replay's per-thread arrays); a trace of threads
 * 0 and 3 has two threads, not four. O(accesses), 4 KiB of bitmap.
 *
 * Return: the number of thread numbers with at least one access (R or W;
 * a thread of discards only does not count); 0 for a trace without one.
 */
uint32_t trace_count_threads(const struct trace *t)
{
	uint64_t seen[(TRACE_THREAD_MAX + 1) / 64] = { 0 };
	uint32_t n = 0, k;
	uint64_t i;

	if (t->threads <= 1)
		return t->n > t->ndiscards ? 1 : 0;
	for (i = 0; i < t->n && n < t->threads; i++) {
		if (trace_discard(t->recs[i]))
			continue;
		k = trace_thread(t->recs[i]);
		if (!(seen[k / 64] & (1ull << (k % 64)))) {
			seen[k / 64] |= 1ull << (k % 64);
			n++;
		}
	}
	return n;
}

/** trace_free() - release what trace_load() mapped or allocated. @t: the trace. */
void trace_free(struct trace *t)
{
	if (t->map)
		munmap(t->map, t->map_len);
	free(t->buf);
	memset(t, 0, sizeof(*t));
}
