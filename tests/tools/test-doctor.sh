#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# cxdvirt-dev doctor against fake /proc, /sys and /lib/modules trees
# (CXDVIRT_PROC, CXDVIRT_SYS, CXDVIRT_MODULES). good() builds a host with
# nothing wrong; each case below changes one thing of it (one fixture per
# failure mode) and names the exit status and the message expected.
# Prints TAP.
set -u
cd "$(dirname "$0")/../.."
DEV=${1:-tools/cxdvirt-dev}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0

put() {	# FILE CONTENT...: write a fixture file, making its directory
	mkdir -p "$(dirname "$1")"
	local f=$1
	shift
	printf '%s\n' "$@" > "$f"
}

# A good host: 6.1 kernel, cxdvirt installed (signed) and loaded, configfs
# mounted, memmap=1G$4G reserved in iomem and usable RAM in the firmware's
# map, 128 MiB memory blocks, nodes 2-3 possible and empty, dax modules
# installed, auto_online_blocks offline, no NUMA balancing, THP madvise,
# tsc, performance governor, no IOMMU.
good() {
	local r=$1 P=$1/proc S=$1/sys M=$1/modules i
	rm -rf "$r"
	put "$P/sys/kernel/osrelease" 6.1.0-57-amd64
	put "$P/sys/kernel/modules_disabled" 0
	put "$P/modules" 'cxdvirt 200704 0 - Live 0x0000000000000000'
	put "$P/sys/kernel/numa_balancing" 0
	put "$P/cmdline" 'BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro memmap=1G$4G quiet'
	put "$P/mounts" 'sysfs /sys sysfs rw 0 0' 'configfs /sys/kernel/config configfs rw,relatime 0 0'
	printf 'nodev\tsysfs\nnodev\tconfigfs\n\text4\n' > "$P/filesystems"
	put "$P/iomem" \
		'00000000-00000fff : Reserved' \
		'00001000-0009ffff : System RAM' \
		'00100000-bfffffff : System RAM' \
		'  01000000-01ffffff : Kernel code' \
		'c0000000-fed1ffff : PCI Bus 0000:00' \
		'100000000-13fffffff : Reserved' \
		'140000000-23fffffff : System RAM'
	for i in 0:0x0:0x9ffff:'System RAM' 1:0x100000:0xbfffffff:'System RAM' \
		 2:0xfec00000:0xfec00fff:Reserved 3:0x100000000:0x23fffffff:'System RAM'; do
		IFS=: read -r idx s e t <<< "$i"
		put "$S/firmware/memmap/$idx/start" "$s"
		put "$S/firmware/memmap/$idx/end" "$e"
		put "$S/firmware/memmap/$idx/type" "$t"
	done
	put "$S/devices/system/memory/block_size_bytes" 8000000
	put "$S/devices/system/memory/auto_online_blocks" offline
	put "$S/devices/system/node/possible" 0-3
	put "$S/devices/system/node/has_memory" 0-1
	put "$S/module/cxdvirt/refcnt" 0
	put "$S/module/module/parameters/sig_enforce" N
	put "$S/kernel/security/lockdown" '[none] integrity confidentiality'
	put "$S/kernel/mm/transparent_hugepage/enabled" 'always [madvise] never'
	put "$S/devices/system/clocksource/clocksource0/current_clocksource" tsc
	for i in 0 1; do
		put "$S/devices/system/cpu/cpu$i/cpufreq/scaling_governor" performance
	done
	put "$M/modules.dep" \
		'kernel/drivers/dax/dax.ko:' \
		'kernel/drivers/dax/device_dax.ko: kernel/drivers/dax/dax.ko' \
		'kernel/drivers/dax/kmem.ko: kernel/drivers/dax/dax.ko' \
		'kernel/drivers/dax/hmem/dax_hmem.ko: kernel/drivers/dax/dax.ko' \
		'extra/cxdvirt.ko:'
	put "$M/modules.builtin" 'kernel/fs/configfs/configfs.ko'
	mkdir -p "$M/extra"
	{ printf 'ELF...'; printf '~Module signature appended~\n'; } > "$M/extra/cxdvirt.ko"
}

run() {	# ROOT ARGS...: doctor on ROOT; output in $tmp/out, status in $rc
	local r=$1
	shift
	CXDVIRT_PROC=$r/proc CXDVIRT_SYS=$r/sys CXDVIRT_MODULES=$r/modules \
		"$DEV" doctor "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
}

