#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The module and cxdvirt-sim run the same model code: one access sequence,
# replayed on a live device and through the simulator, gives exactly the
# same misses, minor hits and evictions under every policy.
#
# Only faults reach the module's model: once a page is mapped, touching it
# again is a native hit the model never sees, until an eviction unmaps it.
# cxdvirt-sim --faults replays a trace the same way (a page is mapped from
# its demand access until evicted; a write to a read-only mapped page only
# dirties the line). The device's accessed-bit scan is off
# (scan_interval_ms=0), so the policy sees exactly the faults; the replay is
# one process on a freshly powered device, so every resident page is mapped
# and every access that faults is a miss.
. /tests/lib.sh

# One of the slowest tests under KASAN + lockdep (about 4 minutes), and
# about the model or scale rather than kernel safety: it runs on the stock
# kernels; the debug-kernel lane skips it to keep CI within its time.
if [ "${cxdvirt_debug:-0}" = 1 ]; then
	skip "45-sim-agree" "stock kernels only (debug-lane time)"
	done_testing
fi

D=agree
trap 'dev_rm $D 2>/dev/null' EXIT
SIM=/bin/cxdvirt-sim
[ -x "$SIM" ] || bail "cxdvirt-sim is not in the guest (make tools)"

C=256		# cache lines
CAP=16M		# 4096 pages
TR=/tmp/agree.trace
"$PROGS/replay" gen 7 6000 1024 25 > "$TR"
ok $? "generate 6000 accesses over 1024 pages (seed 7)"

# jnum KEY FILE: the first number after "KEY": in a JSON file.
jnum() {
	sed -n "s/.*\"$1\": *\([0-9][0-9]*\).*/\1/p" "$2" | head -n 1
}

