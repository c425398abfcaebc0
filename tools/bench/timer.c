// SPDX-License-Identifier: GPL-2.0
/*
 * The two timers and what they cost.
 *
 * clock: clock_gettime(CLOCK_MONOTONIC) (the vDSO on x86), in ns.
 * tsc:   rdtscp followed by lfence, in TSC ticks. rdtscp waits for every
 *        earlier instruction (the timed load included) to finish, and the
 *        lfence keeps later instructions from starting before it. Ticks are
 *        converted to ns with a rate calibrated against CLOCK_MONOTONIC over
 *        CALIB_NS, twice; the report gives both the rate and how far the two
 *        calibrations differ. The TSC must be invariant (CPUID
 *        0x80000007:EDX[8]) for the rate to hold across frequency changes;
 *        the report says whether it is.
 *
 * The cost of one back-to-back pair of timer reads (min and median of
 * TIMER_SAMPLES) is printed with every report and never subtracted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define TIMER_SAMPLES	100000
#define CALIB_NS	50000000ull	/* 50 ms per calibration */

#define barrier()	__asm__ __volatile__("" ::: "memory")

/** now_ns() - CLOCK_MONOTONIC in ns. */
uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if HAVE_TSC
#include <cpuid.h>

static bool cpu_has_rdtscp(bool *invariant)
{
	unsigned int a, b, c, d;

	*invariant = false;
	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000001)
		return false;
	if (a >= 0x80000007 && __get_cpuid(0x80000007, &a, &b, &c, &d))
		*invariant = d & (1u << 8);
	if (!__get_cpuid(0x80000001, &a, &b, &c, &d))
		return false;
	return d & (1u << 27);
}

/* TSC ticks per ns, measured against CLOCK_MONOTONIC over CALIB_NS. */
static double tsc_calibrate(void)
{
	uint64_t c0, c1, n0, n1;

	n0 = now_ns();
	c0 = tsc_ticks();
	do
		n1 = now_ns();
	while (n1 - n0 < CALIB_NS);
	c1 = tsc_ticks();
	n1 = now_ns();
	return (double)(c1 - c0) / (double)(n1 - n0);
}
#endif

/**
 * timer_setup() - choose, calibrate and cost the timer.
 * @ti:		filled.
 * @kind:	TIMER_CLOCK or TIMER_TSC.
 *
 * Return: 0, -ENOTSUP if rdtscp is asked for and not available, -ENOMEM.
 */
int timer_setup(struct timer_info *ti, enum timer_kind kind)
{
	uint64_t *d, t0, t1;
	struct timespec res;
	size_t i;

	memset(ti, 0, sizeof(*ti));
	ti->kind = kind;
	ti->ns_per_tick = 1.0;
	if (!clock_getres(CLOCK_MONOTONIC, &res))
		ti->resolution_ns = (uint64_t)res.tv_sec * 1000000000ull +
				    (uint64_t)res.tv_nsec;
	if (kind == TIMER_TSC) {
#if HAVE_TSC
		double a, b;

		if (!cpu_has_rdtscp(&ti->invariant_tsc))
			return -ENOTSUP;
		a = tsc_calibrate();
		b = tsc_calibrate();
		if (!(a > 0) || !(b > 0))
			return -ENOTSUP;
		ti->tsc_ghz = (a + b) / 2;
		ti->calib_spread = fabs(a - b) / ti->tsc_ghz;
		ti->ns_per_tick = 1.0 / ti->tsc_ghz;
#else
		return -ENOTSUP;
#endif
	}
	d = malloc(TIMER_SAMPLES * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (i = 0; i < TIMER_SAMPLES; i++) {
		if (kind == TIMER_TSC) {
			t0 = tsc_ticks();
			barrier();
			t1 = tsc_ticks();
		} else {
			t0 = clock_ticks();
			barrier();
			t1 = clock_ticks();
		}
		d[i] = t1 - t0;
	}
	cxu_sort_u64(d, TIMER_SAMPLES);
	ti->min_ns = (uint64_t)llround((double)d[0] * ti->ns_per_tick);
	ti->median_ns = (uint64_t)llround((double)d[TIMER_SAMPLES / 2] * ti->ns_per_tick);
	free(d);
	return 0;
}
