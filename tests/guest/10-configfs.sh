#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# configfs basics: defaults, number syntax, names, power creates and removes
# /dev/cxdvirtN (docs/interface.md, "configfs" and "Device node").
. /tests/lib.sh

D=cfg0
trap 'dev_rm $D 2>/dev/null' EXIT

[ -d "$CFS" ] || bail "$CFS missing: module did not register its configfs subsystem"
mkdir "$CFS/$D"
ok $? "mkdir $CFS/$D"

for a in capacity cache_size backing_node phys_addr channels dies_per_channel \
	nand_page_size t_read_ns t_prog_ns channel_mbps policy index power features; do
	[ -f "$CFS/$D/$a" ]
	ok $? "attribute $a exists"
done

is_num "$(dev_get $D capacity)" 64M "default capacity 64M"
is_num "$(dev_get $D cache_size)" 8M "default cache_size 8M"
is_num "$(dev_get $D backing_node)" -1 "default backing_node -1"
is_num "$(dev_get $D phys_addr)" 0 "default phys_addr 0"
is_num "$(dev_get $D channels)" 8 "default channels 8"
is_num "$(dev_get $D dies_per_channel)" 4 "default dies_per_channel 4"
is_num "$(dev_get $D nand_page_size)" 4K "default nand_page_size 4K"
is_num "$(dev_get $D t_read_ns)" 3000 "default t_read_ns 3000"
is_num "$(dev_get $D t_prog_ns)" 100000 "default t_prog_ns 100000"
is_num "$(dev_get $D channel_mbps)" 1200 "default channel_mbps 1200"
is "$(dev_get $D policy)" fifo "default policy fifo"
is "$(dev_get $D power)" 0 "default power 0"

# One name and one default per parameter (include/cxdvirt/params.h).
is "$(dev_get $D write_alloc)" fetch "default write_alloc fetch"
is "$(dev_get $D xfer_model)" exact "default xfer_model exact"
is "$(dev_get $D prefetch_distance)" 1 "default prefetch_distance 1"
is "$(dev_set $D write_alloc nofetch)" OK "write_alloc takes nofetch"
is "$(dev_get $D write_alloc)" nofetch "write_alloc reads back nofetch"
is "$(dev_set $D write_alloc 0)" OK "write_alloc still takes 0"
is "$(dev_get $D write_alloc)" fetch "... which reads back fetch"
# A preset sets the controller's limits too: cmmh sets them, the others
# clear them. Out-of-range limits are refused.
is "$(dev_set $D preset cmmh)" OK "preset cmmh"
cmp_ok "$(dev_get $D link_mbps)" -gt 0 "preset cmmh set link_mbps"
is "$(dev_set $D preset znand)" OK "preset znand"
is "$(dev_get $D mshr)/$(dev_get $D ctrl_ns)/$(dev_get $D link_mbps)" 0/0/0 \
	"preset znand cleared the controller's limits"
is "$(dev_set $D mshr 257)" EINVAL "mshr above 256 refused"
is "$(dev_set $D link_mbps 1000001)" EINVAL "link_mbps above 1000000 refused"
# A preset sets every NAND attribute, stripe and xfer_model included.
dev_set $D stripe die > /dev/null
dev_set $D xfer_model nvmevirt > /dev/null
is "$(dev_set $D preset femu)" OK "preset femu"
is "$(dev_get $D stripe)/$(dev_get $D xfer_model)/$(dev_get $D dies_per_channel)" \
	channel/exact/8 "preset femu set stripe, xfer_model and the geometry"
dev_set $D channels 8 > /dev/null
dev_set $D dies_per_channel 4 > /dev/null
dev_set $D t_read_ns 3000 > /dev/null

feat=$(dev_get $D features)
diag "features: $feat"
for a in capacity cache_size channels t_read_ns policy stripe writeback \
	drain_high_pct drain_low_pct xfer_model mshr ctrl_ns link_mbps; do
	case " $feat " in *" $a "*) pass "features lists $a" ;; *) fail "features lists $a" ;; esac
done

# Number syntax: suffixes, hex, a trailing newline as echo writes it.
is "$(dev_set $D capacity 32M)" OK "capacity accepts 32M"
is_num "$(dev_get $D capacity)" 33554432 "capacity reads back 32M"
is "$(dev_set $D cache_size 0x100000)" OK "cache_size accepts hex"
is_num "$(dev_get $D cache_size)" 1M "cache_size reads back 0x100000"
is "$(dev_set $D capacity 1G)" OK "capacity accepts 1G"
is_num "$(dev_get $D capacity)" 1G "capacity reads back 1G"
echo 16M > "$CFS/$D/capacity"
ok $? "echo 16M (with newline) > capacity"
is_num "$(dev_get $D capacity)" 16M "capacity reads back 16M"
is "$(dev_set $D cache_size 512K)" OK "cache_size accepts 512K"
is_num "$(dev_get $D cache_size)" 512K "cache_size reads back 512K"

# Names: up to 31 characters from [A-Za-z0-9_.-].
n31=abcdefghijklmnopqrstuvwxyz01234
is "$("$PROGS/sysop" mkdir "$CFS/$n31")" OK "31-character name accepted"
rmdir "$CFS/$n31" 2>/dev/null
r=$("$PROGS/sysop" mkdir "$CFS/${n31}5")
[ "$r" != OK ]
ok $? "32-character name refused ($r)"
[ "$r" = OK ] && rmdir "$CFS/${n31}5"
r=$("$PROGS/sysop" mkdir "$CFS/bad:name")
[ "$r" != OK ]
ok $? "name with ':' refused ($r)"
[ "$r" = OK ] && rmdir "$CFS/bad:name"
is "$("$PROGS/sysop" mkdir "$CFS/Ok_name.1-2")" OK "name with _ . - accepted"
rmdir "$CFS/Ok_name.1-2" 2>/dev/null

# power 1 creates the node, 0 removes it.
dev_on $D
ok $? "power 1"
is "$(dev_get $D power)" 1 "power reads 1"
node=$(dev_node $D)
[ -c "$node" ]
ok $? "$node is a character device"
is "$(stat -c '%a %u %g' "$node")" "600 0 0" "$node mode 0600 root:root"
sys=$(dev_sys $D)
is "$(cat "$sys/name")" "$D" "sysfs name is the configfs name"
is_num "$(cat "$sys/capacity")" 16M "sysfs capacity"
is_num "$(cat "$sys/cache_size")" 512K "sysfs cache_size"
is "$(cat "$sys/cache_used")" 0 "cache_used 0 after power on"
for c in misses minor_hits evictions dirty_evictions writebacks miss_ns_total model_ns_total; do
	is "$(cat "$sys/stats/$c")" 0 "stats/$c starts at 0"
done
[ -f "$sys/stats/miss_latency_hist" ]
ok $? "stats/miss_latency_hist exists"

dev_off $D
ok $? "power 0"
[ ! -e "$node" ]
ok $? "$node removed"
[ ! -e "$sys" ]
ok $? "$sys removed"
rmdir "$CFS/$D"
ok $? "rmdir"
done_testing
