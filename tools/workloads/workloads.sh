#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# workloads.sh [--smoke] [--trace-only] [--out DIR] [--doc FILE] [--kver KVER] [--timeout SECS]
#
# `make workloads` (docs/workloads.md): real programs on cxdvirt devices in
# the test guest, each traced here and replayed in cxdvirt-sim.
#
#  1. Each own workload (cxdvirt-wl chase, bfs, pagerank) runs once on this
#     host under valgrind lackey (trace.sh): a node trace (every data
#     access) and a devdax trace (the arena's accesses). Same static binary,
#     same arguments, same seed as in the guest.
#     The servers run under lackey too, driven as the guest drives them:
#     memcached and redis-server (one request at a time, cxdvirt-wl zipf
#     --memcached/--redis; piped into redis-cli --pipe; redis-benchmark;
#     the load before the measured window), sysbench memory (whole) and
#     fio (mmap engine; the accesses to its mapping, as the devdax device
#     sees them).
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
# --smoke: chase and bfs at ratio 2.1 only, of the servers a small traced
# memcached, and FILE untouched unless --doc is given (CI: about 2 minutes).
# --trace-only: steps 1 and 2 only (no guest, no report): prints each
# replay's accesses, misses and hit ratio, and leaves DIR/sim/*.json.
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
# redis with cxdvirt-wl zipf --redis (one request at a time), traced: its
# requests cost about 5500 data accesses each under lackey, so fewer of them
# (with the start and the load, about 37 M accesses, 2 minutes of lackey).
REDIS_SYNC_OPS=2000
# redis-benchmark -c 1 sends one request at a time too, the same 5500 data
# accesses each under lackey; -n is per test (get and set), so 2 x 2000
# requests (its 20000 would take an hour of lackey).
REDIS_BENCH_OPS=2000
# sysbench memory rnd: one random word access per 4 bytes of the total, so
# 4 MiB is 1 M accesses over the 1 MiB block (at ratio 2.1, half of them
# misses: about 30 s of the guest).
SYSBENCH_BLOCK=$((1 << 20))
SYSBENCH_TOTAL=$((4 << 20))
FIO_SIZE=$((2 << 20))
FIO_IO=$((64 << 20))
# ------------------------------------------------------------------------------

smoke=0
trace_only=0
out=$LANE_DIR/out/workloads
doc=
kver=
tmo=1500
while [ $# -gt 0 ]; do
	case $1 in
	--smoke) smoke=1; shift ;;
	--trace-only) trace_only=1; shift ;;
	--out) out=$2; shift 2 ;;
	--doc) doc=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	-h|--help) sed -n '3,36p' "$0"; exit 0 ;;
	*) lane_die "unknown argument $1 (see --help)" ;;
	esac
done
if [ $smoke = 1 ]; then
	RATIOS="2.1"
	OWN=("${OWN[@]:0:2}")
	# One traced server, small: the code path of the server rows.
	REDIS_KEYS=256 REDIS_OPS=500
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

# fio_opts SIZE IO: fio's options of the fio runs, but the engine and file
# (workloads-guest.sh has the same): 4 KiB random reads, seeded, threads.
fio_opts() {
	echo "--name=wl --rw=randread --bs=4k --size=$1 --io_size=$2 --randrepeat=1 --norandommap --thread"
}

# settle FILE: wait until FILE stops growing (0.5 s unchanged, 10 s at most).
settle() {
	local a b
	b=$(stat -c %s "$1")
	for _ in $(seq 20); do
		sleep 0.5
		a=$b
		b=$(stat -c %s "$1")
		[ "$a" != "$b" ] || return 0
	done
}

# count_accesses LACKEY-LOG LINES: the data accesses in the first LINES
# lines of the log, counted by cxdvirt-sim's own lackey reader (a modify
# is two, an access across a page boundary one per page).
count_accesses() {
	local part=$out/trace/part.lackey n
	head -n "$2" "$1" > "$part"
	n=$("$SIM" --format lackey --convert "$part.bin" "$part" 2>&1 >/dev/null |
		sed -n 's/.*: \([0-9]*\) accesses,.*/\1/p')
	rm -f "$part" "$part.bin"
	echo "${n:-0}"
}

