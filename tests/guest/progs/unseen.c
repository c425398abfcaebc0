// SPDX-License-Identifier: GPL-2.0
/*
 * unseen: measured examples of what node mode's latency mechanism cannot
 * see (docs/numa-mode.md, "What the mechanism cannot see"), one subcommand
 * per entry of that list:
 *
 *   unseen CASE NODE DEV [ARG]
 *
 * NODE is the device's node, DEV its sysfs name (cxdvirtN). L below is the
 * cache's lines (cache_size / 4 KiB). Each case prints one summary line
 * "unseen CASE: KEY VALUE ..." (run_sub makes it a "# " line), diagnostic
 * lines "# unseen CASE PHASE: COUNTER +N ..." with every device counter
 * that moved in a phase, and a TAP line for the contents wherever data is
 * involved. Nothing is asserted about the counters here: the caller
 * (tests/guest/79-node-unseen.sh) knows what each kernel is documented to
 * do. Counters: "seen" is stats/misses + stats/minor_hits, the accesses
 * the model ran.
 *
 * thp NODE DEV
 *     huge pages moved onto the node whole. Three times, a 2 MiB-aligned
 *     mapping of L pages (MADV_HUGEPAGE) is written on node 1 (mbind), so
 *     that the faults get huge pages off the device, then moved to NODE:
 *     "thp-mbind" (mbind MPOL_MF_MOVE), "thp-move" (move_pages(2)),
 *     "thp-migrate" (migrate_pages(2) from node 1, which holds only this
 *     data). Then the cache is emptied and the pages read once. Keys:
 *     huge_kb_before, huge_kb_after (AnonHugePages of the mapping before
 *     and after the move), on_node (pages on NODE), arrivals,
 *     thp_refused, thp_untracked (node_latency/ deltas over the move),
 *     pass_misses (misses of the read after the flush, of L pages).
 *     "thp-hugetlb": one 2 MiB hugetlb page (MAP_HUGETLB, mbind to NODE;
 *     the caller puts one in NODE's pool, else ARG "nohugetlb" skips it):
 *     node, seen_write (accesses seen while writing its 512 pages),
 *     thp_untracked, hugetlb_untracked, thp_refused, pass_misses.
 * direct NODE DEV
 *     kernel accesses through the direct map: L pages of a memfd, mapped
 *     MAP_SHARED, bound to NODE (mbind: the object's shared policy),
 *     written through the mapping; the cache emptied (the pages are
 *     unmapped); then pread() of the whole file into a buffer off the
 *     node, pwrite() of new contents, and a read pass through the mapping.
 *     Keys: node (of the last page), read_seen, read_kernel, write_seen,
 *     write_kernel (seen accesses and kernel_accesses over the pread and
 *     the pwrite), map_misses (misses of the mapping's pass).
 * dma NODE DEV BLKDEV
 *     O_DIRECT into node pages from BLKDEV (a loop device): L pages bound
 *     to NODE, written, the cache emptied; one O_DIRECT pread() of L pages
 *     into them. Keys (line "dma"): read (bytes), seen, hint_faults (over
 *     the read: the pin's faults), verify_misses (a read pass afterwards).
 *     Then a long-term pin (line "dma-pinned"): the same pages registered
 *     as an io_uring fixed buffer, the cache emptied, and one
 *     IORING_OP_READ_FIXED into them. Keys: registered (0 or -errno),
 *     on_node_before, on_node_after (pages on NODE around the
 *     registration), departures, seen_register (over the registration),
 *     read (bytes, or -errno), seen_read (over the fixed read).
 * remote NODE DEV
 *     another process's evicted pages read remotely (seen now: kept as the
 *     check of docs/numa-mode.md "Remote reads"). A child writes two
 *     mappings of L/2 pages bound to NODE, empties the cache, and waits.
 *     The parent reads the first through /proc/PID/mem (pread) and the
 *     second with process_vm_readv(). Keys (line "remote"): pages (per
 *     mapping), procmem_seen, procmem_hint, procmem_remote,
 *     procmem_waited, vmreadv_seen, vmreadv_hint, vmreadv_remote,
 *     vmreadv_waited (remote: node_latency/remote_accesses, waited:
 *     waited_accesses, the reader's modeled waits).
 *     Then the child reads both (line "remote-owner": procmem_pass,
 *     vmreadv_pass, the misses of each), empties the cache and reads them
 *     again (procmem_after_flush, vmreadv_after_flush).
 * ksm NODE DEV
 *     two mappings A and B of M = L/2 - 32 pages each, bound to NODE, with
 *     the same contents (page i of A equals page i of B, all pages of a
 *     mapping differ), and a third, F, of L pages; A and B read until a
 *     pass misses nowhere (all resident, so that KSM could merge them).
 *     Two more mappings C and D of KSM_CTL pages with the contents of A's
 *     and B's first pages, in the default policy's memory (not the node):
 *     KSM's control, which must merge, C with D, past the node's equal
 *     pages in KSM's trees. All
 *     four MADV_MERGEABLE; waits up to 30 s until
 *     /sys/kernel/mm/ksm/pages_sharing reaches KSM_CTL and ksmd has made 3
 *     full scans since (the caller runs ksmd), or pages_sharing reaches
 *     KSM_CTL + M. Then the cache is emptied and two cyclic
 *     passes over A and F (1.5 x the cache) run, then two over B and F.
 *     Keys: pages (M), control (KSM_CTL), full_scans (ksmd's full scans
 *     meanwhile), pages_shared, pages_sharing, a_pass1, a_pass2,
 *     b_pass1, b_pass2 (misses on A or B's pages in each pass), f_pass2a,
 *     f_pass2b (misses on F in the second pass of each), evicted_ptes,
 *     evictions_unmapped, evictions_uncovered (over the flush and the
 *     four passes).
 * freed NODE DEV
 *     freed pages keep their line. C (L pages) is written, the cache
 *     emptied, then A (L pages) is written, read until resident and
 *     unmapped, then B (L pages) is written and unmapped, then C is read.
 *     Keys: reused (pages of B in a frame A had, from
 *     /proc/self/pagemap), b_first_touches, b_hits, b_misses (over B's
 *     writes), c_misses, c_evictions, c_evictions_unmapped (over C's
 *     read).
 * mremap NODE DEV
 *     2L pages bound to NODE written, the last L read until resident (the
 *     first L are then evicted), then moved by
 *     mremap(MREMAP_MAYMOVE | MREMAP_FIXED); three cyclic read passes at
 *     the new address. Keys (line "mremap"): pass1, pass2, pass3 (misses),
 *     unmapped1, unmapped2, unmapped3 (evictions_unmapped per pass),
 *     moved1, moved2, moved3 (evictions_moved per pass: victims found
 *     where their VMA moved).
 *     Then with glibc's realloc() (line "realloc"): under a task policy
 *     bound to NODE (numa_set_membind(), what numactl --membind sets), a
 *     malloc() of L/2 pages written and read until resident, realloc() to
 *     2L pages (glibc moves an mmap'd chunk with mremap), the rest
 *     written, the policy reset; two read passes. Keys: old_pages (L/2),
 *     moved (the block's address changed), pass1, pass2 (misses),
 *     unmapped, moved (evictions_unmapped and evictions_moved from the
 *     realloc to the end).
 * fork NODE DEV
 *     pages still shared with a fork: 2L pages bound to NODE written (the
 *     first L are evicted by the last L), then a child reads all of them
 *     three times (neither writes, so every page stays shared
 *     copy-on-write) and exits; then the parent reads them once, empties
 *     the cache and reads them again. Keys (line "fork"): pass1, pass2,
 *     pass3 (the child's misses), child_evictions, child_uncovered
 *     (evictions and evictions_uncovered from the fork to the child's
 *     exit), parent_pass, parent_after_flush (the parent's misses),
 *     parent_uncovered (over its flush and second read), child_rearmed,
 *     rearmed (node_latency/fork_rearmed over the child's life and over
 *     the parent's reads and flush).
 * rdonly NODE DEV
 *     pages of a read-only private mapping: 2L pages bound to NODE
 *     written (the first L are evicted by the last L), the mapping made
 *     PROT_READ with mprotect(), then two read passes. Keys (line
 *     "rdonly"): pass1, pass2 (misses), uncovered1, uncovered2
 *     (evictions_uncovered in each pass), rearmed
 *     (node_latency/mprotect_rearmed over the mprotect() call).
 * hugetmpfs NODE DEV DIR
 *     file pages mapped by a huge PMD: DIR is a tmpfs mounted huge=always.
 *     A file of 2L pages, mapped MAP_SHARED at a 2 MiB-aligned address,
 *     bound to NODE (mbind: the file's shared policy), written through the
 *     mapping; the cache emptied; two read passes. Keys: node (of the
 *     last page), pmd_kb (ShmemPmdMapped + FilePmdMapped of the mapping
 *     after the writes), seen_write, file_maps, thp_refused, thp_untracked
 *     (over the writes), pass1, pass2 (misses).
 * ext4huge NODE DEV DIR
 *     file pages of a file system with large page-cache folios: DIR is an
 *     ext4 file system (its page cache has folios up to PMD size from
 *     Linux 6.16). A file of 2L pages is written with write() off the node
 *     and synced. Then twice, each time opened anew (its own readahead
 *     state): its page cache dropped (POSIX_FADV_DONTNEED), the file
 *     mapped MAP_SHARED, read-only, at a 2 MiB-aligned address and read
 *     once under a task policy bound to NODE (set_mempolicy MPOL_BIND: the
 *     page cache follows the task's policy, not the VMA's), so that the
 *     faults' readahead puts the page cache on NODE; the cache emptied; two
 *     read passes. Line "ext4huge" with MADV_HUGEPAGE on the mapping (the
 *     mmap readahead then asks for PMD-sized folios), line
 *     "ext4huge-plain" without. Keys: pages, cached_before (pages in the
 *     page cache before the read, mincore), on_node (of the mapping's
 *     pages, after the read), mapped (pages with a frame in
 *     /proc/self/pagemap after the read: those not evicted), large (of
 *     those, pages of large folios: /proc/kpageflags compound bits),
 *     pmd_kb (FilePmdMapped after the read), seen_read, file_maps,
 *     thp_refused, thp_untracked (over the read), pass1, pass2 (misses).
 * query NODE DEV
 *     page queries on evicted pages: 2L pages bound to NODE written (the
 *     first L are evicted by the last L); move_pages(2) with no target
 *     nodes over all of them; a read pass; the query again. Keys:
 *     evicted (evicted_ptes over the writes), on_node, enoent, efault,
 *     other (statuses of the first query), on_node2, enoent2, efault2
 *     (of the second).
 */