# agree NAME POLICY [DEV-ATTR=V...] -- [SIM-OPTION...]: replay the trace on
# a fresh device and through the simulator, compare the counters.
agree() {
	local name=$1 pol=$2 attrs=
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		attrs="$attrs $1"
		shift
	done
	[ $# -gt 0 ] && shift
	dev_rm $D 2>/dev/null
	# shellcheck disable=SC2086
	dev_create $D capacity=$CAP cache_size=$((C * 4096)) policy=$pol \
		seed=11 scan_interval_ms=0 t_read_ns=0 t_prog_ns=0 \
		channel_mbps=100000 $attrs || bail "create $D ($name)"
	dev_on $D || bail "power on $D ($name)"
	stats_reset $D
	REPLAY_THINK_NS=${THINK:-0} "$PROGS/replay" run "$(dev_node $D)" "$TR" > /dev/null
	ok $? "$name: replay on the device"

	"$SIM" --capacity $CAP --cache $((C * 4096)) --policy $pol --seed 11 \
		--faults --json "$@" "$TR" > /tmp/agree.json
	ok $? "$name: cxdvirt-sim --faults"
	m=$(stat_get $D misses)
	is "$m" "$(jnum misses /tmp/agree.json)" "$name: misses agree ($m)"
	h=$(stat_get $D minor_hits)
	is "$h" "$(jnum hits /tmp/agree.json)" "$name: minor hits agree ($h)"
	is "$(stat_get $D evictions)" "$(jnum total /tmp/agree.json)" \
		"$name: evictions agree"
	is "$(stat_get $D dirty_evictions)" "$(jnum dirty /tmp/agree.json)" \
		"$name: dirty evictions agree"
	is "$(stat_get $D write_misses)" "$(jnum write_misses /tmp/agree.json)" \
		"$name: write misses agree"
	w=$(jnum mshr_waits /tmp/agree.json)
	if [ "${w:-0}" -gt 0 ]; then
		is "$(stat_get $D mshr_waits)" "$w" "$name: MSHR waits agree ($w)"
		is "$(stat_get $D mshr_wait_ns_total)" \
			"$(jnum mshr_wait_ns /tmp/agree.json)" "$name: MSHR wait time agrees"
		is "$(stat_get $D model_ns_total)" \
			"$(jnum model_miss_ns /tmp/agree.json)" "$name: modeled miss time agrees"
	fi
	g=$(jnum gc_runs /tmp/agree.json)
	if [ -n "$g" ]; then
		is "$(stat_get $D ftl_host_writes)" \
			"$(jnum host_writes /tmp/agree.json)" "$name: FTL host writes agree"
		is "$(stat_get $D gc_runs)" "$g" "$name: GC runs agree ($g)"
		is "$(stat_get $D gc_pages_moved)" \
			"$(jnum gc_pages_moved /tmp/agree.json)" "$name: GC copies agree"
	fi

	# For contrast: a device that saw every access (the plain simulator).
	"$SIM" --capacity $CAP --cache $((C * 4096)) --policy $pol --seed 11 \
		--json "$@" "$TR" > /tmp/agree-all.json
	diag "$name: every access to the model would give $(jnum misses /tmp/agree-all.json) misses"
	dev_off $D
}

for pol in fifo lifo lru clock s3fifo random cflru 2q; do
	agree $pol $pol
done

# With next-page prefetch, prefetched pages are resident but not mapped:
# their first access is a minor fault, a hit that reaches the policy, so
# lru, clock and s3fifo see touches too.
for pol in fifo lru clock s3fifo cflru 2q; do
	agree "$pol+prefetch" $pol prefetch=next prefetch_degree=2 -- \
		--prefetch next --degree 2
	cmp_ok "$h" -gt 0 "$pol+prefetch: minor hits reached the policy"
done

# Every prefetcher: the learned ones keep state across accesses (BOP's
# recent requests and scores, Leap's history, FDP's level and filter), the
# same in both.
for pf in stride bop leap fdp; do
	agree "lru+$pf" lru prefetch=$pf prefetch_degree=2 -- \
		--prefetch $pf --degree 2
done

# The FTL changes timing, not residency: the same counts, and the same
# garbage collection (it depends only on the order of the write-backs).
# 4096 pages over the device's 8 x 4 dies (the simulator is told the same
# geometry): 128 per plane; 16 pages per block and 50% over-provisioning
# give 12 blocks per plane, gc_high + 1 spare.
agree "fifo+ftl" fifo pages_per_block=16 ftl=page op_pct=50 ftl_fill=1 -- \
	--channels 8 --dies 4 --planes 1 --pages-per-block 16 --ftl page \
	--op-pct 50 --ftl-fill

# The controller's limits bind: one MSHR, 200 ns of controller time per
# NAND read and a 40000 MB/s link (103 ns per line). A miss's two prefetch
# reads wait, within its one model call, for the MSHR its demand read holds
# (the second for the first's), and pass the controller after it: the same
# waits and the same modeled miss time in the module and the simulator.
# All reads of one fault end within 1 us; the guest's next fault comes
# later than that (--think 100000 in the simulator; the replay waits 20 us
# between accesses, as a miss's wait may end before its prefetches do and
# the next fault counts from its entry), so no wait depends on when it
# arrives.
# The simulator is given the device's NAND timing too (tR and tPROG 0,
# 100000 MB/s): each miss is then exactly 200 + 41 + 103 ns.
THINK=20000
agree "lru+ctrl" lru prefetch=next prefetch_degree=2 mshr=1 ctrl_ns=200 \
	link_mbps=40000 -- --prefetch next --degree 2 --mshr 1 --ctrl-ns 200 \
	--link-mbps 40000 --t-read-ns 0 --t-prog-ns 0 --channel-mbps 100000 \
	--think 100000
cmp_ok "${w:-0}" -gt 0 "lru+ctrl: the MSHR limit bound ($w waits)"
THINK=0

# A power failure (NAND image, volatile cache) loses the dirty lines: the
# module's power_fail counts the same lines as cxdvirt-sim --power-fail-at
# after the whole trace.
IMG=/tmp/agree.img
# GPF with no energy keeps nothing; with plenty, every line (the programs
# take ns here, t_prog_ns 0).
for run in fifo:volatile:0 lru:volatile:0 cflru:volatile:0 lru:gpf:0 \
	lru:gpf:1000000000; do
	pol=${run%%:*}
	per=${run#*:}
	bud=${per#*:}
	per=${per%:*}
	name="$pol $per $bud"
	dev_rm $D 2>/dev/null
	rm -f $IMG
	dev_create $D capacity=$CAP cache_size=$((C * 4096)) policy=$pol \
		scan_interval_ms=0 t_read_ns=0 t_prog_ns=0 channel_mbps=100000 \
		persistence=$per gpf_budget_ns=$bud \
		nand_backing=$IMG || bail "create $D (power failure, $name)"
	dev_on $D || bail "power on $D (power failure, $name)"
	REPLAY_THINK_NS=${THINK:-0} "$PROGS/replay" run "$(dev_node $D)" "$TR" > /dev/null
	ok $? "$name power failure: replay on the device"
	is "$(dev_set $D power_fail 1)" OK "$name power failure: power_fail"
	dev_on $D || bail "power on $D after the failure ($name)"
	"$SIM" --capacity $CAP --cache $((C * 4096)) --policy $pol --faults \
		--persistence $per --gpf-budget-ns $bud \
		--power-fail-at 6000 --json "$TR" > /tmp/agree.json
	ok $? "$name power failure: cxdvirt-sim --power-fail-at 6000"
	l=$(stat_get $D lines_lost)
	s=$(jnum lines_lost /tmp/agree.json)
	if [ "$bud" = 0 ]; then
		is "$l" "$s" "$name power failure: lines lost agree ($l)"
		cmp_ok "$l" -gt 0 "$name power failure: some lines were dirty"
	else
		is "$s" 0 "$name power failure: the simulator keeps every line"
		is "$(stat_get $D dirty_shutdowns)" 0 "$name power failure: the device lost none"
	fi
	dev_off $D
done
rm -f $IMG

dev_rm $D
ok $? "remove $D"
done_testing
