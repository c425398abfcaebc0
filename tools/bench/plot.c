// SPDX-License-Identifier: GPL-2.0
/*
 * Latency CDF: a data file and a gnuplot PNG.
 *
 * The CDF file (--cdf) is plain text: per target a line "# target LABEL",
 * then "NS FRACTION" lines, then two blank lines (a gnuplot data block).
 * Points: CDF_POINTS quantiles evenly spaced in the fraction, plus the tail
 * (P99, P99.9, P99.99, max) and the minimum, so the plot keeps the tail
 * without holding every sample.
 *
 * --plot FILE.png runs `gnuplot` (PATH) on a script that draws one line per
 * target, latency on a log axis. Terminal: pngcairo if gnuplot has it, else
 * png.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define CDF_POINTS	1000

/** cdf_write() - the CDF of each result's latencies to @path. Return 0 or -1. */
int cdf_write(const char *path, struct result *res, unsigned int n)
{
	static const uint32_t tail[] = {	/* ppm: P99 .. P99.999 */
		990000, 995000, 999000, 999500, 999900, 999990,
	};
	FILE *f = fopen(path, "w");
	unsigned int i, k;
	size_t m;

	if (!f)
		return -1;
	fprintf(f, "# cxdvirt-bench latency CDF: NS FRACTION per target\n");
	for (i = 0; i < n; i++) {
		const uint64_t *s = res[i].sorted;

		m = res[i].nsorted;
		/* Labels go into gnuplot strings: keep them free of quotes. */
		fprintf(f, "# target ");
		for (const char *c = res[i].t->label; *c; c++)
			fputc(*c == '"' || *c == '\n' ? '_' : *c, f);
		fputc('\n', f);
		if (m) {
			fprintf(f, "%llu 0\n", (unsigned long long)s[0]);
			for (k = 1; k <= CDF_POINTS; k++)
				fprintf(f, "%llu %.6f\n",
					(unsigned long long)cxu_pct_sorted(s, m, k * (CXU_PPM / CDF_POINTS)),
					(double)k / CDF_POINTS);
			for (k = 0; k < sizeof(tail) / sizeof(tail[0]); k++)
				fprintf(f, "%llu %.6f\n",
					(unsigned long long)cxu_pct_sorted(s, m, tail[k]),
					(double)tail[k] / CXU_PPM);
			fprintf(f, "%llu 1\n", (unsigned long long)s[m - 1]);
		}
		fprintf(f, "\n\n");
	}
	return fclose(f) ? -1 : 0;
}

/* The labels of a CDF file, in order; returns how many (at most @max). */
static unsigned int cdf_labels(const char *path, char labels[][96], unsigned int max)
{
	char line[256];
	unsigned int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && n < max) {
		if (strncmp(line, "# target ", 9))
			continue;
		line[strcspn(line, "\n")] = '\0';
		line[9 + 95] = '\0';	/* labels are at most 95 characters */
		memcpy(labels[n++], line + 9, strlen(line + 9) + 1);
	}
	fclose(f);
	return n;
}

static bool gnuplot_has_pngcairo(void)
{
	FILE *p = popen("gnuplot -e 'set terminal' 2>&1", "r");
	char line[256];
	bool yes = false;

	if (!p)
		return false;
	while (fgets(line, sizeof(line), p))
		if (strstr(line, "pngcairo"))
			yes = true;
	pclose(p);
	return yes;
}

/**
 * plot_png() - draw the CDF file @cdf_path into @png with gnuplot.
 * Return: 0, or -1 after an error message.
 */
int plot_png(const char *png, const char *cdf_path, const char *title)
{
	char labels[MAX_TARGETS * 4][96];
	unsigned int n = cdf_labels(cdf_path, labels, MAX_TARGETS * 4), i;
	FILE *p;
	int st;

	if (!n) {
		cxu_err("%s: no CDF data (expected '# target' blocks)", cdf_path);
		return -1;
	}
	p = popen("gnuplot", "w");
	if (!p) {
		cxu_err("cannot run gnuplot: %s", strerror(errno));
		return -1;
	}
	if (gnuplot_has_pngcairo())
		fprintf(p, "set terminal pngcairo size 1000,620 font 'sans,10'\n");
	else
		fprintf(p, "set terminal png size 1000,620\n");
	fprintf(p, "set output '%s'\n", png);
	fprintf(p, "set title \"%s\" noenhanced\n", title ? title : "cxdvirt-bench: latency CDF per target");
	fprintf(p, "set logscale x 10\nset format x '10^{%%L}'\n");
	fprintf(p, "set xlabel 'latency of one access (ns, timer included)'\n");
	fprintf(p, "set ylabel 'fraction of accesses'\nset yrange [0:1.02]\n");
	fprintf(p, "set grid xtics ytics mxtics\nset key bottom right noenhanced\n");
	fprintf(p, "plot ");
	for (i = 0; i < n; i++)
		fprintf(p, "%s'%s' index %u using 1:2 with steps lw 2 title \"%s\"",
			i ? ", " : "", cdf_path, i, labels[i]);
	fprintf(p, "\n");
	st = pclose(p);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		cxu_err("gnuplot failed (status %d) writing %s", st, png);
		return -1;
	}
	return 0;
}
