#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node mode with node_latency=on, shared and file-backed pages: MAP_SHARED
# anonymous memory, memfd, SysV shm, a tmpfs file and an ordinary file's
# page cache, placed on the node by a program run under numactl --membind
# (progs/nodelat shared). The program and a forked child map the object at
# different addresses and take turns. An eviction unmaps the page from
# every mapping (evicted_unmaps), and the next touch through either is a
# miss seen by the fault that maps the page again (file_maps): a cyclic
# scan over 1.5x the cache misses on >= 95% of the accesses of both
# processes, writes included, and its victims are found mapped
# (evictions_unmapped stays low). A scan within the cache hits in both,
# and the parent's writes to resident pages, which take no fault, are
# charged when the pages are evicted (late_writebacks). Fault-around is
# cut to the faulting page (faultaround_limited). The data survives
# eviction and the other process's writes. The ordinary file is on ext2 on
# a loop device, skipped where the guest has no ext2 or ext4 (see below).
# On the debug kernel: anon and memfd only. (Anonymous private memory:
# 65-node-latency and 68-node-integrity.)
. /tests/lib.sh

DEBUG=${cxdvirt_debug:-0}
TMPFS=/tmp/nl-tmpfs
DISK=/tmp/nl-disk
IMG=/tmp/nl-disk.img
OUT=/tmp/nl-shared.out
LOOP=

# Unmount what this test mounted (also on the way out after a failure).
sh_cleanup() {
	umount $TMPFS 2>/dev/null
	umount $DISK 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	LOOP=
	rm -f $IMG $OUT
	rmdir $TMPFS $DISK 2>/dev/null
}

nl_begin "node-mode shared and file pages"
trap 'sh_cleanup; nl_end' EXIT
klog_clear

nl_power_up cache_size=4M t_read_ns=20000 policy=fifo ||
	bail "power on $NL_DEV in node mode and online it"
pass "power on, online as node $NL_NODE ($DAX)"
diag "shmem_enabled: $(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null)"

mkdir -p $TMPFS $DISK
# huge=never: a tmpfs page mapped by a PMD is not tracked (docs/numa-mode.md).
mount -t tmpfs -o size=64m,huge=never nl-tmpfs $TMPFS
ok $? "mount a tmpfs on $TMPFS"
# The ordinary file needs a page cache that can go onto the node. The node
# is all ZONE_MOVABLE, and the kernel applies an MPOL_BIND to a
# movable-only node only to movable allocations (apply_policy_zone() in
# mm/mempolicy.c): ramfs's page cache is GFP_HIGHUSER, not movable, so a
# ramfs file written under numactl --membind lands on node 0 and never
# reaches the device. ext2 (the ext4 module) on a loop device over a tmpfs
# file has a movable page cache, ->map_pages and ->page_mkwrite, as disk
# file systems do.
FILEDIR=
NOFILE=
modprobe loop 2>/dev/null
modprobe ext4 2>/dev/null
if ! grep -qwE 'ext2|ext4' /proc/filesystems; then
	NOFILE="no ext2 or ext4 in this guest (ramfs's page cache is not movable: it cannot go onto the node)"
elif dd if=/dev/zero of=$IMG bs=1M count=16 2>/dev/null &&
	LOOP=$(losetup -f 2>/dev/null) && [ -n "$LOOP" ] &&
	losetup "$LOOP" $IMG && mke2fs -b 4096 "$LOOP" > /dev/null 2>&1 &&
	{ mount -t ext2 "$LOOP" $DISK 2>/dev/null || mount -t ext4 "$LOOP" $DISK; }; then
	FILEDIR=$DISK
	pass "ext2 on $LOOP mounted on $DISK"
else
	fail "ext2 on a loop device for the ordinary file"
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	LOOP=
	NOFILE="no ext2 file system (above)"
fi

# shared KIND NPAGES DIR: run `nodelat shared` bound to the node. Its TAP
# lines join this script's (run_sub, with the program's exit status); all
# of its output stays in $OUT for got(). The output is written by this
# shell, not the bound program, so that its page cache stays off the node.
shared() {
	local out rc
	out=$(numactl --membind=$NL_NODE "$PROGS/nodelat" shared "$1" $NL_NODE $IDX "$2" "$3" 2>&1)
	rc=$?
	printf '%s\n' "$out" > $OUT
	# shellcheck disable=SC2016 # expanded by the inner sh
	run_sub "nodelat shared $1 $2" sh -c 'cat "$1"; exit "$2"' sh $OUT $rc
}

# got NAME: the number the last run printed on its "NAME N" line.
got() {
	sed -n "s/^$1 +*//p" $OUT
}

# nlc NAME: a node_latency/ counter.
nlc() {
	cat "$S/node_latency/$1"
}

# snap: the counters the checks compare, before a run.
snap() {
	u0=$(nlc thp_untracked_pages) f0=$(nlc file_maps) l0=$(nlc faultaround_limited)
	x0=$(nlc evicted_unmaps) n0=$(nlc evictions_unmapped) e0=$(stat_get $NL_DEV evictions)
}

