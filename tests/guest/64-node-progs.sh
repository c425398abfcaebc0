#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node mode with real programs: stress-ng's verifying VM stressor and a
# redis-server under redis-benchmark, both bound to the device's node with
# numactl --membind. Their anonymous memory must land on that node only.
# The device model on the node (node_latency) is 65-node-latency.sh's,
# which runs stress-ng, redis and memkind with it on: here it is off, so
# the timed placement checks see plain memory.
. /tests/lib.sh

NODE=2
D=node_progs

# pages_on PID NODE [anon]: pages of PID on NODE (anonymous mappings only
# with "anon").
pages_on() {
	awk -v n="N$2=" -v anon="$3" '
		anon != "" && !/ anon=/ { next }
		{ for (i = 1; i <= NF; i++) if (index($i, n) == 1) s += substr($i, length(n) + 1) }
		END { print s + 0 }' "/proc/$1/numa_maps"
}

cleanup() {
	[ -n "$RS" ] && kill $RS 2>/dev/null && wait $RS 2>/dev/null
	x=$(cat "$(dev_sys $D)/dax_device" 2>/dev/null)
	[ -n "$x" ] && daxctl offline-memory "$x" > /dev/null 2>&1
	dev_rm $D
}
trap cleanup EXIT

dev_create $D mode=node phys_addr=0x100000000 capacity=512M target_node=$NODE \
	node_latency=off
ok $? "configure $D"
is "$(dev_set $D power 1)" OK "power on"
S=$(dev_sys $D)
X=$(cat "$S/dax_device")
daxctl reconfigure-device --mode=system-ram "$X" > /dev/null 2>&1
ok $? "online $X on node $NODE"

# --- stress-ng -----------------------------------------------------------
if command -v stress-ng > /dev/null; then
	u0=$(cat "$S/node_used_bytes")
	numactl --membind=$NODE stress-ng --vm 1 --vm-bytes 64M --vm-keep --vm-populate --verify -t 5 \
		--metrics-brief > /tmp/stress.out 2>&1 &
	SP=$!
	# The peak while it runs. --vm-populate faults the 64M in at mmap: on a
	# slow (debug) kernel the stressor's first pass may not end within 5 s,
	# and it would otherwise leave part of the region untouched.
	u1=$u0
	while kill -0 $SP 2>/dev/null; do
		u=$(cat "$S/node_used_bytes")
		[ "$u" -gt "$u1" ] && u1=$u
		sleep 0.5
	done
	wait $SP
	rc=$?
	sed 's/^/# /' /tmp/stress.out | tail -n 6
	is "$rc" 0 "numactl --membind=$NODE stress-ng --vm 1 --vm-bytes 64M --verify -t 5"
	grep -qi "fail" /tmp/stress.out
	[ $? != 0 ]
	ok $? "stress-ng reports no verify failure"
	diag "node_used_bytes $u0 -> $u1 (peak) during the run"
	cmp_ok "$u1" -ge $((u0 + 60 * 1048576)) "stress-ng's 64M are on node $NODE"
else
	skip "stress-ng" "not in the guest"
fi

# --- redis ---------------------------------------------------------------
if command -v redis-server > /dev/null && command -v redis-benchmark > /dev/null; then
	redis_up $NODE /tmp/redis
	RS=$REDIS
	is "$(redis-cli -s $SOCK ping 2>&1)" PONG "redis-server up under membind=$NODE" ||
		tail -n 5 /tmp/redis/redis.log | sed 's/^/# /'
	redis-benchmark -s $SOCK -t set,get -n 20000 -r 100000 -d 1024 -q > /tmp/bench.out 2>&1
	ok $? "redis-benchmark -t set,get -n 20000 -d 1024"
	tr '\r' '\n' < /tmp/bench.out | grep -E 'requests per second' | sed 's/^/# /'
	keys=$(redis-cli -s $SOCK dbsize)
	diag "redis: $keys keys, $(redis-cli -s $SOCK info memory | grep '^used_memory_human' | tr -d '\r')"
	on=$(pages_on $RS $NODE anon)
	off=$(( $(pages_on $RS 0 anon) + $(pages_on $RS 1 anon) + $(pages_on $RS 3 anon) ))
	diag "redis-server anonymous pages: $on on node $NODE, $off elsewhere"
	numastat -p $RS 2>/dev/null | sed 's/^/# /' | tail -n 8
	cmp_ok "$on" -ge 4096 "redis data (>= 16M) on node $NODE"
	is "$off" 0 "no anonymous redis pages on other nodes"
	redis-cli -s $SOCK shutdown nosave > /dev/null 2>&1
	wait $RS 2>/dev/null
	RS=
else
	skip "redis" "redis-server or redis-benchmark not in the guest"
fi

daxctl offline-memory "$X" > /dev/null 2>&1
ok $? "offline $X"
is "$(dev_set $D power 0)" OK "power off"
done_testing
