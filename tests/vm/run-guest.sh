#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-guest.sh [--kver KVER] [--tests 'GLOB...'] [--timeout SECS] [--out DIR]
#              [--verbose] [--kernel-dir DIR] [--test-timeout SECS]
#              [--append 'KERNEL ARGS']
#
# Boot a throwaway QEMU guest (TCG) with Debian's stock kernel, insert
# ./cxdvirt.ko, run tests/guest/NN-*.sh (those matching GLOB, e.g. '60*' or
# '*fifo* *fork*'), unload the module, power off. The host then splits the
# guest's TAP into OUT/tap/NAME.tap and runs prove over them.
#
# Fails (non-zero) when: any test fails, the guest never prints
# CXDVIRT-GUEST-DONE, the timeout fires, or the console shows a kernel
# problem (BUG:, WARNING:, Oops, panic, lockdep, KASAN, soft lockup,
# hung task, Call Trace).
#
# OUT (default tests/vm/out) gets console.log (the whole guest console),
# guest-tap.log (the raw TAP port), tap/, initramfs.cpio.gz.
# Environment: KDIR (headers tree, for the default KVER), CXDVIRT_CACHE
# (kernel cache), CXDVIRT_KO (module to test instead of ./cxdvirt.ko),
# CXDVIRT_GUEST_TESTS (folder of the NN-*.sh tests, default tests/guest),
# CXDVIRT_EARLY_CPIO (a cpio in front of the initramfs), CXDVIRT_NUMA
# (two-node: the layout without an empty node, see lib.sh), CXDVIRT_DISK
# (a raw file as the guest's virtio disk /dev/vda).
# --kernel-dir DIR: a ready kernel folder (vmlinuz, lib/modules/KVER with
# modules.dep) instead of fetch-kernel.sh's; tests/vm/matrix.sh uses it.
# --timeout: the whole boot's limit (default 1200 s: the 6.1 suite takes
# about 350 s, and a boot, like a test, should use at most half of its
# budget, docs/testing.md "Time budgets"); --test-timeout: the guest's
# per-test limit (default 150 s); --append: extra guest kernel command line
# (tests/vm/check-debug.sh uses both). OUT/times.tsv gets each test's
# seconds against its budget.
set -euo pipefail

LANE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$LANE_DIR/lib.sh"

kver=
kdir_img=
tests='*'
tmo=1200
out=$LANE_DIR/out
verbose=0
test_timeout=150
append_extra=

while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--kernel-dir) kdir_img=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	--test-timeout) test_timeout=$2; shift 2 ;;
	--append) append_extra=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-v|--verbose) verbose=1; shift ;;
	-h|--help) sed -n '3,32p' "$0"; exit 0 ;;
	*) lane_die "unknown argument $1 (see --help)" ;;
	esac
done

[ -n "$kver" ] || kver=$(lane_default_kver)
[ -n "$kver" ] || lane_die "no kernel version (install linux-headers-amd64 or pass --kver)"
command -v qemu-system-x86_64 >/dev/null || lane_die "qemu-system-x86_64 missing (tests/vm/install-deps.sh)"
command -v prove >/dev/null || lane_die "prove missing (perl)"

[ -n "$kdir_img" ] || kdir_img=$("$LANE_DIR/fetch-kernel.sh" "$kver")
mkdir -p "$out"
initrd=$out/initramfs.cpio.gz
"$LANE_DIR/build-initramfs.sh" --kernel-dir "$kdir_img" --kver "$kver" \
	--out "$initrd" --tests "$tests"

# CXDVIRT_EARLY_CPIO: an uncompressed cpio put in front of the initramfs
# (ACPI table overrides, tests/vm/acpi-guest.sh).
if [ -n "${CXDVIRT_EARLY_CPIO:-}" ]; then
	cat "$CXDVIRT_EARLY_CPIO" "$initrd" > "$out/initrd-early.img"
	initrd=$out/initrd-early.img
fi

console=$out/console.log
taplog=$out/guest-tap.log
lane_log "booting $kver (console: $console)"

tail_pid=
if [ $verbose = 1 ]; then
	: > "$console"
	tail -n +1 -f "$console" &
	tail_pid=$!
fi
t0=$(date +%s.%N)
boot_rc=0
lane_boot "$kdir_img/vmlinuz" "$initrd" "$console" "$taplog" "$tmo" \
	"cxdvirt_test_timeout=$test_timeout" $append_extra || boot_rc=$?
# (lane_boot boots again, up to twice, a kernel that hung or died before
# /init ran anything: tests/vm/lib.sh.)
t1=$(date +%s.%N)
if [ -n "$tail_pid" ]; then
	sleep 0.2
	kill "$tail_pid" 2>/dev/null || true
	wait "$tail_pid" 2>/dev/null || true
fi
elapsed=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
lane_log "guest ran ${elapsed}s (qemu status $boot_rc)"

failed=0
problems=()

names=$(lane_split_tap "$taplog" "$out/tap")
# Each test's time against its budget (OUT/times.tsv), the guest's against
# --timeout; a line for anything over half (lib.sh, lane_times).
# shellcheck disable=SC2086 # one name per word
lane_times "$out/tap" "$out/times.tsv" "$kver" $names
awk -v e="$elapsed" -v t="$tmo" 'BEGIN { printf "(guest) %s %s %.0f\n", e, t, 100 * e / t }' >> "$out/times.tsv"
lane_over_half "$out/times.tsv" "$kver"
files=()
for n in $names; do
	files+=("$out/tap/$n.tap")
done

if [ ${#files[@]} -gt 0 ]; then
	(cd "$out/tap" && prove --exec "$LANE_DIR/tap-replay" "${files[@]##*/}") || {
		failed=1
		problems+=("test failures (see above)")
	}
else
	failed=1
	problems+=("no TAP from the guest")
fi

if [ "$boot_rc" = 124 ] || [ "$boot_rc" = 137 ]; then
	failed=1
	problems+=("timeout after ${tmo}s")
elif [ "$boot_rc" != 0 ]; then
	failed=1
	problems+=("qemu exited with status $boot_rc")
fi

if ! tr -d '\r' < "$taplog" | grep -qx 'CXDVIRT-GUEST-DONE'; then
	failed=1
	problems+=("no CXDVIRT-GUEST-DONE marker: the guest did not finish")
fi

bad=$(lane_bad_lines "$console")
if [ -n "$bad" ]; then
	failed=1
	problems+=("kernel problems on the console")
fi

if [ $failed = 1 ]; then
	if [ $verbose = 0 ]; then
		echo "---- last 40 console lines ($console) ----"
		tr -d '\r' < "$console" | tail -n 40
	fi
	# shellcheck disable=SC2086 # one name per word
	lane_failed_subtests "$out/tap" $names
	# Last, so that a log cut to its tail (CI) still shows them: each
	# offending line with the test that was running and what followed.
	if [ -n "$bad" ]; then
		echo "---- offending console lines ($console) ----"
		lane_bad_context "$console" | head -n 80
		lane_eflags_impossible "$console"
	fi
	echo "---- guest run FAILED ----"
	for p in "${problems[@]}"; do
		echo "  - $p"
	done
	exit 1
fi
echo "guest run passed (${elapsed}s, console: $console)"
