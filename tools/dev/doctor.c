// SPDX-License-Identifier: GPL-2.0
/*
 * cxdvirt-dev doctor: check the host for cxdvirt and for the settings that
 * change what a measurement means. Reads only; changes nothing.
 *
 * Every check reports ok, warn, fail or info, what it found and, for a
 * problem, the command that fixes it. Exit status: 0 no problem, 1 at
 * least one fail, 2 warnings only.
 *
 * Roots (so the checks run against a fake tree, tests/tools/test-doctor.sh):
 * CXDVIRT_PROC (/proc), CXDVIRT_SYS (/sys), CXDVIRT_MODULES
 * (/lib/modules/<osrelease>), CXDVIRT_MEMORY_SYSFS (<sys>/devices/system/
 * memory). Sources of the rules: Documentation/admin-guide/
 * kernel-parameters.txt (memmap=), arch/x86/kernel/e820.c
 * (parse_memmap_one(): a size with no or an unknown separator limits RAM),
 * drivers/firmware/memmap.c (/sys/firmware/memmap is the firmware's map,
 * before memmap= changes it), Documentation/admin-guide/mm/
 * memory-hotplug.rst (auto_online_blocks, block_size_bytes).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cxdvirt-dev.h"

#define SZ_2M		(2ull << 20)
#define DOC_MAX_NODES	1024
#define DOC_MAX_RANGES	4096

enum doc_status { DOC_OK, DOC_INFO, DOC_WARN, DOC_FAIL };

static const char * const doc_status_name[] = {
	[DOC_OK] = "ok", [DOC_INFO] = "info", [DOC_WARN] = "warn",
	[DOC_FAIL] = "fail",
};

/**
 * struct doctor - the state of one run.
 * @json:	print JSON at the end instead of text as it goes.
 * @checks:	the JSON array of results.
 * @fails:	checks that failed.
 * @warns:	checks that warned.
 * @proc:	proc root.
 * @sys:	sysfs root.
 * @moddir:	the running kernel's modules directory.
 * @mem:	memory hotplug directory.
 * @kver:	running kernel release ("" if unknown).
 * @ko:		path of the installed cxdvirt.ko ("" if none).
 */
struct doctor {
	bool json;
	struct json_object *checks;
	int fails;
	int warns;
	const char *proc;
	const char *sys;
	char moddir[PATH_MAX];
	char mem[PATH_MAX];
	char kver[256];
	char ko[PATH_MAX];
};

/* Print (text) or record (JSON) one result; @fix may be NULL. */
static void __attribute__((format(printf, 5, 6)))
report(struct doctor *d, const char *name, enum doc_status st,
       const char *fix, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (st == DOC_FAIL)
		d->fails++;
	else if (st == DOC_WARN)
		d->warns++;
	if (d->json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "status",
				       json_object_new_string(doc_status_name[st]));
		json_object_object_add(o, "message", json_object_new_string(msg));
		if (fix)
			json_object_object_add(o, "fix", json_object_new_string(fix));
		json_object_array_add(d->checks, o);
		return;
	}
	printf("%-4s  %-22s %s\n", st == DOC_FAIL ? "FAIL" : doc_status_name[st],
	       name, msg);
	if (fix && st != DOC_OK)
		printf("      %-22s fix: %s\n", "", fix);
}

/* @root/@rel in @buf; "" (no such file) if it does not fit. */
static const char *root_path(char *buf, size_t len, const char *root,
			     const char *rel)
{
	if (snprintf(buf, len, "%s/%s", root, rel) >= (int)len)
		buf[0] = '\0';
	return buf;
}

/* A small file under @root, trailing newline dropped. Return: 0 or -errno. */
static int rd(const char *root, const char *rel, char *buf, size_t len)
{
	char p[PATH_MAX];

	buf[0] = '\0';
	return cxu_read_file(root_path(p, sizeof(p), root, rel), buf, len);
}

