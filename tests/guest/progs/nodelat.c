// SPDX-License-Identifier: GPL-2.0
/*
 * nodelat: an unmodified-style program on a node-mode device's NUMA node.
 * Its buffer is anonymous memory bound to NODE with mbind(MPOL_BIND) (the
 * rest of the process stays on its default node, so the device sees only the
 * buffer) and MADV_NOHUGEPAGE (residency is per 4 KiB page).
 *
 *   nodelat lat NODE DEV NPAGES MODEL_NS [LO HI]
 *       pass 1 writes one word of each page (a first touch: a miss), timed;
 *       pass 2 reads each page again (resident: a hit), timed. Checks: the
 *       device's misses grew by NPAGES in pass 1 and not at all in pass 2,
 *       median miss at least LO x MODEL_NS and, less the median first
 *       touch of as many pages of plain memory (node 1: the fault,
 *       allocation and zeroing any first touch pays), at most HI x
 *       MODEL_NS (default 1.0, 1.3); median hit below median miss / 10.
 *   nodelat cyclic NODE DEV NPAGES
 *       writes NPAGES pages, empties the cache (flush_cache()), then reads
 *       them cyclically twice; prints the device's misses of each read
 *       pass ("pass N misses M").
 *   nodelat thp NODE DEV NPAGES HOW FLUSH
 *       huge pages on the node: NPAGES pages of a 2 MiB-aligned buffer with
 *       no policy of its own, so the task's (run it under numactl
 *       --membind=NODE) places it; HOW "always" asks nothing (the system's
 *       THP setting decides), "madvise" asks for huge pages
 *       (MADV_HUGEPAGE). Writes every page, asks for a collapse
 *       (MADV_COLLAPSE, khugepaged's on demand), empties the cache if FLUSH
 *       is 1, then reads the pages cyclically twice. Prints "collapse RET
 *       ERRNO", "anon_huge_kb K" (AnonHugePages of the process after the
 *       collapse), "page_tables_kb K" (its VmPTE) and "pass N misses M";
 *       checks every page's contents.
 *   nodelat hot NODE DEV NPAGES PASSES
 *       writes NPAGES pages, empties the cache, then 1 + PASSES cyclic read
 *       passes over pages 1..NPAGES-1, reading the hot page 0 after every 8
 *       of them; prints the device's misses of the last PASSES passes ("hot
 *       misses M"; the first pass evicts the flush's lines) and, as
 *       comments, each pass's counters. With NPAGES above the cache, every cold access
 *       misses under any policy; the hot page misses once a pass under FIFO
 *       and, with the accessed-bit scan, not at all under LRU.
 *   nodelat replay NODE TRACE NPAGES
 *       writes pages 0..NPAGES-1 in order, then replays TRACE (`R|W PAGE`)
 *       on them, one word per access; a `D PAGE` line moves the page off
 *       the node, to node 0 (mbind MPOL_MF_MOVE | MPOL_MF_STRICT: the page
 *       departs, as cxdvirt-sim's D record says). The trace must not
 *       touch a page after its D.
 *   nodelat verify NODE NPAGES SECONDS SEED
 *       fills NPAGES pages with a checksummed pattern and, for SECONDS,
 *       rewrites and checks random pages, forks a child that checks every
 *       page and writes its own copy (COW), moves pages off the node and
 *       back (mbind MPOL_MF_MOVE by way of node 0, then migrate_pages(2) by
 *       way of node 1), and munmaps and remaps a part. Every page is
 *       checked after each step.
 *   nodelat shared KIND NODE DEV NPAGES DIR
 *       shared and file-backed pages on the node. Run the whole program
 *       under numactl --membind=NODE: no mbind() here, the task's policy
 *       places the object's pages (page cache and shmem follow it). KIND:
 *       anon (mmap MAP_SHARED | MAP_ANONYMOUS), memfd (memfd_create,
 *       ftruncate, mmap MAP_SHARED), sysv (shmget IPC_PRIVATE, shmat),
 *       tmpfs (DIR/nodelat-shared, DIR a tmpfs: ftruncate, mmap MAP_SHARED)
 *       or file (DIR/nodelat-shared, DIR a disk file system such as ext2,
 *       whose page cache is movable and so follows the binding to a
 *       ZONE_MOVABLE node, which ramfs's does not: filled with write(2),
 *       then mmap MAP_SHARED); DIR is "-" for anon, memfd and sysv. Word 0
 *       of page I holds generation G as 0x5eed0000000000 + (I << 8) + G.
 *       The parent maps NPAGES pages (mapping A) and writes generation 1
 *       into each (file: write(2) did; the parent reads each through A),
 *       and checks that the last page is on NODE. It forks a child that
 *       maps the same object at another address (mapping B: memfd, the
 *       inherited fd mapped again; sysv, shmat again; tmpfs and file, the
 *       path opened and mapped), unmaps its inherited A and uses only B
 *       (anon: B is the inherited A, the same address; a diagnostic says
 *       so). Parent and child then take turns through pipes, one running
 *       at a time: the parent empties the cache (flush_cache()); cyclic
 *       read passes, each checking every page: parent (P1), child (C1),
 *       parent (P2), child (C2); the parent writes generation 2 into every
 *       page, then empties the cache again; the child checks generation 2
 *       through B. Prints, besides TAP lines (the child's too, and one for
 *       its exit status):
 *         "P1 misses N", "C1 misses N", "P2 misses N", "C2 misses N"
 *                            stats/misses over each read pass;
 *         "write misses N"   over the parent's write pass;
 *         "window evictions N", "window evictions_unmapped N"
 *                            stats/evictions and node_latency/
 *                            evictions_unmapped from the start of C1 to the
 *                            end of the write pass, when every victim is a
 *                            page of the object or of the program (before
 *                            and after, the lines of the freed flush
 *                            buffers are evicted too, mapped nowhere);
 *         "late_writebacks +N", "writebacks +N"
 *                            node_latency/late_writebacks and
 *                            stats/writebacks over the second flush;
 *         "C verify misses N", "C verify bad N"
 *                            the child's check of generation 2: its misses
 *                            and the pages that read wrong.
 *       No timing is checked.
 *   nodelat arrive HOW NODE DEV NPAGES
 *       anonymous pages that reach the node by migration. Writes NPAGES
 *       private anonymous 4 KiB pages under the default policy (on node 0),
 *       then moves them to NODE: HOW mbind (mbind MPOL_BIND, MPOL_MF_MOVE:
 *       the range is then bound), move (move_pages(2): the policy stays
 *       the default) or demote (prints "ready", stops itself with SIGSTOP;
 *       whoever continues it has had its pages demoted, e.g. by
 *       memory.reclaim of its cgroup); demote-thp is demote with
 *       MADV_HUGEPAGE instead of MADV_NOHUGEPAGE ("AnonHugePages kB N":
 *       huge pages before the move). Waits until the device's counters
 *       settle (the arrivals are charged in the background), then runs
 *       three cyclic read passes, each checking every page. Prints
 *       "arrivals +N"
 *       (node_latency/arrivals over the move), "on node N" before the
 *       passes and "on node after N" after them (pages /proc/self/numa_maps
 *       counts on NODE), "PN misses M" for each pass, "window evictions N"
 *       and "window evictions_unmapped N" (over the passes) and
 *       "promotions_refused +N". No timing is checked.
 *   nodelat tier NODE NPAGES HOT SECONDS
 *       memory tiering: writes two mappings of private anonymous 4 KiB
 *       pages under the default policy, HOT pages and NPAGES - HOT pages,
 *       prints "ready" and stops itself with SIGSTOP (whoever continues it
 *       has had its pages demoted and set kernel.numa_balancing=2). Then
 *       reads the HOT pages over and over for SECONDS, and checks both
 *       mappings. Prints "hot on node N" and "cold on node N" (pages
 *       /proc/self/numa_maps counts on NODE) before and "... after N"
 *       after the reads, "hot passes N" and "promoted N"
 *       (pgpromote_success of /proc/vmstat over the reads).
 *   nodelat touch NODE NPAGES REWRITE
 *       writes word 0 of NPAGES pages bound to NODE, prints "ready" and
 *       stops itself (SIGSTOP); once continued, writes word 1 of pages
 *       0..REWRITE-1, checks word 0 of each of them and exits (0, or 1 if a
 *       page read back wrong). No TAP: the caller times and counts.
 *
 * DEV is the device's sysfs directory name (cxdvirtN). TAP on stdout.
 */