#include "node.h"

#include <linux/io_uring.h>
#include <numa.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#define W		(PAGE / 8)	/* 64-bit words per page */
#define HUGE		(2ul << 20)
#define MASK_LONGS	16

static const char *dev;		/* the device's sysfs name */
static unsigned long L;		/* the cache's lines */

/* ---------------------------------------------------------- counters -- */

static const char *const ctr_name[] = {
	"misses", "minor_hits", "evictions",
	"nl:first_touches", "nl:hint_faults", "nl:file_maps", "nl:anon_maps",
	"nl:arrivals", "nl:departures", "nl:evicted_ptes",
	"nl:evicted_unmaps", "nl:evictions_unmapped",
	"nl:evictions_uncovered", "nl:kernel_accesses",
	"nl:thp_untracked_pages", "nl:thp_refused_pages",
	"nl:events_dropped", "nl:probes_missed", "nl:remote_accesses",
	"nl:waited_accesses", "nl:hugetlb_untracked_pages",
	"nl:fork_rearmed", "nl:mprotect_rearmed",
};

enum {
	MISSES, HITS, EVICTIONS, FIRST, HINT, FILEMAP, ANONMAP, ARRIVALS,
	DEPARTURES, EPTES, EUNMAPS, UNMAPPED, UNCOVERED, KERNEL,
	THP_UNTRACKED, THP_REFUSED, DROPPED, PMISSED, REMOTE, WAITED,
	HUGETLB_UNTRACKED, REARMED, MPROT_REARMED, NCTR
};

struct ctrs {
	int64_t v[NCTR];
};

static void ctrs_read(struct ctrs *c)
{
	for (int k = 0; k < NCTR; k++)
		c->v[k] = strncmp(ctr_name[k], "nl:", 3) ?
			  dev_stat(dev, ctr_name[k]) :
			  nl_stat(dev, ctr_name[k] + 3);
}

static int64_t dlt(const struct ctrs *a, const struct ctrs *b, int k)
{
	return b->v[k] - a->v[k];
}

/* accesses the model ran: misses and hits */
static int64_t seen(const struct ctrs *a, const struct ctrs *b)
{
	return dlt(a, b, MISSES) + dlt(a, b, HITS);
}

/* "# unseen CASE PHASE: NAME +N ..." for the counters that moved */
static void ctrs_diag(const char *what, const char *phase,
		      const struct ctrs *a, const struct ctrs *b)
{
	printf("# unseen %s %s:", what, phase);
	for (int k = 0; k < NCTR; k++)
		if (b->v[k] != a->v[k])
			printf(" %s %+" PRId64,
			       ctr_name[k] + 3 * !strncmp(ctr_name[k], "nl:", 3),
			       b->v[k] - a->v[k]);
	printf("\n");
}

/* ----------------------------------------------------------- helpers -- */

static void fill(volatile uint64_t *b, unsigned long n, uint64_t seed)
{
	for (unsigned long i = 0; i < n; i++)
		fill_page(b + i * W, seed, i, W);
}

/* Pages of @b that do not hold @seed's pattern (reads every word). */
static unsigned long check(volatile uint64_t *b, unsigned long n,
			   uint64_t seed)
{
	unsigned long i, bad = 0;

	for (i = 0; i < n; i++)
		bad += check_page(b + i * W, seed, i, W) >= 0;
	return bad;
}

/* One read pass over @b, checking it: stats/misses over it. */
static int64_t pass(volatile uint64_t *b, unsigned long n, uint64_t seed,
		    unsigned long *bad)
{
	int64_t m = dev_stat(dev, "misses");

	*bad += check(b, n, seed);
	return dev_stat(dev, "misses") - m;
}

/*
 * Read passes over @n pages at @b until one misses nowhere (at most 5):
 * every page of a set smaller than the cache ends up resident, whichever
 * stale lines its first touches hit. Return: the passes run.
 */
static int settle_resident(volatile uint64_t *b, unsigned long n)
{
	unsigned long i;
	int64_t m;
	int p;

	for (p = 1; p < 5; p++) {
		m = dev_stat(dev, "misses");
		for (i = 0; i < n; i++)
			(void)b[i * W];
		if (dev_stat(dev, "misses") == m)
			break;
	}
	return p;
}

static void node_mask(unsigned long *mask, int node)
{
	memset(mask, 0, MASK_LONGS * sizeof(*mask));
	mask[node / 64] |= 1ul << (node % 64);
}

