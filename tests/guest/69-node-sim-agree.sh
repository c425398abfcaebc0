#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node mode with node_latency=on agrees with the simulator: a program bound
# to the node replays one trace, and the device counts exactly the misses
# that cxdvirt-sim --faults counts for the same trace under fifo, lru and
# clock. (Split from 65-node-latency.)
. /tests/lib.sh

SIM=/bin/cxdvirt-sim
nl_begin "agreement with cxdvirt-sim"

# One single-threaded trace, fully associative cache of 256 lines, scan
# off. The program first writes its pages 0..599 in order (first touches),
# so the simulator replays that prefix too. Device pages are whatever
# frames the kernel gave, a bijection of the trace's pages: miss counts are
# the same.
if [ -x "$SIM" ]; then
	"$PROGS/replay" gen 7 3000 600 25 > /tmp/nl.trace
	{ i=0; while [ $i -lt 600 ]; do echo "W $i"; i=$((i + 1)); done; cat /tmp/nl.trace; } > /tmp/nl-full.trace
	for pol in fifo lru clock; do
		nl_power_up cache_size=1M t_read_ns=0 t_prog_ns=0 channel_mbps=100000 \
			policy=$pol || { fail "$pol: power up"; continue; }
		stats_reset $NL_DEV
		"$PROGS/nodelat" replay $NL_NODE /tmp/nl.trace 600
		ok $? "$pol: replay bound to node $NL_NODE"
		"$SIM" --capacity 512M --cache 1M --policy $pol --faults --json \
			/tmp/nl-full.trace > /tmp/nl.json
		want=$(sed -n 's/.*"misses": *\([0-9][0-9]*\).*/\1/p' /tmp/nl.json | head -n 1)
		is "$(stat_get $NL_DEV misses)" "$want" "$pol: misses agree with cxdvirt-sim --faults ($want)"
		nl_power_down || fail "$pol: power down"
	done
else
	skip "agreement with cxdvirt-sim" "cxdvirt-sim not in the guest"
fi

klog_grep "cxdvirt" | grep -i "warn\|error" | head -n 5 | sed 's/^/# /'
nl_end
done_testing
