#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# cxdvirt-sim against traces with known (analytic) results. Prints TAP;
# exits non-zero if any test fails.
#
# Usage: tests/tools/test-sim.sh [path/to/cxdvirt-sim]

set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
sim=${1:-$top/tools/cxdvirt-sim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

n=0
fails=0

ok() {	# ok DESCRIPTION: pass
	n=$((n + 1))
	echo "ok $n - $1"
}

not_ok() {	# not_ok DESCRIPTION [DETAIL]
	n=$((n + 1))
	fails=$((fails + 1))
	echo "not ok $n - $1"
	[ -n "${2-}" ] && printf '# %s\n' "$2"
}

# check DESCRIPTION EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "expected '$2', got '$3'"
	fi
}

# field FILE LABEL: the value column of a one-run text report
field() {
	sed -n "s/^$2  *//p" "$1" | head -n 1
}

# jfield KEY: first "KEY":value of the JSON on stdin
jfield() {
	sed -n "s/^ *\"$1\":\\([^,]*\\),\\{0,1\\}\$/\\1/p" | head -n 1
}

echo "1..27"

if [ ! -x "$sim" ]; then
	for i in $(seq 19); do
		echo "not ok $i - cxdvirt-sim not built ($sim)"
	done
	exit 1
fi

# Cyclic scan of 65 pages, 10 passes, through a 64-page cache.
for pass in $(seq 10); do seq 0 64 | sed 's/^/R /'; done >"$tmp/scan65"
# The same 64 pages, 10 passes: fits.
for pass in $(seq 10); do seq 100 163 | sed 's/^/R /'; done >"$tmp/fit64"

"$sim" --cache 256K --policy fifo "$tmp/scan65" >"$tmp/out" 2>&1
check "fifo: cyclic scan W=C+1 never hits" 0 "$(field "$tmp/out" hits)"
check "fifo: 650 misses" 650 "$(field "$tmp/out" misses)"

"$sim" --cache 256K --policy lru "$tmp/scan65" >"$tmp/out" 2>&1
check "lru: cyclic scan W=C+1 never hits" 0 "$(field "$tmp/out" hits)"

"$sim" --cache 256K --policy lifo "$tmp/scan65" >"$tmp/out" 2>&1
check "lifo: C-1 hits per pass after the first" $((9 * 63)) \
	"$(field "$tmp/out" hits)"

for p in fifo lifo clock lru s3fifo random cflru 2q; do
	"$sim" --cache 256K --policy $p "$tmp/fit64" >"$tmp/out" 2>&1
	m=$(field "$tmp/out" misses)
	[ "$m" = 64 ] || break
done
check "every policy: a fitting working set misses once per page" 64 "$m"

# A serial 4 KiB miss on the znand preset: 3000 + 3414 ns (exact MB/s),
# 3000 + 3232 ns with NVMeVirt's channel arithmetic.
"$sim" --cache 256K "$tmp/scan65" >"$tmp/out" 2>&1
check "znand: serial miss p50 = 6414 ns" 6414 \
	"$(field "$tmp/out" 'miss latency p50 (ns)')"
"$sim" --cache 256K --xfer nvmevirt "$tmp/scan65" >"$tmp/out" 2>&1
check "znand --xfer nvmevirt: serial miss = 6232 ns" 6232 \
	"$(field "$tmp/out" 'miss latency max (ns)')"
# think time: elapsed = 650 misses * 6414 + 650 * 1000
"$sim" --cache 256K --think 1000 "$tmp/scan65" >"$tmp/out" 2>&1
check "elapsed = misses * latency + accesses * think" \
	$((650 * 6414 + 650 * 1000)) "$(field "$tmp/out" 'elapsed (ns)')"

# JSON output
"$sim" --cache 256K --json "$tmp/scan65" >"$tmp/json" 2>&1
check "json: hits" 0 "$(jfield hits <"$tmp/json")"
check "json: misses" 650 "$(jfield misses <"$tmp/json")"

# --compare runs side by side
"$sim" --cache 256K --compare policy=fifo,lifo "$tmp/scan65" >"$tmp/out" 2>&1
check "compare: one column per value" "0 567" \
	"$(sed -n 's/^hits  *//p' "$tmp/out" | tr -s ' ')"
"$sim" --cache 256K --json --compare policy=fifo,lru,lifo "$tmp/scan65" \
	>"$tmp/json" 2>&1
check "compare json: three runs" 3 "$(grep -c '"value":' "$tmp/json")"

# next-N prefetch over a sequential scan with ample think time: one miss,
# every other page a timely prefetch hit.
seq 0 999 | sed 's/^/R /' >"$tmp/seq"
"$sim" --cache 256K --prefetch next --degree 4 --think 100000 --json \
	"$tmp/seq" >"$tmp/json" 2>&1
check "next-4: one miss" 1 "$(jfield misses <"$tmp/json")"
check "next-4: 999 useful prefetches" 999 "$(jfield useful <"$tmp/json")"
check "next-4: none late" 0 "$(jfield late <"$tmp/json")"

# Addresses: 0x... are bytes, decimal are pages; comments and threads.
printf '# comment\nR 0x1000 3\nR 1\nW 0x1fff\n\nR 2\n' >"$tmp/addr"
"$sim" --cache 256K --json "$tmp/addr" >"$tmp/json" 2>&1
check "0x byte address and decimal page meet on page 1" "2 2" \
	"$(jfield hits <"$tmp/json") $(jfield misses <"$tmp/json")"

