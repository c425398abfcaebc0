#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of tools/workloads/workloads.sh, run by /init as /demo.sh.
# Runs every line of /wl.runs:
#
#   ID KIND MODE CACHE_BYTES ARGS...
#
# KIND wl (cxdvirt-wl ARGS), redis-zipf / redis-bench / redis-sync /
# memcached (ARGS: keys ops),
# sysbench (ARGS: block_bytes total_bytes), fio (ARGS: size_bytes io_bytes);
# MODE dram (plain DRAM of node 0), node (a node-mode device as NUMA node 2,
# the program bound with numactl --membind=2) or dax (a devdax device). A
# device is fresh for each run: FIFO, accessed-bit scan off, the default
# NAND (8 channels x 4 dies, tR 3 us), CACHE_BYTES of cache. Per run:
#
#   CXDVIRT-WL-BEGIN ID
#   CXDVIRT-WL-JSON {...}          the program's (or cxdvirt-wl exec's) JSON
#   CXDVIRT-WL-STAT NAME VALUE     device counters after the run
#   CXDVIRT-WL-HIST LOW_NS COUNT   stats/miss_latency_hist
#   CXDVIRT-WL-NOTE TEXT           what the run did (engine, server memory)
#   CXDVIRT-WL-OUT TEXT            the last lines the program printed
#   CXDVIRT-WL-END ID STATUS
. /tests/lib.sh

DAXDEV=wldax
STATS="misses read_misses write_misses minor_hits evictions dirty_evictions writebacks miss_ns_total model_ns_total elapsed_ns"

note() { echo "CXDVIRT-WL-NOTE $*"; }

# dev_up MODE CACHE: a fresh device; sets SYSD (its sysfs folder), DEV
# (devdax node) and NODE (the NUMA node to bind to).
dev_up() {
	case $1 in
	dram)
		SYSD='' DEV='' NODE=0 ;;
	node)
		nl_power_up cache_size="$2" policy=fifo || return 1
		SYSD=$S DEV='' NODE=$NL_NODE ;;
	dax)
		dev_rm $DAXDEV 2>/dev/null
		dev_create $DAXDEV capacity=64M cache_size="$2" policy=fifo \
			scan_interval_ms=0 || return 1
		dev_on $DAXDEV || return 1
		SYSD=$(dev_sys $DAXDEV) DEV=$(dev_node $DAXDEV) NODE=0 ;;
	esac
	[ -z "$SYSD" ] || echo 1 > "$SYSD/stats/reset"
}

dev_down() {
	case $1 in
	node) nl_power_down ;;
	dax) dev_rm $DAXDEV ;;
	esac
}

# report: the JSON lines of /tmp/wl.out, then the device's counters.
report() {
	grep '^{' /tmp/wl.out | sed 's/^/CXDVIRT-WL-JSON /'
	grep -v '^{' /tmp/wl.out | tail -n 5 | sed 's/^/CXDVIRT-WL-OUT /'
	[ -n "$SYSD" ] || return 0
	for s in $STATS; do
		echo "CXDVIRT-WL-STAT $s $(cat "$SYSD/stats/$s")"
	done
	sed 's/^/CXDVIRT-WL-HIST /' "$SYSD/stats/miss_latency_hist"
}

# Servers: started bound to NODE before the stats reset, loaded, then the
# timed request phase.
# zipf: the requests piped into redis-cli --pipe; sync: sent one at a
# time by cxdvirt-wl zipf --redis (load and requests), as traced on the
# build host; bench: redis-benchmark.
redis_run() {	# redis_run zipf|bench|sync KEYS OPS
	local st
	redis_up "$NODE" /tmp/redis || { note "redis-server did not answer"; return 1; }
	if [ "$1" = sync ]; then
		cxdvirt-wl zipf --keys "$2" --ops 0 --load --value-size 1024 \
			--redis "$SOCK" > /tmp/redis.load 2>&1
	else
		cxdvirt-wl zipf --keys "$2" --ops 0 --load --value-size 1024 |
			redis-cli -s "$SOCK" --pipe > /tmp/redis.load 2>&1
	fi || { note "load: $(tail -n 1 /tmp/redis.load)"; kill "$REDIS"; return 1; }
	# the statistics from here on: the reads of the requests (below)
	redis-cli -s "$SOCK" config resetstat > /dev/null
	note "redis used_memory $(redis-cli -s "$SOCK" info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p')"
	[ -z "$SYSD" ] || echo 1 > "$SYSD/stats/reset"
	if [ "$1" = zipf ]; then
		cxdvirt-wl zipf --keys "$2" --ops "$3" --value-size 1024 > /tmp/zipf.resp
		cxdvirt-wl exec sh -c "redis-cli -s $SOCK --pipe < /tmp/zipf.resp" > /tmp/wl.out 2>&1
	elif [ "$1" = sync ]; then
		cxdvirt-wl exec cxdvirt-wl zipf --keys "$2" --ops "$3" --value-size 1024 \
			--redis "$SOCK" > /tmp/wl.out 2>&1
	else
		cxdvirt-wl exec redis-benchmark -s "$SOCK" -t get,set -r "$2" -n "$3" -d 1024 \
			-c 1 -q > /tmp/wl.out 2>&1
	fi
	st=$?
	# How the requests reached the server: the reads it processed and its
	# peak memory (a reply buffer's growth), as workloads.sh records them
	# for the traced run.
	note "redis batching $(redis-cli -s "$SOCK" info | tr -d '\r' | awk -F: '
		$1 == "total_reads_processed" { r = $2 }
		$1 == "used_memory_peak" { p = $2 }
		END { print "reads " r " peak " p }')"
	redis-cli -s "$SOCK" shutdown nosave > /dev/null 2>&1
	wait "$REDIS" 2>/dev/null
	return $st
}