/* mbind(@p, @len) to @node with @flags; 0 or an errno */
static int bind_to(void *p, size_t len, int node, unsigned int flags)
{
	unsigned long mask[MASK_LONGS];

	node_mask(mask, node);
	return mbind(p, len, MPOL_BIND, mask, MASK_LONGS * 64, flags) ? errno : 0;
}

/* Sum of the "@field %ld kB" lines of the smaps entry of the VMA at @addr. */
static long smaps_kb(void *addr, const char *field)
{
	char line[256], want[32];
	FILE *f = fopen("/proc/self/smaps", "r");
	size_t fl = strlen(field);
	long kb = 0, v;
	int in = 0;

	if (!f)
		return -1;
	snprintf(want, sizeof(want), "%lx-", (unsigned long)addr);
	while (fgets(line, sizeof(line), f)) {
		char *dash = strchr(line, '-'), *sp = strchr(line, ' ');

		if (dash && sp && dash < sp) {
			if (in)
				break;
			in = !strncmp(line, want, strlen(want));
			continue;
		}
		if (in && !strncmp(line, field, fl) &&
		    sscanf(line + fl, " %ld kB", &v) == 1)
			kb += v;
	}
	fclose(f);
	return kb;
}

/*
 * The frame of the page at @va from /proc/self/pagemap (root): a present
 * PTE (PROT_NONE ones too), or a device-exclusive entry (7.2, see
 * on_node_nonresident()). 0: none.
 */
static unsigned long frame_of(int fd, unsigned long va)
{
	uint64_t e;

	if (pread(fd, &e, sizeof(e), (va / PAGE) * sizeof(e)) != sizeof(e))
		return 0;
	if ((e >> 63) & 1)
		return e & ((1ull << 55) - 1);
	if ((e >> 62) & 1 && (e & 31) >= 24)
		return (e >> 5) & ((1ull << 50) - 1);
	return 0;
}

static void frames(volatile uint64_t *b, unsigned long n, unsigned long *pfn)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);

	for (unsigned long i = 0; i < n; i++)
		pfn[i] = fd < 0 ? 0 : frame_of(fd, (unsigned long)(b + i * W));
	if (fd >= 0)
		close(fd);
}

/* A mapping of @len bytes at a 2 MiB-aligned address (reserved, PROT_NONE). */
static void *huge_aligned(size_t len)
{
	char *raw = mmap(NULL, len + HUGE, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long a;

	if (raw == MAP_FAILED)
		return NULL;
	a = ((unsigned long)raw + HUGE - 1) & ~(HUGE - 1);
	if (a > (unsigned long)raw)
		munmap(raw, a - (unsigned long)raw);
	munmap((void *)(a + len), (unsigned long)raw + HUGE - a);
	return (void *)a;
}

static long ksm_stat(const char *name)
{
	char p[128];

	snprintf(p, sizeof(p), "/sys/kernel/mm/ksm/%s", name);
	return (long)read_i64(p);
}

/* ---------------------------------------------------------------- thp -- */

static void thp_move(int node, const char *how)
{
	unsigned long n = L, bad, on;
	size_t len = n * PAGE;
	volatile uint64_t *b = huge_aligned(len);
	unsigned long from[MASK_LONGS], to[MASK_LONGS];
	long hp0, hp1, r = 0;
	char what[32];
	struct ctrs c0, c1, c2, c3;
	uint64_t seed = 0x7a900 + how[1];

	snprintf(what, sizeof(what), "thp-%s", how);
	if (!ok(b && !mprotect((void *)b, len, PROT_READ | PROT_WRITE) &&
		!madvise((void *)b, len, MADV_HUGEPAGE) &&
		!bind_to((void *)b, len, 1, 0),
		"%s: %lu pages, 2 MiB aligned, MADV_HUGEPAGE, bound to node 1",
		what, n))
		return;
	fill(b, n, seed);
	hp0 = smaps_kb((void *)b, "AnonHugePages:");
	ctrs_read(&c0);
	if (!strcmp(how, "mbind")) {
		r = bind_to((void *)b, len, node, MPOL_MF_MOVE | MPOL_MF_STRICT);
	} else if (!strcmp(how, "move")) {
		void **pages = calloc(n, sizeof(*pages));
		int *nodes = calloc(n, sizeof(*nodes));
		int *st = calloc(n, sizeof(*st));

		for (unsigned long i = 0; pages && nodes && st && i < n; i++) {
			pages[i] = (void *)(b + i * W);
			nodes[i] = node;
		}
		r = pages && nodes && st ?
		    move_pages(0, n, pages, nodes, st, MPOL_MF_MOVE) : -1;
		if (r)
			r = r < 0 ? errno : EAGAIN;
		free(pages);
		free(nodes);
		free(st);
	} else {
		node_mask(from, 1);
		node_mask(to, node);
		r = migrate_pages(0, MASK_LONGS * 64, from, to);
		r = r < 0 ? errno : 0;
	}
	ok(!r, "%s: the move returned %s", what, errname((int)r));
	settle(dev);
	ctrs_read(&c1);
	hp1 = smaps_kb((void *)b, "AnonHugePages:");
	ctrs_diag(what, "move", &c0, &c1);
	on = on_node(b, n, node);
	flush_cache(node, dev);
	ctrs_read(&c2);
	bad = check(b, n, seed);
	ctrs_read(&c3);
	ctrs_diag(what, "pass", &c2, &c3);
	printf("unseen %s: pages %lu huge_kb_before %ld huge_kb_after %ld on_node %lu",
	       what, n, hp0, hp1, on);
	printf(" arrivals %" PRId64 " thp_refused %" PRId64 " thp_untracked %" PRId64
	       " pass_misses %" PRId64 "\n", dlt(&c0, &c1, ARRIVALS),
	       dlt(&c0, &c1, THP_REFUSED), dlt(&c0, &c1, THP_UNTRACKED),
	       dlt(&c2, &c3, MISSES));
	ok(!bad, "%s: every page reads back what was written (%lu bad)",
	   what, bad);
	munmap((void *)b, len);
}

static void thp_hugetlb(int node)
{
	unsigned long n = HUGE / PAGE, bad;
	volatile uint64_t *b;
	struct ctrs c0, c1, c2, c3;
	int nd;

	b = mmap(NULL, HUGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (!ok(b != MAP_FAILED && !bind_to((void *)b, HUGE, node, 0),
		"thp-hugetlb: a 2 MiB hugetlb page bound to node %d", node))
		return;
	ctrs_read(&c0);
	fill(b, n, 0x4e6e);
	ctrs_read(&c1);
	nd = page_node((void *)b);
	ctrs_diag("thp-hugetlb", "write", &c0, &c1);
	flush_cache(node, dev);
	ctrs_read(&c2);
	bad = check(b, n, 0x4e6e);
	ctrs_read(&c3);
	ctrs_diag("thp-hugetlb", "pass", &c2, &c3);
	printf("unseen thp-hugetlb: pages %lu node %d seen_write %" PRId64
	       " thp_untracked %" PRId64 " hugetlb_untracked %" PRId64
	       " thp_refused %" PRId64 " pass_misses %" PRId64 "\n", n, nd,
	       seen(&c0, &c1), dlt(&c0, &c1, THP_UNTRACKED),
	       dlt(&c0, &c1, HUGETLB_UNTRACKED), dlt(&c0, &c1, THP_REFUSED),
	       dlt(&c2, &c3, MISSES));
	ok(!bad, "thp-hugetlb: every page reads back what was written (%lu bad)",
	   bad);
	munmap((void *)b, HUGE);
}

static int cmd_thp(int node, const char *arg)
{
	thp_move(node, "mbind");
	thp_move(node, "move");
	thp_move(node, "migrate");
	if (!arg || strcmp(arg, "nohugetlb"))
		thp_hugetlb(node);
	return tap_exit();
}

/* ------------------------------------------------------------- direct -- */

#define CHUNK	(64 * 1024ul)

static int cmd_direct(int node)
{
	unsigned long n = L, i, bad1 = 0, bad2;
	size_t len = n * PAGE, off;
	int fd = memfd_create("unseen-direct", 0);
	volatile uint64_t *b;
	uint64_t *buf = malloc(len);
	struct ctrs c0, c1, c2, c3, c4, c5;
	int nd;

	b = fd >= 0 && !ftruncate(fd, len) ?
	    mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) :
	    MAP_FAILED;
	if (!ok(buf && b != MAP_FAILED && !bind_to((void *)b, len, node, 0),
		"direct: a memfd of %lu pages mapped shared, bound to node %d",
		n, node))
		return tap_exit();
	fill(b, n, 0xd1);
	nd = page_node((void *)(b + (n - 1) * W));
	flush_cache(node, dev);
	ctrs_read(&c0);
	for (off = 0; off < len; off += CHUNK)
		if (pread(fd, (char *)buf + off, CHUNK, off) != (ssize_t)CHUNK)
			break;
	ctrs_read(&c1);
	for (i = 0; i < n; i++)
		bad1 += check_page(buf + i * W, 0xd1, i, W) >= 0;
	ok(off == len && !bad1, "direct: pread() of the evicted pages reads what was written (%lu bad)",
	   bad1);
	fill(buf, n, 0xd2);
	ctrs_read(&c2);
	for (off = 0; off < len; off += CHUNK)
		if (pwrite(fd, (char *)buf + off, CHUNK, off) != (ssize_t)CHUNK)
			break;
	ctrs_read(&c3);
	ok(off == len, "direct: pwrite() of every page");
	ctrs_read(&c4);
	bad2 = check(b, n, 0xd2);
	ctrs_read(&c5);
	ctrs_diag("direct", "pread", &c0, &c1);
	ctrs_diag("direct", "pwrite", &c2, &c3);
	ctrs_diag("direct", "map pass", &c4, &c5);
	printf("unseen direct: pages %lu node %d read_seen %" PRId64
	       " read_kernel %" PRId64 " write_seen %" PRId64
	       " write_kernel %" PRId64 " map_misses %" PRId64 "\n",
	       n, nd, seen(&c0, &c1), dlt(&c0, &c1, KERNEL), seen(&c2, &c3),
	       dlt(&c2, &c3, KERNEL), dlt(&c4, &c5, MISSES));
	ok(!bad2, "direct: the mapping reads what pwrite() wrote (%lu bad)",
	   bad2);
	return tap_exit();
}

/* ---------------------------------------------------------------- dma -- */

struct ring {
	int fd;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail,
		     *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
};

/* A 4-entry io_uring, raw (no liburing in the guest). 0 or -errno. */
static int ring_init(struct ring *r)
{
	struct io_uring_params p = { 0 };
	size_t sq_sz, cq_sz;
	char *sq, *cq;

	r->fd = (int)syscall(__NR_io_uring_setup, 4, &p);
	if (r->fd < 0)
		return -errno;
	sq_sz = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_sz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP)
		sq_sz = cq_sz = sq_sz > cq_sz ? sq_sz : cq_sz;
	sq = mmap(NULL, sq_sz, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return -errno;
	cq = sq;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP)) {
		cq = mmap(NULL, cq_sz, PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_CQ_RING);
		if (cq == MAP_FAILED)
			return -errno;
	}
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		       r->fd, IORING_OFF_SQES);
	if (r->sqes == MAP_FAILED)
		return -errno;
	r->sq_tail = (unsigned int *)(sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)(sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)(sq + p.sq_off.array);
	r->cq_head = (unsigned int *)(cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)(cq + p.cq_off.tail);
	r->cq_mask = (unsigned int *)(cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	return 0;
}

