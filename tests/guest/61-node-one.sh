#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node mode, one device: the range reserved at 4G becomes a dax device for
# node 2 through dax_hmem, daxctl onlines it through kmem as ZONE_MOVABLE,
# numactl --membind=2 puts a program's pages there, the node sits in a memory
# tier below DRAM, power-off is refused while the memory is online, and the
# way back (devdax, power 0, rmdir) is clean.
# The device model on the node (node_latency) is 65-node-latency.sh's:
# here it is off, so timed placement checks (memhog) see plain memory.
. /tests/lib.sh

D=node_one
NODE=2
BASE=0x100000000

numa_pages_on() {	# numa_pages_on PID NODE: pages of PID on NODE
	awk -v n="N$2=" '{ for (i = 1; i <= NF; i++) if (index($i, n) == 1) s += substr($i, length(n) + 1) } END { print s + 0 }' "/proc/$1/numa_maps"
}

trap 'kill $HOG 2>/dev/null; daxctl offline-memory "$DAX" >/dev/null 2>&1; dev_rm $D 2>/dev/null' EXIT

is "$(cat /sys/devices/system/node/has_memory)" "0-1" "nodes 0-1 have memory, 2 and 3 do not"
diag "possible nodes: $(cat /sys/devices/system/node/possible)"

dev_create $D mode=node phys_addr=$BASE capacity=512M target_node=$NODE \
	node_latency=off
ok $? "configure $D: mode node, 512M at $BASE, target_node $NODE"
klog_clear
r=$(dev_set $D power 1)
is "$r" OK "power 1"
S=$(dev_sys $D)
is "$(cat "$S/mode")" node "sysfs mode"
is "$(cat "$S/target_node")" $NODE "sysfs target_node"
DAX=$(cat "$S/dax_device")
case $DAX in
dax*.0) pass "sysfs dax_device $DAX" ;;
*) fail "sysfs dax_device '$DAX'" ;;
esac
is "$(cat /sys/bus/dax/devices/$DAX/target_node 2>&1)" $NODE "$DAX target_node"
is "$(cat "$S/online")" offline "memory offline before daxctl"
[ ! -e "/dev/cxdvirt$(dev_get $D index)" ]
ok $? "no char device in node mode"
grep -q "cxdvirt:$D" /proc/iomem
ok $? "/proc/iomem names the range cxdvirt:$D"
klog_grep "registered as hmem" | sed 's/^/# /'

out=$(daxctl reconfigure-device --mode=system-ram "$DAX" 2>&1)
ok $? "daxctl reconfigure-device --mode=system-ram $DAX"
diag "$(echo "$out" | grep -v '^\s*[]{}"[]' | head -n 3)"
is "$(cat "$S/online")" online "sysfs online"
is_num "$(cat "$S/online_bytes")" 512M "online_bytes 512M"
is_num "$(cat "$S/movable_bytes")" 512M "all of it ZONE_MOVABLE"
numactl -H | grep "^node $NODE size" | sed 's/^/# /'
numactl -H | grep -q "^node $NODE size: 512 MB"
ok $? "numactl -H: node $NODE size 512 MB"
case ",$(cat /sys/devices/system/node/has_memory)," in
*",$NODE"*|*"-$NODE"*) pass "node $NODE has memory" ;;
*) fail "node $NODE has memory: $(cat /sys/devices/system/node/has_memory)" ;;
esac

# Memory tier: our abstract distance, a tier of its own below DRAM.
ad=$(cat "$S/adistance")
tier=/sys/devices/virtual/memory_tiering/memory_tier$((ad >> 7))
diag "adistance $ad -> $tier"
is "$(cat "$tier/nodelist" 2>&1)" $NODE "node $NODE alone in memory_tier$((ad >> 7))"
cmp_ok "$ad" -gt 576 "adistance above DRAM's (576)"

# A program bound to the node: its pages land there.
used0=$(cat "$S/node_used_bytes")
numactl --membind=$NODE memhog -r100000 64M > /dev/null 2>&1 &
HOG=$!
sleep 3
n=$(numa_pages_on $HOG $NODE)
diag "memhog: $n pages on node $NODE; node_used_bytes $used0 -> $(cat "$S/node_used_bytes")"
cmp_ok "$n" -ge 16384 "numactl --membind=$NODE memhog 64M: >= 16384 pages on node $NODE"
cmp_ok "$(cat "$S/node_used_bytes")" -ge $((used0 + 60 * 1048576)) "node_used_bytes grew by ~64M"

r=$(dev_set $D power 0)
is "$r" EBUSY "power 0 refused while the memory is online"
klog_grep "online memory of node" | sed 's/^/# /'
klog_grep "online memory of node" | grep -q "$DAX"
ok $? "the refusal names the dax device"
r=$("$PROGS/sysop" rmdir "$CFS/$D")
is "$r" EBUSY "rmdir refused while powered in node mode"

kill $HOG
wait $HOG 2>/dev/null
HOG=
out=$(daxctl offline-memory "$DAX" 2>&1)
ok $? "daxctl offline-memory $DAX"
diag "$out"
out=$(daxctl reconfigure-device --mode=devdax "$DAX" 2>&1)
ok $? "daxctl reconfigure-device --mode=devdax $DAX (kmem unbinds)"
diag "$(echo "$out" | grep -v '^\s*[]{}"[]' | head -n 3)"
is "$(cat "$S/online")" offline "sysfs online: offline"
r=$(dev_set $D power 0)
is "$r" OK "power 0"
[ ! -e /sys/bus/dax/devices/$DAX ]
ok $? "$DAX is gone"
grep -q "cxdvirt:$D" /proc/iomem
[ $? != 0 ]
ok $? "/proc/iomem no longer lists the range"
[ ! -e "$tier" ] || [ -z "$(cat "$tier/nodelist")" ]
ok $? "memory tier of node $NODE gone"

# Second cycle on the same range: nothing leaked.
r=$(dev_set $D power 1)
is "$r" OK "power 1 again"
DAX=$(cat "$S/dax_device")
daxctl reconfigure-device --mode=system-ram "$DAX" > /dev/null 2>&1
ok $? "online again ($DAX)"
is "$(cat "$S/online")" online "online again"
daxctl offline-memory "$DAX" > /dev/null 2>&1
ok $? "daxctl offline-memory $DAX (kmem stays bound)"
r=$(dev_set $D power 0)
is "$r" OK "power 0 with kmem bound and memory offline"
rmdir "$CFS/$D"
ok $? "rmdir"
klog_grep "cannot be hotremoved\|WARNING" | sed 's/^/# /'
[ -z "$(klog_grep 'cannot be hotremoved')" ]
ok $? "no hot-remove failure"
trap - EXIT
done_testing
