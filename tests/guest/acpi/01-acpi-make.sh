#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# First boot of tests/vm/acpi-guest.sh, on a layout without an empty node
# (nodes 0-1, both with memory; memmap=1G$4G hides 1G of node 1): print the
# node lists, run cxdvirt-dev acpi-tables on this machine and send the cpio
# to the host as base64 diag lines ("# ACPI-CPIO ...").
. /tests/lib.sh

N=/sys/devices/system/node
diag "NODES-BEFORE possible=$(cat $N/possible) has_memory=$(cat $N/has_memory) online=$(cat $N/online)"
is "$(cat $N/possible)" "0-1" "no empty node: possible nodes 0-1"
ok "$([ -r /sys/firmware/acpi/tables/SRAT ]; echo $?)" "the firmware has an SRAT"
ok "$([ ! -e /sys/firmware/acpi/tables/HMAT ]; echo $?)" "and no HMAT"
cxdvirt-dev acpi-tables --out /tmp/acpi.cpio > /tmp/acpi.out 2>&1
ok $? "cxdvirt-dev acpi-tables"
sed 's/^/# /' /tmp/acpi.out
cxdvirt-dev acpi-tables --out /tmp/acpi2.cpio --json > /tmp/acpi.json
ok $? "cxdvirt-dev acpi-tables --json"
lat=$(sed -n 's/.*"read_latency_ns": *\([0-9]*\).*/\1/p' /tmp/acpi.json)
cmp_ok "$lat" -gt 0 "read latency $lat ns"
diag "ACPI-READ-LATENCY $lat"
is "$(cmp /tmp/acpi.cpio /tmp/acpi2.cpio; echo $?)" 0 "the same tables twice"
base64 /tmp/acpi.cpio | sed 's/^/# ACPI-CPIO /'
done_testing
