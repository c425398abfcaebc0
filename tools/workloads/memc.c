// SPDX-License-Identifier: GPL-2.0
/*
 * Key-value clients over a unix socket (the test guest has no network),
 * for cxdvirt-wl zipf --memcached SOCKET and --redis SOCKET: one request
 * outstanding at a time, so that the server sees the same requests in the
 * same order, one read per request, on every run. memcached: its text
 * protocol (memcached's doc/protocol.txt: "set", "get"); redis: RESP
 * (SET, GET), as redis-cli sends it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "wl.h"

static int fd = -1;
static char rbuf[1 << 16];
static size_t rlen, rpos;
static const char *srv = "memcached";	/* for the messages */

static int kv_open(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "cxdvirt-wl: socket path too long: %s\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "cxdvirt-wl: connect %s: %m\n", path);
		return -1;
	}
	return 0;
}

int wl_memc_open(const char *path)
{
	srv = "memcached";
	return kv_open(path);
}

int wl_redis_open(const char *path)
{
	srv = "redis";
	return kv_open(path);
}

static int send_all(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			fprintf(stderr, "cxdvirt-wl: %s write: %m\n", srv);
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int fill(void)
{
	ssize_t r;

	if (rpos > 0) {
		memmove(rbuf, rbuf + rpos, rlen - rpos);
		rlen -= rpos;
		rpos = 0;
	}
	if (rlen == sizeof(rbuf))
		return -1;
	do {
		r = read(fd, rbuf + rlen, sizeof(rbuf) - rlen);
	} while (r < 0 && errno == EINTR);
	if (r <= 0) {
		fprintf(stderr, "cxdvirt-wl: %s closed the connection or failed: %m\n", srv);
		return -1;
	}
	rlen += (size_t)r;
	return 0;
}

/* One reply line without its \r\n into @line (at most @n - 1 bytes). */
static int read_line(char *line, size_t n)
{
	for (;;) {
		char *nl = memchr(rbuf + rpos, '\n', rlen - rpos);

		if (nl) {
			size_t len = (size_t)(nl - (rbuf + rpos));

			if (len && nl[-1] == '\r')
				len--;
			if (len >= n)
				len = n - 1;
			memcpy(line, rbuf + rpos, len);
			line[len] = 0;
			rpos = (size_t)(nl - rbuf) + 1;
			return 0;
		}
		if (fill())
			return -1;
	}
}

static int skip_bytes(size_t n)
{
	while (rlen - rpos < n) {
		n -= rlen - rpos;
		rpos = rlen;
		if (fill())
			return -1;
	}
	rpos += n;
	return 0;
}

int wl_memc_set(uint64_t key, const char *val, size_t vlen)
{
	char cmd[96], line[128];
	int n = snprintf(cmd, sizeof(cmd), "set key:%012llu 0 0 %zu\r\n",
			 (unsigned long long)key, vlen);

	if (send_all(cmd, (size_t)n) || send_all(val, vlen) || send_all("\r\n", 2) ||
	    read_line(line, sizeof(line)))
		return -1;
	if (strcmp(line, "STORED")) {
		fprintf(stderr, "cxdvirt-wl: memcached set: %s\n", line);
		return -1;
	}
	return 0;
}

int wl_memc_get(uint64_t key)
{
	char cmd[64], line[256];
	unsigned long long bytes;
	int n = snprintf(cmd, sizeof(cmd), "get key:%012llu\r\n", (unsigned long long)key);
	int hit = 0;

	if (send_all(cmd, (size_t)n))
		return -1;
	for (;;) {
		if (read_line(line, sizeof(line)))
			return -1;
		if (!strcmp(line, "END"))
			return hit;
		if (sscanf(line, "VALUE %*s %*u %llu", &bytes) != 1) {
			fprintf(stderr, "cxdvirt-wl: memcached get: %s\n", line);
			return -1;
		}
		if (skip_bytes(bytes + 2))
			return -1;
		hit = 1;
	}
}

int wl_redis_set(uint64_t key, const char *val, size_t vlen)
{
	char cmd[96], line[128];
	int n = snprintf(cmd, sizeof(cmd),
			 "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012llu\r\n$%zu\r\n",
			 (unsigned long long)key, vlen);

	if (send_all(cmd, (size_t)n) || send_all(val, vlen) || send_all("\r\n", 2) ||
	    read_line(line, sizeof(line)))
		return -1;
	if (strcmp(line, "+OK")) {
		fprintf(stderr, "cxdvirt-wl: redis SET: %s\n", line);
		return -1;
	}
	return 0;
}

int wl_redis_get(uint64_t key)
{
	char cmd[64], line[128];
	long long bytes;
	int n = snprintf(cmd, sizeof(cmd), "*2\r\n$3\r\nGET\r\n$16\r\nkey:%012llu\r\n",
			 (unsigned long long)key);

	if (send_all(cmd, (size_t)n) || read_line(line, sizeof(line)))
		return -1;
	if (sscanf(line, "$%lld", &bytes) != 1) {
		fprintf(stderr, "cxdvirt-wl: redis GET: %s\n", line);
		return -1;
	}
	if (bytes < 0)
		return 0;	/* $-1: no such key */
	return skip_bytes((size_t)bytes + 2) ? -1 : 1;
}
