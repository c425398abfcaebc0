// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers shared by cxdvirt-sim's trace parsers (trace.c: the own text
 * format; trace_std.c: lackey and the cxdvirt_miss tracepoint): appending a
 * record, reading decimal and hexadecimal numbers, reporting a bad line.
 * They call no parser, so the parsers call them and never each other's
 * internals.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "cxu_msg.h"
#include "cxu_num.h"
#include "sim.h"

/* Append record @rec of @page and @thread. Return: 0, or -1 (printed). */
static int trace_push_rec(struct trace_buf *b, uint64_t rec, uint64_t page,
			  uint32_t thread)
{
	uint64_t *nr;

	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 65536;
		nr = realloc(b->recs, b->cap * sizeof(*nr));
		if (!nr) {
			cxu_err("out of memory");
			return -1;
		}
		b->recs = nr;
	}
	b->recs[b->n++] = rec;
	if (page > b->max_page)
		b->max_page = page;
	if (thread >= b->threads)
		b->threads = thread + 1;
	return 0;
}

/**
 * trace_push() - append one access to a text trace being parsed.
 * @b:      the buffer.
 * @page:   host page, <= TRACE_PAGE_MAX.
 * @write:  a write.
 * @thread: thread number, <= TRACE_THREAD_MAX.
 *
 * Return: 0, or -1 out of memory (message printed).
 */
int trace_push(struct trace_buf *b, uint64_t page, bool write, uint32_t thread)
{
	return trace_push_rec(b, trace_pack(page, write, thread), page, thread);
}

/**
 * trace_push_discard() - append one discard (the page left the device) to
 * a text trace being parsed.
 * @b:      the buffer.
 * @page:   host page, <= TRACE_PAGE_MAX.
 * @thread: thread number, <= TRACE_THREAD_MAX.
 *
 * Return: 0, or -1 out of memory (message printed).
 */
int trace_push_discard(struct trace_buf *b, uint64_t page, uint32_t thread)
{
	if (trace_push_rec(b, trace_pack(page, false, thread) | TRACE_DISCARD,
			   page, thread))
		return -1;
	b->ndiscards++;
	return 0;
}

/**
 * trace_parse_dec() - decimal digits at [*@s, @e) into *@v.
 * @s: start; moved past the digits.
 * @e: end of the line.
 * @v: the value.
 *
 * Return: 0, or -1 (no digit, or above UINT64_MAX).
 */
int trace_parse_dec(const char **s, const char *e, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0, d;

	if (p == e || *p < '0' || *p > '9')
		return -1;
	for (; p < e && *p >= '0' && *p <= '9'; p++) {
		d = (uint64_t)(*p - '0');
		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*s = p;
	*v = x;
	return 0;
}

/**
 * trace_parse_hex() - hexadecimal digits (no 0x) at [*@s, @e) into *@v.
 * @s: start; moved past the digits.
 * @e: end of the line.
 * @v: the value.
 *
 * Return: 0, or -1 (no digit, or above UINT64_MAX).
 */
int trace_parse_hex(const char **s, const char *e, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	int d;

	if (p == e || cxd_hex_digit(*p) < 0)
		return -1;
	for (; p < e && (d = cxd_hex_digit(*p)) >= 0; p++) {
		if (x >> 60)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*s = p;
	*v = x;
	return 0;
}

/**
 * trace_line_error() - print `cxdvirt-sim: PATH:LINE: WHAT: TEXT`.
 * @path:   file name.
 * @lineno: line number, from 1.
 * @what:   what is wrong.
 * @s:      the line's text (cut at 200 characters) ...
 * @e:      ... up to here.
 */
void trace_line_error(const char *path, unsigned long lineno, const char *what,
		      const char *s, const char *e)
{
	int len = (int)(e - s);

	if (len > 0 && s[len - 1] == '\r')
		len--;
	if (len > 200)
		len = 200;
	cxu_err("%s:%lu: %s: %.*s", path, lineno, what,
		len, s);
}
