/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tools' messages and exit statuses: every error line is
 * "<program>: <message>", every usage error ends with a pointer to --help.
 */
#ifndef CXU_MSG_H
#define CXU_MSG_H

/* Exit statuses of every tool. */
#define EXIT_OK		0	/* success */
#define EXIT_ERR	1	/* an error: the kernel refused, no such file, ... */
#define EXIT_USAGE	2	/* a usage error: nothing was done */

/**
 * cxu_set_prog() - name the program in messages.
 * @name:	"cxdvirt-dev", ... (kept, not copied). Without a call the
 *		name is the one the program was run by.
 *
 * Context: call once, first thing in main().
 */
void cxu_set_prog(const char *name);

/** cxu_prog() - the name cxu_set_prog() gave, or the invocation's name. */
const char *cxu_prog(void);

/**
 * cxu_err() - print "<program>: <message>" and a newline to stderr.
 * @fmt:	printf format of the message.
 */
void cxu_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * cxu_usage_err() - report a usage error and where help is.
 * @verb:	the subcommand the error is about, or NULL for the program.
 * @fmt:	printf format of the message, or NULL when one was printed
 *		already (getopt's own).
 *
 * Prints "<program>[ <verb>]: <message>", then
 * "Try '<program>[ <verb>] --help'." on stderr.
 *
 * Return: EXIT_USAGE.
 */
int cxu_usage_err(const char *verb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* CXU_MSG_H */
