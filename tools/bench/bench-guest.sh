#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of tools/bench/bench.sh, run by /init as /demo.sh (busybox sh).
# Makes the devices of each row of docs/performance.md, runs cxdvirt-bench
# and prints every report between marker lines on the TAP port:
#
#   CXDVIRT-BENCH-INFO key value...
#   CXDVIRT-BENCH-JSON <run id>      then the JSON report, then
#   CXDVIRT-BENCH-END
#   CXDVIRT-BENCH-CDF                then the --cdf file, then
#   CXDVIRT-BENCH-END
#
# The command line of each run is printed as "# run ID: cxdvirt-bench ..."
# just before its JSON, so the host can put it in the document.
. /tests/lib.sh

CFS=/sys/kernel/config/cxdvirt
TIMER=${BENCH_TIMER:-rdtscp}
st=0

info() { echo "CXDVIRT-BENCH-INFO $*"; }

# mk NAME ATTR=VALUE...: configure (in the order given) and power on; prints
# the device node. A preset= must come first (it loads the NAND timing).
mk() {
	name=$1
	shift
	dev_create "$name" "$@" >&2 || { echo "# cannot create $name" >&2; return 1; }
	dev_on "$name" >&2 || return 1
	d=$CFS/$name
	info "dev $name $(dev_node "$name") t_read_ns=$(cat $d/t_read_ns) t_prog_ns=$(cat $d/t_prog_ns)" \
		"channel_mbps=$(cat $d/channel_mbps) channels=$(cat $d/channels)" \
		"dies_per_channel=$(cat $d/dies_per_channel) planes_per_die=$(cat $d/planes_per_die)" \
		"nand_page_size=$(cat $d/nand_page_size) capacity=$(cat $d/capacity)" \
		"cache_size=$(cat $d/cache_size) backing_node=$(cat $d/backing_node)" >&2
	dev_node "$name"
}

# cal NAME: measure the device's fault remainder (cxdvirt-dev calibrate:
# fault_exit_ns), so that its misses cost the model, not the model plus the
# fault (docs/interface.md); the device's counters are reset by the run.
cal() {
	e=$(cxdvirt-dev calibrate "$1" --json 2> /tmp/cal.err |
		sed -n 's/^ *"fault_exit_ns": \([0-9]*\),\{0,1\}$/\1/p')
	if [ -n "$e" ]; then
		info "calibrate $1 fault_exit_ns $e"
	else
		echo "# calibrate $1 failed: $(cat /tmp/cal.err)"
		st=1
	fi
}

# ipis: the TLB-shootdown and function-call interrupts of /proc/interrupts,
# summed over the CPUs: "TLB CAL".
ipis() {
	awk '$1 == "TLB:" || $1 == "CAL:" {
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n[$1] += $i
	} END { printf "%d %d\n", n["TLB:"], n["CAL:"] }' /proc/interrupts
}

uptime_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

# ticks: the local timer interrupts of /proc/interrupts (LOC), one count
# per CPU: "N0 N1 ...".
ticks() {
	awk '$1 == "LOC:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) printf "%s%d", (i > 2 ? " " : ""), $i; print "" }' /proc/interrupts
}

# ticks_max "BEFORE" "AFTER": the most timer interrupts one CPU took
# between two ticks snapshots: the rate of the CPU that ran the measured
# program, which a busy CPU ticks at HZ and an idle one hardly at all.
ticks_max() {
	echo "$1
$2" | awk 'NR == 1 { for (i = 1; i <= NF; i++) a[i] = $i; next }
		{ for (i = 1; i <= NF; i++) if ($i - a[i] > m) m = $i - a[i] } END { print m + 0 }'
}

# ipis_cpu C: the TLB-shootdown, function-call and rescheduling interrupts
# CPU C took (its column of /proc/interrupts): "TLB CAL RES".
ipis_cpu() {
	awk -v c="$1" '$1 == "TLB:" || $1 == "CAL:" || $1 == "RES:" { n[$1] = $(c + 2) }
		END { printf "%d %d %d\n", n["TLB:"], n["CAL:"], n["RES:"] }' /proc/interrupts
}

