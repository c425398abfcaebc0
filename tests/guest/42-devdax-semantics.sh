#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# devdax semantics (progs/daxsem.c): the same checks on /dev/cxdvirtN with
# runtime-page backing, with a reserved range (phys_addr), and on the
# kernel's own device-dax (/dev/daxX.Y, made by a node-mode device) as the
# reference. A check listed in DIFF must still differ. Then, with each
# backing: O_DIRECT while the pages under I/O are evicted (with a NAND
# image too), and a page pinned in a pipe across power-off.
. /tests/lib.sh

D=dsem
LOOPIMG=/tmp/daxsem.img
BASE=0x100000000
# Checks that differ from device-dax, with both backings
# (docs/interface.md): after 6.1 (6.12 and 7.2 seen), mm grows a
# VM_MIXEDMAP mapping in place only through a VMA merge, which it refuses
# for such mappings (ENOMEM).
DIFF=
case $(uname -r) in
6.1.*) ;;
*) DIFF=mremap-grow,mremap-grow-past-end ;;
esac

cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -f $LOOPIMG /tmp/pin.ready /tmp/pin.go
	dev_rm $D 2>/dev/null
	dev_rm ${D}_phys 2>/dev/null
	dev_rm ${D}_ref 2>/dev/null
}
trap cleanup EXIT

# A block device for O_DIRECT: a loop device over a tmpfs file (the loop
# driver exists in every kernel of the lanes, brd not in the debug one).
LOOP=
modprobe loop 2>/dev/null
dd if=/dev/zero of=$LOOPIMG bs=1M count=8 2>/dev/null
LOOP=$(losetup -f 2>/dev/null)
if [ -n "$LOOP" ] && losetup "$LOOP" $LOOPIMG; then
	pass "loop device $LOOP for O_DIRECT"
	BLK="-b $LOOP"
else
	skip "loop device" "no loop device: O_DIRECT checks skipped"
	LOOP=
	BLK=
fi

# 1. Runtime pages. A cache of 1M for 16M: the checks themselves evict.
dev_create $D capacity=16M cache_size=1M t_read_ns=2000 || bail "create $D"
dev_on $D || bail "power on $D"
klog_clear
run_sub "runtime pages" "$PROGS/daxsem" check -s 16777216 $BLK \
	${DIFF:+-d $DIFF} "$(dev_node $D)"
diag "runtime: misses $(stat_get $D misses) evictions $(stat_get $D evictions) pinned_evictions $(stat_get $D pinned_evictions)"
dev_rm $D
ok $? "remove $D"

# 2. The reserved range.
P=${D}_phys
dev_create $P phys_addr=$BASE capacity=16M cache_size=1M t_read_ns=2000 ||
	bail "create $P"
dev_on $P || bail "power on $P"
run_sub "reserved range" "$PROGS/daxsem" check -s 16777216 $BLK \
	${DIFF:+-d $DIFF} "$(dev_node $P)"
diag "reserved range: misses $(stat_get $P misses) evictions $(stat_get $P evictions) pinned_evictions $(stat_get $P pinned_evictions)"
dev_rm $P
ok $? "remove $P"

# 3. The reference: the kernel's device-dax on the same range.
R=${D}_ref
dev_create $R mode=node phys_addr=$BASE capacity=128M target_node=2 \
	node_latency=off || bail "create $R"
if [ "$(dev_set $R power 1)" = OK ]; then
	DAX=$(cat "$(dev_sys $R)/dax_device")
	DS=/sys/bus/dax/devices/$DAX
	diag "reference /dev/$DAX: size $(cat $DS/size) align $(cat $DS/align 2>/dev/null)"
	[ -c /dev/$DAX ] || mknod /dev/$DAX c $(tr ':' ' ' < $DS/dev)
	# From 6.3 dax_hmem hands the range to kmem (its memory stays
	# offline here, see guest-init.sh): make it a devdax device again.
	drv=$(basename "$(readlink $DS/driver 2>/dev/null)")
	if [ "$drv" != device_dax ]; then
		daxctl reconfigure-device --mode=devdax --force "$DAX" > /dev/null 2>&1
		ok $? "daxctl reconfigure-device --mode=devdax $DAX (was bound to $drv)"
	fi
	run_sub "device-dax reference" "$PROGS/daxsem" check -R \
		-a "$(cat $DS/align 2>/dev/null || echo 2097152)" \
		-s "$(cat $DS/size)" $BLK /dev/$DAX
else
	fail "power on the node-mode reference device"
fi
dev_rm $R
ok $? "remove $R"