#include "node.h"

#include <numaif.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/wait.h>

static int cmd_lat(int argc, char **argv)
{
	int node = atoi(argv[2]);
	const char *dev = argv[3];
	unsigned long n = strtoul(argv[4], NULL, 0), i;
	uint64_t model = strtoull(argv[5], NULL, 0);
	double lo = argc > 6 ? atof(argv[6]) : 1.0;
	double hi = argc > 7 ? atof(argv[7]) : 1.3;
	uint64_t *miss = calloc(n, sizeof(*miss));
	uint64_t *hit = calloc(n, sizeof(*hit));
	volatile char *b = node_buf(node, n);
	int64_t m0, m1, m2;
	uint64_t pm, ph, t;

	if (!ok(b && miss && hit, "buffer of %lu pages bound to node %d", n, node))
		return tap_exit();
	m0 = dev_stat(dev, "misses");
	for (i = 0; i < n; i++) {
		t = now_ns();
		b[i * PAGE] = (char)i;
		miss[i] = now_ns() - t;
	}
	m1 = dev_stat(dev, "misses");
	ok(page_node((void *)b) == node, "the buffer's pages are on node %d (%d)",
	   node, page_node((void *)b));
	for (i = 0; i < n; i++) {
		t = now_ns();
		(void)b[i * PAGE];
		hit[i] = now_ns() - t;
	}
	m2 = dev_stat(dev, "misses");
	ok(m1 - m0 == (int64_t)n, "pass 1 (first touch): misses grew by %lu (%" PRId64 ")",
	   n, m1 - m0);
	ok(m2 == m1, "pass 2 (resident): no miss (%" PRId64 ")", m2 - m1);
	pm = quantile(miss, n, 0.5);
	ph = quantile(hit, n, 0.5);
	diag("miss ns: p10 %" PRIu64 " p50 %" PRIu64 " p90 %" PRIu64 " (model %" PRIu64 ")",
	     quantile(miss, n, 0.1), pm, quantile(miss, n, 0.9), model);
	diag("hit ns: p10 %" PRIu64 " p50 %" PRIu64 " p90 %" PRIu64,
	     quantile(hit, n, 0.1), ph, quantile(hit, n, 0.9));
	/*
	 * A first touch also pays what it costs on any memory: the fault, the
	 * page's allocation and zeroing, all before the hook sees the access
	 * (the model's clock starts there). The same first touch on plain
	 * memory of node 1 is that baseline.
	 */
	{
		volatile char *pb = node_buf(1, n);
		uint64_t *base = calloc(n, sizeof(*base)), p0 = 0;

		if (pb && base) {
			for (i = 0; i < n; i++) {
				t = now_ns();
				pb[i * PAGE] = (char)i;
				base[i] = now_ns() - t;
			}
			p0 = quantile(base, n, 0.5);
		}
		diag("first touch of plain memory (node 1): p50 %" PRIu64 " ns", p0);
		ok(pm >= lo * model, "median miss %" PRIu64 " ns at least %.2f x model %" PRIu64,
		   pm, lo, model);
		/*
		 * Only an upper bound here: the model's clock starts at the
		 * hook, inside the fault, so the fault's tail (PTE install,
		 * return) overlaps the modeled wait, and the difference may
		 * fall short of the model by that tail (0.995 x model seen
		 * under TCG). The check above bounds the miss from below.
		 */
		ok(pb && pm > p0 && pm - p0 <= hi * model,
		   "median miss minus a plain first touch, %" PRIu64 " ns, at most %.2f x model",
		   pm - p0, hi);
	}
	ok(ph * 10 < pm, "median hit %" PRIu64 " ns below median miss / 10", ph);
	return tap_exit();
}

