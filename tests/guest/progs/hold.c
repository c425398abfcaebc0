// SPDX-License-Identifier: GPL-2.0
/*
 * hold: how long a policy switch keeps other work off its CPU.
 *
 *   hold [-n] ATTR SECONDS POLICY...
 *	A child writes POLICY... in turn to the configfs file ATTR (a
 *	powered device's "policy") for SECONDS seconds, timing each write. The
 *	parent, on the same CPU, sleeps 100 us at a time and records how late
 *	each sleep ends. A write that keeps the device lock (with preemption
 *	off) for its whole switch makes the sleeper as late as the write is
 *	long; a switch done in bounded steps lets it run between steps.
 *	The last write is the last POLICY. The sleeper runs SCHED_FIFO, so
 *	it preempts the writer at the first point the kernel allows: its
 *	lateness is the longest stretch the writer's kernel code keeps the
 *	CPU. Prints, per round, "switch_max_us W ... sleeper_max_us S ..."
 *	and checks S < W / 2. Up to three rounds; the first that passes ends
 *	it: a stall of the host (TCG on a loaded machine) can fail a round,
 *	while a switch done under the lock makes S about W in every round.
 *	-n: one round, figures only (the debug kernel, where timing bounds
 *	are not checked).
 */
#include "common.h"
#include <sched.h>
#include <sys/wait.h>

static void pin_cpu0(void)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(0, &s);
	if (sched_setaffinity(0, sizeof(s), &s))
		diag("sched_setaffinity: %s", errname(errno));
}

/* Child: write the policies in turn; report max and total write time. */
static int writer(const char *attr, uint64_t end, char **pol, int npol, int fd)
{
	uint64_t t0, t, max = 0, sum = 0, n = 0;
	char buf[96];
	int e;

	while (now_ns() < end) {
		t0 = now_ns();
		e = write_attr(attr, pol[n % npol]);
		t = now_ns() - t0;
		if (e) {
			dprintf(fd, "err %d\n", e);
			return 1;
		}
		if (t > max)
			max = t;
		sum += t;
		n++;
	}
	/* End on the last policy given, whatever the count. */
	e = write_attr(attr, pol[npol - 1]);
	if (e) {
		dprintf(fd, "err %d\n", e);
		return 1;
	}
	snprintf(buf, sizeof(buf), "%llu %llu %llu\n", (unsigned long long)max,
		 (unsigned long long)sum, (unsigned long long)n);
	return write(fd, buf, strlen(buf)) > 0 ? 0 : 1;
}

struct round {
	unsigned long long wmax, wavg, nw;
	uint64_t smax, nsleep, nlate;
};

/* One round: the writer child for @secs s, the sleeper here. 0 or -1. */
static int one_round(const char *attr, unsigned long long secs, char **pol,
		     int npol, struct round *r)
{
	struct timespec ts = { 0, 100000 };
	unsigned long long wsum = 0;
	uint64_t end, t0, late;
	char buf[96] = "";
	int p[2], st;
	pid_t pid;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	if (pipe(p))
		return -1;
	end = now_ns() + secs * 1000000000ull;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		struct sched_param sp = { 0 };

		close(p[0]);
		sched_setscheduler(0, SCHED_OTHER, &sp);
		_exit(writer(attr, end, pol, npol, p[1]));
	}
	close(p[1]);
	while (now_ns() < end) {
		t0 = now_ns();
		nanosleep(&ts, NULL);
		late = now_ns() - t0 - 100000;
		if ((int64_t)late < 0)
			late = 0;
		if (late > r->smax)
			r->smax = late;
		r->nlate += late > 5000000;
		r->nsleep++;
	}
	n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	if (n > 0)
		buf[n] = 0;
	waitpid(pid, &st, 0);
	if (n > 0 && !strncmp(buf, "err", 3))
		diag("writer: %s", buf);
	if (n <= 0 || !WIFEXITED(st) || WEXITSTATUS(st) ||
	    sscanf(buf, "%llu %llu %llu", &r->wmax, &wsum, &r->nw) != 3 || !r->nw)
		return -1;
	r->wavg = wsum / r->nw;
	return 0;
}

int main(int argc, char **argv)
{
	struct sched_param sp = { .sched_priority = 50 };
	int i, good = 0, rounds = 3, check = 1;
	struct round r;

	tap_init();
	if (argc > 1 && !strcmp(argv[1], "-n")) {
		check = 0;
		rounds = 1;
		argv++;
		argc--;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: hold [-n] ATTR SECONDS POLICY...\n");
		return 2;
	}
	pin_cpu0();
	/* The sleeper preempts the writer wherever the kernel lets it. */
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		diag("SCHED_FIFO: %s", errname(errno));
	for (i = 0; i < rounds && !good; i++) {
		if (!ok(!one_round(argv[1], strtoull(argv[2], NULL, 0), argv + 3,
				   argc - 3, &r), "round %d: policy writes succeed", i + 1))
			return tap_exit();
		diag("round %d: switch_max_us %llu switch_avg_us %llu writes %llu sleeper_max_us %llu sleeps %llu late_5ms %llu",
		     i + 1, r.wmax / 1000, r.wavg / 1000, r.nw,
		     (unsigned long long)r.smax / 1000,
		     (unsigned long long)r.nsleep, (unsigned long long)r.nlate);
		good = r.smax < r.wmax / 2;
	}
	if (!check)
		return tap_exit();
	ok(good, "a sleeper on the switching CPU waits under half the longest switch (%llu us vs %llu us%s)",
	   (unsigned long long)r.smax / 1000, r.wmax / 1000,
	   i > 1 ? ", best of 3 rounds" : "");
	return tap_exit();
}
