#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A policy switch on a large, full cache does its O(cache lines) work in
# bounded steps: a task sleeping on the CPU that switches runs between the
# steps, instead of waiting for the whole switch under the device lock.
. /tests/lib.sh

D=lhold
LINES=262144
trap 'dev_rm $D 2>/dev/null' EXIT

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
# The debug kernel (cxdvirt_debug=1: KASAN, lockdep) runs the switches for
# its checks; the timing bound is a stock-kernel check.
if [ "${cxdvirt_debug:-0}" = 1 ]; then
	run_sub hold "$PROGS/hold" -n "$CFS/$D/policy" 4 cflru s3fifo 2q clock
	skip "sleeper under half the longest switch" "timing on the debug kernel"
else
	run_sub hold "$PROGS/hold" "$CFS/$D/policy" 4 cflru s3fifo 2q clock
fi
is "$(dev_get $D policy)" clock "the last switch took effect"
"$PROGS/pages" "$N" read 0 64 || bail "access after the switches"
ok $? "the device still serves faults"
dev_rm $D
ok $? "remove $D"
done_testing