/* A whole file (iomem, modules.dep). Return: malloc'd NUL-terminated or NULL. */
static char *slurp(const char *path)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	FILE *f;
	size_t r;

	if (!buf)
		return NULL;
	f = fopen(path, "re");
	if (!f) {
		free(buf);
		return NULL;
	}
	while ((r = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += r;
		if (len + 1 == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static bool exists(const char *root, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	return !stat(root_path(p, sizeof(p), root, rel), &st);
}

/*
 * memparse() as the kernel does it: a number (0x hex, 0 octal, decimal)
 * then an optional K M G T P E suffix. Return: the end of what was parsed
 * (== @s if nothing was).
 */
static const char *memparse(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (end == s || errno)
		return s;
	switch (*end) {
	case 'E': case 'e': v <<= 10; /* fall through */
	case 'P': case 'p': v <<= 10; /* fall through */
	case 'T': case 't': v <<= 10; /* fall through */
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; end++; break;
	default: break;
	}
	*out = v;
	return end;
}

/* ------------------------------------------------------------ module -- */

/* Is the module file at @path signed (the appended signature marker)? */
static int ko_signed(const char *path)
{
	static const char marker[] = "~Module signature appended~\n";
	char tail[sizeof(marker) - 1];
	FILE *f = fopen(path, "re");
	int ret = -1;

	struct stat st;

	if (!f)
		return -1;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode))
		ret = -1;
	else if (st.st_size < (off_t)sizeof(tail))
		ret = 0;	/* too short to carry a signature */
	else if (!fseek(f, -(long)sizeof(tail), SEEK_END) &&
		 fread(tail, 1, sizeof(tail), f) == sizeof(tail))
		ret = !memcmp(tail, marker, sizeof(tail));
	fclose(f);
	return ret;
}

/* Find the line of module @name (e.g. "kmem") in modules.dep or .builtin. */
static bool mod_listed(const char *text, const char *name, char *path,
		       size_t len)
{
	const char *p = text;
	size_t n = strlen(name);

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		const char *colon = strchr(p, ':');
		const char *end = colon && (!eol || colon < eol) ? colon :
				  eol ? eol : p + strlen(p);
		const char *base = end;

		while (base > p && base[-1] != '/')
			base--;
		/* NAME.ko, or compressed: NAME.ko.xz, .zst, .gz */
		if ((size_t)(end - base) >= n + 3 && !strncmp(base, name, n) &&
		    !strncmp(base + n, ".ko", 3) &&
		    ((size_t)(end - base) == n + 3 || base[n + 3] == '.')) {
			if (path)
				snprintf(path, len, "%.*s", (int)(end - p), p);
			return true;
		}
		p = eol ? eol + 1 : NULL;
	}
	return false;
}

/*
 * configfs: mounted; else registered (/proc/filesystems: mount it), or a
 * module of this kernel (loading cxdvirt loads it), or missing from the
 * kernel (nothing to mount: the advice is another kernel). @dep: the
 * text of modules.dep, or NULL.
 */
static void check_configfs(struct doctor *d, const char *dep)
{
	char p[PATH_MAX], *mounts, *fs, *builtin;

	mounts = slurp(root_path(p, sizeof(p), d->proc, "mounts"));
	fs = slurp(root_path(p, sizeof(p), d->proc, "filesystems"));
	builtin = slurp(root_path(p, sizeof(p), d->moddir, "modules.builtin"));
	if (mounts && strstr(mounts, " configfs "))
		report(d, "configfs", DOC_OK, NULL, "configfs is mounted");
	else if (!fs || strstr(fs, "\tconfigfs\n") ||
		 (builtin && mod_listed(builtin, "configfs", NULL, 0)))
		report(d, "configfs", DOC_FAIL,
		       "mount -t configfs configfs /sys/kernel/config",
		       "configfs is not mounted: devices cannot be created");
	else if (dep && mod_listed(dep, "configfs", NULL, 0))
		report(d, "configfs", DOC_FAIL,
		       "modprobe configfs (modprobe cxdvirt loads it too), then mount -t configfs configfs /sys/kernel/config",
		       "configfs is not loaded (not in /proc/filesystems): devices cannot be created");
	else
		report(d, "configfs", DOC_FAIL,
		       "boot a kernel with CONFIG_CONFIGFS_FS (Debian's have it)",
		       "this kernel has no configfs (not in /proc/filesystems, not a module): cxdvirt cannot be configured");
	free(mounts);
	free(fs);
	free(builtin);
}

