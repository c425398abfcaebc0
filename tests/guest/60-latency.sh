#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Miss latency follows the model; hits are far below it.
# Slow setting, one thread, consecutive pages on distinct dies, no
# contention: each miss costs tR + ceil(nand_page_size * 1000 / channel_mbps).
# TCG distorts time: only ratios and generous bounds.
. /tests/lib.sh

D=lat
trap 'dev_rm $D 2>/dev/null' EXIT

TR=200000
NPS=4096
MBPS=1200
dev_create $D capacity=64M cache_size=8M channels=8 dies_per_channel=4 \
	nand_page_size=$NPS channel_mbps=$MBPS t_read_ns=$TR || bail "create $D"
dev_on $D || bail "power on $D"
XFER=$(( (NPS * 1000 + MBPS - 1) / MBPS ))
MODEL=$((TR + XFER))
diag "model: tR $TR + xfer $XFER = $MODEL ns"

# The debug kernel (make check-debug: KASAN, lockdep; cxdvirt_debug=1 on the
# guest command line) adds its own cost to every fault: only the lower bound
# stays tight there.
HI=1.3
[ "${cxdvirt_debug:-0}" = 1 ] && HI=4.0
run_sub lat "$PROGS/lat" "$(dev_node $D)" 64 $MODEL 1.0 $HI 10

# t_read_ns may change while powered; new misses follow it.
is "$(dev_set $D t_read_ns 400000)" OK "t_read_ns changes while powered"
stats_reset $D
"$PROGS/pages" "$(dev_node $D)" read 1000 16
ok $? "read 16 new pages"
mt=$(stat_get $D model_ns_total)
want=$((16 * (400000 + XFER)))
cmp_ok $((mt * 100)) -ge $((want * 99)) "model_ns_total $mt >= 99% of 16 x new model"
cmp_ok $((mt * 100)) -le $((want * 101)) "model_ns_total $mt <= 101% of 16 x new model"

dev_rm $D
ok $? "remove $D"
done_testing
