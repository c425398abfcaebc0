#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Second boot of tests/vm/acpi-guest.sh: the same machine booted with the
# cpio of 01-acpi-make.sh in front of the initramfs. The reserved range is
# now a node of its own: node 2 is possible and empty, a node-mode device
# onlines its memory there, and access0/initiators/read_latency shows the
# modeled read latency (passed on the command line as
# cxdvirt_expect_read_latency by the host).
. /tests/lib.sh

N=/sys/devices/system/node
D=acpinode
trap 'cxdvirt-dev offline $D > /dev/null 2>&1; dev_rm $D 2>/dev/null' EXIT
diag "NODES-AFTER possible=$(cat $N/possible) has_memory=$(cat $N/has_memory) online=$(cat $N/online)"
want=$(sed -n 's/.*cxdvirt_expect_read_latency=\([0-9]*\).*/\1/p' /proc/cmdline)
ok "$(dmesg | grep -qE 'Table Upgrade: (override|install) \[SRAT'; echo $?)" \
	"the kernel took the SRAT from the initrd"
ok "$(dmesg | grep -qE 'Table Upgrade: (override|install) \[HMAT'; echo $?)" \
	"and the HMAT"
dmesg | grep -i 'table upgrade\|found in initrd\|SRAT\|HMAT' | head -n 20 | sed 's/^/# /'
is "$(cat $N/possible)" "0-2" "node 2 is possible"
is "$(cat $N/has_memory)" "0-1" "node 2 has no memory"

cxdvirt-dev create $D --mode node --phys-addr 0x100000000 --capacity 512M \
	--target-node 2 --enable > /tmp/create.out 2>&1
ok $? "node-mode device on node 2: $(cat /tmp/create.out)"
cxdvirt-dev online $D > /tmp/online.out 2>&1
ok $? "online: $(cat /tmp/online.out)"
is "$(cat $N/has_memory)" "0-2" "node 2 has memory"
A=$N/node2/access0/initiators
ok "$([ -r $A/read_latency ]; echo $?)" "node2/access0/initiators/read_latency exists"
is "$(cat $A/read_latency 2>/dev/null)" "$want" "read_latency is the modeled $want ns"
diag "access0: $(for f in read_latency write_latency read_bandwidth write_bandwidth; do printf '%s=%s ' $f "$(cat $A/$f 2>/dev/null)"; done)"
ok "$([ -e $A/node0 ]; echo $?)" "node 0 (the CPUs) is node 2's best initiator"
cxdvirt-dev offline $D > /dev/null
ok $? "offline"
dev_rm $D
ok $? "remove $D"
trap - EXIT
done_testing
