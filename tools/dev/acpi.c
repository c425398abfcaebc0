// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-dev acpi-tables: an early-initrd cpio with ACPI table overrides
 * that give each reserved range (memmap=SIZE$ADDR) a NUMA node of its own,
 * for node mode on machines whose firmware lists no empty node.
 *
 *   SRAT  the machine's SRAT (/sys/firmware/acpi/tables/SRAT), with each
 *         reserved range cut out of the memory affinity structures that
 *         covered it and given a new proximity domain of its own
 *         (enabled, hot-pluggable, memory only).
 *   HMAT  a new HMAT: for each new domain, a Memory Proximity Domain
 *         Attributes structure and System Locality Latency and Bandwidth
 *         structures (read/write latency, read/write bandwidth) from every
 *         CPU proximity domain, with the modeled device's figures, so the
 *         kernel reports them in /sys/devices/system/node/nodeN/access0/.
 *
 * Sources: ACPI 6.4 sections 5.2.16 (SRAT; Memory Affinity Structure, 40
 * bytes, flags enabled 0x1 / hot-pluggable 0x2) and 5.2.27 (HMAT revision
 * 2; latencies in ps x entry base unit, bandwidths in MB/s x base unit);
 * Documentation/admin-guide/acpi/initrd_table_override.rst (tables under
 * kernel/firmware/acpi/ of an uncompressed cpio in front of the initrd; a
 * table overrides the firmware's of the same signature, OEM ID and OEM
 * table ID; CONFIG_ACPI_TABLE_UPGRADE); drivers/acpi/numa/hmat.c
 * (hmat_normalize(): revision 2 latencies are divided by 1000 into ns).
 *
 * The override SRAT keeps the firmware's OEM ID and OEM table ID (so it
 * replaces that table), raises the OEM revision by one, and gets a new
 * checksum. A machine that already has an HMAT is refused: merging into it
 * is not implemented.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <cxdvirt/model.h>

#include "cxdvirt-dev.h"

#define ACPI_HDR_LEN		36
#define SRAT_HDR_LEN		48	/* header + reserved u32 (1) + u64 */
#define SRAT_MEM		1	/* Memory Affinity Structure */
#define SRAT_MEM_LEN		40
#define SRAT_LAPIC		0
#define SRAT_X2APIC		2
#define SRAT_GICC		3
#define SRAT_MEM_ENABLED	0x1
#define SRAT_MEM_HOTPLUG	0x2
#define HMAT_HDR_LEN		40	/* header + reserved u32 */
#define HMAT_MPDA_LEN		40
#define HMAT_SLLBI_HDR		32
#define HMAT_MAX_RANGES		16
#define HMAT_MAX_PXM		64
#define ACPI_TABLE_MAX		(1u << 20)

/* HMAT SLLBI data types (ACPI 6.4 table 5.152). */
enum { HMAT_READ_LAT = 1, HMAT_WRITE_LAT = 2, HMAT_READ_BW = 4, HMAT_WRITE_BW = 5 };

struct acpi_range {
	uint64_t start;
	uint64_t size;
	uint32_t pxm;		/* the new proximity domain */
};

static uint16_t get16(const uint8_t *p) { return p[0] | p[1] << 8; }
static uint32_t get32(const uint8_t *p) { return get16(p) | (uint32_t)get16(p + 2) << 16; }
static uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }
static void put16(uint8_t *p, uint16_t v) { p[0] = v; p[1] = v >> 8; }
static void put32(uint8_t *p, uint32_t v) { put16(p, v); put16(p + 2, v >> 16); }
static void put64(uint8_t *p, uint64_t v) { put32(p, v); put32(p + 4, v >> 32); }

/* Set the length and the checksum (all bytes sum to 0) of table @t. */
static void acpi_finish(uint8_t *t, uint32_t len)
{
	uint8_t sum = 0;
	uint32_t i;

	put32(t + 4, len);
	t[9] = 0;
	for (i = 0; i < len; i++)
		sum += t[i];
	t[9] = (uint8_t)-sum;
}

