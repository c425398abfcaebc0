#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Content-checked stress on three devices at once: 2 processes x 2 threads
# doing writes, reads, mmap/munmap/partial munmap, mremap, mprotect, madvise
# and fork, while a control process switches policy and latencies and reads
# and resets stats. STRESS_SECONDS and STRESS_SEED override the defaults
# (the kernel command line's cxdvirt.stress_seconds / cxdvirt.stress_seed).
. /tests/lib.sh

SECS=${STRESS_SECONDS:-$(sed -n 's/.*cxdvirt\.stress_seconds=\([0-9]*\).*/\1/p' /proc/cmdline)}
SECS=${SECS:-12}
SEED=${STRESS_SEED:-$(sed -n 's/.*cxdvirt\.stress_seed=\([0-9]*\).*/\1/p' /proc/cmdline)}
SEED=${SEED:-$(( $(date +%s) % 100000 ))}
trap 'for n in st0 st1 st2; do dev_rm $n 2>/dev/null; done' EXIT

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
done_testing
