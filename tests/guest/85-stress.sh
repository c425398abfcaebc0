#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Content-checked stress on three devices at once: 2 processes x 2 threads
# doing writes, reads, mmap/munmap/partial munmap, mremap, mprotect, madvise
# and fork, while a control process switches policy and latencies and reads
# and resets stats; then the same on a full ftl=page device whose write-backs
# garbage-collect nearly every time, and on a device with a NAND image.
# STRESS_SECONDS and STRESS_SEED override the defaults (the kernel command
# line's cxdvirt.stress_seconds / cxdvirt.stress_seed).
. /tests/lib.sh

SECS=${STRESS_SECONDS:-$(sed -n 's/.*cxdvirt\.stress_seconds=\([0-9]*\).*/\1/p' /proc/cmdline)}
SECS=${SECS:-12}
SEED=${STRESS_SEED:-$(sed -n 's/.*cxdvirt\.stress_seed=\([0-9]*\).*/\1/p' /proc/cmdline)}
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
trap 'for n in st0 st1 st2 st3 st4; do dev_rm $n 2>/dev/null; done; umount /tmp/stimg 2>/dev/null' EXIT

dev_create st0 capacity=8M cache_size=256K t_read_ns=2000 t_prog_ns=5000 || bail "create st0"
dev_create st1 capacity=4M cache_size=64K t_read_ns=5000 channels=2 dies_per_channel=2 || bail "create st1"
dev_create st2 capacity=6M cache_size=1M t_read_ns=1000 nand_page_size=16K || bail "create st2"
for n in st0 st1 st2; do
	dev_on $n || bail "power on $n"
done
diag "stress seed $SEED for $SECS s"
run_sub stress "$PROGS/stress" "$SEED" "$SECS" 2 2 \
	"$(dev_node st0):st0" "$(dev_node st1):st1" "$(dev_node st2):st2"
for n in st0 st1 st2; do
	dev_rm $n
	ok $? "teardown of $n after the stress"
done

# FTL phase: a full device (ftl_fill) with small blocks and little spare
# (1 channel x 2 dies, 512 logical pages per plane, 4 pages per block, 7%
# over-provisioning: 137 blocks, 9 of them spare) behind a 16-line cache,
# so nearly every write-back garbage-collects while the workers write and
# verify at random and the control process switches policy and timing.
dev_create st3 capacity=4M cache_size=64K channels=1 dies_per_channel=2 \
	pages_per_block=4 op_pct=7 ftl=page ftl_fill=1 t_read_ns=1000 \
	t_prog_ns=2000 t_bers_ns=5000 || bail "create st3"
dev_on st3 || bail "power on st3"
FSECS=$(( SECS / 2 > 4 ? SECS / 2 : 4 ))
diag "FTL stress seed $SEED for $FSECS s"
OUT=/tmp/stress-ftl.out
# run_sub in this shell (its numbering carries on), its lines kept to read
run_sub "stress with ftl=page" "$PROGS/stress" "$SEED" "$FSECS" 2 2 \
	"$(dev_node st3):st3" > $OUT
cat $OUT
before=$(sed -n 's/^# control: st3 gc_runs before resets \([0-9][0-9]*\)$/\1/p' $OUT)
[ -n "$before" ]
ok $? "the control process reported GC before its resets (${before:-none})"
gc=$(( ${before:-0} + $(stat_get st3 gc_runs) ))
cmp_ok "$gc" -gt 100 "GC ran throughout the FTL stress ($gc blocks or more)"
hw=$(stat_get st3 ftl_host_writes)
is "$(stat_get st3 ftl_nand_writes)" "$((hw + $(stat_get st3 gc_pages_moved)))" \
	"NAND writes = host writes + GC copies since the last reset"
dev_rm st3
ok $? "teardown of st3 after the FTL stress"

# NAND image phase: a 16-line cache in front of an image on tmpfs, so that
# misses read the image and dirty evictions write it. A page evicted dirty,
# brought back by a miss and evicted clean before the first eviction wrote
# it must keep its data (image.c, cxd_img_evict()); a longer run finds
# that more often: make stress.
mkdir -p /tmp/stimg && mount -t tmpfs -o size=64M stimg /tmp/stimg ||
	bail "tmpfs for the image"
dev_create st4 capacity=4M cache_size=64K t_read_ns=5000 channels=2 \
	dies_per_channel=2 nand_backing=/tmp/stimg/st4 || bail "create st4"
dev_on st4 || bail "power on st4"
diag "NAND image stress seed $SEED for $FSECS s"
run_sub "stress with a NAND image" "$PROGS/stress" "$SEED" "$FSECS" 2 2 \
	"$(dev_node st4):st4"
cmp_ok "$(stat_get st4 io_writes)" -gt 0 "dirty lines were written to the image"
is "$(stat_get st4 io_errors)" 0 "no image I/O failed"
dev_rm st4
ok $? "teardown of st4 after the image stress"
done_testing
