#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# NAND image (nand_backing): a devdax device whose contents live in a sparse
# file, with host memory holding only the cache. A 64 GiB device (16x this
# guest's 4 GiB) with a 4 MiB cache keeps a sparse set of pages written over
# its whole capacity through evictions, a power cycle and a module reload;
# dirty lines reach the image through write-backs; host memory stays near
# the cache; bad settings are refused with one log line and change nothing.
. /tests/lib.sh

D=nimg
MNT=/tmp/nand
IMG=$MNT/$D.img
CAP=64G
NPG=$((64 * 262144))
# A sparse set over the whole device: 3000 pages, one every 5591 (a prime)
FIRST=7
COUNT=3000
STRIDE=5591
cleanup() {
	dev_rm nimg2 2>/dev/null
	dev_rm $D 2>/dev/null
	umount $MNT 2>/dev/null
}
trap cleanup EXIT

mkdir -p $MNT && mount -t tmpfs -o size=256M nand $MNT || bail "tmpfs for the image"

section "bad settings"
dev_create $D || bail "create $D"
# bad ATTR VALUE WHY [ERR]: refused, nothing changed, one log line.
bad() {
	local attr=$1 val=$2 why=$3 err=${4:-EINVAL} old r
	old=$(dev_get $D "$attr")
	klog_clear
	r=$(dev_set $D "$attr" "$val")
	is "$r" "$err" "$attr='$val' ($why): $err"
	is "$(dev_get $D "$attr")" "$old" "$attr='$val': unchanged"
	is "$(dmesg | grep -c -- "$D: $attr")" 1 "$attr='$val': one log line"
	dmesg | grep -- "$D" | sed 's/^/#   /'
}
# bad_power WHY: power 1 fails with ERR, stays off, one log line.
bad_power() {
	local err=${2:-EINVAL} r
	klog_clear
	r=$(dev_set $D power 1)
	is "$r" "$err" "power 1 with $1: $err"
	is "$(dev_get $D power)" 0 "power 1 with $1: still off"
	is "$(dmesg | grep -c -- "$D: power")" 1 "power 1 with $1: one log line"
	dmesg | grep -- "$D" | sed 's/^/#   /'
	[ "$r" = OK ] && dev_off $D
}
is "$(dev_get $D nand_backing)" ram "nand_backing defaults to ram"
bad nand_backing relative.img "not an absolute path"
is "$(dev_set $D phys_addr 0x100000000)" OK "phys_addr set"
bad nand_backing $IMG "phys_addr is the backing"
is "$(dev_set $D phys_addr 0)" OK "phys_addr cleared"
is "$(dev_set $D mode node)" OK "mode node"
bad nand_backing $IMG "node mode"
is "$(dev_set $D mode devdax)" OK "mode devdax"
is "$(dev_set $D capacity 64M)" OK "capacity 64M"
is "$(dev_set $D nand_backing $IMG)" OK "nand_backing set to a new file"
bad phys_addr 0x100000000 "with an image"
bad mode node "with an image"
dev_set $D nand_backing $MNT >/dev/null
bad_power "a folder as the image" EISDIR
dev_set $D nand_backing $MNT/nofolder/x.img >/dev/null
bad_power "a missing folder" ENOENT
is "$(dev_set $D nand_backing /dev/cxdvirt-no-such-disk)" OK "nand_backing: a missing path under /dev"
bad_power "a missing path under /dev (not created)" ENOENT
ok "$([ ! -e /dev/cxdvirt-no-such-disk ]; echo $?)" "nothing was created under /dev"
head -c 12288 /dev/zero > $MNT/junk.img
dev_set $D nand_backing $MNT/junk.img >/dev/null
bad_power "a file that is not an image"
dev_set $D nand_backing $IMG >/dev/null
dev_on $D || bail "power on with a new image"
is "$(stat -c %s $IMG)" $((64 * 1048576 + 4096)) "a new image: capacity plus a 4 KiB header"
bad nand_backing $MNT/other.img "while powered" EBUSY
dev_off $D
is "$(dev_set $D capacity 128M)" OK "capacity 128M"
bad_power "an image of another capacity"
dev_set $D nand_backing $MNT/huge.img >/dev/null
is "$(dev_set $D capacity 16T)" OK "capacity 16T, the bound"
bad_power "a 16T device: its model's state (16.5 GiB) exceeds this guest's memory" ENOMEM
dmesg | grep -q "power: the model's state needs [0-9]* bytes (about 4 per device page and 32 per cache line), more than the host's memory"
ok $? "the log line gives the state's size and the host's memory"
ok "$([ ! -e $MNT/huge.img ]; echo $?)" "no image was created"
dev_rm $D
rm -f $IMG $MNT/junk.img

