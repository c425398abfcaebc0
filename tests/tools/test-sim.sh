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

. "$top/tests/tools/tap.bash"

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

plan=105
echo "1..$plan"

if [ ! -x "$sim" ]; then
	for i in $(seq $plan); do
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

# A serial 4 KiB miss with the default (znand) timing: 3000 + 3414 ns (exact MB/s),
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

# Every policy on one 11-access trace through a 3-line cache, each hit
# count worked out by hand (and different for each policy):
#  fifo:   3 4 5, 4 hit, 2 evicts 3, 3 evicts 4, 5 hit, 2 hit, 1 evicts 5,
#          3 hit, 1 hit: 5 hits.
#  lifo:   4 hit, 2 evicts 5, 3 hit, 5 evicts 2, 2 evicts 5, 1 evicts 2,
#          3 hit, 1 hit: 4 hits.
#  lru:    4 hit, 2 evicts 3, 3 evicts 5, 5 evicts 4, 2 hit, 1 evicts 3,
#          3 evicts 5, 1 hit: 3 hits.
#  clock:  4 hit (reference bit), 2 evicts 3, 3 clears 4's bit and evicts
#          5, 5 evicts 2, 2 evicts 4, 1 evicts 3, 3 evicts 5, 1 hit: 2.
#  s3fifo: (small queue 1 line, ghost 2 pages) 4 hit in the small queue;
#          2 evicts 3 (ghost); 3 (ghost) promotes 4 to main, evicts 5
#          (ghost); 5 (ghost) evicts 2 (ghost); 2 (ghost) evicts 4 from
#          main; 1 evicts 3; 3 (forgotten by the ghost) evicts 1 (ghost);
#          1 (ghost) evicts 3: 1 hit.
printf 'R %s\n' 3 4 5 4 2 3 5 2 1 3 1 >"$tmp/mixed"
for p in fifo:5 lifo:4 lru:3 clock:2 s3fifo:1; do
	"$sim" --capacity 1M --cache 12K --policy "${p%:*}" --json "$tmp/mixed" \
		>"$tmp/json" 2>&1
	check "${p%:*}: exact hits of an 11-access trace on 3 lines" "${p#*:}" \
		"$(jfield hits <"$tmp/json")"
done
# random on 2 lines, 0 1 2 four times: each miss of a full cache evicts
# line (xorshift64* draw) mod 2 (cxd_cache_set_seed()). Seed 0 draws
# 0 1 0 1 1 0 1: hits on the third round's 1 and the fourth round's 0 and 2
# (3 hits). Seed 3 draws 1 1 0 0 1 0: hits on the second round's 0, the
# third round's 1 and the fourth round's 0 and 2 (4 hits).
printf 'R %s\n' 0 1 2 0 1 2 0 1 2 0 1 2 >"$tmp/three"
r=
for seed in 0 3; do
	"$sim" --capacity 1M --cache 8K --policy random --seed $seed --json \
		"$tmp/three" >"$tmp/json" 2>&1
	r="$r $(jfield hits <"$tmp/json")"
done
check "random: exact hits for seeds 0 and 3" " 3 4" "$r"

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
check "threads 0 and 3: two threads, not the highest + 1" "2 2" \
	"$(jfield threads_replayed <"$tmp/json") $(jfield threads <"$tmp/json")"

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

"$sim" --capacity 2M --cache 8K --faults "$tmp/faults" >"$tmp/out" 2>&1
check "--faults: the hit ratio counts native hits (1 of 7)" "14.29%" \
	"$(field "$tmp/out" 'hit ratio')"

# The preset is applied first, wherever it stands; explicit NAND options
# win over it, also under --compare preset=...
"$sim" --t-read-ns 1000 --preset tlc --json "$tmp/faults" >"$tmp/json" 2>&1
check "--t-read-ns before --preset still wins" "1000" "$(jfield t_read_ns <"$tmp/json")"
"$sim" --t-read-ns 1000 --compare preset=znand,tlc --json "$tmp/faults" >"$tmp/json" 2>&1
check "--compare preset=... keeps an explicit --t-read-ns" "1000 1000" \
	"$(sed -n 's/^ *"t_read_ns":\([0-9]*\),*$/\1/p' "$tmp/json" | tr '\n' ' ' | sed 's/ $//')"