# trace_server NAME SOCK LOAD RUN STOP -- SERVER [ARG...]: SERVER under
# valgrind lackey, serving on the unix socket SOCK; the shell commands LOAD
# (before the measured window: the guest resets the device's counters
# after it), RUN (its stdout is trace/NAME.json) and STOP (ends the
# server). Writes trace/NAME.node.bin (every data access of the server,
# from its first instruction to its exit, as trace.sh) and trace/NAME.warm
# (the accesses before the window: cxdvirt-sim --warmup). The window starts
# where the log stood once it stopped growing after LOAD; a background
# thread's accesses between the load and the reset in the guest are
# before it in both.
trace_server() {
	local name=$1 sock=$2 load=$3 run=$4 stop=$5 log vp mark
	shift 6
	log=$out/trace/$name.lackey
	rm -f "$sock"
	# valgrind keeps 12 descriptors of the soft limit for itself and
	# refuses a setrlimit() that moves the hard one (memcached -c sets
	# both): 1024 less 12, the -c of memcached here and in the guest.
	( ulimit -n 1024; exec valgrind --tool=lackey --trace-mem=yes \
		--log-file="$log" "$@" ) > "$out/trace/$name.server.log" 2>&1 &
	vp=$!
	# A server under lackey starts in 10-30 s on a quiet 2-core host and
	# took over a minute beside other work: wait while it lives (at most
	# 10 minutes); one that exited is reported at once.
	for _ in $(seq 3000); do
		[ -S "$sock" ] && break
		kill -0 "$vp" 2> /dev/null || break
		sleep 0.2
	done
	if [ ! -S "$sock" ]; then
		local why="no socket after 10 minutes"
		kill -0 "$vp" 2> /dev/null || why="it exited"
		kill "$vp" 2> /dev/null
		lane_die "$name: the server did not start ($why): $(head -n 3 "$out/trace/$name.server.log")"
	fi
	eval "$load" > "$out/trace/$name.load.out" || lane_die "$name: the load failed"
	settle "$log"
	mark=$(wc -l < "$log")
	eval "$run" > "$out/trace/$name.json" || lane_die "$name: the run failed"
	eval "$stop"
	wait "$vp" || true
	count_accesses "$log" "$mark" > "$out/trace/$name.warm"
	"$SIM" --format lackey --convert "$out/trace/$name.node.bin" "$log" 2> /dev/null
	rm -f "$log"
}

# redis_loaded SOCK NAME: after the load, as the guest does it
# (workloads-guest.sh, redis_run): reset the server's statistics and keep
# its used_memory (bytes) in trace/NAME.mem.
# shellcheck disable=SC2317 # called through trace_server's eval
redis_loaded() {
	redis-cli -s "$1" config resetstat > /dev/null
	redis-cli -s "$1" info memory | tr -d '\r' |
		sed -n 's/^used_memory:\([0-9]*\)$/\1/p' > "$out/trace/$2.mem"
}

# redis_batching SOCK NAME: after the requests, as the guest does it: the
# reads the server processed since redis_loaded and its peak memory, as
# "reads N peak BYTES" in trace/NAME.batch (report.pl: how the requests
# were batched in the traced run).
# shellcheck disable=SC2317 # called through trace_server's eval
redis_batching() {
	redis-cli -s "$1" info | tr -d '\r' | awk -F: '
		$1 == "total_reads_processed" { r = $2 }
		$1 == "used_memory_peak" { p = $2 }
		END { print "reads " r " peak " p }' > "$out/trace/$2.batch"
}

