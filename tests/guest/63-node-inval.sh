#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node mode, bad input: each is EINVAL with exactly one kernel log line, and
# changes nothing (power stays 0, no dax device appears, the value is kept).
. /tests/lib.sh

cleanup() {
	x=$(cat "$(dev_sys good 2>/dev/null)/dax_device" 2>/dev/null)
	[ -n "$x" ] && daxctl offline-memory "$x" > /dev/null 2>&1
	for d in bad good; do dev_rm $d 2>/dev/null; done
}
trap cleanup EXIT

# expect_inval DESC PATTERN ATTR VALUE: writing VALUE to device $E fails with
# $ERR (EINVAL unless set) and one cxdvirt log line matching PATTERN; nothing
# changes.
E=bad
expect_inval() {
	local desc=$1 pat=$2 err=${ERR:-EINVAL} before power ndax r lines
	before=$(dev_get $E "$3")
	power=$(dev_get $E power)
	ndax=$(ls /sys/bus/dax/devices | wc -l)
	klog_clear
	r=$(dev_set $E "$3" "$4")
	lines=$(dmesg | grep -c "cxdvirt: $E:")
	is "$r" "$err" "$desc: $err"
	is "$lines" 1 "$desc: one log line"
	dmesg | grep "cxdvirt: $E:" | sed 's/^/# /'
	dmesg | grep "cxdvirt: $E:" | grep -q -- "$pat"
	ok $? "$desc: log says '$pat'"
	is "$(dev_get $E "$3")" "$before" "$desc: $3 unchanged"
	is "$(dev_get $E power)" "$power" "$desc: power unchanged"
	is "$(ls /sys/bus/dax/devices | wc -l)" "$ndax" "$desc: no new dax device"
}

dev_create bad
ok $? "create bad"
expect_inval "mode bogus" "unknown mode" mode bogus
expect_inval "target_node 7 (not possible)" "not a possible node" target_node 7
expect_inval "target_node 0 (has memory)" "already has memory" target_node 0
expect_inval "target_node 99999" "rejected" target_node 99999

dev_set bad mode node > /dev/null
expect_inval "mode node without phys_addr" "needs phys_addr" power 1
dev_set bad target_node 2 > /dev/null
dev_set bad capacity 256M > /dev/null
dev_set bad phys_addr 0x100200000 > /dev/null
expect_inval "phys_addr not block aligned" "memory block size" power 1
dev_set bad phys_addr 0x100000000 > /dev/null
dev_set bad capacity 130M > /dev/null
expect_inval "capacity not a block multiple" "memory block size" power 1
dev_set bad capacity 256M > /dev/null
dev_set bad target_node -1 > /dev/null
expect_inval "no target_node" "needs target_node" power 1
dev_set bad target_node 2 > /dev/null
dev_set bad phys_addr 0x40000000 > /dev/null
expect_inval "range in System RAM" "System RAM" power 1
dev_set bad phys_addr 0x140000000 > /dev/null
expect_inval "range not reserved" "not entirely reserved" power 1
dev_set bad phys_addr 0x130000000 > /dev/null
dev_set bad capacity 512M > /dev/null
expect_inval "range past the reservation" "not entirely reserved" power 1

# Conflicts with a powered node-mode device.
dev_create good mode=node phys_addr=0x100000000 capacity=256M target_node=2
is "$(dev_set good power 1)" OK "power on good (node 2, 256M at 4G)"
dev_set bad capacity 256M > /dev/null
dev_set bad phys_addr 0x108000000 > /dev/null
dev_set bad target_node 3 > /dev/null
expect_inval "range overlaps another node device" "overlaps device good" power 1
dev_set bad phys_addr 0x120000000 > /dev/null
dev_set bad target_node 2 > /dev/null
expect_inval "target node used by another device" "used by device good" power 1
dev_set bad mode devdax > /dev/null
dev_set bad phys_addr 0x100000000 > /dev/null
expect_inval "devdax range over a node device" "overlaps a node-mode device" power 1
dev_set bad phys_addr 0 > /dev/null
dev_set bad mode node > /dev/null
dev_set bad target_node 3 > /dev/null

x=$(cat "$(dev_sys good)/dax_device")
daxctl reconfigure-device --mode=system-ram "$x" > /dev/null 2>&1
ok $? "online good ($x)"
expect_inval "target_node with memory now" "already has memory" target_node 2
E=good
# A structural setting of a powered device: EBUSY, as null_blk does.
ERR=EBUSY
expect_inval "mode while powered" "while powered" mode devdax
expect_inval "target_node while powered" "while powered" target_node 3
done_testing
