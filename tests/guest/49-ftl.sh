#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ftl=page in the module: power-on refuses a geometry that cannot hold the
# capacity plus over-provisioning (EINVAL, one log line); a full device under
# random reads and writes garbage-collects, and misses wait behind GC
# (docs/model.md, "FTL and garbage collection").
. /tests/lib.sh

D=ftl
trap 'dev_rm $D 2>/dev/null' EXIT
TR=/tmp/ftl.trace
"$PROGS/replay" gen 5 4000 4096 50 > "$TR"
ok $? "generate 4000 accesses over 4096 pages, half writes"

# 4096 pages on 1 channel x 2 dies: 2048 logical pages per plane.
dev_create $D capacity=16M cache_size=1M channels=1 dies_per_channel=2 \
	scan_interval_ms=0 ftl=page || bail "create $D"
is "$(dev_get $D ftl)" page "ftl reads back"
klog_clear
is "$(dev_set $D power 1)" EINVAL "no pages_per_block: power 1 refused"
klog_grep "ftl: ftl=page needs pages_per_block" > /dev/null
ok $? "... with the reason in the log"

# 16 pages per block, 1%: ceil(ceil(2048 * 1.01) / 16) = 130 blocks, 32
# spare pages = 2 blocks < gc_high + 1 = 4.
dev_set $D pages_per_block 16 > /dev/null
dev_set $D op_pct 1 > /dev/null
klog_clear
is "$(dev_set $D power 1)" EINVAL "op_pct 1: too few spare blocks, refused"
klog_grep "too few spare blocks per plane" > /dev/null
ok $? "... with the reason in the log"
is "$(dev_set $D op_pct 101)" EINVAL "op_pct 101 rejected"
is "$(dev_set $D gc_low 0)" EINVAL "gc_low 0 rejected"

# 10%: 141 blocks, 208 spare pages = 13 blocks. Start full (ftl_fill).
is "$(dev_set $D op_pct 10)" OK "op_pct 10"
dev_set $D ftl_fill 1 > /dev/null
dev_on $D || bail "power on $D (ftl=page)"
is "$(dev_set $D ftl off)" EBUSY "ftl cannot change while powered"
stats_reset $D
"$PROGS/replay" run "$(dev_node $D)" "$TR" > /dev/null
ok $? "replay on the full device"
hw=$(stat_get $D ftl_host_writes)
nw=$(stat_get $D ftl_nand_writes)
gc=$(stat_get $D gc_runs)
is "$hw" "$(stat_get $D writebacks)" "every write-back is an FTL host write"
cmp_ok "$gc" -gt 0 "garbage collection ran ($gc blocks)"
is "$(stat_get $D erases)" "$gc" "one erase per reclaimed block"
is "$nw" "$((hw + $(stat_get $D gc_pages_moved)))" \
	"NAND writes = host writes + GC copies ($nw / $hw)"
st=$(stat_get $D gc_stalls)
cmp_ok "$st" -gt 0 "misses waited behind GC ($st)"
cmp_ok "$(stat_get $D gc_stall_ns)" -gt 0 "... for a measured time"
with=$(stat_get $D model_ns_total)
dev_off $D

# The same replay without an FTL (erases in place): less modelled miss time.
dev_set $D ftl off > /dev/null
dev_on $D || bail "power on $D (ftl=off)"
stats_reset $D
"$PROGS/replay" run "$(dev_node $D)" "$TR" > /dev/null
ok $? "replay without an FTL"
is "$(stat_get $D gc_runs)" 0 "no GC without an FTL"
without=$(stat_get $D model_ns_total)
cmp_ok "$with" -gt "$without" "modelled miss time: $with ns with GC > $without ns without"
dev_rm $D
ok $? "remove $D"
done_testing