static int read_table(const char *path, uint8_t **out, size_t *len)
{
	uint8_t *buf = malloc(ACPI_TABLE_MAX);
	size_t n = 0, r;
	FILE *f;

	if (!buf)
		return -ENOMEM;
	f = fopen(path, "re");
	if (!f) {
		int err = -errno;

		free(buf);
		return err;
	}
	while ((r = fread(buf + n, 1, ACPI_TABLE_MAX - n, f)) > 0)
		n += r;
	fclose(f);
	if (n < ACPI_HDR_LEN || get32(buf + 4) != n) {
		free(buf);
		return -EINVAL;
	}
	*out = buf;
	*len = n;
	return 0;
}

/* Append one Memory Affinity Structure to @o at @off. */
static size_t srat_mem(uint8_t *o, size_t off, uint32_t pxm, uint64_t base,
		       uint64_t len, uint32_t flags)
{
	uint8_t *m = o + off;

	memset(m, 0, SRAT_MEM_LEN);
	m[0] = SRAT_MEM;
	m[1] = SRAT_MEM_LEN;
	put32(m + 2, pxm);
	put64(m + 8, base);
	put64(m + 16, len);
	put32(m + 28, flags);
	return off + SRAT_MEM_LEN;
}

/*
 * The new SRAT: @srat's structures, memory ones minus the @nr ranges,
 * then one memory structure per range. Fills the ranges' pxm and the CPU
 * proximity domains (@cpu_pxm, @ncpu). Return: length, or 0 on error.
 */
static size_t srat_build(const uint8_t *srat, size_t len, struct acpi_range *r,
			 int nr, uint8_t *o, uint32_t *cpu_pxm, int *ncpu,
			 char *why, size_t whylen)
{
	size_t off = SRAT_HDR_LEN, out = SRAT_HDR_LEN;
	uint32_t max_pxm = 0;
	int i, j;

	*ncpu = 0;
	memcpy(o, srat, SRAT_HDR_LEN);
	/* Pass 1: the largest proximity domain in use. */
	for (off = SRAT_HDR_LEN; off + 2 <= len; off += srat[off + 1]) {
		const uint8_t *s = srat + off;
		uint32_t pxm, flags;

		if (s[1] < 2 || off + s[1] > len) {
			snprintf(why, whylen, "malformed SRAT structure at offset %zu", off);
			return 0;
		}
		/* Offsets of proximity domain and flags: ACPI 6.4 5.2.16.x. */
		if (s[0] == SRAT_LAPIC) {
			pxm = s[2] | (uint32_t)s[9] << 8 | (uint32_t)s[10] << 16 |
			      (uint32_t)s[11] << 24;
			flags = get32(s + 4);
		} else if (s[0] == SRAT_X2APIC) {
			pxm = get32(s + 4);
			flags = get32(s + 12);
		} else if (s[0] == SRAT_GICC) {
			pxm = get32(s + 2);
			flags = get32(s + 10);
		} else if (s[0] == SRAT_MEM) {
			pxm = get32(s + 2);
			flags = 0;
		} else {
			continue;
		}
		if (pxm > max_pxm)
			max_pxm = pxm;
		if (s[0] != SRAT_MEM && (flags & 1)) {
			for (j = 0; j < *ncpu && cpu_pxm[j] != pxm; j++)
				;
			if (j == *ncpu && *ncpu < HMAT_MAX_PXM)
				cpu_pxm[(*ncpu)++] = pxm;
		}
	}
	if (!*ncpu) {
		snprintf(why, whylen, "the SRAT names no enabled CPU");
		return 0;
	}
	/* Pass 2: copy, cutting the ranges out of memory structures. */
	for (off = SRAT_HDR_LEN; off + 2 <= len; off += srat[off + 1]) {
		const uint8_t *s = srat + off;
		uint64_t b, e;

		if (out + 3 * SRAT_MEM_LEN + s[1] > ACPI_TABLE_MAX) {
			snprintf(why, whylen, "SRAT too large");
			return 0;
		}
		if (s[0] != SRAT_MEM || s[1] != SRAT_MEM_LEN) {
			memcpy(o + out, s, s[1]);
			out += s[1];
			continue;
		}
		b = get64(s + 8);
		e = b + get64(s + 16);
		/* [b, e) minus every range: pieces left of and right of each. */
		for (i = 0; i < nr && b < e; i++) {
			uint64_t rs = r[i].start, re = r[i].start + r[i].size;

			if (re <= b || rs >= e)
				continue;
			if (rs > b)
				out = srat_mem(o, out, get32(s + 2), b, rs - b,
					       get32(s + 28));
			b = re < e ? re : e;
		}
		if (b < e)
			out = srat_mem(o, out, get32(s + 2), b, e - b, get32(s + 28));
	}
	for (i = 0; i < nr; i++) {
		r[i].pxm = max_pxm + 1 + i;
		out = srat_mem(o, out, r[i].pxm, r[i].start, r[i].size,
			       SRAT_MEM_ENABLED | SRAT_MEM_HOTPLUG);
	}
	put32(o + 24, get32(o + 24) + 1);	/* OEM revision */
	acpi_finish(o, out);
	return out;
}

