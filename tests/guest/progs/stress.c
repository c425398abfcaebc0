// SPDX-License-Identifier: GPL-2.0
/*
 * stress SEED SECONDS PROCS THREADS DEV:CFGNAME...
 *
 * Content-checked stress of cxdvirt devices. PROCS processes with THREADS
 * threads each work on every DEV at once; page p of device d is owned by
 * worker (p % (PROCS * THREADS)), and only its owner (or a fork child of the
 * owner, while the owner waits) writes it. Every write stores a record
 * {magic, device, page, version, checksum} at the start of the page and the
 * version again in its last word; the expected version of every page lives
 * in shared anonymous memory, so any process can check any page at the end.
 *
 * At random, each worker: writes and verifies its own pages through the
 * process's long-lived mapping; maps a fresh window (mmap), verifies and
 * writes through it, then partially unmaps it, moves it (mremap), makes it
 * read-only and back (mprotect), madvise(MADV_DONTNEED) (it zaps the PTEs;
 * the data must survive) and unmaps it; forks
 * a child that writes and verifies the owner's pages and exits.
 *
 * Meanwhile a control process switches the runtime attributes (policy,
 * t_read_ns, t_prog_ns, channel_mbps, scan_interval_ms, writeback), reads the stats and
 * resets them, checking that counters never go down between its resets and
 * that misses >= evictions (the cache starts full of nothing after a reset,
 * so every eviction needs a miss... minus the lines already resident).
 * At the end it prints, per device, the GC blocks (stats/gc_runs) it read
 * just before its resets: with the stats left at the end, a lower bound of
 * the GC the run did.
 *
 * Pass: every page holds exactly its last write at the end, and no check
 * failed. Prints "seed=N" with every failure so a run can be replayed.
 */
#include "common.h"

#include <pthread.h>
#include <stdatomic.h>

#define MAGIC		0x6378647673747273ull	/* "cxdvstrs" */
#define MAX_DEVS	3

struct rec {
	uint64_t magic;
	uint32_t dev, page;
	uint64_t version;
	uint64_t sum;
};

struct devinfo {
	const char *node;	/* /dev/cxdvirtN */
	const char *cfg;	/* configfs name */
	uint64_t npages;
	uint64_t cache_lines;
	char *map;		/* per-process long-lived mapping */
};

static unsigned int seed, nprocs, nthreads, nworkers;
static double seconds;
static int ndevs;
static struct devinfo devs[MAX_DEVS];
static _Atomic uint64_t *expect[MAX_DEVS];	/* shared: version per page */
static _Atomic int *failures;			/* shared: every failed check */
static _Atomic int *content_failures;		/* shared: page contents only */
static uint64_t t_end;

#define FAIL(fmt, ...) do {						\
	atomic_fetch_add(failures, 1);					\
	printf("not ok - seed=%u " fmt "\n", seed, ##__VA_ARGS__);	\
} while (0)

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint64_t rec_sum(const struct rec *r)
{
	return (r->magic * 31 + r->dev) * 1000003 + r->page * 7919 + r->version;
}

static void write_page(char *base, int d, uint64_t pg, uint64_t version)
{
	volatile struct rec *r = (volatile struct rec *)(base + pg * PAGE);
	struct rec v = { MAGIC, d, pg, version, 0 };

	v.sum = rec_sum(&v);
	r->magic = v.magic;
	r->dev = v.dev;
	r->page = v.page;
	r->version = v.version;
	r->sum = v.sum;
	*(volatile uint64_t *)(base + pg * PAGE + PAGE - 8) = version;
}

/* Check page @pg of device @d, seen at @base (page 0 of the device). */
static int verify_page(const char *base, int d, uint64_t pg, const char *how)
{
	const volatile struct rec *r = (const volatile struct rec *)(base + pg * PAGE);
	uint64_t want = atomic_load(&expect[d][pg]);
	struct rec v = { r->magic, r->dev, r->page, r->version, r->sum };
	uint64_t tail = *(const volatile uint64_t *)(base + pg * PAGE + PAGE - 8);

	if (!want) {
		if (v.magic || v.version || tail) {
			atomic_fetch_add(content_failures, 1);
			FAIL("%s dev %d page %" PRIu64 ": never written but holds data", how, d, pg);
			return -1;
		}
		return 0;
	}
	if (v.magic != MAGIC || v.dev != (uint32_t)d || v.page != pg ||
	    v.version != want || v.sum != rec_sum(&v) || tail != want) {
		FAIL("%s dev %d page %" PRIu64 ": want version %" PRIu64
		     ", found magic %#" PRIx64 " page %u version %" PRIu64
		     " tail %" PRIu64, how, d, pg, want, v.magic, v.page,
		     v.version, tail);
		atomic_fetch_add(content_failures, 1);
		return -1;
	}
	return 0;
}

