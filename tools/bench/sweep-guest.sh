#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of tools/bench/sweep.sh, run by /init as /demo.sh (busybox sh).
# Runs every line of /sweep.runs:
#
#   NAME TARGET PRESET CACHE_BYTES POLICY PREFETCH PAGES THREADS PATTERN WRITE_RATIO
#
# TARGET dax (a devdax device, cxdvirt-bench -t /dev/cxdvirtN) or node (a
# node-mode device onlined as NUMA node 2, cxdvirt-bench -t node:2: the
# memory bound there with mbind). A device is fresh for each run: the
# preset, CACHE_BYTES of cache, POLICY, PREFETCH, accessed-bit scan off.
# PAGES is the working set of each thread (4 KiB pages; the threads' sets
# are disjoint). Per run:
#
#   CXDVIRT-SWEEP-BEGIN NAME I/TOTAL
#   CXDVIRT-SWEEP-JSON NAME      then cxdvirt-bench's --json report, then
#   CXDVIRT-SWEEP-CDF NAME       then its --cdf file, then
#   CXDVIRT-SWEEP-STAT NAME COUNTER VALUE   the device's counters after the run
#   CXDVIRT-SWEEP-END NAME STATUS
. /tests/lib.sh

DAXDEV=swdax
STATS="misses minor_hits evictions dirty_evictions writebacks prefetch_issued prefetch_useful prefetch_late"

# sweep.sh boots with maxcpus=1 under icount (an SMP bring-up under icount
# hangs): the other vCPU comes online here.
for c in /sys/devices/system/cpu/cpu[0-9]*/online; do
	[ -f "$c" ] || continue
	[ "$(cat "$c")" = 1 ] || echo 1 > "$c" || echo "# cannot online ${c%/online}"
done
TIMER=rdtscp
cxdvirt-bench --timer $TIMER -t anon -n 16 -p 1 > /dev/null 2>&1 || TIMER=clock
echo "CXDVIRT-SWEEP-INFO kernel $(uname -r)"
echo "CXDVIRT-SWEEP-INFO timer $TIMER"
echo "CXDVIRT-SWEEP-INFO cpus $(grep -c ^processor /proc/cpuinfo)"

# dev_up TARGET PRESET CACHE POLICY PREFETCH SPAN: a fresh device of at
# least SPAN pages; sets SYSD (its sysfs folder) and T (the bench target).
dev_up() {
	cap=$(( ($6 * 4096 * 2 + (64 << 20) + (1 << 21) - 1) / (1 << 21) * (1 << 21) ))
	case $1 in
	dax)
		dev_rm $DAXDEV 2>/dev/null
		dev_create $DAXDEV preset="$2" capacity=$cap cache_size="$3" \
			policy="$4" prefetch="$5" scan_interval_ms=0 || return 1
		dev_on $DAXDEV || return 1
		SYSD=$(dev_sys $DAXDEV) T=$(dev_node $DAXDEV) ;;
	node)
		nl_power_up preset="$2" capacity=512M cache_size="$3" \
			policy="$4" prefetch="$5" scan_interval_ms=0 || return 1
		SYSD=$S T=node:$NL_NODE ;;
	esac
}

dev_down() {
	case $1 in
	dax) dev_rm $DAXDEV ;;
	node) nl_power_down ;;
	esac
}

trap nl_end EXIT
total=$(grep -c . /sweep.runs)
i=0
while read -r name target preset cache policy prefetch pages threads pattern wr; do
	[ -n "$name" ] || continue
	i=$((i + 1))
	echo "CXDVIRT-SWEEP-BEGIN $name $i/$total"
	stride=1
	[ "$pattern" = stride ] && stride=2
	if ! dev_up "$target" "$preset" "$cache" "$policy" "$prefetch" \
	    $((pages * threads * stride)); then
		echo "CXDVIRT-SWEEP-END $name device"
		dev_down "$target" > /dev/null 2>&1
		continue
	fi
	# One warm-up pass, then two measured: the build pass writes every
	# page first, so the cache starts full.
	set -- cxdvirt-bench --timer $TIMER -t "$T" -L "$name" -n "$pages" -T "$threads" \
		--pattern "$pattern" -w "$wr" --access-size 4096 -p 2 --warmup 1 \
		--cdf /tmp/sw.cdf --json
	[ "$pattern" = stride ] && set -- "$@" --stride 2
	echo "# run $name: $*"
	"$@" > /tmp/sw.json 2> /tmp/sw.err
	st=$?
	echo "CXDVIRT-SWEEP-JSON $name"
	cat /tmp/sw.json
	echo "CXDVIRT-SWEEP-CDF $name"
	cat /tmp/sw.cdf 2>/dev/null
	sed 's/^/# stderr: /' /tmp/sw.err
	for s in $STATS; do
		[ -r "$SYSD/stats/$s" ] && echo "CXDVIRT-SWEEP-STAT $name $s $(cat "$SYSD/stats/$s")"
	done
	dev_down "$target" || echo "# $name: the device did not go down cleanly"
	echo "CXDVIRT-SWEEP-END $name $st"
done < /sweep.runs
nl_end
exit 0
