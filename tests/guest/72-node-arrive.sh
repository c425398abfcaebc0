#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node mode with node_latency=on, anonymous pages that reach the node
# without a fault of their own (progs/nodelat arrive): moved by mbind
# (MPOL_MF_MOVE), by move_pages(2), or demoted by reclaim (memory.reclaim
# of the program's cgroup, demotion enabled). For each way:
# - node_latency/arrivals grows by the pages the kernel says it moved
#   (pgmigrate_success, or the pgdemote_* counters), within 5%;
# - the pages are tracked: a cyclic scan over twice the cache misses on
#   >= 95% of the pages of the node in its third pass, the victims are
#   found mapped, and the contents survive;
# - a default-policy task (move, demote) keeps its pages on the node: the
#   model's misses are not NUMA-balancing faults, and their migration off
#   the node is refused (promotions_refused, over the two).
# - demote-thp: the program's huge pages are split on the way (a huge page
#   on the node would escape the model): thp_refused_pages grows,
#   thp_untracked_pages does not.
# On the debug kernel: mbind and demote only (demote is skipped there:
# that kernel is built without cgroups).
. /tests/lib.sh

DEBUG=${cxdvirt_debug:-0}
OUT=/tmp/nl-arrive.out
CG=/sys/fs/cgroup
CGD=$CG/nl-arrive
DEMOTE=/sys/kernel/mm/numa/demotion_enabled
DEMOTE0=

ar_cleanup() {
	[ -d $CGD ] && rmdir $CGD 2>/dev/null
	[ -n "$DEMOTE0" ] && echo "$DEMOTE0" > $DEMOTE 2>/dev/null
	rm -f $OUT
}

nl_begin "node-mode pages that arrive by migration"
trap 'ar_cleanup; nl_end' EXIT
klog_clear

nl_power_up cache_size=4M t_read_ns=20000 policy=fifo ||
	bail "power on $NL_DEV in node mode and online it"
pass "power on, online as node $NL_NODE ($DAX)"

# got NAME: the number the last run printed on its "NAME N" line.
got() {
	sed -n "s/^$1 +*\([0-9][0-9]*\)$/\1/p" $OUT
}

# vm NAME-REGEX: the sum of the /proc/vmstat counters matching it.
vm() {
	awk -v re="^$1\$" '$1 ~ re { s += $2 } END { print s + 0 }' /proc/vmstat
}

# Demotion: the cgroup v2 memory controller and demotion_enabled.
NODEMOTE=
if [ ! -f $DEMOTE ]; then
	NODEMOTE="no $DEMOTE in this kernel"
else
	DEMOTE0=$(cat $DEMOTE)
	echo 1 > $DEMOTE
	[ -f $CG/cgroup.controllers ] || mount -t cgroup2 none $CG 2>/dev/null
	echo +memory > $CG/cgroup.subtree_control 2>/dev/null
	if ! mkdir -p $CGD || [ ! -f $CGD/memory.reclaim ]; then
		NODEMOTE="no cgroup v2 memory.reclaim"
	fi
fi

# Twice the cache's 1024 lines (reclaim may leave some pages in DRAM: the
# demoted program has 3x).
LINES=1024
N=2048
REFUSED=0
HOWS="mbind move demote demote-thp"
[ "$DEBUG" = 1 ] && HOWS="mbind demote"

