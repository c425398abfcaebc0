#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The cxdvirt tracepoints: cxdvirt_miss (one per miss: its count equals
# stats/misses, fields dev page cause die queue_ns model_ns measured_ns),
# cxdvirt_evict / cxdvirt_writeback (counts equal stats/evictions and
# stats/writebacks) and cxdvirt_prefetch (count equals prefetch_issued),
# read through a tracefs instance; then cxdvirt_miss through perf when the
# guest has it.
. /tests/lib.sh

D=tpt
cleanup() {
	trace_off
	dev_rm $D 2>/dev/null
}
trap cleanup EXIT

trace_on cxdtest
for e in cxdvirt_miss cxdvirt_evict cxdvirt_writeback cxdvirt_prefetch; do
	ok "$([ -d "$T/events/cxdvirt/$e" ]; echo $?)" "event cxdvirt:$e exists"
done
fmt=$(sed -n 's/^print fmt: "\(.*\)", REC->.*/\1/p' "$T/events/cxdvirt/cxdvirt_miss/format")
is "$fmt" "dev=%s page=%llu cause=%s die=%u queue_ns=%llu model_ns=%llu measured_ns=%llu" \
	"cxdvirt_miss print format"

# tr_run: clear the instance's buffer, run "$@" traced; the events end up in
# /tmp/tp (the "dev=..." part of each line) and /tmp/tp.all.
tr_run() {
	echo > "$I/trace"
	echo 1 > "$I/tracing_on"
	"$@"
	echo 0 > "$I/tracing_on"
	grep -v '^#' "$I/trace" > /tmp/tp.all
	sed -n 's/.* cxdvirt_\([a-z]*\): \(.*\)/\1 \2/p' /tmp/tp.all > /tmp/tp
}
nev() {	# nev EVENT [AWK-CONDITION]
	awk -v e="$1" "\$1 == e ${2:+&& $2}" /tmp/tp | wc -l
}
field() {	# field NAME: the value of NAME=... on each line
	sed -n "s/.* $1=\([^ ]*\).*/\1/p"
}

dev_create $D capacity=16M cache_size=1M channels=2 dies_per_channel=2 \
	scan_interval_ms=0 || bail "create $D"
dev_on $D || bail "power on $D"
N=$(dev_node $D)
DEVN=$(basename "$N")

# 100 read misses, no eviction: one cxdvirt_miss each, in order.
stats_reset $D
tr_run "$PROGS/pages" "$N" read 0 100
m=$(stat_get $D misses)
is "$m" 100 "100 misses"
is "$(nev miss)" "$m" "cxdvirt_miss count == stats/misses"
is "$(grep -c 'overrun\|LOST' /tmp/tp.all)" 0 "no lost events"
# a wait ends stats/miss_tail_ns early (the handler's work after it):
# measured_ns may fall short of model_ns by that, twice allowed
tail=$(stat_get $D miss_tail_ns)
bad=$(awk -v dev="$DEVN" -v tail="$tail" '
	{ for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } }
	$1 != "miss" { next }
	NF != 8 { print "fields: " $0; next }
	f["dev"] != dev { print "dev: " $0; next }
	f["page"] != n++ { print "order: " $0; next }
	f["cause"] != "read" { print "cause: " $0; next }
	f["die"] != (f["page"] % 2) * 2 + int(f["page"] / 2) % 2 { print "die: " $0; next }
	f["model_ns"] < f["queue_ns"] || f["model_ns"] < 6000 || f["measured_ns"] + 2 * tail < f["model_ns"] { print "times: " $0 }
	' /tmp/tp)
is "$bad" "" "cxdvirt_miss: dev, page in order, cause read, flat die, queue <= model <= measured + 2 x miss_tail_ns"
is "$(nev evict)" 0 "no cxdvirt_evict without evictions"

# Write misses.
stats_reset $D
tr_run "$PROGS/pages" "$N" write 200 10 -w 1
is "$(stat_get $D write_misses)" 10 "10 write misses"
is "$(field cause < /tmp/tp | sort | uniq -c | awk '{ print $1, $2 }')" "10 write" \
	"cxdvirt_miss: 10 cause=write"

