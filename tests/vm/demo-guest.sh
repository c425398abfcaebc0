#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/demo.sh, run by /init as /demo.sh. Settings come
# from /demo.env, written by demo.sh. Creates one device per preset, runs
# cxdvirt-bench on each and prints its JSON between marker lines:
#
#   CXDVIRT-DEMO-DEV <preset> <device> <how created> t_read_ns=.. channel_mbps=.. nand_page_size=..
#   CXDVIRT-DEMO-CAL <preset> <fault_exit_ns, or "-" if calibrate failed>
#   CXDVIRT-DEMO-JSON <preset> <hit|miss>
#   {...}
#   CXDVIRT-DEMO-JSON-END
. /demo.env
CFS=/sys/kernel/config/cxdvirt

# cal NAME KEY: cxdvirt-dev calibrate (fault_exit_ns: the fault's cost after
# the module's wait, hidden inside the modeled time; docs/interface.md)
cal() {
	local e
	e=$(cxdvirt-dev calibrate "$1" --json 2> /tmp/cal.err |
		sed -n 's/^ *"fault_exit_ns": \([0-9]*\),\{0,1\}$/\1/p')
	[ -n "$e" ] || sed 's/^/# calibrate: /' /tmp/cal.err
	echo "CXDVIRT-DEMO-CAL $2 ${e:--}"
}

create() {	# create PRESET: prints how it was created
	local p=$1 name=demo_$1 kv
	if [ -x /bin/cxdvirt-dev ] &&
	   cxdvirt-dev create "$name" --preset "$p" $DEV_OPTS --enable > /tmp/create.out 2>&1; then
		echo cxdvirt-dev
		return 0
	fi
	[ -x /bin/cxdvirt-dev ] && sed 's/^/# cxdvirt-dev: /' /tmp/create.out >&2
	[ -d "$CFS/$name" ] && rmdir "$CFS/$name"
	mkdir "$CFS/$name" || return 1
	eval "kvs=\$PRESET_$p"
	for kv in $CONFIGFS_OPTS $kvs; do
		echo "${kv#*=}" > "$CFS/$name/${kv%%=*}" || { echo "# $name: $kv refused" >&2; return 1; }
	done
	echo 1 > "$CFS/$name/power" || return 1
	echo configfs
}

for p in $PRESETS; do
	how=$(create "$p") || { echo "# cannot create a $p device"; continue; }
	d=$CFS/demo_$p
	echo "CXDVIRT-DEMO-DEV $p /dev/cxdvirt$(cat $d/index) $how" \
		"t_read_ns=$(cat $d/t_read_ns) channel_mbps=$(cat $d/channel_mbps)" \
		"nand_page_size=$(cat $d/nand_page_size) channels=$(cat $d/channels)" \
		"dies_per_channel=$(cat $d/dies_per_channel) cache_size=$(cat $d/cache_size)"
done

# Under QEMU -icount the guest boots with maxcpus=1 (an SMP bring-up there
# hangs); the other vCPU comes online here (demo.sh sets demo_online_cpus).
if [ -n "${demo_online_cpus:-}" ]; then
	for c in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$c")" = 1 ] || echo 1 > "$c" || echo "# cannot online ${c%/online}"
	done
fi

if [ ! -x /bin/cxdvirt-bench ]; then
	echo "# cxdvirt-bench is not in the guest (make tools)"
	exit 1
fi
st=0
for p in $PRESETS; do
	d=$CFS/demo_$p
	[ -d "$d" ] || { st=1; continue; }
	dev=/dev/cxdvirt$(cat $d/index)
	cal "demo_$p" "$p"
	for kind in hit miss; do
		eval "args=\$BENCH_${kind}_ARGS"
		echo "# cxdvirt-bench --device $dev $args"
		echo "CXDVIRT-DEMO-JSON $p $kind"
		cxdvirt-bench --device "$dev" $args || st=1
		echo "CXDVIRT-DEMO-JSON-END"
	done
done
for p in $PRESETS; do
	[ -d "$CFS/demo_$p" ] || continue
	echo 0 > "$CFS/demo_$p/power"
	rmdir "$CFS/demo_$p"
done

# Node mode: the znand model applied to memory onlined as NUMA node
# $NODE_NODE (docs/numa-mode.md), measured with an unmodified program run
# under numactl --membind.
d=$CFS/demo_node
if mkdir "$d"; then
	for kv in $NODE_CONFIGFS_OPTS $PRESET_znand; do
		echo "${kv#*=}" > "$d/${kv%%=*}" || echo "# demo_node: $kv refused"
	done
	if echo 1 > "$d/power"; then
		dax=$(cat /sys/class/cxdvirt/cxdvirt$(cat $d/index)/dax_device)
		daxctl reconfigure-device --mode=system-ram "$dax" > /dev/null 2>&1 ||
			echo "# daxctl reconfigure-device $dax failed"
		echo "CXDVIRT-DEMO-DEV znand node$NODE_NODE numactl" \
			"t_read_ns=$(cat $d/t_read_ns) channel_mbps=$(cat $d/channel_mbps)" \
			"nand_page_size=$(cat $d/nand_page_size) channels=$(cat $d/channels)" \
			"dies_per_channel=$(cat $d/dies_per_channel) cache_size=$(cat $d/cache_size)" \
			"node_latency=$(cat $d/node_latency)"
		cal demo_node "znand@node$NODE_NODE"
		for kind in hit miss; do
			eval "args=\$BENCH_NODE_${kind}_ARGS"
			echo "# numactl --membind=$NODE_NODE cxdvirt-bench --target anon $args"
			echo "CXDVIRT-DEMO-JSON znand@node$NODE_NODE $kind"
			numactl --membind=$NODE_NODE cxdvirt-bench --target anon $args || st=1
			echo "CXDVIRT-DEMO-JSON-END"
		done
		daxctl offline-memory "$dax" > /dev/null 2>&1
		echo 0 > "$d/power" || echo "# demo_node: power 0 refused"
	else
		echo "# cannot power on a node-mode device"
		st=1
	fi
	rmdir "$d"
fi
exit $st
