#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# cxdvirt-dev against a fake configfs/sysfs tree in a temporary directory.
# Prints TAP; exits non-zero if any test fails.
#
# The fake kernel: a small LD_PRELOAD library (built here) sends mkdir,
# rmdir and write() under the fake roots to the bash function fake_kernel
# (this script, run as a hook), which does what the module would: a new
# directory gets its attribute files and an index; power=1 makes the sysfs
# directory, power=0 removes it (EBUSY while a .busy marker exists); a
# capacity that is not a multiple of 2M fails with EINVAL and a kernel log
# line, and so (without a line) does cache_size > capacity; stats/reset
# zeroes the counters. A device with mode=node gets the node-mode sysfs
# files on power=1 (dax device daxN.0, offline), and power=0 fails with
# EBUSY while a .online marker exists. auto_online_blocks lives in a fake
# memory directory (CXDVIRT_MEMORY_SYSFS). Kernel log lines go to a fake
# kernel log, a file in /dev/kmsg's record format ("6,SEQ,USEC,-;text");
# the preload sends the tool's open() of /dev/kmsg there and reads it one
# record per read(), like the device, so the tool's "(kernel: ...)" reason
# is checked without writing into the host's kernel log.
#
# Usage: tests/tools/test-dev.sh [path/to/cxdvirt-dev]

set -u

