#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench-repro.sh [--out DIR] [--doc FILE] [--parallel] [BENCH.SH ARGS...]
# bench-repro.sh --compare DIR1 DIR2 [--doc FILE]
#
# `make bench-repro`: run the benchmark (tools/bench/bench.sh, 6.1 only,
# without row 6) twice, one run after the other, into DIR/run1 and
# DIR/run2 (default tests/vm/out/bench-repro), and print how far each row
# of the two runs' tables agrees: |a - b| / mean(a, b) of the first figure
# of the `measured` column. Ratio rows (1, 1b, 2, 2b, 2c, 3 accuracy, 4, 5)
# must agree within 5%; the P99.9 / P50 tails within a factor of 1.5;
# report-only rows (goal "report": 5f, and 5h, which runs under
# multi-threaded TCG even in an --icount run) are shown, not compared.
# --parallel boots both guests at once (sound under --icount only, where
# host load does not enter the figures). Other arguments go to bench.sh
# (e.g. --icount shift=0,sleep=off, --pin).
#
# --compare: only compare two saved runs (DIR/perf.md of each).
# With --doc, the comparison replaces its section of FILE (appended if
# missing): `bench-repro` for an --icount pair, `bench-repro-tcg` for
# ordinary TCG; bench.sh keeps both when it rewrites the document.
# Exits 1 if a row that has figures in both runs disagrees.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LANE_DIR=$(cd "$HERE/../../tests/vm" && pwd)	# the guest harness
. "$LANE_DIR/lib.sh"

out=$LANE_DIR/out/bench-repro
doc=
parallel=0
cmp1=
cmp2=
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--doc) doc=$2; shift 2 ;;
	--parallel) parallel=1; shift ;;
	--compare) cmp1=$2; cmp2=$3; shift 3 ;;
	--mt-only) lane_die "--mt-only: run tools/bench/bench.sh --mt-only --out DIR/runN on a saved run (here it would delete the pair first)" ;;
	-h|--help) sed -n '3,21p' "$0"; exit 0 ;;
	*) args+=("$1"); shift ;;
	esac
done

