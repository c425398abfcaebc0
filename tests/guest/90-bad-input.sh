#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Bad configuration: EINVAL, value unchanged, one kernel log line naming the
# device (and the attribute, for a store).
. /tests/lib.sh

D=badin
trap 'dev_rm $D 2>/dev/null' EXIT

dev_create $D || bail "create $D"

# bad ATTR VALUE WHY [ERR]: the store must fail with ERR (default EINVAL)
# and change nothing.
bad() {
	local attr=$1 val=$2 why=$3 err=${4:-EINVAL} old r new lines
	old=$(dev_get $D "$attr")
	klog_clear
	r=$(dev_set $D "$attr" "$val")
	new=$(dev_get $D "$attr")
	lines=$(dmesg | grep -c -- "$D")
	is "$r" "$err" "$attr='$val' ($why): $err"
	is "$new" "$old" "$attr='$val': value unchanged"
	is "$lines" 1 "$attr='$val': one log line naming the device"
	dmesg | grep -qE -- "$D.*$attr|$attr.*$D"
	ok $? "$attr='$val': the log line names the attribute"
	dmesg | grep -- "$D" | sed 's/^/#   /'
}

# good ATTR VALUE: accepted.
good() {
	is "$(dev_set $D "$1" "$2")" OK "$1='$2' accepted"
}

# bad_power WHY: power 1 must fail with EINVAL, stay off, log one line.
bad_power() {
	local r lines
	klog_clear
	r=$(dev_set $D power 1)
	lines=$(dmesg | grep -c -- "$D")
	is "$r" EINVAL "power 1 with $1: EINVAL"
	is "$(dev_get $D power)" 0 "power 1 with $1: still off"
	[ ! -d /sys/class/cxdvirt/cxdvirt"$(dev_get $D index)" ]
	ok $? "power 1 with $1: no device"
	is "$lines" 1 "power 1 with $1: one log line naming the device"
	dmesg | grep -- "$D" | sed 's/^/#   /'
	[ "$r" = OK ] && dev_off $D
}

bad channels abc "not a number"
bad channels 12abc "trailing garbage"
bad channels " " "blank"
bad channels -1 "negative"
bad channels 0 "below range"
bad channels 1000 "above range"
bad channels 65 "above range"
good channels 64
good channels 1
bad dies_per_channel 0 "below range"
bad dies_per_channel 65 "above range"
dmesg | grep -q -- "dies_per_channel: 65 rejected: out of range \[1, 64\]"
ok $? "the log line gives the table's bounds"
bad mshr 257 "above range"
bad link_mbps 1000001 "above range"
bad ctrl_ns 100000001 "above range"
bad capacity 3M "not a multiple of 2M"
bad capacity 1M "below 2M"
bad capacity 17T "above 16T"
bad capacity 16386G "above 16T (the model numbers pages with 32 bits)"
bad capacity 12Q "bad suffix"
good capacity 16T
good capacity 16383G
is "$(dev_set $D cache_size 64M)" OK "cache_size 64M"
is "$(dev_set $D capacity 64G)" OK "capacity 64G"
bad_power "RAM backing of 64G on this 4G guest (a NAND image is the way)"
dmesg | grep -q "RAM backing needs .* use a NAND image"
ok $? "the log line points to nand_backing"
good capacity 64M
bad cache_size 2K "below 4K"
bad cache_size 5000 "not a multiple of 4K"
bad nand_page_size 2K "below 4K"
bad nand_page_size 12K "not a power of two"
bad nand_page_size 128K "above 64K"
good nand_page_size 16K
bad t_read_ns 100000001 "above 100 ms"
bad t_prog_ns 100000001 "above 100 ms"
good t_read_ns 100000000
good t_read_ns 3000
bad channel_mbps 0 "below 1"
bad channel_mbps 100001 "above 100000"
bad policy mru "unknown policy"
bad policy fifo2 "unknown policy"
good policy fifo
good policy lru
bad phys_addr 0x100001000 "not 2M aligned"
bad backing_node -2 "below -1"

# cache_size > capacity: refused at power on (or, at the latest, there).
good cache_size 16M
r=$(dev_set $D capacity 8M)
if [ "$r" = OK ]; then
	bad_power "cache_size 16M > capacity 8M"
else
	is "$r" EINVAL "capacity below cache_size refused when written"
	diag "capacity store checks cache_size"
fi
good cache_size 4M
good capacity 64M

# phys_addr naming System RAM (256M): refused at power on.
r=$(dev_set $D phys_addr 0x10000000)
if [ "$r" = OK ]; then
	bad_power "phys_addr 0x10000000 (System RAM)"
else
	is "$r" EINVAL "phys_addr in System RAM refused when written"
fi
good phys_addr 0

# backing_node 2 exists but has no memory (hidden by memmap=).
r=$(dev_set $D backing_node 2)
if [ "$r" = OK ]; then
	bad_power "backing_node 2 (no memory)"
else
	is "$r" EINVAL "backing_node 2 (no memory) refused when written"
fi
good backing_node -1
good backing_node 1

# power and stats/reset take the flags' rule (0, 1, off, on), not
# kstrtobool's (which took yes, 1abc, and 0x1 as off).
bad power yes "not 0, 1, off or on"
bad power 1abc "trailing garbage"

# Structural attributes refuse changes while powered (EBUSY, as null_blk
# does); live ones accept.
dev_on $D || bail "power on $D"
bad power 0x1 "0x1 is not off"
if echo yes > "$(dev_sys $D)/stats/reset" 2>/dev/null; then
	fail "stats/reset refuses yes"
else
	pass "stats/reset refuses yes"
fi
bad channels 4 "while powered" EBUSY
bad capacity 32M "while powered" EBUSY
bad cache_size 1M "while powered" EBUSY
bad nand_page_size 8K "while powered" EBUSY
bad phys_addr 0x100000000 "while powered" EBUSY
bad backing_node 0 "while powered" EBUSY
good t_read_ns 5000
good t_prog_ns 5000
good channel_mbps 2400
good policy fifo
good policy lru
bad policy lfu "unknown policy, powered"
bad t_read_ns 100000001 "above 100 ms, powered"
"$PROGS/pages" "$(dev_node $D)" write 0 4 -w 4 && "$PROGS/pages" "$(dev_node $D)" verify 0 4 -w 4
ok $? "device works after the refused changes"

dev_rm $D
ok $? "remove $D"
done_testing
