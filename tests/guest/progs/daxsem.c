// SPDX-License-Identifier: GPL-2.0
/*
 * daxsem: device-dax mapping semantics, checked the same way on any
 * devdax-style character device (/dev/cxdvirtN, or the kernel's /dev/daxX.Y
 * as the reference). The checks follow what ndctl's device-dax tests and
 * the kernel's drivers/dax/device.c promise a program: shared mappings
 * only, and pages the kernel can pin (O_DIRECT, process-shared futexes,
 * /proc/PID/mem, vmsplice), mremap, madvise, mprotect, mlock, fork.
 *
 *   daxsem check [-a ALIGN] [-s DEVSIZE] [-b BLKDEV] [-d NAME,...] [-R] DEV
 *	every check; each prints "ok - NAME: ..." when DEV behaves like
 *	device-dax. ALIGN (bytes, default 2 MiB) is the granularity of every
 *	mapping, split and move: device-dax refuses splits and faults below its
 *	alignment, cxdvirt accepts any page multiple. DEVSIZE (bytes) is the
 *	device's size, for the fault past its end. BLKDEV is a block device
 *	for O_DIRECT (skipped without one). NAME,... lists checks documented to
 *	differ on this device (docs/interface.md): such a check passes only if
 *	it still differs, and says so, so a change either way is seen. -R:
 *	DEV is the reference; if the kernel cannot map it at all (device-dax
 *	needs CONFIG_FS_DAX), the checks are skipped.
 *   daxsem inflight DEV BLKDEV SECONDS SPAN
 *	O_DIRECT out of and into device pages in a loop while a child process
 *	touches SPAN bytes of other device pages, so the pages under I/O are
 *	evicted while the I/O is in flight: every round's data must arrive.
 *   daxsem pinhold DEV READY GO
 *	pin one device page into a pipe (vmsplice), unmap it and close the
 *	device, create the file READY, wait for the file GO (meanwhile the
 *	caller powers the device off), then read the pipe: the pinned page
 *	still holds the data.
 *   daxsem pinreap DEV NPIN SPAN
 *	(a NAND image device) pin NPIN written device pages into a pipe,
 *	evict them by touching SPAN bytes of other pages: their host pages
 *	stay beyond the cache (image_pages); read the pipe (the pins drop),
 *	touch SPAN again: the kept pages are let go (image_pages back within
 *	the cache, stats/pinned_released), and the NPIN pages read back from
 *	the image hold their data.
 */
#include "common.h"
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif

static size_t align = 2ul << 20;
static size_t devsize;
static const char *blkdev;
static const char *known;	/* ",name,name," checks documented to differ */
static int reference;		/* -R: DEV is the kernel's device-dax */

/* --- probing an access for SIGSEGV/SIGBUS -------------------------------- */

static sigjmp_buf probe_jb;
static volatile sig_atomic_t probe_sig;

static void probe_handler(int sig)
{
	probe_sig = sig;
	siglongjmp(probe_jb, 1);
}

/* Read (or write) one byte at P: 0, SIGSEGV or SIGBUS. */
static int probe(volatile char *p, int write)
{
	struct sigaction sa = { .sa_handler = probe_handler };
	struct sigaction old_segv, old_bus;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, &old_segv);
	sigaction(SIGBUS, &sa, &old_bus);
	probe_sig = 0;
	if (!sigsetjmp(probe_jb, 1)) {
		if (write)
			*p = *p;
		else
			(void)*p;
	}
	sigaction(SIGSEGV, &old_segv, NULL);
	sigaction(SIGBUS, &old_bus, NULL);
	return probe_sig;
}

static const char *signame(int sig)
{
	return sig == 0 ? "no signal" : sig == SIGSEGV ? "SIGSEGV" :
	       sig == SIGBUS ? "SIGBUS" : "signal";
}

/*
 * Report check NAME: COND is "behaves like device-dax". A check listed in
 * -d must still differ; it passes then, marked as a known difference.
 * Returns COND, so callers go on only with what worked.
 */
