#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# devdax statistics and tracepoints add up over a mixed run: misses,
# write-backs and evictions with a tracefs instance recording every event,
# including misses killed in their modeled wait and a miss whose retry never
# came back to the device (its mapping replaced while it waited). Every
# counter must equal its event count, evictions = clean + dirty, the miss
# histogram must count every miss, and a later fault of the page filled by
# the abandoned miss must be counted (a hit) and read the right data.
# Node mode: 70-node-stats-agree.sh.
. /tests/lib.sh

D=sagree
cleanup() {
	trace_off
	dev_rm $D 2>/dev/null
}
trap cleanup EXIT

trace_on cxdagree

dev_create $D capacity=16M cache_size=1M channels=2 dies_per_channel=2 \
	policy=fifo scan_interval_ms=0 || bail "create $D"
dev_on $D || bail "power on $D"
N=$(dev_node $D)
S=$(dev_sys $D)/stats

stats_reset $D
echo > "$I/trace"
echo 1 > "$I/tracing_on"

section "misses killed in their wait"
# 20 dirty pages, then 300 others through the 256-line FIFO cache:
# write-backs. Then tR 100 ms: every miss sleeps (mmap_lock dropped), and
# SIGKILL ends one of them.
"$PROGS/pages" "$N" write 1000 20 -w 1
"$PROGS/pages" "$N" read 2000 300
m0=$(stat_get $D misses)
is "$(dev_set $D t_read_ns 100000000)" OK "t_read_ns 100 ms"
"$PROGS/pages" "$N" read 4000 30 &
K=$!
sleep 1
kill -KILL $K
ok $? "SIGKILL the reader in its wait"
wait $K 2>/dev/null
dev_set $D t_read_ns 3000 > /dev/null
km=$(($(stat_get $D misses) - m0))
cmp_ok "$km" -ge 1 "the killed reader's misses were counted ($km)"
cmp_ok "$km" -lt 30 "it was killed before its last miss"

section "a miss whose retry never comes"
# Page 5 written, then evicted by 300 other pages; then fillrace's thread
# misses on it (tR 100 ms) while its mapping is replaced by anonymous memory.
"$PROGS/pages" "$N" write 5 1 -s 7 -w 1
"$PROGS/pages" "$N" read 3000 300
dev_set $D t_read_ns 100000000 > /dev/null
m0=$(stat_get $D misses)
out=$("$PROGS/fillrace" "$N" 5 30)
ok $? "fillrace: the mapping replaced while its miss waited"
is "$out" "read 0" "the retry read the anonymous memory"
dev_set $D t_read_ns 3000 > /dev/null
is "$(($(stat_get $D misses) - m0))" 1 "the abandoned miss was counted once"
m0=$(stat_get $D misses)
h0=$(stat_get $D minor_hits)
"$PROGS/pages" "$N" verify 5 1 -s 7 -w 1
ok $? "another process reads page 5 right"
is "$(($(stat_get $D minor_hits) - h0)) $(($(stat_get $D misses) - m0))" "1 0" \
	"its fault is counted: a hit on the line the abandoned miss filled"

section "counters against events"
echo 0 > "$I/tracing_on"
grep -v '^#' "$I/trace" > /tmp/sagree.all
sed -n 's/.* cxdvirt_\([a-z]*\): \(.*\)/\1 \2/p' /tmp/sagree.all > /tmp/sagree
nev() {	# nev EVENT [AWK-CONDITION]
	awk -v e="$1" "\$1 == e ${2:+&& $2}" /tmp/sagree | wc -l
}
is "$(grep -c 'overrun\|LOST' /tmp/sagree.all)" 0 "no lost events"
m=$(stat_get $D misses)
ev=$(stat_get $D evictions)
wb=$(stat_get $D writebacks)
cmp_ok "$wb" -gt 0 "write-backs happened"
diag "misses $m, evictions $ev (clean $(stat_get $D clean_evictions), dirty $(stat_get $D dirty_evictions)), writebacks $wb"
is "$(nev miss)" "$m" "cxdvirt_miss events == stats/misses"
is "$(awk '{ s += $2 } END { print s + 0 }' $S/miss_latency_hist)" "$m" \
	"miss_latency_hist counts every miss"
is "$(nev evict)" "$ev" "cxdvirt_evict events == stats/evictions"
is "$(nev writeback)" "$wb" "cxdvirt_writeback events == stats/writebacks"
is "$(nev prefetch)" "$(stat_get $D prefetch_issued)" \
	"cxdvirt_prefetch events == stats/prefetch_issued"
is "$(($(stat_get $D clean_evictions) + $(stat_get $D dirty_evictions)))" "$ev" \
	"evictions == clean + dirty"
trace_off

dev_rm $D
ok $? "remove $D"
trap - EXIT
done_testing
