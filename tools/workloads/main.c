// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-wl: deterministic workloads for cxdvirt devices (docs/workloads.md).
 *
 *   cxdvirt-wl [--dax DEV] [--progress] chase --pages N --steps N [--seed N]
 *   cxdvirt-wl [--dax DEV] [--progress] bfs --scale S [--edge-factor E] [--seed N]
 *   cxdvirt-wl [--dax DEV] [--progress] pagerank --scale S [--edge-factor E]
 *                                       [--iters N] [--seed N]
 *   cxdvirt-wl zipf ...     Zipf key-value requests for redis-cli --pipe,
 *                           or sent to memcached or redis-server
 *   cxdvirt-wl lackey BASE LEN   filter a lackey log to one range
 *   cxdvirt-wl exec CMD [ARG...]  run CMD, print its run time as JSON
 *
 * A run prints one JSON object on stdout: the workload, the arena's base
 * and size, the bytes used, the run time in ns (CLOCK_MONOTONIC around the
 * whole workload, generation included) and a checksum that must be the
 * same on every run with the same arguments.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl.h"

struct wl_args {
	const char *dax;
	uint64_t pages, steps, seed, scale, ef, iters;
};

/**
 * wl_parse_num() - one option's whole number, checked against its range.
 * @opt: the option, for the message ("--pages").
 * @s:   the text: decimal digits, or 0x and hex digits (a leading 0 is not
 *       octal; no sign, blank or suffix).
 * @lo:  the smallest value accepted ...
 * @hi:  ... and the largest.
 * @v:   the value; set only on success.
 *
 * Return: 0, or -1 after printing "cxdvirt-wl: OPT S: expected a whole
 * number LO .. HI (decimal or 0x-hex)" on stderr.
 */
int wl_parse_num(const char *opt, const char *s, uint64_t lo, uint64_t hi,
		 uint64_t *v)
{
	const char *p = s;
	unsigned int base = 10, d;
	uint64_t x = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (!*p)
		goto bad;
	for (; *p; p++) {
		if (*p >= '0' && *p <= '9')
			d = (unsigned int)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned int)(*p - 'a') + 10;
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned int)(*p - 'A') + 10;
		else
			goto bad;
		if (x > (UINT64_MAX - d) / base)
			goto bad;
		x = x * base + d;
	}
	if (x < lo || x > hi)
		goto bad;
	*v = x;
	return 0;
bad:
	fprintf(stderr, "cxdvirt-wl: %s %s: expected a whole number %llu .. %llu (decimal or 0x-hex)\n",
		opt, s, (unsigned long long)lo, (unsigned long long)hi);
	return -1;
}

/**
 * wl_usage_err() - end a usage error: where the usage is, exit status 2.
 * @cmd: the subcommand whose --help has the options, or NULL.
 *
 * Return: 2.
 */
int wl_usage_err(const char *cmd)
{
	fprintf(stderr, "Try 'cxdvirt-wl %s%s--help'.\n", cmd ? cmd : "",
		cmd ? " " : "");
	return 2;
}

static int usage_to(FILE *out, int rc)
{
	fprintf(out,
		"usage: cxdvirt-wl [--dax DEV] [--progress] chase --pages N --steps N [--seed N]\n"
		"       cxdvirt-wl [--dax DEV] [--progress] bfs --scale S [--edge-factor E] [--seed N]\n"
		"       cxdvirt-wl [--dax DEV] [--progress] pagerank --scale S [--edge-factor E]\n"
		"                                          [--iters N] [--seed N]\n"
		"       cxdvirt-wl zipf --keys N [--ops N] [--theta T] [--write-pct P]\n"
		"                       [--value-size B] [--seed N] [--load]\n"
		"                       [--memcached SOCKET | --redis SOCKET]\n"
		"       cxdvirt-wl lackey BASE LEN < LACKEY-LOG\n"
		"       cxdvirt-wl exec CMD [ARG...]\n"
		"--dax DEV takes the memory of chase, bfs and pagerank from a shared\n"
		"mapping of DEV (devdax); without it, from anonymous memory (bind it\n"
		"with numactl --membind). zipf, lackey and exec refuse --dax.\n"
		"  --dax DEV            the arena is a shared mapping of DEV\n"
		"  --progress           a progress line on stderr, once a second\n"
		"  --pages N            chase: 4 KiB pages, 1 .. 16777216\n"
		"  --steps N            chase: dependent loads, at least 1\n"
		"  --scale S            bfs, pagerank: 2^S vertices, 2 .. 26\n"
		"  --edge-factor E      bfs, pagerank: edges per vertex, 1 .. 64 (default 8)\n"
		"  --iters N            pagerank: iterations, 1 .. 4294967295 (default 10)\n"
		"  --seed N             the inputs' seed, 0 .. 2^64-1 (default 1)\n"
		"Numbers are decimal or 0x-hex (a leading 0 is not octal).\n"
		"  -h, --help           this text (cxdvirt-wl zipf --help: zipf's options)\n");
	return rc;
}


/*
 * exec: time an unmodified program (a server's client, sysbench, fio) the
 * way the own workloads time themselves, CLOCK_MONOTONIC around it.
 */
static int wl_exec_main(int argc, char **argv)
{
	uint64_t t0, t1;
	int st;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "cxdvirt-wl: exec needs a CMD\n");
		return wl_usage_err(NULL);
	}
	t0 = wl_now_ns();
	pid = fork();
	if (pid < 0) {
		perror("cxdvirt-wl exec: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "cxdvirt-wl exec: %s: %m\n", argv[1]);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0) {
		perror("cxdvirt-wl exec: waitpid");
		return 1;
	}
	t1 = wl_now_ns();
	st = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	printf("{\"workload\": \"exec\", \"command\": \"%s\", \"run_ns\": %llu, \"status\": %d}\n",
	       argv[1], (unsigned long long)(t1 - t0), st);
	fflush(stdout);
	return st;
}

