#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Two devices with different parameters at once: own node, own index, own
# counters.
. /tests/lib.sh

trap 'dev_rm two_a 2>/dev/null; dev_rm two_b 2>/dev/null' EXIT

dev_create two_a capacity=32M cache_size=1M channels=4 dies_per_channel=2 t_read_ns=1000
ok $? "create two_a"
dev_create two_b capacity=64M cache_size=2M channels=16 nand_page_size=16K t_read_ns=2000 t_prog_ns=50000
ok $? "create two_b"
dev_on two_a
ok $? "power on two_a"
dev_on two_b
ok $? "power on two_b"

ia=$(dev_get two_a index)
ib=$(dev_get two_b index)
diag "two_a index $ia, two_b index $ib"
[ -n "$ia" ] && [ -n "$ib" ] && [ "$ia" != "$ib" ]
ok $? "distinct indexes"
A=$(dev_node two_a)
B=$(dev_node two_b)
is "$A" "/dev/cxdvirt$ia" "two_a node named by its index"
[ -c "$A" ] && [ -c "$B" ]
ok $? "both nodes exist"
is "$(cat "$(dev_sys two_a)/name")" two_a "sysfs of two_a names two_a"
is "$(cat "$(dev_sys two_b)/name")" two_b "sysfs of two_b names two_b"
is_num "$(cat "$(dev_sys two_a)/capacity")" 32M "two_a capacity"
is_num "$(cat "$(dev_sys two_b)/capacity")" 64M "two_b capacity"
is_num "$(cat "$(dev_sys two_a)/cache_size")" 1M "two_a cache_size"
is_num "$(cat "$(dev_sys two_b)/cache_size")" 2M "two_b cache_size"

stats_reset two_a
stats_reset two_b
"$PROGS/pages" "$A" write 0 40 -s 3 -w 8
ok $? "write 40 pages of two_a"
is "$(stat_get two_a misses)" 40 "two_a: 40 misses"
is "$(stat_get two_b misses)" 0 "two_b untouched"
"$PROGS/pages" "$B" read 100 25
ok $? "read 25 pages of two_b"
is "$(stat_get two_b misses)" 25 "two_b: 25 misses"
is "$(stat_get two_a misses)" 40 "two_a unchanged"
"$PROGS/pages" "$A" verify 0 40 -s 3 -w 8
ok $? "two_a data intact"

# Turning one off leaves the other working.
dev_off two_a
ok $? "power off two_a"
[ -c "$B" ]
ok $? "two_b node still there"
"$PROGS/pages" "$B" write 0 8 -s 4 && "$PROGS/pages" "$B" verify 0 8 -s 4
ok $? "two_b still works"
dev_rm two_a
ok $? "rmdir two_a"
dev_rm two_b
ok $? "power off and rmdir two_b"
done_testing