for how in $HOWS; do
	section "$how"
	case $how in demote*) demote=1 ;; *) demote=0 ;; esac
	if [ $demote = 1 ] && [ -n "$NODEMOTE" ]; then
		skip "$how: pages demoted by reclaim" "$NODEMOTE"
		continue
	fi
	m0=$(vm pgmigrate_success) d0=$(vm 'pgdemote_.*')
	t0=$(cat "$S/node_latency/thp_untracked_pages")
	r0=$(cat "$S/node_latency/thp_refused_pages")
	n=$N
	if [ $demote = 1 ]; then
		n=$((LINES * 3))
		# The program joins the cgroup, writes its pages, stops itself;
		# its memory is then reclaimed (demoted), and it goes on.
		sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh $CGD \
			"$PROGS/nodelat" arrive $how $NL_NODE $IDX $n > $OUT 2>&1 &
		pid=$!
		i=0
		while [ $i -lt 300 ] &&
			! grep -q '^State:.*T' /proc/$pid/status 2>/dev/null; do
			sleep 0.1
			i=$((i + 1))
		done
		ok $? "$how: the program wrote its pages and stopped"
		if echo $((n * 4))K > $CGD/memory.reclaim 2>/dev/null; then
			diag "memory.reclaim of $((n * 4)) KiB: done"
		else
			diag "memory.reclaim of $((n * 4)) KiB: not all reclaimed"
		fi
		kill -CONT $pid
		wait $pid
		rc=$?
	else
		"$PROGS/nodelat" arrive $how $NL_NODE $IDX $n > $OUT 2>&1
		rc=$?
	fi
	# shellcheck disable=SC2016 # expanded by the inner sh
	run_sub "nodelat arrive $how $n" sh -c 'cat "$1"; exit "$2"' sh $OUT $rc
	moved=$(($(vm pgmigrate_success) - m0))
	[ $demote = 1 ] && moved=$(($(vm 'pgdemote_.*') - d0))
	ar=$(got arrivals) on=$(got "on node") after=$(got "on node after")
	p1=$(got "P1 misses") p2=$(got "P2 misses") p3=$(got "P3 misses")
	we=$(got "window evictions") wu=$(got "window evictions_unmapped")
	pr=$(got promotions_refused)
	diag "$how: moved $moved (vmstat), arrivals +$ar, on node $on, after the passes $after"
	diag "  misses P1 $p1, P2 $p2, P3 $p3; window evictions $we, unmapped $wu; promotions_refused +$pr"
	cmp_ok "$moved" -gt 0 "$how: the kernel moved pages ($moved)"
	cmp_ok "$((ar * 100))" -ge $((moved * 95)) "$how: arrivals +$ar >= 95% of the $moved moved"
	cmp_ok "$((ar * 100))" -le $((moved * 105)) "$how: arrivals +$ar <= 105% of the $moved moved"
	cmp_ok "$on" -ge $((LINES * 5 / 4)) "$how: over 1.25x the cache's lines are on the node ($on of $n)"
	# The arrivals filled the cache in page frame order, not the scan's:
	# pages the first passes reach early may still hit. Within three
	# passes the scan's own order holds, and a cyclic scan over more than
	# the cache misses on every access under FIFO.
	cmp_ok "$((p3 * 100))" -ge $((on * 95)) "$how: pass 3 misses on >= 95% of the node's pages ($p3 of $on)"
	cmp_ok "$wu" -le $((we * 5 / 100)) "$how: victims are found mapped ($wu of $we mapped nowhere)"
	# The kernel's own NUMA-balancing scan (numa_balancing=1, Debian's
	# default) may still move a page it made PROT_NONE itself, which the
	# model did not evict: a promotion the real kernel makes too. Seen
	# once on 7.2 under host load (3071 of 3072). Allow 1%.
	cmp_ok "$((after * 100))" -ge "$((on * 99))" "$how: the pages stay on the node ($after of $on, >= 99%)"
	is "$(cat "$S/node_latency/thp_untracked_pages")" "$t0" "$how: thp_untracked_pages unchanged"
	if [ $how = demote-thp ]; then
		hp=$(got "AnonHugePages kB")
		rf=$(($(cat "$S/node_latency/thp_refused_pages") - r0))
		diag "demote-thp: AnonHugePages $hp kB before, thp_refused_pages +$rf"
		cmp_ok "$hp" -gt 0 "demote-thp: the program had huge pages ($hp kB)"
		cmp_ok "$rf" -gt 0 "demote-thp: huge pages were split on the way to the node (thp_refused_pages +$rf)"
	fi
	[ $how = mbind ] || REFUSED=$((REFUSED + pr))
done
# The kernel would migrate a default-policy page off the node at a later
# hinting fault (when is its heuristic's call: on 6.1 after move_pages and
# demotion, on 6.12 after demotion).
case " $HOWS " in
*" demote "*)
	if [ -n "$NODEMOTE" ]; then
		:
	elif nl_exclusive; then
		skip "a default-policy task's misses do not migrate its pages" \
			"evicted pages are device-exclusive entries here, not PROT_NONE: the model's misses are no hinting faults"
	else
		cmp_ok "$REFUSED" -gt 0 "a default-policy task's misses do not migrate its pages (promotions_refused +$REFUSED)"
	fi
	;;
esac

section "power off"
ar_cleanup
nl_power_down
ok $? "offline and power off"

klog_no_warnings
nl_end
done_testing