static int check(const char *name, int cond, const char *fmt, ...)
{
	char key[64], msg[256];
	va_list ap;
	int differs;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(key, sizeof(key), ",%s,", name);
	differs = known && strstr(known, key);
	if (differs)
		ok(!cond, "%s: %s (differs from device-dax, documented)", name, msg);
	else
		ok(cond, "%s: %s", name, msg);
	return cond;
}

/* --- page patterns ------------------------------------------------------- */

#define WORDS	8	/* pattern words at the start of each page */

static void fill(char *p, size_t len, uint64_t seed)
{
	for (size_t off = 0; off < len; off += PAGE)
		fill_page((uint64_t *)(p + off), seed, off / PAGE, WORDS);
}

/* First wrong page offset, or -1. */
static long verify(const char *p, size_t len, uint64_t seed)
{
	for (size_t off = 0; off < len; off += PAGE)
		if (check_page((const uint64_t *)(p + off), seed, off / PAGE, WORDS) >= 0)
			return (long)off;
	return -1;
}

static void fill_full(char *p, size_t len, uint64_t seed)
{
	for (size_t off = 0; off < len; off += PAGE)
		fill_page((uint64_t *)(p + off), seed, off / PAGE, PAGE / 8);
}

static long verify_full(const char *p, size_t len, uint64_t seed)
{
	for (size_t off = 0; off < len; off += PAGE)
		if (check_page((const uint64_t *)(p + off), seed, off / PAGE, PAGE / 8) >= 0)
			return (long)off;
	return -1;
}

/* An address aligned to ALIGN with LEN bytes free behind it (reserved). */
static char *aligned_hole(size_t len)
{
	char *r = mmap(NULL, len + align, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uintptr_t a;

	if (r == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)r + align - 1) & ~(uintptr_t)(align - 1);
	if (a > (uintptr_t)r)
		munmap(r, a - (uintptr_t)r);
	munmap((char *)a + len, (uintptr_t)r + len + align - a - len);
	return (char *)a;
}

/* mmap LEN bytes of FD at an ALIGN-aligned address (device-dax needs it). */
static char *map_at_aligned(int fd, size_t len, int prot, int flags, off_t off)
{
	char *hole = aligned_hole(len);
	char *p;

	if (!hole)
		return MAP_FAILED;
	p = mmap(hole, len, prot, flags | MAP_FIXED, fd, off);
	if (p == MAP_FAILED) {
		int e = errno;

		munmap(hole, len);
		errno = e;
	}
	return p;
}

