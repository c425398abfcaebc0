#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# A read-only file maps MAP_SHARED with PROT_READ (the kernel clears
# VM_SHARED and keeps VM_MAYSHARE for it), as devdax allows; writing
# through it stays impossible.
. /tests/lib.sh

D=rdo
trap 'dev_rm $D 2>/dev/null' EXIT

dev_create $D capacity=4M cache_size=64K t_read_ns=1000 || bail "create $D"
dev_on $D || bail "power on $D"
run_sub rdonly "$PROGS/harden" rdonly "$(dev_node $D)"
dev_rm $D
ok $? "remove $D"
done_testing
