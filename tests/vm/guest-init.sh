#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the cxdvirt test guest (busybox sh).
#
# Mounts the pseudo filesystems, loads configfs and the dax drivers, inserts
# /cxdvirt.ko, runs every /tests/NN-*.sh in lexical order and unloads the
# module. Each test's TAP goes to the console (ttyS0, mixed with kernel
# messages) and, framed by marker lines, to the second serial port (ttyS1),
# which the host saves and splits into one .tap file per test:
#
#   CXDVIRT-TAP-BEGIN <name>
#   ...TAP...
#   CXDVIRT-TAP-END <name> <exit status>
#
# The last line is CXDVIRT-GUEST-DONE; then the guest powers off, or
# reboots (reboot -f, without unloading the module) if a test left
# /tmp/cxdvirt-reboot.
#
# Kernel command line variables (the kernel passes unknown name=value
# parameters to init as environment variables):
#   cxdvirt_test_timeout=SECS   per-test limit (default 150)
#   cxdvirt_mode=demo           run /demo.sh instead of the tests
#   cxdvirt_debug=1             a debug kernel (tests/vm/check-debug.sh):
#                               timing tests widen their upper bounds

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export LD_LIBRARY_PATH=/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/lib:/usr/lib
export HOME=/root
export TESTDIR=/tests
export PROGS=/tests/progs

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t tmpfs tmpfs /dev/shm

# configfs is a module in Debian's kernel; the dax drivers are not loaded by
# anyone else (no udev here).
modprobe configfs && mount -t configfs configfs /sys/kernel/config ||
	echo "init: cannot mount configfs"
for m in dax device_dax kmem dax_hmem; do
	modprobe "$m" 2>/dev/null || grep -q "/$m.ko" "/lib/modules/$(uname -r)/modules.builtin" 2>/dev/null ||
		echo "init: cannot load $m"
done

# Debian 6.1 leaves hot-added memory offline; newer Debian kernels (6.12:
# MHP_DEFAULT_ONLINE_TYPE_ONLINE_AUTO) online it in ZONE_NORMAL, where it
# may never offline again. Set the policy docs/numa-mode.md asks for before
# any power-on, so every kernel of the matrix starts like 6.1.
aob=/sys/devices/system/memory/auto_online_blocks
if [ -w "$aob" ] && [ "$(cat "$aob")" != offline ]; then
	echo "init: auto_online_blocks was $(cat "$aob"): setting offline"
	echo offline > "$aob" || echo "init: cannot set $aob"
fi

TAPDEV=/dev/ttyS1
[ -c "$TAPDEV" ] || TAPDEV=/dev/null
# Raw output on the TAP port: no \n -> \r\n translation.
stty -F "$TAPDEV" raw -echo 2>/dev/null

# Print to the console and the TAP port.
both() {
	echo "$*"
	echo "$*" >> "$TAPDEV"
}

# run_tap NAME CMD...: run CMD with its output framed on the TAP port. The
# END line also carries the seconds it took (guest uptime) and its budget,
# $budget seconds or "-" for none: the host records both and warns about a
# test that used more than half of its budget (tests/vm/lib.sh, lane_times).
run_tap() {
	name=$1
	shift
	both "CXDVIRT-TAP-BEGIN $name"
	rm -f /tmp/rc
	t_start=$(cut -d' ' -f1 /proc/uptime)
	{ "$@"; echo $? > /tmp/rc; } 2>&1 | tee -a "$TAPDEV"
	rc=$(cat /tmp/rc 2>/dev/null || echo 255)
	t_end=$(cut -d' ' -f1 /proc/uptime)
	secs=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }')
	both "CXDVIRT-TAP-END $name $rc $secs ${budget:--}"
	return "$rc"
}

