// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-sim's replay: one trace through the cxdvirt device model (the same
 * code the module runs) on one clock per trace thread, into the metrics the
 * report prints.
 *
 * With --faults the replay mimics the module's fault path instead of a
 * device that sees every access: a page is mapped from its demand access
 * until it is evicted, and an access to a mapped page is a native hit that
 * never reaches the model (a write to a read-only mapped page only marks
 * the line dirty, as ->page_mkwrite does). This is exactly what the module
 * sees from one process with its accessed-bit scan off. --hit-ns charges a
 * native hit as a model hit: it never faults, but on a real CXL-SSD the
 * access is still served by the device's cache.
 *
 * Time: each thread of the trace (its records' thread field) has its own
 * clock. A thread's first access arrives at 0; each next one arrives
 * think_ns after its previous one completed (done_ns of
 * cxd_model_access(), or with --hit-ns a hit's cxd_model_hit()). The
 * threads share the device: the accesses go to the model in the order of
 * their arrival times (ties: the lower thread first), so one thread's
 * misses queue behind another's on the controller, the dies, the channels
 * and the link. A thread's accesses keep their order in the trace. A
 * single-thread trace is one chain of dependent accesses, as before.
 *
 * --warmup N: the first N accesses (in arrival order) run, then every
 * counter is reset and the measured window starts at the arrival of the
 * next one.
 *
 * A discard record (D, TRACE_DISCARD) is not an access: when its thread's
 * clock reaches it, the page leaves the device (cxd_model_discard(), at
 * that time; with --faults its mapping goes too), taking no time, and the
 * thread's next record arrives at the same time. Discards are counted in
 * discards (lines dropped) and discard_records, not in accesses, and
 * --warmup and --power-fail-at count accesses only.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "cxu_lat.h"
#include "cxu_msg.h"
#include <cxdvirt/params.h>

#include "sim.h"

/**
 * sim_check() - the checks sim_run() makes before it replays anything.
 * @cfg:      the configuration.
 * @max_page: the trace's highest page (0 for an empty trace).
 * @npages:   out: the device's capacity in pages (@cfg's, or the trace's
 *            extent and at least the cache when @cfg's capacity is 0).
 * @msize:    out: the model's state in bytes.
 *
 * Return: NULL, or why the run would fail (a static string, valid until
 * the next call).
 */
const char *sim_check(const struct sim_cfg *cfg, uint64_t max_page,
		      uint64_t *npages, size_t *msize)
{
	static char why[128];

	if (cfg->p.cache_size % CXD_HOST_PAGE_SIZE ||
	    cfg->p.capacity % CXD_HOST_PAGE_SIZE)
		return "--cache-size and --capacity must be multiples of 4K, as in configfs";
	*npages = cfg->p.capacity / CXD_HOST_PAGE_SIZE;
	if (!*npages) {
		if (max_page >= CXD_MODEL_MAX_CAPACITY / CXD_HOST_PAGE_SIZE) {
			snprintf(why, sizeof(why),
				 "page %" PRIu64 " beyond the largest capacity (16T, %" PRIu64 " pages)",
				 max_page,
				 (uint64_t)(CXD_MODEL_MAX_CAPACITY / CXD_HOST_PAGE_SIZE));
			return why;
		}
		*npages = max_page + 1;
		if (*npages < cfg->p.cache_size / CXD_HOST_PAGE_SIZE)
			*npages = cfg->p.cache_size / CXD_HOST_PAGE_SIZE;
	}
	if (max_page >= *npages) {
		snprintf(why, sizeof(why),
			 "page %" PRIu64 " beyond the capacity (%" PRIu64 " pages)",
			 max_page, *npages);
		return why;
	}
	/* The module's power-on checks (driver/model/setup.c). */
	return cxd_model_setup_check(&cfg->p, *npages, msize);
}

/**
 * sim_check_opts() - the checks of sim_check() that hold for every trace.
 * @cfg: the configuration.
 *
 * What sim_check() refuses whatever the trace: with a --capacity, all of
 * it but a page beyond the capacity; with the trace's extent as the
 * capacity (0), all of it for the smallest such device (the cache's
 * size) but the FTL's geometry, which depends on the extent. A @cfg
 * refused here is a usage error: no trace needs to be read to tell.
 *
 * Return: NULL, or why the run would fail (as sim_check()).
 */
const char *sim_check_opts(const struct sim_cfg *cfg)
{
	struct sim_cfg c = *cfg;
	uint64_t npages;
	size_t msize;

	if (!c.p.capacity) {
		c.p.capacity = c.p.cache_size;
		c.p.ftl.mode = CXD_FTL_OFF;
	}
	return sim_check(&c, 0, &npages, &msize);
}

/**
 * sim_check_len() - the checks of a trace's length sim_run() makes.
 * @cfg: the configuration (its --warmup and --power-fail-at).
 * @n:   the trace's accesses.
 *
 * A warm-up that leaves nothing to measure, a power failure beyond the
 * trace, or a warm-up that reaches the power failure is refused, in this
 * order; an empty trace passes (trace_load() refuses a trace without an
 * access, and sweep's generators need one). cxdvirt-sim sweep
 * makes the same checks before any job runs.
 *
 * Return: NULL, or why the run would fail (a static string, valid until
 * the next call).
 */
const char *sim_check_len(const struct sim_cfg *cfg, uint64_t n)
{
	static char why[160];
	uint64_t warm = cfg->warmup_pct ? n * cfg->warmup_pct / 100 : cfg->warmup;

	if (warm >= n && n) {
		snprintf(why, sizeof(why),
			 "--warmup %" PRIu64 " leaves none of the trace's %" PRIu64 " accesses to measure",
			 warm, n);
		return why;
	}
	if (cfg->power_fail_at > n) {
		snprintf(why, sizeof(why),
			 "--power-fail-at %" PRIu64 ": beyond the trace (%" PRIu64 " accesses)",
			 cfg->power_fail_at, n);
		return why;
	}
	if (cfg->power_fail_at && warm >= cfg->power_fail_at) {
		snprintf(why, sizeof(why),
			 "--warmup %" PRIu64 " leaves none of the %" PRIu64 " accesses before --power-fail-at to measure",
			 warm, cfg->power_fail_at);
		return why;
	}
	return NULL;
}

/*
 * The threads' clocks as a binary min-heap of thread numbers, ordered by
 * (clock, thread): the next access to replay is the top's.
 */
struct thread_heap {
	uint32_t *h;		/* thread numbers */
	uint32_t n;
	const uint64_t *clk;	/* [threads] when each issues next (ns) */
};

static bool th_less(const struct thread_heap *q, uint32_t a, uint32_t b)
{
	return q->clk[a] < q->clk[b] || (q->clk[a] == q->clk[b] && a < b);
}

static void th_down(struct thread_heap *q, uint32_t i)
{
	uint32_t c, t;

	for (;;) {
		c = 2 * i + 1;
		if (c >= q->n)
			return;
		if (c + 1 < q->n && th_less(q, q->h[c + 1], q->h[c]))
			c++;
		if (!th_less(q, q->h[c], q->h[i]))
			return;
		t = q->h[c];
		q->h[c] = q->h[i];
		q->h[i] = t;
		i = c;
	}
}

/* Record index of thread @k's next access after @i (or @n: none left). */
static uint64_t next_of(const struct trace *t, uint32_t k, uint64_t i)
{
	if (t->threads <= 1)
		return i + 1;
	for (i++; i < t->n && trace_thread(t->recs[i]) != k; i++)
		;
	return i;
}

/* The per-access latencies a run reports besides the misses'. */
struct acc_lat {
	uint64_t sum, n, first_sum, first_n, last_sum, last_n, tenth, total;
};

static void acc_lat_add(struct acc_lat *a, uint64_t ns)
{
	a->sum += ns;
	if (a->n < a->tenth) {
		a->first_sum += ns;
		a->first_n++;
	}
	if (a->n >= a->total - a->tenth) {
		a->last_sum += ns;
		a->last_n++;
	}
	a->n++;
}

/**
 * sim_run() - one replay of a trace.
 * @cfg: configuration; its cache shape, NAND, FTL, prefetcher and drain
 *       settings are checked here, together.
 * @t:   the trace; each page (4 KiB) must be below the capacity (@cfg's,
 *       or the trace's extent when that is 0).
 * @out: filled on success: counts, times in ns, sizes in bytes.
 *
 * Each thread of @t replays on its own clock, all sharing the model (see
 * the top of this file). Memory: the model's state, @t and, with
 * --faults, one byte per page; O(threads) besides. Time: O(accesses) for
 * a single-thread trace; a thread's next record is found by scanning
 * forward, O(accesses x threads) at worst (a round-robin interleaving,
 * as sweep's generators write, costs O(threads) per access).
 *
 * Return: 0, or -1 after printing what is wrong.
 */
int sim_run(const struct sim_cfg *cfg, const struct trace *t,
	    struct metrics *out)
{
	uint64_t i, j, now, done, end = 0, t0 = 0, ndies, page, rec, npages;
	uint8_t *mapped = NULL;	/* --faults: 0 unmapped, 1 read-only, 2 writable */
	uint8_t *acc = NULL;	/* [threads] 1: the thread has an access */
	uint32_t nth = t->threads ? t->threads : 1, k;
	const uint64_t *recs = t->recs;
	struct thread_heap q = { 0 };
	uint64_t *clk = NULL, *cur = NULL, seen = 0, warm, na = 0, nacc, nd = 0;
	struct cxu_lat_hist lat;
	struct acc_lat al = { 0 };
	struct cxd_access r;
	const char *why;
	bool write;
	struct cxd_model m;
	uint32_t planes;
	size_t msize;
	double u;
	void *mem;

	why = sim_check(cfg, t->n ? t->max_page : 0, &npages, &msize);
	if (why) {
		cxu_err("%s", why);
		return -1;
	}
	nacc = t->n - t->ndiscards;
	why = sim_check_len(cfg, nacc);
	if (why) {
		cxu_err("%s", why);
		return -1;
	}
	warm = cfg->warmup_pct ? nacc * cfg->warmup_pct / 100 : cfg->warmup;
	/*
	 * Zeroed, as cxd_model_setup() wants: a fresh mapping costs nothing
	 * per device page until the page is used. MAP_NORESERVE: a 16 TiB
	 * device's 16.5 GiB of state must not be refused by the kernel's
	 * overcommit check on a host with less memory, since a trace touches
	 * only the part of it its pages use.
	 */
	mem = mmap(NULL, msize, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mem == MAP_FAILED) {
		mem = NULL;
		cxu_err("cannot map %zu bytes for the model's state", msize);
	}
	if (cfg->faults)
		mapped = calloc(npages, 1);
	clk = calloc(nth, sizeof(*clk));
	cur = calloc(nth, sizeof(*cur));
	q.h = calloc(nth, sizeof(*q.h));
	acc = calloc(nth, 1);
	if (cxu_lat_hist_init(&lat) || !mem || (cfg->faults && !mapped) ||
	    !clk || !cur || !q.h || !acc ||
	    cxd_model_setup(&m, &cfg->p, npages, mem)) {
		cxu_err("cannot set up the model");
		goto fail;
	}

	memset(out, 0, sizeof(*out));
	al.total = nacc - warm;
	al.tenth = al.total / 10;
	/*
	 * Every thread with a record, its first record, clock 0; seen counts
	 * the threads with an access (R or W; a thread of D records only is
	 * replayed, but is not one of the report's threads). acc[k]: thread k
	 * has an access.
	 */
	q.clk = clk;
	for (k = 0; k < nth; k++)
		cur[k] = t->n;
	for (i = 0; i < t->n && seen < nth; i++) {
		k = trace_thread(recs[i]);
		if (k >= nth)
			continue;
		if (cur[k] == t->n) {
			cur[k] = i;
			q.h[q.n++] = k;
		}
		if (!trace_discard(recs[i]) && !acc[k]) {
			acc[k] = 1;
			seen++;
		}
	}
	for (k = q.n / 2; k-- > 0;)
		th_down(&q, k);
	for (i = 0; i < t->n; i++) {
		k = q.h[0];
		j = cur[k];
		now = clk[k];
		rec = recs[j];
		page = trace_page(rec);
		write = rec & TRACE_WRITE;
		if (trace_discard(rec)) {
			if (page >= npages) {
				cxu_err("record %" PRIu64 ": discard of page %" PRIu64 " beyond the capacity (%" PRIu64 " pages)",
					j + 1, page, npages);
				goto fail;
			}
			cxd_model_discard(&m, page, now);
			if (mapped)
				mapped[page] = 0;
			out->discard_records++;
			nd++;
			goto next;	/* no time passes on the thread's clock */
		}
		if (cfg->power_fail_at && na == cfg->power_fail_at)
			break;	/* the power fails as access na + 1 arrives */
		if (na == warm && na) {
			/* The measured window starts here. */
			cxd_model_reset_stats(&m);
			cxu_lat_hist_free(&lat);
			if (cxu_lat_hist_init(&lat)) {
				cxu_err("out of memory");
				goto fail;
			}
			out->reads = out->writes = out->native_hits = 0;
			out->discard_records = 0;
			t0 = now;
		}
		/* a binary trace's records are checked here, not at load */
		if (page >= npages) {
			cxu_err(
				"access %" PRIu64 ": page %" PRIu64 " beyond the capacity (%" PRIu64 " pages)",
				j + 1, page, npages);
			goto fail;
		}
		/*
		 * The model state of accesses a few ahead, in three steps
		 * (page table entry, line, its queue neighbours): hints only.
		 */
		if (j + 16 < t->n)
			cxd_cache_warm(&m.cache, trace_page(recs[j + 16]), CXD_WARM_PAGE);
		if (j + 8 < t->n)
			cxd_cache_warm(&m.cache, trace_page(recs[j + 8]), CXD_WARM_LINE);
		if (j + 4 < t->n)
			cxd_cache_warm(&m.cache, trace_page(recs[j + 4]), CXD_WARM_LINKS);
		if (write)
			out->writes++;
		else
			out->reads++;
		if (mapped && mapped[page]) {
			/*
			 * A native hit: no fault, but on a real device the
			 * load or store still reaches its cache, so --hit-ns
			 * charges it as a model hit (0: free, as in the
			 * module). A write to a read-only PTE marks the line.
			 */
			if (write && mapped[page] == 1) {
				cxd_cache_set_dirty(&m.cache, page);
				mapped[page] = 2;
			}
			out->native_hits++;
			done = cfg->hit_ns ? cxd_model_hit(&m, now, cfg->hit_ns) : now;
		} else {
			cxd_model_access(&m, page, write ? CXD_ACC_WRITE : 0, now, &r);
			if (!r.hit && cxu_lat_hist_add(&lat, r.done_ns - now)) {
				cxu_err("out of memory");
				goto fail;
			}
			done = r.done_ns;
			if (r.hit && cfg->hit_ns && done == now)
				done = cxd_model_hit(&m, now, cfg->hit_ns);
			if (mapped) {
				for (j = 0; j < r.nvictims; j++)
					mapped[r.victims[j].page] = 0;
				mapped[page] = write ? 2 : 1;
			}
			/* The module drains in a worker right away; so does the replay. */
			while (r.drain) {
				struct cxd_victim dv[64];
				uint32_t n = cxd_model_drain(&m, now, dv, 64), d;

				for (d = 0; mapped && d < n; d++)
					mapped[dv[d].page] = 0;
				if (n < 64)
					break;
			}
		}
		if (na >= warm)
			acc_lat_add(&al, done - now);
		na++;
		clk[k] = done + cfg->think_ns;
		if (clk[k] > end)
			end = clk[k];
next:
		cur[k] = next_of(t, k, cur[k]);
		if (cur[k] >= t->n)	/* thread done: last leaf to the top */
			q.h[0] = q.h[--q.n];
		if (q.n)
			th_down(&q, 0);
	}
	if (i == t->n && nd != t->ndiscards) {
		cxu_err("the trace holds %" PRIu64 " discard records, its header says %" PRIu64 " (corrupt)",
			nd, t->ndiscards);
		goto fail;
	}
	out->accesses = na > warm ? na - warm : 0;
	out->elapsed_ns = end - t0;
	out->npages = npages;
	out->threads = seen;	/* distinct threads with an access */
	out->st = m.stats;
	out->ftl = m.ftl_stats;
	out->erases = m.nand.erases;
	out->state_bytes = msize;
	cxu_lat_hist_summarize(&lat, &out->lat);
	out->lat_sum = lat.sum;
	out->acc_sum = al.sum;
	out->acc_first_ns = al.first_n ? al.first_sum / al.first_n : 0;
	out->acc_last_ns = al.last_n ? al.last_sum / al.last_n : 0;

	ndies = (uint64_t)cfg->p.nand.channels * cfg->p.nand.dies_per_channel;
	planes = cxd_nand_planes(&cfg->p.nand);
	for (i = 0; i < ndies; i++) {
		u = ratio(m.nand.die_busy[i], out->elapsed_ns * planes);
		out->util_mean += u / (double)ndies;
		if (u > out->util_max)
			out->util_max = u;
	}
	if (cfg->power_fail_at) {
		/*
		 * What the module's power_fail keeps and loses, by the same
		 * function: a volatile cache loses every dirty line, GPF
		 * flushes within its budget, from when the next access would
		 * have arrived. After the run's counters and utilisation:
		 * they describe the run up to the failure, not the flush.
		 */
		uint64_t ndirty, nsaved;

		out->lost_pages = malloc(((uint64_t)m.cache.nlines + 1) *
					 sizeof(uint64_t));
		if (!out->lost_pages) {
			cxu_err("out of memory");
			goto fail;
		}
		ndirty = cxd_model_power_fail(&m, q.n ? clk[q.h[0]] : end,
					      out->lost_pages, &nsaved);
		out->lines_saved = nsaved;
		out->lines_lost = ndirty - nsaved;
		memmove(out->lost_pages, out->lost_pages + nsaved,
			out->lines_lost * sizeof(uint64_t));
	}
	if (mem)
		munmap(mem, msize);
	cxu_lat_hist_free(&lat);
	free(mapped);
	free(clk);
	free(cur);
	free(q.h);
	free(acc);
	return 0;
fail:
	if (mem)
		munmap(mem, msize);
	cxu_lat_hist_free(&lat);
	free(mapped);
	free(clk);
	free(cur);
	free(q.h);
	free(acc);
	return -1;
}