# replay NAME ID CACHE [WARMUP]: trace/NAME.node.bin through CACHE bytes of
# FIFO, with --faults, into sim/ID.json, and one line less.
replay() {
	local w=${4:-0}
	"$SIM" --faults --policy fifo --cache-size "$3" --warmup "$w" --json \
		"$out/trace/$1.node.bin" > "$out/sim/$2.json"
	"$SIM" --faults --policy fifo --cache-size $(($3 - 4096)) --warmup "$w" --json \
		"$out/trace/$1.node.bin" > "$out/sim/$2.less1.json"
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
# The servers, each as the guest runs it (workloads-guest.sh): memcached
# and redis (three clients) on a unix socket, loaded, then the requests;
# sysbench memory whole; fio's mmap engine.
sock=$out/trace/kv.sock
TRACED=
zipf="$WL zipf --keys $REDIS_KEYS --value-size 1024"
if command -v memcached > /dev/null; then
	lane_log "workloads: tracing memcached under valgrind lackey"
	# shellcheck disable=SC2016 # $vp: trace_server's, when it runs STOP
	trace_server memcached "$sock" "$zipf --ops 0 --load --memcached $sock" \
		"$zipf --ops $REDIS_OPS --memcached $sock" 'kill $vp' \
		-- memcached -u root -s "$sock" -m 64 -t 1 -c 1012
	TRACED=memcached
fi
if [ $smoke = 0 ]; then
	# redis three ways, each loaded and driven as in the guest: one
	# request at a time (redis-sync), piped (redis-zipf: the requests
	# made before the window, as there) and redis-benchmark.
	redis=(redis-server --port 0 --unixsocket "$sock" --save '' \
		--appendonly no --dir "$out/trace")
	rstop="redis-cli -s $sock shutdown nosave > /dev/null"
	lane_log "workloads: tracing redis-server (one request at a time) under valgrind lackey"
	trace_server redis-sync "$sock" \
		"$zipf --ops 0 --load --redis $sock && redis_loaded $sock redis-sync" \
		"$zipf --ops $REDIS_SYNC_OPS --redis $sock && redis_batching $sock redis-sync" \
		"$rstop" -- "${redis[@]}"
	lane_log "workloads: tracing redis-server (redis-cli --pipe) under valgrind lackey"
	trace_server redis-zipf "$sock" \
		"$zipf --ops 0 --load | redis-cli -s $sock --pipe && redis_loaded $sock redis-zipf &&
		 $zipf --ops $REDIS_OPS > $out/trace/zipf.resp" \
		"$WL exec sh -c 'redis-cli -s $sock --pipe < $out/trace/zipf.resp > $out/trace/redis-zipf.client' &&
		 redis_batching $sock redis-zipf" \
		"$rstop" -- "${redis[@]}"
	lane_log "workloads: tracing redis-server (redis-benchmark) under valgrind lackey"
	trace_server redis-bench "$sock" \
		"$zipf --ops 0 --load | redis-cli -s $sock --pipe && redis_loaded $sock redis-bench" \
		"$WL exec redis-benchmark -s $sock -t get,set -r $REDIS_KEYS -n $REDIS_BENCH_OPS \
		 -d 1024 -c 1 -q 2> /dev/null | grep '^{' && redis_batching $sock redis-bench" \
		"$rstop" -- "${redis[@]}"
	rm -f "$out/trace/zipf.resp"
	lane_log "workloads: tracing sysbench memory under valgrind lackey"
	# sysbench 1.0 gives its worker thread a fixed 30 s to start, which
	# LuaJIT under lackey can overrun on a busy host: try again then.
	for try in 1 2 3; do
		"$HERE/trace.sh" "$out/trace/sysbench" -- sysbench memory --threads=1 \
			--memory-block-size=$SYSBENCH_BLOCK --memory-total-size=$SYSBENCH_TOTAL \
			--memory-access-mode=rnd --rand-seed=1 --time=0 run && break
		grep -q 'failed to initialize within' "$out/trace/sysbench.json" && [ $try -lt 3 ] ||
			lane_die "workloads: tracing sysbench memory failed (see above)"
		lane_log "workloads: sysbench's worker thread overran its fixed 30 s start under valgrind (a busy host?); tracing again, $((try + 1)) of 3"
	done
	echo 0 > "$out/trace/sysbench.warm"
	# fio's mmap engine on a file of the device's size: the device sees
	# the accesses to the mapping, whose address valgrind's syscall
	# trace gives (fio does not print it).
	lane_log "workloads: tracing fio (mmap engine) under valgrind lackey"
	truncate -s "$FIO_SIZE" "$out/trace/fio.dat"
	log=$out/trace/fio.lackey
	# shellcheck disable=SC2046 # the options, as the guest passes them
	valgrind --tool=lackey --trace-mem=yes --trace-syscalls=yes --log-file="$log" \
		fio $(fio_opts "$FIO_SIZE" "$FIO_IO") --ioengine=mmap \
		--filename="$out/trace/fio.dat" > "$out/trace/fio.json"
	base=$(sed -n "s/^SYSCALL.* sys_mmap ( 0x0, $FIO_SIZE, .*Success(\(0x[0-9a-f]*\)).*/\1/p" "$log" | tail -n 1)
	[ -n "$base" ] || lane_die "fio: no mapping of $FIO_SIZE bytes in the trace"
	"$WL" lackey "$base" "$FIO_SIZE" < "$log" 2> /dev/null |
		"$SIM" --format text --convert "$out/trace/fio.dax.bin" - 2> /dev/null
	rm -f "$log" "$out/trace/fio.dat"
	TRACED="$TRACED redis-sync redis-zipf redis-bench sysbench"
fi
# runs_server KIND BYTES ARGS...: the DRAM run and a node run per ratio
# (cache: BYTES / ratio), replayed when KIND was traced.
runs_server() {
	local k=$1 b=$2 r c
	shift 2
	echo "$k-dram $k dram 0 $*" >> "$runs"
	for r in $RATIOS; do
		c=$(cache_for "$b" "$r")
		echo "$k-node-$r $k node $c $*" >> "$runs"
		case " ${TRACED:-} " in
		*" $k "*) replay "$k" "$k-node-$r" "$c" "$(cat "$out/trace/$k.warm")" ;;
		esac
	done
}
if [ $smoke = 1 ]; then
	case " ${TRACED:-} " in
	*" memcached "*) runs_server memcached $((REDIS_KEYS * 1024)) $REDIS_KEYS $REDIS_OPS ;;
	esac
