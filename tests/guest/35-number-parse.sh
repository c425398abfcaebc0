#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Numbers with a leading zero are decimal, as documented (not octal).
. /tests/lib.sh

D=small
trap 'dev_rm $D 2>/dev/null' EXIT

mkdir "$CFS/$D" || bail "mkdir $D"
is "$(dev_set $D t_read_ns 0100)" OK "t_read_ns=0100 accepted"
is "$(dev_get $D t_read_ns)" 100 "0100 reads back as decimal 100"
is "$(dev_set $D t_read_ns 0x100)" OK "t_read_ns=0x100 accepted"
is "$(dev_get $D t_read_ns)" 256 "0x100 is hex"
is "$(dev_set $D capacity 010M)" OK "capacity=010M accepted"
is_num "$(dev_get $D capacity)" 10M "010M is 10M"
is "$(dev_set $D t_read_ns 09)" OK "09 (not octal) accepted"
is "$(dev_get $D t_read_ns)" 9 "09 reads back as 9"
is "$(dev_set $D t_read_ns 0x)" EINVAL "0x alone refused"
is "$(dev_set $D t_read_ns 0x0x5)" EINVAL "0x0x5 refused"
# The tools' rules (driver/model/param.c): T suffix, flags 0/1/off/on.
klog_clear
is "$(dev_set $D capacity 1T)" OK "1T is accepted"
is "$(dev_get $D capacity)" 1099511627776 "... and read as 2^40"
is "$(dev_set $D capacity 16T)" OK "16T is accepted (the bound)"
is "$(dev_get $D capacity)" 17592186044416 "... and read as 2^44"
is "$(dev_set $D capacity 17T)" EINVAL "17T is above the bound"
klog_grep "capacity: 17T rejected: out of range \[4K, 16T\]" > /dev/null
ok $? "... and shown as 17T with the bounds in the log"
klog_grep "capacity: 17T rejected" | sed 's/^/# /'
is "$(dev_set $D skip_unwritten on)" OK "a flag takes on"
is "$(dev_get $D skip_unwritten)" 1 "... and reads back 1"
is "$(dev_set $D skip_unwritten off)" OK "a flag takes off"
is "$(dev_get $D skip_unwritten)" 0 "... and reads back 0"
is "$(dev_set $D skip_unwritten 0x1)" EINVAL "a flag refuses 0x1"
rmdir "$CFS/$D"
ok $? "remove $D"
done_testing
