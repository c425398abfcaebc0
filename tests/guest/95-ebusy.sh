#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# power 0, rmdir and module unload fail with EBUSY while the device is open
# or mapped; they work once it is not.
. /tests/lib.sh

D=busy
trap 'dev_rm $D 2>/dev/null' EXIT

dev_create $D cache_size=64K capacity=8M || bail "create $D"
dev_on $D || bail "power on $D"
run_sub busy "$PROGS/busy" "$(dev_node $D)" "$CFS/$D"
is "$(dev_get $D power)" 0 "device off"
rmdir "$CFS/$D"
ok $? "rmdir once powered off"

# Open by a shell redirection: the same rules.
dev_create $D capacity=8M || bail "create $D again"
dev_on $D || bail "power on $D again"
exec 7<> "$(dev_node $D)"
is "$(dev_set $D power 0)" EBUSY "power 0 while a shell holds it open"
is "$("$PROGS/sysop" rmdir "$CFS/$D")" EBUSY "rmdir while a shell holds it open"
exec 7>&-
is "$(dev_set $D power 0)" OK "power 0 after close"
is "$("$PROGS/sysop" rmdir "$CFS/$D")" OK "rmdir after power 0"
done_testing
