/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxdvirt-wl: small deterministic workloads for cxdvirt (docs/workloads.md).
 *
 * Every workload takes its memory from one arena (arena.c): anonymous
 * memory (node mode: run the program under numactl --membind) or a mapping
 * of a devdax device (--dax /dev/cxdvirtN). Inputs come from a seeded
 * splitmix64, so the same arguments touch the same pages in the same order
 * on every run: the run in the test guest and the run traced by valgrind
 * lackey on the host are the same program with the same inputs.
 */
#ifndef CXDVIRT_WL_H
#define CXDVIRT_WL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** struct wl_arena - one region every allocation of a workload comes from */
struct wl_arena {
	unsigned char *base;	/* page aligned */
	size_t size;		/* bytes mapped */
	size_t used;		/* bump pointer, bytes */
	const char *dax;	/* device path, NULL for anonymous memory */
};

/**
 * wl_arena_open() - map the arena
 * @a: the arena to fill in
 * @dax: devdax device to map shared, or NULL for anonymous private memory
 * @size: bytes, rounded up to 2 MiB (the alignment a devdax mapping needs)
 *
 * Return: 0, or -1 with a message on stderr (mmap or open failed).
 */
int wl_arena_open(struct wl_arena *a, const char *dax, size_t size);

/**
 * wl_alloc() - take @bytes from the arena, 64-byte aligned
 * @a: the arena
 * @bytes: size
 *
 * Exits the program with status 1 and a message when the arena is full:
 * the workload's size was computed wrongly, a bug.
 */
void *wl_alloc(struct wl_arena *a, size_t bytes);

/** wl_arena_close() - unmap the arena */
void wl_arena_close(struct wl_arena *a);

/**
 * wl_rand() - splitmix64 (Steele, Lea, Flood 2014), the next value
 * @s: state, advanced by one step
 */
static inline uint64_t wl_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/** wl_rand_below() - a value in [0, @n), @n > 0 (Lemire's multiply-shift) */
static inline uint64_t wl_rand_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)wl_rand(s) * n) >> 64);
}

/**
 * wl_parse_num() - one option's whole number, checked against its range
 * @opt: the option, for the message ("--pages")
 * @s: decimal digits, or 0x and hex digits (a leading 0 is not octal)
 * @lo: the smallest value accepted
 * @hi: the largest
 * @v: the value, set only on success
 *
 * Return: 0, or -1 after printing the option, the text and the range.
 */
int wl_parse_num(const char *opt, const char *s, uint64_t lo, uint64_t hi,
		 uint64_t *v);

/**
 * wl_usage_err() - print where the usage is
 * @cmd: the subcommand with its own --help (zipf), or NULL
 *
 * Return: 2, the exit status of a usage error.
 */
int wl_usage_err(const char *cmd);

/** wl_now_ns() - CLOCK_MONOTONIC in ns */
uint64_t wl_now_ns(void);

/**
 * wl_progress() - a progress line on stderr, at most once a second
 * @what: the phase
 * @done: units done
 * @total: units in the phase
 *
 * Silent unless wl_progress_on is set (--progress). Ends the line with \r;
 * wl_progress_end() ends it with \n.
 */
void wl_progress(const char *what, uint64_t done, uint64_t total);
void wl_progress_end(void);
extern bool wl_progress_on;

/** struct wl_graph - an undirected graph in CSR form, in the arena */
struct wl_graph {
	uint32_t n;		/* vertices */
	uint64_t m;		/* directed edges stored (2 x undirected, no self loops) */
	uint32_t *off;		/* n + 1 offsets into adj */
	uint32_t *adj;		/* neighbours, m entries */
};