static void check_module(struct doctor *d)
{
	char buf[256], p[PATH_MAX], rel[PATH_MAX], fix[512];
	bool loaded = exists(d->sys, "module/cxdvirt");
	bool enforce = false, lockdown = false;
	char *dep;
	int sig;

	dep = slurp(root_path(p, sizeof(p), d->moddir, "modules.dep"));
	d->ko[0] = '\0';
	if (dep && mod_listed(dep, "cxdvirt", rel, sizeof(rel))) {
		root_path(d->ko, sizeof(d->ko), d->moddir, rel);
		report(d, "module.installed", DOC_OK, NULL, "%s", d->ko);
	} else if (loaded) {
		report(d, "module.installed", DOC_WARN,
		       "make install (or: make dkms && dkms install -m cxdvirt -v " CXDVIRT_VERSION ")",
		       "cxdvirt is loaded but not installed for %s (%s): it will not load after a reboot",
		       d->kver, dep ? "not in modules.dep" : "no modules.dep");
	} else {
		report(d, "module.installed", DOC_FAIL,
		       "make install (or: make dkms && dkms install -m cxdvirt -v " CXDVIRT_VERSION ")",
		       "cxdvirt.ko is not installed for kernel %s (%s)", d->kver,
		       dep ? "not in modules.dep" : "no modules.dep");
	}

	/* Loadable: module support, module loading on, then signatures. */
	if (!exists(d->proc, "modules")) {
		report(d, "module.loadable", DOC_FAIL,
		       "boot a kernel with loadable modules (CONFIG_MODULES=y, e.g. Debian's linux-image-amd64); make check tests the module in a QEMU guest on such a kernel",
		       "this kernel has no loadable module support (no /proc/modules): cxdvirt cannot be loaded");
	} else if (!rd(d->proc, "sys/kernel/modules_disabled", buf, sizeof(buf)) &&
		   !strcmp(buf, "1")) {
		report(d, "module.loadable", loaded ? DOC_INFO : DOC_FAIL,
		       "remove kernel.modules_disabled=1 from /etc/sysctl.conf and /etc/sysctl.d/, then reboot",
		       "module loading is disabled until reboot (kernel.modules_disabled = 1)%s",
		       loaded ? "; cxdvirt was loaded before" : "");
	} else {
		if (!rd(d->sys, "module/module/parameters/sig_enforce", buf,
			sizeof(buf)) && !strcmp(buf, "Y"))
			enforce = true;
		if (!rd(d->sys, "kernel/security/lockdown", buf, sizeof(buf)) &&
		    !strstr(buf, "[none]") && strchr(buf, '['))
			lockdown = true;
		/* A compressed module's signature is inside: cannot tell. */
		sig = d->ko[0] && !strcmp(d->ko + strlen(d->ko) - 3, ".ko") ?
		      ko_signed(d->ko) : -1;
		snprintf(fix, sizeof(fix),
			 "install through DKMS, which signs with /var/lib/dkms/mok.key (enroll once: mokutil --import /var/lib/dkms/mok.pub), or sign it: /usr/lib/linux-kbuild-*/scripts/sign-file sha256 MOK.priv MOK.der %s",
			 d->ko[0] ? d->ko : "cxdvirt.ko");
		if ((enforce || lockdown) && sig == 0 && !loaded)
			report(d, "module.loadable", DOC_FAIL, fix,
			       "the kernel loads only signed modules (%s) and %s is unsigned",
			       enforce ? "module.sig_enforce" : "lockdown", d->ko);
		else if ((enforce || lockdown) && sig < 0 && !loaded)
			report(d, "module.loadable", DOC_WARN, fix,
			       "the kernel loads only signed modules (%s); cannot tell whether cxdvirt.ko is signed",
			       enforce ? "module.sig_enforce" : "lockdown");
		else
			report(d, "module.loadable", DOC_OK, NULL,
			       "module loading allowed%s%s",
			       enforce || lockdown ? ", signatures enforced" : "",
			       enforce || lockdown ? (sig > 0 ? ", cxdvirt.ko signed" :
						      loaded ? ", cxdvirt loaded" : "") : "");
	}

	if (loaded)
		report(d, "module.loaded", DOC_OK, NULL, "cxdvirt is loaded");
	else
		report(d, "module.loaded", DOC_WARN, "modprobe cxdvirt",
		       "cxdvirt is not loaded");

	check_configfs(d, dep);
	free(dep);
}

/* ------------------------------------------------------------ memmap -- */

struct range {
	uint64_t start;
	uint64_t end;		/* inclusive */
	char name[64];
};

/* Top-level entries of /proc/iomem. Return: count, -1 if unreadable. */
static int iomem_ranges(struct doctor *d, struct range *r, int max,
			bool *zeroed)
{
	char p[PATH_MAX];
	char *text = slurp(root_path(p, sizeof(p), d->proc, "iomem"));
	char *line, *save = NULL;
	int n = 0;

	*zeroed = true;
	if (!text)
		return -1;
	for (line = strtok_r(text, "\n", &save); line && n < max;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long s, e;
		int off = 0;

		if (line[0] == ' ')
			continue;	/* a child: only top-level entries */
		if (sscanf(line, "%llx-%llx : %n", &s, &e, &off) != 2 || !off)
			continue;
		r[n].start = s;
		r[n].end = e;
		snprintf(r[n].name, sizeof(r[n].name), "%s", line + off);
		if (s || e)
			*zeroed = false;
		n++;
	}
	free(text);
	return n;
}