# memcached bound to NODE on a unix socket (no network in the guest), 64 MiB
# of item memory, one worker thread, 1012 connections at most (what it can
# set under valgrind on the build host, where it is traced: workloads.sh);
# loaded, then Zipf GET/SET.
memcached_run() {	# memcached_run KEYS OPS
	local st i=0
	rm -f /tmp/mc.sock
	numactl --membind="$NODE" memcached -u root -s /tmp/mc.sock -m 64 -t 1 -c 1012 > /tmp/mc.log 2>&1 &
	MC=$!
	while [ ! -S /tmp/mc.sock ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
	cxdvirt-wl zipf --keys "$1" --ops 0 --load --value-size 1024 --memcached /tmp/mc.sock > /tmp/mc.load 2>&1 ||
		{ note "memcached load: $(tail -n 1 /tmp/mc.load)"; kill "$MC"; return 1; }
	[ -z "$SYSD" ] || echo 1 > "$SYSD/stats/reset"
	cxdvirt-wl exec cxdvirt-wl zipf --keys "$1" --ops "$2" --value-size 1024 \
		--memcached /tmp/mc.sock > /tmp/wl.out 2>&1
	st=$?
	kill "$MC"
	wait "$MC" 2>/dev/null
	return $st
}

# fio: the dev-dax engine on the device if it accepts it, else mmap (the
# reason is kept as a note); on DRAM, mmap of a tmpfs file.
fio_run() {	# fio_run SIZE IO
	# the options of fio_opts in workloads.sh, which traces the mmap run
	local common="--name=wl --rw=randread --bs=4k --size=$1 --io_size=$2 --randrepeat=1 --norandommap --thread"
	if [ -n "$DEV" ]; then
		if fio $common --ioengine=dev-dax --filename="$DEV" > /tmp/fio.try 2>&1; then
			note "fio engine dev-dax"
			cxdvirt-wl exec fio $common --ioengine=dev-dax --filename="$DEV" > /tmp/wl.out 2>&1
			return
		fi
		note "fio dev-dax refused: $(grep -iv '^{' /tmp/fio.try | grep -i 'err\|fail\|invalid' | head -n 1)"
		note "fio engine mmap"
		echo 1 > "$SYSD/stats/reset"
		cxdvirt-wl exec fio $common --ioengine=mmap --filename="$DEV" > /tmp/wl.out 2>&1
	else
		note "fio engine mmap (tmpfs file)"
		cxdvirt-wl exec fio $common --ioengine=mmap --filename=/tmp/fio.dat > /tmp/wl.out 2>&1
	fi
}

nl_begin "workloads"
total=$(grep -c . /wl.runs)
i=0
while read -r id kind mode cache args; do
	[ -n "$id" ] || continue
	i=$((i + 1))
	echo "CXDVIRT-WL-BEGIN $id $i/$total"
	: > /tmp/wl.out
	if ! dev_up "$mode" "$cache"; then
		echo "CXDVIRT-WL-END $id device"
		dev_down "$mode" > /dev/null 2>&1
		continue
	fi
	set -- $args
	case $kind in
	wl)
		if [ "$mode" = dax ]; then
			cxdvirt-wl --dax "$DEV" "$@" > /tmp/wl.out 2>&1
		else
			numactl --membind="$NODE" cxdvirt-wl "$@" > /tmp/wl.out 2>&1
		fi ;;
	redis-zipf) redis_run zipf "$@" ;;
	redis-bench) redis_run bench "$@" ;;
	redis-sync) redis_run sync "$@" ;;
	memcached) memcached_run "$@" ;;
	sysbench)
		# seeded and without a time limit: the traced run's accesses
		cxdvirt-wl exec numactl --membind="$NODE" sysbench memory --threads=1 \
			--memory-block-size="$1" --memory-total-size="$2" \
			--memory-access-mode=rnd --rand-seed=1 --time=0 run > /tmp/wl.out 2>&1 ;;
	fio) fio_run "$@" ;;
	*) note "unknown kind $kind"; false ;;
	esac
	st=$?
	report
	dev_down "$mode" || note "device did not go down cleanly"
	echo "CXDVIRT-WL-END $id $st"
done < /wl.runs
nl_end
exit 0
