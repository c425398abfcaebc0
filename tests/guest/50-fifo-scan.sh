#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# FIFO and a cyclic scan: with W > C pages every access of the second pass
# misses (misses == 2W over two passes from empty); with W <= C only the
# first pass does.
. /tests/lib.sh

D=fifo
trap 'dev_rm $D 2>/dev/null' EXIT

C=64	# cache pages
scan() {	# scan W: fresh device, two passes over W pages
	dev_rm $D 2>/dev/null
	dev_create $D capacity=16M cache_size=$((C * 4096)) policy=fifo t_read_ns=1000 ||
		{ diag "create $D"; return 1; }
	dev_on $D || return 1
	is "$(cat "$(dev_sys $D)/cache_used")" 0 "W=$1: cache empty after power on"
	stats_reset $D
	"$PROGS/pages" "$(dev_node $D)" read 0 "$1" -p 2
}

W=96
scan $W
ok $? "W=$W: two passes"
is "$(stat_get $D misses)" $((2 * W)) "W=$W > C=$C: misses == 2W"
is "$(stat_get $D evictions)" $((2 * W - C)) "W=$W: evictions == 2W - C"
is "$(stat_get $D minor_hits)" 0 "W=$W: no minor hits"

W=$((C + 1))
scan $W
ok $? "W=$W: two passes"
is "$(stat_get $D misses)" $((2 * W)) "W=C+1: misses == 2W"

W=$C
scan $W
ok $? "W=$W: two passes"
is "$(stat_get $D misses)" $W "W=C: only the first pass misses"
is "$(stat_get $D evictions)" 0 "W=C: no evictions"

dev_rm $D
ok $? "remove $D"
done_testing