/* /sys/firmware/memmap/N/{start,end,type}. Return: count. */
static int firmware_ranges(struct doctor *d, struct range *r, int max)
{
	char p[PATH_MAX], b[64];
	struct dirent *de;
	DIR *dir;
	int n = 0;

	dir = opendir(root_path(p, sizeof(p), d->sys, "firmware/memmap"));
	if (!dir)
		return 0;
	while ((de = readdir(dir)) && n < max) {
		char rel[300];

		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "firmware/memmap/%s/start", de->d_name);
		if (rd(d->sys, rel, b, sizeof(b)))
			continue;
		r[n].start = strtoull(b, NULL, 0);
		snprintf(rel, sizeof(rel), "firmware/memmap/%s/end", de->d_name);
		if (rd(d->sys, rel, b, sizeof(b)))
			continue;
		r[n].end = strtoull(b, NULL, 0);
		snprintf(rel, sizeof(rel), "firmware/memmap/%s/type", de->d_name);
		if (rd(d->sys, rel, r[n].name, sizeof(r[n].name)))
			continue;
		n++;
	}
	closedir(dir);
	return n;
}

/*
 * Bytes of [s, e] covered by the ranges of @r named @name (prefix match,
 * case-insensitive; NULL: any name).
 */
static uint64_t covered(const struct range *r, int n, const char *name,
			uint64_t s, uint64_t e)
{
	uint64_t sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		uint64_t a = r[i].start > s ? r[i].start : s;
		uint64_t b = r[i].end < e ? r[i].end : e;

		if (a > b)
			continue;
		if (name && strncasecmp(r[i].name, name, strlen(name)))
			continue;
		sum += b - a + 1;
	}
	return sum;
}

static const char *first_overlap(const struct range *r, int n, uint64_t s,
				 uint64_t e, const char *not_name)
{
	int i;

	for (i = 0; i < n; i++)
		if (r[i].start <= e && r[i].end >= s &&
		    strncasecmp(r[i].name, not_name, strlen(not_name)))
			return r[i].name;
	return NULL;
}

#define GRUB_FIX "in /etc/default/grub write the $ as \\\\\\$ (GRUB_CMDLINE_LINUX=\"memmap=4G\\\\\\$0x100000000\"), then update-grub and reboot"

