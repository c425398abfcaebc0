// SPDX-License-Identifier: GPL-2.0
/*
 * harden: checks of the fault path and the device lifecycle.
 *
 *   harden rdonly DEV
 *	a read-only file maps MAP_SHARED with PROT_READ and sees what a
 *	read-write mapping wrote; it cannot be made writable.
 *   harden zero DEV FIRST COUNT
 *	pages FIRST .. FIRST+COUNT-1 read as zero (fresh power cycle).
 *   harden lockwait DEV TR_NS THREADS
 *	THREADS threads miss distinct pages queued on one die (tR TR_NS) while
 *	another thread of the process maps and unmaps anonymous memory: its
 *	mmap/munmap must not wait for the misses.
 *   harden kill DEV TR_NS THREADS
 *	a child with THREADS threads queued on one die is SIGKILLed: it must
 *	die long before its queue of misses drains.
 *   harden bigmap DEV GIB MS
 *	map GIB GiB of DEV, touch page 0, let the scan run MS ms: page tables
 *	grow by far less than the mapping's 2 MiB per GiB.
 *   harden maps DEV N
 *	map N single pages one by one, then unmap them newest first; prints
 *	the time of each phase ("# maps N map_us A unmap_us B").
 *   harden inflight DEV THREADS ROUNDS
 *	THREADS threads each write and read back their own page ROUNDS times
 *	on a cache smaller than THREADS: every access completes and sees its
 *	own data.
 */
#include "common.h"
#include <pthread.h>

static int rdonly(const char *dev)
{
	volatile uint64_t *rw;
	const volatile uint64_t *ro;
	int fd, rofd;
	void *p;

	rw = map_dev(dev, 4 * PAGE, &fd);
	if (!ok(rw != NULL, "read-write MAP_SHARED of %s (%s)", dev,
		rw ? "OK" : errname(errno)))
		return 1;
	for (int pg = 0; pg < 4; pg++)
		fill_page(rw + pg * PAGE / 8, 11, pg, PAGE / 8);

	rofd = open(dev, O_RDONLY);
	if (!ok(rofd >= 0, "open O_RDONLY"))
		return 1;
	p = mmap(NULL, 4 * PAGE, PROT_READ, MAP_SHARED, rofd, 0);
	if (!ok(p != MAP_FAILED, "PROT_READ MAP_SHARED of a read-only file (%s)",
		p == MAP_FAILED ? errname(errno) : "OK"))
		return 1;
	ro = p;
	for (int pg = 0; pg < 4; pg++) {
		long w = check_page(ro + pg * PAGE / 8, 11, pg, PAGE / 8);

		ok(w < 0, "read-only mapping sees page %d as written (word %ld)", pg, w);
	}
	ok(mprotect(p, PAGE, PROT_READ | PROT_WRITE) != 0 && errno == EACCES,
	   "mprotect(PROT_WRITE) on it fails with EACCES (%s)", errname(errno));
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, rofd, 0);
	ok(p == MAP_FAILED && errno == EACCES,
	   "PROT_WRITE MAP_SHARED of a read-only file fails with EACCES (%s)",
	   p == MAP_FAILED ? errname(errno) : "mapped");
	munmap((void *)ro, 4 * PAGE);
	munmap((void *)rw, 4 * PAGE);
	close(rofd);
	close(fd);
	return tap_exit();
}

static int zero(const char *dev, unsigned long first, unsigned long count)
{
	volatile uint64_t *m;
	unsigned long bad = 0, pg;
	int fd;

	m = map_dev(dev, (first + count) * PAGE, &fd);
	if (!ok(m != NULL, "map %s (%s)", dev, m ? "OK" : errname(errno)))
		return 1;
	for (pg = first; pg < first + count; pg++) {
		for (unsigned int w = 0; w < PAGE / 8; w++) {
			if (m[pg * PAGE / 8 + w]) {
				if (bad++ < 3)
					diag("page %lu word %u: 0x%" PRIx64, pg, w,
					     m[pg * PAGE / 8 + w]);
				break;
			}
		}
	}
	ok(bad == 0, "pages %lu-%lu read as zero (%lu not)", first,
	   first + count - 1, bad);
	munmap((void *)m, (first + count) * PAGE);
	close(fd);
	return tap_exit();
}

/* Threads start their accesses together (thread creation itself takes mmap_lock). */
static pthread_barrier_t go;

