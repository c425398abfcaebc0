// SPDX-License-Identifier: GPL-2.0
/*
 * Key-value requests with Zipf-distributed keys, for servers whose own
 * benchmark client draws keys uniformly (redis-benchmark -r). Keys are
 * drawn with the method of Gray et al., "Quickly generating billion-record
 * synthetic databases" (SIGMOD 1994), as YCSB does, then scrambled by a
 * fixed bijection so that the hot keys are not neighbours. Output: redis
 * commands in RESP, to pipe into `redis-cli --pipe`; or, with --memcached
 * SOCKET or --redis SOCKET, the requests sent to the server one at a time
 * (memc.c) and a JSON summary.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl.h"

struct zipf {
	uint64_t n;
	double theta, alpha, zetan, eta, half_pow;
};

static double zeta(uint64_t n, double theta)
{
	double s = 0;
	uint64_t i;

	for (i = 1; i <= n; i++)
		s += 1.0 / pow((double)i, theta);
	return s;
}

static void zipf_init(struct zipf *z, uint64_t n, double theta)
{
	z->n = n;
	z->theta = theta;
	z->alpha = 1.0 / (1.0 - theta);
	z->zetan = zeta(n, theta);
	z->eta = (1.0 - pow(2.0 / (double)n, 1.0 - theta)) / (1.0 - zeta(2, theta) / z->zetan);
	z->half_pow = 1.0 + pow(0.5, theta);
}

/* A rank in [0, n), 0 the most popular. */
static uint64_t zipf_next(const struct zipf *z, uint64_t *seed)
{
	double u = (double)(wl_rand(seed) >> 11) / 9007199254740992.0;
	double uz = u * z->zetan;
	uint64_t r;

	if (uz < 1.0)
		return 0;
	if (uz < z->half_pow)
		return 1;
	r = (uint64_t)((double)z->n * pow(z->eta * u - z->eta + 1.0, z->alpha));
	return r < z->n ? r : z->n - 1;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Rank -> key number: an affine bijection modulo n (multiplier coprime). */
static uint64_t scramble_key(uint64_t rank, uint64_t n)
{
	uint64_t mul = 2654435761ULL % n;

	while (mul > 1 && gcd_u64(mul, n) != 1)
		mul--;
	return (rank * (mul ? mul : 1) + 12345) % n;
}

/* One SET to stdout; returns 0 (the form of the clients' calls). */
static int resp_set(uint64_t key, const char *val, size_t vlen)
{
	char k[32];
	int kl = snprintf(k, sizeof(k), "key:%012llu", (unsigned long long)key);

	printf("*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%zu\r\n", kl, k, vlen);
	fwrite(val, 1, vlen, stdout);
	fputs("\r\n", stdout);
	return 0;
}

static void resp_get(uint64_t key)
{
	char k[32];
	int kl = snprintf(k, sizeof(k), "key:%012llu", (unsigned long long)key);

	printf("*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", kl, k);
}

/* Keys are key:NNNNNNNNNNNN, 12 digits: at most 10^12 of them. */
#define ZIPF_MAX_KEYS	1000000000000ULL

static int usage(FILE *out, int rc)
{
	fprintf(out,
		"usage: cxdvirt-wl zipf --keys N [--ops N] [--theta T] [--write-pct P]\n"
		"                       [--value-size BYTES] [--seed N] [--load]\n"
		"                       [--memcached SOCKET | --redis SOCKET]\n"
		"Writes redis commands (RESP) to stdout for `redis-cli --pipe`, or\n"
		"sends the requests to memcached (--memcached) or redis-server\n"
		"(--redis) on a unix socket, one at a time, and prints a JSON\n"
		"summary: with --load, one SET per key in key order first; then --ops\n"
		"requests, GET or (--write-pct %%) SET, keys Zipf(theta) distributed.\n"
		"  --keys N             key range, keys 0 .. N-1, 2 .. 10^12\n"
		"  --ops N              requests after the load, 0 .. 2^64-1 (default 0)\n"
		"  --theta T            Zipf skew, 0 < T < 1 (default 0.99)\n"
		"  --write-pct P        percent SETs, 0 .. 100 (default 10)\n"
		"  --value-size BYTES   value size, 1 .. 1048576 (default 1024)\n"
		"  --seed N             random seed, 0 .. 2^64-1 (default 1)\n"
		"  --load               SET every key once first\n"
		"  --memcached SOCKET   send to memcached's unix socket\n"
		"  --redis SOCKET       send to redis-server's unix socket\n"
		"  -h, --help           this text\n"
		"Numbers are decimal or 0x-hex (a leading 0 is not octal).\n");
	return rc;
}

int wl_zipf_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "keys", required_argument, NULL, 'k' },
		{ "ops", required_argument, NULL, 'n' },
		{ "theta", required_argument, NULL, 't' },
		{ "write-pct", required_argument, NULL, 'w' },
		{ "value-size", required_argument, NULL, 'v' },
		{ "seed", required_argument, NULL, 's' },
		{ "load", no_argument, NULL, 'l' },
		{ "memcached", required_argument, NULL, 'm' },
		{ "redis", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t keys = 0, ops = 0, seed = 1, wpct = 10, vsize = 1024, i, gets = 0, hits = 0;
	const char *memc = NULL, *redis = NULL;
	int r;
	double theta = 0.99;
	bool load = false;
	struct zipf z;
	char *val, *end;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		int bad = 0;

		switch (c) {
		case 'k':
			bad = wl_parse_num("--keys", optarg, 2, ZIPF_MAX_KEYS, &keys);
			break;
		case 'n':
			bad = wl_parse_num("--ops", optarg, 0, UINT64_MAX, &ops);
			break;
		case 'w':
			bad = wl_parse_num("--write-pct", optarg, 0, 100, &wpct);
			break;
		case 'v':
			bad = wl_parse_num("--value-size", optarg, 1, 1 << 20, &vsize);
			break;
		case 's':
			bad = wl_parse_num("--seed", optarg, 0, UINT64_MAX, &seed);
			break;
		case 't':
			errno = 0;
			theta = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(theta > 0 && theta < 1)) {
				fprintf(stderr, "cxdvirt-wl: --theta %s: expected a number strictly between 0 and 1\n",
					optarg);
				bad = -1;
			}
			break;
		case 'l': load = true; continue;
		case 'm': memc = optarg; continue;
		case 'r': redis = optarg; continue;
		case 'h': return usage(stdout, 0);
		default: return wl_usage_err("zipf");	/* getopt_long() said what */
		}
		if (bad)
			return wl_usage_err("zipf");
	}
	if (optind != argc) {
		fprintf(stderr, "cxdvirt-wl: zipf: unexpected argument '%s'\n", argv[optind]);
		return wl_usage_err("zipf");
	}
	if (!keys) {
		fprintf(stderr, "cxdvirt-wl: zipf needs --keys N\n");
		return wl_usage_err("zipf");
	}
	if (memc && redis) {
		fprintf(stderr, "cxdvirt-wl: zipf: --memcached and --redis together: pick one\n");
		return wl_usage_err("zipf");
	}
	val = malloc(vsize);
	if (!val)
		return 1;
	for (i = 0; i < vsize; i++)
		val[i] = (char)('a' + i % 26);
	if ((memc && wl_memc_open(memc)) || (redis && wl_redis_open(redis)))
		goto err;
	for (i = 0; load && i < keys; i++) {
		if (memc ? wl_memc_set(i, val, vsize) :
		    redis ? wl_redis_set(i, val, vsize) : resp_set(i, val, vsize))
			goto err;
	}
	zipf_init(&z, keys, theta);
	for (i = 0; i < ops; i++) {
		uint64_t key = scramble_key(zipf_next(&z, &seed), keys);

		if (wl_rand_below(&seed, 100) < wpct) {
			if (memc ? wl_memc_set(key, val, vsize) :
			    redis ? wl_redis_set(key, val, vsize) :
			    resp_set(key, val, vsize))
				goto err;
		} else if (!memc && !redis) {
			resp_get(key);
		} else {
			r = memc ? wl_memc_get(key) : wl_redis_get(key);
			if (r < 0)
				goto err;
			gets++;
			hits += (uint64_t)r;
		}
	}
	if (memc || redis)
		printf("{\"workload\": \"%s-zipf\", \"gets\": %llu, \"get_hits\": %llu}\n",
		       memc ? "memcached" : "redis",
		       (unsigned long long)gets, (unsigned long long)hits);
	free(val);
	return fflush(stdout) ? 1 : 0;
err:
	free(val);
	return 1;
}
