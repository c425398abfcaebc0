#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node mode, two devices at once, each on its own target node (2 and 3),
# next to a devdax-mode device: both are onlined, a program bound to one
# node gets its pages there and not on the other, and all three come down.
# The device model on the node (node_latency) is 65-node-latency.sh's:
# here it is off, so timed placement checks (memhog) see plain memory.
. /tests/lib.sh

numa_pages_on() {	# numa_pages_on PID NODE: pages of PID on NODE
	awk -v n="N$2=" '{ for (i = 1; i <= NF; i++) if (index($i, n) == 1) s += substr($i, length(n) + 1) } END { print s + 0 }' "/proc/$1/numa_maps"
}

cleanup() {
	kill $HOG 2>/dev/null
	for d in node_a node_b; do
		[ -d "$CFS/$d" ] || continue
		x=$(cat "$(dev_sys $d)/dax_device" 2>/dev/null)
		[ -n "$x" ] && daxctl offline-memory "$x" > /dev/null 2>&1
		dev_rm $d
	done
	dev_rm dd_c
}
trap cleanup EXIT

dev_create node_a mode=node phys_addr=0x100000000 capacity=512M target_node=2 \
	node_latency=off
ok $? "configure node_a: 512M at 4G for node 2"
dev_create node_b mode=node phys_addr=0x120000000 capacity=512M target_node=3 t_read_ns=40000 \
	node_latency=off
ok $? "configure node_b: 512M at 4.5G for node 3, slower NAND"
dev_create dd_c capacity=16M cache_size=1M
ok $? "configure dd_c: devdax mode"
is "$(dev_set node_a power 1)" OK "power on node_a"
is "$(dev_set node_b power 1)" OK "power on node_b"
dev_on dd_c
ok $? "power on dd_c next to them"
A=$(dev_sys node_a)
B=$(dev_sys node_b)
XA=$(cat "$A/dax_device")
XB=$(cat "$B/dax_device")
diag "node_a: $XA, node_b: $XB"
[ -n "$XA" ] && [ -n "$XB" ] && [ "$XA" != "$XB" ]
ok $? "two distinct dax devices"
is "$(cat /sys/bus/dax/devices/$XA/target_node)" 2 "$XA target_node 2"
is "$(cat /sys/bus/dax/devices/$XB/target_node)" 3 "$XB target_node 3"
is "$(cat "$(dev_sys dd_c)/mode")" devdax "dd_c sysfs mode devdax"

daxctl reconfigure-device --mode=system-ram "$XA" > /dev/null 2>&1
ok $? "online $XA"
daxctl reconfigure-device --mode=system-ram "$XB" > /dev/null 2>&1
ok $? "online $XB"
numactl -H | grep -E '^node [0-9]+ size' | sed 's/^/# /'
numactl -H | grep -q '^node 2 size: 512 MB' && numactl -H | grep -q '^node 3 size: 512 MB'
ok $? "numactl -H: nodes 2 and 3 with 512 MB each"
is "$(cat /sys/devices/system/node/has_memory)" 0-3 "nodes 0-3 have memory"
ada=$(cat "$A/adistance")
adb=$(cat "$B/adistance")
diag "adistance node_a $ada, node_b $adb"
cmp_ok "$adb" -gt "$ada" "slower NAND, larger abstract distance"
for t in /sys/devices/virtual/memory_tiering/memory_tier*; do
	diag "$(basename $t): $(cat $t/nodelist)"
done

ua=$(cat "$A/node_used_bytes")
numactl --membind=3 memhog -r100000 32M > /dev/null 2>&1 &
HOG=$!
sleep 3
n3=$(numa_pages_on $HOG 3)
n2=$(numa_pages_on $HOG 2)
diag "memhog bound to node 3: $n3 pages on node 3, $n2 on node 2"
cmp_ok "$n3" -ge 8192 "membind=3: >= 8192 pages on node 3"
is "$n2" 0 "membind=3: none on node 2"
cmp_ok "$(cat "$B/node_used_bytes")" -ge 33554432 "node_b node_used_bytes >= 32M"
cmp_ok "$(cat "$A/node_used_bytes")" -le $((ua + 1048576)) "node_a node_used_bytes unchanged"
kill $HOG
wait $HOG 2>/dev/null
HOG=

"$PROGS/pages" "$(dev_node dd_c)" write 0 64 -s 7 && "$PROGS/pages" "$(dev_node dd_c)" verify 0 64 -s 7
ok $? "dd_c: write and verify 64 pages while both nodes are online"

daxctl offline-memory "$XA" > /dev/null 2>&1 && daxctl offline-memory "$XB" > /dev/null 2>&1
ok $? "offline both"
is "$(dev_set node_b power 0)" OK "power off node_b"
is "$(dev_set node_a power 0)" OK "power off node_a"
dev_off dd_c
ok $? "power off dd_c"
is "$(cat /sys/devices/system/node/has_memory)" 0-1 "nodes 2 and 3 empty again"
[ -z "$(ls /sys/bus/dax/devices/)" ]
ok $? "no dax device left"
done_testing