/* One SLLBI structure: every CPU domain to every new domain, one value. */
static size_t hmat_sllbi(uint8_t *o, size_t off, uint8_t type, uint64_t base,
			 uint16_t entry, const uint32_t *cpu, int ncpu,
			 const struct acpi_range *r, int nr)
{
	uint8_t *s = o + off;
	size_t len = HMAT_SLLBI_HDR + 4 * (ncpu + nr) + 2 * ncpu * nr;
	int i;

	memset(s, 0, len);
	put16(s, 1);
	put32(s + 4, len);
	s[8] = 0;			/* memory hierarchy: memory */
	s[9] = type;
	put32(s + 12, ncpu);
	put32(s + 16, nr);
	put64(s + 24, base);
	for (i = 0; i < ncpu; i++)
		put32(s + HMAT_SLLBI_HDR + 4 * i, cpu[i]);
	for (i = 0; i < nr; i++)
		put32(s + HMAT_SLLBI_HDR + 4 * (ncpu + i), r[i].pxm);
	for (i = 0; i < ncpu * nr; i++)
		put16(s + HMAT_SLLBI_HDR + 4 * (ncpu + nr) + 2 * i, entry);
	return off + len;
}

/*
 * @v in units of @base_min or more (x10 at a time) so that the entry fits
 * in 1..65534 (16 bits, 0xffff means no data). Precision is lost when @v
 * needs a larger unit: the caller reports the encoded value.
 */
static uint16_t hmat_entry(uint64_t v, uint64_t base_min, uint64_t *base)
{
	uint64_t b = base_min;

	while (v / b > 65534)
		b *= 10;
	*base = b;
	return (uint16_t)(v / b ? v / b : 1);
}

/* What the kernel reads back (hmat_normalize()): ps -> ns rounded up. */
static uint64_t hmat_lat_ns(uint64_t *ns)
{
	uint64_t base;
	uint16_t e = hmat_entry(*ns * 1000, 1000, &base);

	*ns = ((uint64_t)e * base + 999) / 1000;
	return *ns;
}

static uint64_t hmat_bw(uint64_t *mbps)
{
	uint64_t base;
	uint16_t e = hmat_entry(*mbps, 1, &base);

	*mbps = (uint64_t)e * base;
	return *mbps;
}

