// SPDX-License-Identifier: GPL-2.0
/*
 * Standard trace input for cxdvirt-sim: valgrind's lackey and the module's
 * cxdvirt_miss tracepoint.
 *
 * lackey (`valgrind --tool=lackey --trace-mem=yes PROG`, valgrind's log):
 *
 *   I  0040107c,3        instruction fetch (ignored unless --lackey-instr)
 *    L 1ffefff9f8,8      data load          -> R
 *    S 1ffefff9f0,8      data store         -> W
 *    M 0050a2c8,4        data modify        -> R, then W (load + store)
 *
 * Addresses are hexadecimal virtual byte addresses; page = address / 4096.
 * An access that straddles a page boundary is one access to each page it
 * touches. Valgrind's own `==PID==` lines and blank lines are skipped.
 *
 * cxdvirt_miss tracepoint, one line per miss as trace_pipe or `perf script`
 * print it, anything before the event name:
 *
 *   ... cxdvirt_miss: dev=cxd0 page=123 cause=read die=3 queue_ns=0 model_ns=6414 measured_ns=7012
 *
 * Each such line is a read of device page `page` (the replay regenerates
 * the timing from the model). Lines of other events and comments are
 * skipped. A trace of several devices needs --dev NAME.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cxu_msg.h"
#include "sim.h"

static const char *line_end(const char *p, const char *end)
{
	const char *e = memchr(p, '\n', (size_t)(end - p));

	return e ? e : end;
}

static bool blank(const char *s, const char *e)
{
	while (s < e && is_space(*s))
		s++;
	return s == e;
}

/**
 * trace_parse_lackey() - read lackey output into @b.
 * @path: file name, for messages.
 * @p:    the text ...
 * @end:  ... up to here.
 * @o:    lackey_instr: instruction fetches become reads.
 * @b:    records appended here.
 *
 * Return: 0, or -1 after printing the file and line that is wrong.
 */
int trace_parse_lackey(const char *path, const char *p, const char *end,
		       const struct trace_opts *o, struct trace_buf *b)
{
	unsigned long lineno = 0;
	uint64_t addr, size, pg, last;
	const char *e, *s;
	char kind;

	for (; p < end; p = e + 1) {
		e = line_end(p, end);
		lineno++;
		if (e - p >= 2 && p[0] == '=' && p[1] == '=')
			continue;
		if (blank(p, e))
			continue;
		if (e - p < 4 || p[2] != ' ' ||
		    !((p[0] == 'I' && p[1] == ' ') ||
		      (p[0] == ' ' && (p[1] == 'L' || p[1] == 'S' || p[1] == 'M'))))
			goto bad;
		kind = p[0] == 'I' ? 'I' : p[1];
		s = p + 3;
		while (s < e && *s == ' ')
			s++;
		if (trace_parse_hex(&s, e, &addr) || s == e || *s++ != ',' ||
		    trace_parse_dec(&s, e, &size) || !blank(s, e))
			goto bad;
		if (kind == 'I' && !o->lackey_instr)
			continue;
		if (!size)
			size = 1;
		if (addr + (size - 1) < addr)
			goto bad;
		last = (addr + (size - 1)) / CXD_HOST_PAGE_SIZE;
		if (last > TRACE_PAGE_MAX) {
			trace_line_error(path, lineno, "address beyond 2^60", p, e);
			return -1;
		}
		for (pg = addr / CXD_HOST_PAGE_SIZE; pg <= last; pg++) {
			if (kind != 'S' && trace_push(b, pg, false, 0))
				return -1;
			if ((kind == 'S' || kind == 'M') && trace_push(b, pg, true, 0))
				return -1;
		}
	}
	return 0;
bad:
	trace_line_error(path, lineno,
			 "not a lackey line (`I  ADDR,SIZE`, ` L|S|M ADDR,SIZE`)",
			 p, e);
	return -1;
}

/* The value of field @key= in the words of [s, e), or NULL. */
static const char *field(const char *s, const char *e, const char *key,
			 const char **vend)
{
	size_t kl = strlen(key);
	const char *w;

	while (s < e) {
		while (s < e && is_space(*s))
			s++;
		for (w = s; s < e && !is_space(*s); s++)
			;
		if ((size_t)(s - w) > kl && !memcmp(w, key, kl) && w[kl] == '=') {
			*vend = s;
			return w + kl + 1;
		}
	}
	return NULL;
}

/**
 * trace_parse_tracepoint() - read cxdvirt_miss tracepoint lines into @b.
 * @path: file name, for messages.
 * @p:    the text ...
 * @end:  ... up to here.
 * @o:    dev: the device whose misses to replay (NULL: only one allowed).
 * @b:    records appended here (reads).
 *
 * Return: 0, or -1 after printing what is wrong (the line, or a second
 * device without --dev, or no miss at all).
 */
int trace_parse_tracepoint(const char *path, const char *p, const char *end,
			   const struct trace_opts *o, struct trace_buf *b)
{
	static const char ev[] = "cxdvirt_miss:";
	const char *e, *s, *dv, *dvend, *pv, *pvend;
	unsigned long lineno = 0;
	char first[64] = "";
	uint64_t page;
	size_t dl;

	for (; p < end; p = e + 1) {
		e = line_end(p, end);
		lineno++;
		s = memmem(p, (size_t)(e - p), ev, sizeof(ev) - 1);
		if (!s)
			continue;
		s += sizeof(ev) - 1;
		dv = field(s, e, "dev", &dvend);
		pv = field(s, e, "page", &pvend);
		if (!dv || !pv || trace_parse_dec(&pv, pvend, &page) ||
		    pv != pvend) {
			trace_line_error(path, lineno,
					 "cxdvirt_miss without dev=NAME page=N", p, e);
			return -1;
		}
		dl = (size_t)(dvend - dv);
		if (o->dev) {
			if (dl != strlen(o->dev) || memcmp(dv, o->dev, dl))
				continue;
		} else if (!first[0]) {
			snprintf(first, sizeof(first), "%.*s", (int)dl, dv);
		} else if (dl != strlen(first) || memcmp(dv, first, dl)) {
			cxu_err(
				"%s:%lu: misses of two devices (%s, %.*s): pick one with --dev NAME",
				path, lineno, first, (int)dl, dv);
			return -1;
		}
		if (page > TRACE_PAGE_MAX) {
			trace_line_error(path, lineno, "page beyond 2^48", p, e);
			return -1;
		}
		if (trace_push(b, page, false, 0))
			return -1;
	}
	if (!b->n) {
		cxu_err("%s: no cxdvirt_miss line%s%s",
			path, o->dev ? " of device " : "", o->dev ? o->dev : "");
		return -1;
	}
	return 0;
}