# Under a cache of 1024 lines: 1536 pages cycle through it, 512 stay in it.
W=1536
R=512
# The kinds whose mappings have ->map_pages (fault-around): all but SysV
# shm (shm_vm_ops has none; MAP_SHARED anonymous memory is shmem, which
# has).
AROUND="anon memfd tmpfs file"
# The debug kernel (KASAN, lockdep) is about 10x slower under TCG: there,
# two kinds (the anonymous shmem and the memfd paths) keep the test within
# its half budget of 75 s. The page counts stay: a cyclic scan must exceed
# the cache, and the two flushes of 2048 pages a run cost most of it.
KINDS="anon memfd sysv tmpfs file"
[ "$DEBUG" = 1 ] && KINDS="anon memfd"

for kind in $KINDS; do
	dir=-
	case $kind in
	tmpfs) dir=$TMPFS ;;
	file)
		if [ -z "$FILEDIR" ]; then
			skip "file: an ordinary file's page cache on the node" "$NOFILE"
			continue
		fi
		dir=$FILEDIR
		;;
	esac

	section "$kind: a cyclic scan over 1.5x the cache"
	snap
	shared $kind $W $dir
	p1=$(got "P1 misses") c1=$(got "C1 misses") p2=$(got "P2 misses")
	c2=$(got "C2 misses") wm=$(got "write misses")
	we=$(got "window evictions") wu=$(got "window evictions_unmapped")
	fm=$(($(nlc file_maps) - f0)) fl=$(($(nlc faultaround_limited) - l0))
	xu=$(($(nlc evicted_unmaps) - x0)) nu=$(($(nlc evictions_unmapped) - n0))
	ev=$(($(stat_get $NL_DEV evictions) - e0))
	diag "$kind, $W pages: misses P1 $p1, C1 $c1, P2 $p2, C2 $c2, write $wm"
	diag "  file_maps +$fm, faultaround_limited +$fl, evicted_unmaps +$xu"
	diag "  evictions +$ev, evictions_unmapped +$nu (C1 to the write pass: $we and $wu)"
	cmp_ok "$c1" -ge $((W * 95 / 100)) \
		"$kind: the child's first pass, through its own mapping, misses on >= 95% ($c1 of $W)"
	cmp_ok "$p2" -ge $((W * 95 / 100)) "$kind: the parent's second pass misses on >= 95% ($p2 of $W)"
	cmp_ok "$c2" -ge $((W * 95 / 100)) "$kind: the child's second pass misses on >= 95% ($c2 of $W)"
	cmp_ok "$wm" -ge $((W * 95 / 100)) \
		"$kind: writes to evicted pages fault and miss on >= 95% ($wm of $W)"
	is "$(nlc thp_untracked_pages)" "$u0" "$kind: thp_untracked_pages unchanged"
	cmp_ok "$fm" -ge $((W * 4)) "$kind: the faults that map the pages are seen (file_maps +$fm)"
	cmp_ok "$xu" -gt 0 "$kind: evictions unmap the pages from every mapping (evicted_unmaps +$xu)"
	# Over the whole run the lines of the two freed flush buffers (and of
	# the last run's pages) are evicted mapped nowhere; from C1 to the
	# write pass every victim is a page of the object or of the program.
	cmp_ok "$wu" -le $((we * 5 / 100)) \
		"$kind: victims are found mapped ($wu of $we evictions from C1 to the write pass mapped nowhere)"
	case " $AROUND " in
	*" $kind "*)
		cmp_ok "$fl" -gt 0 "$kind: fault-around cut to the faulting page (faultaround_limited +$fl)"
		;;
	esac

	section "$kind: a scan within the cache"
	shared $kind $R $dir
	c1=$(got "C1 misses") p2=$(got "P2 misses") c2=$(got "C2 misses")
	wm=$(got "write misses") lw=$(got late_writebacks) wb=$(got writebacks)
	diag "$kind, $R pages: misses P1 $(got "P1 misses"), C1 $c1, P2 $p2, C2 $c2, write $wm"
	diag "  at the flush after the writes: late_writebacks +$lw, writebacks +$wb"
	# C1: the child's faults map pages the cache holds (hits).
	cmp_ok "$c1" -le $((R * 2 / 100)) "$kind: the child's first pass hits (misses $c1 of $R)"
	cmp_ok "$p2" -le $((R * 2 / 100)) "$kind: the parent's second pass hits (misses $p2 of $R)"
	cmp_ok "$c2" -le $((R * 2 / 100)) "$kind: the child's second pass hits (misses $c2 of $R)"
	cmp_ok "$wm" -le $((R * 2 / 100)) "$kind: writes to resident pages hit (misses $wm of $R)"
	cmp_ok "$lw" -ge $((R * 90 / 100)) \
		"$kind: writes made without a fault are charged at eviction (late_writebacks +$lw of $R)"
done

section "power off"
sh_cleanup
nl_power_down
ok $? "offline and power off"

klog_no_warnings
nl_end
done_testing
