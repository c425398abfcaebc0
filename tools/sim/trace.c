// SPDX-License-Identifier: GPL-2.0
/*
 * Trace files for cxdvirt-sim.
 *
 * One access per line: `R|W ADDRESS [THREAD]`. An address written with a
 * 0x prefix is a byte address (its page is address / 4096); a plain
 * decimal number is a page number. Blank lines and lines starting with #
 * are ignored. Anything else is an error naming the line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static int parse_line(char *s, struct trace_rec *r)
{
	unsigned long long v;
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == 'R' || *s == 'r')
		r->write = false;
	else if (*s == 'W' || *s == 'w')
		r->write = true;
	else
		return -1;
	s++;
	if (!isspace((unsigned char)*s))
		return -1;
	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		v = strtoull(s + 2, &end, 16);
		if (end == s + 2)
			return -1;
		v /= CXD_HOST_PAGE_SIZE;
	} else {
		v = strtoull(s, &end, 10);
	}
	if (errno)
		return -1;
	r->page = v;
	r->thread = 0;
	s = end;
	while (isspace((unsigned char)*s))
		s++;
	if (*s) {
		errno = 0;
		v = strtoull(s, &end, 10);
		if (errno || end == s || v > UINT32_MAX)
			return -1;
		r->thread = (uint32_t)v;
		s = end;
		while (isspace((unsigned char)*s))
			s++;
		if (*s)
			return -1;
	}
	return 0;
}

/**
 * trace_load() - read a whole trace file.
 * @path:	file name; "-" is standard input.
 * @t:		filled on success (free with trace_free()).
 *
 * Return: 0, or -1 after printing what is wrong (file and line).
 */
int trace_load(const char *path, struct trace *t)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, *p;
	size_t cap = 0, alloc = 0;
	unsigned long lineno = 0;
	struct trace_rec r, *nr;

	memset(t, 0, sizeof(*t));
	if (!f) {
		fprintf(stderr, "cxdvirt-sim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		p = line;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		if (parse_line(p, &r)) {
			p[strcspn(p, "\n")] = 0;
			fprintf(stderr,
				"cxdvirt-sim: %s:%lu: not `R|W ADDRESS [THREAD]`: %s\n",
				path, lineno, p);
			goto fail;
		}
		if (t->n == alloc) {
			alloc = alloc ? 2 * alloc : 4096;
			nr = realloc(t->recs, alloc * sizeof(*nr));
			if (!nr) {
				fprintf(stderr, "cxdvirt-sim: out of memory\n");
				goto fail;
			}
			t->recs = nr;
		}
		t->recs[t->n++] = r;
		if (r.page > t->max_page)
			t->max_page = r.page;
		if (r.thread >= t->threads)
			t->threads = r.thread + 1;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return 0;
fail:
	free(line);
	if (f != stdin)
		fclose(f);
	trace_free(t);
	return -1;
}

/** trace_free() - release what trace_load() allocated. @t: the trace. */
void trace_free(struct trace *t)
{
	free(t->recs);
	memset(t, 0, sizeof(*t));
}
