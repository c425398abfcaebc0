#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench's document from saved guest logs (tools/bench/bench.sh --from),
# no guest: row 5h (a busy neighbour under multi-threaded TCG) from the main
# run, or from the second guest that an --icount run boots for it (OUT/mt/),
# whose runs join the main run's while the main run keeps its own
# calibration of the node device. The logs are made up, in the format
# tools/bench/bench-guest.sh prints. Then make bench-repro's comparison
# and bench.sh --mt-only's kernel check. Prints TAP.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/tools/tap.bash
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the lines of the main run: NODE-CAL is the node device's fault_exit_ns
main_log() {
	printf 'CXDVIRT-BENCH-INFO %s\n' "kernel 6.1.0-test" "clocksource tsc" \
		"cpus 2" "timer rdtscp" "nodemodel 43410" \
		"calibrate b_node fault_exit_ns $1" "$2"
}

# the lines of row 5h's runs (bench-guest.sh's mt_row)
mt_log() {
	cat <<'EOF'
CXDVIRT-BENCH-INFO fault_exit_mt 0 0
# run node_mt: numactl --membind=2 --physcpubind=0 cxdvirt-bench --timer rdtscp -t anon -L node-miss-mt
CXDVIRT-BENCH-JSON node_mt
{"label": "node-miss-mt", "hits": {"count": 0}, "misses": {"count": 3072, "p50_ns": 45000, "p90_ns": 46000, "p99_ns": 47000, "p999_ns": 48000, "p9999_ns": 49000, "max_ns": 50000}}
CXDVIRT-BENCH-END
CXDVIRT-BENCH-INFO ipis_cpu node_mt 1 10 20 6 9216
# run femu_mt: numactl --physcpubind=0 cxdvirt-bench --timer rdtscp -t /dev/cxdvirt3 -L femu-mt
CXDVIRT-BENCH-JSON femu_mt
{"label": "femu-mt", "hits": {"count": 0}, "misses": {"count": 5120, "p50_ns": 41000, "p90_ns": 41500, "p99_ns": 42000, "p999_ns": 43000, "p9999_ns": 44000, "max_ns": 45000}, "model": {"model_mean_ns": 40041}}
CXDVIRT-BENCH-END
CXDVIRT-BENCH-INFO ipis_cpu femu_mt 1 0 3 3 6144
EOF
}

# report OUT: bench.sh --from OUT/guest-tap.log; prints row 5h's line of
# the document and the node fault_exit_ns of row 5c
report() {
	tools/bench/bench.sh --from "$1/guest-tap.log" --out "$1" \
		--doc "$1/perf.md" --kernels bookworm --no-model > "$1/log" 2>&1 ||
		{ echo "bench.sh failed: $(tail -n 3 "$1/log")"; return; }
	grep '^| 5h |' "$1/perf.md"
	grep '^| 5c |' "$1/perf.md" | grep -o 'node fault_exit_ns [0-9]*'
}

# 1. a run without icount: row 5h's runs are the main run's own
o=$tmp/tcg
mkdir -p "$o"
{ main_log 546 "pinned 0"; mt_log; } > "$o/guest-tap.log"
r=$(report "$o")
# node: 45000 - 43410 = 1590 ns; devdax: 41000 - 40041 = 959 ns
if grep -q '| 1.66 (node 1590 ns' <<< "$r" &&
   grep -q 'devdax 959 ns' <<< "$r" &&
   grep -q 'node 0.004 (TLB 10, CAL 20, RES 6 / 9216 misses' <<< "$r" &&
   grep -q 'devdax 0.001 (TLB 0, CAL 3, RES 3 / 6144 misses' <<< "$r" &&
   grep -q 'femu_mt`: this run' <<< "$r"; then
	ok "row 5h from the main run: both overheads, their ratio, vCPU 1's IPIs per miss"
else
	not_ok "row 5h from the main run: both overheads, their ratio, vCPU 1's IPIs per miss" "$r"
fi

# 2. an --icount run: no row 5h of its own, then its second guest's
o=$tmp/icount
mkdir -p "$o"
main_log 300 "icount shift=0,sleep=off" > "$o/guest-tap.log"
r=$(report "$o")
if grep -q '| n/a (needs the vCPUs to run at once' <<< "$r"; then
	ok "--icount without the second guest: row 5h says why it is empty"
else
	not_ok "--icount without the second guest: row 5h says why it is empty" "$r"
fi
mkdir -p "$o/mt"
{ main_log 999 "icount shift=0,sleep=off"; mt_log; } > "$o/mt/guest-tap.log"
echo ok > "$o/mt/status"
r=$(report "$o")
if grep -q '| 1.66 (node 1590 ns' <<< "$r" &&
   grep -q 'fault_exit_ns node, devdax: 0 0)' <<< "$r" &&
   grep -q 'a guest of its own under multi-threaded TCG |' <<< "$r"; then
	ok "--icount: row 5h from the second guest, uncalibrated"
else
	not_ok "--icount: row 5h from the second guest, uncalibrated" "$r"
fi
if grep -qx 'node fault_exit_ns 300' <<< "$r"; then
	ok "--icount: row 5c keeps the main run's calibration of the node device"
else
	not_ok "--icount: row 5c keeps the main run's calibration of the node device" "$r"
fi
if grep -q '^- `node_mt`: `numactl --membind=2 --physcpubind=0' "$o/perf.md" &&
   grep -q '^| femu_mt | femu-mt | misses | 5120 |' "$o/perf.md"; then
	ok "--icount: the second guest's runs are listed with the main run's"
else
	not_ok "--icount: the second guest's runs are listed with the main run's" "$(grep _mt "$o/perf.md")"
