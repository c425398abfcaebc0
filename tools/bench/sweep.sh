#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sweep.sh [--smoke] [--list] [--grid BLOCK]... [--out DIR] [--doc FILE] [--kver KVER] [--timeout SECS]
#
# `make sweep` (docs/tools.md, "Guest sweep"): an MLC-style sweep of
# cxdvirt-bench in the test guest, loaded latency and bandwidth over
# working set / cache, threads, access pattern, read/write mix, policy and
# prefetcher, on a devdax device and on a node-mode device.
#
#  1. The grid (GRID below: blocks of KEY=V1,V2,... whose products are
#     joined) is expanded into jobs, named as cxdvirt-sim sweep names them:
#     the trace (here the access pattern), then __KEY=VALUE for every key
#     with more than one value in the grid, keys sorted.
#  2. One guest boot under QEMU -icount shift=0,sleep=off runs every job on
#     a fresh device (tools/bench/sweep-guest.sh): cxdvirt-bench with 4 KiB
#     per access (one access is one line, as in cxdvirt-sim's bandwidth),
#     one warm-up pass and two measured ones. A progress line shows the job
#     the guest is in.
#  3. tools/bench/sweep-report.pl turns each report into the JSON that
#     cxdvirt-sim writes for a sweep job (DIR/jobs.json, DIR/results/), so
#     `cxdvirt-sim sweep --merge DIR` writes DIR/results.csv with the same
#     columns as a simulated sweep; then DIR/results.json (every report),
#     the plots (gnuplot) and, with a FILE, the guest column of its CMM-H
#     fidelity table.
#
# The guest shows miss-side shapes only: a hit is a native load there, and
# under icount the two vCPUs take turns, so hit bandwidth does not grow with
# threads. The plots and the document say so.
#
# Fails when the guest fails, a job fails, or (every run) a property of the
# result does not hold: the miss ratio rises and the bandwidth falls with the
# working set (random pattern, devdax and node), and the CSV header is
# cxdvirt-sim's. --smoke: eight jobs (random, two threads, four working
# sets, devdax and node), FILE untouched unless --doc is given
# (make check: about 65 s). --list: print the jobs (NAME, then the
# guest's line) and exit. --grid BLOCK (repeatable): run these blocks
# instead of GRID, e.g. --grid "target=node pattern=random ratio=0.33,2.1
# threads=2 write-ratio=0 policy=lru prefetch=none" (every key given).
#
# The values: target dax or node; pattern random, seq, chase or stride;
# ratio a decimal number above 0, at most 32; threads 1 .. 256 (cxdvirt-bench
# -T); write-ratio 0 .. 1; policy and prefetch the device's names
# (cxdvirt-sim --help). Every block of the grid is checked before anything
# is removed, built or booted: a bad key or value, or an option without
# its value, is a usage error (exit 2, nothing done).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LANE_DIR=$HERE/../../tests/vm
. "$LANE_DIR/lib.sh"

# --- what runs ----------------------------------------------------------------
# The device: the cmmh preset (docs/model.md) with a 4 MiB cache (1024 lines)
# in the 4 GiB guest, a scaled-down CMM-H.
PRESET=cmmh
CACHE=$((4 << 20))
# Working set / cache: the published CMM-H points (0.33, 0.67, 1.33, 2.67),
# the CDF ratios (0.33, 1.06, 2.10) and the ends.
RATIOS=0.1,0.33,0.67,1.06,1.33,2.1,2.67,4
# Blocks of the grid; a job is one combination of one block's values. Keys:
# target (dax, node), pattern (random, seq, chase, stride: seq with 2
# pages between slots, cxdvirt-bench --pattern stride), ratio, threads,
# write-ratio, policy, prefetch.
BASE="threads=8 write-ratio=0 policy=lru prefetch=none"
GRID=(
	# the bandwidth curves: every pattern on both targets
	"target=dax,node pattern=random,seq,chase,stride ratio=$RATIOS $BASE"
	# saturation: threads at 0.33 and 2.1
	"target=dax pattern=random ratio=0.33,2.1 threads=1,2,4 write-ratio=0 policy=lru prefetch=none"
	# idle latency, one thread of dependent accesses (the HotStorage'25
	# 4, 20 and 60 GB points of a 48 GB cache: 0.083, 0.42, 1.25)
	"target=dax pattern=chase ratio=0.083,0.42,1.25,$RATIOS threads=1 write-ratio=0 policy=lru prefetch=none"
	# read/write mix: write-backs on the miss side
	"target=dax,node pattern=random ratio=0.33,1.06,2.1 threads=8 write-ratio=0.3,1 policy=lru prefetch=none"
	# policy and prefetcher
	"target=dax pattern=random,seq ratio=0.33,1.06,2.1 threads=8 write-ratio=0 policy=fifo,clock,s3fifo prefetch=none"
	"target=dax pattern=random,seq ratio=0.33,1.06,2.1 threads=8 write-ratio=0 policy=lru prefetch=next,stride"
)
SMOKE_GRID=(
	"target=dax,node pattern=random ratio=0.33,1.06,2.1,4 threads=2 write-ratio=0 policy=lru prefetch=none"
)
# Latency CDFs at these ratios (random, 8 threads, devdax and node).
CDF_RATIOS="0.33 1.06 2.1"
# ------------------------------------------------------------------------------

