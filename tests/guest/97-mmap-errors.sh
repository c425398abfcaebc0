#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# MAP_PRIVATE fails with EINVAL, read/write fail with EINVAL, access beyond
# capacity raises SIGBUS, MADV_DONTNEED keeps the data.
. /tests/lib.sh

D=merr
trap 'dev_rm $D 2>/dev/null' EXIT

dev_create $D cache_size=64K capacity=4M || bail "create $D"
dev_on $D || bail "power on $D"
run_sub maperr "$PROGS/maperr" "$(dev_node $D)" $((4 * 1024 * 1024))
dev_rm $D
ok $? "remove $D"
done_testing