/* One IORING_OP_READ_FIXED of fixed buffer 0 from @fd at 0: its result. */
static long ring_read_fixed(struct ring *r, int fd, void *buf, size_t len)
{
	unsigned int tail = *r->sq_tail, idx = tail & *r->sq_mask, head;
	struct io_uring_sqe *sqe = &r->sqes[idx];
	long res;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ_FIXED;
	sqe->fd = fd;
	sqe->addr = (unsigned long)buf;
	sqe->len = (unsigned int)len;
	sqe->buf_index = 0;
	r->sq_array[idx] = idx;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0)
		return -errno;
	head = *r->cq_head;
	if (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	res = r->cqes[head & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, head + 1, __ATOMIC_RELEASE);
	return res;
}

static int cmd_dma(int node, const char *blk)
{
	unsigned long n = L, bad, on0, on1;
	size_t len = n * PAGE;
	volatile uint64_t *b = node_buf(node, n);
	uint64_t *src = NULL;
	struct ctrs c0, c1, c2, c3, c4, c5;
	struct iovec iov;
	struct ring r = { .fd = -1 };
	int bfd, reg;
	int64_t vm;
	ssize_t rd;
	long rf;

	bfd = open(blk, O_RDWR | O_DIRECT);
	if (posix_memalign((void **)&src, PAGE, len))
		src = NULL;
	if (!ok(b && src && bfd >= 0,
		"dma: %lu pages bound to node %d, %s open O_DIRECT", n, node,
		blk))
		return tap_exit();
	fill(src, n, 0xd3a);
	ok(pwrite(bfd, src, len, 0) == (ssize_t)len,
	   "dma: the data written to %s", blk);
	fill(b, n, 0xd3b);
	flush_cache(node, dev);
	ctrs_read(&c0);
	rd = pread(bfd, (void *)b, len, 0);
	ctrs_read(&c1);
	bad = 0;
	vm = pass(b, n, 0xd3a, &bad);
	ctrs_diag("dma", "read", &c0, &c1);
	printf("unseen dma: pages %lu read %zd seen %" PRId64 " hint_faults %"
	       PRId64 " verify_misses %" PRId64 "\n", n, rd, seen(&c0, &c1),
	       dlt(&c0, &c1, HINT), vm);
	ok(rd == (ssize_t)len && !bad,
	   "dma: the O_DIRECT read put the data into the node's pages (%lu bad)",
	   bad);

	/* a long-term pin: an io_uring fixed buffer */
	reg = ring_init(&r);
	on0 = on_node(b, n, node);
	ctrs_read(&c2);
	iov.iov_base = (void *)b;
	iov.iov_len = len;
	if (!reg && syscall(__NR_io_uring_register, r.fd,
			    IORING_REGISTER_BUFFERS, &iov, 1) < 0)
		reg = -errno;
	settle(dev);
	ctrs_read(&c3);
	on1 = on_node(b, n, node);
	ctrs_diag("dma-pinned", "register", &c2, &c3);
	rf = reg;
	if (!reg) {
		fill(src, n, 0xd3c);
		pwrite(bfd, src, len, 0);
		flush_cache(node, dev);
		ctrs_read(&c4);
		rf = ring_read_fixed(&r, bfd, (void *)b, len);
		ctrs_read(&c5);
		ctrs_diag("dma-pinned", "read", &c4, &c5);
		bad = check(b, n, 0xd3c);
		ok(rf == (long)len && !bad,
		   "dma-pinned: the fixed read put the data into the pages (%ld, %lu bad)",
		   rf, bad);
	} else {
		c4 = c5 = c3;
	}
	printf("unseen dma-pinned: pages %lu registered %d on_node_before %lu on_node_after %lu departures %"
	       PRId64 " seen_register %" PRId64 " read %ld seen_read %" PRId64 "\n",
	       n, reg, on0, on1, dlt(&c2, &c3, DEPARTURES), seen(&c2, &c3), rf,
	       seen(&c4, &c5));
	if (!reg)
		close(r.fd);
	close(bfd);
	return tap_exit();
}

