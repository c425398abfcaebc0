#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# devdax semantics (progs/daxsem.c): the same checks on /dev/cxdvirtN with
# runtime-page backing, with a reserved range (phys_addr), and on the
# kernel's own device-dax (/dev/daxX.Y, made by a node-mode device) as the
# reference. A check listed in RUNTIME_DIFF or PHYS_DIFF must still differ.
. /tests/lib.sh

D=dsem
LOOPIMG=/tmp/daxsem.img
BASE=0x100000000
# Checks that differ from device-dax today, per backing: the mapping is
# VM_PFNMAP | VM_DONTEXPAND with raw PFNs, so nothing can pin its pages.
DIFF=map-sync,odirect-out,odirect-in,procmem-read,procmem-write,vmsplice,futex-shared,condvar-shared,madv-dontneed,mremap-grow,mremap-grow-past-end
RUNTIME_DIFF=$DIFF
PHYS_DIFF=$DIFF

cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -f $LOOPIMG /tmp/pin.ready /tmp/pin.go
	dev_rm $D 2>/dev/null
	dev_rm ${D}_phys 2>/dev/null
	dev_rm ${D}_ref 2>/dev/null
}
trap cleanup EXIT

# A block device for O_DIRECT: a loop device over a tmpfs file (the loop
# driver exists in every kernel of the lanes, brd not in the debug one).
LOOP=
modprobe loop 2>/dev/null
dd if=/dev/zero of=$LOOPIMG bs=1M count=8 2>/dev/null
LOOP=$(losetup -f 2>/dev/null)
if [ -n "$LOOP" ] && losetup "$LOOP" $LOOPIMG; then
	pass "loop device $LOOP for O_DIRECT"
	BLK="-b $LOOP"
else
	skip "loop device" "no loop device: O_DIRECT checks skipped"
	LOOP=
	BLK=
fi

# 1. Runtime pages. A cache of 1M for 16M: the checks themselves evict.
dev_create $D capacity=16M cache_size=1M t_read_ns=2000 || bail "create $D"
dev_on $D || bail "power on $D"
klog_clear
run_sub "runtime pages" "$PROGS/daxsem" check -s 16777216 $BLK \
	${RUNTIME_DIFF:+-d $RUNTIME_DIFF} "$(dev_node $D)"
diag "runtime: misses $(stat_get $D misses) evictions $(stat_get $D evictions) pinned_evictions $(stat_get $D pinned_evictions 2>/dev/null)"
dev_rm $D
ok $? "remove $D"

# 2. The reserved range.
P=${D}_phys
dev_create $P phys_addr=$BASE capacity=16M cache_size=1M t_read_ns=2000 ||
	bail "create $P"
dev_on $P || bail "power on $P"
run_sub "reserved range" "$PROGS/daxsem" check -s 16777216 $BLK \
	${PHYS_DIFF:+-d $PHYS_DIFF} "$(dev_node $P)"
dev_rm $P
ok $? "remove $P"

# 3. The reference: the kernel's device-dax on the same range.
R=${D}_ref
dev_create $R mode=node phys_addr=$BASE capacity=128M target_node=2 \
	node_latency=off || bail "create $R"
if [ "$(dev_set $R power 1)" = OK ]; then
	DAX=$(cat "$(dev_sys $R)/dax_device")
	DS=/sys/bus/dax/devices/$DAX
	diag "reference /dev/$DAX: size $(cat $DS/size) align $(cat $DS/align 2>/dev/null)"
	[ -c /dev/$DAX ] || mknod /dev/$DAX c $(tr ':' ' ' < $DS/dev)
	run_sub "device-dax reference" "$PROGS/daxsem" check \
		-a "$(cat $DS/align 2>/dev/null || echo 2097152)" \
		-s "$(cat $DS/size)" $BLK /dev/$DAX
else
	fail "power on the node-mode reference device"
fi
dev_rm $R
ok $? "remove $R"

done_testing
