#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh [--kver KVER] [--out DIR] [--timeout SECS] [--icount SPEC | --tcg]
#
# Boot the test guest, create two devices (presets znand and tlc), run
# cxdvirt-bench on each, then a node-mode znand device with the bench run
# under numactl --membind, and print a table of hit and miss latency
# (P50/P99) taken from the guest's output, each miss P50 against the model.
# Needs `make` (module and tools) first; `make demo` does both.
#
# The guest runs under QEMU -icount SPEC (default shift=0,sleep=off):
# guest time is the instructions it executes (1 ns each) plus the modeled
# waits, so the figures do not depend on how busy the host is, and a miss
# reads as the model plus the emulated fault path. --tcg runs
# multi-threaded TCG instead, whose timings are the host's and much noisier.
#
# The bench command lines are the BENCH_*_ARGS below; the device options are
# DEV_OPTS (cxdvirt-dev) and CONFIGFS_OPTS plus the PRESET_* lists (used
# when cxdvirt-dev is missing or fails).
set -euo pipefail

LANE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$LANE_DIR/lib.sh"

# --- what the guest runs -----------------------------------------------------
PRESETS="znand tlc"
# Hits: a working set inside the cache (8 MiB = 2048 pages), warmed up by
# the bench. Misses: the same with an eviction pass before each measured pass.
BENCH_hit_ARGS="--pages 1024 --passes 3 --pattern chase --json"
BENCH_miss_ARGS="--pages 1024 --passes 3 --pattern chase --evict --json"
DEV_OPTS="--capacity 64M --cache-size 8M"
CONFIGFS_OPTS="cache_size=8M capacity=64M"
PRESET_znand="t_read_ns=3000 t_prog_ns=100000 channels=8 dies_per_channel=16 channel_mbps=1200 nand_page_size=4096"
PRESET_tlc="t_read_ns=40000 t_prog_ns=200000 channels=8 dies_per_channel=8"
# The third row: a node-mode device (znand) as NUMA node 2 of the guest, and
# the bench on anonymous memory under numactl --membind=2. Misses: an
# eviction pass of 4096 pages (twice the 2048-line cache) before each pass.
NODE_NODE=2
NODE_CONFIGFS_OPTS="mode=node phys_addr=0x100000000 capacity=512M target_node=2 cache_size=8M"
# Anonymous memory has no device counters to set the hit/miss threshold, and
# under TCG the node-mode miss path (fault, task_work, eviction with a TLB
# flush IPI to every CPU) costs far more than the model: a fixed 4 us cut.
BENCH_NODE_hit_ARGS="--pages 1024 --passes 3 --pattern chase --threshold 4000 --json"
BENCH_NODE_miss_ARGS="--pages 1024 --passes 3 --pattern chase --evict --evict-pages 4096 --threshold 4000 --json"
# ------------------------------------------------------------------------------

kver=
out=$LANE_DIR/out/demo
tmo=600
icount=shift=0,sleep=off
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--timeout) tmo=$2; shift 2 ;;
	--icount) icount=$2; shift 2 ;;
	--tcg) icount=; shift ;;
	-h|--help) sed -n '3,19p' "$0"; exit 0 ;;
	*) lane_die "unknown argument $1 (see --help)" ;;
	esac
done
[ -n "$kver" ] || kver=$(lane_default_kver)
[ -n "$kver" ] || lane_die "no kernel version"
[ -x "$REPO_ROOT/tools/cxdvirt-bench" ] || lane_die "tools/cxdvirt-bench not built (make tools)"

mkdir -p "$out"
env_file=$out/demo.env
{
	for v in PRESETS BENCH_hit_ARGS BENCH_miss_ARGS DEV_OPTS CONFIGFS_OPTS PRESET_znand PRESET_tlc \
		NODE_NODE NODE_CONFIGFS_OPTS BENCH_NODE_hit_ARGS BENCH_NODE_miss_ARGS; do
		printf "%s='%s'\n" "$v" "${!v}"
	done
} > "$env_file"

kdir_img=$("$LANE_DIR/fetch-kernel.sh" "$kver")
"$LANE_DIR/build-initramfs.sh" --kernel-dir "$kdir_img" --kver "$kver" \
	--out "$out/initramfs.cpio.gz" --tests '' \
	--file "$LANE_DIR/demo-guest.sh:/demo.sh" --file "$env_file:/demo.env"

console=$out/console.log
taplog=$out/guest-tap.log
lane_log "booting the demo guest (console: $console)"
rc=0
extra=()
if [ -n "$icount" ]; then
	lane_icount "$icount"
	extra=(maxcpus=1 demo_online_cpus=1)
	how="QEMU -icount $icount: guest time = instructions executed (1 ns each) + modeled waits"
