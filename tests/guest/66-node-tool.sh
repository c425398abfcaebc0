#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node mode through cxdvirt-dev: create and enable a node-mode device, the
# auto-online policy check, `online` (libdaxctl: kmem, ZONE_MOVABLE), the
# node in numactl -H, daxctl list and `list --json` agreeing on the dax
# device and node, a memkind MEMKIND_DAX_KMEM program whose pages land on
# the node, `offline`, power off and destroy. Set-up as in 61-node-one.sh.
. /tests/lib.sh

D=node_tool
NODE=2
BASE=0x100000000
AOB=/sys/devices/system/memory/auto_online_blocks
AOB0=$(cat $AOB)

# jget KEY FILE: the first "KEY": value of pretty JSON (strings unquoted).
jget() {
	sed -n 's/^ *"'"$1"'": *"\{0,1\}\([^",]*\)"\{0,1\},\{0,1\}$/\1/p' "$2" | head -n 1
}

cleanup() {
	echo "$AOB0" > $AOB 2>/dev/null
	cxdvirt-dev offline $D > /dev/null 2>&1
	cxdvirt-dev destroy $D > /dev/null 2>&1
}
trap cleanup EXIT

command -v cxdvirt-dev > /dev/null || bail "cxdvirt-dev is not in the guest (make tools)"

dev=$(cxdvirt-dev create $D --mode node --phys-addr $BASE --capacity 512M \
	--target-node $NODE --enable node_latency=off 2> /tmp/create.err)
ok $? "cxdvirt-dev create $D --mode node --phys-addr $BASE --capacity 512M --target-node $NODE --enable node_latency=off"
sed 's/^/# /' /tmp/create.err
S=$(dev_sys $D)
DAX=$(cat "$S/dax_device")
is "$dev" "$DAX" "create --enable prints the dax device ($DAX)"
is "$(dev_get $D mode)" node "configfs mode node"
is "$(cat "$S/online")" offline "memory offline after power-on"

# The policy check: 'online' would make it kernel memory.
echo online > $AOB
cxdvirt-dev online $D > /tmp/online.out 2> /tmp/online.err
is "$?" 1 "online refused while auto_online_blocks is 'online'"
sed 's/^/# /' /tmp/online.err
grep -q "auto_online_blocks is 'online'.*--fix-auto-online" /tmp/online.err
ok $? "the refusal names the policy and --fix-auto-online"
is "$(cat "$S/online")" offline "nothing was onlined"

cxdvirt-dev online $D --fix-auto-online > /tmp/online.out 2> /tmp/online.err
ok $? "cxdvirt-dev online $D --fix-auto-online"
sed 's/^/# /' /tmp/online.out /tmp/online.err
is "$(cat $AOB)" offline "auto_online_blocks set to offline"
is "$(cat /tmp/online.out)" "$DAX online: 512 MiB on node $NODE" "online prints the dax device, size and node"
is "$(cat "$S/online")" online "sysfs online"
is_num "$(cat "$S/movable_bytes")" 512M "all 512M in ZONE_MOVABLE"
numactl -H | grep "^node $NODE size" | sed 's/^/# /'
numactl -H | grep -q "^node $NODE size: 512 MB"
ok $? "numactl -H: node $NODE size 512 MB"
cxdvirt-dev online $D > /tmp/online.out 2>&1
ok $? "online again is a no-op"

# daxctl and cxdvirt-dev agree.
daxctl list -d "$DAX" > /tmp/daxctl.json 2>&1
ok $? "daxctl list -d $DAX"
cxdvirt-dev list --json $D > /tmp/dev.json 2>&1
ok $? "cxdvirt-dev list --json $D"
is "$(jget chardev /tmp/daxctl.json)" "$(jget dax_device /tmp/dev.json)" "same dax device ($DAX)"
is "$(jget target_node /tmp/daxctl.json)" "$(jget target_node /tmp/dev.json)" "same target node"
is "$(jget target_node /tmp/dev.json)" $NODE "target node $NODE"
is "$(jget mode /tmp/daxctl.json)" system-ram "daxctl: mode system-ram"
is "$(jget online /tmp/dev.json)" online "list --json: online"
grep -q '"dev":' /tmp/dev.json
[ $? != 0 ]
ok $? "list --json: no /dev/cxdvirtN in node mode"

# memkind: MEMKIND_DAX_KMEM allocates from the node kmem onlined.
if [ -x "$PROGS/dax-kmem" ]; then
	run_sub "dax-kmem $NODE 64" "$PROGS/dax-kmem" $NODE 64
else
	skip "memkind MEMKIND_DAX_KMEM" "dax-kmem not built (libmemkind-dev)"
fi

# Power-off is refused while online, with the way out in the message.
cxdvirt-dev disable $D > /dev/null 2> /tmp/disable.err
is "$?" 1 "disable refused while the memory is online"
sed 's/^/# /' /tmp/disable.err
grep -q "Device or resource busy: the memory of $DAX is online (cxdvirt-dev offline $D first)" /tmp/disable.err
ok $? "... with a clear message"

cxdvirt-dev offline $D > /tmp/offline.out 2> /tmp/offline.err
ok $? "cxdvirt-dev offline $D"
sed 's/^/# /' /tmp/offline.out /tmp/offline.err
is "$(cat "$S/online")" offline "sysfs online: offline"
is "$(cat /tmp/offline.out)" "$DAX offline on node $NODE" "offline prints the state"
cxdvirt-dev offline $D > /dev/null 2>&1
ok $? "offline again is a no-op"
cxdvirt-dev destroy $D
ok $? "cxdvirt-dev destroy $D"
[ ! -d "$CFS/$D" ] && [ ! -e "/sys/bus/dax/devices/$DAX" ]
ok $? "device and $DAX gone"
klog_grep "cannot be hotremoved" | sed 's/^/# /'
[ -z "$(klog_grep 'cannot be hotremoved')" ]
ok $? "no hot-remove failure"
echo "$AOB0" > $AOB
trap - EXIT
done_testing