section "a $CAP device, 16x this guest's memory, on a 4 MiB cache"
memfree() { awk '/^MemAvailable:/ { print $2 }' /proc/meminfo; }
before=$(memfree)
dev_create $D capacity=$CAP cache_size=4M nand_backing=$IMG policy=fifo \
	t_read_ns=1000 t_prog_ns=2000 || bail "create $D"
dev_on $D || bail "power on $D"
after=$(memfree)
N=$(dev_node $D)
used=$(((before - after) / 1024))
diag "host memory taken at power-on: $used MiB (MemAvailable)"
cmp_ok $used -le 160 "power-on takes at most 160 MiB for $CAP (model state ~4 bytes per device page)"
"$PROGS/pages" "$N" write $FIRST $COUNT -S $STRIDE -s 41
ok $? "write $COUNT pages spread over $CAP"
"$PROGS/pages" "$N" verify $FIRST $COUNT -S $STRIDE -s 41
ok $? "every page reads back"
cmp_ok "$(stat_get $D dirty_evictions)" -ge 1000 "dirty lines were evicted"
is "$(stat_get $D io_writes)" "$(stat_get $D writebacks)" "every write-back wrote the image"
cmp_ok "$(stat_get $D io_reads)" -ge "$(stat_get $D misses)" "every miss read the image"
is "$(stat_get $D io_errors)" 0 "no image I/O failed"
diag "misses $(stat_get $D misses) io_reads $(stat_get $D io_reads) io_overruns $(stat_get $D io_overruns) io_over_ns $(stat_get $D io_over_ns)"
img_kb=$(du -k $IMG | cut -f1)
cmp_ok $img_kb -le $((COUNT * 4 + 4096 + 64)) "the image stays sparse ($img_kb KiB on the tmpfs)"

dev_off $D || bail "power off"
dev_on $D || bail "power on again"
is "$(stat_get $D misses)" 0 "the model starts cold"
"$PROGS/pages" "$(dev_node $D)" verify $FIRST $COUNT -S $STRIDE -s 41
ok $? "verify after a power cycle"
"$PROGS/pages" "$(dev_node $D)" write $((FIRST + 1)) 200 -S $((STRIDE * 7)) -s 43
ok $? "write a second set, left dirty in the cache"
dev_off $D || bail "power off"
dev_rm $D

rmmod cxdvirt
ok $? "rmmod"
module_load
ok $? "insmod"
dev_create $D capacity=$CAP cache_size=4M nand_backing=$IMG policy=fifo \
	t_read_ns=1000 t_prog_ns=2000 || bail "create $D after the reload"
dev_on $D || bail "power on after the reload"
"$PROGS/pages" "$(dev_node $D)" verify $FIRST $COUNT -S $STRIDE -s 41
ok $? "verify after a module reload"
"$PROGS/pages" "$(dev_node $D)" verify $((FIRST + 1)) 200 -S $((STRIDE * 7)) -s 43
ok $? "the lines dirty at power-off were written back"
run_sub "pages never written read back as zeros" "$PROGS/harden" zero "$(dev_node $D)" $((FIRST + 2)) 16
dev_rm $D
ok $? "remove $D"
rm -f $IMG

section "pages pinned at eviction"
# A pipe holds 8 device pages (vmsplice) while a scan evicts them: their
# host pages stay the device pages' beyond the cache; once the pipe is
# read, the next evictions let them go, written back (image.c,
# cxd_img_reap()), and they read back from the image intact.
dev_create $D capacity=64M cache_size=256K nand_backing=$IMG || bail "create $D"
dev_on $D || bail "power on $D"
run_sub "pinned at eviction, then let go" "$PROGS/daxsem" pinreap "$(dev_node $D)" 8 $((2 * 1048576))
dev_off $D
dev_rm $D
rm -f $IMG

