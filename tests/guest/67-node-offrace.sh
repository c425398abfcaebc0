#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node-mode power-off checks that the range is offline, then removes it.
# Memory onlined in between (echo online_movable > .../memoryN/state) must
# either be refused or make power-off refuse: never online memory whose dax
# device is gone. The module parameter node_off_delay_ms (testing only)
# widens the window between the check and the removal to 3 s.
. /tests/lib.sh

D=node_race
NODE=2
BASE=0x100000000
P=/sys/module/cxdvirt/parameters/node_off_delay_ms

cleanup() {
	echo 0 > $P 2>/dev/null
	[ -n "$DAX" ] && daxctl offline-memory "$DAX" > /dev/null 2>&1
	dev_rm $D 2>/dev/null
}
trap cleanup EXIT

[ -w $P ] || bail "no $P"
dev_create $D mode=node phys_addr=$BASE capacity=512M target_node=$NODE \
	node_latency=off || bail "create $D"
is "$(dev_set $D power 1)" OK "power 1"
S=$(dev_sys $D)
DAX=$(cat "$S/dax_device")
# kmem bound, memory added, then offline: one write to state onlines it.
daxctl reconfigure-device --mode=system-ram "$DAX" > /dev/null 2>&1
ok $? "daxctl reconfigure-device --mode=system-ram $DAX"
daxctl offline-memory "$DAX" > /dev/null 2>&1
ok $? "daxctl offline-memory $DAX"
is "$(cat "$S/online")" offline "memory added and offline"
bs=$(printf '%d' "0x$(cat /sys/devices/system/memory/block_size_bytes)")
blk=/sys/devices/system/memory/memory$((BASE / bs))
[ -e "$blk/state" ] || bail "no $blk"
is "$(cat "$blk/state")" offline "$blk offline"

klog_clear
echo 3000 > $P
"$PROGS/sysop" write "$CFS/$D/power" 0 > /tmp/offrace.power &
PW=$!
sleep 1
r=$("$PROGS/sysop" write "$blk/state" online_movable)
wait $PW
pw=$(cat /tmp/offrace.power)
echo 0 > $P
diag "online write in the window: $r; power 0: $pw"
klog_grep "refusing to online\|cannot be hotremoved\|online memory of node" | sed 's/^/# /'
is "$pw" OK "power 0 (the range was offline when it checked)"
st=gone
[ -e "$blk/state" ] && st=$(cat "$blk/state")
is "$st" gone "no memory of the range left behind (block state: $st)"
is "$r" EBUSY "the online in the window was refused"
[ -z "$(klog_grep 'cannot be hotremoved')" ]
ok $? "no hot-remove failure"
grep -q "cxdvirt:$D" /proc/iomem
[ $? != 0 ]
ok $? "/proc/iomem no longer lists the range"
# Nothing leaked: the range comes back and onlines normally.
is "$(dev_set $D power 1)" OK "power 1 again"
DAX=$(cat "$S/dax_device")
daxctl reconfigure-device --mode=system-ram "$DAX" > /dev/null 2>&1
ok $? "online again ($DAX)"
is "$(cat "$S/online")" online "online again"
daxctl offline-memory "$DAX" > /dev/null 2>&1
ok $? "daxctl offline-memory $DAX"
is "$(dev_set $D power 0)" OK "power 0"
rmdir "$CFS/$D"
ok $? "rmdir"
trap - EXIT
done_testing