# A usage error: the message, where help is, exit 2 (nothing done).
usage_die() {
	echo "sweep.sh: $*" >&2
	echo "Try 'tools/bench/sweep.sh --help'." >&2
	exit 2
}

smoke=0
list=0
grid=()
out=$LANE_DIR/out/sweep
doc=
kver=
tmo=2400
while [ $# -gt 0 ]; do
	case $1 in
	--grid|--out|--doc|--kver|--timeout)
		[ $# -ge 2 ] || usage_die "$1 needs a value"
		;;
	esac
	case $1 in
	--smoke) smoke=1; shift ;;
	--list) list=1; shift ;;
	--grid) grid+=("$2"); shift 2 ;;
	--out) out=$2; shift 2 ;;
	--doc) doc=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	-h|--help) awk 'NR > 2 && !/^#/ { exit } NR > 2 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
	*) usage_die "unknown argument $1" ;;
	esac
done
case $tmo in
''|*[!0-9]*) usage_die "--timeout $tmo: not a number of seconds" ;;
esac
if [ $smoke = 1 ]; then
	GRID=("${SMOKE_GRID[@]}")
	CDF_RATIOS="0.33 1.06 2.1"
else
	doc=${doc:-$REPO_ROOT/docs/performance.md}
fi
[ ${#grid[@]} -eq 0 ] || GRID=("${grid[@]}")
SIM=$REPO_ROOT/tools/cxdvirt-sim
BENCH=$REPO_ROOT/tools/cxdvirt-bench
for t in "$SIM" "$BENCH"; do
	[ -x "$t" ] || lane_die "$t not built (make tools)"
done

# --- the grid's values, before anything is removed, built or booted ---------
# The device's policies and prefetchers: the model's names, as cxdvirt-sim
# lists them (the same table as the module's configfs).
names_of() {	# names_of OPTION: the names --help lists for it, one line
	"$SIM" --help | sed -n "s/^  --$1 NAME  *\([^ ]*\) .*/\1/p" | tr '|' ' '
}
POLICIES=$(names_of policy)
PREFETCHERS=$(names_of prefetch)
if [ -z "$POLICIES" ] || [ -z "$PREFETCHERS" ]; then
	lane_die "cannot read the policy and prefetcher names from $SIM --help"
fi
# is_dec V LO HI: V a plain decimal number (digits, one optional point),
# LO < V <= HI (LO itself when LO is "=LO").
is_dec() {
	case $1 in
	''|.|*.*.*|*[!0-9.]*) return 1 ;;
	esac
	awk -v v="$1" -v lo="${2#=}" -v incl="${2%%[!=]*}" -v hi="$3" \
		'BEGIN { v += 0; exit !((incl == "=" ? v >= lo : v > lo) && v <= hi) }'
}
# check_value KEY VALUE BLOCK: one value of one key; a usage error if bad.
check_value() {
	local ok=1
	case $1 in
	target) case $2 in dax|node) ;; *) ok=0 ;; esac ;;
	pattern) case $2 in random|seq|chase|stride) ;; *) ok=0 ;; esac ;;
	ratio) is_dec "$2" 0 32 || ok=0 ;;
	threads)
		case $2 in ''|0*|*[!0-9]*) ok=0 ;; *) [ ${#2} -le 3 ] && [ "$2" -le 256 ] || ok=0 ;; esac ;;
	write-ratio) is_dec "$2" =0 1 || ok=0 ;;
	policy) case " $POLICIES " in *" $2 "*) ;; *) ok=0 ;; esac ;;
	prefetch) case " $PREFETCHERS " in *" $2 "*) ;; *) ok=0 ;; esac ;;
	esac
	[ $ok = 1 ] && return 0
	case $1 in
	target) usage_die "grid: target=$2: not dax or node (in \"$3\")" ;;
	pattern) usage_die "grid: pattern=$2: not random, seq, chase or stride (in \"$3\")" ;;
	ratio) usage_die "grid: ratio=$2: not a decimal number above 0, at most 32 (working set / cache; in \"$3\")" ;;
	threads) usage_die "grid: threads=$2: not a whole number 1 .. 256 (in \"$3\")" ;;
	write-ratio) usage_die "grid: write-ratio=$2: not a decimal number 0 .. 1 (in \"$3\")" ;;
	policy) usage_die "grid: policy=$2: not one of $POLICIES (in \"$3\")" ;;
	prefetch) usage_die "grid: prefetch=$2: not one of $PREFETCHERS (in \"$3\")" ;;
	esac
}
# Every block: KEY=V1,V2,... words, each key once, every key, no empty value.
KEYS="target pattern ratio threads write-ratio policy prefetch"
for b in "${GRID[@]}"; do
	[ -n "${b// /}" ] || usage_die "grid: an empty block"
	seen=" "
	for w in $b; do
		k=${w%%=*}
		case $w in
		*=*) ;;
		*) usage_die "grid: '$w' is not KEY=V1,V2,... (in \"$b\")" ;;
		esac
		case " $KEYS " in
		*" $k "*) ;;
		*) usage_die "grid: unknown key '$k' (the keys: $KEYS; in \"$b\")" ;;
		esac
		case $seen in *" $k "*) usage_die "grid: $k given twice (in \"$b\")" ;; esac
		seen="$seen$k "
		v=${w#*=},
		case $v in ,*|*,,*) usage_die "grid: $k: an empty value (in \"$b\")" ;; esac
		while [ -n "$v" ]; do
			check_value "$k" "${v%%,*}" "$b"
			v=${v#*,}
		done
	done
	for k in $KEYS; do
		case $seen in *" $k "*) ;; *) usage_die "grid: $k missing (every key in every block; in \"$b\")" ;; esac
	done
