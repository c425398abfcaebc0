#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sim-speed.sh SIM GEN [DOC.md]     (make bench-sim)
#
# cxdvirt-sim's replay speed. GEN (tools/bench/progs/gen-trace) writes two
# binary traces of SIM_BENCH_N (default 100 M) reads over a 4 GiB device
# (1 Mi pages) into a temporary directory (removed at exit; ~800 MB each):
# `uniform` (every page alike: 25% hits with a 1 GiB cache, most accesses
# miss and evict) and `hotcold` (90% of the accesses to 10% of the pages).
# SIM replays each under every policy with a 1 GiB cache, SIM_BENCH_ROUNDS
# (default 3) times; the figure is the median over the rounds of accesses
# per second of replay CPU time (CLOCK_PROCESS_CPUTIME_ID, --timing), which
# other load on the host inflates less than wall time (both are printed).
# Also: text parsing speed (10 M lines), and the model's memory per device
# page and per cache line (model_state_bytes at three shapes).
#
# SIM_BENCH_BASE=OTHER-SIM (e.g. a cxdvirt-sim built from an older commit)
# replays every trace with OTHER-SIM too, interleaved round by round with
# SIM (so both see the same host load), adds its median as a `before`
# column and checks that both print the same JSON (model_state_bytes
# aside): the speed-up must not change a result.
#
# Prints a markdown section; with DOC.md, replaces the section between the
# `bench-sim` markers there (or appends it). Goal (docs/performance.md):
# >= 15 M accesses/s for fifo and lru, >= 7.5 M/s for every policy.
# Exits 0 whether the goal is met or not: the table says.
set -euo pipefail

sim=${1:?usage: sim-speed.sh SIM GEN [DOC.md]}
gen=${2:?usage: sim-speed.sh SIM GEN [DOC.md]}
doc=${3:-}
N=${SIM_BENCH_N:-100000000}
ROUNDS=${SIM_BENCH_ROUNDS:-3}
PAGES=1048576
CACHE=1G
POLICIES="fifo lifo clock lru s3fifo random"
BASE=${SIM_BENCH_BASE:-}
SHAPES="uniform hotcold"
GOAL=15
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/cxdvirt-bench-sim.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

log() { echo "bench-sim: $*" >&2; }

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# jnum KEY FILE: first numeric "KEY": value of a JSON file
jnum() { sed -n "s/^ *\"$1\": *\\([0-9.e+-]*\\).*/\\1/p" "$2" | head -n 1; }

for s in $SHAPES; do
	log "generating $N accesses, $s, $PAGES pages"
	"$gen" "$tmp/$s.bin" "$N" "$PAGES" "$s"
done

sec=$tmp/section.md
{
echo "<!-- bench-sim: begin (make bench-sim, tools/bench/sim-speed.sh; do not edit) -->"
echo "## Simulator speed"
echo
echo "\`make bench-sim\` on the host: cxdvirt-sim replays binary traces of"
echo "$((N / 1000000)) M reads over a 4 GiB device ($PAGES pages) with a 1 GiB cache, znand"
echo "preset, no prefetch. \`uniform\`: every page alike (about 25% hits: three"
echo "accesses in four miss, evict and run the NAND timing); \`hotcold\`: 90% of"
echo "the accesses to 10% of the pages. M/s = accesses per second of replay CPU"
echo "time (the host is shared: wall time is printed beside it), median of"
echo "$ROUNDS rounds, min-max in brackets. Host: $(nproc) CPUs,"
echo "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1),"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the start."
echo
if [ -n "$BASE" ]; then
	echo "\`before\`: the same replay by the cxdvirt-sim of ${SIM_BENCH_BASE_NAME:-$BASE},"
	echo "interleaved round by round with this one; both printed the same JSON"
	echo "(every count and latency) on every row."
	echo
	echo "| policy | trace | hit ratio | M accesses/s (CPU) | before | replay wall s | goal | |"
	echo "|---|---|---:|---:|---:|---:|---:|---|"
else
	echo "| policy | trace | hit ratio | M accesses/s (CPU) | replay wall s | goal | |"
	echo "|---|---|---:|---:|---:|---:|---|"
fi
} > "$sec"