/**
 * wl_kronecker() - generate a Kronecker (R-MAT) graph into the arena
 * @a: the arena
 * @g: the graph to fill in
 * @scale: log2 of the vertex count, 1..26
 * @ef: edge factor: ef * 2^scale undirected edges are drawn
 * @seed: splitmix64 seed
 *
 * Edges are drawn with the Graph 500 initiator probabilities A = 0.57,
 * B = 0.19, C = 0.19 (D = 0.05), vertex numbers scrambled with a fixed
 * bijection so that high degree is not concentrated at low numbers. Self
 * loops are dropped, duplicates kept. The edge list stays in the arena
 * (it is part of the workload's footprint).
 */
void wl_kronecker(struct wl_arena *a, struct wl_graph *g, unsigned int scale,
		  unsigned int ef, uint64_t seed);

/** wl_kronecker_bytes() - arena bytes wl_kronecker() takes */
size_t wl_kronecker_bytes(unsigned int scale, unsigned int ef);

/**
 * wl_bfs() - breadth-first search from @root, top-down
 * @a: arena for the parent array and the queue
 * @g: the graph
 * @root: start vertex
 *
 * Return: the number of vertices reached (root included).
 */
uint64_t wl_bfs(struct wl_arena *a, const struct wl_graph *g, uint32_t root);
size_t wl_bfs_bytes(unsigned int scale);

/**
 * wl_pagerank() - PageRank by pull iterations, damping 0.85
 * @a: arena for the two rank arrays
 * @g: the graph
 * @iters: iterations
 *
 * Return: the sum of the final ranks times 1e6, rounded (a checksum that
 * should be close to 1e6; dangling vertices lose their share).
 */
uint64_t wl_pagerank(struct wl_arena *a, const struct wl_graph *g, unsigned int iters);
size_t wl_pagerank_bytes(unsigned int scale);

/**
 * wl_chase() - dependent loads around one random cycle
 * @a: arena
 * @pages: pages the cycle covers (64 elements of 64 bytes per page)
 * @steps: loads
 * @seed: splitmix64 seed for the cycle (Sattolo's algorithm)
 *
 * Return: the index reached after @steps loads (a checksum).
 */
uint64_t wl_chase(struct wl_arena *a, uint64_t pages, uint64_t steps, uint64_t seed);
size_t wl_chase_bytes(uint64_t pages);

/**
 * wl_zipf_main() - key-value requests with Zipf-distributed keys
 * @argc: argument count after the subcommand name
 * @argv: the arguments
 *
 * Writes redis commands in RESP (for redis-cli --pipe) or memcached text
 * protocol commands to stdout. Return: the exit status.
 */
int wl_zipf_main(int argc, char **argv);

/**
 * wl_memc_open() - connect to memcached's unix socket @path
 *
 * Return: 0, or -1 with a message on stderr. One connection per process.
 */
int wl_memc_open(const char *path);

/**
 * wl_memc_set() - store @vlen bytes of @val under key:KEY (12 digits)
 *
 * Return: 0 once memcached answered STORED, -1 with a message otherwise.
 */
int wl_memc_set(uint64_t key, const char *val, size_t vlen);

/**
 * wl_memc_get() - fetch key:KEY, discarding the value
 *
 * Return: 1 on a hit, 0 on a miss (END alone), -1 on an error (message).
 */
int wl_memc_get(uint64_t key);

/**
 * wl_redis_open() - connect to redis-server's unix socket @path
 *
 * Return: 0, or -1 with a message on stderr.
 */
int wl_redis_open(const char *path);

/**
 * wl_redis_set() - SET key:KEY (12 digits) to @vlen bytes of @val
 *
 * Return: 0 once redis answered +OK, -1 with a message otherwise.
 */
int wl_redis_set(uint64_t key, const char *val, size_t vlen);

/**
 * wl_redis_get() - GET key:KEY, discarding the value
 *
 * Return: 1 (the key exists), 0 (nil), -1 with a message on an error.
 */
int wl_redis_get(uint64_t key);

/**
 * wl_lackey_main() - keep the accesses of one address range of a lackey log
 * @argc: argument count after the subcommand name
 * @argv: the arguments
 *
 * Return: the exit status.
 */
int wl_lackey_main(int argc, char **argv);

#endif
