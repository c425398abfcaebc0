#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fidelity.sh SIM OUT DOC: the CMM-H fidelity table of DOC
# (docs/performance.md), from one run of the full-scale grids
# tools/sim/cmmh/steady.ini and warming.ini through `SIM sweep` into OUT.
# OUT empty: a new folder of this run, mktemp -d under TMPDIR (or /tmp),
# so that two runs never share one; its path is printed on stderr. A given
# OUT is emptied first.
# Then the set-associative what-if of ways.ini (between the markers
# "<!-- cmmh-ways begin -->" and "<!-- cmmh-ways end -->").
# The table between the markers "<!-- cmmh-fidelity begin -->" and
# "<!-- cmmh-fidelity end -->" is replaced; nothing else in DOC changes.
#
# Published points: Samsung's HotStorage'25 characterisation of CMM-H as
# quoted in Cylon (FAST'26, section 2) and its figure data (Intel MLC).
# Fitted (the cmmh preset): bandwidth at working set / cache 0.33 and 2.67.
# Held back: 0.67, 1.33, the latency points, the 4-thread saturation.
#
# Cost: about 1.1 G simulated accesses (530 M of them steady and warming),
# 6 min 9 s on the shared 2-CPU host (one core), at most 2.1 GiB of memory
# (one job at a time: 1 GiB of per-page state for 1 TiB, 0.35 GiB of lines
# for 48 GiB, the trace).
set -euo pipefail

sim=$1
out=$2
doc=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/cxdvirt-fidelity.XXXXXX")
else
	rm -rf "$out"
	mkdir -p "$out"
fi
echo "fidelity: the sweeps in $out" >&2
for g in steady warming ways; do
	"$sim" sweep --out "$out/$g" "$here/tools/sim/cmmh/$g.ini" > /dev/null
	"$sim" sweep --merge "$out/$g" --no-plot > /dev/null
done

# The guest column (written by `make sweep`, tools/bench/sweep-report.pl)
# is kept: each row's last cell, by the row's first cell, and the header.
guest=$out/guest.cells
awk -F'|' '
/<!-- cmmh-fidelity begin -->/ { t = 1; next }
/<!-- cmmh-fidelity end -->/ { t = 0 }
t && /^\| / && NF >= 9 { print $2 "|" $8 }' "$doc" > "$guest"

table=$out/table.md
awk -F, '
# One CSV per file: remember each column of each job by its name.
FNR == 1 { for (i = 1; i <= NF; i++) col[i] = $i; next }
{
	for (i = 1; i <= NF; i++)
		if (col[i] == "name")
			name = $i
	for (i = 1; i <= NF; i++)
		v[name, col[i]] = $i
}
function err(sim, pub) { return sprintf("%+.0f%%", 100 * (sim - pub) / pub) }
function within(sim, pub) {
	d = (sim - pub) / pub
	return (d < 0 ? -d : d) <= 0.25 ? "yes" : "**no**"
}
function bw(n) { return v[n, "bandwidth_mbps"] / 1000 }
function lat(n, c) { return v[n, c] / 1000 }
END {
	print "| point (source) | role | published | simulated | error | within 25% | guest |"
	print "|---|---|---|---|---|---|---|"
	split("033 067 133 267", r, " ")
	split("0.33 0.67 1.33 2.67", rl, " ")
	split("22 2.6 1.1 0.84", pb, " ")
	split("fitted,held back,held back,fitted", role, ",")
	for (k = 1; k <= 4; k++) {
		s = bw("bw" r[k])
		printf("| bandwidth, working set / cache %s, 8 threads (Cylon fig. data, MLC) | %s | %s GB/s | %.2f GB/s | %s | %s | not yet |\n",
		       rl[k], role[k], pb[k], s, err(s, pb[k]),
		       role[k] == "fitted" ? "(fit)" : within(s, pb[k]))
	}
	split("4 20", lg, " ")
	for (k = 1; k <= 2; k++) {
		s = lat("lat" lg[k], "access_lat_mean_ns")
		printf("| latency, %s GB working set, 1 thread (HotStorage'\''25) | held back | < 1 us | %.2f us | - | %s | not yet |\n",
		       lg[k], s, s < 1 ? "yes" : "**no**")
	}
	f = lat("lat40", "access_lat_first_ns")
	l = lat("lat40", "access_lat_last_ns")
	printf("| latency, 40 GB, cold start: first vs last tenth of 3 passes (HotStorage'\''25) | held back | starts high, falls as the cache warms | %.1f us -> %.2f us | - | %s | not yet |\n",
	       f, l, f > 10 && f > 2 * l ? "yes" : "**no**")
	s = lat("lat60", "access_lat_mean_ns")
	printf("| latency, 60 GB working set, 1 thread (HotStorage'\''25) | held back | tens of us | %.1f us | - | %s | not yet |\n",
	       s, s >= 10 && s < 100 ? "yes" : "**no**")
	b8 = bw("bw033")
	sat = 8
	split("1 2 4", tn, " ")
	for (k = 3; k >= 1; k--)
		if (bw("bw033_t" tn[k]) >= 0.9 * b8)
			sat = tn[k]
	printf("| threads at which bandwidth saturates (>= 90%% of 8 threads), 0.33 (HotStorage'\''25) | held back | 4 | %d (1: %.1f, 2: %.1f, 4: %.1f, 8: %.1f GB/s) | - | %s | not yet |\n",
	       sat, bw("bw033_t1"), bw("bw033_t2"), bw("bw033_t4"), b8,
	       sat == 4 ? "yes" : "**no**")
	q = bw("bw067") / b8
	printf("| bandwidth falls before the working set reaches the cache: 0.67 vs 0.33 (Cylon) | held back | 0.12 x | %.2f x | - | %s | not yet |\n",
	       q, q < 0.5 ? "yes" : "**no**")
}' "$out/steady/results.csv" "$out/warming/results.csv" |
awk -F'|' -v OFS='|' -v g="$guest" '
BEGIN { while ((getline l < g) > 0) { i = index(l, "|"); cell[substr(l, 1, i - 1)] = substr(l, i + 1) } }
NF >= 9 && ($2 in cell) { $8 = cell[$2] }
{ print }' > "$table"