done
[ -n "$kver" ] || kver=$(lane_default_kver)
if [ $list = 1 ]; then
	# --list prints only: a folder of its own, never the given one's results
	out=$(mktemp -d "${TMPDIR:-/tmp}/cxdvirt-sweep-list.XXXXXX")
	trap 'rm -rf "$out"' EXIT
else
	rm -rf "$out"
fi
mkdir -p "$out"
t0=$SECONDS

# --- 1: the jobs ----------------------------------------------------------------
# sweep.jobs: one line per job, "NAME PATTERN KEY=VALUE..." (keys sorted);
# sweep.runs: the guest's line (sweep-guest.sh).
printf '%s\n' "${GRID[@]}" | awk -v cache="$CACHE" -v preset="$PRESET" \
	-v jobs="$out/sweep.jobs" -v runs="$out/sweep.runs" -v keysf="$out/sweep.keys" '
function expand(b, k, pre,    i, n, v, kv) {
	if (k > nk[b]) { combo[++nc] = pre; return }
	n = split(vals[b, k], v, ",")
	for (i = 1; i <= n; i++)
		expand(b, k + 1, pre (pre == "" ? "" : " ") key[b, k] "=" v[i])
}
{
	b = NR
	nk[b] = NF
	for (i = 1; i <= NF; i++) {
		eq = index($i, "=")
		key[b, i] = substr($i, 1, eq - 1)
		vals[b, i] = substr($i, eq + 1)
		m = split(vals[b, i], v, ",")
		for (j = 1; j <= m; j++)
			if (!((key[b, i], v[j]) in seen)) {
				seen[key[b, i], v[j]] = 1
				nv[key[b, i]]++
			}
		allkey[key[b, i]] = 1
	}
	expand(b, 1, "")
}
END {
	nkeys = 0
	for (k in allkey)
		if (k != "pattern")
			sk[++nkeys] = k
	for (i = 2; i <= nkeys; i++)	# insertion sort: the keys in byte order
		for (j = i; j > 1 && sk[j - 1] > sk[j]; j--) { t = sk[j]; sk[j] = sk[j - 1]; sk[j - 1] = t }
	for (i = 1; i <= nkeys; i++)
		printf("%s\n", sk[i]) > keysf
	for (c = 1; c <= nc; c++) {
		delete val
		n = split(combo[c], kv, " ")
		for (i = 1; i <= n; i++) {
			eq = index(kv[i], "=")
			val[substr(kv[i], 1, eq - 1)] = substr(kv[i], eq + 1)
		}
		name = val["pattern"]
		line = ""
		for (i = 1; i <= nkeys; i++) {
			k = sk[i]
			if (nv[k] > 1)
				name = name "__" k "=" val[k]
			line = line " " k "=" val[k]
		}
		if (name in done)
			continue
		done[name] = 1
		print name, val["pattern"] line > jobs
		# pages per thread: ratio x cache lines / threads, at least 1
		p = int(val["ratio"] * cache / 4096 / val["threads"] + 0.5)
		if (p < 1)
			p = 1
		print name, val["target"], preset, cache, val["policy"], val["prefetch"],
			p, val["threads"], val["pattern"], val["write-ratio"] > runs
	}
}'
njobs=$(wc -l < "$out/sweep.runs")
if [ $list = 1 ]; then
	cat "$out/sweep.runs"
	exit 0
