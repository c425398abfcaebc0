#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# cxdvirt-bench, a few seconds: the reports are well formed (text, JSON,
# CSV) and the misses it classifies match the device's own counter.
# With --evict every measured access misses and waits at least the modeled
# time, so classification at half the model must agree exactly; a random
# pattern over twice the cache mixes hits and misses (agreement >= 95%:
# a hit delayed past the threshold by the emulation counts as a miss).
. /tests/lib.sh

D=bsmoke
trap 'dev_rm $D 2>/dev/null' EXIT
B=/bin/cxdvirt-bench
[ -x $B ] || bail "cxdvirt-bench is not in the guest (make tools)"

dev_create $D capacity=16M cache_size=1M t_read_ns=20000 channel_mbps=1200 || bail "create $D"
dev_on $D || bail "power on $D"
N=$(dev_node $D)
S=$(dev_sys $D)

# json_num FILE KEY: the first "KEY": NUMBER in a pretty-printed report.
json_num() {
	sed -n "s/^ *\"$2\": \([0-9.]*\),\{0,1\}$/\1/p" "$1" | head -n 1
}

# 1. evict: all misses, classified == counted == pages x passes
stats_reset $D
$B -d "$N" -n 128 -p 2 --evict --json > /tmp/b1.json 2> /tmp/b1.err
ok $? "--evict --json exits 0"
[ -s /tmp/b1.err ] && diag "$(cat /tmp/b1.err)"
head -c 1 /tmp/b1.json | grep -q '{'
ok $? "JSON report is an object"
tail -n 1 /tmp/b1.json | grep -q '^}$'
ok $? "JSON report is complete"
for k in p50_ns p90_ns p99_ns p999_ns p9999_ns max_ns mean_ns bandwidth_mbps classified_misses device_misses model_mean_ns; do
	grep -q "\"$k\":" /tmp/b1.json || fail "JSON has $k"
done
pass "JSON has every percentile, bandwidth and the model time"
cls=$(json_num /tmp/b1.json classified_misses)
dev=$(json_num /tmp/b1.json device_misses)
is "$cls" "$dev" "classified misses == device misses ($cls)"
is "$dev" 256 "device counted 128 pages x 2 passes of misses"
tot=$(cat "$S/stats/misses")
cmp_ok "$tot" -ge "$dev" "the device's total ($tot) covers the measured passes"
grep -q '"source": "model"' /tmp/b1.json
ok $? "threshold from the model"

# 2. random over 2x the cache: hits and misses, text report
$B -d "$N" -n 512 -p 2 --warmup 1 --pattern random > /tmp/b2.txt 2>&1
ok $? "random pattern, text report exits 0"
grep -E '^  (hits|misses|all) ' /tmp/b2.txt | sed 's/^/# /'
line=$(grep '^misses: classified' /tmp/b2.txt)
diag "$line"
c=$(echo "$line" | sed -n 's/^misses: classified \([0-9]*\), device \([0-9]*\), .*/\1/p')
d=$(echo "$line" | sed -n 's/^misses: classified \([0-9]*\), device \([0-9]*\), .*/\2/p')
cmp_ok "${d:-0}" -gt 100 "random pattern: the device counted misses ($d)"
cmp_ok "${c:-0}" -gt 100 "random pattern: some accesses classified as misses ($c)"
hits=$(grep '^  hits ' /tmp/b2.txt | awk '{ print $2 }')
diff=$(( ${c:-0} > ${d:-0} ? ${c:-0} - ${d:-0} : ${d:-0} - ${c:-0} ))
# The debug kernel (cxdvirt_debug=1: KASAN, lockdep) delays hits past the
# threshold by amounts that vary from run to run (15% was enough once, 53%
# was seen with the node-mode and in-flight work merged; under host load
# only 23 of 1024 accesses stayed below it): timing properties, checked on
# the stock kernels only.
PCT=5
if [ "${cxdvirt_debug:-0}" = 1 ]; then
	skip "random pattern: some hits ($hits)" "timing classification on the debug kernel"
	skip "classified and counted misses within $PCT% ($c vs $d)" "timing classification on the debug kernel"
else
	cmp_ok "${hits:-0}" -gt 100 "random pattern: some hits ($hits)"
	cmp_ok $((diff * 100)) -le $(( ${d:-0} * PCT )) "classified and counted misses within $PCT% ($c vs $d)"
fi

# 3. CSV, two threads, and a plain-memory target in the same run
$B -t "$N" -L dev -t anon -L anon -n 64 -p 1 -T 2 --evict-pages 256 --csv > /tmp/b3.csv 2> /tmp/b3.err
ok $? "--csv with two targets and two threads exits 0"
is "$(wc -l < /tmp/b3.csv | tr -d ' ')" 7 "CSV: header + 3 classes x 2 targets"
is "$(awk -F, '{ print NF }' /tmp/b3.csv | sort -u | tr '\n' ' ')" "21 " "CSV: 21 fields on every line"
m=$(awk -F, '$1 == "dev" && $8 == "misses" { print $19 "=" $20 }' /tmp/b3.csv)
is "${m%=*}" "${m#*=}" "CSV, 2 threads: classified == device misses (${m})"
is "${m#*=}" 128 "2 threads x 64 pages missed"

# 4. cold first touch on a fresh range: every access a miss
stats_reset $D
$B -d "$N" -n 64 --offset 2048 -p 1 --cold --json > /tmp/b4.json
ok $? "--cold exits 0"
is "$(json_num /tmp/b4.json device_misses)" 64 "--cold: 64 first touches counted as misses"

# 5. usage errors
$B -d "$N" --pattern nope > /dev/null 2>&1
is $? 2 "bad --pattern is a usage error"
$B -t node:999 -n 4 > /dev/null 2>&1
is $? 1 "a node without memory is an error"

dev_rm $D
ok $? "remove $D"
trap - EXIT
done_testing
