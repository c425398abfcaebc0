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
 *	CPU. For each switch of at least 2 ms it counts the sleeps that
 *	ended inside it: none while the writer keeps the CPU for the whole
 *	switch, one per step (and 100 us) when the switch lets it run
 *	between steps; and the longest lateness of a sleep overlapping it,
 *	over its length: about 1 for a switch under the lock. Checks that
 *	the medians over the switches are at least 10 and under 0.5. Up to
 *	three rounds; the first that passes ends it (a stalled host can
 *	spoil a round, a switch under the lock spoils every one).
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

#define MAXW	4096	/* writes recorded per round */
#define MAXS	262144	/* sleeps recorded per round */

/* Shared between the writer child and the sleeper. */
struct shared {
	uint64_t w0[MAXW], w1[MAXW];	/* each write: start, end (ns) */
	uint64_t nw;
	int err;
};

/* Child: write the policies in turn, recording each write's span. */
static int writer(const char *attr, uint64_t end, char **pol, int npol,
		  struct shared *sh)
{
	uint64_t n = 0;
	int e;

	while (now_ns() < end && n < MAXW) {
		sh->w0[n] = now_ns();
		e = write_attr(attr, pol[n % npol]);
		sh->w1[n] = now_ns();
		if (e) {
			sh->err = e;
			return 1;
		}
		sh->nw = ++n;
	}
	/* End on the last policy given, whatever the count. */
	e = write_attr(attr, pol[npol - 1]);
	sh->err = e;
	return !!e;
}

struct round {
	unsigned long long wmax, wavg, nw, nsw;
	uint64_t smax, nsleep;
	double ratio;		/* median over the switches of late / length */
	uint64_t inside;	/* median over the switches of sleeps ended in it */
};

static int cmp_u64p(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * One round: the writer child for @secs s, the sleeper here. For each
 * switch of at least 2 ms: how many sleeps ended inside it (the sleeper ran
 * there), and the longest lateness of a sleep overlapping it over its
 * length. The round's figures are the medians over the switches (a stall
 * of the host spoils a few switches, not the median). 0 or -1.
 */
static int one_round(const char *attr, unsigned long long secs, char **pol,
		     int npol, struct round *r)
{
	static uint64_t s0[MAXS], s1[MAXS], inside[MAXW];
	struct timespec ts = { 0, 100000 };
	static double ratio[MAXW];
	uint64_t end, t0, t1, late, i, j, ns = 0, wsum = 0, m, in;
	struct shared *sh;
	int st;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return -1;
	end = now_ns() + secs * 1000000000ull;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		struct sched_param sp = { 0 };

		sched_setscheduler(0, SCHED_OTHER, &sp);
		_exit(writer(attr, end, pol, npol, sh));
	}
	while (now_ns() < end) {
		t0 = now_ns();
		nanosleep(&ts, NULL);
		t1 = now_ns();
		late = t1 - t0 > 100000 ? t1 - t0 - 100000 : 0;
		if (late > r->smax)
			r->smax = late;
		if (ns < MAXS) {
			s0[ns] = t0;
			s1[ns++] = t1;
		}
		r->nsleep++;
	}
	waitpid(pid, &st, 0);
	if (sh->err)
		diag("writer: %s", errname(sh->err));
	if (!WIFEXITED(st) || WEXITSTATUS(st) || !sh->nw) {
		munmap(sh, sizeof(*sh));
		return -1;
	}
	r->nw = sh->nw;
	for (i = 0; i < sh->nw; i++) {
		uint64_t d = sh->w1[i] - sh->w0[i];

		wsum += d;
		if (d > r->wmax)
			r->wmax = d;
		if (d < 2000000)
			continue;
		for (m = 0, in = 0, j = 0; j < ns; j++) {
			if (s0[j] >= sh->w1[i] || s1[j] <= sh->w0[i])
				continue;
			in += s1[j] < sh->w1[i];
			if (s1[j] - s0[j] > 100000 && s1[j] - s0[j] - 100000 > m)
				m = s1[j] - s0[j] - 100000;
		}
		inside[r->nsw] = in;
		ratio[r->nsw++] = (double)m / d;
	}
	r->wavg = wsum / sh->nw;
	munmap(sh, sizeof(*sh));
	if (!r->nsw)
		return -1;
	qsort(ratio, r->nsw, sizeof(ratio[0]), cmp_dbl);
	r->ratio = ratio[r->nsw / 2];
	qsort(inside, r->nsw, sizeof(inside[0]), cmp_u64p);
	r->inside = inside[r->nsw / 2];
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
		diag("round %d: switches %llu (%llu of >= 2 ms) max_us %llu avg_us %llu; sleeper max_us %llu; per switch (medians): sleeps ended in it %llu, late/length %.3f",
		     i + 1, r.nw, r.nsw, r.wmax / 1000, r.wavg / 1000,
		     (unsigned long long)r.smax / 1000,
		     (unsigned long long)r.inside, r.ratio);
		good = r.inside >= 10 && r.ratio < 0.5;
	}
	if (!check)
		return tap_exit();
	ok(good, "a sleeper on the switching CPU runs during a switch (medians: %llu times, want >= 10; late %.3f of a switch, want < 0.5%s)",
	   (unsigned long long)r.inside, r.ratio,
	   i > 1 ? ", best of 3 rounds" : "");
	return tap_exit();
}