# ------------------------------------------------------------ fake kernel --
# Called by the preload library as: test-dev.sh --hook OP PATH [VALUE].
# Exit status 0 = success, else the errno to fail with.
fake_kernel() {
	local op=$1 path=$2 val=${3-} dev attr idx i
	case "$op" in
	mkdir)
		[ -e "$path" ] && return 17	# EEXIST
		dev=${path##*/}
		idx=0
		for i in "$CXDVIRT_CONFIGFS"/*/index; do
			[ -f "$i" ] || continue
			[ "$(cat "$i")" -ge "$idx" ] && idx=$(($(cat "$i") + 1))
		done
		mkdir "$path" || return 5
		printf '%s\n' 67108864 >"$path/capacity"
		printf '%s\n' 8388608 >"$path/cache_size"
		printf '%s\n' -1 >"$path/backing_node"
		printf '%s\n' 0 >"$path/phys_addr"
		printf '%s\n' 8 >"$path/channels"
		printf '%s\n' 4 >"$path/dies_per_channel"
		printf '%s\n' 4096 >"$path/nand_page_size"
		printf '%s\n' 3000 >"$path/t_read_ns"
		printf '%s\n' 100000 >"$path/t_prog_ns"
		printf '%s\n' 1200 >"$path/channel_mbps"
		printf '%s\n' 1 >"$path/planes_per_die"
		printf '%s\n' 0 >"$path/pages_per_block"
		printf '%s\n' 1000000 >"$path/t_bers_ns"
		printf '%s\n' exact >"$path/xfer_model"
		printf '%s\n' channel >"$path/stripe"
		printf '%s\n' 0 >"$path/mshr"
		printf '%s\n' 0 >"$path/ctrl_ns"
		printf '%s\n' 0 >"$path/link_mbps"
		printf '%s\n' fifo >"$path/policy"
		printf '%s\n' devdax >"$path/mode"
		printf '%s\n' -1 >"$path/target_node"
		printf '%s\n' "znand femu tlc cmmh" >"$path/preset"
		printf '%s\n' "$idx" >"$path/index"
		printf '%s\n' 0 >"$path/power"
		printf '%s\n' "capacity cache_size backing_node phys_addr channels dies_per_channel nand_page_size t_read_ns t_prog_ns channel_mbps planes_per_die pages_per_block t_bers_ns xfer_model stripe mshr ctrl_ns link_mbps policy preset mode target_node index power" >"$path/features"
		return 0 ;;
	rmdir)
		[ -e "$path/.busy" ] && return 16	# EBUSY
		[ "$(cat "$path/power")" = 1 ] && return 16
		rm -f "$path"/*
		return 0 ;;
	write)
		case "$path" in
		"$CXDVIRT_SYSFS"/*/stats/reset)
			for i in "${path%/reset}"/*; do
				case "$i" in
				*/reset) ;;
				*/miss_latency_hist) : >"$i" ;;
				*) echo 0 >"$i" ;;
				esac
			done
			return 0 ;;
		esac
		dev=${path%/*}
		dev=${dev##*/}
		attr=${path##*/}
		case "$attr" in
		capacity)
			if [ $((val % 2097152)) -ne 0 ]; then
				kernel_log "cxdvirt: $dev: capacity: $val is not a multiple of 2M"
				return 22	# EINVAL
			fi
			[ "$val" -lt "$(cat "${path%/*}/cache_size")" ] && return 22 ;;
		cache_size)
			[ "$val" -gt "$(cat "${path%/*}/capacity")" ] && return 22 ;;
		mode)
			case "$val" in devdax|node) ;; *) return 22 ;; esac ;;
		power)
			idx=$(cat "${path%/*}/index")
			if [ "$val" = 1 ]; then
				mkdir -p "$CXDVIRT_SYSFS/cxdvirt$idx/stats"
				echo "$dev" >"$CXDVIRT_SYSFS/cxdvirt$idx/name"
				echo 4096 >"$CXDVIRT_SYSFS/cxdvirt$idx/cache_used"
				echo 3 >"$CXDVIRT_SYSFS/cxdvirt$idx/image_pages"
				for i in misses:7 minor_hits:2 evictions:1 dirty_evictions:0 \
					 writebacks:0 miss_ns_total:43624 model_ns_total:42000 reset:; do
					echo "${i#*:}" >"$CXDVIRT_SYSFS/cxdvirt$idx/stats/${i%%:*}"
				done
				printf '4096 5\n8192 2\n' >"$CXDVIRT_SYSFS/cxdvirt$idx/stats/miss_latency_hist"
				if [ "$(cat "${path%/*}/mode")" = node ]; then
					for i in mode:node "target_node:$(cat "${path%/*}/target_node")" \
						 "dax_device:dax99.$idx" adistance:37440 online:offline \
						 online_bytes:0 movable_bytes:0 node_used_bytes:0; do
						echo "${i#*:}" >"$CXDVIRT_SYSFS/cxdvirt$idx/${i%%:*}"
					done
				fi
			else
				[ -e "${path%/*}/.busy" ] && return 16
				[ -e "${path%/*}/.online" ] && return 16
				rm -rf "${CXDVIRT_SYSFS:?}/cxdvirt$idx"
			fi ;;
		esac
		return 0 ;;
	esac
	return 22
}

kernel_log() {	# one record in the fake kernel log
	local seq
	seq=$(wc -l <"$FAKE_KMSG")
	printf '6,%d,%d,-;%s (fake kernel of test-dev.sh)\n' "$seq" "$((seq * 1000))" \
		"$1" >>"$FAKE_KMSG"
}

if [ "${1-}" = --hook ]; then
	shift
	fake_kernel "$@"
	exit $?
fi

# ------------------------------------------------------------------ setup --
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SELF="$HERE/$(basename "${BASH_SOURCE[0]}")"
TOP=$(cd "$HERE/../.." && pwd)
DEV=${1:-$TOP/tools/cxdvirt-dev}

if [ ! -x "$DEV" ]; then
	echo "Bail out! $DEV not built (make tools/cxdvirt-dev)"
	exit 1
fi
DEV=$(cd "$(dirname "$DEV")" && pwd)/$(basename "$DEV")

TMP=$(mktemp -d /tmp/cxdvirt-test-dev.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
chmod 755 "$TMP"
export CXDVIRT_CONFIGFS="$TMP/config/cxdvirt" CXDVIRT_SYSFS="$TMP/class/cxdvirt"
export CXDVIRT_MEMORY_SYSFS="$TMP/memory"
export FAKE_KMSG="$TMP/kmsg"
: >"$FAKE_KMSG"
mkdir -p "$CXDVIRT_CONFIGFS" "$CXDVIRT_SYSFS" "$CXDVIRT_MEMORY_SYSFS"
echo offline >"$CXDVIRT_MEMORY_SYSFS/auto_online_blocks"

cat >"$TMP/fakefs.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
/*
 * Preload for test-dev.sh: mkdir/rmdir/write under the fake roots -> hook;
 * open() of /dev/kmsg -> the fake kernel log $FAKE_KMSG, read one record
 * (line) per read() with EAGAIN at its end, as /dev/kmsg does.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char cfg[PATH_MAX], sys[PATH_MAX], hook[PATH_MAX], kmsg[PATH_MAX];
static int kmsg_fd = -1;

__attribute__((constructor)) static void init(void)
{
	snprintf(cfg, sizeof(cfg), "%s/", getenv("CXDVIRT_CONFIGFS") ?: "/nonexistent");
	snprintf(sys, sizeof(sys), "%s/", getenv("CXDVIRT_SYSFS") ?: "/nonexistent");
	snprintf(hook, sizeof(hook), "%s", getenv("FAKE_HOOK") ?: "");
	snprintf(kmsg, sizeof(kmsg), "%s", getenv("FAKE_KMSG") ?: "/nonexistent");
	unsetenv("LD_PRELOAD");	/* the hook runs without us */
}

/* open(), open64(), openat(), openat64(): /dev/kmsg is the fake log. */
static int open_common(const char *sym, int dirfd, const char *path,
		       int flags, mode_t mode)
{
	int (*real_at)(int, const char *, int, ...) = dlsym(RTLD_NEXT, sym);
	int fd;

	if (!strcmp(path, "/dev/kmsg")) {
		if ((flags & O_ACCMODE) != O_RDONLY) {
			errno = EACCES;	/* nobody writes the host's log */
			return -1;
		}
		fd = ((int (*)(int, const char *, int, ...))
		      dlsym(RTLD_NEXT, "openat"))(AT_FDCWD, kmsg, flags);
		if (fd >= 0)
			kmsg_fd = fd;
		return fd;
	}
	return real_at(dirfd, path, flags, mode);
}

#define OPEN_MODE(flags, mode) do {				\
	va_list ap;						\
	mode = 0;						\
	if ((flags) & (O_CREAT | O_TMPFILE)) {			\
		va_start(ap, flags);				\
		mode = va_arg(ap, mode_t);			\
		va_end(ap);					\
	}							\
} while (0)

