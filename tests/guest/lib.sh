# SPDX-License-Identifier: GPL-2.0
# Helpers for the guest tests (busy box sh), sourced as `. /tests/lib.sh`.
#
# TAP: results are numbered as they come and the plan is printed at the end
# by done_testing, which also sets the exit status.
#
#   ok STATUS DESC          ok if STATUS is 0          (cmd; ok $? "desc")
#   is GOT WANT DESC        string equality
#   is_num GOT WANT DESC    numeric equality; K/M/G suffixes and 0x allowed
#   cmp_ok A OP B DESC      numeric test: OP is one of -eq -ne -lt -le -gt -ge
#   diag MSG, skip DESC REASON, bail MSG (fail and end the test)
#   section NAME            a "# == NAME (t=S s)" line, S the seconds since
#                           the test began: where a slow test spends its time
#   run_sub DESC CMD...     run a progs/ checker printing "ok - ..." lines and
#                           number them into this stream
#   done_testing
#
# Devices (configfs /sys/kernel/config/cxdvirt/NAME):
#
#   dev_create NAME [attr=value...]   mkdir and set attributes
#   dev_set NAME ATTR VALUE           write; prints OK or the errno name
#   dev_get NAME ATTR
#   dev_on NAME / dev_off NAME        power 1 / 0 (status 0 on success)
#   dev_rm NAME                       power 0 (if on) and rmdir
#   dev_node NAME                     /dev/cxdvirtN
#   dev_sys NAME                      /sys/class/cxdvirt/cxdvirtN
#   stat_get NAME COUNTER             a stats/ counter
#   stats_reset NAME
#   klog_clear / klog_grep PATTERN    kernel log since the last klog_clear
#   klog_no_warnings                  one test: no cxdvirt line of the log
#                                     since klog_clear says warn or error
#                                     (the first five shown)
#   trace_on NAME                     tracefs instance NAME ($I, under $T),
#                                     every cxdvirt event enabled, 8 MiB
#                                     per CPU; bails without the events
#   trace_off                         stop and remove it (none: nothing)
#   wait_stopped PID                  wait up to 30 s for PID to stop
#                                     itself (SIGSTOP); prints its last
#                                     state: T once stopped
#   module_load                       insmod /cxdvirt.ko as /init does
#                                     (nl_unchecked=1 on a kernel without
#                                     BTF: the debug lane's)
#
#   redis_up NODE DIR   redis-server bound to NUMA node NODE (numactl
#                       --membind), on the unix socket DIR/redis.sock (the
#                       guest has no network, not even lo), no persistence;
#                       sets REDIS (its pid) and SOCK; waits up to 10 s for
#                       its PONG; status 0 once it answers

CFS=/sys/kernel/config/cxdvirt
PROGS=${PROGS:-/tests/progs}
T_N=0
T_FAIL=0

diag() {
	echo "$*" | sed 's/^/# /'
}

T_START=$(cut -d' ' -f1 /proc/uptime)
section() {
	echo "# == $* (t=$(awk -v a="$T_START" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s)"
}

pass() {
	T_N=$((T_N + 1))
	echo "ok $T_N - $*"
}

fail() {
	T_N=$((T_N + 1))
	T_FAIL=$((T_FAIL + 1))
	echo "not ok $T_N - $*"
}

ok() {
	local st=$1
	shift
	if [ "$st" = 0 ]; then pass "$@"; else fail "$@"; fi
}

is() {
	if [ "$1" = "$2" ]; then
		pass "$3"
	else
		fail "$3"
		diag "  got: '$1'"
		diag "  want: '$2'"
	fi
}

# to_num VALUE: decimal value of a number with an optional K/M/G suffix.
to_num() {
	local v=$1 mult=1
	case $v in
	*[kK]) mult=1024; v=${v%?} ;;
	*[mM]) mult=1048576; v=${v%?} ;;
	*[gG]) mult=1073741824; v=${v%?} ;;
	esac
	# Validate first: a bad expression in $((...)) ends the shell.
	case $v in
	0x|0x*[!0-9a-fA-F]*|"") echo "NaN($1)"; return ;;
	0x*) ;;
	-[0-9]*) case ${v#-} in *[!0-9]*) echo "NaN($1)"; return ;; esac ;;
	*[!0-9]*) echo "NaN($1)"; return ;;
	esac
	echo $((v * mult))
}

is_num() {
	is "$(to_num "$1")" "$(to_num "$2")" "$3"
}

