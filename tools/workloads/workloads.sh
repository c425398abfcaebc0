#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# workloads.sh [--smoke] [--out DIR] [--doc FILE] [--kver KVER] [--timeout SECS]
#
# `make workloads` (docs/workloads.md): real programs on cxdvirt devices in
# the test guest, each traced here and replayed in cxdvirt-sim.
#
#  1. Each own workload (cxdvirt-wl chase, bfs, pagerank) runs once on this
#     host under valgrind lackey (trace.sh): a node trace (every data
#     access) and a devdax trace (the arena's accesses). Same static binary,
#     same arguments, same seed as in the guest.
#  2. For each cache ratio (working set / cache: RATIOS) the traces are
#     replayed with cxdvirt-sim --faults --policy fifo and that cache.
#  3. One guest boot under QEMU -icount shift=0,sleep=off runs every
#     workload on plain DRAM, then on a fresh node-mode device (numactl
#     --membind) and a fresh devdax device per ratio (FIFO, scan off):
#     the own workloads, redis (Zipf GET/SET from cxdvirt-wl zipf; uniform
#     from redis-benchmark), memcached (Zipf, cxdvirt-wl zipf --memcached),
#     sysbench memory and fio (devdax). A progress
#     line shows the run in progress.
#  4. DIR/results.json and results.csv (one row per run), gnuplot plots and
#     the generated "Workloads" section of FILE (default docs/performance.md,
#     between the workloads markers), with the guest-vs-simulator table.
#
# Fails when the guest fails, a run fails, or an own workload's guest hit
# ratio differs from the simulator's by more than 5 percentage points.
# --smoke: chase and bfs at ratio 2.1 only, no servers, and FILE untouched
# unless --doc is given (CI: about 2 minutes).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LANE_DIR=$HERE/../../tests/vm
. "$LANE_DIR/lib.sh"

# --- what runs ----------------------------------------------------------------
# Working set / cache size. The redis ratios follow the key range (keys x
# 1 KiB values); the others the bytes the program uses.
RATIOS="0.33 1.06 2.1"
# name|args (cxdvirt-wl)
OWN=(
	"chase|chase --pages 256 --steps 50000 --seed 1"
	"bfs|bfs --scale 12 --edge-factor 8 --seed 1"
	"pagerank|pagerank --scale 12 --edge-factor 8 --iters 5 --seed 1"
)
REDIS_KEYS=2048		# x 1 KiB values: 2 MiB of values (redis and memcached)
REDIS_OPS=20000
# sysbench memory rnd: one random word access per 4 bytes of the total, so
# 4 MiB is 1 M accesses over the 1 MiB block (at ratio 2.1, half of them
# misses: about 30 s of the guest).
SYSBENCH_BLOCK=$((1 << 20))
SYSBENCH_TOTAL=$((4 << 20))
FIO_SIZE=$((2 << 20))
FIO_IO=$((64 << 20))
# ------------------------------------------------------------------------------

smoke=0
out=$LANE_DIR/out/workloads
doc=
kver=
tmo=1500
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) smoke=1; shift ;;
	--out) out=$2; shift 2 ;;
	--doc) doc=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	-h|--help) sed -n '3,29p' "$0"; exit 0 ;;
	*) lane_die "unknown argument $1 (see --help)" ;;
	esac
done
if [ $smoke = 1 ]; then
	RATIOS="2.1"
	OWN=("${OWN[@]:0:2}")
else
	doc=${doc:-$REPO_ROOT/docs/performance.md}
fi
[ -n "$kver" ] || kver=$(lane_default_kver)
WL=$HERE/cxdvirt-wl
SIM=$REPO_ROOT/tools/cxdvirt-sim
for t in "$WL" "$SIM" "$REPO_ROOT/tools/cxdvirt-dev"; do
	[ -x "$t" ] || lane_die "$t not built (make tools)"
done
rm -rf "$out"
mkdir -p "$out/trace" "$out/sim"

cache_for() {	# cache_for BYTES RATIO: BYTES / RATIO in whole 4 KiB pages
	awk -v b="$1" -v r="$2" 'BEGIN { p = int(b / r / 4096 + 0.5); if (p < 16) p = 16; print p * 4096 }'
}