# replay BIN TRACE POLICY OUT: one timed replay; appends M/s to OUT.rates,
# wall s to OUT.walls, keeps the JSON in OUT.json
replay() {
	"$1" --timing --json --preset znand --cache $CACHE --policy "$3" "$2" \
		> "$4.json" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	sed -n 's/.*replay 1: \([0-9.]*\) s, cpu \([0-9.]*\) s.*/\1 \2/p' "$tmp/err" > "$tmp/t"
	read -r wall cpu < "$tmp/t"
	awk -v n="$N" -v c="$cpu" 'BEGIN { printf "%.2f\n", n / c / 1e6 }' >> "$4.rates"
	echo "$wall" >> "$4.walls"
}

missed=0
for p in $POLICIES; do
	case $p in fifo|lru) goal=$GOAL ;; *) goal=$(awk -v g=$GOAL 'BEGIN { print g / 2 }') ;; esac
	for s in $SHAPES; do
		rm -f "$tmp"/out.* "$tmp"/base.*
		for r in $(seq "$ROUNDS"); do
			replay "$sim" "$tmp/$s.bin" "$p" "$tmp/out"
			[ -z "$BASE" ] || replay "$BASE" "$tmp/$s.bin" "$p" "$tmp/base"
		done
		if [ -n "$BASE" ] && ! cmp -s <(grep -v model_state_bytes "$tmp/out.json") \
				<(grep -v model_state_bytes "$tmp/base.json"); then
			log "$p $s: the two simulators disagree"
			diff <(grep -v model_state_bytes "$tmp/base.json") \
				<(grep -v model_state_bytes "$tmp/out.json") >&2 || true
			exit 1
		fi
		cp "$tmp/out.rates" "$tmp/rates"
		cp "$tmp/out.walls" "$tmp/walls"
		hits=$(jnum hits "$tmp/out.json")
		hr=$(awk -v h="$hits" -v n="$N" 'BEGIN { printf "%.3f", h / n }')
		med=$(median < "$tmp/rates")
		lo=$(sort -g "$tmp/rates" | head -n 1)
		hi=$(sort -g "$tmp/rates" | tail -n 1)
		wmed=$(median < "$tmp/walls")
		if awk -v m="$med" -v g="$goal" 'BEGIN { exit !(m >= g) }'; then v=met
		else v="**missed**"; missed=$((missed + 1)); fi
		log "$p $s: $med M/s (cpu; $lo-$hi), wall $wmed s, hit ratio $hr: $v"
		if [ -n "$BASE" ]; then
			bmed=$(median < "$tmp/base.rates")
			log "$p $s: before $bmed M/s"
			echo "| $p | $s | $hr | $med ($lo-$hi) | $bmed | $wmed | >= $goal | $v |" >> "$sec"
		else
			echo "| $p | $s | $hr | $med ($lo-$hi) | $wmed | >= $goal | $v |" >> "$sec"
		fi
	done
done

# Text parsing: 10 M lines (or N if smaller) converted to binary.
tn=$((N < 10000000 ? N : 10000000))
"$gen" --text "$tmp/t.txt" "$tn" "$PAGES" uniform 30
"$sim" --timing --convert "$tmp/t.bin" "$tmp/t.txt" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
tcpu=$(sed -n 's/.*load: text.*cpu \([0-9.]*\) s.*/\1/p' "$tmp/err")
trate=$(awk -v n="$tn" -v c="$tcpu" 'BEGIN { printf "%.1f", (c > 0 ? n / c / 1e6 : 0) }')
tsz=$(stat -c %s "$tmp/t.txt")
bsz=$(stat -c %s "$tmp/t.bin")
log "text: $tn lines in $tcpu s cpu ($trate M lines/s), $tsz -> $bsz bytes"

