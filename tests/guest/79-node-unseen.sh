#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Node mode with node_latency=on: measured examples of what the mechanism
# cannot see (docs/numa-mode.md, "What the mechanism cannot see"), one
# subcommand of progs/unseen per entry of that list (its header says what
# each measures). Each prints its numbers as a "# unseen CASE: KEY VALUE
# ..." line, which the document quotes per kernel. Checked here: the
# contents survive wherever data is involved, and each entry behaves as the
# document says it does on this kernel (6.1, 6.12 or 7.2), with generous
# bounds, so that a change of behaviour fails here and the document is
# changed with it. One device, a 4 MiB cache (L = 1024 lines) under FIFO.
# Not on the debug kernel (see below).
. /tests/lib.sh

DEBUG=${cxdvirt_debug:-0}
OUT=/tmp/nl-unseen.out
IMG=/tmp/nl-unseen.img
HUGEDIR=/tmp/nl-unseen-huge
KSM=/sys/kernel/mm/ksm
HPOOL=/sys/devices/system/node/node$NL_NODE/hugepages/hugepages-2048kB/nr_hugepages
LOOP=
KSM0=

un_cleanup() {
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	umount $HUGEDIR 2>/dev/null
	[ -f $HPOOL ] && echo 0 > $HPOOL 2>/dev/null
	if [ -n "$KSM0" ]; then
		# shellcheck disable=SC2086 # three words
		set -- $KSM0
		echo "$1" > $KSM/run
		echo "$2" > $KSM/pages_to_scan
		echo "$3" > $KSM/sleep_millisecs
	fi
	e4_cleanup
	rm -f $IMG $OUT
}

# ext4 on a loop device for the "ext4huge" case (section 8b)
E4IMG=/tmp/nl-unseen-ext4.img
E4DIR=/tmp/nl-unseen-ext4
E4LOOP=
e4_cleanup() {
	umount $E4DIR 2>/dev/null
	[ -n "$E4LOOP" ] && losetup -d "$E4LOOP" 2>/dev/null
	E4LOOP=
	rm -f $E4IMG
	rmdir $E4DIR 2>/dev/null
}

nl_begin "what node latency cannot see"
trap 'un_cleanup; nl_end' EXIT
# The debug kernel is built from the 6.1 lane's sources, so its numbers
# are the 6.1 lane's (run there by hand: the same numbers, 53 s, no splat,
# no kmemleak report); CI's debug-lane time goes to the tests that run the
# same hooks under KASAN and lockdep (65-77).
if [ "$DEBUG" = 1 ]; then
	skip "what node latency cannot see" "not on the debug kernel: the numbers are the 6.1 lane's (same sources), and the debug lane's time is spent on 65-77"
	done_testing
fi
case $(uname -r) in
6.1.*) K=6.1 ;;
6.12.*) K=6.12 ;;
*) K=7.2 ;;	# nl_begin ended the test on any other kernel
esac
klog_clear
nl_power_up cache_size=4M t_read_ns=20000 policy=fifo ||
	bail "power on $NL_DEV in node mode and online it"
pass "power on, online as node $NL_NODE ($DAX) on $K"

# uv CASE KEY: KEY's value on the last run's "# unseen CASE:" line
uv() {
	awk -v c="unseen $1:" -v k="$2" '
	index($0, "# " c " ") == 1 {
		for (i = 4; i < NF; i += 2)
			if ($i == k) { print $(i + 1); exit }
	}' $OUT
}

# run CASE ARGS...: progs/unseen CASE on the device, its TAP numbered here
run() {
	local c=$1
	shift
	section "$c"
	run_sub "unseen $c" "$PROGS/unseen" "$c" $NL_NODE $IDX "$@" > $OUT
	cat $OUT
}

# line CASE: status 0 (and a pass) if the run printed CASE's numbers
line() {
	grep -q "^# unseen $1: " $OUT
	ok $? "$1: the numbers were printed"
}

# ge A PCT B DESC / le A PCT B DESC: A >= (<=) PCT% of B
ge() { cmp_ok "$(($1 * 100))" -ge "$(($3 * $2))" "$4"; }
le() { cmp_ok "$(($1 * 100))" -le "$(($3 * $2))" "$4"; }