section "power-off by a task killed meanwhile"
# power 0 writes every dirty line back in the task that wrote it. A fatal
# signal stops a file's write path (-EINTR): such writes are redone by a
# kernel worker (image.c, cxd_img_rw()), so a killed writer loses nothing.
# Before, killed 0.05 s in, 15155 of these 16384 lines were lost.
dev_create $D capacity=64M cache_size=64M nand_backing=$IMG || bail "create $D"
dev_on $D || bail "power on $D"
"$PROGS/pages" "$(dev_node $D)" write 0 16384 -s 47
ok $? "16384 dirty lines written"
# A kill that lands before the write leaves the device on: wait longer.
for d in 0.05 0.1 0.2 0.4 0.8; do
	"$PROGS/sysop" write "$CFS/$D/power" 0 > /dev/null 2>&1 &
	w=$!
	sleep $d
	kill -9 $w 2>/dev/null
	wait $w
	rc=$?
	[ "$(dev_get $D power)" = 0 ] && break
	diag "killed $d s in, before its write: still powered"
done
diag "the writer of power 0, killed $d s in, ended with status $rc (137: killed during the power-off; 0: it had ended)"
is "$(dev_get $D power)" 0 "the power-off ended"
dev_on $D || bail "power on $D again"
"$PROGS/pages" "$(dev_node $D)" verify 0 16384 -s 47
ok $? "every line reached the image"
is "$(stat_get $D dirty_shutdowns)" 0 "no dirty shutdown counted"
dev_off $D
dev_rm $D
rm -f $IMG

section "power failure and msync"
dev_create $D capacity=64M cache_size=4M nand_backing=$IMG || bail "create $D"
# bad_fail WHY ERR: power_fail (write-only) refused with ERR, one log line.
bad_fail() {
	local p r
	p=$(dev_get $D power)
	klog_clear
	r=$(dev_set $D power_fail 1)
	is "$r" "$2" "power_fail 1 $1: $2"
	is "$(dev_get $D power)" "$p" "power_fail 1 $1: power unchanged"
	is "$(dmesg | grep -c -- "$D: power")" 1 "power_fail 1 $1: one log line"
	dmesg | grep -- "$D" | sed 's/^/#   /'
}
bad_fail "while powered off" EINVAL
is "$(dev_set $D nand_backing ram)" OK "nand_backing back to ram"
dev_on $D || bail "power on with ram"
run_sub "msync on ram" "$PROGS/crashrec" "$(dev_node $D)" msync-einval
bad_fail "without a NAND image" EINVAL
dev_off $D
is "$(dev_set $D nand_backing $IMG)" OK "nand_backing set"
dev_on $D || bail "power on with an image"
is "$(stat_get $D dirty_shutdowns)" 0 "a new image has no dirty shutdown"
# 2000 records of 256 bytes (125 lines, all in the cache): the first 1200
# followed by msync, the rest left dirty in the cache.
"$PROGS/crashrec" "$(dev_node $D)" append 2000 1200
ok $? "append 2000 records, msync after each of the first 1200"
cmp_ok "$(stat_get $D writebacks)" -ge 75 "msync wrote lines back (stats/writebacks)"
is "$(stat_get $D io_writes)" "$(stat_get $D writebacks)" "each write-back wrote the image"
exec 3<>"$(dev_node $D)"
bad_fail "while the device is open" EBUSY
exec 3>&-
klog_clear
is "$(dev_set $D power_fail 1)" OK "power_fail"
is "$(dev_get $D power)" 0 "the device is off after power_fail"
dmesg | grep -q "power failure: .* dirty lines lost"
ok $? "the kernel log tells how many dirty lines were lost"
dev_on $D || bail "power on after the failure"
is "$(stat_get $D dirty_shutdowns)" 1 "stats/dirty_shutdowns: 1"
cmp_ok "$(stat_get $D lines_lost)" -ge 40 "stats/lines_lost: the lines of the records not msync'd"
out=$("$PROGS/crashrec" "$(dev_node $D)" check 2000 1200)
ok $? "every msync'd record is intact; every later one whole or absent"
echo "$out"
absent=$(echo "$out" | sed -n 's/^# whole [0-9]* absent //p')
cmp_ok "${absent:-0}" -ge 700 "the records not msync'd were lost (line granularity)"
"$PROGS/crashrec" "$(dev_node $D)" append 500 0
ok $? "append 500 records without msync"
dev_off $D && dev_on $D
ok $? "an orderly power cycle"
"$PROGS/crashrec" "$(dev_node $D)" check 500 500
ok $? "an orderly power-off writes every dirty line back"
is "$(stat_get $D dirty_shutdowns)" 1 "an orderly power-off is no dirty shutdown"
dev_off $D