static void check_one_memmap(struct doctor *d, const char *arg,
			     const struct range *io, int nio, bool io_zeroed,
			     const struct range *fw, int nfw, uint64_t block)
{
	uint64_t size, addr, end;
	const char *p = memparse(arg, &size), *q, *what;
	char fix[256];

	if (!strcmp(arg, "exactmap")) {
		report(d, "memmap", DOC_INFO, NULL,
		       "memmap=exactmap: the whole map is user-defined");
		return;
	}
	if (p == arg) {
		report(d, "memmap", DOC_FAIL, GRUB_FIX,
		       "memmap=%s: not a size; the kernel ignores it", arg);
		return;
	}
	if (!*p) {
		report(d, "memmap", DOC_FAIL, GRUB_FIX,
		       "memmap=%s has no address: the kernel limited RAM to %s instead of reserving a range (GRUB expanded '$ADDR' as a variable)",
		       arg, arg);
		return;
	}
	if (!strchr("$!#@%", *p)) {
		report(d, "memmap", DOC_FAIL, GRUB_FIX,
		       "memmap=%s: the '$' between size and address is lost (GRUB), so the kernel limited RAM to %.*s and reserved nothing",
		       arg, (int)(p - arg), arg);
		return;
	}
	if (*p != '$') {
		report(d, "memmap", DOC_INFO, NULL,
		       "memmap=%s: not a reservation (%s); cxdvirt uses memmap=SIZE$ADDR ranges",
		       arg, *p == '!' ? "a pmem range" : *p == '#' ? "ACPI data" :
		       *p == '@' ? "usable RAM" : "a type change");
		return;
	}
	q = memparse(p + 1, &addr);
	if (q == p + 1 || *q || !size) {
		report(d, "memmap", DOC_FAIL, GRUB_FIX,
		       "memmap=%s: the address is not a number; the kernel rejects it", arg);
		return;
	}
	end = addr + size - 1;

	if (addr % SZ_2M || size % SZ_2M)
		report(d, "memmap.align", DOC_FAIL,
		       "choose a size and an address that are multiples of 2M",
		       "memmap=%s: [0x%" PRIx64 "-0x%" PRIx64 "] is not 2 MiB aligned: devdax phys_addr needs 2 MiB",
		       arg, addr, end);
	else if (block && (addr % block || size % block)) {
		snprintf(fix, sizeof(fix),
			 "for node mode, choose a size and an address that are multiples of 0x%" PRIx64, block);
		report(d, "memmap.align", DOC_WARN, fix,
		       "memmap=%s: 2 MiB aligned (devdax), but not to the memory block size 0x%" PRIx64 " that node mode needs",
		       arg, block);
	} else
		report(d, "memmap.align", DOC_OK, NULL,
		       "memmap=%s: aligned to 2 MiB and to the memory block size", arg);

	if (nio < 0)
		report(d, "memmap.iomem", DOC_WARN, NULL,
		       "memmap=%s: /proc/iomem cannot be read", arg);
	else if (io_zeroed)
		report(d, "memmap.iomem", DOC_WARN, "sudo cxdvirt-dev doctor",
		       "memmap=%s: /proc/iomem shows no addresses to this user: run as root to check the reservation",
		       arg);
	else if (covered(io, nio, "System RAM", addr, end))
		report(d, "memmap.iomem", DOC_FAIL,
		       "check 'dmesg | grep -i -e e820 -e memmap': the kernel may sit inside the range (choose one above it) or the option did not apply",
		       "memmap=%s: [0x%" PRIx64 "-0x%" PRIx64 "] is System RAM in /proc/iomem, not reserved",
		       arg, addr, end);
	else if (covered(io, nio, "Reserved", addr, end) == size)
		report(d, "memmap.iomem", DOC_OK, NULL,
		       "memmap=%s: reserved in /proc/iomem", arg);
	else {
		what = first_overlap(io, nio, addr, end, "Reserved");
		report(d, "memmap.iomem", DOC_FAIL,
		       "choose a range of usable RAM (see /sys/firmware/memmap) that no device uses",
		       "memmap=%s: [0x%" PRIx64 "-0x%" PRIx64 "] is not all reserved in /proc/iomem%s%s",
		       arg, addr, end, what ? ": it overlaps " : "", what ? what : "");
	}

	if (!nfw)
		report(d, "memmap.e820", DOC_INFO, NULL,
		       "memmap=%s: no firmware map (/sys/firmware/memmap) to check against", arg);
	else if (covered(fw, nfw, "System RAM", addr, end) == size)
		report(d, "memmap.e820", DOC_OK, NULL,
		       "memmap=%s: usable RAM in the firmware's e820 map, so the reservation is memmap='s",
		       arg);
	else
		report(d, "memmap.e820", DOC_FAIL,
		       "choose a range that /sys/firmware/memmap lists as System RAM",
		       "memmap=%s: [0x%" PRIx64 "-0x%" PRIx64 "] is not all usable RAM in the firmware's e820 map (a hole or firmware area): there is no memory to reserve there",
		       arg, addr, end);
}

