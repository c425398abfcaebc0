// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-dev calibrate: measure the part of a devdax page fault the module
 * cannot time, and write it to the device's fault_exit_ns.
 *
 * A miss should cost the user the modeled time, not the model plus a page
 * fault. The module counts a miss from the fault's entry (x86's
 * page_fault_user tracepoint, driver/fentry.c) and ends its wait
 * fault_exit_ns before the model's completion, to leave room for what
 * follows the wait: the handler's return, the PTE, the return to user
 * space. That remainder (plus the exception's delivery before the
 * tracepoint) is measured here, per CPU, with faults that wait for nothing:
 *
 *   1. N pages of the device are read once, so that their lines are
 *      resident (misses; N at most half the cache's lines);
 *   2. per CPU and round: the pages are mapped afresh and each is read once,
 *      timed with clock_gettime(CLOCK_MONOTONIC) around the load (a minor
 *      fault: the line is resident, the page is not mapped); the module
 *      times the same faults from their entry to its handler's return
 *      (stats/minor_faults, minor_fault_ns_total);
 *   3. a round's remainder = the user's mean - the clock pair's cost - the
 *      module's mean; a CPU's, the median of its rounds.
 *
 * fault_exit_ns becomes the smallest CPU's remainder, so that no CPU ends
 * a miss before the model. A round in which the module counted another
 * number of minor faults than were made (another user of the device, an
 * eviction) is discarded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cxdvirt-dev.h"

#define CAL_ROUNDS	7
#define CAL_MAX_FAULTS	65536u

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t median_i64(int64_t *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median cost of an empty clock_gettime() pair, ns. */
static int64_t clock_pair_ns(void)
{
	int64_t v[1001];
	unsigned int i;

	for (i = 0; i < 1001; i++) {
		uint64_t a = now_ns();

		v[i] = (int64_t)(now_ns() - a);
	}
	return median_i64(v, 1001);
}

struct cal_stats {
	uint64_t minor, minor_ns, stamped, misses;
};

static int cal_read(int index, struct cal_stats *s)
{
	static const char *const rel[] = {
		"stats/minor_faults", "stats/minor_fault_ns_total",
		"stats/miss_entry_stamped", "stats/misses",
	};
	uint64_t *dst[] = { &s->minor, &s->minor_ns, &s->stamped, &s->misses };
	char path[4096];
	unsigned int i;

	for (i = 0; i < 4; i++)
		if (cxu_sysfs_path(index, rel[i], path, sizeof(path)) ||
		    cxu_read_u64(path, dst[i]))
			return -1;
	return 0;
}

/*
 * One round on the current CPU: map @n pages of @fd afresh and read each
 * once. Return: 0 and the user's mean per fault and the module's in
 * @user/@kern (ns), 1 if the module counted other faults (discard), -1 on
 * an error.
 */
static int cal_round(int fd, int index, unsigned int n, long pgsz,
		     double *user, double *kern)
{
	struct cal_stats a, b;
	volatile const char *p;
	uint64_t sum = 0;
	unsigned int i;
	void *map;

	map = mmap(NULL, (size_t)n * pgsz, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -1;
	p = map;
	if (cal_read(index, &a)) {
		munmap(map, (size_t)n * pgsz);
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint64_t t = now_ns();

		(void)p[(size_t)i * pgsz];
		sum += now_ns() - t;
	}
	munmap(map, (size_t)n * pgsz);
	if (cal_read(index, &b))
		return -1;
	if (b.minor - a.minor != n || b.misses != a.misses)
		return 1;
	*user = (double)sum / n;
	*kern = (double)(b.minor_ns - a.minor_ns) / n;
	return 0;
}

/**
 * cmd_calibrate() - `calibrate <name> [--faults N] [--dry-run] [--json]`:
 * measure each CPU's fault remainder and write fault_exit_ns (see the
 * file's comment).
 * @argc:	argument count, the verb first.
 * @argv:	arguments.
 * @ctx:	global options.
 *
 * The device must be powered, in devdax mode, and not used by anyone else
 * meanwhile. Its model state changes: up to N lines become resident and
 * count as misses and hits in its statistics (reset them, or power-cycle,
 * before a measurement; fault_exit_ns survives a power cycle).
 * Return: EXIT_OK, EXIT_ERR, or EXIT_USAGE.
 */
int cmd_calibrate(int argc, char **argv, struct verb_ctx *ctx)
{
	static const struct option opts[] = {
		{ "faults",	required_argument, NULL, 'n' },
		{ "dry-run",	no_argument, NULL, 'd' },
		{ "json",	no_argument, NULL, 'j' },
		{ "help",	no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = ctx->json, dry = false;
	unsigned int nfaults = 256, n, i, r, ncpu = 0, good;
	uint64_t cache, cap, lines, v;
	struct cal_stats s0, s1;
	int64_t pair, best = 0, rem[CAL_ROUNDS];
	struct json_object *obj = NULL, *cpus = NULL;
	char buf[64], dev[64];
	cpu_set_t all, one;
	long pgsz = sysconf(_SC_PAGESIZE);
	int c, index, power, fd, cpu, ret = EXIT_ERR;
	volatile const char *p;
	void *map;

	while ((c = getopt_long(argc, argv, "n:djh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (cxu_parse_u64(optarg, &v) || v < 16 ||
			    v > CAL_MAX_FAULTS)
				return cxu_usage_err("calibrate",
					"--faults %s: expected 16..%u", optarg,
					CAL_MAX_FAULTS);
			nfaults = (unsigned int)v;
			break;
		case 'd': dry = true; break;
		case 'j': json = true; break;
		case 'h': verb_help("calibrate"); return EXIT_OK;
		default: return cxu_usage_err("calibrate", NULL);
		}
	}
	if (optind >= argc)
		return cxu_usage_err("calibrate", "missing device name");
	if (optind + 1 < argc)
		return cxu_usage_err("calibrate", "unexpected '%s'",
				     argv[optind + 1]);
	if (!cxu_name_valid(argv[optind]))
		return cxu_usage_err("calibrate", "'%s': not a device name",
				     argv[optind]);
	if (cxu_check_root())
		return EXIT_ERR;
	if (cxu_dev_exists(argv[optind]) != 1) {
		cxu_err("%s: no such device", argv[optind]);
		return EXIT_ERR;
	}
	if (cxu_dev_index(argv[optind], &index) ||
	    cxu_dev_power(argv[optind], &power)) {
		cxu_err("%s: cannot read index and power", argv[optind]);
		return EXIT_ERR;
	}
	if (!power || cxu_dev_is_node(argv[optind]) == 1) {
		cxu_err("%s: calibrate needs a powered devdax device (enable it; node mode is not calibrated: its misses wait in the task's return to user space)",
			argv[optind]);
		return EXIT_ERR;
	}
	if (cxu_attr_read(argv[optind], "cache_size", buf, sizeof(buf)) ||
	    cxu_parse_size(buf, &cache) ||
	    cxu_attr_read(argv[optind], "capacity", buf, sizeof(buf)) ||
	    cxu_parse_size(buf, &cap)) {
		cxu_err("%s: cannot read cache_size and capacity", argv[optind]);
		return EXIT_ERR;
	}
	lines = cache / (uint64_t)pgsz;
	n = nfaults;
	if (n > lines / 2)
		n = (unsigned int)(lines / 2);
	if (n > cap / (uint64_t)pgsz)
		n = (unsigned int)(cap / (uint64_t)pgsz);
	if (n < 16) {
		cxu_err("%s: a cache of %llu lines is too small to calibrate (at least 32)",
			argv[optind], (unsigned long long)lines);
		return EXIT_ERR;
	}
	snprintf(dev, sizeof(dev), "/dev/cxdvirt%d", index);
	fd = open(dev, O_RDWR);
	if (fd < 0) {
		cxu_err("%s: %s", dev, strerror(errno));
		return EXIT_ERR;
	}
	if (sched_getaffinity(0, sizeof(all), &all)) {
		cxu_err("sched_getaffinity: %s", strerror(errno));
		goto out_fd;
	}

	/* 1. make the lines resident */
	map = mmap(NULL, (size_t)n * pgsz, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		cxu_err("%s: mmap: %s", dev, strerror(errno));
		goto out_fd;
	}
	if (cal_read(index, &s0)) {
		cxu_err("%s: cannot read stats", argv[optind]);
		munmap(map, (size_t)n * pgsz);
		goto out_fd;
	}
	p = map;
	for (i = 0; i < n; i++)
		(void)p[(size_t)i * pgsz];
	munmap(map, (size_t)n * pgsz);
	if (cal_read(index, &s1))
		goto out_fd;

	pair = clock_pair_ns();
	obj = json_object_new_object();
	cpus = json_object_new_array();
	if (!json)
		printf("%s: %u minor faults per round, %d rounds; clock pair %lld ns\n"
		       "%4s %12s %12s %12s\n", argv[optind], n, CAL_ROUNDS,
		       (long long)pair, "cpu", "user_ns", "module_ns",
		       "remainder_ns");
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		double user = 0, kern = 0, u, k;

		if (!CPU_ISSET(cpu, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			continue;
		for (r = good = 0; r < CAL_ROUNDS; r++) {
			int rr = cal_round(fd, index, n, pgsz, &u, &k);

			if (rr < 0) {
				cxu_err("%s: round on cpu %d: %s", dev, cpu,
					strerror(errno));
				goto out_restore;
			}
			if (rr)
				continue;
			rem[good++] = (int64_t)(u - (double)pair - k);
			user += u;
			kern += k;
		}
		if (!good) {
			cxu_err("%s: cpu %d: every round saw faults other than its own (is the device in use, or its cache too full to keep %u lines?)",
				argv[optind], cpu, n);
			goto out_restore;
		}
		user /= good;
		kern /= good;
		rem[0] = median_i64(rem, good);
		if (!ncpu || rem[0] < best)
			best = rem[0];
		ncpu++;
		if (json) {
			struct json_object *o = json_object_new_object();

			json_object_object_add(o, "cpu", json_object_new_int(cpu));
			json_object_object_add(o, "user_ns", json_object_new_int64((int64_t)user));
			json_object_object_add(o, "module_ns", json_object_new_int64((int64_t)kern));
			json_object_object_add(o, "remainder_ns", json_object_new_int64(rem[0]));
			json_object_object_add(o, "rounds", json_object_new_int((int)good));
			json_object_array_add(cpus, o);
		} else {
			printf("%4d %12.0f %12.0f %12lld\n", cpu, user, kern,
			       (long long)rem[0]);
		}
	}
	if (!ncpu) {
		cxu_err("no CPU could be used");
		goto out_restore;
	}
	if (best < 0)	/* the module's time covers the user's: nothing to hide */
		best = 0;
	if ((uint64_t)best > 1000000) {
		cxu_err("%s: remainder %lld ns is beyond fault_exit_ns's bound (1 ms): the host is too busy to calibrate",
			argv[optind], (long long)best);
		goto out_restore;
	}
	if (!dry) {
		snprintf(buf, sizeof(buf), "%lld", (long long)best);
		char why[256];

		if (cxu_attr_write(argv[optind], "fault_exit_ns", buf, why,
				   sizeof(why))) {
			cxu_err("%s: cannot write fault_exit_ns: %s", argv[optind],
				why);
			goto out_restore;
		}
	}
	if (json) {
		json_object_object_add(obj, "device", json_object_new_string(argv[optind]));
		json_object_object_add(obj, "faults_per_round", json_object_new_int((int)n));
		json_object_object_add(obj, "clock_pair_ns", json_object_new_int64(pair));
		/* known only if the warm-up missed */
		json_object_object_add(obj, "entry_stamped",
				       s1.misses == s0.misses ? NULL :
				       json_object_new_boolean(s1.stamped > s0.stamped));
		json_object_object_add(obj, "cpus", json_object_get(cpus));
		json_object_object_add(obj, "fault_exit_ns", json_object_new_int64(best));
		json_object_object_add(obj, "written", json_object_new_boolean(!dry));
		printf("%s\n", json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_SPACED));
	} else {
		printf("fault_exit_ns %lld%s (the smallest CPU's remainder)\n",
		       (long long)best, dry ? " (dry run: not written)" : "");
		if (s1.misses != s0.misses && s1.stamped == s0.stamped)
			printf("note: no miss had its fault entry stamped (no page_fault_user tracepoint?): misses count from the handler and fault_exit_ns includes the entry\n");
	}
	ret = EXIT_OK;
out_restore:
	sched_setaffinity(0, sizeof(all), &all);
out_fd:
	json_object_put(cpus);
	json_object_put(obj);
	close(fd);
	return ret;
}