else
	for k in redis-zipf memcached; do
		runs_server $k $((REDIS_KEYS * 1024)) $REDIS_KEYS $REDIS_OPS
	done
	runs_server redis-bench $((REDIS_KEYS * 1024)) $REDIS_KEYS $REDIS_BENCH_OPS
	runs_server redis-sync $((REDIS_KEYS * 1024)) $REDIS_KEYS $REDIS_SYNC_OPS
	runs_server sysbench $SYSBENCH_BLOCK $SYSBENCH_BLOCK $SYSBENCH_TOTAL
	echo "fio-dram fio dram 0 $FIO_SIZE $FIO_IO" >> "$runs"
	for r in $RATIOS; do
		c=$(cache_for $FIO_SIZE "$r")
		echo "fio-dax-$r fio dax $c $FIO_SIZE $FIO_IO" >> "$runs"
		"$SIM" --faults --policy fifo --cache-size "$c" --json \
			"$out/trace/fio.dax.bin" > "$out/sim/fio-dax-$r.json"
	done
fi
rm -f "$out"/trace/*.node.bin "$out"/trace/*.dax.bin
lane_log "workloads: traces and replays took $((SECONDS - t0)) s"
if [ $trace_only = 1 ]; then
	for f in "$out"/sim/*.json; do
		case $f in *.less1.json) continue ;; esac
		printf '%s ' "$(basename "$f" .json)"
		perl -MJSON::PP -0777 -ne '$j = decode_json($_);
			printf "accesses %d misses %d hit ratio %.4f\n", @$j{qw(accesses misses hit_ratio)}' "$f"
	done
	exit 0
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
lane_icount "$icount"
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
