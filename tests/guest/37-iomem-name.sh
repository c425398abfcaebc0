#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A devdax device's reserved range is named cxdvirt:NAME in /proc/iomem,
# like node mode's.
. /tests/lib.sh

D=iomem
trap 'dev_rm $D 2>/dev/null' EXIT

dev_create $D capacity=16M phys_addr=0x100000000 || bail "create $D"
dev_on $D || bail "power on $D"
grep -q "cxdvirt:$D\$" /proc/iomem
ok $? "/proc/iomem names the devdax range cxdvirt:$D"
dev_rm $D
ok $? "remove $D"
grep -q "cxdvirt:$D\$" /proc/iomem
ok $(( ! $? )) "the name is gone after power off"
done_testing
