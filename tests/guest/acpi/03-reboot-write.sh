#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# First boot of the reboot-persistence check (tests/vm/acpi-guest.sh): a
# devdax device whose NAND image is the guest's virtio disk (/dev/vda, the
# host's file) gets 2000 records written through its mapping, all left
# dirty in the cache: none has reached the image yet. The test leaves the
# device powered and asks /init to end the boot with reboot(2) instead of
# the module's unload (/tmp/cxdvirt-reboot): the module's reboot notifier
# must write the dirty lines back. 04-reboot-check.sh, in the second boot,
# finds every record on the disk.
. /tests/lib.sh

D=reboot
VDA=/dev/vda
fail_cleanup() {
	rm -f /tmp/cxdvirt-reboot
	dev_rm $D 2>/dev/null
}
trap fail_cleanup EXIT

disk_wait $VDA || bail "no $VDA: the host attaches the disk (CXDVIRT_DISK)"
# capacity 32 MiB; the disk is 32 MiB + 4 KiB of zeros: a new image, its
# header in the last 4 KiB
dev_create $D capacity=32M cache_size=1M nand_backing=$VDA || bail "create $D"
dev_on $D || bail "power on with $VDA"
"$PROGS/crashrec" "$(dev_node $D)" append 2000 0
ok $? "append 2000 records (125 lines), no msync"
is "$(stat_get $D evictions)" 0 "all in the cache (1 MiB: 256 lines)"
is "$(stat_get $D io_writes)" 0 "nothing written to the image yet"
nz=$(dd if=$VDA bs=4096 count=125 iflag=direct 2>/dev/null | tr -d '\000' | wc -c)
is "$nz" 0 "the disk's first 125 pages are still zero"
hdr=$(dd if=$VDA bs=4096 skip=8192 count=1 iflag=direct 2>/dev/null | od -An -c -N8 | tr -d ' ')
is "$hdr" CXDVNAND "the image's header is on the disk"
# its flags word (byte 40): 1, powered (a crash now would count a dirty
# shutdown at the next power-on)
flags=$(dd if=$VDA bs=4096 skip=8192 count=1 iflag=direct 2>/dev/null | od -An -tu1 -j40 -N1 | tr -d ' ')
is "$flags" 1 "the header on the disk says powered"
# Powered, dirty, and the guest reboots (tests/vm/guest-init.sh).
touch /tmp/cxdvirt-reboot
trap - EXIT
done_testing
