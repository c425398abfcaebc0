// SPDX-License-Identifier: GPL-2.0
/*
 * spinshare: a miss's busy-wait does not starve the other CPU.
 *
 *   spinshare DEV PAGES ROUNDS MIN_RATIO
 *
 * A worker process pinned to CPU 1 fills an 8 MiB anonymous buffer over and
 * over; its rate is measured in rounds of 1 s. Meanwhile CPU 0 is kept
 * busy, alternately:
 * - by a plain user-space loop (the reference: a busy vCPU takes its share
 *   of the host whatever it runs), and
 * - by a reader that walks DEV's first PAGES pages so that each access
 *   misses (the device's cache must be smaller than PAGES pages), each miss
 *   busy-waiting in the kernel for the modeled NAND time.
 * The worker is a separate process, so evictions send it no TLB-flush
 * interrupts.
 *
 * Passes if the worker's median rate beside the spinning misses is at
 * least MIN_RATIO times its median rate beside the user-space loop.
 */
#include "common.h"
#include <sched.h>

#define BUF	(8ul << 20)
#define MAXR	16

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof(s), &s))
		perror("sched_setaffinity");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Fill the buffer until @secs have passed; MiB per second. */
static double fill_rate(char *buf, double secs)
{
	double t0 = now_s(), t;
	unsigned long n = 0;

	do {
		memset(buf, (int)n, BUF);
		n++;
		t = now_s();
	} while (t - t0 < secs);
	return n * (BUF >> 20) / (t - t0);
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int go[2], res[2], rounds, i, fd, nu = 0, nt = 0;
	double user[MAXR], together[MAXR], r, min_ratio;
	unsigned long pages, touched = 0;
	volatile char *map;
	char c;
	pid_t pid;

	tap_init();
	if (argc != 5) {
		fprintf(stderr, "usage: spinshare DEV PAGES ROUNDS MIN_RATIO\n");
		return 2;
	}
	pages = strtoul(argv[2], NULL, 0);
	rounds = atoi(argv[3]);
	min_ratio = atof(argv[4]);
	if (rounds < 2 || rounds > MAXR || rounds % 2)
		return 2;
	fd = open(argv[1], O_RDWR);
	if (!ok(fd >= 0, "open %s", argv[1]))
		return 1;
	map = mmap(NULL, pages * PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (!ok(map != MAP_FAILED, "map %lu pages", pages))
		return 1;
	if (pipe(go) || pipe(res))
		return 2;

	pid = fork();
	if (pid == 0) {
		char *buf = malloc(BUF);

		close(go[1]);
		close(res[0]);
		pin(1);
		memset(buf, 1, BUF);
		while (read(go[0], &c, 1) == 1) {
			r = fill_rate(buf, 1.0);
			if (write(res[1], &r, sizeof(r)) != sizeof(r))
				_exit(1);
		}
		_exit(0);
	}
	close(go[0]);
	close(res[1]);
	pin(0);
	for (i = 0; i < rounds; i++) {
		int spin = i % 2;
		unsigned long p = 0;
		ssize_t got;

		if (write(go[1], "g", 1) != 1)
			return 2;
		{
			/* Keep CPU 0 busy until the worker reports its round. */
			struct timeval tv = { 0, 0 };
			fd_set rs;

			for (;;) {
				if (spin)
					(void)map[(p % pages) * PAGE];
				else
					for (int k = 0; k < 10000; k++)
						__asm__ volatile("" ::: "memory");
				p++;
				FD_ZERO(&rs);
				FD_SET(res[0], &rs);
				if (select(res[0] + 1, &rs, NULL, NULL,
					   &tv) > 0)
					break;
			}
			if (spin)
				touched += p;
		}
		got = read(res[0], &r, sizeof(r));
		if (got != sizeof(r))
			return 2;
		diag("round %d (%s): worker %.0f MiB/s", i,
		     spin ? "misses spinning" : "user loop", r);
		if (spin)
			together[nt++] = r;
		else
			user[nu++] = r;
	}
	close(go[1]);
	waitpid(pid, NULL, 0);
	r = median(together, nt) / median(user, nu);
	diag("reader touched %lu pages", touched);
	ok(touched >= 2, "the reader made progress (%lu accesses)", touched);
	ok(r >= min_ratio,
	   "worker rate beside spinning misses / beside a user loop = %.2f (want >= %.2f)",
	   r, min_ratio);
	return 0;
}
