#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Power-off and module unload with a node-mode access in flight. An access
# (the task_work of a hinting fault) that saw the device running may walk
# the device's struct pages and start the background drain, which holds the
# device, not the module. Power-off waits for such accesses before the
# memory goes (they are SRCU readers), then cancels or waits for the drain;
# the module's works run on its own workqueue, which unload flushes. The
# module parameter node_drain_delay_ms (testing only) makes the access sleep
# between its check and the queueing, and the drain sleep before it runs.
# Before the fixes the drain woke up in freed module code (an oops) and
# rmmod did not wait; then power-off did not wait for the access.
# Then the same for a task_work that returns through module code after its
# module_put() (part 2, below). The test unloads the module and loads
# /cxdvirt.ko again, twice.
. /tests/lib.sh

P=/sys/module/cxdvirt/parameters/node_drain_delay_ms
DELAY=3000

# rmmod_retry: rmmod until it gets through (20 s at most, while a
# task_work holds the module); prints the seconds the successful one took.
rmmod_retry() {
	local t
	for _ in $(seq 400); do
		t=$(cut -d' ' -f1 /proc/uptime)
		if rmmod cxdvirt 2>/dev/null; then
			awk -v a="$t" -v b="$(cut -d' ' -f1 /proc/uptime)" \
				'BEGIN { printf "%.2f", b - a }'
			return 0
		fi
		sleep 0.05
	done
	return 1
}

reload() {
	grep -q '^cxdvirt ' /proc/modules || module_load
}
cleanup() {
	[ -n "$W" ] && kill -KILL "$W" 2>/dev/null
	[ -w $P ] && echo 0 > $P
	[ -w "$PD" ] && echo 0 > "$PD"
	nl_end
	reload
}

nl_begin "module unload with a node-mode drain queued"
[ -w $P ] || bail "no $P"
trap cleanup EXIT
# 256 lines; the drain starts above 95% of them.
nl_power_up cache_size=1M writeback=drain policy=fifo ||
	bail "power on $NL_DEV in node mode and online it"
pass "power on, online as node $NL_NODE ($DAX)"

# 400 pages written (the first 144 or so evicted: PROT_NONE), then, with the
# delay on, 100 of them rewritten: hinting faults whose misses start the drain.
"$PROGS/nodelat" touch $NL_NODE 400 100 > /tmp/74.out &
W=$!
st=$(wait_stopped $W)
is "$st" T "the program wrote 400 pages and stopped"
cmp_ok "$(stat_get $NL_DEV drain_evictions)" -gt 0 "the drain ran while the pages were written"
echo $DELAY > $P
kill -CONT $W
# The rewrite's first miss over the high mark sleeps in the kick.
inwin=1
for _ in $(seq 200); do
	grep -q msleep /proc/$W/stack 2>/dev/null && { inwin=0; break; }
	sleep 0.05
done
ok $inwin "an access is in the window between its check and the queueing"
daxctl offline-memory "$DAX" > /dev/null 2>&1
ok $? "offline the memory (the program's pages move away)"
t0=$(cut -d' ' -f1 /proc/uptime)
is "$(dev_set $NL_DEV power 0)" OK "power 0 while the access sleeps"
tp=$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.2f", b - a }')
diag "power 0 took $tp s (access and drain delays $((DELAY / 1000)) s each)"
awk -v t="$tp" 'BEGIN { exit !(t >= 2) }'
ok $? "power 0 waited for the access in flight ($tp s >= 2 s)"
DAX=
rmdir "$CFS/$NL_DEV"
ok $? "rmdir $NL_DEV"

# Nothing is left running: rmmod gets through (it would also wait for a
# drain, on the module's workqueue).
klog_clear
took=$(rmmod_retry)
[ -n "$took" ]
ok $? "rmmod once the access has run"
wait $W
is "$?" 0 "the program's pages read back right"
W=
diag "the successful rmmod took $took s"
# A drain left running in freed code would wake up by now.
sleep $((DELAY / 1000 + 1))
bad=$(klog_grep 'BUG:\|Oops\|unable to handle\|general protection')
is "$bad" "" "no oops after the unload"
module_load
ok $? "insmod /cxdvirt.ko again"

# Part 2: a task_work drops its module reference as its last act, then
# still returns through module code. node_put_delay_ms (testing only) makes
# the next one busy-wait there; rmmod must not free the module under it
# (unload waits for an RCU-tasks grace period). Before that, the task came
# back into freed code: an oops.
PD=/sys/module/cxdvirt/parameters/node_put_delay_ms
PUT=6000
[ -w $PD ] || bail "no $PD"
nl_power_up cache_size=1M policy=fifo ||
	bail "power on $NL_DEV in node mode and online it (part 2)"
"$PROGS/nodelat" touch $NL_NODE 400 100 > /tmp/74.out &
W=$!
st=$(wait_stopped $W)
is "$st" T "part 2: the program wrote 400 pages and stopped"
echo $PUT > $PD
kill -CONT $W
# The rewrite's first hinting fault runs the delay in its task_work.
for _ in $(seq 100); do
	[ "$(cat $PD)" = 0 ] && break
	sleep 0.05
done
is "$(cat $PD)" 0 "part 2: an access took the delay after its module_put"
td=$(cut -d' ' -f1 /proc/uptime)
daxctl offline-memory "$DAX" > /dev/null 2>&1
ok $? "part 2: offline the memory"
is "$(dev_set $NL_DEV power 0)" OK "part 2: power 0"
DAX=
rmdir "$CFS/$NL_DEV"
ok $? "part 2: rmdir $NL_DEV"
klog_clear
t0=$(cut -d' ' -f1 /proc/uptime)
took=$(rmmod_retry)
[ -n "$took" ]
ok $? "part 2: rmmod"
te=$(cut -d' ' -f1 /proc/uptime)
# seconds from the delay's start to rmmod's start and to its return
in=$(awk -v a="$td" -v b="$t0" 'BEGIN { printf "%.2f", b - a }')
out=$(awk -v a="$td" -v b="$te" 'BEGIN { printf "%.2f", b - a }')
diag "part 2: rmmod ran from $in s to $out s into the task's $((PUT / 1000)) s delay"
if awk -v t="$in" -v p=$PUT 'BEGIN { exit !(t < p / 1000 - 1) }'; then
	pass "part 2: rmmod started while the task was still in the module ($in s)"
	# Freed module text may still run from a stale TLB entry (the
	# unmap's flush is lazy), so an oops is not certain: rmmod's wait is
	# what is checked.
	awk -v t="$out" -v p=$PUT 'BEGIN { exit !(t >= p / 1000 - 0.5) }'
	ok $? "part 2: rmmod returned only after the task left the module ($out s)"
else
	# Seen on the debug kernel: the memory offline there waits for the
	# busy task, so the window is gone before rmmod can start.
	skip "part 2: rmmod while the task is in the module" \
		"the offline waited for the task's delay ($in s of $((PUT / 1000)) s) on $(uname -r)"
fi
wait $W
is "$?" 0 "part 2: the program's pages read back right"
W=
bad=$(klog_grep 'BUG:\|Oops\|unable to handle\|general protection')
is "$bad" "" "part 2: no oops after the unload"
module_load
ok $? "insmod /cxdvirt.ko again (part 2)"
done_testing