static size_t hmat_build(const uint8_t *srat, uint8_t *o, const uint32_t *cpu,
			 int ncpu, const struct acpi_range *r, int nr,
			 uint64_t rlat_ns, uint64_t wlat_ns, uint64_t rbw,
			 uint64_t wbw)
{
	size_t out = HMAT_HDR_LEN;
	uint64_t base;
	uint16_t e;
	int i;

	memset(o, 0, HMAT_HDR_LEN);
	memcpy(o, "HMAT", 4);
	o[8] = 2;				/* revision 2 (ACPI 6.3+) */
	memcpy(o + 10, srat + 10, 6);		/* OEM ID: the firmware's */
	memcpy(o + 16, "CXDVIRT ", 8);		/* OEM table ID */
	put32(o + 24, 1);			/* OEM revision */
	memcpy(o + 28, "CXDV", 4);		/* creator ID */
	put32(o + 32, 1);			/* creator revision */
	for (i = 0; i < nr; i++) {
		uint8_t *m = o + out;

		memset(m, 0, HMAT_MPDA_LEN);
		put16(m, 0);
		put32(m + 4, HMAT_MPDA_LEN);
		put16(m + 8, 0);	/* no attached initiator */
		put32(m + 16, r[i].pxm);
		out += HMAT_MPDA_LEN;
	}
	/* Latencies in ps (x base unit), bandwidths in MB/s (x base unit). */
	e = hmat_entry(rlat_ns * 1000, 1000, &base);
	out = hmat_sllbi(o, out, HMAT_READ_LAT, base, e, cpu, ncpu, r, nr);
	e = hmat_entry(wlat_ns * 1000, 1000, &base);
	out = hmat_sllbi(o, out, HMAT_WRITE_LAT, base, e, cpu, ncpu, r, nr);
	e = hmat_entry(rbw, 1, &base);
	out = hmat_sllbi(o, out, HMAT_READ_BW, base, e, cpu, ncpu, r, nr);
	e = hmat_entry(wbw, 1, &base);
	out = hmat_sllbi(o, out, HMAT_WRITE_BW, base, e, cpu, ncpu, r, nr);
	acpi_finish(o, out);
	return out;
}

/* One newc cpio entry (a directory when @data is NULL). */
static int cpio_entry(FILE *f, const char *name, const uint8_t *data,
		      size_t len, unsigned int ino)
{
	static const char zeros[4];
	size_t nlen = strlen(name) + 1;
	int hdr;

	hdr = fprintf(f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		      ino, data ? 0100644 : 040755, 0, 0, data ? 1 : 2, 0,
		      data ? len : 0, 0, 0, 0, 0, nlen, 0);
	if (hdr != 110)
		return -1;
	fwrite(name, 1, nlen, f);
	fwrite(zeros, 1, (4 - (110 + nlen) % 4) % 4, f);
	if (data) {
		fwrite(data, 1, len, f);
		fwrite(zeros, 1, (4 - len % 4) % 4, f);
	}
	return ferror(f) ? -1 : 0;
}

/* Reserved ranges from memmap=SIZE$ADDR on @cmdline. Return: count. */
static int ranges_from_cmdline(char *cmdline, struct acpi_range *r, int max)
{
	char *tok, *save = NULL;
	int n = 0;

	for (tok = strtok_r(cmdline, " \t", &save); tok && n < max;
	     tok = strtok_r(NULL, " \t", &save)) {
		char *one, *s2 = NULL;

		if (strncmp(tok, "memmap=", 7))
			continue;
		for (one = strtok_r(tok + 7, ",", &s2); one && n < max;
		     one = strtok_r(NULL, ",", &s2)) {
			char *d = strchr(one, '$');

			if (!d)
				continue;
			*d = '\0';
			if (cxu_parse_size(one, &r[n].size) || cxu_parse_size(d + 1, &r[n].start))
				continue;
			n++;
		}
	}
	return n;
}

/**
 * cmd_acpi_tables() - the acpi-tables verb.
 * @argc, @argv: [--out FILE] [--range SIZE@ADDR]... [--preset NAME] [--json]
 * @ctx:	--json given before the verb.
 *
 * Return: EXIT_OK, EXIT_ERR (no SRAT, an HMAT exists, a range is not
 * 2 MiB aligned, the file cannot be written) or EXIT_USAGE.
 */
