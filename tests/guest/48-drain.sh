#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Background write-back drain (writeback=drain): once more than
# drain_high_pct of the lines are resident a worker evicts (writing back
# dirty lines) down to drain_low_pct, so misses find free lines instead of
# evicting on the miss path. Data survives; bad watermarks are refused.
. /tests/lib.sh

D=drn
LINES=100
trap 'dev_rm $D 2>/dev/null' EXIT

dev_create $D capacity=4M cache_size=$((LINES * 4))K t_read_ns=2000 t_prog_ns=20000 \
	writeback=drain || bail "create $D"
is "$(dev_get $D writeback)" drain "writeback reads back as drain"
is "$(dev_set $D drain_high_pct 80)" EINVAL "drain_high_pct not above drain_low_pct (85): EINVAL"
is "$(dev_set $D drain_low_pct 95)" EINVAL "drain_low_pct not below drain_high_pct (95): EINVAL"
is "$(dev_set $D writeback flush)" EINVAL "unknown writeback mode: EINVAL"
dev_on $D || bail "power on $D"
N=$(dev_node $D)

# Write 300 pages one at a time, pausing so the drain worker can run.
i=0
while [ $i -lt 300 ]; do
	"$PROGS/pages" "$N" write $i 20 -s 9 || fail "write pages $i.."
	sleep 0.05
	i=$((i + 20))
done
sleep 0.3
de=$(stat_get $D drain_evictions)
ev=$(stat_get $D evictions)
wb=$(stat_get $D writebacks)
used=$(( $(cat "$(dev_sys $D)/cache_used") / 4096 ))
cmp_ok "$de" -gt 0 "the drain evicted lines ($de of $ev evictions)"
cmp_ok "$wb" -ge "$de" "dirty drained lines were written back ($wb write-backs)"
cmp_ok $((ev - de)) -lt $((de)) "most evictions happened off the miss path ($((ev - de)) inline)"
cmp_ok "$used" -le 95 "occupancy at or below the high mark after the drain ($used lines)"
"$PROGS/pages" "$N" verify 0 300 -s 9
ok $? "all 300 pages read back after draining"

# Switch back at runtime: misses evict again, the drain stays idle.
dev_set $D writeback evict >/dev/null
stats_reset $D
"$PROGS/pages" "$N" read 300 200 || fail "read pages 300.."
sleep 0.2
is "$(stat_get $D drain_evictions)" 0 "writeback=evict: no drain"
dev_rm $D
ok $? "remove $D"
done_testing
