#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The load-time self-test of the page-table walk the accessed-bit scan uses
# passes on the lane's kernels (all have "mm: fix
# apply_to_existing_page_range()"); a kernel without it would get scan_walk_ok
# N, a log line, and no scanning.
. /tests/lib.sh

is "$(cat /sys/module/cxdvirt/parameters/scan_walk_ok)" Y "page-table walk self-test passed"
dmesg | grep -q "page-table walk stops at the first empty PTE"
ok $(( ! $? )) "no broken-walk warning at load"
done_testing