# --- 1. THP that got onto the node anyway ---------------------------------
# A huge page written on node 1 (off the device), then moved to the node.
# Every kernel refuses a large target for each way (split: 4 KiB pages,
# tracked; 6.12 and 7.2 through a probe on mbind's own target callback). A
# hugetlb page of the node's pool is not refused, and is counted in
# hugetlb_untracked_pages, on every kernel.
HT=nohugetlb
[ -f $HPOOL ] && echo 1 > $HPOOL 2>/dev/null && [ "$(cat $HPOOL)" = 1 ] &&
	HT=hugetlb
run thp $HT
echo 0 > $HPOOL 2>/dev/null
for how in mbind move migrate; do
	c=thp-$how
	line $c || continue
	n=$(uv $c pages)
	if [ "$(uv $c huge_kb_before)" = 0 ]; then
		skip "$c: what happens to a huge page" "no huge page on node 1 to move"
		continue
	fi
	is "$(uv $c huge_kb_after)" 0 "$c: no huge page left"
	ge "$(uv $c thp_refused)" 95 "$n" "$c: the huge pages were split on the way (thp_refused_pages +$(uv $c thp_refused))"
	is "$(uv $c thp_untracked)" 0 "$c: thp_untracked_pages unchanged"
	ge "$(uv $c pass_misses)" 95 "$n" "$c: tracked: a read after a flush misses on >= 95% ($(uv $c pass_misses) of $n)"
done
if [ $HT = nohugetlb ]; then
	skip "thp-hugetlb" "no hugetlb page could be put in node $NL_NODE's pool"
elif line thp-hugetlb; then
	is "$(uv thp-hugetlb node)" $NL_NODE "thp-hugetlb: the page is on node $NL_NODE"
	is "$(uv thp-hugetlb seen_write)" 0 "thp-hugetlb: its writes are not seen"
	is "$(uv thp-hugetlb thp_untracked)" 0 "thp-hugetlb: not counted in thp_untracked_pages"
	is "$(uv thp-hugetlb hugetlb_untracked)" "$(uv thp-hugetlb pages)" "thp-hugetlb: counted in hugetlb_untracked_pages ($(uv thp-hugetlb hugetlb_untracked))"
	le "$(uv thp-hugetlb pass_misses)" 5 "$(uv thp-hugetlb pages)" "thp-hugetlb: a read after a flush misses on <= 5% ($(uv thp-hugetlb pass_misses))"
fi

# --- 2. kernel accesses through the direct map ---------------------------
run direct
if line direct; then
	n=$(uv direct pages)
	is "$(uv direct node)" $NL_NODE "direct: the memfd's pages are on node $NL_NODE"
	is "$(uv direct read_seen)" 0 "direct: pread() of $n evicted pages: no access seen"
	is "$(uv direct write_seen)" 0 "direct: pwrite() of them: no access seen"
	is "$(($(uv direct read_kernel) + $(uv direct write_kernel)))" 0 "direct: nor counted in kernel_accesses"
	ge "$(uv direct map_misses)" 95 "$n" "direct: a read through the mapping then misses on >= 95% ($(uv direct map_misses) of $n)"
fi

# --- 3. DMA ----------------------------------------------------------------
# The pin of an O_DIRECT read faults each evicted page in (seen); the copy
# into it is not. A long-term pin (io_uring fixed buffer) migrates the
# pages off the node first (ZONE_MOVABLE memory cannot be pinned long).
modprobe loop 2>/dev/null
dd if=/dev/zero of=$IMG bs=1M count=8 2> /dev/null
if LOOP=$(losetup -f 2>/dev/null) && [ -n "$LOOP" ] && losetup "$LOOP" $IMG; then
	run dma "$LOOP"
	if line dma; then
		n=$(uv dma pages)
		ge "$(uv dma hint_faults)" 95 "$n" "dma: the pin faulted the evicted pages in ($(uv dma hint_faults) of $n)"
		ge "$(uv dma seen)" 95 "$n" "dma: and they were charged ($(uv dma seen))"
	fi
	if line dma-pinned; then
		n=$(uv dma-pinned pages)
		if [ "$(uv dma-pinned registered)" != 0 ]; then
			skip "dma-pinned" "io_uring buffer registration failed ($(uv dma-pinned registered))"
		else
			ge "$(uv dma-pinned departures)" 95 "$n" "dma-pinned: a long-term pin moved the pages off the node (departures +$(uv dma-pinned departures))"
			le "$(uv dma-pinned on_node_after)" 5 "$n" "dma-pinned: none left on node $NL_NODE ($(uv dma-pinned on_node_after))"
			is "$(uv dma-pinned seen_read)" 0 "dma-pinned: a fixed read into them is no access of the device"
		fi
	fi