# CASE NAME EXPECTED-STATUS STATUS-WORD 'MESSAGE PATTERN' [SETUP COMMANDS]
# SETUP runs in the fixture root with $P $S $M set.
case_() {
	local name=$1 want=$2 word=$3 pat=$4 setup=${5-} r=$tmp/$1
	good "$r"
	(P=$r/proc S=$r/sys M=$r/modules; cd "$r" && eval "$setup")
	run "$r"
	n=$((n + 1))
	if [ "$rc" -eq "$want" ] && grep -E -- "^$word  " "$tmp/out" | grep -qE -- "$pat"; then
		echo "ok $n - $name: exit $rc, $word: $pat"
	else
		echo "not ok $n - $name: exit $rc (want $want), no '$word' line matching '$pat'"
		sed 's/^/# /' "$tmp/out" "$tmp/err"
		fails=$((fails + 1))
	fi
}

# The good host: exit 0, no FAIL or warn line.
good "$tmp/good"
run "$tmp/good"
n=$((n + 1))
if [ "$rc" -eq 0 ] && ! grep -qE '^(FAIL|warn) ' "$tmp/out" && grep -q '^0 failures, 0 warnings' "$tmp/out"; then
	echo "ok $n - good host: exit 0, every check ok"
else
	echo "not ok $n - good host: exit $rc"
	sed 's/^/# /' "$tmp/out" "$tmp/err"
	fails=$((fails + 1))
fi

case_ not-installed 1 FAIL 'cxdvirt.ko is not installed for kernel 6.1.0-57-amd64' \
	'sed -i /cxdvirt/d $M/modules.dep; rm -r $S/module/cxdvirt'
case_ loaded-not-installed 2 warn 'loaded but not installed' \
	'sed -i /cxdvirt/d $M/modules.dep'
case_ no-module-support 1 FAIL 'this kernel has no loadable module support' \
	'rm $P/modules $P/sys/kernel/modules_disabled; rm -r $S/module/cxdvirt'
case_ modules-disabled 1 FAIL 'module loading is disabled until reboot' \
	'echo 1 > $P/sys/kernel/modules_disabled; rm -r $S/module/cxdvirt'
case_ sig-enforce-unsigned 1 FAIL 'only signed modules \(module.sig_enforce\) and .*cxdvirt.ko is unsigned' \
	'echo Y > $S/module/module/parameters/sig_enforce; echo ELF > $M/extra/cxdvirt.ko; rm -r $S/module/cxdvirt'
case_ lockdown-unsigned 1 FAIL 'only signed modules \(lockdown\)' \
	'echo "none [integrity] confidentiality" > $S/kernel/security/lockdown; echo ELF > $M/extra/cxdvirt.ko; rm -r $S/module/cxdvirt'
case_ not-loaded 2 warn 'cxdvirt is not loaded' \
	'rm -r $S/module/cxdvirt'
case_ no-configfs 1 FAIL 'configfs is not mounted' \
	'sed -i /configfs/d $P/mounts'
case_ configfs-module 1 FAIL 'configfs is not loaded \(not in /proc/filesystems\)' \
	'sed -i /configfs/d $P/mounts $P/filesystems $M/modules.builtin; echo kernel/fs/configfs/configfs.ko: >> $M/modules.dep'
case_ configfs-missing 1 FAIL 'this kernel has no configfs' \
	'sed -i /configfs/d $P/mounts $P/filesystems $M/modules.builtin'
case_ memmap-truncated 1 FAIL 'memmap=4G has no address: the kernel limited RAM to 4G' \
	'sed -i "s/memmap=1G\\\$4G/memmap=4G/" $P/cmdline'
case_ memmap-dollar-lost 1 FAIL "memmap=4G0x100000000: the '\\$' between size and address is lost" \
	'sed -i "s/memmap=1G\\\$4G/memmap=4G0x100000000/" $P/cmdline'
case_ memmap-not-reserved 1 FAIL 'is System RAM in /proc/iomem, not reserved' \
	'sed -i "s/^100000000-13fffffff : Reserved/100000000-13fffffff : System RAM/" $P/iomem'
case_ memmap-partly-reserved 1 FAIL 'not all reserved in /proc/iomem' \
	'sed -i "s/memmap=1G\\\$4G/memmap=2G\\\$4G/" $P/cmdline; sed -i "s/^140000000-23fffffff : System RAM/140000000-23fffffff : pnp 00:01/" $P/iomem'
case_ memmap-unaligned 1 FAIL 'is not 2 MiB aligned' \
	'sed -i "s/memmap=1G\\\$4G/memmap=1G\\\$0x100100000/" $P/cmdline'
