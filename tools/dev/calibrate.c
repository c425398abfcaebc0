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
 *
 * Node mode (docs/numa-mode.md): a miss waits in the task_work that runs on
 * the task's return to user space; what follows it (the rest of that
 * return) and the exception's delivery before the entry stamp is the
 * remainder. It is measured with misses, which are the only node-mode
 * accesses the module times: a buffer of (2 x cache lines + N) pages bound
 * to the device's node is written once and read once, then read
 * cyclically, so that under FIFO or LRU every read misses (the first pass
 * may hit lines that frames freed by other programs left in the cache; a
 * cycle shorter than twice the cache can keep such hits for ever under
 * FIFO); per round, N reads are timed by the user
 * and by the module (node_latency/waited_ns_total / waited_accesses, from
 * the fault's entry to the end of the wait). The wait is in both and
 * cancels. A round with a hit (a prefetcher, a policy that keeps part of a
 * cyclic scan, another user of the node) is discarded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cxdvirt-dev.h"

#define CAL_ROUNDS	7
#define CAL_MAX_FAULTS	65536u
/* node mode: the cyclic buffer's bound, pages (1 GiB of 4 KiB pages) */
#define CAL_NODE_MAX_PAGES	262144u

/*
 * What a round needs: the devdax device's fd, or the node-mode buffer and
 * its cycle.
 */
struct cal {
	int index;		/* the device's sysfs index */
	unsigned int n;		/* timed accesses per round */
	long pgsz;		/* bytes */
	int fd;			/* devdax: /dev/cxdvirtN */
	volatile char *buf;	/* node: @w pages bound to the node */
	size_t w, next;		/* node: cycle length and next page */
};

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

/* Read the @n sysfs counters @rel of device @index into @dst. Return: 0 or -1. */
static int cal_read_counters(int index, const char *const *rel,
			     uint64_t *const *dst, unsigned int n)
{
	char path[4096];
	unsigned int i;

	for (i = 0; i < n; i++)
		if (cxu_sysfs_path(index, rel[i], path, sizeof(path)) ||
		    cxu_read_u64(path, dst[i]))
			return -1;
	return 0;
}

static int cal_read(int index, struct cal_stats *s)
{
	static const char *const rel[] = {
		"stats/minor_faults", "stats/minor_fault_ns_total",
		"stats/miss_entry_stamped", "stats/misses",
	};
	uint64_t *const dst[] = { &s->minor, &s->minor_ns, &s->stamped, &s->misses };

	return cal_read_counters(index, rel, dst, 4);
}

/*
 * One devdax round on the current CPU: map @c->n pages of the device afresh
 * and read each once. Return: 0 and the user's mean per fault and the
 * module's in @user/@kern (ns), 1 if the module counted other faults
 * (discard), -1 on an error.
 */
static int cal_round_dax(struct cal *c, double *user, double *kern)
{
	struct cal_stats a, b;
	volatile const char *p;
	size_t len = (size_t)c->n * c->pgsz;
	uint64_t sum = 0;
	unsigned int i;
	void *map;

	map = mmap(NULL, len, PROT_READ, MAP_SHARED, c->fd, 0);
	if (map == MAP_FAILED)
		return -1;
	p = map;
	if (cal_read(c->index, &a)) {
		munmap(map, len);
		return -1;
	}
	for (i = 0; i < c->n; i++) {
		uint64_t t = now_ns();

		(void)p[(size_t)i * c->pgsz];
		sum += now_ns() - t;
	}
	munmap(map, len);
	if (cal_read(c->index, &b))
		return -1;
	if (b.minor - a.minor != c->n || b.misses != a.misses)
		return 1;
	*user = (double)sum / c->n;
	*kern = (double)(b.minor_ns - a.minor_ns) / c->n;
	return 0;
}

struct cal_node_stats {
	uint64_t waited, waited_ns, misses;
};

static int cal_node_read(int index, struct cal_node_stats *s)
{
	static const char *const rel[] = {
		"node_latency/waited_accesses", "node_latency/waited_ns_total",
		"stats/misses",
	};
	uint64_t *const dst[] = { &s->waited, &s->waited_ns, &s->misses };

	return cal_read_counters(index, rel, dst, 3);
}

/*
 * One node-mode round on the current CPU: the next @c->n reads of the
 * buffer's cycle, each a miss. Return: as cal_round_dax(); 1 also when a
 * read hit.
 */
static int cal_round_node(struct cal *c, double *user, double *kern)
{
	struct cal_node_stats a, b;
	uint64_t sum = 0;
	unsigned int i;

	if (cal_node_read(c->index, &a))
		return -1;
	for (i = 0; i < c->n; i++) {
		volatile const char *q = c->buf + c->next * c->pgsz;
		uint64_t t = now_ns();

		(void)*q;
		sum += now_ns() - t;
		c->next = (c->next + 1) % c->w;
	}
	if (cal_node_read(c->index, &b))
		return -1;
	if (b.waited - a.waited != c->n || b.misses - a.misses != c->n)
		return 1;
	*user = (double)sum / c->n;
	*kern = (double)(b.waited_ns - a.waited_ns) / c->n;
	return 0;
}

/*
 * Node mode: bind @c->w = 2 x @lines + @c->n pages to the device's node,
 * write each once (first touches) and read each once, which leaves only
 * the cycle's own lines in the cache, in its order. Return: 0, or EXIT_ERR
 * after saying why.
 */
static int cal_node_setup(const char *name, struct cal *c, uint64_t lines)
{
	char buf[64], dax[64], path[256];
	long long node_free;
	uint64_t node;
	void *mem;
	size_t i, len;
	int where = -1;

	if (cxu_sysfs_read(c->index, "node_latency/enabled", buf, sizeof(buf)) ||
	    strtol(buf, NULL, 10) != 1) {
		cxu_err("%s: node_latency is off: nothing to calibrate (node mode without it runs at memory speed)",
			name);
		return EXIT_ERR;
	}
	if (cxu_attr_read(name, "target_node", buf, sizeof(buf)) ||
	    cxu_parse_u64(buf, &node) || node > INT32_MAX) {
		cxu_err("%s: cannot read target_node", name);
		return EXIT_ERR;
	}
	if (numa_available() < 0 || (int)node > numa_max_node()) {
		cxu_err("%s: node %llu is not known to libnuma", name,
			(unsigned long long)node);
		return EXIT_ERR;
	}
	if (numa_node_size64((int)node, &node_free) <= 0) {
		if (cxu_sysfs_read(c->index, "dax_device", dax, sizeof(dax)))
			snprintf(dax, sizeof(dax), "its dax device");
		snprintf(path, sizeof(path), "daxctl reconfigure-device --mode=system-ram %s", dax);
		cxu_err("%s: node %llu has no memory online (%s)", name,
			(unsigned long long)node, path);
		return EXIT_ERR;
	}
	if (2 * lines + c->n > CAL_NODE_MAX_PAGES) {
		cxu_err("%s: a cache of %llu lines needs a scan of %llu pages; calibrate a device with a cache of at most %u lines and give its value to this one (fault_exit_ns)",
			name, (unsigned long long)lines,
			(unsigned long long)(2 * lines + c->n),
			(CAL_NODE_MAX_PAGES - c->n) / 2);
		return EXIT_ERR;
	}
	c->w = 2 * lines + c->n;
	len = c->w * (size_t)c->pgsz;
	/* what the node has free, less 16 MiB for the kernel's own use */
	if (node_free < 0 || (uint64_t)node_free < len + (16u << 20)) {
		cxu_err("%s: node %llu has %lld bytes free; the scan needs %zu (2 x cache + N pages) and 16 MiB to spare",
			name, (unsigned long long)node, node_free, len);
		return EXIT_ERR;
	}
	mem = numa_alloc_onnode(len, (int)node);
	if (!mem) {
		cxu_err("%s: cannot allocate %zu bytes on node %llu", name, len,
			(unsigned long long)node);
		return EXIT_ERR;
	}
	/* residency is per 4 KiB line: no huge pages (the module refuses them) */
	madvise(mem, len, MADV_NOHUGEPAGE);
	c->buf = mem;
	for (i = 0; i < c->w; i++)
		c->buf[i * c->pgsz] = 1;
	for (i = 0; i < c->w; i++)
		(void)c->buf[i * c->pgsz];
	if (get_mempolicy(&where, NULL, 0, mem, MPOL_F_NODE | MPOL_F_ADDR) ||
	    where != (int)node) {
		cxu_err("%s: the scan's pages are not on node %llu (on %d)",
			name, (unsigned long long)node, where);
		numa_free(mem, len);
		c->buf = NULL;
		return EXIT_ERR;
	}
	c->next = 0;
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
 * The device must be powered and not used by anyone else meanwhile:
 * devdax, or node mode with node_latency on and its memory online. Its
 * model state changes: devdax, up to N lines become resident; node mode, a
 * scan of (cache lines + N) pages misses on every read. Both count in its
 * statistics (reset them, or power-cycle, before a measurement;
 * fault_exit_ns survives a power cycle).
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
	bool json = ctx->json, dry = false, node;
	unsigned int nfaults = 256, i, r, ncpu = 0, good;
	uint64_t cache, cap, lines, v;
	struct cal_stats s0, s1;
	struct cal c = { .fd = -1, .pgsz = sysconf(_SC_PAGESIZE) };
	int (*round)(struct cal *c, double *user, double *kern);
	int64_t pair, best = 0, rem[CAL_ROUNDS];
	struct json_object *obj = NULL, *cpus = NULL;
	char buf[64], dev[64];
	const char *name;
	cpu_set_t all, one;
	int ch, power, cpu, ret = EXIT_ERR;
	volatile const char *p;
	void *map;

	/* --dry-run has no -d: cxdvirt-bench's -d is --device */
	while ((ch = getopt_long(argc, argv, "n:jh", opts, NULL)) != -1) {
		switch (ch) {
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
	name = argv[optind];
	if (!cxu_name_valid(name))
		return cxu_usage_err("calibrate", "'%s': not a device name",
				     name);
	if (cxu_check_root())
		return EXIT_ERR;
	if (cxu_dev_exists(name) != 1) {
		cxu_err("%s: no such device", name);
		return EXIT_ERR;
	}
	if (cxu_dev_index(name, &c.index) || cxu_dev_power(name, &power)) {
		cxu_err("%s: cannot read index and power", name);
		return EXIT_ERR;
	}
	if (!power) {
		cxu_err("%s: calibrate needs a powered device (enable it)", name);
		return EXIT_ERR;
	}
	node = cxu_dev_is_node(name) == 1;
	if (cxu_attr_read(name, "cache_size", buf, sizeof(buf)) ||
	    cxu_parse_size(buf, &cache) ||
	    cxu_attr_read(name, "capacity", buf, sizeof(buf)) ||
	    cxu_parse_size(buf, &cap)) {
		cxu_err("%s: cannot read cache_size and capacity", name);
		return EXIT_ERR;
	}
	lines = cache / (uint64_t)c.pgsz;
	c.n = nfaults;
	if (!node && c.n > lines / 2)
		c.n = (unsigned int)(lines / 2);
	if (c.n > cap / (uint64_t)c.pgsz)
		c.n = (unsigned int)(cap / (uint64_t)c.pgsz);
	if (c.n < 16) {
		cxu_err("%s: a cache of %llu lines is too small to calibrate (at least 32)",
			name, (unsigned long long)lines);
		return EXIT_ERR;
	}
	if (sched_getaffinity(0, sizeof(all), &all)) {
		cxu_err("sched_getaffinity: %s", strerror(errno));
		return EXIT_ERR;
	}

	if (node) {
		if (cal_node_setup(name, &c, lines))
			return EXIT_ERR;
		round = cal_round_node;
	} else {
		snprintf(dev, sizeof(dev), "/dev/cxdvirt%d", c.index);
		c.fd = open(dev, O_RDWR);
		if (c.fd < 0) {
			cxu_err("%s: %s", dev, strerror(errno));
			return EXIT_ERR;
		}
		/* 1. make the lines resident */
		map = mmap(NULL, (size_t)c.n * c.pgsz, PROT_READ, MAP_SHARED,
			   c.fd, 0);
		if (map == MAP_FAILED) {
			cxu_err("%s: mmap: %s", dev, strerror(errno));
			goto out;
		}
		if (cal_read(c.index, &s0)) {
			cxu_err("%s: cannot read stats", name);
			munmap(map, (size_t)c.n * c.pgsz);
			goto out;
		}
		p = map;
		for (i = 0; i < c.n; i++)
			(void)p[(size_t)i * c.pgsz];
		munmap(map, (size_t)c.n * c.pgsz);
		if (cal_read(c.index, &s1))
			goto out;
		round = cal_round_dax;
	}

	pair = clock_pair_ns();
	obj = json_object_new_object();
	cpus = json_object_new_array();
	if (!json)
		printf("%s: %s, %u %s per round, %d rounds; clock pair %lld ns\n"
		       "%4s %12s %12s %12s\n", name,
		       node ? "node mode" : "devdax", c.n,
		       node ? "misses" : "minor faults", CAL_ROUNDS,
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
			int rr = round(&c, &u, &k);

			if (rr < 0) {
				cxu_err("%s: round on cpu %d: %s", name, cpu,
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
			if (node)
				cxu_err("%s: cpu %d: every round had a read that did not miss: calibrate needs every read of a cyclic scan larger than the cache to miss (prefetch none, policy fifo or lru) and nobody else using node memory",
					name, cpu);
			else
				cxu_err("%s: cpu %d: every round saw faults other than its own (is the device in use, or its cache too full to keep %u lines?)",
					name, cpu, c.n);
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
			name, (long long)best);
		goto out_restore;
	}
	if (!dry) {
		char why[256];

		snprintf(buf, sizeof(buf), "%lld", (long long)best);
		if (cxu_attr_write(name, "fault_exit_ns", buf, why,
				   sizeof(why))) {
			cxu_err("%s: cannot write fault_exit_ns: %s", name, why);
			goto out_restore;
		}
	}
	if (json) {
		json_object_object_add(obj, "device", json_object_new_string(name));
		json_object_object_add(obj, "mode", json_object_new_string(node ? "node" : "devdax"));
		json_object_object_add(obj, node ? "misses_per_round" : "faults_per_round",
				       json_object_new_int((int)c.n));
		json_object_object_add(obj, "clock_pair_ns", json_object_new_int64(pair));
		/* devdax: known only if the warm-up missed */
		if (!node)
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
		if (!node && s1.misses != s0.misses && s1.stamped == s0.stamped)
			printf("note: no miss had its fault entry stamped (no page_fault_user tracepoint?): misses count from the handler and fault_exit_ns includes the entry\n");
	}
	ret = EXIT_OK;
out_restore:
	sched_setaffinity(0, sizeof(all), &all);
out:
	json_object_put(cpus);
	json_object_put(obj);
	if (c.fd >= 0)
		close(c.fd);
	if (c.buf)
		numa_free((void *)c.buf, c.w * (size_t)c.pgsz);
	return ret;
}