# --faults: a mapped page is a native hit and never reaches the model; a
# write to a read-only mapped page only dirties the line; eviction unmaps.
# Two lines, FIFO: R0 R1 miss; W0 is native and dirties 0; R2 evicts 0
# (the one dirty eviction); R0 evicts 1; R3 evicts 2; R1 evicts 0.
printf 'R 0\nR 1\nW 0\nR 2\nR 0\nR 3\nR 1\n' >"$tmp/faults"
"$sim" --capacity 2M --cache 8K --faults --json "$tmp/faults" >"$tmp/json" 2>&1
check "--faults: misses, hits, native hits, dirty evictions" "6 0 1 1" \
	"$(jfield misses <"$tmp/json") $(jfield hits <"$tmp/json") $(jfield native_hits <"$tmp/json") $(jfield dirty <"$tmp/json")"
"$sim" --capacity 2M --cache 8K --json "$tmp/faults" >"$tmp/json" 2>&1
check "without --faults the re-access is a model hit" "6 1 0" \
	"$(jfield misses <"$tmp/json") $(jfield hits <"$tmp/json") $(jfield native_hits <"$tmp/json")"

printf 'R 1\nX 2\n' >"$tmp/bad"
if "$sim" "$tmp/bad" >/dev/null 2>"$tmp/err"; then
	not_ok "a bad trace line fails"
else
	if grep -q ':2:' "$tmp/err"; then ok "a bad trace line fails, naming the line"
	else not_ok "a bad trace line fails, naming the line" "$(cat "$tmp/err")"; fi
fi

if "$sim" --policy nosuch "$tmp/seq" >/dev/null 2>&1; then
	not_ok "an unknown policy is a usage error"
else
	ok "an unknown policy is a usage error"
fi

# Set-associative conflicts: pages 0, 64, 128 share set 0 of a 2-way cache
# of 64 sets (128 lines); cycling over them under LRU never hits.
for pass in $(seq 10); do printf 'R 0\nR 64\nR 128\n'; done >"$tmp/conflict"
"$sim" --cache 512K --ways 2 --policy lru --capacity 1M "$tmp/conflict" \
	>"$tmp/out" 2>&1
check "2-way: three pages in one set never hit under lru" 0 \
	"$(field "$tmp/out" hits)"

# --compare sweeps the learned prefetchers: on a stride-5 scan the stride
# prefetcher, BOP (once it has learned offset 5) and Leap all hit; next-4
# only pollutes. (Exact counts are in the unit tests.)
for i in $(seq 0 9999); do echo "R $((i * 5))"; done >"$tmp/stride5"
"$sim" --cache 1M --capacity 256M --degree 4 --json \
	--compare prefetch=next,stride,bop,leap,fdp "$tmp/stride5" >"$tmp/json" 2>&1
check "compare: five prefetchers" 5 "$(grep -c '"value":' "$tmp/json")"
hr=$(sed -n 's/^  *"hit_ratio":\([0-9.]*\),*$/\1/p' "$tmp/json" | tr '\n' ' ')
check "stride-5 scan: hit ratio above 80% for stride, bop, leap, fdp; next none" \
	"0 1 1 1 1" "$(echo "$hr" | awk '{ for (i = 1; i <= NF; i++) printf "%s%d", (i > 1 ? " " : ""), ($i > 0.80) }')"

# The FTL: a geometry that cannot hold capacity + OP is refused with a
# reason; a feasible one reports write amplification and GC.
if "$sim" --ftl page "$tmp/stride5" >/dev/null 2>"$tmp/err"; then
	not_ok "ftl: the znand preset's 768-page blocks on a small device are refused"
else
	if grep -q 'spare blocks' "$tmp/err"; then
		ok "ftl: the znand preset's 768-page blocks on a small device are refused"
	else
		not_ok "ftl: refusal names the reason" "$(cat "$tmp/err")"
	fi
fi
awk 'BEGIN { srand(3); for (i = 0; i < 20000; i++) printf "W %d\n", int(rand() * 4096) }' >"$tmp/wr"
"$sim" --cache 64K --capacity 16M --channels 1 --dies 1 --planes 1 \
	--pages-per-block 32 --ftl page --op-pct 25 --ftl-fill --json \
	"$tmp/wr" >"$tmp/json" 2>&1
hw=$(jfield host_writes <"$tmp/json")
nw=$(jfield nand_writes <"$tmp/json")
check "ftl: every dirty eviction is a host write" "$(jfield dirty <"$tmp/json")" "$hw"
check "ftl: GC ran and moved pages (nand writes > host writes)" 1 \
	"$([ -n "$nw" ] && [ "$nw" -gt "$hw" ] && echo 1)"
"$sim" --cache 64K --capacity 16M --channels 1 --dies 1 --planes 1 \
	--pages-per-block 32 --compare ftl=off,page --op-pct 25 "$tmp/wr" \
	>"$tmp/out" 2>&1
check "compare ftl=off,page: off has no GC" 0 \
	"$(sed -n 's/^gc runs  *//p' "$tmp/out" | awk '{ print $1 }')"

[ "$fails" -eq 0 ]