case_ memmap-not-block-aligned 2 warn 'not to the memory block size 0x8000000' \
	'sed -i "s/memmap=1G\\\$4G/memmap=64M\\\$4G/" $P/cmdline'
case_ memmap-not-ram 1 FAIL "not all usable RAM in the firmware's e820 map" \
	'echo 0x10fffffff > $S/firmware/memmap/3/end'
case_ iomem-not-root 2 warn 'run as root' \
	'sed -i "s/^[0-9a-f]*-[0-9a-f]* :/00000000-00000000 :/" $P/iomem'
case_ no-empty-node 2 warn 'no possible NUMA node without memory' \
	'echo 0-1 > $S/devices/system/node/possible'
case_ no-kmem 2 warn 'kmem is neither built in, loaded nor installed' \
	'sed -i /kmem/d $M/modules.dep'
case_ auto-online 2 warn 'auto_online_blocks is online: node-mode memory would go online as kernel memory' \
	'echo online > $S/devices/system/memory/auto_online_blocks'
case_ numa-balancing 2 warn 'NUMA balancing is on' \
	'echo 1 > $P/sys/kernel/numa_balancing'
case_ thp-always 2 warn 'transparent huge pages: always' \
	'echo "[always] madvise never" > $S/kernel/mm/transparent_hugepage/enabled'
case_ clocksource 2 warn 'the clocksource is hpet, not tsc' \
	'echo hpet > $S/devices/system/clocksource/clocksource0/current_clocksource'
case_ image-overruns 2 warn 'cxdvirt0: the NAND image was slower than the model on 3 of 10 image reads \(by 2000 ns on average\)' \
	'd=$S/class/cxdvirt/cxdvirt0/stats; mkdir -p $d; echo 3 > $d/io_overruns; echo 10 > $d/io_reads; echo 6000 > $d/io_over_ns'
case_ image-dirty 0 info 'cxdvirt0: the NAND image has had 2 dirty shutdown\(s\)' \
	'd=$S/class/cxdvirt/cxdvirt0/stats; mkdir -p $d; echo 2 > $d/dirty_shutdowns'
case_ governor 2 warn '1 of 2 CPUs do not use the performance governor \(cpu1=powersave\)' \
	'echo powersave > $S/devices/system/cpu/cpu1/cpufreq/scaling_governor'
case_ iommu-dma 0 info '1 of 1 IOMMU groups translate DMA' \
	'mkdir -p $S/kernel/iommu_groups/0; echo DMA-FQ > $S/kernel/iommu_groups/0/type'

# Every fix names a command: each non-ok text line is followed by "fix:".
n=$((n + 1))
r=$tmp/many
good "$r"
echo 'BOOT_IMAGE=/vmlinuz memmap=4G memmap=4G0x100000000' > "$r/proc/cmdline"
echo 1 > "$r/proc/sys/kernel/numa_balancing"
run "$r"
if [ "$rc" -eq 1 ] && [ "$(grep -cE '^(FAIL|warn) ' "$tmp/out")" -eq "$(grep -c ' fix: ' "$tmp/out")" ]; then
	echo "ok $n - every problem has a fix line"
else
	echo "not ok $n - every problem has a fix line (exit $rc)"
	fails=$((fails + 1))
fi

# JSON: the same results, parseable, with totals.
n=$((n + 1))
run "$r" --json
if [ "$rc" -eq 1 ] && python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
f = [c for c in o["checks"] if c["status"] == "fail"]
w = [c for c in o["checks"] if c["status"] == "warn"]
assert o["failures"] == len(f) == 2, o["failures"]
assert o["warnings"] == len(w) == 1, o["warnings"]
assert all(c.get("fix") for c in f + w)
assert any("has no address" in c["message"] for c in f)
' "$tmp/out"; then
	echo "ok $n - --json: 2 failures, 1 warning, each with a fix"
else
	echo "not ok $n - --json"
	sed 's/^/# /' "$tmp/out"
	fails=$((fails + 1))
fi
n=$((n + 1))
run "$tmp/good" --json
python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); assert o["failures"]==0 and o["warnings"]==0' "$tmp/out" && [ "$rc" -eq 0 ]
if [ $? -eq 0 ]; then echo "ok $n - --json on the good host: exit 0"; else echo "not ok $n - --json good"; fails=$((fails + 1)); fi

n=$((n + 1))
"$DEV" doctor --bogus > /dev/null 2>&1
rc=$?
if [ "$rc" -eq 2 ]; then echo "ok $n - unknown option: usage error"; else echo "not ok $n - unknown option: exit $rc"; fails=$((fails + 1)); fi

echo "1..$n"
[ "$fails" -eq 0 ]