# --- 1, 2: traces and replays -------------------------------------------------
runs=$out/wl.runs
: > "$runs"
t0=$SECONDS
for w in "${OWN[@]}"; do
	name=${w%%|*} args=${w#*|}
	lane_log "workloads: tracing $name under valgrind lackey"
	"$HERE/trace.sh" --dax "$out/trace/$name" -- "$WL" $args
	used=$(sed -n 's/.*"used_bytes": \([0-9]*\).*/\1/p' "$out/trace/$name.json")
	echo "$name-dram wl dram 0 $args" >> "$runs"
	for r in $RATIOS; do
		c=$(cache_for "$used" "$r")
		for m in node dax; do
			echo "$name-$m-$r wl $m $c $args" >> "$runs"
			"$SIM" --faults --policy fifo --cache-size "$c" --json \
				"$out/trace/$name.$m.bin" > "$out/sim/$name-$m-$r.json"
			# The same with one cache line less: how sensitive the
			# count is to one more page of the process (node mode).
			"$SIM" --faults --policy fifo --cache-size $((c - 4096)) --json \
				"$out/trace/$name.$m.bin" > "$out/sim/$name-$m-$r.less1.json"
		done
	done
	rm -f "$out/trace/$name.node.bin" "$out/trace/$name.dax.bin"
done
lane_log "workloads: traces and replays took $((SECONDS - t0)) s"
if [ $smoke = 0 ]; then
	for k in redis-zipf redis-bench memcached; do
		echo "$k-dram $k dram 0 $REDIS_KEYS $REDIS_OPS" >> "$runs"
		for r in $RATIOS; do
			echo "$k-node-$r $k node $(cache_for $((REDIS_KEYS * 1024)) "$r") $REDIS_KEYS $REDIS_OPS" >> "$runs"
		done
	done
	echo "sysbench-dram sysbench dram 0 $SYSBENCH_BLOCK $SYSBENCH_TOTAL" >> "$runs"
	echo "fio-dram fio dram 0 $FIO_SIZE $FIO_IO" >> "$runs"
	for r in $RATIOS; do
		echo "sysbench-node-$r sysbench node $(cache_for $SYSBENCH_BLOCK "$r") $SYSBENCH_BLOCK $SYSBENCH_TOTAL" >> "$runs"
		echo "fio-dax-$r fio dax $(cache_for $FIO_SIZE "$r") $FIO_SIZE $FIO_IO" >> "$runs"
	done
fi

# --- 3: the guest -------------------------------------------------------------
extras=(--extra "$WL:/bin/cxdvirt-wl")
for p in sysbench fio memcached; do
	b=$(command -v $p || true)
	[ -n "$b" ] && extras+=(--extra "$b:/bin/$p")
done
kdir_img=$("$LANE_DIR/fetch-kernel.sh" "$kver")
"$LANE_DIR/build-initramfs.sh" --kernel-dir "$kdir_img" --kver "$kver" \
	--out "$out/initramfs.cpio.gz" --tests '' "${extras[@]}" \
	--file "$HERE/workloads-guest.sh:/demo.sh" --file "$runs:/wl.runs"
console=$out/console.log
taplog=$out/guest-tap.log
icount=shift=0,sleep=off
export LANE_QEMU_ACCEL=tcg,thread=single LANE_QEMU_EXTRA="-icount $icount"
lane_log "workloads: booting the guest, $(wc -l < "$runs") runs (console: $console)"
rc=0
lane_boot "$kdir_img/vmlinuz" "$out/initramfs.cpio.gz" "$console" "$taplog" "$tmo" \
	cxdvirt_mode=demo maxcpus=1 &
qpid=$!
# The progress line: the run the guest is in, from its BEGIN lines.
if [ -t 2 ]; then pend='\r'; else pend='\n'; fi
last=
while kill -0 $qpid 2>/dev/null; do
	cur=$(tr -d '\r' < "$taplog" 2>/dev/null | grep '^CXDVIRT-WL-BEGIN' | tail -n 1 || true)
	if [ -n "$cur" ] && [ "$cur" != "$last" ]; then
		set -- $cur
		printf "lane: workloads: run %s %s (%d s)$pend" "$3" "$2" $((SECONDS - t0)) >&2
		last=$cur
	fi
	sleep 2
done
[ "$pend" = '\r' ] && echo >&2
wait $qpid || rc=$?
failed=0
[ $rc = 0 ] || { lane_log "workloads: qemu status $rc (124: timeout)"; failed=1; }
tr -d '\r' < "$taplog" | grep -qx CXDVIRT-GUEST-DONE || { lane_log "workloads: the guest did not finish"; failed=1; }
bad=$(lane_bad_lines "$console")
[ -z "$bad" ] || { lane_log "workloads: kernel problems on the console:"; echo "$bad" | head -n 20 >&2; failed=1; }

# --- 4: results, plots, document ----------------------------------------------
tr -d '\r' < "$taplog" > "$out/guest.log"
OUT=$out DOC=$doc RATIOS=$RATIOS ICOUNT=$icount KVER=$kver SMOKE=$smoke \
	perl "$HERE/report.pl" || failed=1
exit $failed