# run ID CMD...: run a bench command, framing its JSON; the interrupts it
# drew go to a "ticks ID LOC MS" info line (the local timer interrupts of
# the CPU that took the most, and the run's duration in ms from
# /proc/uptime, 10 ms steps) and an
# "ipis ID TLB CAL [MISSES]" info line, MISSES being the
# misses of device $RUNDEV over the whole run (eviction passes included)
# when RUNDEV names one; with IPICPU=C, those CPU C took to an
# "ipis_cpu ID C TLB CAL RES MISSES" line too.
run() {
	id=$1
	shift
	echo "# run $id: $*"
	i0=$(ipis)
	tk0=$(ticks)
	u0=$(uptime_ms)
	c0=
	[ -z "${IPICPU:-}" ] || c0=$(ipis_cpu "$IPICPU")
	d0=
	[ -z "${RUNDEV:-}" ] || d0=$(stat_get "$RUNDEV" misses)
	echo "CXDVIRT-BENCH-JSON $id"
	"$@" --json > /tmp/out.json 2> /tmp/err.txt
	rc=$?
	i1=$(ipis)
	tk1=$(ticks)
	u1=$(uptime_ms)
	c1=
	[ -z "$c0" ] || c1=$(ipis_cpu "$IPICPU")
	cat /tmp/out.json
	echo "CXDVIRT-BENCH-END"
	if [ $rc != 0 ]; then
		echo "# run $id failed with status $rc:"
		sed 's/^/#   /' /tmp/err.txt
		st=1
	fi
	info "ticks $id $(ticks_max "$tk0" "$tk1") $((u1 - u0))"
	set -- $i0 $i1
	info "ipis $id $(($3 - $1)) $(($4 - $2))${d0:+ $(($(stat_get "$RUNDEV" misses) - d0))}"
	if [ -n "$c1" ]; then
		set -- $c0 $c1
		info "ipis_cpu $id $IPICPU $(($4 - $1)) $(($5 - $2)) $(($6 - $3)) $(($(stat_get "$RUNDEV" misses) - d0))"
	fi
}

# redis_row: row 5g on the node-mode device $N (node 2, online). redis-server
# bound to the node holds a keyspace of twice the cache (4 KiB values, keys
# key:%012d as redis-benchmark's -r makes them), loaded through
# redis-cli --pipe; one redis-benchmark client (one connection, no
# pipelining) then GETs random keys, each run timed by stats/elapsed_ns, at
# tR = 1 us and at tR = 200 us. Info "redis T1_NS M1 T200_NS M200 GETS
# MODEL1_NS MODEL200_NS SCAN1_NS SCAN200_NS" (stats/model_ns_total and the
# accessed-bit scan's stats/scan_ns_total of each run).
redis_row() {
	local keys gets=${BENCH_REDIS_GETS:-3000} t1 t2 m1 m2 x1 x2 s1 s2
	if ! command -v redis-server > /dev/null ||
	   ! command -v redis-benchmark > /dev/null; then
		echo "# no redis-server or redis-benchmark in the guest: no redis row"
		return
	fi
	keys=$(( 2 * $(cat $CFS/$N/cache_size) / 4096 ))
	if ! redis_up 2 /tmp/rb; then
		echo "# redis-server bound to node 2 did not answer: no redis row"
		st=1
		return
	fi
	dev_set $N t_read_ns 1000 > /dev/null
	awk -v n="$keys" 'BEGIN {
		v = sprintf("%4096s", ""); gsub(/ /, "x", v)
		for (i = 0; i < n; i++) {
			k = sprintf("key:%012d", i)
			printf "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$4096\r\n%s\r\n", length(k), k, v
		}
	}' | redis-cli -s "$SOCK" --pipe > /tmp/rb/load.log 2>&1 ||
		{ echo "# redis load failed: $(tail -n 2 /tmp/rb/load.log)"; st=1; }
	info "redis_keys $keys $(redis-cli -s "$SOCK" dbsize)"
	RB="redis-benchmark -s $SOCK -t get -n $gets -r $keys -c 1 -P 1 -q"
	$RB > /dev/null 2>&1	# warm-up: the cache's steady state of random GETs
	# each run timed by the device's clock: stats/elapsed_ns since the reset
	stats_reset $N
	$RB > /tmp/rb/t1.log 2>&1
	t1=$(stat_get $N elapsed_ns); m1=$(stat_get $N misses)
	x1=$(stat_get $N model_ns_total)
	s1=$(stat_get $N scan_ns_total)
	dev_set $N t_read_ns 200000 > /dev/null
	stats_reset $N
	$RB > /tmp/rb/t200.log 2>&1
	t2=$(stat_get $N elapsed_ns); m2=$(stat_get $N misses)
	x2=$(stat_get $N model_ns_total)
	s2=$(stat_get $N scan_ns_total)
	echo "# run redis: $RB (node 2, $keys keys of 4 KiB), tR 1 us then 200 us"
	info "redis $t1 $m1 $t2 $m2 $gets $x1 $x2 $s1 $s2"
	kill "$REDIS" 2> /dev/null
	wait "$REDIS" 2> /dev/null
	dev_set $N t_read_ns 40000 > /dev/null
}

