#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Data written through one process's mapping reads back through another's,
# before and after the page was evicted (cache of 16 pages).
. /tests/lib.sh

D=shr
trap 'dev_rm $D 2>/dev/null' EXIT

dev_create $D capacity=16M cache_size=64K t_read_ns=1000 t_prog_ns=2000 || bail "create $D"
dev_on $D || bail "power on $D"
N=$(dev_node $D)
stats_reset $D

"$PROGS/pages" "$N" write 0 8 -s 5
ok $? "process 1 writes pages 0-7"
"$PROGS/pages" "$N" verify 0 8 -s 5
ok $? "process 2 reads them back"
is "$(stat_get $D misses)" 8 "8 misses (process 2 hit the cache)"
is "$(stat_get $D minor_hits)" 8 "8 minor hits from process 2"
is_num "$(cat "$(dev_sys $D)/cache_used")" 32K "cache_used 8 pages"

"$PROGS/pages" "$N" read 100 64
ok $? "process 3 reads 64 other pages (4x the cache)"
ev=$(stat_get $D evictions)
cmp_ok "$ev" -ge 56 "evictions >= 56 ($ev)"
de=$(stat_get $D dirty_evictions)
cmp_ok "$de" -ge 8 "the 8 dirty pages were evicted ($de)"
wb=$(stat_get $D writebacks)
cmp_ok "$wb" -ge 1 "writebacks counted ($wb)"
is_num "$(cat "$(dev_sys $D)/cache_used")" 64K "cache_used equals cache_size when full"

m0=$(stat_get $D misses)
"$PROGS/pages" "$N" verify 0 8 -s 5
ok $? "process 4 reads the data written by process 1 after eviction"
m1=$(stat_get $D misses)
is "$((m1 - m0))" 8 "those reads missed (pages came back from NAND)"

# Concurrent mappings: eviction by one process unmaps the page in the other.
dev_rm $D
dev_create $D capacity=16M cache_size=64K t_read_ns=1000 t_prog_ns=2000 || bail "create $D again"
dev_on $D || bail "power on $D again"
run_sub xproc "$PROGS/xproc" "$(dev_node $D)" 8 200 64

dev_rm $D
ok $? "remove $D"
done_testing
