#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The model's counters in stats/ (misses by cause, evictions clean/dirty,
# prefetch, histograms, per-die busy time, elapsed time) and stats/reset.
# The per-miss trace (tracepoints) is 51-tracepoints.sh.
. /tests/lib.sh

D=strace
trap 'dev_rm $D 2>/dev/null; dev_rm big 2>/dev/null' EXIT

# hsum FILE: total count of a "LOW_NS COUNT" histogram.
hsum() {
	awk '{ s += $2 } END { print s + 0 }' "$1"
}

dev_create $D capacity=16M cache_size=1M channels=2 dies_per_channel=2 \
	scan_interval_ms=0 || bail "create $D"
dev_on $D || bail "power on $D"
S=$(dev_sys $D)/stats
N=$(dev_node $D)

# 100 read misses in a 256-line cache: no evictions.
stats_reset $D
"$PROGS/pages" "$N" read 0 100
is "$(stat_get $D misses)" 100 "100 misses"
is "$(stat_get $D read_misses)" 100 "100 read misses"
is "$(stat_get $D write_misses)" 0 "no write misses"
is "$(hsum $S/model_latency_hist)" 100 "model_latency_hist counts 100 misses"
is "$(hsum $S/queue_latency_hist)" 100 "queue_latency_hist counts 100 reads"
is "$(hsum $S/miss_latency_hist)" 100 "miss_latency_hist counts 100 misses"
cmp_ok "$(stat_get $D model_ns_total)" -gt 0 "model_ns_total > 0"

# die_busy_ns: 2 x 2 dies, fixed 32-byte lines "CH DIE BUSY_NS".
is "$(wc -l < $S/die_busy_ns)" 4 "die_busy_ns: 4 lines"
is "$(wc -c < $S/die_busy_ns)" 128 "die_busy_ns: 32 bytes a line"
is "$(awk '{ printf "%s.%s ", $1, $2 }' $S/die_busy_ns)" "0.0 0.1 1.0 1.1 " \
	"die_busy_ns: channel-major CH DIE"
# Pages 0..99 spread evenly: 25 reads of tR = 3000 ns on each die.
is "$(awk '{ printf "%s ", $3 }' $S/die_busy_ns)" "75000 75000 75000 75000 " \
	"die_busy_ns: 25 x tR per die"
e1=$(stat_get $D elapsed_ns)
sleep 0.2
e2=$(stat_get $D elapsed_ns)
cmp_ok "$e2" -gt "$((e1 + 100000000))" "elapsed_ns advances with time"

# Write misses: cause write, counted apart.
stats_reset $D
"$PROGS/pages" "$N" write 200 10 -w 1
is "$(stat_get $D write_misses)" 10 "10 write misses"
is "$(stat_get $D read_misses)" 0 "no read misses"

# Evictions clean and dirty: 300 more pages through the 256-line cache.
stats_reset $D
"$PROGS/pages" "$N" read 1000 300
ev=$(stat_get $D evictions)
cmp_ok "$ev" -gt 0 "evictions after overflowing the cache"
is "$(( $(stat_get $D clean_evictions) + $(stat_get $D dirty_evictions) ))" "$ev" \
	"clean + dirty evictions == evictions"
is "$(stat_get $D dirty_evictions)" "$(stat_get $D writebacks)" \
	"dirty evictions == writebacks"
cmp_ok "$(stat_get $D dirty_evictions)" -gt 0 "the written pages were written back"

# Write allocation without a read.
is "$(dev_set $D write_alloc 1)" OK "write_alloc 1 (live)"
stats_reset $D
"$PROGS/pages" "$N" write 2000 5 -w 1
is "$(stat_get $D write_allocs)" 5 "5 write allocations"
dev_set $D write_alloc 0 > /dev/null

# Prefetch counters.
is "$(dev_set $D prefetch next)" OK "prefetch next (live)"
stats_reset $D
"$PROGS/pages" "$N" read 3000 50
cmp_ok "$(stat_get $D prefetch_issued)" -gt 0 "prefetch_issued > 0"
cmp_ok "$(stat_get $D prefetch_useful)" -gt 0 "prefetch_useful > 0"
late=$(stat_get $D prefetch_late)
diag "prefetch: issued $(stat_get $D prefetch_issued) useful $(stat_get $D prefetch_useful) late $late late_ns $(stat_get $D prefetch_late_ns) polluting $(stat_get $D prefetch_polluting)"
dev_set $D prefetch none > /dev/null

# reset zeroes every counter and histogram, and die busy time, and
# restarts elapsed_ns.
sleep 0.5
eb=$(stat_get $D elapsed_ns)
stats_reset $D
ea=$(stat_get $D elapsed_ns)
cmp_ok "$ea" -lt "$eb" "reset restarts elapsed_ns ($eb -> $ea)"
for c in misses read_misses write_misses write_allocs unwritten_skips \
	minor_hits evictions clean_evictions dirty_evictions writebacks erases \
	prefetch_issued prefetch_useful prefetch_late prefetch_late_ns \
	prefetch_polluting miss_ns_total model_ns_total queue_ns_total; do
	is "$(stat_get $D $c)" 0 "reset zeroes $c"
done
for h in miss_latency_hist model_latency_hist queue_latency_hist; do
	is "$(cat $S/$h)" "" "reset empties $h"
done
is "$(awk '{ s += $3 } END { print s + 0 }' $S/die_busy_ns)" 0 "reset zeroes die_busy_ns"
dev_rm $D
ok $? "remove $D"

# A large geometry: 4096 dies, more than one page of die_busy_ns.
dev_create big capacity=2M channels=64 dies_per_channel=64 || bail "create big"
dev_on big || bail "power on big"
B=$(dev_sys big)/stats/die_busy_ns
is "$(wc -l < $B)" 4096 "64 x 64 dies: 4096 lines"
is "$(tail -n 1 $B | awk '{ print $1, $2, $3 }')" "63 63 0" "last line is die 63 of channel 63"
is "$(dd if=$B bs=7 skip=1000 count=10 2>/dev/null | wc -c)" 70 "reads at odd offsets"
dev_rm big
ok $? "remove big"
done_testing