static int cmd_cyclic(int argc, char **argv)
{
	int node = atoi(argv[2]);
	const char *dev = argv[3];
	unsigned long n = strtoul(argv[4], NULL, 0), i;
	volatile char *b = node_buf(node, n);
	int64_t m;
	int pass;

	if (!ok(b != NULL, "buffer of %lu pages bound to node %d", n, node))
		return tap_exit();
	for (i = 0; i < n; i++)
		b[i * PAGE] = 1;
	if (flush_cache(node, dev))
		return tap_exit();
	for (pass = 1; pass <= 2; pass++) {
		m = dev_stat(dev, "misses");
		for (i = 0; i < n; i++)
			(void)b[i * PAGE];
		printf("pass %d misses %" PRId64 "\n", pass,
		       dev_stat(dev, "misses") - m);
	}
	return tap_exit();
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif
#define HUGE	(2ul << 20)

/* Field @fmt ("Name: %ld kB") of /proc/self/@file, KiB; -1: unknown. */
static long proc_kb(const char *file, const char *fmt)
{
	char line[256], path[64];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* The counters cmd_thp() prints for each of its phases. */
static const char *const thp_ctrs[] = {
	"misses", "evictions", "nl:first_touches", "nl:hint_faults",
	"nl:anon_maps", "nl:evicted_ptes", "nl:evictions_unmapped",
	"nl:evictions_uncovered", "nl:arrivals", "nl:departures",
	"nl:kernel_accesses", "nl:events_dropped", "nl:thp_refused_pages",
};
#define THP_NCTRS (sizeof(thp_ctrs) / sizeof(thp_ctrs[0]))

static void thp_ctrs_read(const char *dev, int64_t *v)
{
	for (size_t k = 0; k < THP_NCTRS; k++)
		v[k] = strncmp(thp_ctrs[k], "nl:", 3) ?
		       dev_stat(dev, thp_ctrs[k]) : nl_stat(dev, thp_ctrs[k] + 3);
}

/* "# thp PHASE: NAME +DELTA ..." of the counters that moved since @v. */
static void thp_ctrs_print(const char *dev, const char *phase, int64_t *v)
{
	int64_t now[THP_NCTRS];

	thp_ctrs_read(dev, now);
	printf("# thp %s:", phase);
	for (size_t k = 0; k < THP_NCTRS; k++)
		if (now[k] != v[k])
			printf(" %s +%" PRId64, thp_ctrs[k] + 3 * !strncmp(thp_ctrs[k], "nl:", 3),
			       now[k] - v[k]);
	printf("\n");
	memcpy(v, now, sizeof(now));
}

static int cmd_thp(int argc, char **argv)
{
	int node = atoi(argv[2]);
	const char *dev = argv[3];
	unsigned long n = strtoul(argv[4], NULL, 0), i, bad = 0;
	int madv = !strcmp(argv[5], "madvise");
	int flush = atoi(argv[6]);
	size_t len = n * PAGE;
	int64_t m, ctr[THP_NCTRS];
	volatile char *b;
	char *raw;
	int pass, r;

	raw = mmap(NULL, len + HUGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ok(raw != MAP_FAILED, "buffer of %lu pages, 2 MiB aligned", n))
		return tap_exit();
	b = (volatile char *)(((unsigned long)raw + HUGE - 1) & ~(HUGE - 1));
	if (madv && !ok(!madvise((void *)b, len, MADV_HUGEPAGE),
			"MADV_HUGEPAGE"))
		return tap_exit();
	thp_ctrs_read(dev, ctr);
	for (i = 0; i < n; i++)
		b[i * PAGE] = (char)(i * 7 + 1);
	thp_ctrs_print(dev, "write", ctr);
	/* the last page written is resident (an evicted one may read -ENOENT) */
	ok(page_node((void *)(b + (n - 1) * PAGE)) == node,
	   "the buffer is on node %d", node);
	r = madvise((void *)b, len, MADV_COLLAPSE);
	printf("collapse %d %d\n", r, r ? errno : 0);
	printf("anon_huge_kb %ld\n",
	       proc_kb("smaps_rollup", "AnonHugePages: %ld kB"));
	printf("page_tables_kb %ld\n", proc_kb("status", "VmPTE: %ld kB"));
	if (flush && flush_cache(node, dev))
		return tap_exit();
	thp_ctrs_print(dev, flush ? "collapse, flush" : "collapse", ctr);
	for (pass = 1; pass <= 2; pass++) {
		char phase[16];

		m = dev_stat(dev, "misses");
		for (i = 0; i < n; i++)
			bad += b[i * PAGE] != (char)(i * 7 + 1);
		printf("pass %d misses %" PRId64 "\n", pass,
		       dev_stat(dev, "misses") - m);
		snprintf(phase, sizeof(phase), "pass %d", pass);
		thp_ctrs_print(dev, phase, ctr);
	}
	ok(!bad, "every page reads back what was written (%lu bad)", bad);
	return tap_exit();
}

static int cmd_hot(int argc, char **argv)
{
	int node = atoi(argv[2]);
	const char *dev = argv[3];
	unsigned long n = strtoul(argv[4], NULL, 0), i;
	unsigned long passes = strtoul(argv[5], NULL, 0), p;
	volatile char *b = node_buf(node, n);
	int64_t m = 0;

	if (!ok(b != NULL, "buffer of %lu pages bound to node %d", n, node))
		return tap_exit();
	for (i = 0; i < n; i++)
		b[i * PAGE] = 1;
	if (flush_cache(node, dev))
		return tap_exit();
	/* One unmeasured pass: the flush buffer's lines are gone. */
	for (p = 0; p <= passes; p++) {
		int64_t pm = dev_stat(dev, "misses"), ph = nl_stat(dev, "hint_faults");
		int64_t pe = nl_stat(dev, "evicted_ptes"), pv = dev_stat(dev, "evictions");

		if (p == 1)
			m = pm;
		for (i = 1; i < n; i++) {
			(void)b[i * PAGE];
			if (!(i % 8))
				(void)b[0];
		}
		printf("# pass %lu: misses +%" PRId64 ", hint_faults +%" PRId64
		       ", evictions +%" PRId64 ", evicted_ptes +%" PRId64 "\n", p,
		       dev_stat(dev, "misses") - pm, nl_stat(dev, "hint_faults") - ph,
		       dev_stat(dev, "evictions") - pv, nl_stat(dev, "evicted_ptes") - pe);
	}
	printf("hot misses %" PRId64 "\n", dev_stat(dev, "misses") - m);
	return tap_exit();
}

static int move_range(void *p, size_t len, int node);

static int cmd_replay(int argc, char **argv)
{
	int node = atoi(argv[2]);
	FILE *f = fopen(argv[3], "r");
	unsigned long n = strtoul(argv[4], NULL, 0), i, pg;
	volatile uint64_t *b = node_buf(node, n);
	char op;

	if (!f || !b)
		return 2;
	for (i = 0; i < n; i++)
		b[i * (PAGE / 8)] = i;
	while (fscanf(f, " %c %lu", &op, &pg) == 2) {
		if (pg >= n)
			return 2;
		if (op == 'D') {
			if (move_range((void *)(b + pg * (PAGE / 8)), PAGE, 0)) {
				fprintf(stderr, "nodelat: moving page %lu to node 0: %s\n",
					pg, strerror(errno));
				return 2;
			}
		} else if (op == 'W') {
			b[pg * (PAGE / 8)] = pg;
		} else {
			(void)b[pg * (PAGE / 8)];
		}
	}
	return 0;
}

/* Check every page against its expected seed; returns bad pages. */
static unsigned long check_all(volatile uint64_t *b, const uint64_t *seed,
			       unsigned long n)
{
	unsigned long i, bad = 0;

	for (i = 0; i < n; i++)
		if (check_page(b + i * (PAGE / 8), seed[i], i, PAGE / 8) >= 0)
			bad++;
	return bad;
}

static int move_range(void *p, size_t len, int node)
{
	unsigned long mask[16] = { 0 };

	mask[node / 64] |= 1ul << (node % 64);
	return mbind(p, len, MPOL_BIND, mask, sizeof(mask) * 8,
		     MPOL_MF_MOVE | MPOL_MF_STRICT);
}

static int cmd_verify(int argc, char **argv)
{
	int node = atoi(argv[2]);
	unsigned long n = strtoul(argv[3], NULL, 0), i, bad, rounds = 0;
	uint64_t secs = strtoull(argv[4], NULL, 0);
	uint64_t s0 = strtoull(argv[5], NULL, 0), rng = s0 | 1;
	volatile uint64_t *b = node_buf(node, n);
	uint64_t *seed = calloc(n, sizeof(*seed));
	uint64_t end = now_ns() + secs * 1000000000ull;
	unsigned long part = n / 4;
	uint64_t slow[6] = { 0 };	/* the slowest round's phase times, ns */
	int status;
	pid_t pid;

	if (!ok(b && seed, "buffer of %lu pages bound to node %d", n, node))
		return tap_exit();
	for (i = 0; i < n; i++) {
		seed[i] = s0;
		fill_page(b + i * (PAGE / 8), s0, i, PAGE / 8);
	}
	bad = check_all(b, seed, n);
	ok(!bad, "filled %lu pages: %lu bad", n, bad);

	do {	/* at least one round, however slow the kernel */
		uint64_t tr[6];

		rounds++;
		tr[0] = now_ns();
		for (i = 0; i < n; i++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			unsigned long pg = rng % n;

			seed[pg] = rng;
			fill_page(b + pg * (PAGE / 8), rng, pg, PAGE / 8);
		}
		if ((bad = check_all(b, seed, n)))
			break;
		tr[1] = now_ns();

		/* fork: the child sees the parent's data, then writes its own. */
		pid = fork();
		if (!pid) {
			unsigned long cbad = check_all(b, seed, n);

			for (i = 0; i < n; i += 2)
				fill_page(b + i * (PAGE / 8), ~seed[i], i, PAGE / 8);
			_exit(cbad ? 1 : 0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			bad = ~0ul;
			diag("round %lu: child saw wrong data or failed", rounds);
			break;
		}
		if ((bad = check_all(b, seed, n)))
			break;
		tr[2] = now_ns();

		/* Move a quarter off the node and back. */
		if (node > 0 && move_range((void *)b, part * PAGE, 0) == 0)
			move_range((void *)b, part * PAGE, node);
		if ((bad = check_all(b, seed, n)))
			break;
		tr[3] = now_ns();
		/*
		 * migrate_pages(2): every page of the process on the node
		 * goes off it and back. The way off is the CPU-less node 1,
		 * which holds nothing else of the process: with node 0, the
		 * way back would also move the process's code (root moves
		 * shared pages too) onto the device and off again every
		 * round, and under TCG a freed page that held executed code
		 * is slow to reuse (QEMU checks every store into it against
		 * the code it translated): rounds of 10-20 s, and a crawl
		 * in every program that reused those pages.
		 */
		if (node > 1) {
			unsigned long from[16] = { 0 }, to[16] = { 0 };

			from[node / 64] |= 1ul << (node % 64);
			to[0] |= 2;
			if (migrate_pages(0, sizeof(from) * 8, from, to) < 0 ||
			    migrate_pages(0, sizeof(from) * 8, to, from) < 0) {
				diag("migrate_pages between nodes %d and 1: %s",
				     node, strerror(errno));
				bad = ~0ul;
				break;
			}
		}
		if ((bad = check_all(b, seed, n)))
			break;
		tr[4] = now_ns();

		/* munmap and remap the last quarter: fresh zero pages. */
		munmap((void *)(b + (n - part) * (PAGE / 8)), part * PAGE);
		if (mmap((void *)(b + (n - part) * (PAGE / 8)), part * PAGE,
			 PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
			bad = ~0ul;
			break;
		}
		move_range((void *)(b + (n - part) * (PAGE / 8)), part * PAGE, node);
		madvise((void *)(b + (n - part) * (PAGE / 8)), part * PAGE,
			MADV_NOHUGEPAGE);
		for (i = n - part; i < n; i++) {
			seed[i] = rng + i;
			fill_page(b + i * (PAGE / 8), seed[i], i, PAGE / 8);
		}
		if ((bad = check_all(b, seed, n)))
			break;
		tr[5] = now_ns();
		if (tr[5] - tr[0] > slow[5] - slow[0])
			memcpy(slow, tr, sizeof(slow));
	} while (now_ns() < end);
	/* Where a slow round spent its time (a slow test starts here). */
	diag("slowest round: %" PRIu64 " ms: rewrite %" PRIu64 ", fork %" PRIu64
	     ", mbind %" PRIu64 ", migrate_pages %" PRIu64 ", remap %" PRIu64,
	     (slow[5] - slow[0]) / 1000000, (slow[1] - slow[0]) / 1000000,
	     (slow[2] - slow[1]) / 1000000, (slow[3] - slow[2]) / 1000000,
	     (slow[4] - slow[3]) / 1000000, (slow[5] - slow[4]) / 1000000);
	ok(!bad, "%lu rounds of rewrite, fork, move off and back, remap: %lu bad pages",
	   rounds, bad);
	ok(rounds > 0, "at least one round ran");
	return tap_exit();
}

/* --------------------------------------------------- shared mappings -- */

#define WPP		(PAGE / 8)	/* 64-bit words per page */
#define SH_WORD(i, gen)	(0x5eed0000000000ull + ((uint64_t)(i) << 8) + (gen))

enum sh_kind { SH_ANON, SH_MEMFD, SH_SYSV, SH_TMPFS, SH_FILE, SH_NKINDS };

static const char *const sh_kind_name[SH_NKINDS] = {
	"anon", "memfd", "sysv", "tmpfs", "file",
};

/* The shared object of `nodelat shared` and how to map it again. */
struct sh_obj {
	enum sh_kind kind;
	const char *name;	/* its KIND */
	size_t len;
	int fd;			/* memfd, tmpfs, file; else -1 */
	int shmid;		/* sysv; else -1 */
	char path[512];		/* tmpfs, file; else "" */
};

/* Fill @n pages of @fd with write(2): generation 1 in word 0, zeros. */
static int sh_fill(int fd, unsigned long n)
{
	static uint64_t page[WPP];
	unsigned long i;

	for (i = 0; i < n; i++) {
		page[0] = SH_WORD(i, 1);
		if (write(fd, page, PAGE) != (ssize_t)PAGE)
			return -1;
	}
	return 0;
}

/* Create the object and map it (mapping A); NULL, with a diagnostic, on failure. */
static volatile uint64_t *sh_create(struct sh_obj *o, const char *dir)
{
	void *p = MAP_FAILED;

	switch (o->kind) {
	case SH_ANON:
		p = mmap(NULL, o->len, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		break;
	case SH_MEMFD:
		o->fd = memfd_create("nodelat-shared", 0);
		if (o->fd < 0 || ftruncate(o->fd, o->len))
			break;
		p = mmap(NULL, o->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 o->fd, 0);
		break;
	case SH_SYSV:
		o->shmid = shmget(IPC_PRIVATE, o->len, IPC_CREAT | 0600);
		if (o->shmid < 0)
			break;
		p = shmat(o->shmid, NULL, 0);
		if (p == (void *)-1)
			p = MAP_FAILED;
		break;
	case SH_TMPFS:
	case SH_FILE:
		snprintf(o->path, sizeof(o->path), "%s/nodelat-shared", dir);
		o->fd = open(o->path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (o->fd < 0)
			break;
		if (o->kind == SH_TMPFS ? ftruncate(o->fd, o->len) :
		    sh_fill(o->fd, o->len / PAGE))
			break;
		p = mmap(NULL, o->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 o->fd, 0);
		break;
	default:
		break;
	}
	if (p == MAP_FAILED) {
		diag("%s: create or map %s: %s", o->name,
		     o->path[0] ? o->path : "the object", strerror(errno));
		return NULL;
	}
	return p;
}

/*
 * The child's own mapping of the object (mapping B), at an address of its
 * own; for anon, the mapping @a it inherited. NULL on failure.
 */
static volatile uint64_t *sh_map_again(const struct sh_obj *o,
				       volatile uint64_t *a)
{
	void *p = MAP_FAILED;
	int fd;

	switch (o->kind) {
	case SH_ANON:
		return a;
	case SH_MEMFD:
		p = mmap(NULL, o->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 o->fd, 0);
		break;
	case SH_SYSV:
		p = shmat(o->shmid, NULL, 0);
		if (p == (void *)-1)
			p = MAP_FAILED;
		break;
	case SH_TMPFS:
	case SH_FILE:
		fd = open(o->path, O_RDWR);
		if (fd < 0)
			break;
		p = mmap(NULL, o->len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, 0);
		close(fd);
		break;
	default:
		break;
	}
	if (p == MAP_FAILED) {
		diag("%s: map the object again: %s", o->name, strerror(errno));
		return NULL;
	}
	return p;
}

static void sh_unmap(const struct sh_obj *o, volatile uint64_t *p)
{
	if (o->kind == SH_SYSV)
		shmdt((void *)p);
	else
		munmap((void *)p, o->len);
}

/* Read word 0 of every page in order; pages not at generation @gen. */
static unsigned long sh_check(volatile uint64_t *b, unsigned long n,
			      unsigned int gen)
{
	unsigned long i, bad = 0;

	for (i = 0; i < n; i++)
		bad += b[i * WPP] != SH_WORD(i, gen);
	return bad;
}

/* A cyclic read pass: prints "LABEL misses N" and a TAP line. */
static void sh_pass(const struct sh_obj *o, const char *dev, const char *label,
		    char map, volatile uint64_t *b, unsigned long n)
{
	int64_t m = dev_stat(dev, "misses");
	unsigned long bad = sh_check(b, n, 1);

	printf("%s misses %" PRId64 "\n", label, dev_stat(dev, "misses") - m);
	ok(!bad, "%s, %lu pages, %s: every page reads back through mapping %c (%lu bad)",
	   o->name, n, label, map, bad);
}

/* Turns: one byte down a pipe hands over; 0 when the other side is gone. */
static int sh_wait(int rfd)
{
	char c;

	return read(rfd, &c, 1) == 1;
}

static int sh_hand_over(int wfd)
{
	char c = 1;

	fflush(stdout);
	return write(wfd, &c, 1) == 1;
}

/* The child: map B, then C1, C2 and the check of generation 2 on its turns. */
static int sh_child(const struct sh_obj *o, const char *dev, unsigned long n,
		    volatile uint64_t *a, int rfd, int wfd)
{
	volatile uint64_t *b = sh_map_again(o, a);
	unsigned long bad;
	int64_t m;

	if (o->kind == SH_ANON)
		diag("anon: the child can only use the mapping it inherited (B is A, at the same address)");
	if (!ok(b && (o->kind == SH_ANON || b != a),
		"%s, %lu pages: the child %s (B %p, A %p)", o->name, n,
		o->kind == SH_ANON ? "keeps the inherited mapping" :
		"maps the object at an address of its own",
		(void *)b, (void *)a))
		return tap_exit();
	if (b != a)
		sh_unmap(o, a);		/* the child uses B only */
	if (!sh_hand_over(wfd) || !sh_wait(rfd))
		goto out;
	sh_pass(o, dev, "C1", 'B', b, n);
	if (!sh_hand_over(wfd) || !sh_wait(rfd))
		goto out;
	sh_pass(o, dev, "C2", 'B', b, n);
	if (!sh_hand_over(wfd) || !sh_wait(rfd))
		goto out;
	m = dev_stat(dev, "misses");
	bad = sh_check(b, n, 2);
	printf("C verify misses %" PRId64 "\n", dev_stat(dev, "misses") - m);
	printf("C verify bad %lu\n", bad);
	ok(!bad, "%s, %lu pages: after the parent's writes and a flush, the child reads them through B (%lu bad)",
	   o->name, n, bad);
	sh_hand_over(wfd);
out:
	sh_unmap(o, b);
	return tap_exit();
}

static int cmd_shared(int argc, char **argv)
{
	struct sh_obj o = { .fd = -1, .shmid = -1 };
	int node = atoi(argv[3]);
	const char *dev = argv[4];
	unsigned long n = strtoul(argv[5], NULL, 0), i, bad;
	int to_child[2], to_parent[2], status = 0, pn;
	int64_t m, ev, un, lw, wb;
	volatile uint64_t *a;
	pid_t pid;

	for (o.kind = 0; o.kind < SH_NKINDS; o.kind++)
		if (!strcmp(argv[2], sh_kind_name[o.kind]))
			break;
	if (o.kind == SH_NKINDS || !n) {
		fprintf(stderr, "nodelat shared: KIND is anon, memfd, sysv, tmpfs or file; NPAGES > 0\n");
		return 2;
	}
	o.name = sh_kind_name[o.kind];
	o.len = n * PAGE;

	/* a. Mapping A, generation 1 in every page. */
	a = sh_create(&o, argv[6]);
	if (!ok(a != NULL, "%s, %lu pages: created and mapped shared (A at %p)",
		o.name, n, (void *)a))
		goto out;
	if (o.kind == SH_FILE) {
		bad = sh_check(a, n, 1);
		ok(!bad, "file, %lu pages: A reads what write(2) wrote (%lu bad)",
		   n, bad);
	} else {
		for (i = 0; i < n; i++)
			a[i * WPP] = SH_WORD(i, 1);
	}
	/* the last page touched is resident (an evicted one is not mapped) */
	pn = page_node((void *)(a + (n - 1) * WPP));
	ok(pn == node, "%s, %lu pages: the object's pages are on node %d (last page: %d)",
	   o.name, n, node, pn);

	/* b. The child and its mapping B. */
	if (pipe(to_child) || pipe(to_parent)) {
		ok(0, "pipes: %s", strerror(errno));
		goto out;
	}
	fflush(stdout);
	pid = fork();
	if (!pid) {
		tap_failed = 0;		/* the child's status: its own checks */
		close(to_child[1]);
		close(to_parent[0]);
		status = sh_child(&o, dev, n, a, to_child[0], to_parent[1]);
		fflush(stdout);
		_exit(status);
	}
	close(to_child[0]);
	close(to_parent[1]);
	if (pid < 0) {
		ok(0, "fork: %s", strerror(errno));
		goto close;
	}
	if (!sh_wait(to_parent[0]))
		goto close;		/* the child says why */

	/* c, d. Flush, then P1, C1, P2, C2, one process at a time. */
	if (flush_cache(node, dev))
		goto close;
	sh_pass(&o, dev, "P1", 'A', a, n);
	ev = dev_stat(dev, "evictions");
	un = nl_stat(dev, "evictions_unmapped");
	if (!sh_hand_over(to_child[1]) || !sh_wait(to_parent[0]))
		goto close;
	sh_pass(&o, dev, "P2", 'A', a, n);
	if (!sh_hand_over(to_child[1]) || !sh_wait(to_parent[0]))
		goto close;

	/* e. The parent writes generation 2 into every page. */
	m = dev_stat(dev, "misses");
	for (i = 0; i < n; i++)
		a[i * WPP] = SH_WORD(i, 2);
	printf("write misses %" PRId64 "\n", dev_stat(dev, "misses") - m);
	printf("window evictions %" PRId64 "\n", dev_stat(dev, "evictions") - ev);
	printf("window evictions_unmapped %" PRId64 "\n",
	       nl_stat(dev, "evictions_unmapped") - un);

	/* f. Flush: writes to resident pages are found at their eviction. */
	lw = nl_stat(dev, "late_writebacks");
	wb = dev_stat(dev, "writebacks");
	if (flush_cache(node, dev))
		goto close;
	printf("late_writebacks +%" PRId64 "\n", nl_stat(dev, "late_writebacks") - lw);
	printf("writebacks +%" PRId64 "\n", dev_stat(dev, "writebacks") - wb);

	/* g. The child checks generation 2 through B. */
	if (sh_hand_over(to_child[1]))
		sh_wait(to_parent[0]);
close:
	/* h. A child still waiting for its turn reads EOF and ends. */
	close(to_child[1]);
	close(to_parent[0]);
	if (pid > 0) {
		if (waitpid(pid, &status, 0) != pid)
			status = -1;
		ok(status != -1 && WIFEXITED(status) && !WEXITSTATUS(status),
		   "%s, %lu pages: the child's checks passed (wait status 0x%x)",
		   o.name, n, (unsigned int)status);
	}
out:
	if (a)
		sh_unmap(&o, a);
	if (o.shmid >= 0)
		shmctl(o.shmid, IPC_RMID, NULL);
	if (o.fd >= 0)
		close(o.fd);
	if (o.path[0])
		unlink(o.path);
	return tap_exit();
}

static int cmd_arrive(int argc, char **argv)
{
	const char *how = argv[2], *dev = argv[4];
	int node = atoi(argv[3]);
	unsigned long n = strtoul(argv[5], NULL, 0), i, bad;
	size_t len = n * PAGE;
	volatile uint64_t *b;
	int64_t a0, r0, m, e0, u0;
	int pass, rc = 0;

	b = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ok(b != MAP_FAILED, "%lu private anonymous pages", n))
		return tap_exit();
	/* demote-thp: huge pages on node 0, which demotion must split */
	madvise((void *)b, len, strcmp(how, "demote-thp") ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
	for (i = 0; i < n; i++)
		fill_page(b + i * (PAGE / 8), 0x5eed0000 + i, i, PAGE / 8);
	printf("AnonHugePages kB %ld\n", proc_kb("smaps_rollup", "AnonHugePages: %ld kB"));
	ok(page_node((void *)b) != node, "%s: the pages start off node %d (first on %d)",
	   how, node, page_node((void *)b));
	a0 = nl_stat(dev, "arrivals");
	r0 = nl_stat(dev, "promotions_refused");
	if (!strcmp(how, "mbind")) {
		rc = move_range((void *)b, len, node);
	} else if (!strcmp(how, "move")) {
		void **pages = calloc(n, sizeof(*pages));
		int *nodes = calloc(n, sizeof(*nodes)), *st = calloc(n, sizeof(*st));

		for (i = 0; pages && nodes && st && i < n; i++) {
			pages[i] = (void *)(b + i * (PAGE / 8));
			nodes[i] = node;
		}
		rc = pages && nodes && st ?
		     (int)move_pages(0, n, pages, nodes, st, MPOL_MF_MOVE) : -1;
		free(pages);
		free(nodes);
		free(st);
	} else {
		printf("ready\n");
		fflush(stdout);
		raise(SIGSTOP);
	}
	ok(rc == 0, "%s: the move returned %d (%s)", how, rc, rc ? strerror(errno) : "ok");
	settle(dev);
	printf("arrivals +%" PRId64 "\n", nl_stat(dev, "arrivals") - a0);
	printf("on node %lu\n", on_node(b, n, node));
	e0 = dev_stat(dev, "evictions");
	u0 = nl_stat(dev, "evictions_unmapped");
	for (pass = 1; pass <= 3; pass++) {
		m = dev_stat(dev, "misses");
		bad = 0;
		for (i = 0; i < n; i++)
			if (check_page(b + i * (PAGE / 8), 0x5eed0000 + i, i, PAGE / 8) >= 0)
				bad++;
		printf("P%d misses %" PRId64 "\n", pass, dev_stat(dev, "misses") - m);
		ok(!bad, "%s, pass %d: every page reads back what was written (%lu bad)",
		   how, pass, bad);
	}
	printf("window evictions %" PRId64 "\n", dev_stat(dev, "evictions") - e0);
	printf("window evictions_unmapped %" PRId64 "\n",
	       nl_stat(dev, "evictions_unmapped") - u0);
	printf("promotions_refused +%" PRId64 "\n",
	       nl_stat(dev, "promotions_refused") - r0);
	printf("on node after %lu\n", on_node(b, n, node));
	munmap((void *)b, len);
	return tap_exit();
}

/* /proc/vmstat's NAME, or -1. */
static int64_t vmstat(const char *name)
{
	char line[256], key[128];
	long long v;
	int64_t r = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lld", key, &v) == 2 && !strcmp(key, name)) {
			r = v;
			break;
		}
	if (f)
		fclose(f);
	return r;
}

static int cmd_tier(int argc, char **argv)
{
	int node = atoi(argv[2]);
	unsigned long n = strtoul(argv[3], NULL, 0), hot = strtoul(argv[4], NULL, 0);
	uint64_t secs = strtoull(argv[5], NULL, 0), t_end, passes = 0;
	unsigned long cold = n > hot ? n - hot : 0, i, bad = 0;
	volatile uint64_t *h, *c;
	uint64_t sum = 0;
	int64_t p0;

	/* one reservation, a page unmapped between: two VMAs that cannot merge */
	h = mmap(NULL, (n + 1) * PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ok(h != MAP_FAILED && hot && cold,
		"%lu hot and %lu cold private anonymous pages", hot, cold))
		return tap_exit();
	c = h + (hot + 1) * (PAGE / 8);
	munmap((void *)(h + hot * (PAGE / 8)), PAGE);
	madvise((void *)h, hot * PAGE, MADV_NOHUGEPAGE);
	madvise((void *)c, cold * PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < hot; i++)
		fill_page(h + i * (PAGE / 8), 0x407, i, PAGE / 8);
	for (i = 0; i < cold; i++)
		fill_page(c + i * (PAGE / 8), 0xc01d, i, PAGE / 8);
	printf("ready\n");
	fflush(stdout);
	raise(SIGSTOP);
	printf("hot on node %lu\n", on_node(h, hot, node));
	printf("cold on node %lu\n", on_node(c, cold, node));
	p0 = vmstat("pgpromote_success");
	t_end = now_ns() + secs * 1000000000ull;
	while (now_ns() < t_end) {
		for (i = 0; i < hot; i++)
			sum += h[i * (PAGE / 8) + (passes % (PAGE / 8))];
		passes++;
	}
	printf("hot passes %" PRIu64 "\n", passes);
	/* before the check below, whose reads fault on scanned pages too */
	printf("promoted %" PRId64 "\n", vmstat("pgpromote_success") - p0);
	printf("hot on node after %lu\n", on_node(h, hot, node));
	printf("cold on node after %lu\n", on_node(c, cold, node));
	for (i = 0; i < hot; i++)
		bad += check_page(h + i * (PAGE / 8), 0x407, i, PAGE / 8) >= 0;
	for (i = 0; i < cold; i++)
		bad += check_page(c + i * (PAGE / 8), 0xc01d, i, PAGE / 8) >= 0;
	ok(!bad, "tier: every page reads back what was written (%lu bad; sum %" PRIu64 ")",
	   bad, sum & 1);
	return tap_exit();
}

static int cmd_touch(int argc, char **argv)
{
	int node = atoi(argv[2]);
	unsigned long n = strtoul(argv[3], NULL, 0);
	unsigned long r = strtoul(argv[4], NULL, 0), i;
	volatile uint64_t *b = node_buf(node, n);
	int bad = 0;

	if (!b || r > n)
		return 2;
	for (i = 0; i < n; i++)
		b[i * PAGE / 8] = 0x70c4000000000000ull + i;
	printf("ready\n");
	fflush(stdout);
	raise(SIGSTOP);
	for (i = 0; i < r; i++) {
		b[i * PAGE / 8 + 1] = i;
		bad |= b[i * PAGE / 8] != 0x70c4000000000000ull + i;
	}
	return bad;
}

int main(int argc, char **argv)
{
	tap_init();
	if (argc >= 6 && !strcmp(argv[1], "lat"))
		return cmd_lat(argc, argv);
	if (argc >= 5 && !strcmp(argv[1], "cyclic"))
		return cmd_cyclic(argc, argv);
	if (argc >= 7 && !strcmp(argv[1], "thp"))
		return cmd_thp(argc, argv);
	if (argc >= 6 && !strcmp(argv[1], "hot"))
		return cmd_hot(argc, argv);
	if (argc >= 5 && !strcmp(argv[1], "replay"))
		return cmd_replay(argc, argv);
	if (argc >= 6 && !strcmp(argv[1], "verify"))
		return cmd_verify(argc, argv);
	if (argc >= 7 && !strcmp(argv[1], "shared"))
		return cmd_shared(argc, argv);
	if (argc >= 6 && !strcmp(argv[1], "arrive"))
		return cmd_arrive(argc, argv);
	if (argc >= 5 && !strcmp(argv[1], "touch"))
		return cmd_touch(argc, argv);
	if (argc >= 6 && !strcmp(argv[1], "tier"))
		return cmd_tier(argc, argv);
	fprintf(stderr, "usage: see the top of %s\n", __FILE__);
	return 2;
}
