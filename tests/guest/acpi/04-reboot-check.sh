#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Second boot of the reboot-persistence check (tests/vm/acpi-guest.sh): the
# same virtio disk that 03-reboot-write.sh left as a NAND image with 2000
# records dirty in a powered device's cache when the guest rebooted. A
# device of the same geometry powers on with it and finds every record:
# the module wrote its dirty lines back as the host shut down, which was
# no power failure.
. /tests/lib.sh

D=reboot
VDA=/dev/vda
trap 'dev_rm $D 2>/dev/null' EXIT

disk_wait $VDA || bail "no $VDA: the host attaches the disk (CXDVIRT_DISK)"
nz=$(dd if=$VDA bs=4096 count=125 iflag=direct 2>/dev/null | tr -d '\000' | wc -c)
cmp_ok "$nz" -gt 0 "the disk's first 125 pages hold data after the reboot"
flags=$(dd if=$VDA bs=4096 skip=8192 count=1 iflag=direct 2>/dev/null | od -An -tu1 -j40 -N1 | tr -d ' ')
is "$flags" 0 "the header on the disk says closed"
dev_create $D capacity=32M cache_size=1M nand_backing=$VDA || bail "create $D"
dev_on $D
ok $? "power on with the image left by the first boot"
is "$(stat_get $D dirty_shutdowns)" 0 "the reboot was no dirty shutdown"
"$PROGS/crashrec" "$(dev_node $D)" check 2000 2000
ok $? "every record written before the reboot is intact"
cmp_ok "$(stat_get $D io_reads)" -ge 125 "the records were read from the image (stats/io_reads)"
dev_rm $D
ok $? "remove $D"
trap - EXIT
done_testing