fi
echo "failed to boot" > "$o/mt/status"
rm "$o/mt/guest-tap.log"
r=$(report "$o")
if grep -q 'a guest of its own under multi-threaded TCG (failed: failed to boot)' <<< "$r"; then
	ok "--icount: a second guest that left no log is named in the row"
else
	not_ok "--icount: a second guest that left no log is named in the row" "$r"
fi
echo "CXDVIRT-BENCH-INFO kernel 6.1.0-test" > "$o/mt/guest-tap.log"
echo ok > "$o/mt/status"
r=$(report "$o")
if grep -q '^| 5h | .* | n/a (node n/a ns' <<< "$r"; then
	ok "--icount: a second guest without the row's runs leaves the row empty"
else
	not_ok "--icount: a second guest without the row's runs leaves the row empty" "$r"
fi

# 3. the document's own part ends at its end marker: what other targets
# wrote after it stays, byte for byte
o=$tmp/tcg
printf '\n## Workloads\n\n<!-- workloads: generated by make workloads, do not edit -->\nprose | kept\n<!-- workloads: end -->\n## CMM-H fidelity\n\nhand-written\n' > "$tmp/others"
cat "$tmp/others" >> "$o/perf.md"
report "$o" > /dev/null
if [ "$(grep -c '^<!-- bench: end' "$o/perf.md")" = 1 ] &&
   [ "$(sed '1,/^<!-- bench: end/d' "$o/perf.md")" = "$(cat "$tmp/others")" ]; then
	ok "make bench keeps what follows its end marker"
else
	not_ok "make bench keeps what follows its end marker" "$(sed -n '/^<!-- bench: end/,$p' "$o/perf.md")"
fi

# 4. make bench-repro's comparison: a report-only row (5h, under
# multi-threaded TCG even in an --icount pair) is shown, not compared; a
# ratio row still fails the pair when the runs are apart
# compare WANT-STATUS LINE-RE NAME: bench-repro.sh --compare of c1 and c2
# exits WANT-STATUS and prints a line that matches LINE-RE
compare() {
	local rc=0 out
	out=$(tools/bench/bench-repro.sh --compare "$tmp/c1" "$tmp/c2" 2>&1) || rc=$?
	if [ $rc = "$1" ] && grep -q "$2" <<< "$out"; then
		ok "$3"
	else
		not_ok "$3 (status $rc)" "$out"
	fi
}
mkdir -p "$tmp/c1" "$tmp/c2"
cp "$tmp/tcg/perf.md" "$tmp/c1/perf.md"
sed 's/^| 5h | \(.*\) | 1\.66 (node/| 5h | \1 | 3.10 (node/' "$tmp/tcg/perf.md" > "$tmp/c2/perf.md"
compare 0 '^| 5h | .* | 1.66 | 3.10 | - | - | report only |' \
	"bench-repro: row 5h apart by x1.9 is shown, not compared"
sed -i 's/^| 5c | \(.*\) | n\/a (/| 5c | \1 | 1.50 (/' "$tmp/c2/perf.md"
sed -i 's/^| 5c | \(.*\) | n\/a (/| 5c | \1 | 1.00 (/' "$tmp/c1/perf.md"
compare 1 '^| 5c | .* | 1.00 | 1.50 | 40.0% | 5% | \*\*apart\*\* |' \
	"bench-repro: a ratio row apart by 40% fails the pair"

# a negative figure is a figure (row 5c when the calibration overshoots),
# compared by its size
sed -i 's/^| 5c | \(.*\) | 1\.00 (/| 5c | \1 | -4.00 (/' "$tmp/c1/perf.md"
sed -i 's/^| 5c | \(.*\) | 1\.50 (/| 5c | \1 | -4.10 (/' "$tmp/c2/perf.md"
compare 0 '^| 5c | .* | -4.00 | -4.10 | 2.5% | 5% | agree |' \
	"bench-repro: negative figures are compared, not taken as n/a"
# the model-cost tables below the rows (### Row 6) are not rows
for c in c1 c2; do
	awk '/^## / && r && !done { print "### Row 6: model cost\n\n| FTL, pages per block | Ir |\n|---|---:|\n| 2 | 1616.6 |\n| 64 | 1697.6 |\n"; done = 1 }
		/^## Results/ { r = 1 } { print }' "$tmp/$c/perf.md" > "$tmp/$c/p" && mv "$tmp/$c/p" "$tmp/$c/perf.md"
done
if grep -q '^| 64 | 1697.6 |' "$tmp/c1/perf.md" &&
   ! tools/bench/bench-repro.sh --compare "$tmp/c1" "$tmp/c2" 2>&1 | grep -q '^| 64 \|^| 2 | 1616'; then
	ok "bench-repro: the rows of the model-cost tables are not compared"
else
	not_ok "bench-repro: the rows of the model-cost tables are not compared" "$(grep -n 'Row 6' -A6 "$tmp/c1/perf.md")"
fi

# 5. bench.sh --mt-only adds row 5h to a saved run of the same kernel only
mkdir -p "$tmp/mtk"
printf 'CXDVIRT-BENCH-INFO kernel 9.9.9-test\n' > "$tmp/mtk/guest-tap.log"
rc=0
out=$(tools/bench/bench.sh --mt-only --kver 6.1.0-test --out "$tmp/mtk" --kernels '' 2>&1) || rc=$?
if [ $rc != 0 ] && grep -q "saved run in .* is of kernel 9.9.9-test, not 6.1.0-test" <<< "$out"; then
	ok "bench.sh --mt-only refuses a saved run of another kernel"
else
	not_ok "bench.sh --mt-only refuses a saved run of another kernel (status $rc)" "$out"
fi

echo "1..$n"
[ "$fails" -eq 0 ]
