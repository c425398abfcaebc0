#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node mode with node_latency=on, data integrity: checksummed data survives
# eviction, fork, migration off the node and back, munmap and policy
# switches while the background drain writes dirty lines back; stress-ng
# --verify, redis-server and memkind's MEMKIND_DAX_KMEM run bound to the
# node and their accesses reach the model; offline with tracked pages and
# power-off are clean. (Split from 65-node-latency, which kept the miss and
# latency checks, so that each fits its time budget.)
. /tests/lib.sh

REDIS=
nl_begin "node-mode integrity"
trap '[ -n "$REDIS" ] && kill "$REDIS" 2>/dev/null; nl_end' EXIT

nl_power_up cache_size=2M t_read_ns=5000 policy=fifo ||
	bail "power on $NL_DEV in node mode and online it"
pass "power on, online as node $NL_NODE ($DAX)"

# 3. Integrity under eviction, fork, migration and munmap; a policy switch
#    while it runs.
section "verify under eviction, fork, moves, policy switches, drain"
dev_set $NL_DEV writeback drain > /dev/null
stats_reset $NL_DEV
"$PROGS/nodelat" verify $NL_NODE 768 6 12345 > /tmp/verify.out 2>&1 &
VP=$!
for pol in lru clock s3fifo random fifo; do
	sleep 1
	r=$(dev_set $NL_DEV policy $pol)
	[ "$r" = OK ] || diag "policy $pol: $r"
done
wait $VP
vrc=$?
sed 's/^ok/# ok/; s/^not ok/# NOT OK/' /tmp/verify.out
is "$vrc" 0 "checksummed data survives eviction, fork, moves, munmap and policy switches"
diag "node_latency: $(for f in tracked_mms hint_faults late_writebacks evictions_unmapped thp_untracked_pages events_dropped; do printf '%s=%s ' $f "$(cat "$S/node_latency/$f")"; done)"
is "$(cat "$S/node_latency/events_dropped")" 0 "no access was dropped"
cmp_ok "$(stat_get $NL_DEV drain_evictions)" -gt 0 \
	"the background drain evicted node pages ($(stat_get $NL_DEV drain_evictions))"
cmp_ok "$(stat_get $NL_DEV writebacks)" -gt 0 "dirty victims were written back ($(stat_get $NL_DEV writebacks))"
dev_set $NL_DEV writeback evict > /dev/null

# stress-ng, redis and memkind are workloads over the paths checked above,
# not new paths. They run on every kernel, the debug kernel too: the crawl
# that once made them skip it was the verify round's code pages, which
# migrate_pages(2) moved on and off the device (docs/testing.md, "The
# guest").
section stress-ng
if command -v stress-ng > /dev/null; then
	m0=$(stat_get $NL_DEV misses)
	numactl --membind=$NL_NODE stress-ng --vm 2 --vm-bytes 6M --verify \
		--timeout 5s > /tmp/stress-ng.out 2>&1
	ok $? "numactl --membind=$NL_NODE stress-ng --vm --verify"
	grep -E "fail|error" /tmp/stress-ng.out | head -n 5 | sed 's/^/# /'
	cmp_ok "$(stat_get $NL_DEV misses)" -gt "$m0" "stress-ng's accesses miss on the device"
else
	skip "stress-ng --verify on the node" "stress-ng not in the guest"
fi

# 4. redis-server bound to the node under redis-benchmark.
section redis
if command -v redis-server > /dev/null && command -v redis-benchmark > /dev/null; then
	m0=$(stat_get $NL_DEV misses)
	redis_up $NL_NODE /tmp/redis-nl ||
		tail -n 5 /tmp/redis-nl/redis.log | sed 's/^/# /'
	redis-benchmark -s $SOCK -n 2000 -q -t set,get > /tmp/rb.out 2>&1
	ok $? "redis-benchmark against redis-server bound to node $NL_NODE"
	sed 's/^/# /' /tmp/rb.out | tr '\r' '\n' | grep -v '^# *$' | tail -n 2
	cmp_ok "$(stat_get $NL_DEV misses)" -gt "$m0" "redis-server's accesses miss on the device"
	kill $REDIS
	wait $REDIS 2>/dev/null
	REDIS=
else
	skip "redis on the node" "redis not in the guest"
fi

# memkind's MEMKIND_DAX_KMEM kind finds the node, its data is intact, and
# its pages reach the model. (dax-kmem's own placement check asks move_pages(2),
# which reports a page the model evicted as not present: docs/numa-mode.md;
# placement is 64-node-progs' and 66-node-tool's, with node_latency off.)
section memkind
if [ -x "$PROGS/dax-kmem" ]; then
	m0=$(stat_get $NL_DEV misses)
	f0=$(cat "$S/node_latency/first_touches")
	"$PROGS/dax-kmem" $NL_NODE 2 > /tmp/dax-kmem.out 2>&1
	sed 's/^/# /' /tmp/dax-kmem.out | head -n 6
	grep -q "^ok .*written and read back (0 bad words)" /tmp/dax-kmem.out
	ok $? "memkind MEMKIND_DAX_KMEM: 2 MiB written and read back intact"
	# Each page written is a first touch the model sees. Whether it
	# misses depends on the cache: a page freed by an earlier program can
	# come back with its line still cached, and then it hits, as on the
	# device. So the check counts first touches, not misses.
	ft=$(($(cat "$S/node_latency/first_touches") - f0))
	diag "memkind: $ft first touches, misses +$(($(stat_get $NL_DEV misses) - m0))"
	cmp_ok "$ft" -ge 512 "memkind's 2 MiB reach the model (first touches of 512 pages)"
else
	skip "memkind on the node" "dax-kmem not built (libmemkind-dev)"
fi

# 5. Offline with tracked pages, power-off: clean, nothing pending.
section "offline and power off"
nl_power_down
ok $? "offline (pages migrate off) and power off"

klog_grep "cxdvirt" | grep -i "warn\|error" | head -n 5 | sed 's/^/# /'
nl_end
done_testing
