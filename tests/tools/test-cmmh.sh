#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The CMM-H fidelity grid's CI subset (tests/tools/cmmh-small.ini, 1/256
# scale, about 2 s): cxdvirt-sim's concurrent replay and the cmmh preset
# against the published Samsung CMM-H figures (docs/performance.md,
# "CMM-H fidelity"; the full-scale table is `make fidelity`). Checks the
# two fitted bandwidths within 25%, the held-back saturation at 4 threads,
# and the per-thread clocks exactly: one thread of 800 ns hits moves
# 4096 B / 800 ns = 5120 MB/s, two threads twice that (their link slots
# of 187 ns interleave).
# Prints TAP; exits non-zero if any test fails.
#
# Usage: tests/tools/test-cmmh.sh [path/to/cxdvirt-sim]

set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
sim=${1:-$top/tools/cxdvirt-sim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tools/tap.bash"

plan=12
echo "1..$plan"

if [ ! -x "$sim" ]; then
	for i in $(seq $plan); do
		echo "not ok $i - cxdvirt-sim not built ($sim)"
	done
	exit 1
fi

if "$sim" sweep --out "$tmp/o" "$top/tests/tools/cmmh-small.ini" > "$tmp/log" 2>&1 &&
   "$sim" sweep --merge "$tmp/o" --no-plot >> "$tmp/log" 2>&1; then
	ok "the CMM-H subset grid runs and merges"
else
	not_ok "the CMM-H subset grid runs and merges" "$(cat "$tmp/log")"
fi

# col JOB COLUMN: one value of the merged CSV.
col() {
	awk -F, -v j="$1" -v c="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
		$h["name"] == j { print $h[c] }' "$tmp/o/results.csv"
}

# near DESC ACTUAL EXPECTED PCT: |ACTUAL - EXPECTED| <= PCT% of EXPECTED
near() {
	if awk -v a="$2" -v e="$3" -v p="$4" \
		'BEGIN { d = a - e; if (d < 0) d = -d; exit !(a != "" && d <= e * p / 100) }'; then
		ok "$1 ($2, expected $3 +-$4%)"
	else
		not_ok "$1 ($2, expected $3 +-$4%)"
	fi
}

b1=$(col bw033_t1 bandwidth_mbps)
b2=$(col bw033_t2 bandwidth_mbps)
b4=$(col bw033_t4 bandwidth_mbps)
b8=$(col bw033 bandwidth_mbps)
near "one thread of 800 ns hits: 5120 MB/s" "$b1" 5120 0.1
near "one thread: every access takes 800 ns" "$(col bw033_t1 access_lat_mean_ns)" 800 0.1
# (0.5%: at the warm-up's end one thread may still wait for a miss)
near "two threads on their own clocks: twice one" "$b2" 10240 0.5
near "fitted: 0.33, 8 threads, the published 22 GB/s" "$b8" 22000 25
near "fitted: 2.67, 8 threads, the published 0.84 GB/s" "$(col bw267 bandwidth_mbps)" 840 25
if awk -v a="$b4" -v b="$b8" -v c="$b2" 'BEGIN { exit !(a >= 0.9 * b && c < 0.9 * b) }'; then
	ok "held back: bandwidth saturates at 4 threads (2: $b2, 4: $b4, 8: $b8 MB/s)"
else
	not_ok "held back: bandwidth saturates at 4 threads (2: $b2, 4: $b4, 8: $b8 MB/s)"
fi
if [ "$(col bw267 threads)" = 8 ]; then
	ok "the 2.67 job replayed 8 threads"
else
	not_ok "the 2.67 job replayed 8 threads" "threads: $(col bw267 threads)"
fi

# The simulator's capacity bound is the model's (2^32 pages, 16 TiB), not
# configfs' 64 GiB: 128 GiB replays; so does 16 TiB, up to its last page
# (2^32 - 1, whose number is all ones), in a few MiB (the page table is
# used only where pages are); one page more is refused.
printf 'R 0\nR 33554431\nR 0\n' > "$tmp/t"
if "$sim" --capacity 128G --cache-size 4M --json "$tmp/t" > "$tmp/big.json" 2>&1 &&
   grep -q '"hits": *1,' "$tmp/big.json"; then
	ok "--capacity 128G: above configfs' 64 GiB, replayed"
else
	not_ok "--capacity 128G: above configfs' 64 GiB, replayed" "$(cat "$tmp/big.json")"
fi
printf 'W 4294967295\nR 0\nR 4294967295\n' > "$tmp/t16"
if "$sim" --capacity 16T --cache-size 4M --json "$tmp/t16" > "$tmp/top.json" 2>&1 &&
   grep -q '"hits": *1,' "$tmp/top.json" && grep -q '"misses": *2,' "$tmp/top.json"; then
	ok "--capacity 16T: the last page (2^32 - 1) misses, then hits"
else
	not_ok "--capacity 16T: the last page (2^32 - 1) misses, then hits" "$(cat "$tmp/top.json")"
fi
printf 'R 4294967296\n' > "$tmp/over"
if ! "$sim" "$tmp/over" > "$tmp/err" 2>&1 &&
   grep -q "page 4294967296 beyond the largest capacity (16T" "$tmp/err"; then
	ok "a trace page past 2^32 - 1 without --capacity: beyond the largest capacity"
else
	not_ok "a trace page past 2^32 - 1 without --capacity: beyond the largest capacity" "$(cat "$tmp/err")"
fi
if ! "$sim" --capacity 17592186048512 "$tmp/t" > "$tmp/err" 2>&1 &&
   grep -q "out of range \[4K, 16T\]" "$tmp/err"; then
	ok "--capacity 16T + 4K refused: page indices are 32-bit"
else
	not_ok "--capacity 16T + 4K refused: page indices are 32-bit" "$(cat "$tmp/err")"
fi

[ "$n" -eq "$plan" ] || not_ok "the plan: $plan tests, $n ran"
[ "$fails" -eq 0 ]
