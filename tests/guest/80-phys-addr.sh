#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Backing from the range reserved at boot with memmap=1G$4G
# (0x100000000..0x13fffffff; tests/vm/lib.sh): power on, write, evict,
# verify. Then a range the firmware itself reserved is refused in both
# modes.
. /tests/lib.sh

D=phys
trap 'dev_rm $D 2>/dev/null; dev_rm phys2 2>/dev/null; dev_rm fwres 2>/dev/null' EXIT

diag "iomem before: $(grep -i '^ *100000000' /proc/iomem)"

dev_create $D phys_addr=0x100000000 capacity=64M cache_size=1M t_read_ns=0 t_prog_ns=0 ||
	bail "create $D"
dev_on $D
ok $? "power on with phys_addr=0x100000000 capacity=64M"
is_num "$(dev_get $D phys_addr)" 0x100000000 "phys_addr reads back"
diag "iomem powered: $(grep -iA1 '^ *100000000' /proc/iomem)"
N=$(dev_node $D)
stats_reset $D

# 64 bytes of pattern in each page of the first half, every 32nd page of
# the second half filled whole.
"$PROGS/pages" "$N" write 0 8192 -w 8 -s 7
ok $? "write pages 0-8191 (64 bytes each)"
"$PROGS/pages" "$N" write 8192 256 -S 32 -s 8
ok $? "fill 256 whole pages in 8192-16383"
ev=$(stat_get $D evictions)
cmp_ok "$ev" -ge 8000 "pages were evicted ($ev)"
de=$(stat_get $D dirty_evictions)
cmp_ok "$de" -ge 8000 "dirty pages were evicted ($de)"
"$PROGS/pages" "$N" verify 0 8192 -w 8 -s 7
ok $? "verify pages 0-8191 after eviction"
"$PROGS/pages" "$N" verify 8192 256 -S 32 -s 8
ok $? "verify the whole pages after eviction"

# The range is in use: a second device cannot have it.
dev_create phys2 phys_addr=0x100000000 capacity=64M
r=$(dev_set phys2 power 1)
is "$r" EINVAL "a second device on the same range fails power on"
is "$(dev_get phys2 power)" 0 "second device stays off"
# Overlapping from inside, and past the end of the reservation.
r=$(dev_set phys2 phys_addr 0x102000000)
if [ "$r" = OK ]; then
	is "$(dev_set phys2 power 1)" EINVAL "overlapping range fails power on"
else
	is "$r" EINVAL "overlapping phys_addr refused when written"
fi
dev_rm phys2

dev_rm $D
ok $? "remove $D"

# The range is free again; 512M fits, and the reservation ends at 1G:
# 1026M does not.
dev_create phys2 phys_addr=0x100000000 capacity=512M cache_size=1M t_read_ns=0 || bail "create phys2"
dev_on phys2
ok $? "the whole 512M reservation after the first device released it"
"$PROGS/pages" "$(dev_node phys2)" write 131000 72 -s 3 && "$PROGS/pages" "$(dev_node phys2)" verify 131000 72 -s 3
ok $? "last pages of the reservation work"
dev_off phys2
r=$(dev_set phys2 capacity 1026M)
if [ "$r" = OK ]; then
	is "$(dev_set phys2 power 1)" EINVAL "range past the reservation fails power on"
else
	is "$r" EINVAL "range past the reservation refused"
fi
dev_rm phys2
ok $? "remove phys2"

# A range the firmware reserved, not memmap=: QEMU's e820 reserves
# 0xfd00000000-0xffffffffff (no RAM behind it). /proc/iomem shows it as
# Reserved and not busy, like a memmap= range, so only the firmware's own
# memory map tells them apart. Power on must fail with EINVAL and one log
# line, and change nothing: power stays 0, no /dev node, no dax device,
# /proc/iomem as before.
FW=0xfd00000000
grep -qi '^ *fd00000000-ffffffffff : Reserved$' /proc/iomem
ok $? "the firmware's Reserved range at $FW is in /proc/iomem"
diag "firmware memmap: $(for e in /sys/firmware/memmap/*; do
	printf '%s-%s %s; ' "$(cat "$e/start")" "$(cat "$e/end")" "$(cat "$e/type")"
done)"

# fw_refused MODE ATTR=VALUE...: a device in MODE on the firmware range
fw_refused() {
	local mode=$1 r lines iomem ndax
	shift
	dev_create fwres mode="$mode" phys_addr=$FW "$@" || bail "create fwres ($mode)"
	iomem=$(cat /proc/iomem)
	ndax=$(ls /sys/bus/dax/devices 2>/dev/null | wc -l)
	klog_clear
	r=$(dev_set fwres power 1)
	lines=$(dmesg | grep -c "cxdvirt: fwres:")
	dmesg | grep "cxdvirt: fwres:" | sed 's/^/# /'
	is "$r" EINVAL "$mode: power on at the firmware's Reserved range fails"
	is "$(dev_get fwres power)" 0 "$mode: power stays 0"
	is "$lines" 1 "$mode: one log line"
	dmesg | grep "cxdvirt: fwres:" | grep -q "not RAM in the firmware's memory map"
	ok $? "$mode: the log line says the firmware did not call it RAM"
	[ "$(cat /proc/iomem)" = "$iomem" ]
	ok $? "$mode: /proc/iomem unchanged"
	[ ! -e "$(dev_node fwres)" ]
	ok $? "$mode: no $(dev_node fwres)"
	is "$(ls /sys/bus/dax/devices 2>/dev/null | wc -l)" "$ndax" "$mode: no new dax device"
	is_num "$(dev_get fwres phys_addr)" $FW "$mode: phys_addr kept"
	[ "$r" = EINVAL ]
}

if fw_refused devdax capacity=2M cache_size=1M; then
	dev_rm fwres
	fw_refused node capacity=128M target_node=2
else
	# Node mode would hand memory that does not exist to the allocator.
	fail "node mode on the firmware range not tried: devdax accepted it"
fi
dev_rm fwres
ok $? "remove fwres"
done_testing