"$sim" --cache-size 4097 "$tmp/faults" >/dev/null 2>"$tmp/err"
check "a cache size that is not a multiple of 4K is refused, as in configfs" \
	"cxdvirt-sim: --cache-size and --capacity must be multiples of 4K, as in configfs" \
	"$(cat "$tmp/err")"
"$sim" --cache-size 64K --ways 3 "$tmp/faults" >/dev/null 2>"$tmp/err"
check "a --ways that does not divide the cache is refused by name" \
	"cxdvirt-sim: ways does not divide the cache's lines (cache_size / 4K)" \
	"$(cat "$tmp/err")"
"$sim" >/dev/null 2>"$tmp/err"
check "no TRACE: a one-line reason, then where help is" \
	"cxdvirt-sim: no TRACE given|Try 'cxdvirt-sim --help'." \
	"$(tr '\n' '|' <"$tmp/err" | sed 's/|$//')"

# An option missing its value takes the TRACE as its value: the message is
# about the option's value, not a missing TRACE.
"$sim" --hit-ns "$tmp/faults" >/dev/null 2>"$tmp/err"
check "an option missing its value: its value is refused, by name (exit 2)" \
	"2 1 0" "$? $(grep -c -- "--hit-ns: bad value '$tmp/faults' (a number of ns" "$tmp/err") $(grep -c 'no TRACE' "$tmp/err")"

"$sim" --policy bogus "$tmp/faults" >/dev/null 2>"$tmp/err"
check "a bad name lists the choices" \
	"cxdvirt-sim: --policy: bad value 'bogus' (one of: fifo lifo clock lru s3fifo random cflru 2q)" \
	"$(cat "$tmp/err")"
"$sim" --compare bogus=1,2 "$tmp/faults" >/dev/null 2>"$tmp/err"
check "--compare with an unknown key says so" \
	"cxdvirt-sim: --compare bogus: bad value '1' (no such option)" "$(cat "$tmp/err")"
"$sim" --compare policy=lru,lru "$tmp/faults" >/dev/null 2>"$tmp/err"
check "--compare refuses a value given twice (exit 2)" \
	"2 cxdvirt-sim: --compare policy: 'lru' given twice" "$? $(cat "$tmp/err")"
"$sim" --capacity 2M --compare cache-size=8K,1M,1024K "$tmp/faults" >/dev/null 2>"$tmp/err"
check "--compare refuses two spellings of one value (exit 2)" \
	"2 cxdvirt-sim: --compare cache-size: '1024K' is the same as '1M'" "$? $(cat "$tmp/err")"
"$sim" --capacity 2M --cache 8K --compare skip-unwritten=off,on --json "$tmp/faults" >"$tmp/json" 2>&1
check "--compare takes off/on for a flag" "false true" \
	"$(sed -n 's/^ *"skip_unwritten":\([a-z0-9]*\),*$/\1/p' "$tmp/json" | tr '\n' ' ' | sed 's/ $//')"

printf 'R 1\nX 2\n' >"$tmp/bad"
if "$sim" "$tmp/bad" >/dev/null 2>"$tmp/err"; then
	not_ok "a bad trace line fails"
else
	if grep -q ':2:' "$tmp/err"; then ok "a bad trace line fails, naming the line"
	else not_ok "a bad trace line fails, naming the line" "$(cat "$tmp/err")"; fi
fi

# Exit status: 2 for every usage error (the command line alone is wrong,
# nothing read), 1 for every error with the trace (cxdvirt-sim(1)).
printf 'R 0\nR 1\n' >"$tmp/two"
r=
for a in "2 --bogus $tmp/two" "2 $tmp/two $tmp/two" "2 --format nosuch $tmp/two" \
	 "2 --cache-size 4097 $tmp/two" "2 --cache 64K --ways 3 $tmp/two" \
	 "2 --capacity 1M --cache 2M $tmp/two" "2 --compare policy $tmp/two" \
	 "2 --compare ways=1,3 --cache 64K $tmp/two" \
	 "1 $tmp/nosuch" "1 $tmp/bad" "1 --capacity 4K --cache 4K $tmp/two" \
	 "1 --warmup 2 $tmp/two" "1 --power-fail-at 3 $tmp/two"; do
	# shellcheck disable=SC2086
	"$sim" ${a#* } >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" = "${a%% *}" ] && [ -s "$tmp/err" ] || r="$r [exit $rc: ${a#* }]"
done
check "exit 2 for each usage error, 1 for each error with the trace" "" "$r"

# The record type is upper case (the format's R, W, D): a lower-case one
# is refused, naming the line and the case.
r=
for c in r w d; do
	printf 'R 1\n%s 2\n' $c >"$tmp/lower"
	"$sim" "$tmp/lower" >/dev/null 2>"$tmp/err"
	r="$r $?:$(grep -c "lower:2: record type in lower case: R, W or D: $c 2" "$tmp/err")"
done
check "a lower-case record type is refused, naming the line" " 1:1 1:1 1:1" "$r"

"$sim" --policy nosuch "$tmp/seq" >/dev/null 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && [ -s "$tmp/err" ]; then
	ok "an unknown policy is a usage error (exit 2)"
else
	not_ok "an unknown policy is a usage error (exit 2)" "exit $rc: $(head -c 200 "$tmp/err")"
fi

# Set-associative conflicts: pages 0, 64, 128 share set 0 of a 2-way cache
# of 64 sets (128 lines); cycling over them under LRU never hits.
for pass in $(seq 10); do printf 'R 0\nR 64\nR 128\n'; done >"$tmp/conflict"
"$sim" --cache 512K --ways 2 --policy lru --capacity 1M "$tmp/conflict" \
	>"$tmp/out" 2>&1
check "2-way: three pages in one set never hit under lru" 0 \
	"$(field "$tmp/out" hits)"

# --- Binary traces (--convert) -------------------------------------------
# The same replay from the text and from its binary form, byte for byte.
"$sim" --convert "$tmp/mix.bin" "$tmp/addr" 2>"$tmp/err"
check "convert: summary names the accesses and the distinct threads" 1 \
	"$(grep -c '4 accesses, max page 2, 2 threads (highest 3)' "$tmp/err")"
for pass in $(seq 50); do printf 'R %d\nW 0x%x 2\n' $((pass % 70)) $(((pass * 7 % 90) * 4096)); done >"$tmp/mix"
"$sim" --convert "$tmp/mix.bin" "$tmp/mix" 2>/dev/null
# A binary header that claims fewer threads than a record uses is refused
# (the replay sizes its per-thread arrays from it), not replayed.
printf 'R 1 0\nR 2 1\n' >"$tmp/thr2"
"$sim" --convert "$tmp/thr2.bin" "$tmp/thr2" 2>/dev/null
printf '\001' | dd of="$tmp/thr2.bin" bs=1 seek=32 conv=notrunc 2>/dev/null
"$sim" "$tmp/thr2.bin" >"$tmp/out" 2>&1
check "a record beyond the header's threads: refused as corrupt, exit 1" "1 1" \
	"$? $(grep -c 'beyond the header.*corrupt' "$tmp/out")"
"$sim" --cache 64K --policy s3fifo --prefetch next --json "$tmp/mix" >"$tmp/a.json" 2>&1
"$sim" --cache 64K --policy s3fifo --prefetch next --json "$tmp/mix.bin" >"$tmp/b.json" 2>&1
if cmp -s "$tmp/a.json" "$tmp/b.json"; then ok "binary and text replay alike"
else not_ok "binary and text replay alike" "$(diff "$tmp/a.json" "$tmp/b.json" | head -5)"; fi
check "binary: 8 bytes per access after a 64-byte header" $((64 + 100 * 8)) "$(wc -c <"$tmp/mix.bin")"
"$sim" --cache 64K --policy s3fifo --prefetch next --json - <"$tmp/mix.bin" >"$tmp/c.json" 2>&1
if cmp -s "$tmp/a.json" "$tmp/c.json"; then ok "binary trace from a pipe"
else not_ok "binary trace from a pipe" "$(head -3 "$tmp/c.json")"; fi
head -c 500 "$tmp/mix.bin" >"$tmp/trunc.bin"
if "$sim" "$tmp/trunc.bin" >/dev/null 2>"$tmp/err"; then not_ok "a truncated binary trace fails"
elif grep -q 'truncated' "$tmp/err"; then ok "a truncated binary trace fails"
else not_ok "a truncated binary trace fails" "$(cat "$tmp/err")"; fi
if "$sim" --format binary "$tmp/mix" >/dev/null 2>"$tmp/err"; then not_ok "--format binary on text fails"
else ok "--format binary on text fails"; fi
if "$sim" --convert "$tmp/mix.bin" "$tmp/mix.bin" >/dev/null 2>&1; then
	not_ok "--convert onto its own input is refused"
elif cmp -s "$tmp/a.json" <("$sim" --cache 64K --policy s3fifo --prefetch next --json "$tmp/mix.bin" 2>&1); then
	ok "--convert onto its own input is refused"
else not_ok "--convert onto its own input is refused" "the input changed"; fi
printf 'R 1 16384\n' >"$tmp/bigthread"
if "$sim" "$tmp/bigthread" >/dev/null 2>&1; then not_ok "a thread above 2^14 - 1 is refused"
else ok "a thread above 2^14 - 1 is refused"; fi
printf 'R 281474976710656\n' >"$tmp/bigpage"
if "$sim" "$tmp/bigpage" >/dev/null 2>&1; then not_ok "a page of 2^48 is refused"
else ok "a page of 2^48 is refused"; fi

# --- Discards (D records: the page left the device) ------------------------
# 4 lines, fifo: W 0, R 1..3 fill; D 0 frees 0's dirty line without a
# write-back; R 4 takes it (no eviction); R 1 hits; R 0 misses and evicts 1.
printf 'W 0\nR 1\nR 2\nR 3\nD 0\nR 4\nR 1\nR 0\n' >"$tmp/disc"
"$sim" --cache 16K --capacity 1M --policy fifo "$tmp/disc" >"$tmp/out" 2>&1
check "discard: 7 accesses (a D is not one)" 7 "$(field "$tmp/out" accesses)"
check "discard: 6 misses" 6 "$(field "$tmp/out" misses)"
check "discard: the freed line takes page 4 (1 eviction)" 1 "$(field "$tmp/out" evictions)"
check "discard: the dirty line is not written back" 0 "$(field "$tmp/out" 'dirty evictions')"
check "discard: lines discarded, text" 1 "$(field "$tmp/out" 'dirty lines discarded')"
"$sim" --cache 16K --capacity 1M --policy fifo --json "$tmp/disc" >"$tmp/a.json" 2>&1
check "discard: JSON records, lines, dirty" "1 1 1 0" \
	"$(jfield records <"$tmp/a.json") $(jfield lines <"$tmp/a.json") $(sed -n '/"discards"/,/}/p' "$tmp/a.json" | jfield dirty) $(jfield writebacks <"$tmp/a.json")"
# Without the D: page 4 evicts dirty page 0 (a write-back).
grep -v '^D' "$tmp/disc" >"$tmp/nodisc"
"$sim" --cache 16K --capacity 1M --policy fifo "$tmp/nodisc" >"$tmp/out" 2>&1
check "no discard: 2 evictions, 1 dirty" "2 1" \
	"$(field "$tmp/out" evictions) $(field "$tmp/out" 'dirty evictions')"
# --faults: a discarded page is no longer mapped, so its next access misses.
printf 'R 5\nR 5\nD 5\nR 5\n' >"$tmp/discf"
"$sim" --cache 16K --capacity 1M --faults "$tmp/discf" >"$tmp/out" 2>&1
check "discard --faults: the page misses again, not a native hit" "2 1" \
	"$(field "$tmp/out" misses) $(field "$tmp/out" 'native hits (--faults)')"
# --warmup counts accesses, not D records: 3 warm, 4 measured, the D
# (after the fourth access) in the window.
"$sim" --cache 16K --capacity 1M --policy fifo --warmup 3 "$tmp/disc" >"$tmp/out" 2>&1
check "discard: --warmup 3 leaves 4 accesses and the D in the window" "4 1" \
	"$(field "$tmp/out" accesses) $(field "$tmp/out" 'discard records')"
# A thread of D records only is not one of the threads (JSON threads,
# threads_replayed, --convert's count).
printf 'R 1 0\nW 2 0\nD 1 1\nD 2 1\n' >"$tmp/dthr"
"$sim" --cache 16K --capacity 1M --json "$tmp/dthr" >"$tmp/json" 2>&1
"$sim" --convert "$tmp/dthr.bin" "$tmp/dthr" 2>"$tmp/err"
check "discard: a thread of D records only is not counted" "1 1 1" \
	"$(jfield threads <"$tmp/json") $(jfield threads_replayed <"$tmp/json") $(grep -c '1 threads (highest 1)' "$tmp/err")"
# A trace without an access is refused (exit 1), replayed or converted.
: >"$tmp/empty"
printf '# nothing\n\n' >"$tmp/comments"
printf 'D 1\nD 2 1\n' >"$tmp/donly"
{ printf 'CXDTRACE\001\000\000\000\100\000\000\000'; head -c 48 /dev/zero; } >"$tmp/nobin"
r=
for f in empty comments donly nobin; do
	for a in "" "--convert $tmp/$f.bin"; do
		# shellcheck disable=SC2086
		"$sim" $a "$tmp/$f" >/dev/null 2>"$tmp/err"
		r="$r $?:$(grep -c "$tmp/$f: .*no access (R or W.*nothing to replay" "$tmp/err")"
	done
done
check "a trace without an access (empty, comments, D only, binary) is refused" \
	" 1:1 1:1 1:1 1:1 1:1 1:1 1:1 1:1" "$r"
# Binary: version 2 with the count at offset 36, replayed alike.
"$sim" --convert "$tmp/disc.bin" "$tmp/disc" 2>"$tmp/err"
check "discard: convert counts accesses and discards" 1 \
	"$(grep -c '7 accesses, 1 discards, max page 4' "$tmp/err")"
check "discard: binary version 2, 1 discard in the header" "2 1" \
	"$(od -A n -t u4 -j 8 -N 4 "$tmp/disc.bin" | tr -d ' ') $(od -A n -t u8 -j 36 -N 8 "$tmp/disc.bin" | tr -d ' ')"
"$sim" --cache 16K --capacity 1M --policy fifo --json "$tmp/disc.bin" >"$tmp/b.json" 2>&1
if cmp -s "$tmp/a.json" "$tmp/b.json"; then ok "discard: binary and text replay alike"
else not_ok "discard: binary and text replay alike" "$(diff "$tmp/a.json" "$tmp/b.json" | head -5)"; fi
check "a trace without discards is still binary version 1" 1 \
	"$(od -A n -t u4 -j 8 -N 4 "$tmp/mix.bin" | tr -d ' ')"
# A version 1 file with more threads than version 2's field holds.
{ printf 'CXDTRACE\001\000\000\000\100\000\000\000'; head -c 16 /dev/zero
  printf '\040\116\000\000'; head -c 28 /dev/zero; } >"$tmp/v1big.bin"
if "$sim" "$tmp/v1big.bin" >/dev/null 2>"$tmp/err"; then not_ok "a version 1 trace with 20000 threads is refused"
elif grep -q 'version 1 binary trace with 20000 threads' "$tmp/err"; then ok "a version 1 trace with 20000 threads is refused"
else not_ok "a version 1 trace with 20000 threads is refused" "$(cat "$tmp/err")"; fi
printf 'R 1\nD 300\n' >"$tmp/discbig"
if "$sim" --capacity 1M --cache 16K "$tmp/discbig" >/dev/null 2>"$tmp/err"; then not_ok "a discard beyond the capacity fails"
elif grep -q 'page 300 beyond the capacity' "$tmp/err"; then ok "a discard beyond the capacity fails"
else not_ok "a discard beyond the capacity fails" "$(cat "$tmp/err")"; fi

# --- valgrind lackey -------------------------------------------------------
# A small real program under lackey; the simulator's reads, writes and
# misses (a cache larger than the pages touched: one miss per distinct
# page) against an awk count of the same log.
cat >"$tmp/lkprog.c" <<'EOF_C'
#include <stdlib.h>
int main(void)
{
	char *b = malloc(1 << 20);
	int i, s = 0;

	for (i = 0; i < (1 << 20); i += 4096)
		b[i] = 1;
	for (i = 0; i < (1 << 20); i += 512)
		s += b[i];
	free(b);
	return s != 256;
}
EOF_C
cat >"$tmp/lk.awk" <<'EOF_AWK'
function hex(s,   i, v) {
	v = 0; s = tolower(s)
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}
/^ [LSM] / || (instr && /^I  /) {
	k = substr($0, 2, 1); if ($0 ~ /^I/) k = "L"
	split($2, f, ","); a = hex(f[1]); n = f[2] + 0; if (n < 1) n = 1
	for (p = int(a / 4096); p <= int((a + n - 1) / 4096); p++) {
		if (k != "S") r++
		if (k != "L") w++
		if (!(p in seen)) { seen[p] = 1; d++ }
	}
}
END { printf "%d %d %d\n", r, w, d }
EOF_AWK
if ! command -v valgrind >/dev/null || ! command -v cc >/dev/null ||
   ! cc -O0 -o "$tmp/lkprog" "$tmp/lkprog.c" ||
   ! valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/lk" "$tmp/lkprog"; then
	for i in 1 2 3 4; do not_ok "lackey: valgrind or cc missing (make deps)"; done
else
	"$sim" --cache 64M --json "$tmp/lk" >"$tmp/json" 2>&1
	check "lackey: reads writes pages (data only) = awk's count" \
		"$(awk -f "$tmp/lk.awk" "$tmp/lk")" \
		"$(jfield reads <"$tmp/json") $(jfield writes <"$tmp/json") $(jfield misses <"$tmp/json")"
	check "lackey: the program's 256 pages and more" 1 \
		"$(test "$(jfield misses <"$tmp/json")" -gt 256 && echo 1)"
	"$sim" --lackey-instr --cache 64M --json "$tmp/lk" >"$tmp/json" 2>&1
	check "lackey --lackey-instr: instruction fetches are reads" \
		"$(awk -v instr=1 -f "$tmp/lk.awk" "$tmp/lk")" \
		"$(jfield reads <"$tmp/json") $(jfield writes <"$tmp/json") $(jfield misses <"$tmp/json")"
	"$sim" --format lackey --convert "$tmp/lk.bin" "$tmp/lk" 2>/dev/null
	"$sim" --cache 64M --json "$tmp/lk.bin" >"$tmp/json" 2>&1
	check "lackey converted to binary: same accesses" \
		"$(awk -f "$tmp/lk.awk" "$tmp/lk" | cut -d' ' -f3)" "$(jfield misses <"$tmp/json")"
fi
# A straddling access touches two pages; M is a read and a write.
printf '==1== Lackey\nI  00400000,3\n M 00000ffe,4\n L 00002000,8\n' >"$tmp/lk2"
"$sim" --capacity 1M --cache 64K --json "$tmp/lk2" >"$tmp/json" 2>&1
check "lackey: M across a page boundary = 2 reads + 2 writes, then L" "3 2 3" \
	"$(jfield reads <"$tmp/json") $(jfield writes <"$tmp/json") $(jfield misses <"$tmp/json")"
printf ' L 00001000,8\n X 00002000,8\n' >"$tmp/lkbad"
if "$sim" --format lackey "$tmp/lkbad" >/dev/null 2>"$tmp/err"; then not_ok "lackey: a bad line fails, naming it"
elif grep -q ':2:' "$tmp/err"; then ok "lackey: a bad line fails, naming it"
else not_ok "lackey: a bad line fails, naming it" "$(cat "$tmp/err")"; fi

# --- cxdvirt_miss tracepoint ------------------------------------------------
cat >"$tmp/tp" <<'EOF_TP'
# tracer: nop
#
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
            chase-412     [001] d..1.   812.118205: cxdvirt_miss: dev=cxd0 page=7 cause=read die=3 queue_ns=0 model_ns=6414 measured_ns=7012
            chase-412     [001] d..1.   812.118219: cxdvirt_evict: dev=cxd0 page=1 dirty=0
            chase-412     [001] d..1.   812.118230: cxdvirt_miss: dev=cxd1 page=9 cause=read die=1 queue_ns=0 model_ns=6414 measured_ns=6990
           chase   412 [001]   812.118241: cxdvirt:cxdvirt_miss: dev=cxd0 page=8 cause=write die=0 queue_ns=12 model_ns=6426 measured_ns=7100
            chase-412     [001] d..1.   812.118250: cxdvirt_miss: dev=cxd0 page=7 cause=read die=3 queue_ns=0 model_ns=6414 measured_ns=7012
EOF_TP
"$sim" --dev cxd0 --capacity 1M --cache 64K --json "$tmp/tp" >"$tmp/json" 2>&1
check "tracepoint --dev cxd0: 3 reads, pages 7 8 7" "3 0 2 1" \
	"$(jfield reads <"$tmp/json") $(jfield writes <"$tmp/json") $(jfield misses <"$tmp/json") $(jfield hits <"$tmp/json")"
if "$sim" --capacity 1M --cache 64K "$tmp/tp" >/dev/null 2>"$tmp/err"; then
	not_ok "tracepoint: two devices without --dev fail"
elif grep -q -- '--dev' "$tmp/err"; then ok "tracepoint: two devices without --dev fail"
else not_ok "tracepoint: two devices without --dev fail" "$(cat "$tmp/err")"; fi
"$sim" --dev cxd1 --capacity 1M --cache 64K --json "$tmp/tp" >"$tmp/json" 2>&1
check "tracepoint --dev cxd1: one access" "1" "$(jfield accesses <"$tmp/json")"
if "$sim" --dev cxd7 --capacity 1M --cache 64K "$tmp/tp" >/dev/null 2>&1; then
	not_ok "tracepoint: no miss of the device fails"
else ok "tracepoint: no miss of the device fails"; fi
printf 'x-1 [000] 1.0: cxdvirt_miss: dev=cxd0 cause=read\n' >"$tmp/tpbad"
if "$sim" "$tmp/tpbad" >/dev/null 2>"$tmp/err"; then not_ok "tracepoint: a miss without page= fails, naming the line"
elif grep -q ':1:' "$tmp/err"; then ok "tracepoint: a miss without page= fails, naming the line"
else not_ok "tracepoint: a miss without page= fails, naming the line" "$(cat "$tmp/err")"; fi
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
if "$sim" --preset znand --ftl page "$tmp/stride5" >/dev/null 2>"$tmp/err"; then
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

# The options come from the parameter table (include/cxdvirt/params.h):
# configfs names with '-' for '_', the earlier spellings still accepted,
# bounds from the table, and the defaults of a new configfs device.
"$sim" --json "$tmp/scan65" >"$tmp/json" 2>&1
check "defaults as configfs: 8 channels x 4 dies x 1 plane" "8 4 1" \
	"$(for k in channels dies_per_channel planes_per_die; do jfield $k <"$tmp/json"; done | tr '\n' ' ' | sed 's/ $//')"
check "defaults as configfs: cache_size 8M, write_alloc fetch" '8388608 "fetch"' \
	"$(jfield cache_size <"$tmp/json") $(jfield write_alloc <"$tmp/json")"
"$sim" --json --cache-size 256K --prefetch-degree 2 --write-alloc nofetch \
	--dies-per-channel 2 "$tmp/scan65" >"$tmp/json" 2>&1
"$sim" --json --cache 256K --degree 2 --write-alloc nofetch --dies 2 \
	"$tmp/scan65" >"$tmp/json2" 2>&1
check "earlier spellings set the same parameters" "" \
	"$(diff <(grep -v elapsed "$tmp/json") <(grep -v elapsed "$tmp/json2"))"
check "--cache-size 256K" 262144 "$(jfield cache_size <"$tmp/json")"
"$sim" --dies-per-channel 65 "$tmp/scan65" >/dev/null 2>"$tmp/err"
check "dies_per_channel bound from the table (CXD_MAX_DIES_PER_CH)" \
	"cxdvirt-sim: --dies-per-channel: bad value '65' (out of range [1, 64])" \
	"$(cat "$tmp/err")"

# --power-fail-at: 4 writes then 2 reads through 4 FIFO lines; after the 6th
# access lines hold 2, 3 (dirty), 4, 5: a volatile cache loses 2 and 3.
printf 'W 0\nW 1\nW 2\nW 3\nR 4\nR 5\nW 6\n' >"$tmp/pf"
"$sim" --capacity 1M --cache 16K --policy fifo --power-fail-at 6 "$tmp/pf" \
	>"$tmp/out" 2>&1
check "power-fail-at: dirty lines lost" 2 "$(field "$tmp/out" "dirty lines lost")"
check "power-fail-at: the replay stops there" 6 "$(field "$tmp/out" accesses)"
"$sim" --capacity 1M --cache 16K --policy fifo --power-fail-at 6 --json \
	"$tmp/pf" | tr -d ' \n' >"$tmp/json"
check "power-fail-at: the lost pages (JSON)" 1 \
	"$(grep -c '"lines_saved":0,"lines_lost":2,"bytes_lost":8192,"pages":\[2,3\]' "$tmp/json")"
"$sim" --capacity 1M --cache 16K --power-fail-at 8 "$tmp/pf" >"$tmp/out" 2>&1
check "power-fail-at beyond the trace is refused" \
	"cxdvirt-sim: --power-fail-at 8: beyond the trace (7 accesses)" "$(cat "$tmp/out")"

# GPF: one die, programs back to back (xfer 3414 ns, then tPROG 100 us
# each, the transfers overlapping the programs): a budget of xfer + 2 tPROG
# keeps the two oldest-dirtied lines (3, then 1), 1 ns less only one.
printf 'W 3\nW 1\nW 0\nW 2\n' >"$tmp/gpf"
gpf() {
	"$sim" --capacity 1M --cache 16K --channels 1 --dies-per-channel 1 \
		--json --power-fail-at 4 --persistence gpf --gpf-budget-ns "$1" \
		"$tmp/gpf" | tr -d ' \n' |
		sed -n 's/.*"lines_saved":\([0-9]*\),"lines_lost":\([0-9]*\).*"pages":\[\([0-9,]*\)\].*/\1 \2 \3/p'
}
check "gpf: xfer + 2 tPROG keeps the two oldest" "2 2 0,2" "$(gpf 203414)"
check "gpf: 1 ns less keeps one" "1 3 1,0,2" "$(gpf 203413)"
check "gpf: budget 0 keeps none" "0 4 3,1,0,2" "$(gpf 0)"
check "gpf: a large budget keeps every line" "4 0 " "$(gpf 100000000)"
"$sim" --capacity 1M --cache 16K --channels 1 --dies-per-channel 1 \
	--power-fail-at 4 --persistence gpf --gpf-budget-ns 100000000 "$tmp/gpf" >"$tmp/out" 2>&1
util() {	# the die utilisation row of a text report on stdin
	sed -n 's/^die utilization mean . max  *//p'
}
check "gpf: the flush is not in the run's die utilisation" \
	"$(util <"$tmp/out")" \
	"$("$sim" --capacity 1M --cache 16K --channels 1 --dies-per-channel 1 --power-fail-at 4 "$tmp/gpf" | util)"
"$sim" --capacity 1M --cache 16K --power-fail-at 2 --warmup 3 "$tmp/gpf" >"$tmp/out" 2>&1
check "a warm-up that reaches the power failure is refused" \
	"cxdvirt-sim: --warmup 3 leaves none of the 2 accesses before --power-fail-at to measure" "$(cat "$tmp/out")"

# An option without its value names the option and says so.
"$sim" "$tmp/gpf" --policy >/dev/null 2>"$tmp/err"
check "a missing value: the option needs one" \
	"cxdvirt-sim: option '--policy' needs a value" "$(head -n 1 "$tmp/err")"
"$sim" sweep --out >/dev/null 2>"$tmp/err"
check "sweep: a missing value: the option needs one" \
	"cxdvirt-sim sweep: option '--out' needs a value" "$(head -n 1 "$tmp/err")"

# --faults --hit-ns: a native hit costs what a model hit costs (a real
# device serves it from its cache): one miss, then three hits of 1000 ns.
printf 'R 0\nR 0\nW 0\nR 0\n' >"$tmp/hits"
hitrun() {	# hitrun OPTIONS...: "elapsed_ns hits native_hits"
	"$sim" --capacity 1M --cache 16K --json "$@" "$tmp/hits" >"$tmp/json" 2>&1
	echo "$(jfield elapsed_ns <"$tmp/json") $(jfield hits <"$tmp/json") $(jfield native_hits <"$tmp/json")"
}
miss=$(hitrun --faults | cut -d' ' -f1)
check "--faults --hit-ns: native hits are charged --hit-ns" \
	"$((miss + 3000)) 0 3" "$(hitrun --faults --hit-ns 1000)"
check "--hit-ns: model hits cost the same as native ones" \
	"$((miss + 3000)) 3 0" "$(hitrun --hit-ns 1000)"

[ "$fails" -eq 0 ]