/* A random page of device @d owned by worker @w. */
static uint64_t own_page(int d, unsigned int w, uint64_t *s)
{
	uint64_t n = (devs[d].npages - w + nworkers - 1) / nworkers;

	return w + (rnd(s) % n) * nworkers;
}

static void op_write_verify(unsigned int w, uint64_t *s)
{
	int d = rnd(s) % ndevs;
	uint64_t pg = own_page(d, w, s);

	verify_page(devs[d].map, d, pg, "before write");
	write_page(devs[d].map, d, pg, atomic_load(&expect[d][pg]) + 1);
	atomic_fetch_add(&expect[d][pg], 1);
	verify_page(devs[d].map, d, pg, "after write");
}

static void op_read_any(uint64_t *s)
{
	int d = rnd(s) % ndevs;
	uint64_t pg = rnd(s) % devs[d].npages;

	(void)*(volatile uint64_t *)(devs[d].map + pg * PAGE);
}

/* Window ops on a fresh mapping of [off, off + len) pages of one device. */
static void op_window(unsigned int w, uint64_t *s)
{
	int d = rnd(s) % ndevs, fd;
	uint64_t npg = 8 + rnd(s) % 56, off, i;
	char *win, *moved;
	size_t len;

	if (npg > devs[d].npages)
		npg = devs[d].npages;
	off = rnd(s) % (devs[d].npages - npg + 1);
	len = npg * PAGE;
	fd = open(devs[d].node, O_RDWR);
	if (fd < 0) {
		FAIL("open %s: %s", devs[d].node, strerror(errno));
		return;
	}
	win = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, off * PAGE);
	close(fd);
	if (win == MAP_FAILED) {
		FAIL("mmap window: %s", strerror(errno));
		return;
	}
	/* base such that base + pg * PAGE addresses device page pg */
