#!/bin/sh
. /tests/lib.sh
D=tmpn
echo never > /sys/kernel/mm/transparent_hugepage/enabled
dev_create $D mode=node phys_addr=0x100000000 capacity=512M target_node=2 cache_size=8M t_read_ns=3000 channels=8 dies_per_channel=16 scan_interval_ms=0
dev_set $D power 1
S=$(dev_sys $D)
DAX=$(cat $S/dax_device)
daxctl reconfigure-device --mode=system-ram $DAX > /dev/null 2>&1
st() { for f in misses evictions minor_hits; do printf "%s=%s " $f $(stat_get $D $f); done; for f in tracked_mms first_touches hint_faults evicted_ptes evictions_unmapped pending; do printf "%s=%s " $f $(cat $S/node_latency/$f); done; echo; }
diag "before: $(st)"
numactl --membind=2 cxdvirt-bench --target anon --pages 1024 --passes 3 --pattern chase --evict --evict-pages 4096 > /tmp/b.out 2>&1
diag "$(cat /tmp/b.out | head -30)"
diag "after: $(st)"
numactl --membind=2 cxdvirt-bench --target node:2 --pages 1024 --passes 3 --pattern chase --evict --evict-pages 4096 > /tmp/b.out 2>&1
diag "$(cat /tmp/b.out | head -30)"
diag "after2: $(st)"
daxctl offline-memory $DAX >/dev/null 2>&1
dev_rm $D
pass "done"
done_testing