fi
lane_log "sweep: $njobs jobs"

# --- 2: the guest -------------------------------------------------------------
kdir_img=$("$LANE_DIR/fetch-kernel.sh" "$kver")
"$LANE_DIR/build-initramfs.sh" --kernel-dir "$kdir_img" --kver "$kver" \
	--out "$out/initramfs.cpio.gz" --tests '' \
	--file "$HERE/sweep-guest.sh:/demo.sh" --file "$out/sweep.runs:/sweep.runs"
console=$out/console.log
taplog=$out/guest-tap.log
icount=shift=0,sleep=off
lane_icount "$icount"
lane_log "sweep: booting the guest (console: $console)"
rc=0
lane_boot "$kdir_img/vmlinuz" "$out/initramfs.cpio.gz" "$console" "$taplog" "$tmo" \
	cxdvirt_mode=demo maxcpus=1 &
qpid=$!
# The progress line: the job the guest is in, from its BEGIN lines.
if [ -t 2 ]; then pend='\033[K\r'; else pend='\n'; fi
last=
while kill -0 $qpid 2>/dev/null; do
	cur=$(tr -d '\r' < "$taplog" 2>/dev/null | grep '^CXDVIRT-SWEEP-BEGIN' | tail -n 1 || true)
	if [ -n "$cur" ] && [ "$cur" != "$last" ]; then
		set -- $cur
		printf "lane: sweep: job %s %s (%d s)$pend" "$3" "$2" $((SECONDS - t0)) >&2
		last=$cur
	fi
	sleep 2
done
[ "$pend" = '\n' ] || echo >&2
wait $qpid || rc=$?
failed=0
[ $rc = 0 ] || { lane_log "sweep: qemu status $rc (124: timeout)"; failed=1; }
tr -d '\r' < "$taplog" | grep -qx CXDVIRT-GUEST-DONE || { lane_log "sweep: the guest did not finish"; failed=1; }
bad=$(lane_bad_lines "$console")
[ -z "$bad" ] || { lane_log "sweep: kernel problems on the console:"; echo "$bad" | head -n 20 >&2; failed=1; }
lane_log "sweep: the guest took $((SECONDS - t0)) s"

# --- 3: results, plots, document ----------------------------------------------
tr -d '\r' < "$taplog" > "$out/guest.log"
OUT=$out DOC=$doc SIM=$SIM BENCH=$BENCH CDF_RATIOS=$CDF_RATIOS ICOUNT=$icount \
	KVER=$kver SMOKE=$smoke PRESET=$PRESET CACHE=$CACHE \
	perl "$HERE/sweep-report.pl" || failed=1
lane_log "sweep: $((SECONDS - t0)) s in all"
exit $failed
