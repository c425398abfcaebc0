#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node mode with node_latency=on, pages another process installs in a
# program's memory (progs/remote): process_vm_writev(2) from another
# process, and UFFDIO_COPY from a userfaultfd handler in another process.
# The program itself never touched the pages before its scans. For each:
# - the installation goes through the model (an access per page: a miss,
#   or a hit where a frame an earlier run freed kept its line);
# - the pages are tracked in the owner's address space: a cyclic scan over
#   twice the cache misses on >= 95% of its accesses in later passes;
# - the contents survive.
. /tests/lib.sh

OUT=/tmp/nl-remote.out
N=2048		# pages: twice the 4 MiB cache

nl_begin "node-mode pages installed by another process"
trap 'rm -f $OUT; nl_end' EXIT
klog_clear
nl_power_up cache_size=4M t_read_ns=20000 policy=fifo ||
	bail "power on $NL_DEV in node mode and online it"

for how in vmwritev uffd; do
	section "$how"
	run_sub "remote $how" "$PROGS/remote" $how $NL_NODE $IDX $N > $OUT
	cat $OUT
	im=$(sed -n 's/^# install accesses //p' $OUT)
	cmp_ok "${im:-0}" -ge $((N * 95 / 100)) \
		"$how: the installation went through the model ($im accesses for $N pages)"
	for p in 2 3; do
		m=$(sed -n "s/^# P$p misses //p" $OUT)
		cmp_ok "${m:-0}" -ge $((N * 95 / 100)) \
			"$how: pass $p of a scan over twice the cache misses on >= 95% ($m of $N)"
	done
done
nl_power_down
ok $? "offline and power off"
done_testing