# The what-if of ways.ini: bandwidth of each point and its ratio to the
# 0.33 point of the same organisation, against the published ones.
ways=$out/ways.md
awk -F, '
FNR == 1 { for (i = 1; i <= NF; i++) col[i] = $i; next }
{
	for (i = 1; i <= NF; i++)
		v[col[i]] = $i
	bw[v["trace"], v["ways"]] = v["bandwidth_mbps"] / 1000
	mr[v["trace"], v["ways"]] = v["misses"] / v["accesses"]
	if (!(v["ways"] in seen)) { seen[v["ways"]] = 1; w[++nw] = v["ways"] }
}
END {
	print "| cache (what-if, not a fit) | 0.33: GB/s | 0.67: GB/s (x 0.33) | 1.33: GB/s (x 0.33) | misses 0.33 / 0.67 / 1.33 |"
	print "|---|---|---|---|---|"
	print "| published (Cylon fig. data, MLC) | 22 | 2.6 (0.12 x) | 1.1 (0.05 x) | - |"
	for (k = 1; k <= nw; k++) {
		a = bw["bw033", w[k]]
		printf("| %s-way, working set scattered over 1 TiB | %.2f | %.2f (%.2f x) | %.2f (%.2f x) | %.2f / %.2f / %.2f |\n",
		       w[k], a, bw["bw067", w[k]], bw["bw067", w[k]] / a,
		       bw["bw133", w[k]], bw["bw133", w[k]] / a,
		       mr["bw033", w[k]], mr["bw067", w[k]], mr["bw133", w[k]])
	}
}' "$out/ways/results.csv" > "$ways"

tmp=$doc.tmp.$$
awk -v t="$ways" '
/<!-- cmmh-ways begin -->/ { print; while ((getline l < t) > 0) print l; skip = 1; next }
/<!-- cmmh-ways end -->/ { skip = 0 }
!skip' "$doc" > "$tmp"
grep -q '<!-- cmmh-ways end -->' "$tmp" || { rm -f "$tmp"; echo "fidelity.sh: no cmmh-ways markers in $doc" >&2; exit 1; }
mv "$tmp" "$doc"

tmp=$doc.tmp.$$
awk -v t="$table" '
/<!-- cmmh-fidelity begin -->/ { print; while ((getline l < t) > 0) print l; skip = 1; next }
/<!-- cmmh-fidelity end -->/ { skip = 0 }
!skip' "$doc" > "$tmp"
grep -q '<!-- cmmh-fidelity end -->' "$tmp" || { rm -f "$tmp"; echo "fidelity.sh: no markers in $doc" >&2; exit 1; }
mv "$tmp" "$doc"
cat "$table" "$ways"
