#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node-mode statistics and tracepoints add up over a mixed run: an
# accessed-bit scan over more pages than one batch of the scan, shared pages
# written without a fault (late write-backs at eviction) and a program
# killed in its modeled wait. Every counter must equal its event count (a late
# write-back is a cxdvirt_writeback event too), evictions = clean + dirty,
# and stats/scan_touched must count every page a pass found accessed.
# devdax: 52-stats-agree.sh.
. /tests/lib.sh

OUT=/tmp/nl-agree.out

nl_begin "node-mode statistics against tracepoints"
trap 'trace_off; [ -n "$W" ] && kill -KILL "$W" 2>/dev/null; nl_end' EXIT
nl_power_up cache_size=4M t_read_ns=20000 policy=fifo ||
	bail "power on $NL_DEV in node mode and online it"
pass "power on, online as node $NL_NODE ($DAX)"
trace_on cxdnlagree
nlc() {
	cat "$S/node_latency/$1"
}

stats_reset $NL_DEV
echo > "$I/trace"
echo 1 > "$I/tracing_on"

section "an accessed-bit scan over 300 pages"
# First, into the empty cache (1024 lines): no page is evicted before the scan.
e0=$(stat_get $NL_DEV evictions)
"$PROGS/nodelat" touch $NL_NODE 300 0 > /dev/null &
W=$!
wait_stopped $W > /dev/null
t0=$(stat_get $NL_DEV scan_touched)
p0=$(stat_get $NL_DEV scan_passes)
dev_set $NL_DEV scan_interval_ms 100 > /dev/null
for _ in $(seq 200); do
	[ "$(stat_get $NL_DEV scan_passes)" -ge $((p0 + 3)) ] && break
	sleep 0.1
done
dev_set $NL_DEV scan_interval_ms 0 > /dev/null
passes=$(($(stat_get $NL_DEV scan_passes) - p0))
touched=$(($(stat_get $NL_DEV scan_touched) - t0))
cmp_ok "$passes" -ge 3 "scan passes ran ($passes)"
is "$(stat_get $NL_DEV evictions)" "$e0" "no eviction meanwhile"
is "$touched" 300 "scan_touched counts the 300 pages the first pass found accessed"
kill -CONT $W
wait $W
ok $? "the scanned program ends"
W=

section "shared pages written without a fault"
lw0=$(nlc late_writebacks)
numactl --membind=$NL_NODE "$PROGS/nodelat" shared anon $NL_NODE $IDX 512 - > $OUT 2>&1
ok $? "nodelat shared anon 512 ($(grep -c '^not ok' $OUT) of its checks failed)"
lw=$(($(nlc late_writebacks) - lw0))
cmp_ok "$lw" -gt 0 "late write-backs happened (+$lw)"

section "a program killed in its wait"
m0=$(stat_get $NL_DEV misses)
is "$(dev_set $NL_DEV t_read_ns 100000000)" OK "t_read_ns 100 ms"
"$PROGS/nodelat" touch $NL_NODE 50 0 > /dev/null &
W=$!
# killed in its wait once a miss was counted: a fixed sleep let a slow
# start (a busy host under TCG) reach no access at all
i=0
while [ "$(stat_get $NL_DEV misses)" = "$m0" ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
sleep 0.05
kill -KILL $W
wait $W 2>/dev/null
W=
dev_set $NL_DEV t_read_ns 20000 > /dev/null
km=$(($(stat_get $NL_DEV misses) - m0))
cmp_ok "$km" -ge 1 "the killed program's misses were counted ($km)"
cmp_ok "$km" -lt 50 "it was killed before its last miss"

section "counters against events"
echo 0 > "$I/tracing_on"
grep -v '^#' "$I/trace" | grep "dev=$IDX " > /tmp/nlagree.all
sed -n 's/.* cxdvirt_\([a-z]*\): \(.*\)/\1 \2/p' /tmp/nlagree.all > /tmp/nlagree
nev() {	# nev EVENT
	awk -v e="$1" '$1 == e' /tmp/nlagree | wc -l
}
is "$(grep -v '^#' "$I/trace" | grep -c 'overrun\|LOST')" 0 "no lost events"
m=$(stat_get $NL_DEV misses)
ev=$(stat_get $NL_DEV evictions)
wb=$(stat_get $NL_DEV writebacks)
diag "misses $m, evictions $ev (clean $(stat_get $NL_DEV clean_evictions), dirty $(stat_get $NL_DEV dirty_evictions)), writebacks $wb, late $(nlc late_writebacks)"
is "$(nev miss)" "$m" "cxdvirt_miss events == stats/misses"
is "$(awk '{ s += $2 } END { print s + 0 }' "$S/stats/miss_latency_hist")" "$m" \
	"miss_latency_hist counts every miss"
is "$(nev evict)" "$ev" "cxdvirt_evict events == stats/evictions"
is "$(nev writeback)" "$wb" "cxdvirt_writeback events == stats/writebacks (late ones too)"
is "$(nev prefetch)" "$(stat_get $NL_DEV prefetch_issued)" \
	"cxdvirt_prefetch events == stats/prefetch_issued"
is "$(($(stat_get $NL_DEV clean_evictions) + $(stat_get $NL_DEV dirty_evictions)))" "$ev" \
	"evictions == clean + dirty"
trace_off
nl_power_down
ok $? "offline and power off"
nl_end
done_testing