# GPF: with a budget large enough every dirty line is flushed at the failure;
# with none, every one is lost.
is "$(dev_set $D persistence gpf)" OK "persistence gpf"
is "$(dev_set $D gpf_budget_ns 10000000000)" OK "gpf_budget_ns 10 s"
dev_on $D || bail "power on (gpf)"
"$PROGS/crashrec" "$(dev_node $D)" append 2000 0
ok $? "gpf: append 2000 records without msync"
is "$(dev_set $D power_fail 1)" OK "gpf: power_fail"
dev_on $D || bail "power on after the gpf failure"
is "$(stat_get $D dirty_shutdowns)" 1 "gpf within budget: no dirty shutdown"
is "$(stat_get $D lines_lost)" 0 "gpf within budget: stats/lines_lost is the last failure's, 0"
"$PROGS/crashrec" "$(dev_node $D)" check 2000 2000
ok $? "gpf within budget: every record is intact"
is "$(dev_set $D gpf_budget_ns 0)" OK "gpf_budget_ns 0 (live)"
"$PROGS/crashrec" "$(dev_node $D)" append 1000 0 >/dev/null
is "$(dev_set $D power_fail 1)" OK "gpf without energy: power_fail"
dev_on $D || bail "power on after the second gpf failure"
is "$(stat_get $D dirty_shutdowns)" 2 "gpf without energy: a dirty shutdown"
cmp_ok "$(stat_get $D lines_lost)" -ge 60 "gpf without energy: the dirty lines were lost"
# fsync of the whole device: the driver walks its resident set (more device
# pages than the set has buckets), not the range page by page.
wb0=$(stat_get $D writebacks)
"$PROGS/crashrec" "$(dev_node $D)" fsync 4000 3000
ok $? "append 4000 records, one fsync of the device after the first 3000"
cmp_ok "$(( $(stat_get $D writebacks) - wb0 ))" -ge 188 "fsync wrote every dirty line back (stats/writebacks)"
is "$(dev_set $D power_fail 1)" OK "power_fail after the fsync (gpf without energy)"
dev_on $D || bail "power on after the failure"
"$PROGS/crashrec" "$(dev_node $D)" check 4000 3000
ok $? "every record before the fsync is intact; every later one whole or absent"
dev_rm $D

section "a host crash"
# A copy of the image taken while the device is powered is what the disk
# holds if the host stops now (a crash, a power cut): its header still says
# powered, and the lines not msync'd are not in it.
CIMG=$MNT/crash.img
dev_create $D capacity=32M cache_size=1M nand_backing=$CIMG || bail "create $D"
dev_on $D || bail "power on with $CIMG"
"$PROGS/crashrec" "$(dev_node $D)" append 1000 600
ok $? "append 1000 records, msync after each of the first 600"
cp $CIMG $MNT/crash-copy.img
ok $? "copy the image while the device is powered"
dev_off $D && dev_on $D
ok $? "an orderly power cycle"
is "$(stat_get $D dirty_shutdowns)" 0 "an orderly power-off leaves the image closed"
dev_off $D
is "$(dev_set $D nand_backing $MNT/crash-copy.img)" OK "nand_backing: the copy"
klog_clear
dev_on $D || bail "power on with the copy"
is "$(stat_get $D dirty_shutdowns)" 1 "power-on after a crash: a dirty shutdown"
is "$(dmesg | grep -c -- "$D: power: .* was not closed")" 1 "one log line says so"
out=$("$PROGS/crashrec" "$(dev_node $D)" check 1000 600)
ok $? "every msync'd record is intact; every later one whole or absent"
echo "$out"
absent=$(echo "$out" | sed -n 's/^# whole [0-9]* absent //p')
cmp_ok "${absent:-0}" -ge 300 "the records not msync'd were lost"
dev_off $D && dev_on $D
is "$(stat_get $D dirty_shutdowns)" 1 "closed again by the orderly power-off"
dev_rm $D
rm -f $CIMG $MNT/crash-copy.img

