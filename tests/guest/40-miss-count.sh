#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# With the working set inside the cache, misses == distinct pages touched.
. /tests/lib.sh

D=cnt
trap 'dev_rm $D 2>/dev/null' EXIT

# No accessed-bit scan: where no TLB flush is exported (7.2) it re-arms the
# pages it finds accessed, and a pass during a slow process's run added
# minor hits (326 for 200 writes in one CI run on 7.2).
dev_create $D capacity=64M cache_size=4M scan_interval_ms=0 || bail "create $D"
dev_on $D || bail "power on $D"
N=$(dev_node $D)
stats_reset $D
is "$(stat_get $D misses)" 0 "misses 0 after reset"

# 200 distinct pages (every third page), three passes in one mapping.
"$PROGS/pages" "$N" read 0 200 -S 3 -p 3
ok $? "read 200 distinct pages, 3 passes"
is "$(stat_get $D misses)" 200 "misses == 200 distinct pages"
is "$(stat_get $D evictions)" 0 "no evictions"
is_num "$(cat "$(dev_sys $D)/cache_used")" $((200 * 4096)) "cache_used 200 pages"

# New processes touching the same pages: faults served by the cache.
"$PROGS/pages" "$N" write 0 200 -S 3 -w 4 -s 9
ok $? "another process writes the same 200 pages"
is "$(stat_get $D misses)" 200 "still 200 misses"
is "$(stat_get $D minor_hits)" 200 "200 minor hits"
"$PROGS/pages" "$N" verify 0 200 -S 3 -w 4 -s 9
ok $? "a third process reads them back"
is "$(stat_get $D misses)" 200 "still 200 misses"
is "$(stat_get $D minor_hits)" 400 "400 minor hits"

# A few more distinct pages, some already cached.
"$PROGS/pages" "$N" read 0 50
ok $? "read pages 0-49 (17 of them cached)"
is "$(stat_get $D misses)" 233 "misses grow by the 33 new pages"

stats_reset $D
for c in misses minor_hits evictions dirty_evictions writebacks miss_ns_total model_ns_total; do
	is "$(stat_get $D $c)" 0 "reset zeroes $c"
done
hist=$(cat "$(dev_sys $D)/stats/miss_latency_hist")
is "$hist" "" "reset empties miss_latency_hist"

dev_rm $D
ok $? "remove $D"
done_testing
