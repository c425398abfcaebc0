#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# More faulting threads than cache lines (LIFO; one way per set): a line
# being filled is never evicted by another thread's miss, so every thread
# makes progress and sees its own data.
. /tests/lib.sh

D=infl
trap 'dev_rm $D 2>/dev/null' EXIT

run() {	# DESC ATTRS...
	local desc=$1 t0 t1 m
	shift
	dev_create $D capacity=2M t_read_ns=3000000 "$@" || bail "create $D ($desc)"
	dev_on $D || bail "power on $D"
	t0=$(date +%s)
	run_sub "$desc" timeout 60 "$PROGS/harden" inflight "$(dev_node $D)" 6 30
	t1=$(date +%s)
	m=$(stat_get $D misses)
	diag "$desc: $m misses in $((t1 - t0)) s"
	# at most one miss per access: a write and a read per round
	cmp_ok "$m" -le 360 "$desc: no access missed twice ($m misses, 6 x 30 x 2 accesses)"
	dev_rm $D
}

run "lifo, 2 lines" cache_size=8K policy=lifo
run "ways=1, 4 lines" cache_size=16K ways=1
run "random, 2 lines" cache_size=8K policy=random
done_testing