# node_up: power the node-mode device $N at 4 GiB (512 MiB, target node 2)
# and online it as system RAM (daxctl); DAX names its dax device. Fails, with
# st=1 and a comment line, if any step fails.
node_up() {
	if ! dev_create $N mode=node phys_addr=0x100000000 capacity=512M target_node=2 >&2 ||
	   [ "$(dev_set $N power 1)" != OK ]; then
		echo "# cannot power a node-mode device"
		dev_rm $N 2>/dev/null
		st=1
		return 1
	fi
	DAX=$(cat "$(dev_sys $N)/dax_device")
	if ! daxctl reconfigure-device --mode=system-ram "$DAX" > /dev/null 2>&1; then
		echo "# daxctl reconfigure-device $DAX failed"
		st=1
		node_power_off
		return 1
	fi
	info "node $N $DAX node 2 online $(cat "$(dev_sys $N)/online")"
}

node_power_off() {
	dev_set $N power 0 > /dev/null
	rmdir "$CFS/$N"
}

# node_down: offline node 2 and remove $N.
node_down() {
	daxctl offline-memory "$DAX" > /dev/null 2>&1 || echo "# offline-memory $DAX failed"
	node_power_off
}

# node_miss_setup: tR 40 us (femu's) on $N, the model's miss time in an
# "info nodemodel" line, NM the miss runs' arguments (an eviction region
# of twice the 16384-line cache before each pass, misses above 20 us).
# Fails if node_latency is off on this kernel.
node_miss_setup() {
	if [ "$(dev_get $N node_latency)" != on ]; then
		echo "# node_latency is off on this kernel: no node-mode miss rows"
		return 1
	fi
	d=$CFS/$N
	dev_set $N t_read_ns 40000 > /dev/null
	info "nodemodel $(( $(cat $d/t_read_ns) + ($(cat $d/nand_page_size) * 1000 + $(cat $d/channel_mbps) - 1) / $(cat $d/channel_mbps) ))"
	NM="-n 1024 -p 3 --pattern chase --evict --evict-pages 16384 --threshold 20000"
}

# mt_row: row 5h, under multi-threaded TCG: the measured program bound to
# CPU 0 and a busy process (a shell loop) to CPU 1, node-mode misses on $N
# (node_mt, as node_miss) and devdax femu misses (femu_mt, as miss_femu),
# both devices uncalibrated (info "fault_exit_mt NODE FEMU": their
# fault_exit_ns, 0); run records the IPIs CPU 1 took (IPICPU). Under icount the vCPUs take
# turns on one host thread, so a busy vCPU costs an IPI nothing there.
mt_row() {
	if [ "$(grep -c ^processor /proc/cpuinfo)" -lt 2 ]; then
		echo "# one CPU online: no row 5h"
		return
	fi
	F=$(mk b_femu_mt preset=femu capacity=64M cache_size=8M backing_node=1) || { st=1; return; }
	numactl --physcpubind=1 sh -c 'while :; do :; done' &
	busy=$!
	# Uncalibrated (fault_exit_ns 0): miss P50 - model is then all that
	# the emulation adds to a miss, not a calibration's error, which under
	# multi-threaded TCG on a loaded host is tens of us either way.
	dev_set $N fault_exit_ns 0 > /dev/null
	dev_set b_femu_mt fault_exit_ns 0 > /dev/null
	info "fault_exit_mt $(dev_get $N fault_exit_ns) $(dev_get b_femu_mt fault_exit_ns)"
	IPICPU=1
	RUNDEV=$N
	run node_mt numactl --membind=2 --physcpubind=0 $B -t anon -L node-miss-mt $NM
	RUNDEV=b_femu_mt
	run femu_mt numactl --physcpubind=0 $B -t "$F" -L femu-mt -n 1024 -p 5 --evict --warmup 1
	RUNDEV=
	IPICPU=
	kill $busy
	wait $busy 2> /dev/null
	dev_rm b_femu_mt
}