# 4. O_DIRECT while the pages under I/O are evicted: 16 cache lines, the
# I/O uses 32 pages, another process touches 4M. With each backing.
inflight() { # NAME [phys_addr=...]
	dev_create $D capacity=16M cache_size=64K t_read_ns=2000 $2 ||
		bail "create $D ($1)"
	dev_on $D || bail "power on $D ($1)"
	run_sub "inflight, $1" "$PROGS/daxsem" inflight "$(dev_node $D)" "$LOOP" 5 4194304
	m=$(stat_get $D misses)
	e=$(stat_get $D evictions)
	u=$(cat "$(dev_sys $D)/cache_used")
	pe=$(stat_get $D pinned_evictions)
	diag "inflight, $1: misses $m evictions $e cache_used $u pinned_evictions $pe"
	cmp_ok "$e" -gt 100 "$1: pages were evicted meanwhile ($e)"
	cmp_ok "$pe" -gt 0 "$1: some were evicted while under I/O (pinned_evictions $pe)"
	cmp_ok "$u" -le 65536 "$1: cache_used within cache_size ($u)"
	cmp_ok "$m" -ge "$e" "$1: misses ($m) >= evictions ($e)"
	dev_rm $D
	ok $? "$1: remove $D"
}
if [ -n "$LOOP" ]; then
	inflight "runtime pages"
	inflight "reserved range" phys_addr=$BASE
	# A NAND image: an evicted line's host page goes to the next miss
	# unless the I/O still holds it (image.c, cxd_img_spare_put()).
	mkdir -p /tmp/dsem-img && mount -t tmpfs -o size=64M dsemimg /tmp/dsem-img &&
		inflight "NAND image" nand_backing=/tmp/dsem-img/img
	umount /tmp/dsem-img 2>/dev/null
else
	skip "inflight" "no loop device"
fi

# 5. A page pinned in a pipe outlives the mapping, the file and power-off.
# Runtime pages: the page goes back to the kernel with its last user. A
# reserved range stays claimed until the pipe lets go, then is released
# (polled every second); this one goes through rmdir of the powered device.
pinhold() { # NAME [phys_addr=...]
	dev_create $D capacity=4M cache_size=64K t_read_ns=2000 $2 ||
		bail "create $D ($1)"
	dev_on $D || bail "power on $D ($1)"
	rm -f /tmp/pin.ready /tmp/pin.go
	"$PROGS/daxsem" pinhold "$(dev_node $D)" /tmp/pin.ready /tmp/pin.go > /tmp/pin.out 2>&1 &
	PIN=$!
	i=0
	while [ ! -e /tmp/pin.ready ] && kill -0 $PIN 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.1; i=$((i + 1))
	done
	if [ ! -e /tmp/pin.ready ]; then
		fail "$1: pinhold never got ready"
	elif [ -z "$2" ]; then
		is "$(dev_set $D power 0)" OK "$1: power off with a page still pinned"
		dev_on $D
		ok $? "$1: power on again while the old page is pinned"
	else
		klog_clear
		rmdir "$CFS/$D"
		ok $? "$1: rmdir of the powered device with a page still pinned"
		klog_grep 'device page 2 of the reserved range is still held by the kernel' > /dev/null
		ok $? "$1: the kernel log names the held page"
		grep -q "cxdvirt:$D\$" /proc/iomem
		ok $? "$1: the range stays claimed in /proc/iomem"
		dev_create $D capacity=4M cache_size=64K t_read_ns=2000 $2 ||
			bail "create $D again ($1)"
		is "$(dev_set $D power 1)" EINVAL "$1: power on refused while the range is held"
	fi
	touch /tmp/pin.go
	wait $PIN
	rc=$?
	while IFS= read -r line; do diag "pinhold: $line"; done < /tmp/pin.out
	ok $rc "$1: pinhold: the pipe still had the page's data"
	rm -f /tmp/pin.out
	if [ -n "$2" ]; then
		# The range is polled every second once the pipe is gone.
		i=0
		while grep -q "cxdvirt:$D\$" /proc/iomem && [ $i -lt 100 ]; do
			sleep 0.1; i=$((i + 1))
		done
		klog_grep 'range released' > /dev/null
		ok $? "$1: released once the pipe let go ($((i * 100)) ms)"
		dev_on $D
		ok $? "$1: power on again on the released range"
	fi
	dev_rm $D
	ok $? "$1: remove $D"
}
pinhold "runtime pages"
pinhold "reserved range" phys_addr=$BASE
done_testing
