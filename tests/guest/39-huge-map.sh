#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A mapping far larger than the device (64 GiB of a 4 MiB device) is
# accepted, and the accessed-bit scan walks only the part that maps device
# pages: it does not allocate page tables for the whole mapping (7.x walks
# with apply_to_page_range(), which allocates whatever range it is given).
. /tests/lib.sh

D=huge
trap 'dev_rm $D 2>/dev/null' EXIT

dev_create $D capacity=4M cache_size=1M scan_interval_ms=20 || bail "create $D"
dev_on $D || bail "power on $D"
run_sub bigmap "$PROGS/harden" bigmap "$(dev_node $D)" 64 500
p=$(stat_get $D scan_passes)
cmp_ok "$p" -ge 1 "the scan ran meanwhile ($p passes)"
dev_rm $D
ok $? "remove $D"
done_testing