static void check_memmap(struct doctor *d)
{
	static struct range io[DOC_MAX_RANGES], fw[DOC_MAX_RANGES];
	char cmdline[4096], b[64], *tok, *save = NULL;
	uint64_t block = 0;
	bool zeroed, any = false;
	int nio, nfw;

	if (rd(d->proc, "cmdline", cmdline, sizeof(cmdline))) {
		report(d, "memmap", DOC_WARN, NULL, "cannot read the kernel command line");
		return;
	}
	nio = iomem_ranges(d, io, DOC_MAX_RANGES, &zeroed);
	nfw = firmware_ranges(d, fw, DOC_MAX_RANGES);
	if (!rd(d->mem, "block_size_bytes", b, sizeof(b)))
		block = strtoull(b, NULL, 16);
	for (tok = strtok_r(cmdline, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		char *one, *s2 = NULL;

		if (strncmp(tok, "memmap=", 7))
			continue;
		/* memmap=a,b is two entries (parse_memmap_opt()). */
		for (one = strtok_r(tok + 7, ",", &s2); one;
		     one = strtok_r(NULL, ",", &s2)) {
			any = true;
			check_one_memmap(d, one, io, nio, zeroed, fw, nfw, block);
		}
	}
	if (!any)
		report(d, "memmap", DOC_INFO, NULL,
		       "no memmap= on the command line: devices use allocated memory (phys_addr 0); node mode and phys_addr need a reserved range");
}

/* ---------------------------------------------------------- node mode -- */

/* Parse a node list "0-3,5" into @set[DOC_MAX_NODES]. */
static void nodelist(const char *s, bool *set)
{
	memset(set, 0, DOC_MAX_NODES * sizeof(*set));
	while (*s) {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return;
		if (*end == '-')
			b = strtoul(end + 1, &end, 10);
		for (; a <= b && a < DOC_MAX_NODES; a++)
			set[a] = true;
		s = *end == ',' ? end + 1 : end;
		if (*s && *s != ',' && (*s < '0' || *s > '9'))
			return;
	}
}

static void check_node(struct doctor *d)
{
	static const char * const mods[] = { "dax_hmem", "device_dax", "kmem" };
	bool possible[DOC_MAX_NODES], mem[DOC_MAX_NODES];
	char b[256], list[512] = "", p[PATH_MAX];
	char *dep, *builtin;
	size_t i, len = 0;

	if (rd(d->sys, "devices/system/node/possible", b, sizeof(b))) {
		report(d, "node.empty", DOC_WARN, NULL, "no NUMA node information (CONFIG_NUMA off?)");
	} else {
		nodelist(b, possible);
		if (rd(d->sys, "devices/system/node/has_memory", b, sizeof(b)))
			b[0] = '\0';
		nodelist(b, mem);
		for (i = 0; i < DOC_MAX_NODES; i++)
			if (possible[i] && !mem[i] && len < sizeof(list) - 16)
				len += snprintf(list + len, sizeof(list) - len,
						"%s%zu", len ? "," : "", i);
		if (len)
			report(d, "node.empty", DOC_OK, NULL,
			       "possible nodes without memory (node mode target_node): %s", list);
		else
			report(d, "node.empty", DOC_WARN,
			       "reserve a range (memmap=SIZE$ADDR), then cxdvirt-dev acpi-tables gives it a node of its own (docs/numa-mode.md)",
			       "no possible NUMA node without memory: node mode has no target_node on this machine (devdax works)");
	}

	dep = slurp(root_path(p, sizeof(p), d->moddir, "modules.dep"));
	builtin = slurp(root_path(p, sizeof(p), d->moddir, "modules.builtin"));
	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		char rel[64], name[64];

		snprintf(rel, sizeof(rel), "module/%s", mods[i]);
		snprintf(name, sizeof(name), "node.%s", mods[i]);
		if (builtin && mod_listed(builtin, mods[i], NULL, 0))
			report(d, name, DOC_OK, NULL, "%s is built in", mods[i]);
		else if (exists(d->sys, rel))
			report(d, name, DOC_OK, NULL, "%s is loaded", mods[i]);
		else if (dep && mod_listed(dep, mods[i], NULL, 0))
			report(d, name, DOC_OK, NULL, "%s is available (modprobe %s)",
			       mods[i], mods[i]);
		else
			report(d, name, DOC_WARN,
			       "use a kernel with CONFIG_DEV_DAX_HMEM, CONFIG_DEV_DAX and CONFIG_DEV_DAX_KMEM (Debian's have them as modules)",
			       "%s is neither built in, loaded nor installed: node mode cannot work", mods[i]);
	}
	free(dep);
	free(builtin);

	if (rd(d->mem, "auto_online_blocks", b, sizeof(b)))
		report(d, "node.auto_online", DOC_INFO, NULL,
		       "no auto_online_blocks (memory hotplug off?)");
	else if (!strcmp(b, "online") || !strcmp(b, "online_kernel"))
		report(d, "node.auto_online", DOC_WARN,
		       "echo offline > /sys/devices/system/memory/auto_online_blocks (or: cxdvirt-dev online --fix-auto-online)",
		       "auto_online_blocks is %s: node-mode memory would go online as kernel memory and might never go offline",
		       b);
	else
		report(d, "node.auto_online", DOC_OK, NULL, "auto_online_blocks is %s", b);
}

/* -------------------------------------------------------- measurement -- */

/* The counter @name in the stats folder @dir: 0, or -1 if unreadable. */
static int stat_u64(const char *dir, const char *name, uint64_t *v)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return cxu_read_u64(path, v) ? -1 : 0;
}