int cmd_acpi_tables(int argc, char **argv, struct verb_ctx *ctx)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "range", required_argument, NULL, 'r' },
		{ "preset", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static uint8_t srat_out[ACPI_TABLE_MAX], hmat[ACPI_TABLE_MAX];
	struct acpi_range r[HMAT_MAX_RANGES];
	const char *out = "cxdvirt-acpi.cpio", *preset = "znand";
	const char *sys = cxu_env_or("CXDVIRT_SYS", "/sys");
	const char *proc = cxu_env_or("CXDVIRT_PROC", "/proc");
	uint64_t rlat, wlat, rbw, wbw, dies;
	const struct cxd_preset *p;
	const struct cxd_nand_cfg *c;
	uint32_t cpu[HMAT_MAX_PXM];
	char path[PATH_MAX], why[256], cmdline[4096];
	uint8_t *srat = NULL;
	size_t srat_len = 0, slen, hlen;
	bool json = ctx->json;
	int nr = 0, ncpu, i, err, ch;
	struct stat st;
	FILE *f;

	while ((ch = getopt_long(argc, argv, "o:r:p:jh", opts, NULL)) != -1) {
		char *at;

		switch (ch) {
		case 'o': out = optarg; break;
		case 'p': preset = optarg; break;
		case 'j': json = true; break;
		case 'h': verb_help("acpi-tables"); return EXIT_OK;
		case 'r':
			at = strchr(optarg, '@');
			if (!at || nr == HMAT_MAX_RANGES)
				return cxu_usage_err("acpi-tables", "--range wants SIZE@ADDR (at most %d)",
						     HMAT_MAX_RANGES);
			*at = '\0';
			if (cxu_parse_size(optarg, &r[nr].size) || cxu_parse_size(at + 1, &r[nr].start) ||
			    !r[nr].size)
				return cxu_usage_err("acpi-tables", "bad --range '%s@%s'", optarg, at + 1);
			nr++;
			break;
		default: return cxu_usage_err("acpi-tables", NULL);
		}
	}
	if (optind < argc)
		return cxu_usage_err("acpi-tables", "unexpected argument '%s'", argv[optind]);
	p = cxd_preset_find(preset);
	if (!p)
		return cxu_usage_err("acpi-tables", "unknown preset '%s' (%s)", preset,
				     preset_names());
	if (!nr) {
		snprintf(path, sizeof(path), "%s/cmdline", proc);
		if (cxu_read_file(path, cmdline, sizeof(cmdline))) {
			cxu_err("acpi-tables: cannot read %s; give --range SIZE@ADDR", path);
			return EXIT_ERR;
		}
		nr = ranges_from_cmdline(cmdline, r, HMAT_MAX_RANGES);
		if (!nr) {
			cxu_err("acpi-tables: no memmap=SIZE$ADDR on the kernel command line; reserve a range first (docs/install.md) or give --range SIZE@ADDR");
			return EXIT_ERR;
		}
	}
	for (i = 0; i < nr; i++)
		if (r[i].start % (2u << 20) || r[i].size % (2u << 20)) {
			cxu_err("acpi-tables: range 0x%" PRIx64 "+0x%" PRIx64 " is not 2 MiB aligned",
				r[i].start, r[i].size);
			return EXIT_ERR;
		}

	snprintf(path, sizeof(path), "%s/firmware/acpi/tables/HMAT", sys);
	if (!stat(path, &st)) {
		cxu_err("acpi-tables: this machine has an HMAT already; merging into it is not implemented");
		return EXIT_ERR;
	}
	snprintf(path, sizeof(path), "%s/firmware/acpi/tables/SRAT", sys);
	err = read_table(path, &srat, &srat_len);
	if (err) {
		cxu_err("acpi-tables: cannot read the SRAT %s: %s%s", path, strerror(-err),
			err == -EACCES ? " (run as root)" : err == -ENOENT ?
			" (no SRAT: the firmware describes no NUMA; an SRAT from scratch is not implemented)" : "");
		return EXIT_ERR;
	}
	if (memcmp(srat, "SRAT", 4) || srat_len < SRAT_HDR_LEN) {
		free(srat);
		cxu_err("acpi-tables: %s is not an SRAT", path);
		return EXIT_ERR;
	}
	slen = srat_build(srat, srat_len, r, nr, srat_out, cpu, &ncpu, why, sizeof(why));
	if (!slen) {
		free(srat);
		cxu_err("acpi-tables: %s", why);
		return EXIT_ERR;
	}

	/*
	 * The modeled device: unloaded read = tR + one page's transfer (the
	 * miss latency of docs/model.md), write = tPROG + transfer; bandwidth
	 * = the lesser of the channels' and the dies' (one page per tR or
	 * tPROG per die and plane).
	 */
	c = &p->nand;
	rlat = c->t_read_ns + cxd_nand_xfer_ns(c);
	wlat = c->t_prog_ns + cxd_nand_xfer_ns(c);
	dies = (uint64_t)c->channels * c->dies_per_channel * c->planes_per_die;
	rbw = (uint64_t)c->channels * c->channel_mbps;
	wbw = rbw;
	if (c->t_read_ns && dies * c->nand_page_size * 1000 / c->t_read_ns < rbw)
		rbw = dies * c->nand_page_size * 1000 / c->t_read_ns;
	if (c->t_prog_ns && dies * c->nand_page_size * 1000 / c->t_prog_ns < wbw)
		wbw = dies * c->nand_page_size * 1000 / c->t_prog_ns;
	/* The values as the 16-bit HMAT entries can hold them. */
	hmat_lat_ns(&rlat);
	hmat_lat_ns(&wlat);
	hmat_bw(&rbw);
	hmat_bw(&wbw);
	hlen = hmat_build(srat, hmat, cpu, ncpu, r, nr, rlat, wlat, rbw, wbw);
	free(srat);

	f = fopen(out, "we");
	if (!f) {
		cxu_err("acpi-tables: %s: %s", out, strerror(errno));
		return EXIT_ERR;
	}
	if (cpio_entry(f, "kernel", NULL, 0, 1) ||
	    cpio_entry(f, "kernel/firmware", NULL, 0, 2) ||
	    cpio_entry(f, "kernel/firmware/acpi", NULL, 0, 3) ||
	    cpio_entry(f, "kernel/firmware/acpi/SRAT.aml", srat_out, slen, 4) ||
	    cpio_entry(f, "kernel/firmware/acpi/HMAT.aml", hmat, hlen, 5) ||
	    cpio_entry(f, "TRAILER!!!", NULL, 0, 0) || fclose(f)) {
		cxu_err("acpi-tables: writing %s failed", out);
		return EXIT_ERR;
	}

	if (json) {
		struct json_object *o = json_object_new_object(), *a = json_object_new_array();

		json_object_object_add(o, "out", json_object_new_string(out));
		json_object_object_add(o, "preset", json_object_new_string(p->name));
		json_object_object_add(o, "read_latency_ns", json_object_new_int64(rlat));
		json_object_object_add(o, "write_latency_ns", json_object_new_int64(wlat));
		json_object_object_add(o, "read_bandwidth_mbps", json_object_new_int64(rbw));
		json_object_object_add(o, "write_bandwidth_mbps", json_object_new_int64(wbw));
		for (i = 0; i < nr; i++) {
			struct json_object *d = json_object_new_object();

			json_object_object_add(d, "proximity_domain", json_object_new_int64(r[i].pxm));
			json_object_object_add(d, "start", json_object_new_int64(r[i].start));
			json_object_object_add(d, "size", json_object_new_int64(r[i].size));
			json_object_array_add(a, d);
		}
		json_object_object_add(o, "domains", a);
		show_print(o, true);
		json_object_put(o);
		return EXIT_OK;
	}
	printf("%s: SRAT (%zu bytes) and HMAT (%zu bytes)\n", out, slen, hlen);
	for (i = 0; i < nr; i++)
		printf("  proximity domain %u: [0x%" PRIx64 "-0x%" PRIx64 "], hot-pluggable, memory only\n",
		       r[i].pxm, r[i].start, r[i].start + r[i].size - 1);
	printf("  %s: read latency %" PRIu64 " ns, write latency %" PRIu64
	       " ns, read bandwidth %" PRIu64 " MB/s, write bandwidth %" PRIu64 " MB/s\n",
	       p->name, rlat, wlat, rbw, wbw);
	printf("Boot with it in front of the initrd (docs/numa-mode.md), e.g. on Debian:\n"
	       "  cp %s /boot/cxdvirt-acpi.cpio; then GRUB_EARLY_INITRD_LINUX_CUSTOM=cxdvirt-acpi.cpio\n"
	       "  in /etc/default/grub, update-grub, reboot\n", out);
	return EXIT_OK;
}