# bench.sh --icount boots with maxcpus=1 (an SMP bring-up under icount
# hangs): the other vCPUs come online here.
if [ -n "${bench_online_cpus:-}" ]; then
	for c in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$c")" = 1 ] || echo 1 > "$c" || echo "# cannot online ${c%/online}"
	done
fi
[ -z "${bench_icount:-}" ] || info "icount $bench_icount"
[ -z "${bench_pinned:-}" ] || info "pinned 1"
B="cxdvirt-bench --timer $TIMER"
$B --target anon -n 16 -p 1 > /dev/null 2>&1 || { TIMER=clock; B="cxdvirt-bench --timer clock"; }
info "kernel $(uname -r)"
info "clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
info "cpus $(grep -c ^processor /proc/cpuinfo)"
info "timer $TIMER"

# bench.sh --icount: a second, multi-threaded TCG guest runs row 5h alone.
if [ "${bench_only:-}" = mt ]; then
	N=b_node
	if node_up; then
		node_miss_setup && mt_row
		node_down
	fi
	exit $st
fi

# --- 2b. anonymous first-touch faults, first: before any device powers on,
# so the module's fault-entry probe (attached from the first power-on
# until unload) is not on their path; row 2f compares a run with it.
run bare_anon $B -t node:1 -L anon-first-touch-read -n 4096 -p 1 --cold --threshold 1
run bare_anon_w $B -t node:1 -L anon-first-touch-write -n 4096 -p 1 --cold -w 1 --threshold 1

# --- 1. hit latency: device pages in the cache vs plain memory of node 1 ----
# Four rounds, the order of the two targets alternating, so drift in the
# emulation's speed hits both alike; the document takes the median ratio.
# scan_interval_ms=0: no accessed-bit scan (FIFO ignores hits); the default
# scan (100 ms) is measured too.
HIT=$(mk b_hit preset=znand capacity=64M cache_size=32M backing_node=1 scan_interval_ms=0) || st=1
HITS=$(mk b_hits preset=znand capacity=64M cache_size=32M backing_node=1) || st=1
HA="-n 4096 -p 3 --pattern chase"
if [ -n "$HIT" ] && [ -n "$HITS" ]; then
	for r in 1 2 3 4; do
		if [ $((r % 2)) = 1 ]; then
			run hit_r$r $B -t "$HIT" -L device-hit -t node:1 -L node1-plain $HA
			run hitscan_r$r $B -t "$HITS" -L device-hit-scan100ms -t node:1 -L node1-plain $HA
		else
			run hit_r$r $B -t node:1 -L node1-plain -t "$HIT" -L device-hit $HA
			run hitscan_r$r $B -t node:1 -L node1-plain -t "$HITS" -L device-hit-scan100ms $HA
		fi
	done
	run hit_clock cxdvirt-bench --timer clock -t "$HIT" -L device-hit -t node:1 -L node1-plain $HA
fi
dev_rm b_hit
dev_rm b_hits

# --- 2. per-miss overhead: bare faults, misses with and without eviction ---
BARE=$(mk b_bare capacity=64M cache_size=64M t_read_ns=0 t_prog_ns=0 channel_mbps=100000 backing_node=1) || st=1
if [ -n "$BARE" ]; then
	run bare_dev $B -t "$BARE" -L device-zero-latency -n 4096 -p 1 --cold --threshold 1
	dev_rm b_bare
fi

COLD=$(mk b_cold preset=znand capacity=64M cache_size=64M backing_node=1) || st=1
if [ -n "$COLD" ]; then
	# the probe at every user fault's entry, attached while a devdax device
	# is powered: its cost to faults that are not the device's (row 2f)
	run bare_anon_probe $B -t node:1 -L anon-first-touch-read-probed -n 4096 -p 1 --cold --threshold 1
	cal b_cold
	# calibrate made its lines resident: start cold again
	dev_off b_cold >&2 && dev_on b_cold >&2 || st=1
	run miss_cold $B -t "$COLD" -L znand-cold -n 4096 -p 1 --cold
	dev_rm b_cold
fi

# --- 2 and 3. steady-state misses (each evicts a clean line): znand, femu ----
for p in znand femu; do
	D=$(mk b_$p preset=$p capacity=64M cache_size=8M backing_node=1) || { st=1; continue; }
	cal b_$p
	run miss_$p $B -t "$D" -L $p -n 1024 -p 5 --evict --warmup 1
	dev_rm b_$p
done

