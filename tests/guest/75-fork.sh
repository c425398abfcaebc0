#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fork with the device mapped: the child reads and writes, the parent sees
# the child's writes; pages are evicted along the way (96 pages, cache 32).
. /tests/lib.sh

D=frk
trap 'dev_rm $D 2>/dev/null' EXIT

dev_create $D capacity=16M cache_size=128K t_read_ns=1000 t_prog_ns=1000 || bail "create $D"
dev_on $D || bail "power on $D"
stats_reset $D
run_sub forkt "$PROGS/forkt" "$(dev_node $D)" 96
ev=$(stat_get $D evictions)
cmp_ok "$ev" -gt 0 "pages were evicted during the test ($ev)"
dev_rm $D
ok $? "remove $D (no mapping left behind by the child)"
done_testing