/* ------------------------------------------------------------- remote -- */

static int remote_child(int node, unsigned long m, int wfd, int rfd)
{
	volatile uint64_t *a = node_buf(node, m), *b = node_buf(node, m);
	unsigned long bad = 0;
	int64_t p1, p2, f1, f2;
	uintptr_t addr[2];
	char c;

	if (!a || !b)
		return 2;
	fill(a, m, 0x3e1);
	fill(b, m, 0x3e2);
	flush_cache(node, dev);
	addr[0] = (uintptr_t)a;
	addr[1] = (uintptr_t)b;
	if (write(wfd, addr, sizeof(addr)) != sizeof(addr) ||
	    read(rfd, &c, 1) != 1)
		return 2;
	p1 = pass(a, m, 0x3e1, &bad);
	p2 = pass(b, m, 0x3e2, &bad);
	flush_cache(node, dev);
	f1 = pass(a, m, 0x3e1, &bad);
	f2 = pass(b, m, 0x3e2, &bad);
	printf("unseen remote-owner: pages %lu procmem_pass %" PRId64
	       " vmreadv_pass %" PRId64 " procmem_after_flush %" PRId64
	       " vmreadv_after_flush %" PRId64 "\n", m, p1, p2, f1, f2);
	ok(!bad, "remote: the owner reads back what it wrote (%lu bad)", bad);
	return tap_exit();
}

static int cmd_remote(int node)
{
	unsigned long m = L / 2, i, bad = 0;
	size_t len = m * PAGE;
	uint64_t *buf = malloc(len);
	struct ctrs c0, c1, c2, c3;
	int p2c[2], c2p[2], fd, st;
	struct iovec lv, rv;
	uintptr_t addr[2];
	char path[64];
	ssize_t r1, r2;
	pid_t pid;

	if (!buf || pipe(p2c) || pipe(c2p))
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid) {
		close(p2c[1]);
		close(c2p[0]);
		_exit(remote_child(node, m, c2p[1], p2c[0]));
	}
	close(p2c[0]);
	close(c2p[1]);
	if (!ok(read(c2p[0], addr, sizeof(addr)) == sizeof(addr),
		"remote: the owner wrote two mappings of %lu pages and emptied the cache",
		m))
		return tap_exit();
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY);
	ctrs_read(&c0);
	r1 = fd < 0 ? -1 : pread(fd, buf, len, (off_t)addr[0]);
	ctrs_read(&c1);
	for (i = 0; i < m; i++)
		bad += check_page(buf + i * W, 0x3e1, i, W) >= 0;
	ok(r1 == (ssize_t)len && !bad,
	   "remote: /proc/PID/mem reads the evicted pages (%zd, %lu bad)",
	   r1, bad);
	if (fd >= 0)
		close(fd);
	lv.iov_base = buf;
	lv.iov_len = len;
	rv.iov_base = (void *)addr[1];
	rv.iov_len = len;
	memset(buf, 0, len);
	ctrs_read(&c2);
	r2 = process_vm_readv(pid, &lv, 1, &rv, 1, 0);
	ctrs_read(&c3);
	bad = 0;
	for (i = 0; i < m; i++)
		bad += check_page(buf + i * W, 0x3e2, i, W) >= 0;
	ok(r2 == (ssize_t)len && !bad,
	   "remote: process_vm_readv() reads the evicted pages (%zd, %lu bad)",
	   r2, bad);
	ctrs_diag("remote", "procmem", &c0, &c1);
	ctrs_diag("remote", "vmreadv", &c2, &c3);
	printf("unseen remote: pages %lu procmem_seen %" PRId64
	       " procmem_hint %" PRId64 " procmem_remote %" PRId64
	       " procmem_waited %" PRId64 " vmreadv_seen %" PRId64
	       " vmreadv_hint %" PRId64 " vmreadv_remote %" PRId64
	       " vmreadv_waited %" PRId64 "\n", m, seen(&c0, &c1),
	       dlt(&c0, &c1, HINT), dlt(&c0, &c1, REMOTE),
	       dlt(&c0, &c1, WAITED), seen(&c2, &c3), dlt(&c2, &c3, HINT),
	       dlt(&c2, &c3, REMOTE), dlt(&c2, &c3, WAITED));
	if (write(p2c[1], "p", 1) != 1)
		kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && !WEXITSTATUS(st), "remote: the owner exited 0 (%d)",
	   st);
	return tap_exit();
}

/* ---------------------------------------------------------------- ksm -- */

/* KSM's control: identical pages off the node, which it must merge. */
#define KSM_CTL	256

