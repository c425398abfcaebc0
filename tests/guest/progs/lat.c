// SPDX-License-Identifier: GPL-2.0
/*
 * lat: miss and hit latency of a freshly powered device against the model.
 *
 *   lat DEV NPAGES MODEL_NS [LO HI HITDIV]
 *
 * DEV must be empty (just powered on) with a cache larger than NPAGES pages
 * and no other user. Page i (0..NPAGES-1) is touched once (a miss: timed
 * with CLOCK_MONOTONIC around the first read) and then again (a hit: the
 * page is mapped, no fault). Consecutive pages sit on different dies, and a
 * single thread waits for each miss, so every miss costs exactly the modeled
 * MODEL_NS = tR + transfer.
 *
 * Checks: median miss in [LO, HI] x MODEL_NS (default 1.0, 1.3), median hit
 * below median miss / HITDIV (default 10), and the device's counters:
 * misses == NPAGES, model_ns_total == NPAGES x MODEL_NS (within 1%),
 * miss_ns_total >= model_ns_total less the misses' early end (each wait
 * ends stats/miss_tail_ns early, the handler's own work after it: twice
 * the average is allowed; DEV's fault_exit_ns must be 0), and
 * miss_latency_hist counting NPAGES
 * misses, none in a bucket below MODEL_NS / 2.
 */
#include "common.h"

static void summary(const char *what, uint64_t *v, size_t n)
{
	uint64_t p50 = quantile(v, n, 0.5);

	diag("%s latency ns: min %" PRIu64 " p10 %" PRIu64 " p50 %" PRIu64 " p90 %" PRIu64 " max %" PRIu64,
	     what, v[0], quantile(v, n, 0.1), p50, quantile(v, n, 0.9), v[n - 1]);
}

static void check_hist(const char *dev, uint64_t model, uint64_t want)
{
	char path[256], line[128];
	uint64_t total = 0, low_min = UINT64_MAX;
	FILE *f;

	sys_path(path, sizeof(path), dev, "stats/miss_latency_hist");
	f = fopen(path, "r");
	if (!ok(f != NULL, "stats/miss_latency_hist readable")) {
		ok(0, "miss_latency_hist counts every miss");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t low, cnt;

		if (sscanf(line, "%" SCNu64 " %" SCNu64, &low, &cnt) != 2) {
			diag("unparsed hist line: %s", line);
			continue;
		}
		diag("hist %s", strtok(line, "\n"));
		total += cnt;
		if (cnt && low < low_min)
			low_min = low;
	}
	fclose(f);
	ok(total == want, "miss_latency_hist counts every miss (%" PRIu64 " == %" PRIu64 ")", total, want);
	ok(low_min >= model / 2, "no miss in a bucket below model/2 (lowest bucket %" PRIu64 " ns)", low_min);
}

int main(int argc, char **argv)
{
	double lo = 1.0, hi = 1.3, hitdiv = 10;
	uint64_t *miss, *hit, model, n, p50m, p50h;
	int64_t misses, model_tot, miss_tot, tail;
	volatile char *map;
	const char *dev;

	tap_init();
	if (argc != 4 && argc != 7) {
		fprintf(stderr, "usage: lat DEV NPAGES MODEL_NS [LO HI HITDIV]\n");
		return 2;
	}
	dev = argv[1];
	n = strtoull(argv[2], NULL, 0);
	model = strtoull(argv[3], NULL, 0);
	if (argc == 7) {
		lo = atof(argv[4]);
		hi = atof(argv[5]);
		hitdiv = atof(argv[6]);
	}
	miss = calloc(n, sizeof(*miss));
	hit = calloc(n, sizeof(*hit));
	if (!n || !miss || !hit)
		return 2;

	if (!ok(dev_stats_reset(dev) == 0, "stats/reset accepts 1"))
		return 1;
	map = map_dev(dev, n * PAGE, NULL);
	if (!ok(map != NULL, "mmap %" PRIu64 " pages of %s", n, dev))
		return 1;

	for (uint64_t i = 0; i < n; i++) {
		volatile char *p = map + i * PAGE;
		uint64_t t0, t1, t2, t3;

		t0 = now_ns();
		(void)*p;
		t1 = now_ns();
		(void)*p;
		t2 = now_ns();
		(void)p[64];
		t3 = now_ns();
		miss[i] = t1 - t0;
		hit[i] = t3 - t2;
	}

	summary("miss", miss, n);
	summary("hit", hit, n);
	p50m = quantile(miss, n, 0.5);
	p50h = quantile(hit, n, 0.5);
	diag("model %" PRIu64 " ns; median miss / model = %.3f", model, (double)p50m / (double)model);

	ok(p50m >= lo * (double)model && p50m <= hi * (double)model,
	   "median miss %" PRIu64 " ns within [%.2f, %.2f] x model %" PRIu64 " ns", p50m, lo, hi, model);
	ok((double)p50h * hitdiv < (double)p50m,
	   "median hit %" PRIu64 " ns below median miss / %.0f", p50h, hitdiv);

	misses = dev_stat(dev, "misses");
	model_tot = dev_stat(dev, "model_ns_total");
	miss_tot = dev_stat(dev, "miss_ns_total");
	ok(misses == (int64_t)n, "stats/misses %" PRId64 " == %" PRIu64 " pages touched", misses, n);
	ok(model_tot >= 0 && (double)model_tot >= 0.99 * (double)(n * model) &&
	   (double)model_tot <= 1.01 * (double)(n * model),
	   "stats/model_ns_total %" PRId64 " == misses x model %" PRIu64 " (1%%)", model_tot, n * model);
	tail = dev_stat(dev, "miss_tail_ns");
	ok(miss_tot >= 0 && tail >= 0 && miss_tot + 2 * tail * misses >= model_tot,
	   "stats/miss_ns_total %" PRId64 " >= model_ns_total - misses x 2 x miss_tail_ns (%" PRId64 " ns)",
	   miss_tot, tail);
	check_hist(dev, model, n);

	munmap((void *)map, n * PAGE);
	return tap_exit();
}
