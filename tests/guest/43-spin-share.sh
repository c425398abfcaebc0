#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A miss's busy-wait leaves the other CPU its speed. The wait measures time
# with local_clock(), not by reading the clocksource in a loop: under TCG the
# guest's clocksource is usually the HPET, and a tight loop of HPET reads
# serialised both vCPUs on QEMU's MMIO emulation.
. /tests/lib.sh

D=spin
trap 'dev_rm $D 2>/dev/null' EXIT

# tR 500 us, below spin_max_ns (1 ms): every miss spins. The reader walks
# 512 pages through a 64-page cache, so every access misses.
dev_create $D capacity=4M cache_size=256K channels=1 dies_per_channel=1 \
	t_read_ns=500000 || bail "create $D"
dev_on $D || bail "power on $D"
diag "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
m0=$(stat_get $D misses)
run_sub share "$PROGS/spinshare" "$(dev_node $D)" 512 8 0.7
m1=$(stat_get $D misses)
cmp_ok $((m1 - m0)) -ge 100 "the reader's accesses missed ($((m1 - m0)) misses)"
done_testing
