#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Reserved-range backing starts zeroed at every power-on: what one power
# cycle wrote does not reach the next one's users.
. /tests/lib.sh

D=pclr
trap 'dev_rm $D 2>/dev/null' EXIT

dev_create $D phys_addr=0x100000000 capacity=16M cache_size=1M t_read_ns=0 t_prog_ns=0 ||
	bail "create $D"
dev_on $D || bail "power on $D"
"$PROGS/pages" "$(dev_node $D)" write 0 4096 -s 9
ok $? "write every page of the first power cycle"
dev_off $D
ok $? "power off"
dev_on $D || bail "power on again"
run_sub zero "$PROGS/harden" zero "$(dev_node $D)" 0 4096
dev_rm $D
ok $? "remove $D"
done_testing