static int futex(volatile uint32_t *uaddr, int op, uint32_t val,
		 const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

static int wait_child(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

/* --- the checks ---------------------------------------------------------- */

static void check_private(const char *dev, int fd)
{
	void *p = mmap(NULL, align, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);

	check("map-private", p == MAP_FAILED && errno == EINVAL,
	      "MAP_PRIVATE refused with EINVAL (%s)",
	      p == MAP_FAILED ? errname(errno) : "mapped");
	if (p != MAP_FAILED)
		munmap(p, align);
}

static void check_rdonly(const char *dev, const char *ref)
{
	int fd = open(dev, O_RDONLY);
	char *p;
	int e;

	if (fd < 0) {
		check("rdonly-map", 0, "open O_RDONLY: %s", errname(errno));
		return;
	}
	p = map_at_aligned(fd, align, PROT_READ, MAP_SHARED, 0);
	e = errno;
	if (!check("rdonly-map", p != MAP_FAILED,
		   "PROT_READ MAP_SHARED of an O_RDONLY file (%s)",
		   p == MAP_FAILED ? errname(e) : "OK")) {
		close(fd);
		return;
	}
	check("rdonly-data", verify(p, align, 1) < 0 && memcmp(p, ref, 64) == 0,
	      "it sees what the read-write mapping wrote");
	e = mprotect(p, align, PROT_READ | PROT_WRITE) ? errno : 0;
	check("rdonly-mprotect", e == EACCES,
	      "mprotect(PROT_WRITE) fails with EACCES (%s)", errname(e));
	munmap(p, align);
	close(fd);
}

static void check_sync(int fd)
{
	char *p = map_at_aligned(fd, align, PROT_READ | PROT_WRITE,
				 MAP_SHARED_VALIDATE | MAP_SYNC, 0);
	int e = errno;

	if (!check("map-sync", p != MAP_FAILED,
		   "MAP_SHARED_VALIDATE | MAP_SYNC maps (%s)",
		   p == MAP_FAILED ? errname(e) : "OK"))
		return;
	check("map-sync-data", verify(p, align, 1) < 0,
	      "MAP_SYNC mapping sees the data");
	munmap(p, align);
}

/* O_DIRECT out of the mapping (block <- device) and back in (device <- block). */
static void check_odirect(char *p, size_t len)
{
	size_t n = 64 * PAGE;	/* 256 KiB */
	char *src = p, *dst = p + len - n;
	ssize_t w = -1, r = -1;
	int bfd, ew = 0, er = 0;
	void *tmp;

	if (!blkdev) {
		ok(1, "odirect-out # SKIP no block device");
		ok(1, "odirect-in # SKIP no block device");
		return;
	}
	bfd = open(blkdev, O_RDWR | O_DIRECT);
	if (bfd < 0) {
		check("odirect-out", 0, "open %s O_DIRECT: %s", blkdev, errname(errno));
		return;
	}
	fill_full(src, n, 21);
	w = pwrite(bfd, src, n, 0);
	ew = w < 0 ? errno : 0;
	/* What reached the block device, read into ordinary memory. */
	tmp = aligned_alloc(PAGE, n);
	memset(tmp, 0, n);
	if (w == (ssize_t)n && pread(bfd, tmp, n, 0) != (ssize_t)n)
		w = -2;
	check("odirect-out", w == (ssize_t)n && verify_full(tmp, n, 21) < 0,
	      "O_DIRECT write from the mapping to %s (%zd, %s)", blkdev, w,
	      errname(ew));

	/* Into the mapping: a known pattern on the device first. */
	fill_full(tmp, n, 22);
	if (pwrite(bfd, tmp, n, n) != (ssize_t)n)
		diag("cannot prepare %s: %s", blkdev, strerror(errno));
	memset(dst, 0, n);
	r = pread(bfd, dst, n, n);
	er = r < 0 ? errno : 0;
	check("odirect-in", r == (ssize_t)n && verify_full(dst, n, 22) < 0,
	      "O_DIRECT read from %s into the mapping (%zd, %s)", blkdev, r,
	      errname(er));
	free(tmp);
	close(bfd);
	/* Restore the pattern the later checks expect. */
	fill(src, n, 1);
	fill(dst, n, 1);
	for (size_t off = 0; off < n; off += PAGE)
		fill_page((uint64_t *)(dst + off), 1, (len - n + off) / PAGE, WORDS);
}

static void check_procmem(char *p, size_t len)
{
	uint64_t buf[WORDS], want[WORDS];
	size_t off = len / 2 + 3 * PAGE;
	ssize_t r, w;
	int fd = open("/proc/self/mem", O_RDWR);
	int er, ew;

	if (fd < 0) {
		check("procmem-read", 0, "open /proc/self/mem: %s", errname(errno));
		return;
	}
	r = pread(fd, buf, sizeof(buf), (off_t)(uintptr_t)(p + off));
	er = r < 0 ? errno : 0;
	check("procmem-read", r == sizeof(buf) &&
	      check_page(buf, 1, off / PAGE, WORDS) < 0,
	      "/proc/self/mem read of the mapping (%zd, %s)", r, errname(er));
	fill_page(want, 31, 0, WORDS);
	w = pwrite(fd, want, sizeof(want), (off_t)(uintptr_t)(p + off));
	ew = w < 0 ? errno : 0;
	check("procmem-write", w == sizeof(want) && !memcmp(p + off, want, sizeof(want)),
	      "/proc/self/mem write, seen through the mapping (%zd, %s)", w,
	      errname(ew));
	fill_page((uint64_t *)(p + off), 1, off / PAGE, WORDS);
	close(fd);
}

static void check_vmsplice(char *p)
{
	struct iovec iov = { .iov_base = p + 5 * PAGE, .iov_len = PAGE };
	char buf[PAGE];
	int pfd[2];
	ssize_t n;
	int e;

	if (pipe(pfd)) {
		check("vmsplice", 0, "pipe: %s", errname(errno));
		return;
	}
	n = vmsplice(pfd[1], &iov, 1, 0);
	e = n < 0 ? errno : 0;
	if (n == PAGE && read(pfd[0], buf, PAGE) != PAGE)
		n = -2;
	check("vmsplice", n == PAGE && check_page((uint64_t *)buf, 1, 5, WORDS) < 0,
	      "vmsplice of a mapped page into a pipe (%zd, %s)", n, errname(e));
	close(pfd[0]);
	close(pfd[1]);
}

static void check_futex(char *p)
{
	volatile uint32_t *word = (volatile uint32_t *)(p + 7 * PAGE + 64);
	struct timespec ts = { .tv_sec = 10 };
	long woken;
	pid_t pid;
	int rc, e;

	*word = 0;
	pid = fork();
	if (pid == 0) {
		while (*word == 0) {
			if (futex(word, FUTEX_WAIT, 0, &ts) &&
			    errno != EAGAIN && errno != EINTR)
				_exit(errno == ETIMEDOUT ? 2 : 3);
		}
		_exit(*word == 1 ? 0 : 4);
	}
	usleep(200000);
	*word = 1;
	woken = futex(word, FUTEX_WAKE, 1, NULL);
	e = woken < 0 ? errno : 0;
	rc = wait_child(pid);
	check("futex-shared", woken >= 0 && rc == 0,
	      "process-shared futex across fork (wake %ld %s, waiter exit %d)",
	      woken, errname(e), rc);
	fill_page((uint64_t *)(p + 7 * PAGE), 1, 7, WORDS);
}

struct shared_cond {
	pthread_mutex_t m;
	pthread_cond_t c;
	int flag;
};

static void check_condvar(char *p)
{
	struct shared_cond *s = (struct shared_cond *)(p + 9 * PAGE);
	pthread_mutexattr_t ma;
	pthread_condattr_t ca;
	pid_t waiter, signaler;
	int rw, rs;

	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&s->m, &ma);
	pthread_cond_init(&s->c, &ca);
	s->flag = 0;

	/* Both sides in children: glibc aborts on an unexpected futex error. */
	waiter = fork();
	if (waiter == 0) {
		struct timespec dl;
		int r = 0;

		clock_gettime(CLOCK_REALTIME, &dl);
		dl.tv_sec += 10;
		pthread_mutex_lock(&s->m);
		while (!s->flag && r == 0)
			r = pthread_cond_timedwait(&s->c, &s->m, &dl);
		pthread_mutex_unlock(&s->m);
		_exit(s->flag ? 0 : 2);
	}
	signaler = fork();
	if (signaler == 0) {
		usleep(200000);
		pthread_mutex_lock(&s->m);
		s->flag = 1;
		pthread_cond_signal(&s->c);
		pthread_mutex_unlock(&s->m);
		_exit(0);
	}
	rs = wait_child(signaler);
	rw = wait_child(waiter);
	check("condvar-shared", rs == 0 && rw == 0,
	      "PTHREAD_PROCESS_SHARED condition variable across processes (signaler exit %d, waiter exit %d)",
	      rs, rw);
	memset(s, 0, sizeof(*s));
	fill_page((uint64_t *)(p + 9 * PAGE), 1, 9, WORDS);
}

static void check_fork(char *p)
{
	volatile uint64_t *w = (volatile uint64_t *)(p + 11 * PAGE + 512);
	pid_t pid;
	int rc;

	*w = 0x1111;
	pid = fork();
	if (pid == 0) {
		if (*w != 0x1111 || verify(p, 4 * PAGE, 1) >= 0)
			_exit(2);
		*w = 0x2222;
		_exit(0);
	}
	rc = wait_child(pid);
	check("fork", rc == 0 && *w == 0x2222,
	      "a child sees the parent's data and the parent the child's write (exit %d)",
	      rc);
}

static void check_dontneed(char *p)
{
	int r = madvise(p, align, MADV_DONTNEED);
	int e = r ? errno : 0;

	check("madv-dontneed", r == 0 && verify(p, align, 1) < 0,
	      "MADV_DONTNEED succeeds and the data survives the refault (%s)",
	      errname(e));
}

static void check_mlock(char *p)
{
	int r = mlock(p, align), e = r ? errno : 0;
	int u = r ? -1 : munlock(p, align);

	check("mlock", r == 0 && u == 0 && verify(p, align, 1) < 0,
	      "mlock and munlock (%s)", errname(e));
}

static void check_mprotect(char *p)
{
	char *q = p + 2 * align;
	int r1, r2, sig_w, sig_r, sig_w2;

	r1 = mprotect(q, align, PROT_READ);
	sig_w = probe(q, 1);
	sig_r = probe(q, 0);
	r2 = mprotect(q, align, PROT_READ | PROT_WRITE);
	sig_w2 = probe(q, 1);
	check("mprotect", !r1 && !r2 && sig_w == SIGSEGV && !sig_r && !sig_w2 &&
	      verify(p, 3 * align, 1) < 0,
	      "mprotect of one part: write %s, read %s, writable again: %s",
	      signame(sig_w), signame(sig_r), signame(sig_w2));
}

static void check_partial_munmap(char *p)
{
	int r = munmap(p + align, align);
	int s_hole = probe(p + align, 0);
	int s_lo = probe(p, 0), s_hi = probe(p + 2 * align, 0);

	check("partial-munmap", !r && s_hole == SIGSEGV && !s_lo && !s_hi &&
	      verify(p, align, 1) < 0,
	      "munmap of a middle part (%s): hole %s, the rest readable",
	      errname(r ? errno : 0), signame(s_hole));
}

/* P maps [0, len); returns the mapping's address afterwards (len kept). */
static char *check_mremap(char *p, size_t len, int fd)
{
	char *q, *hole;
	int e, sig;

	/* Shrink in place. */
	q = mremap(p, len, len / 2, 0);
	e = errno;
	sig = q == MAP_FAILED ? -1 : probe(p + len / 2, 0);
	check("mremap-shrink", q == p && verify(p, len / 2, 1) < 0 && sig == SIGSEGV,
	      "mremap shrink (%s), the cut part %s",
	      q == MAP_FAILED ? errname(e) : "OK", signame(sig));
	if (q == MAP_FAILED)
		return p;

	/* Grow back: in place if the space is free, else moved. */
	q = mremap(p, len / 2, len, MREMAP_MAYMOVE);
	e = errno;
	if (!check("mremap-grow", q != MAP_FAILED && verify(q, len, 1) < 0,
		   "mremap grow (%s), data in the grown part",
		   q == MAP_FAILED ? errname(e) : "OK")) {
		if (q != MAP_FAILED)
			p = q;
		else
			munmap(p, len / 2);
		/* Map it whole again for the remaining checks. */
		p = map_at_aligned(fd, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
		if (p == MAP_FAILED)
			return p;
	} else {
		p = q;
	}

	/* Move to another aligned address. */
	hole = aligned_hole(len);
	q = hole ? mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, hole) : MAP_FAILED;
	e = errno;
	check("mremap-move", q == hole && verify(q, len, 1) < 0 && probe(p, 0) == SIGSEGV,
	      "mremap move (%s), data at the new address",
	      q == MAP_FAILED ? errname(e) : "OK");
	if (q != MAP_FAILED)
		p = q;
	else if (hole)
		munmap(hole, len);
	return p;
}

/* A mapping past the device's end: mapping works, faults there SIGBUS. */
static void check_past_end(int fd)
{
	size_t len = devsize + align;
	char *p, *q;
	int sin, sout, e;

	p = map_at_aligned(fd, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	e = errno;
	if (!check("map-past-end", p != MAP_FAILED,
		   "a mapping longer than the device (%zu bytes) maps (%s)", len,
		   p == MAP_FAILED ? errname(e) : "OK"))
		return;
	sin = probe(p + devsize - PAGE, 0);
	sout = probe(p + devsize, 0);
	check("fault-past-end", !sin && sout == SIGBUS,
	      "last device page %s, first page past the end %s",
	      signame(sin), signame(sout));
	munmap(p, len);

	/* mremap growth past the end: the new part raises SIGBUS too. */
	p = map_at_aligned(fd, align, PROT_READ | PROT_WRITE, MAP_SHARED,
			   devsize - align);
	if (p == MAP_FAILED)
		return;
	q = mremap(p, align, 2 * align, MREMAP_MAYMOVE);
	e = errno;
	if (q == MAP_FAILED) {
		check("mremap-grow-past-end", 0, "mremap past the end: %s",
		      errname(e));
		munmap(p, align);
		return;
	}
	sin = probe(q + align - PAGE, 0);
	sout = probe(q + align, 0);
	check("mremap-grow-past-end", !sin && sout == SIGBUS,
	      "mremap past the end: last device page %s, past the end %s",
	      signame(sin), signame(sout));
	munmap(q, 2 * align);
}

static int do_check(const char *dev)
{
	size_t len = 4 * align;
	char *p;
	int fd;

	fd = open(dev, O_RDWR);
	if (!ok(fd >= 0, "open %s O_RDWR (%s)", dev, errname(fd < 0 ? errno : 0)))
		return 1;
	p = map_at_aligned(fd, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	if (p == MAP_FAILED && reference) {
		/* e.g. a kernel without CONFIG_FS_DAX: "vma is not DAX capable" */
		ok(1, "map-shared # SKIP the reference device cannot be mapped here (%s)",
		   errname(errno));
		return 0;
	}
	if (!check("map-shared", p != MAP_FAILED, "MAP_SHARED read-write, %zu bytes (%s)",
		   len, p == MAP_FAILED ? errname(errno) : "OK"))
		return 1;
	fill(p, len, 1);
	check("data", verify(p, len, 1) < 0, "data written through the mapping reads back");

	check_private(dev, fd);
	check_rdonly(dev, p);
	check_sync(fd);
	check_odirect(p, len);
	check_procmem(p, len);
	check_vmsplice(p);
	check_futex(p);
	check_condvar(p);
	check_fork(p);
	check_dontneed(p);
	check_mlock(p);
	p = check_mremap(p, len, fd);
	if (p == MAP_FAILED)
		return !ok(0, "map the device again after mremap (%s)", errname(errno));
	check_mprotect(p);
	check_partial_munmap(p);
	munmap(p, align);
	munmap(p + 2 * align, 2 * align);
	if (devsize)
		check_past_end(fd);
	else
		ok(1, "fault-past-end # SKIP device size not given");
	close(fd);
	return tap_exit();
}

/* --- O_DIRECT while the pages under I/O are evicted ---------------------- */

static int do_inflight(const char *dev, const char *blk, int seconds, size_t span)
{
	size_t n = 16 * PAGE;
	uint64_t rounds = 0, bad = 0, ioerr = 0, seed = 100;
	uint64_t t_end = now_ns() + (uint64_t)seconds * 1000000000ull;
	char *p, *src, *dst;
	pid_t toucher;
	int fd, bfd, rc;

	p = map_dev(dev, 2 * n + span, &fd);
	if (!ok(p != NULL, "map %s (%s)", dev, p ? "OK" : errname(errno)))
		return 1;
	bfd = open(blk, O_RDWR | O_DIRECT);
	if (!ok(bfd >= 0, "open %s O_DIRECT (%s)", blk, errname(bfd < 0 ? errno : 0)))
		return 1;
	src = p;
	dst = p + n;
	toucher = fork();
	if (toucher == 0) {
		volatile char *q = p + 2 * n;

		/* Misses on other pages: each evicts a line, maybe one under I/O. */
		for (;;)
			for (size_t off = 0; off < span; off += PAGE)
				q[off]++;
	}
	while (now_ns() < t_end) {
		fill_full(src, n, seed);
		memset(dst, 0, n);
		if (pwrite(bfd, src, n, 0) != (ssize_t)n ||
		    pread(bfd, dst, n, 0) != (ssize_t)n) {
			ioerr++;
			if (ioerr == 1)
				diag("round %" PRIu64 ": %s", rounds, strerror(errno));
		} else if (verify_full(dst, n, seed) >= 0) {
			bad++;
		}
		rounds++;
		seed++;
	}
	kill(toucher, SIGKILL);
	rc = wait_child(toucher);
	diag("rounds %" PRIu64 " io errors %" PRIu64 " corrupt %" PRIu64, rounds, ioerr, bad);
	ok(rounds > 0 && ioerr == 0, "O_DIRECT out of and into device pages: %" PRIu64
	   " rounds, no I/O error", rounds);
	ok(bad == 0, "every round's data arrived (%" PRIu64 " corrupt)", bad);
	ok(rc == 128 + SIGKILL, "the toucher ran until stopped");
	close(bfd);
	munmap(p, 2 * n + span);
	close(fd);
	return tap_exit();
}

/* --- a pin that outlives the mapping, the file and the power cycle ------- */

static int wait_file(const char *path, int seconds)
{
	for (int i = 0; i < seconds * 20; i++) {
		if (!access(path, F_OK))
			return 0;
		usleep(50000);
	}
	return -1;
}

static int do_pinhold(const char *dev, const char *ready, const char *go)
{
	char buf[PAGE];
	struct iovec iov;
	int pfd[2], fd, rfd;
	ssize_t n;
	char *p;

	p = map_dev(dev, 4 * PAGE, &fd);
	if (!ok(p != NULL, "map %s (%s)", dev, p ? "OK" : errname(errno)))
		return 1;
	fill_full(p + 2 * PAGE, PAGE, 41);
	if (!ok(!pipe(pfd), "pipe"))
		return 1;
	iov.iov_base = p + 2 * PAGE;
	iov.iov_len = PAGE;
	n = vmsplice(pfd[1], &iov, 1, 0);
	if (!ok(n == PAGE, "vmsplice a device page into a pipe (%zd, %s)", n,
		errname(n < 0 ? errno : 0)))
		return 1;
	munmap(p, 4 * PAGE);
	close(fd);
	rfd = open(ready, O_CREAT | O_WRONLY, 0644);
	close(rfd);
	if (!ok(!wait_file(go, 120), "told to go on"))
		return 1;
	n = read(pfd[0], buf, PAGE);
	ok(n == PAGE && verify_full(buf, PAGE, 41) < 0,
	   "the pipe still holds the page's data (%zd)", n);
	close(pfd[0]);
	close(pfd[1]);
	return tap_exit();
}

/* --- pages pinned at eviction are let go once the pin drops -------------- */

static int64_t dev_attr_i64(const char *dev, const char *rel)
{
	char p[256];

	sys_path(p, sizeof(p), dev, rel);
	return read_i64(p);
}

static void touch_span(volatile char *q, size_t span)
{
	for (size_t off = 0; off < span; off += PAGE)
		(void)q[off];
}

static int do_pinreap(const char *dev, size_t npin, size_t span)
{
	int64_t lines = dev_attr_i64(dev, "cache_size") / PAGE;
	int64_t pe0 = dev_stat(dev, "pinned_evictions");
	int64_t pr0 = dev_stat(dev, "pinned_released");
	int64_t pages, pe, pr;
	struct iovec iov[16];
	char buf[PAGE];
	int pfd[2], fd;
	size_t i, bad = 0;
	ssize_t n;
	char *p;

	if (!ok(npin >= 1 && npin <= 16 && lines > 0 &&
		span >= 2 * (size_t)lines * PAGE,
		"NPIN 1..16 (%zu), SPAN at least twice the cache (%zu, %" PRId64 " lines)",
		npin, span, lines))
		return tap_exit();
	p = map_dev(dev, npin * PAGE + span, &fd);
	if (!ok(p != NULL, "map %s (%s)", dev, p ? "OK" : errname(errno)))
		return tap_exit();
	fill_full(p, npin * PAGE, 51);
	if (!ok(!pipe(pfd), "pipe"))
		return tap_exit();
	for (i = 0; i < npin; i++) {
		iov[i].iov_base = p + i * PAGE;
		iov[i].iov_len = PAGE;
	}
	n = vmsplice(pfd[1], iov, npin, 0);
	if (!ok(n == (ssize_t)(npin * PAGE), "vmsplice %zu device pages into a pipe (%zd, %s)",
		npin, n, errname(n < 0 ? errno : 0)))
		return tap_exit();
	touch_span(p + npin * PAGE, span);
	pe = dev_stat(dev, "pinned_evictions") - pe0;
	pages = dev_attr_i64(dev, "image_pages");
	diag("pinned: pinned_evictions +%" PRId64 ", image_pages %" PRId64 ", cache lines %" PRId64,
	     pe, pages, lines);
	ok(pe >= (int64_t)npin, "the %zu pinned pages were evicted (pinned_evictions +%" PRId64 ")",
	   npin, pe);
	ok(pages >= lines + (int64_t)npin,
	   "while pinned, their host pages stay beyond the cache (image_pages %" PRId64 " >= %" PRId64 ")",
	   pages, lines + (int64_t)npin);
	for (i = 0; i < npin; i++) {
		/* the pipe's page i is device page i, pattern 51 */
		n = read(pfd[0], buf, PAGE);
		if (n != PAGE ||
		    check_page((const uint64_t *)buf, 51, i, PAGE / 8) >= 0)
			bad++;
	}
	ok(bad == 0, "the pipe held the %zu pages' data (%zu bad)", npin, bad);
	close(pfd[0]);
	close(pfd[1]);
	touch_span(p + npin * PAGE, span);
	pr = dev_stat(dev, "pinned_released") - pr0;
	pages = dev_attr_i64(dev, "image_pages");
	diag("released: pinned_released +%" PRId64 ", image_pages %" PRId64, pr, pages);
	ok(pr >= (int64_t)npin, "the pins dropped, the kept pages were let go (pinned_released +%" PRId64 ")",
	   pr);
	ok(pages <= lines, "image_pages back within the cache (%" PRId64 " <= %" PRId64 ")",
	   pages, lines);
	ok(verify_full(p, npin * PAGE, 51) < 0,
	   "the %zu pages read back from the image hold their data", npin);
	munmap(p, npin * PAGE + span);
	close(fd);
	return tap_exit();
}

static void usage(void)
{
	fprintf(stderr, "usage: daxsem check [-a ALIGN] [-s DEVSIZE] [-b BLKDEV] [-d NAME,...] [-R] DEV\n"
		"       daxsem inflight DEV BLKDEV SECONDS SPAN\n"
		"       daxsem pinhold DEV READY GO\n"
		"       daxsem pinreap DEV NPIN SPAN\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static char kbuf[512];
	int c;

	tap_init();
	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "inflight") && argc == 6)
		return do_inflight(argv[2], argv[3], atoi(argv[4]),
				   strtoull(argv[5], NULL, 0));
	if (!strcmp(argv[1], "pinhold") && argc == 5)
		return do_pinhold(argv[2], argv[3], argv[4]);
	if (!strcmp(argv[1], "pinreap") && argc == 5)
		return do_pinreap(argv[2], strtoull(argv[3], NULL, 0),
				  strtoull(argv[4], NULL, 0));
	if (strcmp(argv[1], "check"))
		usage();
	optind = 2;
	while ((c = getopt(argc, argv, "a:s:b:d:R")) != -1) {
		switch (c) {
		case 'a':
			align = strtoull(optarg, NULL, 0);
			break;
		case 's':
			devsize = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			blkdev = optarg;
			break;
		case 'd':
			snprintf(kbuf, sizeof(kbuf), ",%s,", optarg);
			known = kbuf;
			break;
		case 'R':
			reference = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || align < PAGE || align % PAGE)
		usage();
	return do_check(argv[optind]);
}
