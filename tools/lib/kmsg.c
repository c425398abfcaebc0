// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's reason for a failed configfs write. The module answers a bad
 * value with EINVAL and one kernel log line naming the device, the attribute
 * and the reason; this file finds that line so the tool can print it next to
 * strerror(). Best effort: any failure here only means no reason is shown.
 *
 * Preferred source: /dev/kmsg, opened and positioned at its end before the
 * write (cxu_kmsg_mark()), then read after it (cxu_kmsg_reason()): only records
 * logged in between are considered. Fallback when /dev/kmsg cannot be
 * opened: klogctl(SYSLOG_ACTION_READ_ALL) before and after, and the newest
 * "cxdvirt" line if it changed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <unistd.h>

#include "kmsg.h"

#define KMSG_PATH		"/dev/kmsg"
#define KMSG_RECORD_MAX		8192
#define KMSG_MAX_RECORDS	4096	/* give up after this many new records */
#define SYSLOG_ACTION_READ_ALL	3
#define SYSLOG_ACTION_SIZE_BUFFER 10
#define MATCH			"cxdvirt"

/* Copy the first line of @s (at most @len - 1 bytes) to @buf. */
static void copy_line(char *buf, size_t len, const char *s)
{
	size_t n = strcspn(s, "\n");

	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/*
 * The newest kernel log line containing MATCH, through klogctl(), without
 * its "<level>[timestamp] " prefix, in @buf; "" if none or not readable.
 */
static void klog_last_match(char *buf, size_t len)
{
	char *log, *line, *next, *best = NULL;
	int size, n;

	buf[0] = '\0';
	size = klogctl(SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
	if (size <= 0)
		return;
	log = malloc((size_t)size + 1);
	if (!log)
		return;
	n = klogctl(SYSLOG_ACTION_READ_ALL, log, size);
	if (n <= 0) {
		free(log);
		return;
	}
	log[n] = '\0';
	for (line = log; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strcasestr(line, MATCH))
			best = line;
	}
	if (best) {
		if (best[0] == '<' && strchr(best, '>'))
			best = strchr(best, '>') + 1;
		if (best[0] == '[' && strchr(best, ']')) {
			best = strchr(best, ']') + 1;
			best += strspn(best, " ");
		}
		copy_line(buf, len, best);
	}
	free(log);
}

void cxu_kmsg_mark(struct cxu_kmsg_mark *m)
{
	m->klog_last[0] = '\0';
	m->fd = open(KMSG_PATH, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (m->fd >= 0 && lseek(m->fd, 0, SEEK_END) < 0) {
		close(m->fd);
		m->fd = -1;
	}
	if (m->fd < 0)
		klog_last_match(m->klog_last, sizeof(m->klog_last));
}

void cxu_kmsg_reason(struct cxu_kmsg_mark *m, const char *dev, char *buf,
		     size_t len)
{
	char rec[KMSG_RECORD_MAX + 1], any[512] = "", named[512] = "";
	const char *msg;
	ssize_t r;
	int i;

	buf[0] = '\0';
	if (m->fd < 0) {
		char now[sizeof(m->klog_last)];

		klog_last_match(now, sizeof(now));
		if (now[0] && strcmp(now, m->klog_last))
			copy_line(buf, len, now);
		return;
	}
	for (i = 0; i < KMSG_MAX_RECORDS; i++) {
		r = read(m->fd, rec, KMSG_RECORD_MAX);
		if (r < 0 && (errno == EINTR || errno == EPIPE))
			continue;	/* EPIPE: records overwritten, go on */
		if (r <= 0)
			break;		/* EAGAIN: no more records */
		rec[r] = '\0';
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		if (!strcasestr(msg, MATCH))
			continue;
		copy_line(any, sizeof(any), msg);
		if (dev && strstr(any, dev))
			copy_line(named, sizeof(named), msg);
	}
	copy_line(buf, len, named[0] ? named : any);
}

void cxu_kmsg_release(struct cxu_kmsg_mark *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}