else
	LOOP=
	skip "dma" "no loop device"
fi

# --- 4. Remote reads of evicted pages ------------------------------------
# No longer an entry of "cannot see" (docs/numa-mode.md "Remote reads"):
# another process reads the owner's evicted pages: /proc/PID/mem, then
# process_vm_readv(). Each read is an access of the device, charged to the
# reader (node_latency/remote_accesses): on 6.1 and 6.12 the return probes
# of the remote paths charge the pages the GUP read through their PROT_NONE
# entries (6.1's process_vm_readv() faults them in instead: the same
# count); on 7.2 the notifier charges the remote fault that restores a
# device-exclusive entry. So the reads fill the cache with the owner's
# pages (L/2 + L/2 = L lines): the owner's next reads hit, and after a
# flush they miss again: the pages stay under the model.
run remote
if line remote && line remote-owner; then
	n=$(uv remote pages)
	ge "$(uv remote procmem_seen)" 95 "$n" "remote: /proc/PID/mem reads of $n evicted pages seen ($(uv remote procmem_seen))"
	ge "$(uv remote procmem_remote)" 95 "$n" "remote: counted in remote_accesses (+$(uv remote procmem_remote))"
	ge "$(uv remote vmreadv_seen)" 95 "$n" "remote: process_vm_readv() of $n evicted pages seen ($(uv remote vmreadv_seen))"
	ge "$(uv remote vmreadv_remote)" 95 "$n" "remote: counted in remote_accesses (+$(uv remote vmreadv_remote))"
	ge "$(($(uv remote procmem_waited) + $(uv remote vmreadv_waited)))" 95 "$((2 * n))" "remote: the reader waited for the misses (waited_accesses +$(uv remote procmem_waited), +$(uv remote vmreadv_waited))"
	le "$(uv remote-owner procmem_pass)" 5 "$n" "remote: the pages read by /proc/PID/mem are resident: the owner misses on <= 5% ($(uv remote-owner procmem_pass))"
	le "$(uv remote-owner vmreadv_pass)" 5 "$n" "remote: so are those read by process_vm_readv() ($(uv remote-owner vmreadv_pass))"
	ge "$(uv remote-owner procmem_after_flush)" 95 "$n" "remote: the owner's read after a flush misses on >= 95% ($(uv remote-owner procmem_after_flush), /proc/PID/mem)"
	ge "$(uv remote-owner vmreadv_after_flush)" 95 "$n" "remote: the owner's read after a flush misses on >= 95% ($(uv remote-owner vmreadv_after_flush), process_vm_readv)"
fi