section "one image, two devices"
# A file is one device's image at a time, by any name (a hard link too).
E=nimg2
dev_create $D capacity=32M cache_size=1M nand_backing=$CIMG || bail "create $D"
dev_on $D || bail "power on $D"
ln $CIMG $MNT/link.img
for path in $CIMG $MNT/link.img; do
	dev_create $E capacity=32M cache_size=1M nand_backing=$path || bail "create $E"
	klog_clear
	is "$(dev_set $E power 1)" EBUSY "$path, powered as $D's image: EBUSY"
	is "$(dev_get $E power)" 0 "$E: still off"
	is "$(dmesg | grep -c -- "$E: power")" 1 "$E: one log line"
	dmesg | grep -- "$E" | sed 's/^/#   /'
	dev_rm $E
done
dev_off $D
dev_create $E capacity=32M cache_size=1M nand_backing=$MNT/link.img || bail "create $E"
dev_on $E
ok $? "$E powers on with it once $D is off"
is "$(stat_get $E dirty_shutdowns)" 0 "and counts no dirty shutdown"
dev_rm $E
dev_rm $D
rm -f $CIMG $MNT/link.img

section "a block device as the image"
# A loop device over a file of 32 MiB + 8 KiB: the header goes in its last
# whole 4 KiB, beyond the 32 MiB of device pages.
modprobe loop 2>/dev/null
BIMG=$MNT/bdev.raw
truncate -s $((32 * 1048576 + 8192)) $BIMG
LOOP=$(losetup -f 2>/dev/null)
if [ -n "$LOOP" ] && losetup "$LOOP" $BIMG; then
	dev_create $D capacity=32M cache_size=1M nand_backing=$LOOP || bail "create $D"
	dev_on $D
	ok $? "power on with $LOOP (its last 4 KiB zero: a new image)"
	is "$(tail -c 4096 $BIMG | head -c 8)" CXDVNAND "the header is in the block device's last 4 KiB"
	"$PROGS/crashrec" "$(dev_node $D)" append 2000 1200
	ok $? "append 2000 records, msync after each of the first 1200"
	is "$(dev_set $D power_fail 1)" OK "power_fail"
	dev_on $D || bail "power on after the failure"
	cmp_ok "$(stat_get $D lines_lost)" -ge 40 "stats/lines_lost: the lines of the records not msync'd"
	"$PROGS/crashrec" "$(dev_node $D)" check 2000 1200
	ok $? "every msync'd record is intact; every later one whole or absent"
	"$PROGS/crashrec" "$(dev_node $D)" append 500 0
	dev_off $D && dev_on $D
	"$PROGS/crashrec" "$(dev_node $D)" check 500 500
	ok $? "an orderly power cycle keeps every record"
	dev_off $D
	is "$(dev_set $D capacity 64M)" OK "capacity 64M"
	bad_power "a block device smaller than capacity + 4 KiB"
	is "$(dev_set $D capacity 16M)" OK "capacity 16M"
	bad_power "a block device holding an image of another capacity"
	dev_rm $D
	losetup -d "$LOOP"
	# Last 4 KiB neither zero nor a header: someone's data, refused.
	printf 'not a header' | dd of=$BIMG bs=1 seek=$((32 * 1048576 + 4096)) conv=notrunc 2>/dev/null
	losetup "$LOOP" $BIMG || bail "losetup again"
	dev_create $D capacity=32M cache_size=1M nand_backing=$LOOP || bail "create $D"
	bad_power "a block device whose last 4 KiB hold other data"
	dev_rm $D
	losetup -d "$LOOP"
else
	skip "block device" "no loop device"
fi
rm -f $BIMG
done_testing