static int cmd_ksm(int node)
{
	unsigned long m = L / 2 - 32, nf = L, bad = 0, k;
	volatile uint64_t *a = node_buf(node, m), *b = node_buf(node, m);
	volatile uint64_t *f = node_buf(node, nf);
	volatile uint64_t *c = mmap(NULL, KSM_CTL * PAGE, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile uint64_t *d = mmap(NULL, KSM_CTL * PAGE, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int64_t ap[2], bp[2], fa = 0, fb = 0, x;
	long shared, sharing = 0, scans0, scans = 0;
	struct ctrs cf, c0, c1;
	int p, i;

	if (!ok(a && b && f && c != MAP_FAILED && d != MAP_FAILED,
		"ksm: two mappings of %lu pages and one of %lu bound to node %d, two of %d off it",
		m, nf, node, KSM_CTL))
		return tap_exit();
	fill(f, nf, 0xf111);
	fill(a, m, 0x45a);
	fill(b, m, 0x45a);
	fill(c, KSM_CTL, 0x45a);	/* A's and B's first pages' contents */
	fill(d, KSM_CTL, 0x45a);
	/* all of A and B resident: KSM merges only mapped, accessible pages */
	for (i = 0; i < 6; i++) {
		x = pass(a, m, 0x45a, &bad);
		x += pass(b, m, 0x45a, &bad);
		if (!x)
			break;
	}
	printf("# unseen ksm: %d settling passes, last %" PRId64 " misses\n",
	       i + 1, x);
	scans0 = ksm_stat("full_scans");
	if (!ok(!madvise((void *)a, m * PAGE, MADV_MERGEABLE) &&
		!madvise((void *)b, m * PAGE, MADV_MERGEABLE) &&
		!madvise((void *)c, KSM_CTL * PAGE, MADV_MERGEABLE) &&
		!madvise((void *)d, KSM_CTL * PAGE, MADV_MERGEABLE),
		"ksm: MADV_MERGEABLE"))
		return tap_exit();
	for (k = 0; k < 300; k++) {
		sharing = ksm_stat("pages_sharing");
		scans = ksm_stat("full_scans") - scans0;
		if (sharing >= KSM_CTL + (long)m ||
		    (sharing >= KSM_CTL && scans >= 3))
			break;
		usleep(100000);
	}
	shared = ksm_stat("pages_shared");
	printf("# unseen ksm: waited %.1f s for ksmd\n", k / 10.0);
	ctrs_read(&cf);
	flush_cache(node, dev);
	ctrs_read(&c0);
	ctrs_diag("ksm", "flush", &cf, &c0);
	for (p = 0; p < 2; p++) {
		ap[p] = pass(a, m, 0x45a, &bad);
		x = pass(f, nf, 0xf111, &bad);
		fa = x;
	}
	for (p = 0; p < 2; p++) {
		bp[p] = pass(b, m, 0x45a, &bad);
		x = pass(f, nf, 0xf111, &bad);
		fb = x;
	}
	ctrs_read(&c1);
	ctrs_diag("ksm", "passes", &c0, &c1);
	bad += check(c, KSM_CTL, 0x45a) + check(d, KSM_CTL, 0x45a);
	printf("unseen ksm: pages %lu control %d full_scans %ld pages_shared %ld pages_sharing %ld a_pass1 %"
	       PRId64 " a_pass2 %" PRId64 " b_pass1 %" PRId64 " b_pass2 %" PRId64
	       " f_pass2a %" PRId64 " f_pass2b %" PRId64 " evicted_ptes %" PRId64
	       " evictions_unmapped %" PRId64 " evictions_uncovered %" PRId64 "\n",
	       m, KSM_CTL, scans, shared, sharing, ap[0], ap[1], bp[0], bp[1],
	       fa, fb, dlt(&cf, &c1, EPTES), dlt(&cf, &c1, UNMAPPED),
	       dlt(&cf, &c1, UNCOVERED));
	ok(!bad, "ksm: every page of A, B, F, C and D reads back what was written (%lu bad)",
	   bad);
	return tap_exit();
}

/* -------------------------------------------------------------- freed -- */

static int cmp_ul(const void *x, const void *y)
{
	unsigned long a = *(const unsigned long *)x, b = *(const unsigned long *)y;

	return a < b ? -1 : a > b;
}

static int cmd_freed(int node)
{
	unsigned long n = L, i, reused = 0, *fa = calloc(n, sizeof(*fa));
	unsigned long *fb = calloc(n, sizeof(*fb)), bad = 0;
	volatile uint64_t *c = node_buf(node, n), *a, *b;
	struct ctrs c0, c1, c2, c3;
	int64_t cm;

	if (!ok(c && fa && fb, "freed: %lu pages bound to node %d", n, node))
		return tap_exit();
	fill(c, n, 0xc0);
	/* C evicted; the lines left are those of freed frames */
	flush_cache(node, dev);
	a = node_buf(node, n);
	if (!a)
		return 2;
	for (i = 0; i < n; i++)
		a[i * W] = i;
	/* all of A resident (its lines, and only those, cached) when freed */
	settle_resident(a, n);
	frames(a, n, fa);
	munmap((void *)a, n * PAGE);
	b = node_buf(node, n);
	if (!b)
		return 2;
	ctrs_read(&c0);
	for (i = 0; i < n; i++)
		b[i * W] = i;
	ctrs_read(&c1);
	frames(b, n, fb);
	munmap((void *)b, n * PAGE);
	qsort(fa, n, sizeof(*fa), cmp_ul);
	for (i = 0; i < n; i++)
		reused += fb[i] &&
			  bsearch(&fb[i], fa, n, sizeof(*fa), cmp_ul) != NULL;
	ctrs_read(&c2);
	cm = pass(c, n, 0xc0, &bad);
	ctrs_read(&c3);
	ctrs_diag("freed", "B writes", &c0, &c1);
	ctrs_diag("freed", "C read", &c2, &c3);
	printf("unseen freed: pages %lu reused %lu b_first_touches %" PRId64
	       " b_hits %" PRId64 " b_misses %" PRId64 " c_misses %" PRId64
	       " c_evictions %" PRId64 " c_evictions_unmapped %" PRId64 "\n",
	       n, reused, dlt(&c0, &c1, FIRST), dlt(&c0, &c1, HITS),
	       dlt(&c0, &c1, MISSES), cm, dlt(&c2, &c3, EVICTIONS),
	       dlt(&c2, &c3, UNMAPPED));
	ok(!bad, "freed: C reads back what was written (%lu bad)", bad);
	return tap_exit();
}

/* ------------------------------------------------------------- mremap -- */

static void realloc_case(int node)
{
	size_t len = L / 2 * PAGE, words = len / 8, big = 4 * len, i;
	struct bitmask *bm = numa_allocate_nodemask();
	volatile uint64_t *p, *q;
	int64_t u0, v0, m0, m1, m2;
	unsigned long bad = 0;
	int sp;

	numa_bitmask_setbit(bm, node);
	numa_set_membind(bm);
	p = malloc(len);
	for (i = 0; p && i < words; i++)
		p[i] = pattern(0x4ea, 0, i);
	/* the whole block resident before it moves */
	sp = p ? settle_resident(p, words / W) : 0;
	u0 = nl_stat(dev, "evictions_unmapped");
	v0 = nl_stat(dev, "evictions_moved");
	q = p ? realloc((void *)p, big) : NULL;
	for (i = words; q && i < big / 8; i++)
		q[i] = pattern(0x4ea, 0, i);
	numa_set_localalloc();
	numa_free_nodemask(bm);
	if (!ok(q != NULL, "realloc: %lu pages under a policy bound to node %d, then %lu",
		L / 2, node, 2 * L))
		return;
	m0 = dev_stat(dev, "misses");
	for (i = 0; i < big / 8; i++)
		bad += q[i] != pattern(0x4ea, 0, i);
	m1 = dev_stat(dev, "misses");
	for (i = 0; i < big / 8; i++)
		bad += q[i] != pattern(0x4ea, 0, i);
	m2 = dev_stat(dev, "misses");
	printf("# unseen realloc: %d passes to make the block resident\n", sp);
	printf("unseen realloc: pages %lu old_pages %lu moved %d pass1 %" PRId64
	       " pass2 %" PRId64 " unmapped %" PRId64 " moved_evictions %" PRId64
	       "\n", 2 * L, L / 2, p != q, m1 - m0, m2 - m1,
	       nl_stat(dev, "evictions_unmapped") - u0,
	       nl_stat(dev, "evictions_moved") - v0);
	ok(!bad, "realloc: every word reads back what was written (%lu bad)",
	   bad);
	free((void *)q);
}

static int cmd_mremap(int node)
{
	unsigned long n = 2 * L, bad = 0;
	size_t len = n * PAGE;
	volatile uint64_t *b = node_buf(node, n), *nb;
	int64_t m[3], u[3], v[3], u0, v0;
	void *dst;
	int p;

	dst = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!ok(b && dst != MAP_FAILED, "mremap: %lu pages bound to node %d",
		n, node))
		return tap_exit();
	fill(b, n, 0x3e3);
	/* the second half resident, the first evicted, whatever hit */
	printf("# unseen mremap: %d passes to make the second half resident\n",
	       settle_resident(b + L * W, L));
	nb = mremap((void *)b, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	if (!ok(nb == dst, "mremap: moved to %p (%p)", dst, (void *)nb))
		return tap_exit();
	for (p = 0; p < 3; p++) {
		u0 = nl_stat(dev, "evictions_unmapped");
		v0 = nl_stat(dev, "evictions_moved");
		m[p] = pass(nb, n, 0x3e3, &bad);
		u[p] = nl_stat(dev, "evictions_unmapped") - u0;
		v[p] = nl_stat(dev, "evictions_moved") - v0;
	}
	printf("unseen mremap: pages %lu pass1 %" PRId64 " pass2 %" PRId64
	       " pass3 %" PRId64 " unmapped1 %" PRId64 " unmapped2 %" PRId64
	       " unmapped3 %" PRId64 " moved1 %" PRId64 " moved2 %" PRId64
	       " moved3 %" PRId64 "\n", n, m[0], m[1], m[2], u[0], u[1],
	       u[2], v[0], v[1], v[2]);
	ok(!bad, "mremap: every page reads back what was written (%lu bad)",
	   bad);
	munmap((void *)nb, len);
	realloc_case(node);
	return tap_exit();
}

/* --------------------------------------------------------------- fork -- */

/* What the child of cmd_fork() measured, sent back through a pipe. */
struct fork_res {
	int64_t pass[3];
	unsigned long bad;
};

static int cmd_fork(int node)
{
	unsigned long n = 2 * L, bad = 0;
	volatile uint64_t *b = node_buf(node, n);
	struct ctrs c0, c1, c2, c3;
	struct fork_res r = { 0 };
	int fds[2], st = -1, p, got;
	int64_t pp, pf;
	pid_t pid;

	if (!ok(b && !pipe(fds), "fork: %lu pages bound to node %d", n, node))
		return tap_exit();
	/* the last L resident, the first L evicted */
	fill(b, n, 0x4f0);
	ctrs_read(&c0);
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid) {
		close(fds[0]);
		for (p = 0; p < 3; p++)
			r.pass[p] = pass(b, n, 0x4f0, &r.bad);
		_exit(write(fds[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(fds[1]);
	got = read(fds[0], &r, sizeof(r)) == sizeof(r);
	close(fds[0]);
	waitpid(pid, &st, 0);
	ctrs_read(&c1);
	ok(got && WIFEXITED(st) && !WEXITSTATUS(st),
	   "fork: the child read the shared pages three times and exited (%d)",
	   st);
	/* the parent alone: no page is shared any more */
	pp = pass(b, n, 0x4f0, &bad);
	ctrs_read(&c2);
	flush_cache(node, dev);
	pf = pass(b, n, 0x4f0, &bad);
	ctrs_read(&c3);
	ctrs_diag("fork", "child", &c0, &c1);
	ctrs_diag("fork", "parent", &c1, &c3);
	printf("unseen fork: pages %lu pass1 %" PRId64 " pass2 %" PRId64
	       " pass3 %" PRId64 " child_evictions %" PRId64
	       " child_uncovered %" PRId64 " parent_pass %" PRId64
	       " parent_after_flush %" PRId64 " parent_uncovered %" PRId64
	       " child_rearmed %" PRId64 " rearmed %" PRId64 "\n", n,
	       r.pass[0], r.pass[1], r.pass[2], dlt(&c0, &c1, EVICTIONS),
	       dlt(&c0, &c1, UNCOVERED), pp, pf, dlt(&c2, &c3, UNCOVERED),
	       dlt(&c0, &c1, REARMED), dlt(&c1, &c3, REARMED));
	ok(!r.bad && !bad,
	   "fork: the child and the parent read what the parent wrote (%lu, %lu bad)",
	   r.bad, bad);
	munmap((void *)b, n * PAGE);
	return tap_exit();
}

/* ------------------------------------------------------------- rdonly -- */

static int cmd_rdonly(int node)
{
	unsigned long n = 2 * L, bad = 0;
	volatile uint64_t *b = node_buf(node, n);
	struct ctrs cm, c0, c1, c2;
	int64_t p1, p2;

	if (!ok(b != NULL, "rdonly: %lu pages bound to node %d", n, node))
		return tap_exit();
	/* the last L resident, the first L evicted */
	fill(b, n, 0x7d0);
	ctrs_read(&cm);
	if (!ok(!mprotect((void *)b, n * PAGE, PROT_READ),
		"rdonly: the mapping made read-only"))
		return tap_exit();
	ctrs_read(&c0);
	p1 = pass(b, n, 0x7d0, &bad);
	ctrs_read(&c1);
	p2 = pass(b, n, 0x7d0, &bad);
	ctrs_read(&c2);
	ctrs_diag("rdonly", "pass1", &c0, &c1);
	ctrs_diag("rdonly", "pass2", &c1, &c2);
	printf("unseen rdonly: pages %lu pass1 %" PRId64 " pass2 %" PRId64
	       " uncovered1 %" PRId64 " uncovered2 %" PRId64 " rearmed %" PRId64
	       "\n", n, p1, p2, dlt(&c0, &c1, UNCOVERED),
	       dlt(&c1, &c2, UNCOVERED), dlt(&cm, &c0, MPROT_REARMED));
	ok(!bad, "rdonly: every page reads back what was written (%lu bad)",
	   bad);
	munmap((void *)b, n * PAGE);
	return tap_exit();
}

/* ---------------------------------------------------------- hugetmpfs -- */

static int cmd_hugetmpfs(int node, const char *dir)
{
	unsigned long n = 2 * L, bad = 0;
	size_t len = n * PAGE;
	struct ctrs c0, c1;
	volatile uint64_t *b;
	int64_t p1, p2;
	char path[256];
	void *at;
	long pmd;
	int fd, nd;

	snprintf(path, sizeof(path), "%s/unseen-huge", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	at = huge_aligned(len);
	b = fd >= 0 && at && !ftruncate(fd, len) ?
	    mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) :
	    MAP_FAILED;
	if (!ok(b != MAP_FAILED && !bind_to((void *)b, len, node, 0),
		"hugetmpfs: %s, %lu pages mapped shared at a 2 MiB boundary, bound to node %d",
		path, n, node))
		return tap_exit();
	ctrs_read(&c0);
	fill(b, n, 0x7f5);
	ctrs_read(&c1);
	pmd = smaps_kb((void *)b, "ShmemPmdMapped:") +
	      smaps_kb((void *)b, "FilePmdMapped:");
	ctrs_diag("hugetmpfs", "write", &c0, &c1);
	nd = page_node((void *)(b + (n - 1) * W));
	flush_cache(node, dev);
	p1 = pass(b, n, 0x7f5, &bad);
	p2 = pass(b, n, 0x7f5, &bad);
	printf("unseen hugetmpfs: pages %lu node %d pmd_kb %ld seen_write %"
	       PRId64 " file_maps %" PRId64 " thp_refused %" PRId64
	       " thp_untracked %" PRId64 " pass1 %" PRId64 " pass2 %" PRId64 "\n",
	       n, nd, pmd, seen(&c0, &c1), dlt(&c0, &c1, FILEMAP),
	       dlt(&c0, &c1, THP_REFUSED), dlt(&c0, &c1, THP_UNTRACKED), p1, p2);
	ok(!bad, "hugetmpfs: every page reads back what was written (%lu bad)",
	   bad);
	munmap((void *)b, len);
	close(fd);
	unlink(path);
	return tap_exit();
}

/* ----------------------------------------------------------- ext4huge -- */

/* Pages of the @n at @b in the page cache (mincore); -1 if it fails. */
static long ext4huge_cached(volatile uint64_t *b, unsigned long n)
{
	unsigned char *v = malloc(n);
	long c = 0;

	if (!v || mincore((void *)b, n * PAGE, v)) {
		free(v);
		return -1;
	}
	for (unsigned long i = 0; i < n; i++)
		c += v[i] & 1;
	free(v);
	return c;
}

/*
 * Of the @n pages at @b, those with a frame (*@mapped), and of those the
 * pages of large folios (return): /proc/kpageflags' KPF_COMPOUND_HEAD
 * (15) or KPF_COMPOUND_TAIL (16).
 */
static unsigned long ext4huge_large(volatile uint64_t *b, unsigned long n,
				    unsigned long *mapped)
{
	unsigned long *pfn = calloc(n, sizeof(*pfn)), c = 0;
	int fd = open("/proc/kpageflags", O_RDONLY);
	uint64_t f;

	*mapped = 0;
	if (pfn && fd >= 0) {
		frames(b, n, pfn);
		for (unsigned long i = 0; i < n; i++) {
			if (!pfn[i])
				continue;
			(*mapped)++;
			if (pread(fd, &f, sizeof(f), pfn[i] * sizeof(f)) ==
			    sizeof(f) && (f & (3ull << 15)))
				c++;
		}
	}
	if (fd >= 0)
		close(fd);
	free(pfn);
	return c;
}

/*
 * One run over the file at @path of @n pages: see the header ("ext4huge").
 * Each run opens the file anew: its own readahead state (struct file).
 */
static void ext4huge_run(int node, const char *path, unsigned long n,
			 const char *what, int huge, uint64_t seed)
{
	unsigned long mask[MASK_LONGS], bad = 0, onn = 0, large = 0, mapped = 0;
	size_t len = n * PAGE;
	volatile uint64_t *b = MAP_FAILED;
	struct ctrs c0, c1;
	long cached = -1, pmd = -1;
	int64_t p1 = -1, p2 = -1;
	int bound = 0, fd = open(path, O_RDONLY);
	void *at;

	if (fd >= 0)
		posix_fadvise(fd, 0, len, POSIX_FADV_DONTNEED);
	at = huge_aligned(len);
	if (at && fd >= 0)
		b = mmap(at, len, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
	if (fd >= 0)
		close(fd);
	if (!ok(b != MAP_FAILED &&
		(!huge || !madvise((void *)b, len, MADV_HUGEPAGE)),
		"%s: %lu pages mapped shared at a 2 MiB boundary%s", what, n,
		huge ? ", MADV_HUGEPAGE" : ""))
		return;
	cached = ext4huge_cached(b, n);
	node_mask(mask, node);
	ctrs_read(&c0);
	bound = !set_mempolicy(MPOL_BIND, mask, MASK_LONGS * 64);
	bad += check(b, n, seed);
	set_mempolicy(MPOL_DEFAULT, NULL, 0);
	ctrs_read(&c1);
	ok(bound, "%s: the read ran under a task policy bound to node %d",
	   what, node);
	pmd = smaps_kb((void *)b, "FilePmdMapped:");
	onn = on_node(b, n, node);
	large = ext4huge_large(b, n, &mapped);
	ctrs_diag(what, "read", &c0, &c1);
	flush_cache(node, dev);
	p1 = pass(b, n, seed, &bad);
	p2 = pass(b, n, seed, &bad);
	printf("unseen %s: pages %lu cached_before %ld on_node %lu mapped %lu large %lu pmd_kb %ld seen_read %"
	       PRId64 " file_maps %" PRId64 " thp_refused %" PRId64
	       " thp_untracked %" PRId64 " pass1 %" PRId64 " pass2 %" PRId64
	       "\n", what, n, cached, onn, mapped, large, pmd, seen(&c0, &c1),
	       dlt(&c0, &c1, FILEMAP), dlt(&c0, &c1, THP_REFUSED),
	       dlt(&c0, &c1, THP_UNTRACKED), p1, p2);
	ok(!bad, "%s: every page reads back what was written (%lu bad)", what,
	   bad);
	munmap((void *)b, len);
}

static int cmd_ext4huge(int node, const char *dir)
{
	unsigned long n = 2 * L;
	size_t len = n * PAGE;
	uint64_t *src = NULL;
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/unseen-ext4huge", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (posix_memalign((void **)&src, PAGE, len))
		src = NULL;
	if (src)
		fill(src, n, 0xe4f);
	if (!ok(fd >= 0 && src && write(fd, src, len) == (ssize_t)len &&
		!fsync(fd),
		"ext4huge: %s, %lu pages written off the node and synced", path,
		n))
		return tap_exit();
	close(fd);
	ext4huge_run(node, path, n, "ext4huge", 1, 0xe4f);
	ext4huge_run(node, path, n, "ext4huge-plain", 0, 0xe4f);
	free(src);
	unlink(path);
	return tap_exit();
}

/* -------------------------------------------------------------- query -- */

static void query(volatile uint64_t *b, unsigned long n, int node,
		  unsigned long *cnt)
{
	void **pages = calloc(n, sizeof(*pages));
	int *st = calloc(n, sizeof(*st));
	unsigned long i;

	memset(cnt, 0, 4 * sizeof(*cnt));
	if (!pages || !st)
		goto out;
	for (i = 0; i < n; i++)
		pages[i] = (void *)(b + i * W);
	if (move_pages(0, n, pages, NULL, st, 0))
		goto out;
	for (i = 0; i < n; i++)
		cnt[st[i] == node ? 0 : st[i] == -ENOENT ? 1 :
		    st[i] == -EFAULT ? 2 : 3]++;
out:
	free(pages);
	free(st);
}

static int cmd_query(int node)
{
	unsigned long n = 2 * L, bad = 0, q1[4], q2[4];
	volatile uint64_t *b = node_buf(node, n);
	struct ctrs c0, c1;

	if (!ok(b != NULL, "query: %lu pages bound to node %d", n, node))
		return tap_exit();
	ctrs_read(&c0);
	fill(b, n, 0x9e7);
	ctrs_read(&c1);
	query(b, n, node, q1);
	pass(b, n, 0x9e7, &bad);
	query(b, n, node, q2);
	printf("unseen query: pages %lu evicted %" PRId64 " on_node %lu enoent %lu efault %lu other %lu on_node2 %lu enoent2 %lu efault2 %lu\n",
	       n, dlt(&c0, &c1, EPTES), q1[0], q1[1], q1[2], q1[3], q2[0],
	       q2[1], q2[2]);
	ok(!bad, "query: every page reads back what was written (%lu bad)",
	   bad);
	return tap_exit();
}

int main(int argc, char **argv)
{
	const char *what, *arg;
	char p[256];
	int node;

	tap_init();
	if (argc < 4) {
		fprintf(stderr, "usage: see the top of %s\n", __FILE__);
		return 2;
	}
	what = argv[1];
	node = atoi(argv[2]);
	dev = argv[3];
	arg = argc > 4 ? argv[4] : NULL;
	sys_path(p, sizeof(p), dev, "cache_size");
	L = (unsigned long)read_i64(p) / PAGE;
	if (!L || numa_available() < 0)
		return 2;
	if (!strcmp(what, "thp"))
		return cmd_thp(node, arg);
	if (!strcmp(what, "direct"))
		return cmd_direct(node);
	if (!strcmp(what, "dma") && arg)
		return cmd_dma(node, arg);
	if (!strcmp(what, "remote"))
		return cmd_remote(node);
	if (!strcmp(what, "ksm"))
		return cmd_ksm(node);
	if (!strcmp(what, "freed"))
		return cmd_freed(node);
	if (!strcmp(what, "mremap"))
		return cmd_mremap(node);
	if (!strcmp(what, "fork"))
		return cmd_fork(node);
	if (!strcmp(what, "rdonly"))
		return cmd_rdonly(node);
	if (!strcmp(what, "hugetmpfs") && arg)
		return cmd_hugetmpfs(node, arg);
	if (!strcmp(what, "ext4huge") && arg)
		return cmd_ext4huge(node, arg);
	if (!strcmp(what, "query"))
		return cmd_query(node);
	fprintf(stderr, "usage: see the top of %s\n", __FILE__);
	return 2;
}
