// SPDX-License-Identifier: GPL-2.0
/*
 * Error and usage messages of the tools (cxu_msg.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "cxu_msg.h"

static const char *prog_name;

void cxu_set_prog(const char *name)
{
	prog_name = name;
}

const char *cxu_prog(void)
{
	return prog_name ? prog_name : program_invocation_short_name;
}

void cxu_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", cxu_prog());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cxu_usage_err(const char *verb, const char *fmt, ...)
{
	const char *sep = verb ? " " : "";
	va_list ap;

	if (!verb)
		verb = "";
	if (fmt) {
		fprintf(stderr, "%s%s%s: ", cxu_prog(), sep, verb);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fprintf(stderr, "Try '%s%s%s --help'.\n", cxu_prog(), sep, verb);
	return EXIT_USAGE;
}
