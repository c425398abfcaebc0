/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's reason for a failed configfs write (kmsg.c): private to
 * devfs.c, which reports it with each failed write, mkdir and rmdir.
 */
#ifndef CXU_KMSG_H
#define CXU_KMSG_H

#include <stddef.h>

/**
 * struct cxu_kmsg_mark - a position in the kernel log taken before a write.
 * @fd:		/dev/kmsg opened at its end, or -1.
 * @klog_last:	with no /dev/kmsg: the newest "cxdvirt" line seen through
 *		klogctl() before the write ("" if none).
 */
struct cxu_kmsg_mark {
	int fd;
	char klog_last[512];
};

/**
 * cxu_kmsg_mark() - remember the end of the kernel log, before a write whose
 * failure may be explained there.
 * @m:	the mark; release it with cxu_kmsg_release().
 */
void cxu_kmsg_mark(struct cxu_kmsg_mark *m);

/**
 * cxu_kmsg_reason() - the kernel log line that explains a failure since @m.
 * @m:		the mark taken before the failed operation.
 * @dev:	device name: a line naming it is preferred over other
 *		"cxdvirt" lines.
 * @buf:	the line's text without level and timestamp, "" if none.
 * @len:	size of @buf in bytes.
 */
void cxu_kmsg_reason(struct cxu_kmsg_mark *m, const char *dev, char *buf,
		     size_t len);

/** cxu_kmsg_release() - free what cxu_kmsg_mark() took. */
void cxu_kmsg_release(struct cxu_kmsg_mark *m);

#endif /* CXU_KMSG_H */