else
	how="multi-threaded TCG: host-timed, noisy (a loaded host inflates every figure)"
fi
lane_boot "$kdir_img/vmlinuz" "$out/initramfs.cpio.gz" "$console" "$taplog" "$tmo" \
	cxdvirt_mode=demo "${extra[@]}" || rc=$?

failed=0
[ $rc = 0 ] || { echo "demo: qemu status $rc (124: timeout)"; failed=1; }
tr -d '\r' < "$taplog" | grep -qx CXDVIRT-GUEST-DONE ||
	{ echo "demo: the guest did not finish"; failed=1; }
bad=$(lane_bad_lines "$console")
[ -z "$bad" ] || { echo "demo: kernel problems on the console:"; echo "$bad" | head -n 20; failed=1; }

# The table, from the guest's framed JSON.
tr -d '\r' < "$taplog" | HOW="$how" perl -MJSON::PP -e '
	my (%dev, %res, %cal, @order, $cur, $buf);
	while (<STDIN>) {
		chomp;
		if (/^CXDVIRT-DEMO-DEV (\S+) (\S+) (\S+) (.*)$/) {
			my %a = map { split /=/, $_, 2 } split / /, $4;
			my $k = $3 eq "numactl" ? "$1\@$2" : $1;
			$dev{$k} = { preset => $1, node => $2, how => $3, %a };
			push @order, $k;
		} elsif (/^CXDVIRT-DEMO-CAL (\S+) (\S+)$/) {
			$cal{$1} = $2;
		} elsif (/^CXDVIRT-DEMO-JSON (\S+) (\S+)$/) {
			$cur = "$1 $2"; $buf = "";
		} elsif (/^CXDVIRT-DEMO-JSON-END$/) {
			my $j = eval { decode_json($buf) };
			$res{$cur} = $j if $j;
			print STDERR "demo: bad JSON for $cur\n" unless $j;
			undef $cur;
		} elsif (defined $cur) {
			$buf .= "$_\n";
		}
	}
	sub us { my $v = shift; return defined $v ? sprintf("%.1f", $v / 1000) : "-" }
	my $fmt = "%-8s %-14s %-11s %9s %9s %9s %9s %10s %10s %8s %8s %9s\n";
	printf $fmt, "preset", "device", "created by",
		"hit P50", "hit P99", "miss P50", "miss P99", "model", "P50/model", "hits", "misses", "exit";
	printf $fmt, "", "", "", "us", "us", "us", "us", "us", "", "", "", "ns";
	my $ok = @order ? 1 : 0;
	for my $k (@order) {
		my $d = $dev{$k};
		my $p = $d->{preset};
		my $h = $res{"$k hit"}  // {};
		my $m = $res{"$k miss"} // {};
		$ok = 0 unless %$h && %$m;
		my $xfer = int(($d->{nand_page_size} * 1000 + $d->{channel_mbps} - 1) / $d->{channel_mbps});
		my $model = $d->{t_read_ns} + $xfer;
		my $mp = $m->{misses}{p50_ns};
		printf $fmt, $p, $d->{node}, $d->{how},
			us($h->{hits}{p50_ns}), us($h->{hits}{p99_ns}),
			us($mp), us($m->{misses}{p99_ns}), us($model),
			defined $mp && $model ? sprintf("%.2f", $mp / $model) : "-",
			$h->{hits}{count} // "-", $m->{misses}{count} // "-", $cal{$k} // "-";
	}
	print "model = t_read_ns + nand_page_size / channel_mbps (one uncontended miss)\n";
	print "exit = fault_exit_ns from cxdvirt-dev calibrate: the fault'"'"'s cost after the\n";
	print "  module'"'"'s wait, which each miss'"'"'s wait leaves room for\n";
	print "node2: node-mode device, bench run under numactl --membind=2 (node_latency on)\n";
	print "timing: $ENV{HOW}\n";
	print "what the guest shows: a miss costs the model (P50/model near 1.00; more where\n";
	print "  the emulated fault path is longer than the model); a hit is a load run\n";
	print "  natively, and its figure is the instructions of one chase step and the\n";
	print "  bench'"'"'s two clock reads, not DRAM latency. A real host runs both at\n";
	print "  hardware speed (docs/performance.md).\n";
	exit($ok ? 0 : 1);
' || failed=1

if [ $failed = 1 ]; then
	echo "---- demo guest output ($taplog) ----"
	tr -d '\r' < "$taplog" | grep -v '^ ' | tail -n 40
	exit 1
fi