cmp_ok() {
	if [ "$1" "$2" "$3" ] 2>/dev/null; then
		pass "$4"
	else
		fail "$4"
		diag "  failed: $1 $2 $3"
	fi
}

skip() {
	T_N=$((T_N + 1))
	echo "ok $T_N - $1 # SKIP $2"
}

# bail MSG: a failure that ends this test (not prove's "Bail out!", which
# would stop the other guest tests from being reported).
bail() {
	fail "$*"
	diag "test stopped here"
	done_testing
}

# run_sub DESC CMD...: run a checker that prints unnumbered TAP lines. Its
# results join this script's numbering. A checker that dies or exits
# non-zero without reporting a failure adds one failure.
run_sub() {
	local desc=$1 out=/tmp/run_sub.$$ rc nsub=0 nfail=0 line
	shift
	"$@" > "$out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case $line in
		"not ok"*)
			nsub=$((nsub + 1)); nfail=$((nfail + 1))
			fail "${line#not ok - }"
			;;
		"ok"*)
			nsub=$((nsub + 1))
			pass "${line#ok - }"
			;;
		"#"*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done < "$out"
	rm -f "$out"
	if [ "$rc" -gt 128 ]; then
		fail "$desc: killed by signal $((rc - 128))"
	elif [ "$rc" != 0 ] && [ "$nfail" = 0 ]; then
		fail "$desc: exited with status $rc"
	elif [ "$nsub" = 0 ]; then
		fail "$desc: reported nothing"
	fi
	return "$rc"
}

done_testing() {
	echo "1..$T_N"
	[ "$T_FAIL" = 0 ]
	exit $?
}

# --- devices ---------------------------------------------------------------

dev_set() {
	"$PROGS/sysop" write "$CFS/$1/$2" "$3"
}

dev_get() {
	cat "$CFS/$1/$2"
}

dev_create() {
	local name=$1 kv r
	shift
	if ! mkdir "$CFS/$name"; then
		diag "mkdir $CFS/$name failed"
		return 1
	fi
	for kv in "$@"; do
		r=$(dev_set "$name" "${kv%%=*}" "${kv#*=}")
		if [ "$r" != OK ]; then
			diag "$name: ${kv%%=*}=${kv#*=}: $r"
			return 1
		fi
	done
}

dev_node() {
	echo "/dev/cxdvirt$(cat "$CFS/$1/index")"
}

dev_sys() {
	echo "/sys/class/cxdvirt/cxdvirt$(cat "$CFS/$1/index")"
}

dev_on() {
	local r n i
	r=$(dev_set "$1" power 1)
	if [ "$r" != OK ]; then
		diag "$1: power 1: $r"
		return 1
	fi
	n=$(dev_node "$1")
	i=0
	while [ ! -c "$n" ] && [ $i -lt 20 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -c "$n" ] || { diag "$n did not appear"; return 1; }
}

dev_off() {
	local r
	r=$(dev_set "$1" power 0)
	[ "$r" = OK ] || { diag "$1: power 0: $r"; return 1; }
}

dev_rm() {
	[ -d "$CFS/$1" ] || return 0
	if [ "$(cat "$CFS/$1/power")" != 0 ]; then
		dev_off "$1" || return 1
	fi
	rmdir "$CFS/$1"
}

stat_get() {
	cat "$(dev_sys "$1")/stats/$2"
}

stats_reset() {
	echo 1 > "$(dev_sys "$1")/stats/reset"
}

# disk_wait DEV: load the virtio disk driver and wait up to 10 s for block
# device DEV (the host's CXDVIRT_DISK is /dev/vda, tests/vm/lib.sh).
disk_wait() {
	local i=0
	modprobe virtio_pci 2>/dev/null
	modprobe virtio_blk 2>/dev/null
	while [ ! -b "$1" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -b "$1" ]
}

klog_clear() {
	dmesg -c > /dev/null
}

module_load() {
	if [ -r /sys/kernel/btf/vmlinux ]; then
		insmod /cxdvirt.ko
	else
		insmod /cxdvirt.ko nl_unchecked=1
	fi
}

klog_no_warnings() {
	klog_grep "cxdvirt" | grep -i "warn\|error" | head -n 5 | sed 's/^/# /'
	is "$(klog_grep "cxdvirt" | grep -ci "warn\|error")" 0 \
		"no cxdvirt warning or error in the kernel log"
}