int open(const char *path, int flags, ...)
{
	mode_t mode;

	OPEN_MODE(flags, mode);
	return open_common("openat", AT_FDCWD, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode;

	OPEN_MODE(flags, mode);
	return open_common("openat64", AT_FDCWD, path, flags, mode);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode;

	OPEN_MODE(flags, mode);
	return open_common("openat", dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode;

	OPEN_MODE(flags, mode);
	return open_common("openat64", dirfd, path, flags, mode);
}

int close(int fd)
{
	int (*real)(int) = dlsym(RTLD_NEXT, "close");

	if (fd == kmsg_fd)
		kmsg_fd = -1;
	return real(fd);
}

/* One record per read() from the fake log; EAGAIN when none is left. */
ssize_t read(int fd, void *buf, size_t n)
{
	ssize_t (*real)(int, void *, size_t) = dlsym(RTLD_NEXT, "read");
	char *p = buf;
	size_t got = 0;
	ssize_t r;

	if (fd != kmsg_fd || fd < 0)
		return real(fd, buf, n);
	while (got < n && (r = real(fd, p + got, 1)) == 1)
		if (p[got++] == '\n')
			break;
	if (got == 0) {
		errno = EAGAIN;
		return -1;
	}
	return (ssize_t)got;
}

static int under(const char *path, const char *root)
{
	return !strncmp(path, root, strlen(root));
}

/* Run the hook; its exit status is the errno (0: success). */
static int run_hook(const char *op, const char *path, const char *val)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return EIO;
	if (!pid) {
		execl("/bin/bash", "bash", hook, "--hook", op, path, val, (char *)NULL);
		_exit(5);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return EIO;
	return WEXITSTATUS(st);
}

int mkdir(const char *path, mode_t mode)
{
	int (*real)(const char *, mode_t) = dlsym(RTLD_NEXT, "mkdir");
	int err;

	if (!*hook || !under(path, cfg))
		return real(path, mode);
	err = run_hook("mkdir", path, "");
	errno = err;
	return err ? -1 : 0;
}

int rmdir(const char *path)
{
	int (*real)(const char *) = dlsym(RTLD_NEXT, "rmdir");
	int err;

	if (!*hook || !under(path, cfg))
		return real(path);
	err = run_hook("rmdir", path, "");
	if (err) {
		errno = err;
		return -1;
	}
	return real(path);
}

ssize_t write(int fd, const void *buf, size_t n)
{
	ssize_t (*real)(int, const void *, size_t) = dlsym(RTLD_NEXT, "write");
	char link[64], path[PATH_MAX], val[4096];
	ssize_t len;
	int err;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = *hook ? readlink(link, path, sizeof(path) - 1) : -1;
	if (len < 0)
		return real(fd, buf, n);
	path[len] = '\0';
	if (!under(path, cfg) && !under(path, sys))
		return real(fd, buf, n);
	if (n >= sizeof(val)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(val, buf, n);
	val[n] = '\0';
	err = run_hook("write", path, val);
	if (err) {
		errno = err;
		return -1;
	}
	/* a kernel attribute takes the whole value, like configfs */
	if (ftruncate(fd, 0) || pwrite(fd, val, n, 0) != (ssize_t)n)
		return -1;
	return (ssize_t)n;
}
EOF
if ! cc -shared -fPIC -O1 -o "$TMP/fakefs.so" "$TMP/fakefs.c" -ldl 2>"$TMP/cc.err"; then
	echo "Bail out! cannot build the fake-kernel preload: $(head -n 3 "$TMP/cc.err")"
	exit 1
fi

# --------------------------------------------------------------- helpers --
N=0
FAILED=0
OUT="$TMP/out"
ERR="$TMP/err"

ok() {
	N=$((N + 1))
	echo "ok $N - $1"
}

not_ok() {
	N=$((N + 1))
	FAILED=$((FAILED + 1))
	echo "not ok $N - $1"
	shift
	local l
	for l in "$@"; do
		echo "#   $l"
	done
	if [ -s "$OUT" ]; then sed 's/^/#   stdout: /' "$OUT" | head -n 20; fi
	if [ -s "$ERR" ]; then sed 's/^/#   stderr: /' "$ERR" | head -n 20; fi
}

# Run the tool through the fake kernel; status in $RC, output in $OUT/$ERR.
run() {
	LD_PRELOAD="$TMP/fakefs.so" FAKE_HOOK="$SELF" "$DEV" "$@" >"$OUT" 2>"$ERR"
	RC=$?
}

# expect DESCRIPTION RC [stderr-substring...]: check $RC and stderr.
expect() {
	local desc=$1 want=$2 s
	shift 2
	if [ "$RC" != "$want" ]; then
		not_ok "$desc" "exit status $RC, expected $want"
		return 1
	fi
	for s in "$@"; do
		if ! grep -qF -- "$s" "$ERR"; then
			not_ok "$desc" "stderr lacks: $s"
			return 1
		fi
	done
	ok "$desc"
}

# attr_is DEV ATTR VALUE: the fake configfs file holds VALUE.
attr_is() {
	local got
	got=$(cat "$CXDVIRT_CONFIGFS/$1/$2" 2>/dev/null)
	[ "$got" = "$3" ] || { echo "$1/$2 is '$got', expected '$3'"; return 1; }
}

check() {
	local desc=$1 msg
	shift
	if msg=$("$@" 2>&1); then ok "$desc"; else not_ok "$desc" "$msg"; fi
}

json_ok() {
	python3 -m json.tool "$OUT" >/dev/null 2>"$TMP/json.err" ||
		{ echo "invalid JSON: $(head -n 2 "$TMP/json.err")"; return 1; }
}

# py EXPR: a Python assertion over the JSON in $OUT (bound to d).
py() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert $1, repr(d)" "$OUT"
}


# ----------------------------------------------------------------- tests --
echo "TAP version 13"

run --help
expect "--help exits 0" 0 && { grep -q "^Verbs:" "$OUT" || not_ok "--help lists verbs"; }
run --version
expect "--version exits 0" 0
for v in list create set enable disable destroy stats online offline; do
	run "$v" --help
	if [ "$RC" = 0 ] && grep -q "^usage: cxdvirt-dev $v" "$OUT"; then
		ok "$v --help"
	else
		not_ok "$v --help" "exit $RC"
	fi
done
run create --help
if grep -q "^  znand:" "$OUT" && grep -q "^  femu:" "$OUT" && grep -q "^  tlc:.*nand_page_size=16384 t_read_ns=50000" "$OUT" &&
   grep -q "Cheong" "$OUT"; then
	ok "create --help shows the model's presets and their sources"
else
	not_ok "create --help shows the model's presets and their sources"
fi
if grep -A1 "^  znand:" "$OUT" | grep -q "xfer_model=exact" &&
   grep -A2 "^  znand:" "$OUT" | grep -q "stripe=channel"; then
	ok "a preset sets every NAND attribute, xfer_model and stripe included"
else
	not_ok "a preset sets every NAND attribute, xfer_model and stripe included"
fi
run
expect "no verb is a usage error" 2 "missing verb"
run frobnicate
expect "unknown verb is a usage error" 2 "unknown verb 'frobnicate'"
run list --bogus
expect "unknown option is a usage error" 2 "Try 'cxdvirt-dev list --help'"

# Missing roots.
CXDVIRT_CONFIGFS="$TMP/nowhere" run list
expect "missing configfs root is reported" 1 "$TMP/nowhere (from CXDVIRT_CONFIGFS) not found"
if [ ! -e /sys/kernel/config/cxdvirt ]; then
	env -u CXDVIRT_CONFIGFS "$DEV" list >"$OUT" 2>"$ERR"
	RC=$?
	expect "module not loaded is reported" 1 "is the cxdvirt module loaded?"
else
	ok "module not loaded is reported # SKIP the real module is loaded"
fi

run list
if [ "$RC" = 0 ] && [ ! -s "$OUT" ]; then ok "list of no device prints nothing"; else not_ok "list of no device prints nothing"; fi
run list --json
if [ "$RC" = 0 ] && json_ok && py 'd == []'; then ok "list --json of no device is []"; else not_ok "list --json of no device is []"; fi

# create
run create cxd0 --capacity 128M --cache-size 16M --preset znand t_read_ns=5000 policy=fifo
expect "create with options, preset and key=value" 0
check "create wrote sizes in bytes" attr_is cxd0 capacity 134217728
check "create wrote cache_size" attr_is cxd0 cache_size 16777216
check "preset znand: dies_per_channel 16" attr_is cxd0 dies_per_channel 16
check "preset znand: t_prog_ns 100000" attr_is cxd0 t_prog_ns 100000
check "preset znand: planes_per_die 8" attr_is cxd0 planes_per_die 8
check "preset znand: pages_per_block 768" attr_is cxd0 pages_per_block 768
check "key=value overrides the preset" attr_is cxd0 t_read_ns 5000
check "create leaves power 0" attr_is cxd0 power 0

run create cxd1 --preset tlc --capacity 0x4000000 --cache-size 4m --backing-node -1 --phys-addr 0 --enable
if [ "$RC" = 0 ] && [ "$(cat "$OUT")" = /dev/cxdvirt1 ]; then
	ok "create --enable prints the device node"
else
	not_ok "create --enable prints the device node" "exit $RC"
fi
check "hex capacity written as decimal" attr_is cxd1 capacity 67108864
check "lower-case suffix" attr_is cxd1 cache_size 4194304
check "preset tlc: t_read_ns 50000" attr_is cxd1 t_read_ns 50000
check "preset tlc: t_prog_ns 600000" attr_is cxd1 t_prog_ns 600000
check "preset tlc: nand_page_size 16384" attr_is cxd1 nand_page_size 16384
check "preset tlc: channel_mbps 800" attr_is cxd1 channel_mbps 800
check "preset tlc: planes_per_die 2" attr_is cxd1 planes_per_die 2
check "preset tlc: pages_per_block 256" attr_is cxd1 pages_per_block 256
check "preset tlc: t_bers_ns 3800000" attr_is cxd1 t_bers_ns 3800000
check "preset tlc: no controller limit" attr_is cxd1 link_mbps 0
check "--enable wrote power 1" attr_is cxd1 power 1

run create cxd2 --capacity 4M --cache-size 2M
expect "create with capacity below the current cache_size" 0
check "small capacity written" attr_is cxd2 capacity 4194304
check "small cache_size written" attr_is cxd2 cache_size 2097152

run create cxd0
expect "create of an existing device fails" 1 "cxd0: already exists"

# bad sizes and names: usage errors, nothing created
for bad in 1K1 0x 1e9 -1 "" " 1" 1KB 1.5G 99999999999999999999 16777216T 0x1g0; do
	run create bad0 --capacity "$bad"
	if [ "$RC" = 2 ] && grep -qE "not a size|too large" "$ERR" && [ ! -e "$CXDVIRT_CONFIGFS/bad0" ]; then
		ok "size '$bad' is rejected before mkdir"
	else
		not_ok "size '$bad' is rejected before mkdir" "exit $RC"
	fi
done
run create bad0 --backing-node -2
expect "backing node -2 is a usage error" 2 "not a node number"
run create bad0 --preset slc
expect "unknown preset is a usage error" 2 "--preset slc: unknown (znand, femu, tlc or cmmh)"
run create pf --preset femu
expect "create --preset femu" 0
check "preset femu: t_read_ns 40000" attr_is pf t_read_ns 40000
check "preset femu: nand_page_size 4096" attr_is pf nand_page_size 4096
check "preset femu: channel_mbps 100000" attr_is pf channel_mbps 100000
check "preset femu: t_bers_ns 2000000" attr_is pf t_bers_ns 2000000
run destroy pf
expect "destroy pf" 0
run create bad0 t_read_ns
expect "key without = is a usage error" 2 "expected key=value"
run create bad0 =5
expect "empty key is a usage error" 2 "not an attribute name"
run create bad0 ../x=5
expect "key with a path is a usage error" 2 "not an attribute name"
for bad in a/b .. . "" 0123456789012345678901234567890x 'a b'; do
	run create "$bad"
	if [ "$RC" = 2 ] && grep -q "not a device name" "$ERR"; then
		ok "device name '$bad' is rejected"
	else
		not_ok "device name '$bad' is rejected" "exit $RC"
	fi
done
if [ ! -e "$CXDVIRT_CONFIGFS/bad0" ]; then ok "no half-created device after usage errors"; else not_ok "no half-created device after usage errors"; fi

# the kernel refuses a value: report and roll back
run create cxd3 --capacity 3000000
if [ "$RC" = 1 ] && grep -qF "cxdvirt-dev: cxd3: capacity=3000000: Invalid argument" "$ERR" &&
   grep -qF "removed the half-created device" "$ERR" && [ ! -e "$CXDVIRT_CONFIGFS/cxd3" ]; then
	ok "a refused write removes the half-created device"
else
	not_ok "a refused write removes the half-created device" "exit $RC"
fi
if grep -qF "(kernel: cxdvirt: cxd3: capacity: 3000000 is not a multiple of 2M" "$ERR"; then
	ok "the kernel's reason is shown"
else
	not_ok "the kernel's reason is shown"
fi
run create cxd3 bogus_attr=1
expect "an attribute the module lacks is reported" 1 "cxd3: bogus_attr: no such attribute (this module has: capacity"
if [ ! -e "$CXDVIRT_CONFIGFS/cxd3" ]; then ok "... and the device is removed"; else not_ok "... and the device is removed"; fi

# set
run set cxd0 t_read_ns=7000 cache_size=0x800000 policy=fifo
expect "set several attributes" 0
check "set wrote t_read_ns" attr_is cxd0 t_read_ns 7000
check "set wrote hex cache_size as decimal" attr_is cxd0 cache_size 8388608
run set cxd0 t_prog_ns=1 capacity=3000000 channels=4
expect "set stops at the first refused write" 1 "cxd0: capacity=3000000: Invalid argument" \
	"applied: t_prog_ns; not attempted: channels"
check "... the earlier write was applied" attr_is cxd0 t_prog_ns 1
check "... the later one was not" attr_is cxd0 channels 8
run set cxd0 channels=abc
expect "set with a bad number is a usage error" 2 "channels=abc: not a number"
# Every parameter of the module's table is a key with its type: these were
# missing, so a bad value went to the kernel verbatim.
for k in drain_high_pct drain_low_pct; do
	run set cxd0 $k=abc
	expect "set $k with a bad number is a usage error" 2 "$k=abc: not a number"
done
run set cxd0 stripe="die plane"
expect "set stripe takes one word" 2 "must be one word"
run set cxd0 index=3
expect "set of a read-only attribute is a usage error" 2 "index=3: read-only"
run set cxd0 power=2
expect "set power=2 is a usage error" 2 "must be 0, 1, off or on"
run set cxd0
expect "set without key=value is a usage error" 2 "nothing to set"
run set nosuch t_read_ns=1
expect "set on a missing device" 1 "nosuch: no such device"
run --json set cxd0 t_read_ns=3000
if [ "$RC" = 0 ] && json_ok && py 'd["t_read_ns"] == 3000 and d["name"] == "cxd0"'; then
	ok "--json set prints the device"
else
	not_ok "--json set prints the device"
fi

# enable / disable
run enable cxd0
if [ "$RC" = 0 ] && [ "$(cat "$OUT")" = /dev/cxdvirt0 ] && [ -d "$CXDVIRT_SYSFS/cxdvirt0/stats" ]; then
	ok "enable prints /dev/cxdvirt0"
else
	not_ok "enable prints /dev/cxdvirt0" "exit $RC"
fi
run enable cxd0
expect "enable of an enabled device succeeds" 0
run set cxd0 t_read_ns=4000
expect "live change while powered" 0

# list
run list --json
if [ "$RC" = 0 ] && json_ok && py 'len(d) == 3 and [x["name"] for x in d] == ["cxd0", "cxd1", "cxd2"]'; then
	ok "list --json: every device, in order"
else
	not_ok "list --json: every device, in order"
fi
if py 'd[0]["power"] == 1 and d[0]["dev"] == "/dev/cxdvirt0" and d[0]["stats"]["misses"] == 7 and d[0]["cache_used"] == 4096 and d[0]["image_pages"] == 3' 2>/dev/null; then
	ok "list --json: powered device has dev, cache_used, image_pages and stats"
else
	not_ok "list --json: powered device has dev, cache_used, image_pages and stats"
fi
if py 'd[2]["power"] == 0 and "stats" not in d[2] and d[2]["capacity"] == 4194304 and d[2]["backing_node"] == -1' 2>/dev/null; then
	ok "list --json: unpowered device has attributes, no stats"
else
	not_ok "list --json: unpowered device has attributes, no stats"
fi
if py 'd[0]["features"][0] == "capacity" and d[0]["stats"]["miss_latency_hist"][0] == {"low_ns": 4096, "count": 5}' 2>/dev/null; then
	ok "list --json: features array, histogram rows"
else
	not_ok "list --json: features array, histogram rows"
fi
run -j list -u cxd0
if [ "$RC" = 0 ] && json_ok && py 'd[0]["capacity"] == "128 MiB" and d[0]["t_read_ns"] == "4.00 us"'; then
	ok "-j list -u cxd0: human units"
else
	not_ok "-j list -u cxd0: human units"
fi
run list
if [ "$RC" = 0 ] && grep -q "^cxd1$" "$OUT" && grep -qE "^  capacity +67108864$" "$OUT"; then
	ok "list text output"
else
	not_ok "list text output"
fi
run list nosuch
expect "list of a missing device" 1 "nosuch: no such device"

# stats
run stats cxd0 --json
if [ "$RC" = 0 ] && json_ok && py 'd["stats"]["minor_hits"] == 2 and d["stats"]["mean_miss_ns"] == 6232'; then
	ok "stats --json"
else
	not_ok "stats --json"
fi
run stats cxd0 --reset
if [ "$RC" = 0 ] && grep -qE "misses +7" "$OUT" && [ "$(cat "$CXDVIRT_SYSFS/cxdvirt0/stats/misses")" = 0 ]; then
	ok "stats --reset prints, then zeroes"
else
	not_ok "stats --reset prints, then zeroes" "exit $RC"
fi
run stats cxd2
expect "stats of an unpowered device" 1 "cxd2: not enabled"

# node mode
AOB=$CXDVIRT_MEMORY_SYSFS/auto_online_blocks
run create nd --mode node --phys-addr 0x100000000 --capacity 512M --target-node 2
expect "create --mode node --target-node 2" 0
check "mode node written" attr_is nd mode node
check "target_node written" attr_is nd target_node 2
check "phys_addr written as decimal" attr_is nd phys_addr 4294967296
run create bad0 --target-node x
expect "a bad target node is a usage error" 2 "not a node number"
run online nd
expect "online of an unpowered node device" 1 "nd: not enabled"
run online cxd2
expect "online of a devdax device" 1 "cxd2: not a node-mode device"
run offline cxd2
expect "offline of a devdax device" 1 "cxd2: not a node-mode device"
run online nd --bogus
expect "online with an unknown option is a usage error" 2 "Try 'cxdvirt-dev online --help'"
echo online >"$AOB"
run enable nd
expect "enable refuses while auto_online_blocks is online" 1 \
	"nd: $AOB is 'online': the kernel would online the device's memory itself as kernel memory" \
	"--fix-auto-online"
check "... and did not power on" attr_is nd power 0
run enable nd --fix-auto-online
NDI=$(cat "$CXDVIRT_CONFIGFS/nd/index")
if [ "$RC" = 0 ] && [ "$(cat "$OUT")" = "dax99.$NDI" ] && grep -qF "was 'online', now 'offline'" "$ERR" &&
   [ "$(cat "$AOB")" = offline ]; then
	ok "enable --fix-auto-online sets the policy to offline and prints the dax device"
else
	not_ok "enable --fix-auto-online sets the policy to offline and prints the dax device" "exit $RC, policy $(cat "$AOB")"
fi
run list --json nd
if [ "$RC" = 0 ] && json_ok &&
   py "d[0]['mode'] == 'node' and d[0]['target_node'] == 2 and d[0]['dax_device'] == 'dax99.$NDI' and d[0]['online'] == 'offline' and d[0]['node_used_bytes'] == 0 and d[0]['online_bytes'] == 0 and d[0]['adistance'] == 37440 and 'dev' not in d[0]"; then
	ok "list --json: node-mode fields, no dev"
else
	not_ok "list --json: node-mode fields, no dev"
fi
run -j list -u nd
if [ "$RC" = 0 ] && json_ok && py "d[0]['movable_bytes'] == '0 B' and d[0]['dax_device'] == 'dax99.$NDI'"; then
	ok "list -u: node-mode sizes with units"
else
	not_ok "list -u: node-mode sizes with units"
fi
echo online_kernel >"$AOB"
run online nd
expect "online refuses while auto_online_blocks is online_kernel" 1 "is 'online_kernel'"
echo online_movable >"$AOB"
run online nd
if [ "$RC" = 1 ] && ! grep -q auto_online_blocks "$ERR"; then
	ok "online_movable passes the policy check"
else
	not_ok "online_movable passes the policy check" "exit $RC"
fi
echo offline >"$AOB"
touch "$CXDVIRT_CONFIGFS/nd/.online"
run disable nd
expect "disable while the node memory is online" 1 \
	"nd: power=0: Device or resource busy: the memory of dax99.$NDI is online (cxdvirt-dev offline nd first)"
rm -f "$CXDVIRT_CONFIGFS/nd/.online"
run destroy nd
expect "destroy of a node-mode device" 0

# calibrate has no -d: -d is --device in cxdvirt-bench, so --dry-run is
# long only (a usage error before anything is measured or written).
run calibrate cxd0 -d
expect "calibrate -d is refused (--dry-run has no short form)" 2 "invalid option -- 'd'"

# disable / destroy, EBUSY
touch "$CXDVIRT_CONFIGFS/cxd1/.busy"
run destroy cxd1
expect "destroy of a busy device reports EBUSY" 1 "cxd1: power=0: Device or resource busy: /dev/cxdvirt1 is open or mapped"
rm -f "$CXDVIRT_CONFIGFS/cxd1/.busy"
run destroy cxd1
if [ "$RC" = 0 ] && [ ! -e "$CXDVIRT_CONFIGFS/cxd1" ] && [ ! -e "$CXDVIRT_SYSFS/cxdvirt1" ]; then
	ok "destroy powers off and removes"
else
	not_ok "destroy powers off and removes" "exit $RC"
fi
run disable cxd0
if [ "$RC" = 0 ] && [ ! -e "$CXDVIRT_SYSFS/cxdvirt0" ] && attr_is cxd0 power 0 >/dev/null; then
	ok "disable"
else
	not_ok "disable" "exit $RC"
fi
run destroy cxd0
expect "destroy of an unpowered device" 0
run destroy cxd0
expect "destroy of a missing device" 1 "cxd0: no such device"

# not root: a clear message, nothing created (plain files, no fake kernel)
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$DEV" create cxd9 >"$OUT" 2>"$ERR"
	RC=$?
	expect "create as non-root says it needs root" 1 "Permission denied: needs root"
else
	ok "create as non-root says it needs root # SKIP needs root and setpriv"
fi

echo "1..$N"
if [ "$FAILED" -ne 0 ]; then
	echo "# $FAILED of $N failed"
	exit 1
fi
exit 0