struct miss_arg {
	volatile char *map;
	unsigned long page;
};

static void *miss_thread(void *a)
{
	struct miss_arg *m = a;

	pthread_barrier_wait(&go);
	(void)m->map[m->page * PAGE];
	return NULL;
}

static volatile char *map_queue(const char *dev, unsigned long threads, int *fd)
{
	volatile char *m = map_dev(dev, threads * PAGE, fd);

	ok(m != NULL, "map %lu pages of %s (%s)", threads, dev,
	   m ? "OK" : errname(errno));
	return m;
}

static int lockwait(const char *dev, uint64_t tr, unsigned long threads)
{
	pthread_t *t = calloc(threads, sizeof(*t));
	struct miss_arg *a = calloc(threads, sizeof(*a));
	uint64_t t0, start, worst = 0, ops = 0, d;
	volatile char *m;
	int fd;

	m = map_queue(dev, threads, &fd);
	if (!m || !t || !a)
		return 1;
	pthread_barrier_init(&go, NULL, threads + 1);
	for (unsigned long i = 0; i < threads; i++) {
		a[i].map = m;
		a[i].page = i;
		pthread_create(&t[i], NULL, miss_thread, &a[i]);
	}
	pthread_barrier_wait(&go);
	start = now_ns();
	/* While the queue drains (threads x tR), map and unmap. */
	while (now_ns() - start < threads * tr) {
		void *p;

		t0 = now_ns();
		p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED)
			munmap(p, PAGE);
		d = now_ns() - t0;
		if (d > worst)
			worst = d;
		ops++;
	}
	for (unsigned long i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	diag("%" PRIu64 " mmap+munmap during %lu queued misses of tR %" PRIu64
	     " ns; slowest %" PRIu64 " ns", ops, threads, tr, worst);
	ok(worst < tr / 2, "mmap+munmap never waited for a miss (slowest %" PRIu64
	   " ns, tR %" PRIu64 " ns)", worst, tr);
	munmap((void *)m, threads * PAGE);
	close(fd);
	free(t);
	free(a);
	return tap_exit();
}

static int killwait(const char *dev, uint64_t tr, unsigned long threads)
{
	uint64_t t0, d;
	pid_t pid;
	int st;

	sigset_t usr1;
	int sig;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	pid = fork();
	if (pid == 0) {
		pthread_t t;
		struct miss_arg *a = calloc(threads, sizeof(*a));
		volatile char *m;
		int fd;

		m = map_dev(dev, threads * PAGE, &fd);
		if (!m)
			_exit(3);
		pthread_barrier_init(&go, NULL, threads + 1);
		for (unsigned long i = 0; i < threads; i++) {
			a[i].map = m;
			a[i].page = i;
			pthread_create(&t, NULL, miss_thread, &a[i]);
		}
		pthread_barrier_wait(&go);
		kill(getppid(), SIGUSR1);
		pause();
		_exit(0);
	}
	/* The child's threads are released: let them queue their misses. */
	sigwait(&usr1, &sig);
	usleep(tr / 1000 * 2);
	t0 = now_ns();
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	d = now_ns() - t0;
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "child killed by SIGKILL");
	diag("SIGKILL took %" PRIu64 " ns; the queue was %lu x %" PRIu64 " ns",
	     d, threads, tr);
	ok(d < threads * tr / 3, "SIGKILL does not wait for the queued misses (%" PRIu64
	   " ms, queue %" PRIu64 " ms)", d / 1000000, threads * tr / 1000000);
	return tap_exit();
}

struct own_arg {
	volatile uint64_t *map;
	unsigned long page, rounds, bad;
};

static void *own_thread(void *arg)
{
	struct own_arg *a = arg;
	volatile uint64_t *p = a->map + a->page * PAGE / 8;

	pthread_barrier_wait(&go);
	for (unsigned long r = 0; r < a->rounds; r++) {
		p[0] = r * 1000 + a->page;
		if (p[0] != r * 1000 + a->page)
			a->bad++;
		usleep(300);	/* let the other threads' misses evict the page */
	}
	return NULL;
}