# --- 5. KSM pages on the node -----------------------------------------------
# KSM does not merge pages of the node (nodelat.c, cxd_nl_krp_ksm): it
# merges the control pages off the node, none of the node's, and the two
# scans miss on every page through each mapping, as on a device.
if [ -f $KSM/run ]; then
	KSM0="$(cat $KSM/run) $(cat $KSM/pages_to_scan) $(cat $KSM/sleep_millisecs)"
	echo 4000 > $KSM/pages_to_scan
	echo 10 > $KSM/sleep_millisecs
	echo 1 > $KSM/run
	run ksm
	echo 0 > $KSM/run
	if line ksm; then
		m=$(uv ksm pages) sh=$(uv ksm pages_sharing) ctl=$(uv ksm control)
		ab=$(($(uv ksm a_pass2) + $(uv ksm b_pass2)))
		if [ $((sh * 100)) -lt $((ctl * 95)) ] || [ "$(uv ksm full_scans)" -lt 3 ]; then
			fail "ksm: ksmd merged $sh pages ($ctl control pages off the node) in $(uv ksm full_scans) full scans within 30 s"
		else
			le $((sh - ctl)) 5 "$m" "ksm: none of the node's $m duplicate pages merged ($((sh - ctl)); the $ctl off the node were)"
			ge "$ab" 95 $((2 * m)) "ksm: second passes through A and B miss on every page of each ($ab of $((2 * m)))"
			le "$(uv ksm evictions_uncovered)" 5 "$m" "ksm: no eviction left uncovered (+$(uv ksm evictions_uncovered))"
		fi
	fi
else
	skip "ksm" "no $KSM: this kernel has no KSM"
fi

# --- 6. freed pages keep their line -----------------------------------------
run freed
if line freed; then
	n=$(uv freed pages) re=$(uv freed reused)
	if [ $((re * 2)) -lt "$n" ]; then
		skip "freed: first touches of reused frames" "only $re of $n frames were reused"
	else
		ge "$(uv freed b_hits)" 90 "$re" "freed: first touches in reused frames hit ($(uv freed b_hits) hits, $re frames reused)"
	fi
	ge "$(uv freed c_evictions_unmapped)" 90 "$n" "freed: the freed pages' lines are evicted mapped nowhere (evictions_unmapped +$(uv freed c_evictions_unmapped))"
fi

# --- 7. mremap ----------------------------------------------------------------
# The pages resident at the move are not at their last-seen address;
# eviction finds them where their VMA moved (evictions_moved), so every
# pass misses on every page, as on a device. On 7.2 the move also drops
# the records of the evicted half's device-exclusive entries (keyed by
# address); their faults at the new address are found by reading the
# entry, and charged.
run mremap
if line mremap; then
	n=$(uv mremap pages)
	for p in 1 2 3; do
		ge "$(uv mremap pass$p)" 95 "$n" "mremap: pass $p of a scan over twice the cache misses on >= 95% ($(uv mremap pass$p) of $n)"
	done
	ge "$(uv mremap moved1)" 40 "$n" "mremap: pass 1's evictions found the resident half where it moved (evictions_moved +$(uv mremap moved1))"
	le "$(uv mremap unmapped1)" 5 "$n" "mremap: ... and none mapped nowhere (evictions_unmapped +$(uv mremap unmapped1))"
fi
# realloc: the old block (L/2 pages, all resident when glibc moves it with
# mremap), the rest written after the move: both parts are tracked, on
# every kernel (no page of the old block was evicted before the move, so
# 7.2 lost no record), and pass 2 misses on every page.
if line realloc; then
	n=$(uv realloc pages) o=$(uv realloc old_pages)
	if [ "$(uv realloc moved)" != 1 ]; then
		skip "realloc" "glibc grew the block in place"
	else
		ge "$(uv realloc pass2)" 95 "$n" "realloc: pass 2 over the grown block misses on >= 95% ($(uv realloc pass2) of $n)"
		ge "$(uv realloc moved_evictions)" 95 "$o" "realloc: the old block's lines were found where it moved (evictions_moved +$(uv realloc moved_evictions) of $o)"
	fi
fi