/*
 * The options of chase, bfs and pagerank, each in its range (the usage's).
 * Return: 0, or -1 after printing what is wrong.
 */
static int parse(int argc, char **argv, struct wl_args *w)
{
	static const struct option opts[] = {
		{ "pages", required_argument, NULL, 'p' },
		{ "steps", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "scale", required_argument, NULL, 'g' },
		{ "edge-factor", required_argument, NULL, 'e' },
		{ "iters", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 }
	};
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			ret = wl_parse_num("--pages", optarg, 1, 1ULL << 24, &w->pages);
			break;
		case 'n':
			ret = wl_parse_num("--steps", optarg, 1, UINT64_MAX, &w->steps);
			break;
		case 's':
			ret = wl_parse_num("--seed", optarg, 0, UINT64_MAX, &w->seed);
			break;
		case 'g':
			ret = wl_parse_num("--scale", optarg, 2, 26, &w->scale);
			break;
		case 'e':
			ret = wl_parse_num("--edge-factor", optarg, 1, 64, &w->ef);
			break;
		case 'i':
			ret = wl_parse_num("--iters", optarg, 1, UINT32_MAX, &w->iters);
			break;
		default:	/* getopt_long() said what */
			return -1;
		}
		if (ret)
			return -1;
	}
	if (optind != argc) {
		fprintf(stderr, "cxdvirt-wl: %s: unexpected argument '%s'\n",
			argv[0], argv[optind]);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct wl_args w = { .seed = 1, .ef = 8, .iters = 10 };
	struct wl_arena a;
	struct wl_graph g;
	const char *cmd;
	uint64_t t0, t1, check = 0;
	size_t need;
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--dax") && i + 1 < argc) {
			w.dax = argv[++i];
		} else if (!strcmp(argv[i], "--dax")) {
			fprintf(stderr, "cxdvirt-wl: --dax needs a value (a devdax device)\n");
			return wl_usage_err(NULL);
		} else if (!strcmp(argv[i], "--progress")) {
			wl_progress_on = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			return usage_to(stdout, 0);
		} else {
			fprintf(stderr, "cxdvirt-wl: unknown option '%s'\n", argv[i]);
			return wl_usage_err(NULL);
		}
	}
	if (i >= argc) {
		fprintf(stderr, "cxdvirt-wl: no workload given\n");
		return wl_usage_err(NULL);
	}
	cmd = argv[i];
	/* zipf's memory is the server's, lackey and exec have none. */
	if (w.dax && (!strcmp(cmd, "zipf") || !strcmp(cmd, "lackey") ||
		      !strcmp(cmd, "exec"))) {
		fprintf(stderr, "cxdvirt-wl: --dax is for chase, bfs and pagerank, not %s (bind a server to the device's node with numactl --membind)\n",
			cmd);
		return wl_usage_err(NULL);
	}
	if (!strcmp(cmd, "zipf"))
		return wl_zipf_main(argc - i, argv + i);
	if (!strcmp(cmd, "exec"))
		return wl_exec_main(argc - i, argv + i);
	if (!strcmp(cmd, "lackey"))
		return wl_lackey_main(argc - i, argv + i);
	if (strcmp(cmd, "chase") && strcmp(cmd, "bfs") && strcmp(cmd, "pagerank")) {
		fprintf(stderr, "cxdvirt-wl: unknown workload '%s'\n", cmd);
		return wl_usage_err(NULL);
	}
	if (parse(argc - i, argv + i, &w))
		return wl_usage_err(NULL);

	if (!strcmp(cmd, "chase")) {
		if (!w.pages || !w.steps) {
			fprintf(stderr, "cxdvirt-wl: chase needs --pages N and --steps N\n");
			return wl_usage_err(NULL);
		}
		need = wl_chase_bytes(w.pages);
	} else {
		if (!w.scale) {
			fprintf(stderr, "cxdvirt-wl: %s needs --scale S\n", cmd);
			return wl_usage_err(NULL);
		}
		need = wl_kronecker_bytes(w.scale, w.ef) +
		       (cmd[0] == 'b' ? wl_bfs_bytes(w.scale) : wl_pagerank_bytes(w.scale));
	}
	if (wl_arena_open(&a, w.dax, need))
		return 1;

	t0 = wl_now_ns();
	if (cmd[0] == 'c') {
		check = wl_chase(&a, w.pages, w.steps, w.seed);
	} else {
		wl_kronecker(&a, &g, (unsigned int)w.scale, (unsigned int)w.ef, w.seed);
		if (cmd[0] == 'b') {
			uint64_t seed = w.seed, root;

			do {	/* a root with neighbours, chosen by the seed */
				root = wl_rand_below(&seed, g.n);
			} while (g.off[root] == g.off[root + 1]);
			check = wl_bfs(&a, &g, (uint32_t)root);
		} else {
			check = wl_pagerank(&a, &g, (unsigned int)w.iters);
		}
	}
	t1 = wl_now_ns();

	printf("{\"workload\": \"%s\", \"memory\": \"%s\", \"arena_base\": \"%p\", "
	       "\"arena_bytes\": %zu, \"used_bytes\": %zu, \"run_ns\": %llu, \"check\": %llu}\n",
	       cmd, w.dax ? w.dax : "anonymous", (void *)a.base, a.size, a.used,
	       (unsigned long long)(t1 - t0), (unsigned long long)check);
	wl_arena_close(&a);
	return fflush(stdout) ? 1 : 0;
}