#define WBASE(p) ((p) - off * PAGE)
	for (i = 0; i < npg; i++) {
		uint64_t pg = off + i;

		if (pg % nworkers != w)
			continue;
		verify_page(WBASE(win), d, pg, "window");
		if (rnd(s) & 1) {
			write_page(WBASE(win), d, pg, atomic_load(&expect[d][pg]) + 1);
			atomic_fetch_add(&expect[d][pg], 1);
		}
	}
	switch (rnd(s) % 4) {
	case 0: {	/* partial munmap: drop the middle third */
		uint64_t a = npg / 3, b = 2 * npg / 3;

		if (munmap(win + a * PAGE, (b - a) * PAGE))
			FAIL("partial munmap: %s", strerror(errno));
		for (i = 0; i < npg; i++)
			if ((i < a || i >= b) && (off + i) % nworkers == w)
				verify_page(WBASE(win), d, off + i, "after partial munmap");
		munmap(win, a * PAGE);
		munmap(win + b * PAGE, (npg - b) * PAGE);
		return;
	}
	case 1: {	/* mremap: move the window onto a region we reserved */
		void *dst = mmap(NULL, len, PROT_NONE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		moved = dst == MAP_FAILED ? MAP_FAILED :
			mremap(win, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
		if (moved == MAP_FAILED) {
			if (dst != MAP_FAILED)
				munmap(dst, len);
			FAIL("mremap: %s", strerror(errno));
			break;
		}
		win = moved;
		for (i = 0; i < npg; i++)
			if ((off + i) % nworkers == w)
				verify_page(WBASE(win), d, off + i, "after mremap");
		break;
	}
	case 2:		/* mprotect read-only, read, back to read-write, write */
		if (mprotect(win, len, PROT_READ))
			FAIL("mprotect ro: %s", strerror(errno));
		for (i = 0; i < npg; i++)
			if ((off + i) % nworkers == w)
				verify_page(WBASE(win), d, off + i, "read-only");
		if (mprotect(win, len, PROT_READ | PROT_WRITE))
			FAIL("mprotect rw: %s", strerror(errno));
		for (i = 0; i < npg; i++) {
			uint64_t pg = off + i;

			if (pg % nworkers != w)
				continue;
			write_page(WBASE(win), d, pg, atomic_load(&expect[d][pg]) + 1);
			atomic_fetch_add(&expect[d][pg], 1);
		}
		break;
	case 3:		/* MADV_DONTNEED: zaps, data kept */
		if (madvise(win, len, MADV_DONTNEED))
			FAIL("madvise: unexpected %s", strerror(errno));
		for (i = 0; i < npg; i++)
			if ((off + i) % nworkers == w)
				verify_page(WBASE(win), d, off + i, "after madvise");
		break;
	}
#undef WBASE
	if (munmap(win, len))
		FAIL("munmap window: %s", strerror(errno));
}

/* fork: the child writes and checks some of the owner's pages, then exits. */
static void op_fork(unsigned int w, uint64_t *s)
{
	uint64_t cs = rnd(s) | 1;
	int status, i;
	pid_t pid = fork();

	if (pid < 0) {
		FAIL("fork: %s", strerror(errno));
		return;
	}
	if (!pid) {
		for (i = 0; i < 16; i++)
			op_write_verify(w, &cs);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		FAIL("fork child died (status %#x)", status);
}

struct worker_arg {
	unsigned int w;
};

static void *worker(void *p)
{
	struct worker_arg *a = p;
	uint64_t s = ((uint64_t)seed << 32) ^ (a->w * 0x9e3779b97f4a7c15ull) ^ 1;
	unsigned long ops = 0;

	while (now_ns() < t_end && !atomic_load(failures)) {
		unsigned int op = rnd(&s) % 100;

		if (op < 55)
			op_write_verify(a->w, &s);
		else if (op < 80)
			op_read_any(&s);
		else if (op < 97)
			op_window(a->w, &s);
		else
			op_fork(a->w, &s);
		ops++;
	}
	return (void *)ops;
}

static void run_proc(unsigned int p)
{
	pthread_t th[16];
	struct worker_arg args[16];
	unsigned long total = 0;
	unsigned int t;
	int d;

	for (d = 0; d < ndevs; d++) {
		devs[d].map = map_dev(devs[d].node, devs[d].npages * PAGE, NULL);
		if (!devs[d].map) {
			FAIL("map %s", devs[d].node);
			_exit(1);
		}
	}
	for (t = 0; t < nthreads; t++) {
		args[t].w = p * nthreads + t;
		pthread_create(&th[t], NULL, worker, &args[t]);
	}
	for (t = 0; t < nthreads; t++) {
		void *r;

		pthread_join(th[t], &r);
		total += (unsigned long)r;
	}
	printf("# proc %u: %lu operations\n", p, total);
	_exit(0);
}

static const char *const policies[] = { "fifo", "lifo", "clock", "lru", "s3fifo", "random" };
/*
 * Read order matters: evictions before misses. Counters keep moving while
 * they are read, and evictions(t1) <= misses(t1) + lines <= misses(t2) +
 * lines holds only if misses is read last.
 */
enum { C_EVICTIONS, C_WRITEBACKS, C_MINOR_HITS, C_MISSES, C_GC_RUNS };
static const char *const counters[] = {
	"evictions", "writebacks", "minor_hits", "misses", "gc_runs",
};
#define NCOUNTERS (sizeof(counters) / sizeof(counters[0]))

static void cfg_write(int d, const char *attr, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/kernel/config/cxdvirt/%s/%s", devs[d].cfg, attr);
	/* unknown policies (not built) and the like may be refused: fine */
	write_attr(path, val);
}

/* Switch runtime attributes, read and reset stats, check monotonicity. */
static void run_control(void)
{
	uint64_t s = seed ^ 0xc0ffee, last[MAX_DEVS][NCOUNTERS] = { { 0 } };
	uint64_t gc[MAX_DEVS] = { 0 };
	unsigned long rounds = 0;
	char v[32];
	unsigned int i;
	int d;

	while (now_ns() < t_end && !atomic_load(failures)) {
		d = rnd(&s) % ndevs;
		switch (rnd(&s) % 8) {
		case 6:
			cfg_write(d, "writeback", rnd(&s) & 1 ? "drain" : "evict");
			break;
		case 0:
			cfg_write(d, "policy", policies[rnd(&s) % 6]);
			break;
		case 1:
			snprintf(v, sizeof(v), "%" PRIu64, rnd(&s) % 20000);
			cfg_write(d, "t_read_ns", v);
			break;
		case 2:
			snprintf(v, sizeof(v), "%" PRIu64, rnd(&s) % 50000);
			cfg_write(d, "t_prog_ns", v);
			break;
		case 3:
			snprintf(v, sizeof(v), "%" PRIu64, 100 + rnd(&s) % 3000);
			cfg_write(d, "channel_mbps", v);
			break;
		case 4:
			snprintf(v, sizeof(v), "%" PRIu64, rnd(&s) % 50);
			cfg_write(d, "scan_interval_ms", v);
			break;
		case 5: {
			/* GC blocks reclaimed up to the reset (a lower bound) */
			int64_t g = dev_stat(devs[d].node, "gc_runs");

			if (g > 0)
				gc[d] += g;
			if (dev_stats_reset(devs[d].node))
				FAIL("stats reset of %s", devs[d].node);
			for (i = 0; i < NCOUNTERS; i++)
				last[d][i] = 0;
			break;
		}
		default: {
			int64_t c[NCOUNTERS];

			for (i = 0; i < NCOUNTERS; i++) {
				c[i] = dev_stat(devs[d].node, counters[i]);
				if (c[i] < 0) {
					FAIL("read stats/%s of %s", counters[i], devs[d].node);
					continue;
				}
				if ((uint64_t)c[i] < last[d][i])
					FAIL("stats/%s of %s went down: %" PRIu64 " -> %" PRId64,
					     counters[i], devs[d].node, last[d][i], c[i]);
				last[d][i] = c[i];
			}
			/* An eviction needs a miss, except for lines resident at the reset. */
			if (c[C_MISSES] >= 0 && c[C_EVICTIONS] >= 0 &&
			    (uint64_t)c[C_EVICTIONS] > (uint64_t)c[C_MISSES] + devs[d].cache_lines)
				FAIL("%s: evictions %" PRId64 " > misses %" PRId64 " + cache lines %" PRIu64,
				     devs[d].node, c[C_EVICTIONS], c[C_MISSES], devs[d].cache_lines);
		}
		}
		rounds++;
		usleep(2000 + rnd(&s) % 8000);
	}
	printf("# control: %lu rounds\n", rounds);
	for (d = 0; d < ndevs; d++)
		printf("# control: %s gc_runs before resets %" PRIu64 "\n",
		       devs[d].cfg, gc[d]);
	_exit(0);
}

int main(int argc, char **argv)
{
	pid_t pids[17];
	unsigned int p, np;
	uint64_t pg, checked = 0;
	int d, status, i;

	tap_init();
	if (argc < 6) {
		fprintf(stderr, "usage: stress SEED SECONDS PROCS THREADS DEV:CFGNAME...\n");
		return 2;
	}
	seed = strtoul(argv[1], NULL, 0);
	seconds = strtod(argv[2], NULL);
	nprocs = strtoul(argv[3], NULL, 0);
	nthreads = strtoul(argv[4], NULL, 0);
	if (!nprocs || nprocs > 16 || !nthreads || nthreads > 16) {
		fprintf(stderr, "stress: 1..16 processes and threads\n");
		return 2;
	}
	nworkers = nprocs * nthreads;
	for (i = 5; i < argc && ndevs < MAX_DEVS; i++, ndevs++) {
		char *colon = strchr(argv[i], ':');
		int64_t cap, cache;

		if (!colon)
			return 2;
		*colon = '\0';
		devs[ndevs].node = argv[i];
		devs[ndevs].cfg = colon + 1;
		cap = dev_stat(argv[i], "../capacity");
		cache = dev_stat(argv[i], "../cache_size");
		if (cap <= 0 || cache <= 0) {
			FAIL("cannot read capacity of %s", argv[i]);
			return 1;
		}
		devs[ndevs].npages = cap / PAGE;
		devs[ndevs].cache_lines = cache / PAGE;
		if (devs[ndevs].npages < 64 + nworkers)
			return 2;
		expect[ndevs] = mmap(NULL, devs[ndevs].npages * sizeof(uint64_t),
				     PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (expect[ndevs] == MAP_FAILED)
			return 1;
	}
	failures = mmap(NULL, 2 * sizeof(*failures), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (failures == MAP_FAILED)
		return 1;
	content_failures = failures + 1;
	printf("# stress seed=%u %.1fs %u procs x %u threads on %d devices\n",
	       seed, seconds, nprocs, nthreads, ndevs);
	t_end = now_ns() + (uint64_t)(seconds * 1e9);

	for (p = 0; p <= nprocs; p++) {
		pids[p] = fork();
		if (pids[p] < 0) {
			FAIL("fork: %s", strerror(errno));
			return 1;
		}
		if (!pids[p]) {
			if (p == nprocs)
				run_control();
			run_proc(p);
		}
	}
	np = nprocs + 1;
	for (p = 0; p < np; p++) {
		if (waitpid(pids[p], &status, 0) != pids[p] || !WIFEXITED(status) ||
		    WEXITSTATUS(status))
			FAIL("process %u died (status %#x)", p, status);
	}

	/* Final check of every page of every device through a fresh mapping. */
	for (d = 0; d < ndevs; d++) {
		char *m = map_dev(devs[d].node, devs[d].npages * PAGE, NULL);

		if (!m) {
			FAIL("final map of %s", devs[d].node);
			continue;
		}
		for (pg = 0; pg < devs[d].npages; pg++) {
			if (atomic_load(&expect[d][pg]))
				checked++;
			if (verify_page(m, d, pg, "final") && atomic_load(failures) > 20)
				break;
		}
		munmap(m, devs[d].npages * PAGE);
	}
	ok(!atomic_load(content_failures), "seed=%u: every page holds its last write (%"
	   PRIu64 " written pages checked)", seed, checked);
	ok(!atomic_load(failures), "seed=%u: no check failed (%d failures)", seed,
	   atomic_load(failures));
	return tap_exit();
}