# Where the time goes: perf samples by symbol (skipped without perf).
prof=
if command -v perf > /dev/null; then
	prof=$tmp/prof.md
	: > "$prof"
	for s in $SHAPES; do
		if perf record -q -e cpu-clock -o "$tmp/perf.data" -- "$sim" --cache $CACHE \
			--policy lru "$tmp/$s.bin" > /dev/null 2>&1; then
			perf report -i "$tmp/perf.data" --stdio --no-children --sort dso,sym 2>/dev/null |
			awk -v s="$s" -v sim="$(basename "$sim")" '
				$1 ~ /%$/ { v = $1 + 0; sym = $NF
					if ($2 != sim) other += v
					else if (sym ~ /^(main|sim_|lat_|trace_)/) loop += v
					else model += v }
				END { if (model + loop + other > 0)
					printf "| %s | %.1f%% | %.1f%% | %.1f%% |\n", s, model, loop, other }' >> "$prof"
		fi
	done
	[ -s "$prof" ] || prof=
fi

# Model memory: model_state_bytes at (4 GiB, 1 GiB), (8 GiB, 1 GiB), (4 GiB, 2 GiB).
echo "R 0" > "$tmp/one"
state() { "$sim" --json --capacity "$1" --cache "$2" "$tmp/one" > "$tmp/s.json"; jnum model_state_bytes "$tmp/s.json"; }
s11=$(state 4G 1G)
s21=$(state 8G 1G)
s12=$(state 4G 2G)
per_page=$(awk -v a="$s11" -v b="$s21" 'BEGIN { printf "%.2f", (b - a) / 1048576 }')
per_line=$(awk -v a="$s11" -v b="$s12" 'BEGIN { printf "%.2f", (b - a) / 262144 }')
log "model state: $per_page bytes per device page, $per_line bytes per cache line"

{
echo
echo "Goal: >= $GOAL M accesses/s for fifo and lru, within 2x of that for every"
echo "policy. $( [ $missed = 0 ] && echo "Met on every row." || echo "Missed on $missed rows: see below.")"
echo
echo "- **Text input.** $((tn / 1000000)) M lines of \`R|W PAGE\` parse at $trate M lines/s"
echo "  (CPU); \`--convert\` turns $tsz bytes of text into $bsz bytes of"
echo "  binary trace (8 bytes per access), which replays straight from its mapping."
echo "- **Memory.** The model's state (\`model_state_bytes\` in the JSON output):"
echo "  $per_page bytes per device page and $per_line bytes per cache line, measured"
echo "  as the difference between a 4 and an 8 GiB device and between a 1 and a"
echo "  2 GiB cache ($s11 bytes for 4 GiB / 1 GiB). The simulator adds 8 bytes per"
echo "  access for a text trace (a binary one stays in the page cache), one byte"
echo "  per device page with \`--faults\`, and at most 8 MiB for the exact latency"
echo "  counts (one counter per ns below 1.05 ms, touched pages only)."
echo
if [ -n "$prof" ]; then
	echo "Where the replay time goes (\`perf record\`, CPU samples by symbol, one"
	echo "round of each trace under lru):"
	echo
	echo "| trace | device model (driver/model/) | simulator loop (tools/sim/) | kernel, libc |"
	echo "|---|---:|---:|---:|"
	cat "$prof"
	echo
	echo "The model's own code is the limit: each miss evicts a line and rewrites"
	echo "line_of_page[] of a random page, an lru hit relinks a random line. One"
	echo "line's state is one 24-byte struct (one CPU cache line, rarely two); the"
	echo "replay loop asks the model (cxd_cache_warm()) to fetch the page entry,"
	echo "the line and, for lru/cflru/2q, its queue neighbours of the accesses 16,"
	echo "8 and 4 ahead, and each eviction fetches the next victim's state (queue"
	echo "head, S3-FIFO/2Q ghost slot, the random policy's next draws); cxdvirt-sim"
	echo "is built with -flto so the model's small functions inline into the loop."
	echo
fi
echo "<!-- bench-sim: end -->"
} >> "$sec"

cat "$sec"
if [ -n "$doc" ]; then
	if grep -q '^<!-- bench-sim: begin' "$doc"; then
		awk -v f="$sec" '
			/^<!-- bench-sim: begin/ { while ((getline l < f) > 0) print l; skip = 1; next }
			/^<!-- bench-sim: end/ { skip = 0; next }
			!skip' "$doc" > "$doc.tmp"
		mv "$doc.tmp" "$doc"
	else
		{ echo; cat "$sec"; } >> "$doc"
	fi
	log "wrote the section into $doc"
fi
