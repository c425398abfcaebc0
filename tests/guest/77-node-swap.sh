#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node mode with node_latency=on, anonymous pages that go out to swap and
# come back (progs/swapin): a swap device on a loop device, a program bound
# to the node writes twice the cache, pushes it out with MADV_PAGEOUT, then
# reads it back three times:
# - the pages went to swap (the mapping's Swap: grows);
# - the swap-ins are seen (node_latency/anon_maps or first touches: the
#   page read back is a new page of the node);
# - later passes of the scan over twice the cache miss on >= 95% of the
#   pages: the pages read back are under the model again;
# - the contents survive.
. /tests/lib.sh

N=2048		# pages: twice the 4 MiB cache
IMG=/tmp/nl-swap.img
OUT=/tmp/nl-swap.out
LOOP=

sw_cleanup() {
	[ -n "$LOOP" ] && { swapoff "$LOOP" 2>/dev/null; losetup -d "$LOOP" 2>/dev/null; }
	rm -f $IMG $OUT
}

nl_begin "node-mode pages that come back from swap"
trap 'sw_cleanup; nl_end' EXIT
modprobe loop 2>/dev/null
dd if=/dev/zero of=$IMG bs=1M count=64 2> /dev/null
LOOP=$(losetup -f 2>/dev/null) && [ -n "$LOOP" ] && losetup "$LOOP" $IMG &&
	mkswap "$LOOP" > /dev/null 2>&1 && swapon "$LOOP"
ok $? "64 MiB of swap on ${LOOP:-no loop device}"

klog_clear
nl_power_up cache_size=4M t_read_ns=20000 policy=fifo ||
	bail "power on $NL_DEV in node mode and online it"
run_sub "swapin" "$PROGS/swapin" $NL_NODE $IDX $N > $OUT
cat $OUT
kb=$(sed -n 's/^# swap kB \([0-9]*\)$/\1/p' $OUT)
if nl_exclusive; then
	# MADV_PAGEOUT skips non-present entries: only the resident pages go.
	cmp_ok "${kb:-0}" -gt 0 "MADV_PAGEOUT sent the resident pages to swap (${kb:-?} kB)"
	skip "MADV_PAGEOUT sent every page to swap" \
		"evicted pages are device-exclusive entries here, which MADV_PAGEOUT skips"
else
	cmp_ok "${kb:-0}" -ge $((N * 4 * 95 / 100)) "MADV_PAGEOUT sent the pages to swap (${kb:-?} kB)"
fi
am=$(sed -n 's/^# anon_maps +//p' $OUT)
m1=$(sed -n 's/^# P1 misses //p' $OUT)
diag "pass 1 (the swap-ins): $m1 misses, anon_maps +$am"
cmp_ok "${m1:-0}" -gt 0 "the swap-ins went through the model ($m1 misses)"
for p in 2 3; do
	m=$(sed -n "s/^# P$p misses //p" $OUT)
	cmp_ok "${m:-0}" -ge $((N * 95 / 100)) \
		"pass $p of a scan over twice the cache misses on >= 95% ($m of $N)"
done
nl_power_down
ok $? "offline and power off"
done_testing
