#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A powered node-mode device without node_latency has no mappings to scan:
# writing a live attribute does not start an (empty) accessed-bit scan.
# (With node_latency on, the node's pages are scanned instead:
# 65-node-latency.sh.)
. /tests/lib.sh

D=nscan
trap 'dev_rm $D 2>/dev/null' EXIT

dev_create $D mode=node phys_addr=0x100000000 capacity=128M target_node=2 \
	scan_interval_ms=10 node_latency=off || bail "create $D"
is "$(dev_set $D power 1)" OK "node-mode device powered"
S=$(dev_sys $D)
is "$(dev_set $D t_read_ns 5000)" OK "live write of t_read_ns"
is "$(dev_set $D scan_interval_ms 20)" OK "live write of scan_interval_ms"
sleep 1
is "$(cat "$S/stats/scan_passes")" 0 "no scan pass ran"
dev_rm $D
ok $? "remove $D"
done_testing