# --- 7b. fork ---------------------------------------------------------------
# Pages still shared copy-on-write with a fork, read by the child. 6.x: the
# fork copies the PROT_NONE entries and the child's faults are seen, so its
# passes miss as on a device. 7.2: the fork restores the parent's
# device-exclusive entries without a notifier, and eviction cannot make a
# shared page device-exclusive (its write GUP would break the sharing):
# the child's reads are not seen, and the parent's evicted half is resident
# again, unseen. Once the child is gone, later evictions make that half
# non-resident again (fork_rearmed), and the parent's pages are tracked as
# before the fork.
run fork
if line fork; then
	n=$(uv fork pages)
	if [ $K = 7.2 ]; then
		for p in 1 3; do
			le "$(uv fork pass$p)" 5 "$n" "fork: the child's pass $p misses on <= 5% ($(uv fork pass$p) of $n): shared pages are not seen on 7.2"
		done
		is "$(uv fork child_rearmed)" 0 "fork: no page re-armed while the child shared them"
		ge "$(uv fork rearmed)" 95 "$((n / 2))" "fork: the evicted half was made non-resident again after the child's exit (fork_rearmed +$(uv fork rearmed) of $((n / 2)))"
	else
		is "$(uv fork rearmed)" 0 "fork: fork_rearmed stays 0 (6.x: the fork copies PROT_NONE entries)"
		for p in 1 2 3; do
			ge "$(uv fork pass$p)" 95 "$n" "fork: the child's pass $p of a scan over twice the cache misses on >= 95% ($(uv fork pass$p) of $n)"
		done
	fi
	ge "$(uv fork parent_after_flush)" 95 "$n" "fork: after the child's exit and a flush, the parent misses on >= 95% ($(uv fork parent_after_flush) of $n)"
	le "$(uv fork parent_uncovered)" 5 "$n" "fork: ... and no eviction is left uncovered (+$(uv fork parent_uncovered))"
fi

# --- 7c. mprotect ------------------------------------------------------------
# Pages of a private mapping made read-only after the first half was
# evicted. 6.x: mprotect() rewrites each present PTE with the VMA's new
# protection, PROT_NONE entries included; the evicted half is made
# PROT_NONE again before mprotect() returns (mprotect_rearmed), and every
# pass misses as on a device. 7.2: the device-exclusive entries survive
# mprotect(), pass 1's faults on them are seen, but make_device_exclusive()
# needs a writable mapping: the victims stay resident (evictions_uncovered)
# and pass 2 is not seen.
run rdonly
if line rdonly; then
	n=$(uv rdonly pages)
	if [ $K = 7.2 ]; then
		ge "$(uv rdonly pass1)" 40 "$n" "rdonly: pass 1 misses on the evicted half ($(uv rdonly pass1) of $n)"
		ge "$(uv rdonly uncovered1)" 40 "$n" "rdonly: ... and its victims were left uncovered (+$(uv rdonly uncovered1))"
		le "$(uv rdonly pass2)" 5 "$n" "rdonly: pass 2 misses on <= 5% ($(uv rdonly pass2) of $n): not seen"
	else
		ge "$(uv rdonly rearmed)" 95 "$((n / 2))" "rdonly: mprotect() left the evicted half PROT_NONE (mprotect_rearmed +$(uv rdonly rearmed) of $((n / 2)))"
		le "$(uv rdonly rearmed)" 105 "$((n / 2))" "rdonly: ... and no other page (a stale bit of a freed page's frame)"
		for p in 1 2; do
			ge "$(uv rdonly pass$p)" 95 "$n" "rdonly: pass $p of a scan over twice the cache misses on >= 95% ($(uv rdonly pass$p) of $n)"
		done
	fi
fi

# --- 8. file pages mapped by a huge PMD ------------------------------------
# shmem's huge folio on the node is refused on every kernel (6.1: through
# the VMA allocator; 6.12 and 7.2: the policy allocator): 4 KiB pages,
# tracked.
mkdir -p $HUGEDIR
if mount -t tmpfs -o size=64m,huge=always nl-unseen-huge $HUGEDIR; then
	run hugetmpfs $HUGEDIR
	umount $HUGEDIR
	if line hugetmpfs; then
		n=$(uv hugetmpfs pages)
		is "$(uv hugetmpfs node)" $NL_NODE "hugetmpfs: the file is on node $NL_NODE"
		is "$(uv hugetmpfs pmd_kb)" 0 "hugetmpfs: no PMD mapping"
		ge "$(uv hugetmpfs thp_refused)" 95 "$n" "hugetmpfs: the huge folios were refused (+$(uv hugetmpfs thp_refused))"
		ge "$(uv hugetmpfs pass2)" 95 "$n" "hugetmpfs: tracked: pass 2 misses on >= 95% ($(uv hugetmpfs pass2) of $n)"
	fi