# --- 3i. the same misses with a NAND image on tmpfs (nand_backing) ----------
# Each miss also reads its page from the image (a tmpfs file: buffered, no
# mmap_lock drop), inside the modeled wait.
mkdir -p /tmp/bimg && mount -t tmpfs -o size=256M bimg /tmp/bimg || st=1
for p in znand femu; do
	D=$(mk b_${p}i preset=$p capacity=64M cache_size=8M backing_node=1 \
		nand_backing=/tmp/bimg/$p.img) || { st=1; continue; }
	cal b_${p}i
	run miss_${p}_img $B -t "$D" -L $p-image -n 1024 -p 5 --evict --warmup 1
	info "image $p io_overruns $(stat_get b_${p}i io_overruns) io_over_ns $(stat_get b_${p}i io_over_ns) io_reads $(stat_get b_${p}i io_reads)"
	dev_rm b_${p}i
	rm -f /tmp/bimg/$p.img
done

# --- 4. thread scaling on femu timing (40 us tR, 41 ns transfer) ------------
# femu: 8 channels x 8 dies; page p is on channel p % 8, die (p / 8) % 8, so
# a stride of 64 pages keeps a thread on one die. Distinct dies: thread 1
# starts one page after thread 0 (--thread-step 1: channel 1). Same die: the
# default thread step (pages x stride) is a multiple of 64.
S=$(mk b_scal preset=femu capacity=256M cache_size=4M backing_node=1) || st=1
if [ -n "$S" ]; then
	run scal_1 $B -t "$S" -L 1-thread -n 128 --stride 64 -p 4 --evict
	run scal_2d $B -t "$S" -L 2-threads-distinct-dies -n 128 --stride 64 -T 2 --thread-step 1 -p 4 --evict
	run scal_2s $B -t "$S" -L 2-threads-same-die -n 128 --stride 64 -T 2 -p 4 --evict
	# The same with the waits sleeping (hrtimer) instead of spinning, which
	# frees the vCPU for the other thread's vCPU on a loaded host.
	P=/sys/module/cxdvirt/parameters
	sm=$(cat $P/spin_max_ns); we=$(cat $P/wake_early_ns)
	echo 5000 > $P/spin_max_ns; echo 5000 > $P/wake_early_ns
	info "param spin_max_ns=5000 wake_early_ns=5000 for the *_sleep runs"
	run scal_1_sleep $B -t "$S" -L 1-thread-sleep -n 128 --stride 64 -p 4 --evict
	run scal_2d_sleep $B -t "$S" -L 2-threads-distinct-dies-sleep -n 128 --stride 64 -T 2 --thread-step 1 -p 4 --evict
	echo $sm > $P/spin_max_ns; echo $we > $P/wake_early_ns
	dev_rm b_scal
fi

# --- CDF: znand and tlc with about half the accesses missing, plain memory --
Z=$(mk c_znand preset=znand capacity=64M cache_size=8M backing_node=1) || st=1
T=$(mk c_tlc preset=tlc capacity=64M cache_size=8M backing_node=1) || st=1
if [ -n "$Z" ] && [ -n "$T" ]; then
	run cdf $B -t "$Z" -L "znand device" -t "$T" -L "tlc device" -t node:1 -L "plain memory (node 1)" \
		-n 4096 -p 2 --warmup 1 --pattern random --cdf /tmp/cdf.txt
	echo "CXDVIRT-BENCH-CDF"
	cat /tmp/cdf.txt
	echo "CXDVIRT-BENCH-END"
fi
dev_rm c_znand
dev_rm c_tlc

# --- Scale: power-on time and kernel memory for 1, 4 and 16 GiB -------------
# Runtime backing is one page per device page: a device that needs more than
# MemAvailable less 256 MiB is not powered (it would fail with ENOMEM after
# draining the guest's memory) and is reported as not fitting.
# Time from /proc/uptime (10 ms) around the power write; memory is MemFree
# before minus after (the backing pages plus the module's own state).
mem_free_kb() { awk '$1 == "MemFree:" { print $2 }' /proc/meminfo; }
mem_avail_kb() { awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo; }
# scale_one TAG G ATTR=V...: power a znand device of G GiB with a 64 MiB
# cache (and ATTRs); report "TAG G power_ms MS mem_kb KB capacity_kb KB".
scale_one() {
	tag=$1
	g=$2
	shift 2
	n=b_$tag$g
	sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
	if dev_create $n preset=znand capacity=${g}G cache_size=64M "$@" >&2; then
		m0=$(mem_free_kb); t0=$(uptime_ms)
		r=$(dev_set $n power 1)
		t1=$(uptime_ms); m1=$(mem_free_kb)
		if [ "$r" = OK ]; then
			info "$tag $g power_ms $((t1 - t0)) mem_kb $((m0 - m1)) capacity_kb $((g * 1048576))"
		else
			info "$tag $g failed $(echo "$r" | tr ' ' '_') mem_free_kb $m0"
		fi
	fi
	dev_rm $n
}
for g in 1 4 16; do
	if [ $((g * 1048576 + 262144)) -gt "$(mem_avail_kb)" ]; then
		info "scale $g failed needs_${g}_GiB,_MemAvailable_$(($(mem_avail_kb) / 1024))_MiB"
	else
		scale_one scale $g
	fi