/*
 * Powered devices with a NAND image (nand_backing): was the image slower
 * than the model (stats/io_overruns)? Then the misses took the image's
 * time, not the model's. And has the image had dirty shutdowns
 * (stats/dirty_shutdowns: power_fail, or a host that stopped with the
 * device powered), so that its contents may lack lines written before
 * them? Information, not a problem: a crash-consistency run makes them.
 */
static void check_images(struct doctor *d)
{
	uint64_t over, reads, over_ns, dirty;
	char pat[PATH_MAX];
	size_t i, nimg = 0;
	int warns = d->warns;
	glob_t g;

	snprintf(pat, sizeof(pat), "%s/class/cxdvirt/cxdvirt*/stats", d->sys);
	if (glob(pat, 0, NULL, &g))
		return;
	for (i = 0; i < g.gl_pathc; i++) {
		const char *dir = g.gl_pathv[i];
		const char *name = strstr(dir, "/class/cxdvirt/") + strlen("/class/cxdvirt/");
		int nlen = (int)strcspn(name, "/");

		if (!stat_u64(dir, "dirty_shutdowns", &dirty) && dirty)
			report(d, "nand-image", DOC_INFO, NULL,
			       "%.*s: the NAND image has had %" PRIu64 " dirty shutdown(s) (power_fail, or a host that stopped with the device powered): lines written before them may be missing",
			       nlen, name, dirty);
		if (stat_u64(dir, "io_reads", &reads) || !reads ||
		    stat_u64(dir, "io_overruns", &over))
			continue;	/* no image, or not read yet */
		nimg++;
		if (stat_u64(dir, "io_over_ns", &over_ns))
			over_ns = 0;
		if (over)
			report(d, "nand-image", DOC_WARN,
			       "put the NAND image (nand_backing) on tmpfs or a faster disk, or model a slower NAND; then write 1 to stats/reset",
			       "%.*s: the NAND image was slower than the model on %" PRIu64 " of %" PRIu64 " image reads (by %" PRIu64 " ns on average): those misses took the image's time, not the model's",
			       nlen, name, over, reads, over_ns / over);
	}
	globfree(&g);
	if (nimg && d->warns == warns)
		report(d, "nand-image", DOC_OK, NULL,
		       "%zu device(s) with a NAND image: no read slower than the model", nimg);
}

static void check_measure(struct doctor *d)
{
	char b[256], gov[64], bad[256] = "";
	size_t i, nbad = 0, ncpu = 0, len = 0;
	glob_t g;
	char pat[PATH_MAX];

	if (rd(d->proc, "sys/kernel/numa_balancing", b, sizeof(b)))
		report(d, "numa_balancing", DOC_INFO, NULL, "no NUMA balancing in this kernel");
	else if (strcmp(b, "0"))
		report(d, "numa_balancing", DOC_WARN, "sysctl -w kernel.numa_balancing=0",
		       "NUMA balancing is on (%s): it migrates pages between nodes during a run (node mode) and adds hinting faults",
		       b);
	else
		report(d, "numa_balancing", DOC_OK, NULL, "NUMA balancing is off");

	if (rd(d->sys, "kernel/mm/transparent_hugepage/enabled", b, sizeof(b)))
		report(d, "thp", DOC_INFO, NULL, "no transparent huge pages");
	else if (strstr(b, "[always]"))
		report(d, "thp", DOC_WARN,
		       "echo madvise > /sys/kernel/mm/transparent_hugepage/enabled",
		       "transparent huge pages: always; anon and node-memory baselines get 2 MiB pages (fewer TLB misses) unless asked not to");
	else
		report(d, "thp", DOC_OK, NULL, "transparent huge pages: %s", b);

	if (rd(d->sys, "devices/system/clocksource/clocksource0/current_clocksource",
	       b, sizeof(b)))
		report(d, "clocksource", DOC_INFO, NULL, "clocksource unknown");
	else if (strcmp(b, "tsc"))
		report(d, "clocksource", DOC_WARN,
		       "see 'dmesg | grep -i clocksource' for why the TSC was not chosen; on a machine with an invariant TSC: echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource",
		       "the clocksource is %s, not tsc: every timestamp of a fault and of cxdvirt-bench costs more and is coarser",
		       b);
	else
		report(d, "clocksource", DOC_OK, NULL, "the clocksource is tsc");

	snprintf(pat, sizeof(pat), "%s/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor",
		 d->sys);
	if (glob(pat, 0, NULL, &g)) {
		report(d, "cpufreq", DOC_INFO, NULL,
		       "no CPU frequency scaling (fixed frequency, or a VM)");
	} else {
		for (i = 0; i < g.gl_pathc; i++) {
			ncpu++;
			if (cxu_read_file(g.gl_pathv[i], gov, sizeof(gov)) ||
			    !strcmp(gov, "performance"))
				continue;
			nbad++;
			if (len < sizeof(bad) - 80) {
				const char *c = strstr(g.gl_pathv[i], "/cpu/") + 5;

				len += snprintf(bad + len, sizeof(bad) - len, "%s%.*s=%s",
						len ? " " : "", (int)strcspn(c, "/"), c, gov);
			}
		}
		if (nbad)
			report(d, "cpufreq", DOC_WARN, "cpupower frequency-set -g performance",
			       "%zu of %zu CPUs do not use the performance governor (%s): the same miss takes a varying time",
			       nbad, ncpu, bad);
		else
			report(d, "cpufreq", DOC_OK, NULL,
			       "all %zu CPUs use the performance governor", ncpu);
		globfree(&g);
	}

	snprintf(pat, sizeof(pat), "%s/kernel/iommu_groups/*/type", d->sys);
	if (glob(pat, 0, NULL, &g)) {
		report(d, "iommu", DOC_INFO, NULL, "no IOMMU groups: DMA is not translated");
		return;
	}
	nbad = 0;
	for (i = 0; i < g.gl_pathc; i++)
		if (!cxu_read_file(g.gl_pathv[i], b, sizeof(b)) &&
		    !strncmp(b, "DMA", 3))
			nbad++;
	if (nbad)
		report(d, "iommu", DOC_INFO, NULL,
		       "%zu of %zu IOMMU groups translate DMA: this only matters for device DMA into node-mode memory (iommu=pt on the command line avoids it); CPU accesses are not affected",
		       nbad, g.gl_pathc);
	else
		report(d, "iommu", DOC_OK, NULL, "IOMMU in passthrough (identity) mode");
	globfree(&g);
}

