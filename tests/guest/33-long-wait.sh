#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Long miss waits (one die, tR 100 ms, a queue of misses) neither hold the
# process's mmap_lock nor ignore SIGKILL.
. /tests/lib.sh

D=lwait
trap 'dev_rm $D 2>/dev/null' EXIT

dev_create $D capacity=4M cache_size=1M channels=1 dies_per_channel=1 \
	t_read_ns=100000000 || bail "create $D"
dev_on $D || bail "power on $D"
N=$(dev_node $D)
run_sub lockwait "$PROGS/harden" lockwait "$N" 100000000 4
# the cache is now warm: another power cycle starts cold
dev_off $D && dev_on $D || bail "power cycle $D"
run_sub kill "$PROGS/harden" kill "$(dev_node $D)" 100000000 8
m=$(stat_get $D misses)
cmp_ok "$m" -ge 1 "the killed threads' misses were counted ($m)"
dev_rm $D
ok $? "remove $D (no fault left in flight)"
done_testing