# Power off and remove what a test left behind, so that one failure does not
# spread to the next test. Prints what it removed.
cleanup_devices() {
	for d in /sys/kernel/config/cxdvirt/*; do
		[ -d "$d" ] || continue
		echo "# leftover device $(basename "$d"): removing"
		echo 0 > "$d/power" 2>/dev/null
		rmdir "$d" 2>/dev/null || echo "# cannot remove $d"
	done
}

insmod_test() {
	echo "1..1"
	# A kernel without BTF (the debug lane's) cannot have node latency's
	# probe prototypes checked; it is built from the checked sources, so
	# run unchecked (74-node-btf tests both; lib.sh's module_load too).
	nl=
	[ -r /sys/kernel/btf/vmlinux ] || nl=nl_unchecked=1
	if out=$(insmod /cxdvirt.ko $nl 2>&1); then
		echo "ok 1 - insmod /cxdvirt.ko $nl"
	else
		echo "not ok 1 - insmod /cxdvirt.ko"
		echo "$out" | sed 's/^/# /'
		[ -f /cxdvirt.ko ] || echo "# /cxdvirt.ko is missing: build the module (make module)"
	fi
}

rmmod_test() {
	echo "1..2"
	left=$(cleanup_devices)
	if [ -z "$left" ]; then
		echo "ok 1 - no devices left behind by the tests"
	else
		echo "not ok 1 - no devices left behind by the tests"
		echo "$left"
	fi
	if out=$(rmmod cxdvirt 2>&1); then
		echo "ok 2 - rmmod cxdvirt"
	else
		echo "not ok 2 - rmmod cxdvirt"
		echo "$out" | sed 's/^/# /'
	fi
}

# kmemleak (debug kernels, tests/vm/debug.config): kmemleak_scan FILE
# scans twice (an object is reported only once it has stayed unreferenced
# and unchanged across a scan) and saves the report to FILE.
KMEMLEAK=/sys/kernel/debug/kmemleak
kmemleak_scan() {
	echo scan > "$KMEMLEAK" && sleep 1 && echo scan > "$KMEMLEAK"
	cat "$KMEMLEAK" > "$1" 2>&1
}

# kmemleak_test BEFORE AFTER RANGE: TAP over the reports taken with the
# module loaded (its frames read "[cxdvirt]") and after rmmod (its frames are
# bare addresses inside RANGE, "0xBASE SIZE" from /proc/modules). Reports
# that do not involve cxdvirt (boot-time noise) are only counted.
kmemleak_test() {
	echo "1..2"
	n=1
	for f in "$1" "$2"; do
		bad=$(awk -v range="$3" '
			function hexval(h,   i, v) {
				v = 0
				for (i = 1; i <= length(h); i++)
					v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
				return v
			}
			function hex8(v,   s, i, d) {	# no printf %x: busybox clips it to 32-bit signed
				s = ""
				for (i = 0; i < 8; i++) {
					d = v % 16
					s = substr("0123456789abcdef", d + 1, 1) s
					v = (v - d) / 16
				}
				return s
			}
			BEGIN {
				split(range, r, " ")
				base = tolower(r[1]); sub(/^0x/, "", base)
				hi = substr(base, 1, 8)
				end = hexval(substr(base, 9)) + r[2]
				endhex = end >= 4294967296 ? "ffffffff" : hex8(end)
				lo = base
				top = hi endhex
			}
			function flush() {
				if (rec != "" && mine) printf "%s", rec
				rec = ""; mine = 0
			}
			/^unreferenced object/ { flush() }
			{ rec = rec $0 "\n" }
			/\[cxdvirt\]/ { mine = 1 }
			base != "" {
				if (match($0, /0xffffffff[0-9a-f]+/)) {
					a = substr($0, RSTART + 2, RLENGTH - 2)
					if (length(a) == 16 && a >= lo && a < top) mine = 1
				}
			}
			END { flush() }' "$f")
		total=$(grep -c '^unreferenced object' "$f")
		phase=$([ $n = 1 ] && echo "module loaded" || echo "after rmmod")
		if [ -z "$bad" ]; then
			echo "ok $n - no kmemleak report involving cxdvirt ($phase; $total unrelated)"
		else
			echo "not ok $n - kmemleak reports involving cxdvirt ($phase)"
			echo "$bad" | sed 's/^/# /'
		fi
		n=$((n + 1))
	done
}

# run_one SCRIPT SECS: run SCRIPT in its own session; after SECS seconds kill
# everything in it. Stragglers it leaves behind are killed too, so none keeps
# the output pipe open.
run_one() {
	setsid sh "$1" < /dev/null &
	pid=$!
	setsid sh -c "sleep $2; echo 'init: $1 timed out after $2 s, killing it' > /dev/console; kill -KILL -$pid" \
		< /dev/null > /dev/null 2>&1 &
	wd=$!
	wait "$pid"
	st=$?
	kill -KILL -"$wd" 2>/dev/null
	kill -KILL -"$pid" 2>/dev/null
	wait "$wd" 2>/dev/null
	return "$st"
}

run_tests() {
	timeout_s=${cxdvirt_test_timeout:-150}
	cd /tests || return
	for t in /tests/[0-9]*.sh; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .sh)
		echo "init: running $name" > /dev/kmsg
		budget=$timeout_s
		run_tap "$name" run_one "$t" "$timeout_s"
		budget=
		echo "init: $name done ($secs s of $timeout_s)"
		# a test that asked for a reboot (below) keeps its devices
		[ -e /tmp/cxdvirt-reboot ] && continue
		left=$(cleanup_devices)
		[ -n "$left" ] && echo "$left"
	done
}

both "CXDVIRT-GUEST-START $(uname -r)"

if [ "${cxdvirt_mode:-test}" = demo ] && [ -f /demo.sh ]; then
	insmod /cxdvirt.ko || echo "init: insmod failed"
	run_tap demo sh /demo.sh
	cleanup_devices
	rmmod cxdvirt
else
	run_tap 00-insmod insmod_test
	if grep -q '^cxdvirt ' /proc/modules; then
		run_tests
		if [ -e /tmp/cxdvirt-reboot ]; then
			# A test left /tmp/cxdvirt-reboot: end with reboot(2),
			# its devices still powered, instead of the unload
			# (tests/guest/acpi/03-reboot-write.sh). QEMU's
			# -no-reboot ends the run at the reset.
			both "CXDVIRT-GUEST-DONE"
			reboot -f
			sleep 120
		fi
		if [ -w "$KMEMLEAK" ]; then
			range=$(awk '$1 == "cxdvirt" { print $6, $2 }' /proc/modules)
			kmemleak_scan /tmp/kmemleak.loaded
		fi
		run_tap zz-rmmod rmmod_test
		if [ -w "$KMEMLEAK" ]; then
			kmemleak_scan /tmp/kmemleak.unloaded
			run_tap zz-kmemleak kmemleak_test /tmp/kmemleak.loaded \
				/tmp/kmemleak.unloaded "$range"
		fi
	else
		echo "init: module not loaded, guest tests not run"
	fi
fi

both "CXDVIRT-GUEST-DONE"
sync
poweroff -f