# Evictions and write-backs: 300 more pages through the 256-line cache,
# with 10 dirty lines in it.
stats_reset $D
tr_run "$PROGS/pages" "$N" read 1000 300
ev=$(stat_get $D evictions)
wb=$(stat_get $D writebacks)
cmp_ok "$ev" -gt 0 "evictions"
cmp_ok "$wb" -gt 0 "write-backs"
is "$(nev miss)" "$(stat_get $D misses)" "cxdvirt_miss count == stats/misses"
is "$(nev evict)" "$ev" "cxdvirt_evict count == stats/evictions"
is "$(nev evict '/dirty=1/')" "$(stat_get $D dirty_evictions)" \
	"cxdvirt_evict dirty=1 count == stats/dirty_evictions"
is "$(nev writeback)" "$wb" "cxdvirt_writeback count == stats/writebacks"
is "$(awk '$1 == "writeback" { print $3 }' /tmp/tp | sort -n | tr '\n' ' ')" \
	"$(awk '$1 == "evict" && /dirty=1/ { print $3 }' /tmp/tp | sort -n | tr '\n' ' ')" \
	"write-backs are the dirty victims' pages"

# write_alloc: misses without a NAND read have no die.
dev_set $D write_alloc 1 > /dev/null
stats_reset $D
tr_run "$PROGS/pages" "$N" write 2000 5 -w 1
is "$(stat_get $D write_allocs)" 5 "5 write allocations"
is "$(awk '$1 == "miss" && /cause=write_alloc/ && /die=4294967295/' /tmp/tp | wc -l)" 5 \
	"cxdvirt_miss: write_alloc misses have die=U32_MAX"
dev_set $D write_alloc 0 > /dev/null

# Prefetch.
dev_set $D prefetch next > /dev/null
dev_set $D prefetch_degree 2 > /dev/null
stats_reset $D
tr_run "$PROGS/pages" "$N" read 3000 50
pi=$(stat_get $D prefetch_issued)
cmp_ok "$pi" -gt 0 "prefetch_issued > 0"
is "$(nev prefetch)" "$pi" "cxdvirt_prefetch count == stats/prefetch_issued"
is "$(nev miss)" "$(stat_get $D misses)" "cxdvirt_miss count == stats/misses (with prefetch)"
bad=$(awk '$1 == "prefetch" { split($3, p, "="); split($4, t, "=");
	if (p[2] <= t[2] || p[2] > t[2] + 2) print }' /tmp/tp)
is "$bad" "" "cxdvirt_prefetch: next-2 pages after the trigger"
dev_set $D prefetch none > /dev/null

trace_off

# perf: count cxdvirt:cxdvirt_miss over a run. System-wide (-a), not
# per task: a task's events switch on the scheduler's perf static key,
# and a text patch in __schedule under multi-threaded TCG once drew an
# "Oops: int3" on the other vCPU (docs/testing.md, run 10).
if command -v perf > /dev/null && perf version > /dev/null 2>&1; then
	stats_reset $D
	perf stat -a -x, -e cxdvirt:cxdvirt_miss -o /tmp/perf.out \
		"$PROGS/pages" "$N" read 4000 64 > /dev/null 2> /tmp/perf.err
	rc=$?
	pm=$(awk -F, '$3 == "cxdvirt:cxdvirt_miss" { print $1 }' /tmp/perf.out)
	ok "$rc" "perf stat -e cxdvirt:cxdvirt_miss ran $(head -c 200 /tmp/perf.err)"
	is "$pm" "$(stat_get $D misses)" "perf: cxdvirt_miss count == stats/misses"
	stats_reset $D
	perf record -a -q -e 'cxdvirt:*' -o /tmp/perf.data \
		"$PROGS/pages" "$N" read 5000 32 > /dev/null 2> /tmp/perf.err
	is "$(perf script -i /tmp/perf.data -F event 2>/dev/null | grep -c cxdvirt_miss)" \
		"$(stat_get $D misses)" "perf record 'cxdvirt:*': cxdvirt_miss samples == stats/misses"
else
	skip "perf: cxdvirt_miss count == stats/misses" "no perf in the guest (linux-perf on the host, tests/vm/install-deps.sh)"
fi

dev_rm $D
ok $? "remove $D"
done_testing
