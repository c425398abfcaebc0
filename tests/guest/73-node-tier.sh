#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node mode as the slow tier under DRAM (docs/numa-mode.md, "Memory
# tiering"): demotion by reclaim and promotion by NUMA balancing
# (kernel.numa_balancing=2) with the model applied. A default-policy
# program in a memory cgroup writes a hot and a cold mapping
# (progs/nodelat tier); memory.reclaim demotes both onto the device's
# node; with numa_balancing=2 the program then reads the hot pages over
# and over. Run with node_latency on, then off:
# - on: node_latency/arrivals equals the kernel's pgdemote_* delta within
#   5%, and the demoted pages that the model evicts are found mapped;
# - hot pages are promoted back to DRAM (pgpromote_success), cold pages
#   stay on the node;
# - the model's own faults do not change what the kernel promotes:
#   pgpromote_success with node_latency on is within 25% of the run with
#   it off (the model's PROT_NONE evictions look like NUMA-balancing scans
#   to the kernel; promotions_refused counts the faults it kept apart);
# - the contents survive.
# Not on the debug kernel (72-node-arrive covers demotion there).
. /tests/lib.sh

DEBUG=${cxdvirt_debug:-0}
OUT=/tmp/nl-tier.out
CG=/sys/fs/cgroup
CGD=$CG/nl-tier
DEMOTE=/sys/kernel/mm/numa/demotion_enabled
NB=/proc/sys/kernel/numa_balancing
DEMOTE0=''
NB0=''

tier_cleanup() {
	[ -n "$NB0" ] && echo "$NB0" > $NB 2>/dev/null
	[ -d $CGD ] && rmdir $CGD 2>/dev/null
	[ -n "$DEMOTE0" ] && echo "$DEMOTE0" > $DEMOTE 2>/dev/null
	rm -f $OUT
}

nl_begin "node-mode memory tiering"
trap 'tier_cleanup; nl_end' EXIT
if [ "$DEBUG" = 1 ]; then
	skip "memory tiering" "not on the debug kernel (72-node-arrive covers demotion)"
	done_testing
fi
if [ ! -f $DEMOTE ] || [ ! -f $NB ]; then
	skip "memory tiering" "no $DEMOTE or $NB in this kernel"
	done_testing
fi
klog_clear
DEMOTE0=$(cat $DEMOTE) NB0=$(cat $NB)
echo 1 > $DEMOTE
[ -f $CG/cgroup.controllers ] || mount -t cgroup2 none $CG 2>/dev/null
echo +memory > $CG/cgroup.subtree_control 2>/dev/null
mkdir -p $CGD
[ -f $CGD/memory.reclaim ] || bail "no cgroup v2 memory.reclaim"

got() {
	sed -n "s/^$1 +*\([0-9][0-9]*\)$/\1/p" $OUT
}
vm() {
	awk -v re="^$1\$" '$1 ~ re { s += $2 } END { print s + 0 }' /proc/vmstat
}
nlc() {
	cat "$S/node_latency/$1"
}

N=3072		# 3x the cache's 1024 lines
HOT=512
SECS=8

# tier LAT: one run with node_latency=LAT; sets dem, arr, prom, refused,
# hb, ha, cb, ca (hot/cold pages on the node before/after the reads).
tier() {
	nl_power_up cache_size=4M t_read_ns=20000 policy=fifo node_latency=$1 ||
		bail "power on $NL_DEV (node_latency=$1) and online it"
	pass "node_latency=$1: power on, online as node $NL_NODE"
	d0=$(vm 'pgdemote_.*') p0=$(vm pgpromote_success)
	a0=$(nlc arrivals) r0=$(nlc promotions_refused)
	u0=$(nlc evictions_unmapped) e0=$(stat_get $NL_DEV evictions)
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh $CGD \
		"$PROGS/nodelat" tier $NL_NODE $N $HOT $SECS > $OUT 2>&1 &
	pid=$!
	i=0
	while [ $i -lt 300 ] && ! grep -q '^State:.*T' /proc/$pid/status 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	echo $((N * 4))K > $CGD/memory.reclaim 2>/dev/null
	echo 2 > $NB
	kill -CONT $pid
	wait $pid
	rc=$?
	echo "$NB0" > $NB
	# shellcheck disable=SC2016 # expanded by the inner sh
	run_sub "nodelat tier (node_latency=$1)" sh -c 'cat "$1"; exit "$2"' sh $OUT $rc
	dem=$(($(vm 'pgdemote_.*') - d0)) prom=$(got promoted)
	promall=$(($(vm pgpromote_success) - p0))
	arr=$(($(nlc arrivals) - a0)) refused=$(($(nlc promotions_refused) - r0))
	unm=$(($(nlc evictions_unmapped) - u0)) ev=$(($(stat_get $NL_DEV evictions) - e0))
	hb=$(got "hot on node") ha=$(got "hot on node after")
	cb=$(got "cold on node") ca=$(got "cold on node after")
	diag "node_latency=$1: demoted $dem, arrivals +$arr, promoted $prom during the reads ($promall with the check), promotions_refused +$refused"
	diag "  hot on the node $hb -> $ha of $HOT, cold $cb -> $ca of $((N - HOT)), $(got "hot passes") hot passes"
	diag "  evictions +$ev, evictions_unmapped +$unm, misses $(stat_get $NL_DEV misses)"
	diag "  vmstat: $(for v in pgpromote_success pgpromote_candidate numa_pages_migrated numa_hint_faults pgmigrate_success pgdemote_direct pgdemote_kswapd; do printf '%s %s ' $v "$(vm $v)"; done)"
	cmp_ok "$hb" -ge $((HOT * 9 / 10)) "node_latency=$1: the hot pages were demoted ($hb of $HOT)"
	cmp_ok "$cb" -ge $(((N - HOT) * 9 / 10)) "node_latency=$1: the cold pages were demoted ($cb of $((N - HOT)))"
	cmp_ok "$prom" -gt 0 "node_latency=$1: NUMA balancing promoted pages ($prom)"
	cmp_ok "$ha" -le $((hb / 2)) "node_latency=$1: most hot pages left the node ($ha of $hb stay)"
	cmp_ok "$ca" -ge $((cb * 95 / 100)) "node_latency=$1: the cold pages stay ($ca of $cb)"
	nl_power_down
	ok $? "node_latency=$1: offline and power off"
}

section "node_latency on"
tier on
on_prom=$prom
cmp_ok "$((arr * 100))" -ge $((dem * 95)) "arrivals +$arr >= 95% of the $dem demoted"
cmp_ok "$((arr * 100))" -le $((dem * 105)) "arrivals +$arr <= 105% of the $dem demoted"

on_check=$((promall - prom))
section "node_latency off"
tier off
# Not a check: the program's final read of every page, after the reads,
# faults on the cold pages the kernel's scanner marked. Off, the kernel
# promotes them; on, most were made PROT_NONE by the model's evictions,
# which the scanner skips, so their faults are the model's and stay put
# (docs/numa-mode.md, "What the mechanism cannot see").
diag "promotions during the final check: $on_check with the model, $((promall - prom)) without"
cmp_ok "$((on_prom * 100))" -ge $((prom * 75)) "promotions with the model ($on_prom) >= 75% of those without ($prom)"
cmp_ok "$((on_prom * 100))" -le $((prom * 125)) "promotions with the model ($on_prom) <= 125% of those without ($prom)"

tier_cleanup
klog_no_warnings
nl_end
done_testing
