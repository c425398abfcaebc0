#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A policy switch on a large, full cache does its O(cache lines) work in
# bounded steps: a task sleeping on the CPU that switches runs between the
# steps, instead of waiting for the whole switch under the device lock.
# Meanwhile other processes fault pages in (through the model) and the scan
# feeds touches: they wait for each switch to end, and all complete.
. /tests/lib.sh

D=lhold
LINES=262144
trap 'touch /tmp/lhold.stop; dev_rm $D 2>/dev/null' EXIT

dev_create $D capacity=1G cache_size=1G t_read_ns=1000 cflru_window_pct=100 \
	prefetch=next prefetch_degree=16 || bail "create $D"
dev_on $D || bail "power on $D"
N=$(dev_node $D)
# Fill the cache: each miss prefetches the 16 pages after it; a few dirty.
"$PROGS/pages" "$N" read 0 $((LINES / 17 + 1)) -S 17 || bail "fill $D"
"$PROGS/pages" "$N" write 0 $((LINES / 64)) -S 64 -w 1 || bail "dirty $D"
u=$(stat_get $D misses)
cmp_ok "$(( $(cat "$(dev_sys $D)/cache_used") / 4096 ))" -ge $((LINES * 9 / 10)) \
	"cache nearly full ($u misses)"
# Faults (each run maps afresh: every page is a minor hit through the
# model) and scan passes during the switches.
rm -f /tmp/lhold.stop /tmp/lhold.err
dev_set $D scan_interval_ms 10 > /dev/null
h0=$(stat_get $D minor_hits)
(
	i=0
	while [ ! -e /tmp/lhold.stop ]; do
		"$PROGS/pages" "$N" read $((i % 64 * 4096)) 4096 ||
			echo "run $i: $?" >> /tmp/lhold.err
		i=$((i + 1))
	done
) &
BG=$!
# The debug kernel (cxdvirt_debug=1: KASAN, lockdep) runs the switches for
# its checks; the timing bound is a stock-kernel check.
if [ "${cxdvirt_debug:-0}" = 1 ]; then
	run_sub hold "$PROGS/hold" -n "$CFS/$D/policy" 4 cflru s3fifo 2q clock
	skip "a sleeper runs during a switch" "timing on the debug kernel"
else
	run_sub hold "$PROGS/hold" "$CFS/$D/policy" 4 cflru s3fifo 2q clock
fi
touch /tmp/lhold.stop
wait $BG
is "$(cat /tmp/lhold.err 2>/dev/null)" "" "faults during the switches all completed"
h1=$(stat_get $D minor_hits)
cmp_ok "$h1" -gt "$h0" "faults went through the model meanwhile ($((h1 - h0)))"
cmp_ok "$(stat_get $D scan_passes)" -gt 0 "the scan ran meanwhile"
cmp_ok "$(stat_get $D scan_ns_total)" -gt 0 "stats/scan_ns_total counts its time"
dev_set $D scan_interval_ms 0 > /dev/null
is "$(dev_get $D policy)" clock "the last switch took effect"
"$PROGS/pages" "$N" read 0 64 || bail "access after the switches"
ok $? "the device still serves faults"
dev_rm $D
ok $? "remove $D"
done_testing