mode="multi-threaded TCG"
for ((i = 0; i < ${#args[@]}; i++)); do
	case ${args[$i]} in
	--icount) mode="QEMU -icount ${args[$((i + 1))]}" ;;
	--pin) mode="$mode, vCPU threads pinned" ;;
	esac
done

if [ -z "$cmp1" ]; then
	mkdir -p "$out"
	run() {	# run N: one benchmark into $out/runN
		local d=$out/run$1
		rm -rf "$d"
		mkdir -p "$d"
		date -u +%FT%TZ > "$d/start"
		"$HERE/bench.sh" --kernels '' --no-model --out "$d" --doc "$d/perf.md" \
			${args[@]+"${args[@]}"} > "$d/bench.log" 2>&1 || return
		# the host's load over the run (5-minute average at its end)
		echo "$(cut -d' ' -f2 /proc/loadavg) $(nproc)" > "$d/load"
	}
	lane_log "benchmark twice ($mode); logs: $out/run1/bench.log, $out/run2/bench.log"
	if [ $parallel = 1 ]; then
		run 1 & p1=$!
		sleep 20	# the initramfs builds must not race
		run 2 & p2=$!
		wait $p1 || lane_die "run 1 failed (see $out/run1/bench.log)"
		wait $p2 || lane_die "run 2 failed (see $out/run2/bench.log)"
	else
		run 1 || lane_die "run 1 failed (see $out/run1/bench.log)"
		run 2 || lane_die "run 2 failed (see $out/run2/bench.log)"
	fi
	cmp1=$out/run1
	cmp2=$out/run2
	echo "$mode" > "$out/mode"
elif [ -f "$(dirname "$cmp1")/mode" ]; then
	mode=$(cat "$(dirname "$cmp1")/mode")
fi
[ -f "$cmp1/perf.md" ] && [ -f "$cmp2/perf.md" ] || lane_die "no perf.md in $cmp1 or $cmp2"

case $mode in
*icount*) marker=bench-repro; title="## Reproducibility" ;;
*) marker=bench-repro-tcg; title="## Reproducibility without icount ($mode)" ;;
esac
sec=$(mktemp)
trap 'rm -f "$sec"' EXIT
rc=0
{
echo "<!-- $marker: begin (make bench-repro, tools/bench/bench-repro.sh; do not edit) -->"
echo "$title"
echo
echo "\`make bench-repro\`: the benchmark twice ($mode), rows 1-5, the first"
echo "figure of each row compared. Limit: 5% for the ratio rows, a factor of 1.5"
echo "for the tails (P99.9 / P50); report-only rows are shown, not compared."
echo
echo "| row | what | run 1 | run 2 | apart | limit | |"
echo "|---|---|---:|---:|---:|---:|---|"
awk -F' [|] ' '
	function num(s) { return s !~ /^n\/a/ && match(s, /^-?[0-9]+(\.[0-9]+)?/) ? substr(s, RSTART, RLENGTH) : "" }
	function abs(v) { return v < 0 ? -v : v }
	# the rows table only: a heading of any level ends it (the model-cost
	# tables under "### Row 6" have rows that start with a number too)
	/^## Results/ { inres[FILENAME] = 1; next }
	/^##/ { inres[FILENAME] = 0 }
	/^[|] [0-9]/ && inres[FILENAME] {
		row = substr($1, 3); what = $2; key = row "|" what
		if (FNR == 1 || !(key in seen)) { order[++n] = key; seen[key] = 1 }
		if (FILENAME == f1) a[key] = num($3); else b[key] = num($3)
		goal[key] = $4
	}
	END {
		bad = 0
		for (i = 1; i <= n; i++) {
			k = order[i]; split(k, p, "|"); row = p[1]; what = p[2]
			if (row == "6") continue
			short = what; sub(/:.*/, "", short)
			tail = what ~ /tail/
			# report-only rows (5f, 5h: host-timed, multi-threaded TCG)
			# are shown, not compared, as rows without both figures
			if (goal[k] == "report" || a[k] == "" || b[k] == "") { printf "| %s | %s | %s | %s | - | - | %s |\n", row, short, a[k] == "" ? "n/a" : a[k], b[k] == "" ? "n/a" : b[k], goal[k] == "report" ? "report only" : "n/a"; continue }
			x = a[k] + 0; y = b[k] + 0
			if (tail) {
				f = (x > 0 && y > 0) ? (x > y ? x / y : y / x) : 0
				ok = x > 0 && y > 0 && f <= 1.5
				printf "| %s | %s | %s | %s | x%.2f | x1.5 | %s |\n", row, short, a[k], b[k], f, ok ? "agree" : "**apart**"
			} else {
				# relative to the mean size: a figure may be negative
				# (rows 2d, 5c: an overhead that the calibration
				# overshoots)
				d = (abs(x) + abs(y)) ? 200 * abs(x - y) / (abs(x) + abs(y)) : 0
				ok = d <= 5
				printf "| %s | %s | %s | %s | %.1f%% | 5%% | %s |\n", row, short, a[k], b[k], d, ok ? "agree" : "**apart**"
			}
			if (!ok) bad++
		}
		exit bad ? 1 : 0
	}' f1="$cmp1/perf.md" "$cmp1/perf.md" "$cmp2/perf.md" || rc=1
echo
echo "Runs: $(cat "$cmp1/start" 2>/dev/null || echo "?") and $(cat "$cmp2/start" 2>/dev/null || echo "?") (UTC start)."
if [ -s "$cmp1/load" ] && [ -s "$cmp2/load" ]; then
	read -r l1 ncpu < "$cmp1/load"
	read -r l2 _ < "$cmp2/load"
	echo "Host load over the runs (5-minute load average at their ends, $ncpu CPUs): $l1 and $l2."
fi
[ $marker = bench-repro ] && cat <<'EOF_NOTES'

What QEMU -icount shows, and what it cannot:

- **Guest time is the instruction count.** At shift=0 each guest
  instruction advances the guest's clock (and its TSC) by 1 ns, and with
  sleep=off idle time jumps straight to the next timer. Host load,
  descheduling and other guests mostly do not enter the figures: three
  pairs of runs of one commit each (2026-12-04, one beside two CPU hogs)
  printed byte-identical guest logs. The pair of 23f0b6b, run beside a
  third guest and valgrind (load 3.5 on 2 CPUs), parted at row 4's first
  run whose waits sleep (`scal_1_sleep`: mean 42741.70 against 42741.64
  ns) and differed by up to 0.1% from there on: a sleeping wait can
  still take an input timed by the host (not found yet). Fixed inputs
  are what makes a pair one run, not only the clock:
  `lane_icount` (tests/vm/lib.sh) gives QEMU -seed (RDRAND and the boot's
  RNG seed, and through them KASLR and the kernel's random state) and an
  RTC that starts at a fixed date and runs on the guest's clock, and the
  initramfs is packed with reproducible bytes (`lane_pack_cpio`: a
  different image decompresses in a different number of instructions).
  Before that (until 2026-12-04) a median moved by a few dozen
  instructions between runs and a P99.9 by up to 1.3 times; two boots of
  one image with the inputs fixed printed the same figures while two
  other QEMUs loaded both host CPUs. `LANE_SEED=N` draws another run
  (another kernel layout and random state), as reproducible; the spread
  over seeds is what a real machine shows from boot to boot. A latency is
  the instructions of the
  fault path (exception entry, page-table walk, the module, the timer
  reads) at 1 ns each, plus the modeled wait, which the module spins or
  sleeps in guest time and so gets exactly.
- **Rows 2 and 3 become the kernel's own cost per miss in instructions**,
  free of noise, which is what a regression test of the fault path needs.
  As time they assume a 1 GHz, one-instruction-per-cycle CPU: a real core
  retires several instructions per ns, so on hardware the same path is
  shorter and row 3's accuracy is closer to 1.
- **Rows 1, 1b and 5 are 1 by construction**: memory speed is not modeled,
  a hit costs its instructions whether it reads the device or plain memory.
  Hit latency is a property of the memory system, not of the guest's code;
  these rows mean something only on hardware.
- **Row 4**: the vCPUs run round-robin on one host thread, so two guest
  threads never run at the same time; the row shows the modeled queueing
  and the interleaving, not parallel hardware.
- **Tails** (P99.9 / P50) under icount are the guest's own background
  work (timer ticks, the device's accessed-bit scan) landing in timed
  accesses (Limits, row 3 tails): the same in every run of one commit and
  seed, but another seed or a changed guest script moves them (the femu
  tail read 1.27 and 5.27 in pairs a guest-script change apart), where
  multi-threaded TCG gives factors of 30 to several thousand that change
  from run to run.
- **SMP boot.** With -smp 2, a boot under icount hangs at "x86: Booting SMP
  configuration" (QEMU 7.2; tried shift=0,sleep=off; shift=0,sleep=on;
  shift=3,sleep=off). It is not the TSC synchronisation check: the kernel
  has marked the TSC unstable before. The same vCPU comes online when the
  guest boots with maxcpus=1 and writes 1 to
  /sys/devices/system/cpu/cpu1/online later, which is what
  `bench.sh --icount` does.
- **Cost.** Single-threaded TCG with instruction counting runs the guest
  about 5 times slower than multi-threaded TCG (a short subset: 500 s
  against 97 s), but host load does not change the figures, so the two
  runs of `make bench-repro` boot in parallel. A pair that is apart at all
  means an input from the host reached a guest: find it before trusting
  either run.

The results at the top of docs/performance.md are run 1 of the pair, every
row and the scale figures (`tools/bench/bench.sh --from OUT/run1/guest-tap.log
--out OUT/run1 --kernels ''`, row 6 measured on the host then), so the
document, its agreement figures and the code are of one commit.
EOF_NOTES
[ $marker = bench-repro-tcg ] && cat <<'EOF_TCG'

Without icount a latency is host time: the vCPU threads compete with
everything else the host runs, other guests included, and pinning them to
host CPUs (`--pin`) does not keep other processes off those CPUs. Use the
icount pair above to compare the module's cost between two commits.
EOF_TCG
echo "<!-- $marker: end -->"
} > "$sec"
cat "$sec"
if [ -n "$doc" ]; then
	if grep -q "^<!-- $marker: begin" "$doc"; then
		awk -v f="$sec" -v m="$marker" '
			$0 ~ "^<!-- " m ": begin" { while ((getline l < f) > 0) print l; skip = 1; next }
			$0 ~ "^<!-- " m ": end" { skip = 0; next }
			!skip' "$doc" > "$doc.tmp"
		mv "$doc.tmp" "$doc"
	else
		{ echo; cat "$sec"; } >> "$doc"
	fi
	lane_log "wrote the section into $doc"
fi
exit $rc