else
	skip "hugetmpfs" "tmpfs refuses huge=always here"
fi

# --- 8b. ext4 page cache: large folios ---------------------------------------
# ext4 has large page-cache folios from 6.16 (up to PMD size): a file read
# through a shared mapping by a task bound to the node, with MADV_HUGEPAGE
# (mmap readahead asks for PMD-sized folios) and without (ext4huge in
# progs/unseen.c). 7.2: the large folios the page cache's allocator gets on
# the node are refused (thp_refused_pages), so the file has 4 KiB pages
# there, tracked, as on 6.1 and 6.12 (where ext4 asks for none).
modprobe loop 2>/dev/null
modprobe ext4 2>/dev/null
if ! command -v mkfs.ext4 > /dev/null || ! grep -qw ext4 /proc/filesystems; then
	skip "ext4huge" "no mkfs.ext4 or no ext4 in this guest"
elif dd if=/dev/zero of=$E4IMG bs=1M count=32 2>/dev/null &&
	E4LOOP=$(losetup -f 2>/dev/null) && [ -n "$E4LOOP" ] &&
	losetup "$E4LOOP" $E4IMG && mkfs.ext4 -q -b 4096 "$E4LOOP" > /dev/null 2>&1 &&
	mkdir -p $E4DIR && mount -t ext4 "$E4LOOP" $E4DIR; then
	run ext4huge $E4DIR
	e4_cleanup
	for c in ext4huge ext4huge-plain; do
		line $c || continue
		n=$(uv $c pages)
		le "$(uv $c cached_before)" 5 "$n" "$c: the file's page cache was dropped before the read ($(uv $c cached_before) of $n cached)"
		# the pages still mapped after the read (the others were evicted:
		# unmapped) show where the page cache went
		cmp_ok "$(uv $c mapped)" -gt 0 "$c: pages mapped after the read ($(uv $c mapped))"
		ge "$(uv $c on_node)" 95 "$(uv $c mapped)" "$c: its page cache was read onto node $NL_NODE ($(uv $c on_node) of the $(uv $c mapped) mapped)"
		is "$(uv $c pmd_kb)" 0 "$c: no PMD mapping"
		is "$(uv $c large)" 0 "$c: no large folio on the node ($(uv $c mapped) pages mapped)"
		is "$(uv $c thp_untracked)" 0 "$c: thp_untracked_pages unchanged"
		if [ $K = 7.2 ]; then
			cmp_ok "$(uv $c thp_refused)" -gt 0 "$c: large folios were refused (thp_refused_pages +$(uv $c thp_refused))"
		else
			is "$(uv $c thp_refused)" 0 "$c: none asked for: ext4 has no large folios before 6.16"
		fi
		ge "$(uv $c pass2)" 95 "$n" "$c: tracked: pass 2 misses on >= 95% ($(uv $c pass2) of $n)"
	done
else
	fail "ext4huge: ext4 on a loop device"
	e4_cleanup
fi

# --- 9. page queries -----------------------------------------------------------
# move_pages(2) with no target nodes: an evicted page is -ENOENT on 6.1
# (PROT_NONE not followed) and 7.2 (a device-exclusive entry), on its node
# on 6.12 (the query walks PROT_NONE PTEs).
run query
if line query; then
	n=$(uv query pages) ev=$(uv query evicted)
	ge "$ev" 40 "$n" "query: $ev of $n pages evicted before the query"
	if [ $K = 6.12 ]; then
		is "$(uv query on_node)" "$n" "query: every page reported on node $NL_NODE"
	else
		ge "$(uv query enoent)" 95 "$ev" "query: the evicted pages reported absent ($(uv query enoent) -ENOENT)"
		le "$(uv query enoent)" 105 "$ev" "query: ... and only those"
		is "$(($(uv query on_node) + $(uv query enoent)))" "$n" "query: the others on node $NL_NODE"
	fi
fi

section "power off"
un_cleanup
nl_power_down
ok $? "offline and power off"
klog_no_warnings
nl_end
done_testing