done

# --- Scale: NAND image devices of 1, 16 and 64 GiB (a sparse file on tmpfs) --
# Host memory holds the model's state and the cache, not the capacity.
for g in 1 16 64; do
	scale_one scale_img $g nand_backing=/tmp/bimg/size$g.img
	rm -f /tmp/bimg/size$g.img
done

# --- Scale: eight devices at once, each with its own traffic -----------------
# The znand steady-state miss of row 2 on one device alone, then on eight
# devices, one cxdvirt-bench process each, all started together.
MD=
for i in 1 2 3 4 5 6 7 8; do
	D=$(mk b_m$i preset=znand capacity=64M cache_size=8M backing_node=1) || { st=1; break; }
	MD="$MD $D"
done
MA="-n 512 -p 3 --evict --warmup 1"
if [ "$(echo $MD | wc -w)" = 8 ]; then
	set -- $MD
	run multi_1 $B -t "$1" -L alone $MA
	i=0
	for D in $MD; do
		i=$((i + 1))
		$B -t "$D" -L "device-$i-of-8" $MA --json > /tmp/multi$i.json 2> /tmp/multi$i.err &
	done
	wait
	i=0
	for D in $MD; do
		i=$((i + 1))
		echo "# run multi_8_$i: $B -t $D -L device-$i-of-8 $MA (8 at once)"
		echo "CXDVIRT-BENCH-JSON multi_8_$i"
		cat /tmp/multi$i.json
		echo "CXDVIRT-BENCH-END"
		[ -s /tmp/multi$i.json ] || { echo "# run multi_8_$i failed:"; sed 's/^/#   /' /tmp/multi$i.err; st=1; }
	done
fi
for i in 1 2 3 4 5 6 7 8; do dev_rm b_m$i; done

# --- 5. node mode: the same chase on the emulated node under --membind ------
N=b_node
if node_up; then
	for r in 1 2 3 4; do
		if [ $((r % 2)) = 1 ]; then
			run node_r$r numactl --membind=2 $B -t anon -L emulated-node-2 -t node:1 -L node1-plain $HA
		else
			run node_r$r numactl --membind=2 $B -t node:1 -L node1-plain -t anon -L emulated-node-2 $HA
		fi
	done
	# 5b/5c: node-mode misses (node_latency), tR 40 us as femu's
	if node_miss_setup; then
		# node mode's rest of the fault (the return to user space
		# after the task_work; calibrate's node path: a cyclic scan
		# bound to the node, every read a miss); row 5h runs
		# uncalibrated and skips it
		cal $N
		RUNDEV=$N
		run node_miss numactl --membind=2 $B -t anon -L node-miss $NM
		RUNDEV=
		# 5d: the same over shared memory (MAP_SHARED | MAP_ANONYMOUS,
		# shmem pages): an eviction unmaps the page from every mapping,
		# the next touch maps it again through shmem's fault.
		run node_miss_shm numactl --membind=2 $B -t shm -L node-miss-shm $NM
		# 5e: a program that allows THP (--thp: no MADV_NOHUGEPAGE).
		# The node refuses huge pages and the faults fall back to 4 KiB
		# pages, so the misses should be node_miss's.
		nl=$(dev_sys $N)/node_latency
		r0=$(cat "$nl"/thp_refused_pages 2>/dev/null || echo 0)
		run node_miss_thp numactl --membind=2 $B -t anon -L node-miss-thp $NM --thp
		r1=$(cat "$nl"/thp_refused_pages 2>/dev/null || echo 0)
		info "nodethp enabled=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled) refused_pages=$((r1 - r0))"
		redis_row
		# 5h: only where the vCPUs run at once (not under icount;
		# bench.sh --icount boots a second guest for it)
		[ -n "${bench_icount:-}" ] || mt_row
	fi
	node_down
fi
exit $st