T=/sys/kernel/tracing
I=
trace_on() {
	[ -d "$T/events" ] || mount -t tracefs tracefs "$T" 2>/dev/null
	[ -d "$T/events/cxdvirt" ] ||
		bail "no $T/events/cxdvirt (tracefs: $(ls $T 2>&1 | head -n 3))"
	# No command-name recording (the boot's trace_options=norecord-cmd,
	# tests/vm/lib.sh): it would patch the scheduler's static keys.
	echo 0 > "$T/options/record-cmd" 2>/dev/null
	I=$T/instances/$1
	mkdir "$I" || bail "mkdir $I"
	echo 8192 > "$I/buffer_size_kb"
	echo 1 > "$I/events/cxdvirt/enable"
}

trace_off() {
	{ [ -n "$I" ] && [ -d "$I" ]; } || return 0
	echo 0 > "$I/tracing_on"
	echo 0 > "$I/events/cxdvirt/enable"
	rmdir "$I"
}

wait_stopped() {
	local st=
	for _ in $(seq 300); do
		st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)
		[ "$st" = T ] && break
		sleep 0.1
	done
	echo "$st"
}

klog_grep() {
	dmesg | grep -- "$1"
}

redis_up() {
	local i=0
	mkdir -p "$2"
	SOCK=$2/redis.sock
	numactl --membind="$1" redis-server --port 0 --unixsocket "$SOCK" \
		--save '' --appendonly no --dir "$2" > "$2/redis.log" 2>&1 &
	REDIS=$!
	until [ "$(redis-cli -s "$SOCK" ping 2>/dev/null)" = PONG ] || [ $i -ge 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	[ "$(redis-cli -s "$SOCK" ping 2>/dev/null)" = PONG ]
}

# --- node mode with node_latency (65, 68, 69) ---------------------------------
#
#   nl_begin NAME      mkdir the device; when this kernel has no node latency
#                      (node_latency defaults to off, 7.x), skip NAME, remove
#                      the device and end the test. THP set to always,
#                      Debian's default (the node gets 4 KiB pages whatever
#                      the setting: docs/numa-mode.md); nl_end restores it.
#   nl_power_up ATTR=V...   configure NL_DEV (8 channels x 4 dies, 1200 MB/s,
#                      scan off, then the ATTRs), power on, online it as node
#                      NL_NODE; sets S (sysfs folder), DAX, IDX.
#   nl_exclusive       status 0 if this kernel makes evicted pages
#                      device-exclusive entries (7.2), not PROT_NONE PTEs
#                      (node_latency/mechanism; after nl_power_up)
#   nl_power_down      offline the memory, power off (status 0 if both worked)
#   nl_end             offline, remove the device, restore THP
NL_DEV=nodelat
NL_NODE=2
NL_BASE=0x100000000
NL_THP=/sys/kernel/mm/transparent_hugepage/enabled
NL_THP0=

nl_begin() {
	NL_THP0=$(sed -n 's/.*\[\(.*\)\].*/\1/p' $NL_THP)
	mkdir "$CFS/$NL_DEV" || bail "mkdir $NL_DEV"
	if [ "$(dev_get $NL_DEV node_latency)" = off ]; then
		skip "$1" "node latency is not supported on $(uname -r)"
		rmdir "$CFS/$NL_DEV"
		done_testing
	fi
	trap nl_end EXIT
	echo always > $NL_THP
}

nl_exclusive() {
	[ "$(cat "$S/node_latency/mechanism")" = device-exclusive ]
}

nl_power_up() {
	dev_rm $NL_DEV 2>/dev/null
	dev_create $NL_DEV mode=node phys_addr=$NL_BASE capacity=512M \
		target_node=$NL_NODE channels=8 dies_per_channel=4 \
		channel_mbps=1200 scan_interval_ms=0 "$@" || return 1
	r=$(dev_set $NL_DEV power 1)
	[ "$r" = OK ] || { diag "power 1: $r"; return 1; }
	S=$(dev_sys $NL_DEV)
	DAX=$(cat "$S/dax_device")
	daxctl reconfigure-device --mode=system-ram "$DAX" > /dev/null 2>&1 ||
		return 1
	IDX=cxdvirt$(dev_get $NL_DEV index)
}

nl_power_down() {
	daxctl offline-memory "$DAX" > /dev/null 2>&1 || return 1
	r=$(dev_set $NL_DEV power 0)
	[ "$r" = OK ] || { diag "power 0: $r"; return 1; }
	DAX=
}

nl_end() {
	[ -n "$DAX" ] && daxctl offline-memory "$DAX" > /dev/null 2>&1
	DAX=
	dev_rm $NL_DEV 2>/dev/null
	[ -n "$NL_THP0" ] && echo "$NL_THP0" > $NL_THP
	trap - EXIT
}