/* ------------------------------------------------------------- verb -- */

/**
 * cmd_doctor() - the doctor verb: run every check, print, set the status.
 * @argc, @argv: the verb's arguments ([--json]).
 * @ctx:	--json given before the verb.
 *
 * Return: EXIT_OK (no problem), EXIT_ERR (a check failed), EXIT_USAGE
 * (warnings only, or a usage error: both say "look at the output").
 */
int cmd_doctor(int argc, char **argv, struct verb_ctx *ctx)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct doctor d = { .json = ctx->json };
	const char *mods;
	int c;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': d.json = true; break;
		case 'h': verb_help("doctor"); return EXIT_OK;
		default: return cxu_usage_err("doctor", NULL);
		}
	}
	if (optind < argc)
		return cxu_usage_err("doctor", "unexpected argument '%s'", argv[optind]);

	d.proc = cxu_env_or("CXDVIRT_PROC", "/proc");
	d.sys = cxu_env_or("CXDVIRT_SYS", "/sys");
	if (rd(d.proc, "sys/kernel/osrelease", d.kver, sizeof(d.kver)))
		snprintf(d.kver, sizeof(d.kver), "(unknown)");
	mods = getenv("CXDVIRT_MODULES");
	if (mods && *mods)
		snprintf(d.moddir, sizeof(d.moddir), "%s", mods);
	else
		snprintf(d.moddir, sizeof(d.moddir), "/lib/modules/%s", d.kver);
	if (getenv("CXDVIRT_MEMORY_SYSFS"))
		snprintf(d.mem, sizeof(d.mem), "%s", cxu_memory_root());
	else
		snprintf(d.mem, sizeof(d.mem), "%s/devices/system/memory", d.sys);
	if (d.json)
		d.checks = json_object_new_array();
	else
		printf("cxdvirt-dev doctor: kernel %s\n", d.kver);

	check_module(&d);
	check_memmap(&d);
	check_node(&d);
	check_measure(&d);
	check_images(&d);

	if (d.json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "kernel", json_object_new_string(d.kver));
		json_object_object_add(o, "checks", d.checks);
		json_object_object_add(o, "failures", json_object_new_int(d.fails));
		json_object_object_add(o, "warnings", json_object_new_int(d.warns));
		show_print(o, true);
		json_object_put(o);
	} else {
		printf("%d failure%s, %d warning%s\n", d.fails, d.fails == 1 ? "" : "s",
		       d.warns, d.warns == 1 ? "" : "s");
	}
	if (d.fails)
		return EXIT_ERR;
	return d.warns ? EXIT_USAGE : EXIT_OK;
}
