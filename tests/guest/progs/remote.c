// SPDX-License-Identifier: GPL-2.0
/*
 * remote: node-mode pages that another process installs in this one's
 * memory (docs/numa-mode.md).
 *
 *   remote HOW NODE DEV NPAGES
 *
 * HOW is vmwritev or uffd. The owner maps NPAGES private anonymous pages
 * bound to NODE (mbind MPOL_BIND) and touches none of them itself; the
 * installer, a forked process, writes each page's content into the
 * owner's memory:
 *
 *   vmwritev  process_vm_writev(2) from the installer (its first touch of
 *             each page happens in the owner's address space, by the
 *             installer's task);
 *   uffd      the owner registers the range with userfaultfd and reads the
 *             pages; the installer, which inherited the userfaultfd,
 *             answers every fault with UFFDIO_COPY.
 *
 * Then the owner reads all pages three times (cyclic passes) and prints
 * "install accesses N" (stats/misses and minor_hits during the
 * installation), "P<k> misses
 * N" for each pass and a TAP line per pass for the content. With NPAGES
 * above the cache every later pass must miss on nearly every page: the
 * pages the installer put there are under the model like the owner's own.
 */
#include "node.h"

#include <linux/userfaultfd.h>
#include <numaif.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#define SEED	0x7e3070ull

/* The installer of vmwritev: write every page of @pid's range at @b. */
static int install_vmwritev(pid_t pid, uint64_t *b, unsigned long n)
{
	uint64_t *src = malloc(PAGE);
	struct iovec l, r;
	unsigned long i;

	if (!src)
		return 1;
	for (i = 0; i < n; i++) {
		fill_page(src, SEED + i, i, PAGE / 8);
		l.iov_base = src;
		l.iov_len = PAGE;
		r.iov_base = b + i * (PAGE / 8);
		r.iov_len = PAGE;
		if (process_vm_writev(pid, &l, 1, &r, 1, 0) != (ssize_t)PAGE) {
			diag("process_vm_writev page %lu: %s", i, strerror(errno));
			return 1;
		}
	}
	return 0;
}

/* The installer of uffd: answer @n missing-page faults with UFFDIO_COPY. */
static int install_uffd(int uffd, uint64_t *b, unsigned long n)
{
	uint64_t *src = aligned_alloc(PAGE, PAGE);
	struct uffdio_copy cp;
	struct uffd_msg msg;
	struct pollfd pfd = { .fd = uffd, .events = POLLIN };
	unsigned long done = 0, i;

	if (!src)
		return 1;
	while (done < n) {
		if (poll(&pfd, 1, 20000) != 1) {
			diag("uffd: no fault for 20 s after %lu pages", done);
			return 1;
		}
		if (read(uffd, &msg, sizeof(msg)) != sizeof(msg))
			continue;
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		i = (msg.arg.pagefault.address - (uintptr_t)b) / PAGE;
		fill_page(src, SEED + i, i, PAGE / 8);
		cp.dst = (uintptr_t)b + i * PAGE;
		cp.src = (uintptr_t)src;
		cp.len = PAGE;
		cp.mode = 0;
		cp.copy = 0;
		if (ioctl(uffd, UFFDIO_COPY, &cp) && errno != EEXIST) {
			diag("UFFDIO_COPY page %lu: %s", i, strerror(errno));
			return 1;
		}
		done++;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *how, *dev;
	unsigned long n, i, bad;
	int node, uffd = -1, go[2], st, pass;
	struct uffdio_register reg;
	struct uffdio_api api = { .api = UFFD_API };
	uint64_t *b;
	int64_t m, h;
	pid_t pid;
	char c;

	tap_init();
	if (argc != 5) {
		fprintf(stderr, "usage: remote vmwritev|uffd NODE DEV NPAGES\n");
		return 2;
	}
	how = argv[1];
	node = atoi(argv[2]);
	dev = argv[3];
	n = strtoul(argv[4], NULL, 0);
	b = node_buf(node, n);
	if (!ok(b != NULL, "%s: %lu private anonymous pages bound to node %d",
		how, n, node))
		return tap_exit();
	if (!strcmp(how, "uffd")) {
		uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
		if (!ok(uffd >= 0 && !ioctl(uffd, UFFDIO_API, &api),
			"uffd: userfaultfd and its API (%s)",
			uffd < 0 ? strerror(errno) : "ok"))
			return tap_exit();
	}
	if (pipe(go))
		return 1;
	m = dev_stat(dev, "misses");
	h = dev_stat(dev, "minor_hits");
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		_exit(uffd >= 0 ? install_uffd(uffd, b, n) :
		      install_vmwritev(getppid(), b, n));
	}
	close(go[0]);
	if (uffd >= 0) {
		/* registered after the fork: the child's copy is not */
		reg.range.start = (uintptr_t)b;
		reg.range.len = n * PAGE;
		reg.mode = UFFDIO_REGISTER_MODE_MISSING;
		if (!ok(!ioctl(uffd, UFFDIO_REGISTER, &reg),
			"uffd: range registered (%s)", strerror(errno)))
			return tap_exit();
	}
	if (write(go[1], "g", 1) != 1)
		return 1;
	if (uffd >= 0) {
		/* every read faults to the installer, which copies the page in */
		for (i = 0; i < n; i++)
			(void)*(volatile uint64_t *)(b + i * (PAGE / 8));
	}
	if (waitpid(pid, &st, 0) != pid)
		st = -1;
	ok(st != -1 && WIFEXITED(st) && !WEXITSTATUS(st),
	   "%s: the installer wrote %lu pages (status %d)", how, n,
	   st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	/* a frame freed by an earlier run may still have its line: a hit */
	printf("install accesses %" PRId64 "\n",
	       dev_stat(dev, "misses") - m + dev_stat(dev, "minor_hits") - h);
	for (pass = 1; pass <= 3; pass++) {
		m = dev_stat(dev, "misses");
		bad = 0;
		for (i = 0; i < n; i++)
			if (check_page(b + i * (PAGE / 8), SEED + i, i, PAGE / 8) >= 0)
				bad++;
		printf("P%d misses %" PRId64 "\n", pass, dev_stat(dev, "misses") - m);
		ok(!bad, "%s, pass %d: every page holds what the installer wrote (%lu bad)",
		   how, pass, bad);
	}
	return tap_exit();
}
