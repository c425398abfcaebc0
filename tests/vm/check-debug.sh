#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# check-debug.sh [--cached-only] [--tests 'GLOB...'] [--timeout SECS]
#                [--test-timeout SECS] [-v]
#
# The debug-kernel lane (make check-debug): build (or reuse) the debug guest
# kernel of tests/vm/debug-kernel.sh (KASAN, lockdep, DEBUG_ATOMIC_SLEEP,
# DEBUG_VM, kmemleak, debugobjects, soft lockup and hung task detectors),
# build cxdvirt.ko against that tree, and run the whole guest suite on it with
# run-guest.sh. The run fails on any failing test and on any kernel splat on
# the console (run-guest.sh, LANE_BAD_RE in lib.sh); the guest's zz-kmemleak
# test fails on a kmemleak report involving cxdvirt.
#
# The module is built in OUT/module (a copy of the sources), so the stock
# ./cxdvirt.ko is left alone. OUT is tests/vm/out/debug: console.log,
# tap/, times (kernel build and suite seconds).
#
# --cached-only: skip (exit 0, with a note) when the debug kernel is not
# built yet instead of building it (tens of minutes on two cores).
set -euo pipefail

LANE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$LANE_DIR/lib.sh"

cached_only=0
tests='*'
# KASAN + lockdep under TCG: several times slower than the stock kernel.
tmo=5400
test_timeout=1200
verbose=()
while [ $# -gt 0 ]; do
	case $1 in
	--cached-only) cached_only=1; shift ;;
	--tests) tests=$2; shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	--test-timeout) test_timeout=$2; shift 2 ;;
	-v|--verbose) verbose=(-v); shift ;;
	-h|--help) sed -n '3,20p' "$0"; exit 0 ;;
	*) lane_die "check-debug: unknown argument $1" ;;
	esac
done

out=$LANE_DIR/out/debug
mkdir -p "$out"

t0=$(date +%s)
if [ $cached_only = 1 ]; then
	dk=$("$LANE_DIR/debug-kernel.sh" --check) || {
		lane_log "debug kernel not cached: lane skipped (run make check-debug once to build it)"
		exit 0
	}
else
	dk=$("$LANE_DIR/debug-kernel.sh")
fi
t1=$(date +%s)
kver=$(cat "$dk/KVER")
lane_log "debug kernel $kver in $dk (built in $(cat "$dk/build-seconds") s; this step $((t1 - t0)) s)"

# --- the module, against the debug tree ------------------------------------
mod=$out/module
rm -rf "$mod"
mkdir -p "$mod"
(cd "$REPO_ROOT" && cp -a Kbuild driver hotplug include "$mod/")
find "$mod" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod' -o -name '*.mod.c' \) -delete
# -g: KASAN/lockdep reports name cxdvirt functions; faddr2line on this
# cxdvirt.ko turns them into file:line.
nice -n 19 make -s -C "$dk/build" M="$mod" KCFLAGS=-g modules >&2
[ -f "$mod/cxdvirt.ko" ] || lane_die "no $mod/cxdvirt.ko"

# --- the guest suite --------------------------------------------------------
# Userspace tools (the guest runs them); the stock module build is not needed.
make -s -C "$REPO_ROOT" tools >&2

t2=$(date +%s)
rc=0
# 4-level paging: with LA57 (5-level), 6.1's KASAN reported a
# wild-memory-access in handle_edge_irq when an interrupt arrived during
# identify_boot_cpu(), before the module loads: while the boot CPU's
# feature bits are being refilled, pgtable_l5_enabled() reads false and
# the direct map looks out of KASAN's range.
# A boot watchdog of 120 s, not 240: this kernel reaches /init about 11 s
# into the boot, and it sometimes hangs for good before that, in the
# RCU-tasks self test's synchronize_rcu_tasks() (CI runs 22 and 24, each a
# 240 s wait and a second boot; not found: docs/testing.md, "Emulator
# faults").
CXDVIRT_KO=$mod/cxdvirt.ko LANE_QEMU_CPU=max,la57=off LANE_BOOT_TMO=${LANE_BOOT_TMO:-120} \
	"$LANE_DIR/run-guest.sh" --kver "$kver" --kernel-dir "$dk/image" \
	--tests "$tests" --timeout "$tmo" --test-timeout "$test_timeout" --out "$out" \
	--append cxdvirt_debug=1 \
	${verbose[@]+"${verbose[@]}"} || rc=$?
t3=$(date +%s)
{
	echo "kernel_build_seconds $(cat "$dk/build-seconds")"
	echo "module_build_seconds $((t2 - t1))"
	echo "suite_seconds $((t3 - t2))"
} > "$out/times"
lane_log "debug lane: module + tools $((t2 - t1)) s, guest suite $((t3 - t2)) s (rc $rc)"
if [ $rc != 0 ]; then
	lane_log "decode cxdvirt frames: $dk/build/scripts/faddr2line $mod/cxdvirt.ko FUNC+0xOFF/0xLEN"
fi
exit $rc
