#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node latency checks the probed functions' prototypes against the running
# kernel's BTF before it registers a probe (hotplug/nlbtf.c): with this
# kernel's prototypes it powers on; a required prototype that differs from
# BTF's, or a function BTF does not list, keeps node latency off (power 1
# fails with EOPNOTSUPP, one log line naming the function, nothing
# changes); and it powers on again once the extra requirement is gone. On a
# kernel without BTF (the debug lane) node latency runs only with
# nl_unchecked=1, and says so.
. /tests/lib.sh

P=/sys/module/cxdvirt/parameters
nl_begin "node latency prototype check"
trap 'echo > $P/nl_extra_proto; nl_end' EXIT

if [ ! -r /sys/kernel/btf/vmlinux ]; then
	unchecked=$(cat $P/nl_unchecked)
	echo N > $P/nl_unchecked
	klog_clear
	nl_power_up
	is $? 1 "no BTF: power-on with node_latency=on refused"
	klog_grep "node latency needs a kernel with BTF" > /dev/null
	ok $? "... and the log says BTF is needed"
	is "$(dev_get "$NL_DEV" power)" 0 "... power stays 0"
	echo Y > $P/nl_unchecked
	klog_clear
	nl_power_up
	ok $? "no BTF, nl_unchecked=1: powers on"
	klog_grep "NOT checked (nl_unchecked=1)" > /dev/null
	ok $? "... and the log says the prototypes were not checked"
	nl_power_down
	ok $? "power down"
	echo "$unchecked" > $P/nl_unchecked
	done_testing
fi

klog_clear
nl_power_up
ok $? "this kernel's prototypes match its BTF: powers on"
nl_power_down
ok $? "power down"

# expect_refused DESC PROTO PATTERN
expect_refused() {
	echo "$2" > $P/nl_extra_proto
	klog_clear
	dev_rm $NL_DEV 2>/dev/null
	dev_create $NL_DEV mode=node phys_addr=$NL_BASE capacity=512M \
		target_node=$NL_NODE scan_interval_ms=0 || bail "create"
	is "$(dev_set $NL_DEV power 1)" EOPNOTSUPP "$1: power 1 refused"
	is "$(dmesg | grep -c "cxdvirt: $NL_DEV:")" 1 "$1: one log line"
	dmesg | grep "cxdvirt: $NL_DEV:" | sed 's/^/# /'
	klog_grep "$3" > /dev/null
	ok $? "$1: the log says '$3'"
	is "$(dev_get "$NL_DEV" power)" 0 "$1: power stays 0"
	is "$(cat "$(dev_sys $NL_DEV)/dax_device" 2>/dev/null)" "" \
		"$1: no dax device"
	is "$(wc -l < /sys/kernel/debug/kprobes/list)" 0 \
		"$1: no probe left registered"
}
expect_refused "a changed prototype" \
	"bool folio_mark_dirty(struct page *page)" \
	"folio_mark_dirty has prototype 'bool folio_mark_dirty(struct folio \*folio)'"
expect_refused "a function BTF does not list" \
	"void cxd_no_such_function(int x)" \
	"cxd_no_such_function is not in this kernel's BTF"

echo > $P/nl_extra_proto
klog_clear
nl_power_up
ok $? "without the extra prototype: powers on again"
nl_power_down
ok $? "power down"
done_testing