static int inflight(const char *dev, unsigned long threads, unsigned long rounds)
{
	pthread_t *t = calloc(threads, sizeof(*t));
	struct own_arg *a = calloc(threads, sizeof(*a));
	volatile uint64_t *m;
	unsigned long bad = 0;
	uint64_t t0;
	int fd;

	m = map_dev(dev, threads * PAGE, &fd);
	if (!ok(m != NULL, "map %s", dev))
		return 1;
	pthread_barrier_init(&go, NULL, threads + 1);
	for (unsigned long i = 0; i < threads; i++) {
		a[i] = (struct own_arg){ .map = m, .page = i, .rounds = rounds };
		pthread_create(&t[i], NULL, own_thread, &a[i]);
	}
	pthread_barrier_wait(&go);
	t0 = now_ns();
	for (unsigned long i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		bad += a[i].bad;
	}
	diag("%lu threads x %lu rounds in %" PRIu64 " ms", threads, rounds,
	     (now_ns() - t0) / 1000000);
	ok(bad == 0, "every thread read back its own writes (%lu wrong)", bad);
	munmap((void *)m, threads * PAGE);
	close(fd);
	return tap_exit();
}

/* Map N single pages of DEV one by one, then unmap them: ms for each phase. */
static int maps(const char *dev, unsigned long n)
{
	void **m = calloc(n, sizeof(*m));
	uint64_t t0, t1, t2;
	unsigned long i;
	int fd = open(dev, O_RDWR);

	if (!ok(fd >= 0 && m, "open %s", dev))
		return 1;
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		m[i] = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, (i % 64) * PAGE);
		if (m[i] == MAP_FAILED)
			break;
	}
	if (!ok(i == n, "%lu single-page mappings (%s)", n, i == n ? "OK" : errname(errno)))
		n = i;
	t1 = now_ns();
	/* Newest first: a list searched from its oldest entry walks it all. */
	for (i = n; i-- > 0;)
		munmap(m[i], PAGE);
	t2 = now_ns();
	printf("# maps %lu map_us %" PRIu64 " unmap_us %" PRIu64 "\n", n,
	       (t1 - t0) / 1000, (t2 - t1) / 1000);
	close(fd);
	free(m);
	return tap_exit();
}

static long meminfo_kb(const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			v = strtol(line + strlen(key) + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/*
 * Map GIB GiB of DEV (far beyond its capacity), touch its first page and
 * let the scan run for MS ms: the kernel's page tables must not grow by
 * anything like the mapping's size (2 MiB of PTE tables per GiB).
 */
static int bigmap(const char *dev, unsigned long gib, unsigned long ms)
{
	size_t len = (size_t)gib << 30;
	long pt0, pt1;
	volatile char *m;
	int fd = open(dev, O_RDWR);

	if (!ok(fd >= 0, "open %s", dev))
		return 1;
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (!ok(m != MAP_FAILED, "map %lu GiB of %s (%s)", gib, dev,
		m == MAP_FAILED ? errname(errno) : "OK"))
		return 1;
	pt0 = meminfo_kb("PageTables");
	m[0] = 1;
	usleep(ms * 1000);
	(void)m[0];
	pt1 = meminfo_kb("PageTables");
	diag("PageTables %ld kB before, %ld kB after %lu ms of scanning", pt0, pt1, ms);
	ok(pt1 - pt0 < (long)gib * 2048 / 8,
	   "the scan did not allocate page tables for the whole mapping (+%ld kB)",
	   pt1 - pt0);
	munmap((void *)m, len);
	close(fd);
	return tap_exit();
}

int main(int argc, char **argv)
{
	tap_init();
	if (argc == 3 && !strcmp(argv[1], "rdonly"))
		return rdonly(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "zero"))
		return zero(argv[2], strtoul(argv[3], NULL, 0), strtoul(argv[4], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "lockwait"))
		return lockwait(argv[2], strtoull(argv[3], NULL, 0), strtoul(argv[4], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "kill"))
		return killwait(argv[2], strtoull(argv[3], NULL, 0), strtoul(argv[4], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "inflight"))
		return inflight(argv[2], strtoul(argv[3], NULL, 0), strtoul(argv[4], NULL, 0));
	if (argc == 5 && !strcmp(argv[1], "bigmap"))
		return bigmap(argv[2], strtoul(argv[3], NULL, 0), strtoul(argv[4], NULL, 0));
	if (argc == 4 && !strcmp(argv[1], "maps"))
		return maps(argv[2], strtoul(argv[3], NULL, 0));
	fprintf(stderr, "usage: see the comment at the top of harden.c\n");
	return 2;
}
