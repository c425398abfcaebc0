# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the host-side lane scripts (sourced, not run).

LANE_DIR=${LANE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
REPO_ROOT=${REPO_ROOT:-$(cd "$LANE_DIR/../.." && pwd)}

lane_log() { echo "lane: $*" >&2; }
lane_die() { echo "lane: error: $*" >&2; exit 1; }

# The kernel build tree, chosen like the top-level Makefile does.
lane_kdir() {
	if [ -n "${KDIR:-}" ]; then
		echo "$KDIR"
	elif [ -d "/lib/modules/$(uname -r)/build" ]; then
		echo "/lib/modules/$(uname -r)/build"
	else
		ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1
	fi
}

# The release string modules are built for (vermagic, /lib/modules/<KVER>).
# Debian's headers put the upstream version (e.g. 6.1.192) in
# include/config/kernel.release and the package release (6.1.0-57-amd64) in
# utsrelease.h, so the latter is read first.
lane_kver_of() {
	local kdir=$1 v=
	if [ -f "$kdir/include/generated/utsrelease.h" ]; then
		v=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$kdir/include/generated/utsrelease.h")
	fi
	if [ -z "$v" ] && [ -f "$kdir/include/config/kernel.release" ]; then
		v=$(cat "$kdir/include/config/kernel.release")
	fi
	echo "$v"
}

lane_default_kver() {
	local kdir
	kdir=$(lane_kdir)
	[ -n "$kdir" ] && [ -d "$kdir" ] || return 0
	lane_kver_of "$kdir"
}

# Where fetched kernels are kept.
lane_cache_root() {
	local c=${CXDVIRT_CACHE:-/var/cache/cxdvirt}
	if mkdir -p "$c" 2>/dev/null && [ -w "$c" ]; then
		echo "$c"
	else
		mkdir -p "$LANE_DIR/.cache"
		echo "$LANE_DIR/.cache"
	fi
}

# Console lines that mean the guest kernel went wrong. Most splats of the
# debug kernel (tests/vm/debug.config) start with BUG: or WARNING: too; the
# hung task detector says "INFO: task X blocked for more than N seconds",
# debugobjects "ODEBUG:".
LANE_BAD_RE='BUG:|WARNING:|Oops|panic|lockdep|KASAN|soft lockup|hung task|Call Trace'
LANE_BAD_RE+='|blocked for more than|ODEBUG:|sleeping function called from invalid context'
LANE_BAD_RE+='|possible circular locking|inconsistent lock state'

# lane_bad_lines CONSOLE: print the offending console lines (the kernel
# command line itself, which names panic=, is not one of them, nor the
# debug kernel's boot banner "RCU lockdep checking is enabled.").
lane_bad_lines() {
	tr -d '\r' < "$1" | grep -nE "$LANE_BAD_RE" | grep -vE 'Command line:|Kernel command line:|RCU lockdep checking is enabled' || true
}

# lane_bad_context CONSOLE: each offending console line (lane_bad_lines)
# under the name of the guest test that was running, with the 12 lines that
# follow it (the splat's first frames), for a log that keeps only its tail.
lane_bad_context() {
	tr -d '\r' < "$1" | awk -v re="$LANE_BAD_RE" '
		/init: running / { test = $0; sub(/.*init: running /, "", test) }
		$0 ~ re && $0 !~ /Command line:|Kernel command line:|RCU lockdep checking is enabled/ {
			if (after == 0)
				print "== during " (test == "" ? "boot" : test) ", line " NR ":"
			after = 13
		}
		after > 0 { print; after-- }'
}

# lane_eflags_impossible CONSOLE: for each register dump on the console
# whose EFLAGS has a bit no x86-64 CPU sets in a saved frame (the reserved
# bits 3, 5, 15 and 22 and up, or VM in long mode), one line naming it. The
# frame of an exception is pushed by the CPU, here QEMU, so such a value
# says the emulator's own state was inconsistent when it took the
# exception; the run fails all the same (docs/testing.md, "Emulator
# faults"). Prints nothing when every dump is possible.
lane_eflags_impossible() {
	tr -d '\r' < "$1" | awk '
		match($0, /EFLAGS: [0-9a-fA-F]+/) {
			v = tolower(substr($0, RSTART + 8, RLENGTH - 8))
			sub(/^0+/, "", v)
			n = length(v)
			# bits 22 and up: a seventh hex digit, or the sixth (bits
			# 20-23) at 4 or more
			bad = n > 6 || (n == 6 && index("0123456789abcdef", substr(v, 1, 1)) > 4)
			x = 0	# bits 0-19
			for (i = (n > 5 ? n - 4 : 1); i <= n; i++)
				x = x * 16 + index("0123456789abcdef", substr(v, i, 1)) - 1
			# bit 3, 5, 15 reserved; bit 17 (VM) never in long mode
			if (int(x / 8) % 2 || int(x / 32) % 2 || int(x / 32768) % 2 || int(x / 131072) % 2)
				bad = 1
			if (bad)
				printf "line %d: EFLAGS 0x%s has bits no x86-64 CPU pushes: the emulator state was inconsistent (docs/testing.md, \"Emulator faults\")\n", NR, v
		}'
}

# lane_boot KERNEL INITRD CONSOLE TAPLOG TIMEOUT [CMDLINE-EXTRA...]
#
# Boot the test guest under TCG. The console (ttyS0) goes to CONSOLE, the
# second serial port (ttyS1, where /init writes the framed TAP) to TAPLOG.
# NUMA layout (see shared notes, guest-lane.md):
#   node0  CPUs + 1536M
#   node1  1536M, memory only (backing memory for devices)
#   node2  512M at 0x100000000, hidden by memmap=1G$4G: a reserved range
#          the module can claim (phys_addr=0x100000000)
#   node3  512M at 0x120000000, hidden by the same memmap=; also owns the
#          hotplug range (slots/maxmem). Nodes 2 and 3 are possible but have
#          no memory: node-mode devices can bring them up.
# CXDVIRT_NUMA=two-node: no empty node instead (tests/vm/acpi-guest.sh):
#   node0  CPUs + 1536M; node1 2560M (1.5G-3G and 4G-5G), whose 4G-5G the
#          same memmap=1G$4G hides. The firmware's SRAT has nodes 0-1 only.
# Returns QEMU's status; 124 when the timeout fired, 125 when the guest
# never reached /init within LANE_BOOT_TMO seconds (default 240; the boot
# watchdog below).
#
# A kernel that stopped before /init wrote its first TAP frame (hung, or
# died with a splat on the console) ran nothing of ours: /init loads the
# module after that frame. It is booted again, up to LANE_BOOTS times in
# all (default 3), saying so; the failed boot's console is kept as
# CONSOLE.bootN. Seen: the debug kernel idle for minutes in its RCU-tasks
# self tests; 6.12 dying in sched_clock_cpu with "Oops: int3" when
# sched_clock_init_late() switched its static key while the other vCPU ran
# that code (a text patch racing a vCPU under multi-threaded TCG,
# docs/testing.md). A splat after the first frame fails the run as always.
lane_boot() {
	local console=$3 taplog=$4 rc boots=1 why bad
	# a retry's seed (below) stays with this boot, not the caller's next
	local LANE_QEMU_EXTRA=${LANE_QEMU_EXTRA:-}
	while :; do
		rc=0
		lane_boot_once "$@" || rc=$?
		bad=
		[ -s "$taplog" ] || bad=$(lane_bad_lines "$console" | head -n 1)
		if [ "$rc" = 125 ]; then
			why="hung before /init"
		elif [ -n "$bad" ]; then
			why="died before /init: $(echo "$bad" | cut -c1-120)"
		else
			return "$rc"
		fi
		[ "$boots" -lt "${LANE_BOOTS:-3}" ] || return "$rc"
		cp "$console" "$console.boot$boots"
		lane_log "boot $boots $why (console: $console.boot$boots); nothing of cxdvirt ran: booting once more"
		# An icount boot of one image and seed repeats itself exactly
		# (lane_icount): the retry draws the next seed, or it would hang
		# the same way. The run is then another, as reproducible.
		case " ${LANE_QEMU_EXTRA:-} " in
		*" -seed "*)
			LANE_QEMU_EXTRA=$(sed "s/-seed [0-9]*/-seed $((${LANE_SEED:-1} + boots))/" <<< "$LANE_QEMU_EXTRA")
			lane_log "the retry boots with -seed $((${LANE_SEED:-1} + boots))"
			;;
		esac
		boots=$((boots + 1))
	done
}

# lane_pack_cpio DIR OUT: DIR as a gzip'd newc cpio (an initramfs) in OUT,
# with reproducible bytes: the same files make the same image (every mtime
# set to 0, files in byte order, cpio's inode numbers from 1, no name or
# time in the gzip header). An icount guest is deterministic only if what
# it boots is: a different image decompresses in a different number of
# instructions, and the whole run shifts (lane_icount).
lane_pack_cpio() {
	find "$1" -exec touch -h -d @0 {} +
	(cd "$1" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet -R 0:0 --reproducible) |
		gzip -n -1 > "$2"
}

# lane_icount SPEC: the next boots run under single-threaded TCG with QEMU
# -icount SPEC (guest time = instructions executed) and without the host's
# other inputs, so that one initramfs boots to the same instruction-exact
# run twice, whatever the host's load (docs/performance.md,
# "Reproducibility"): -seed fixes the randomness QEMU hands the guest
# (RDRAND, the boot's RNG seed, and through them KASLR), and the RTC
# starts at a fixed date and runs on the guest's clock instead of the
# host's. LANE_SEED (default 1) picks another, equally reproducible run.
lane_icount() {
	export LANE_QEMU_ACCEL=tcg,thread=single
	export LANE_QEMU_EXTRA="-icount $1 -seed ${LANE_SEED:-1} -rtc base=2026-01-01T00:00:00,clock=vm"
}

# Environment (tools/bench/bench.sh --icount, lane_icount): LANE_QEMU_ACCEL replaces
# "tcg,thread=multi"; LANE_QEMU_EXTRA is split into more QEMU arguments;
# LANE_QEMU_CPU replaces the CPU model "max" (check-debug.sh).
lane_boot_once() {
	local kernel=$1 initrd=$2 console=$3 taplog=$4 tmo=$5
	shift 5
	local append="console=ttyS0,115200 panic=-1 memmap=1G\$4G mitigations=off"
	# watchdog_thresh=60: the soft-lockup detector reports a CPU that has
	# not scheduled for 120 s instead of 20 s. Under TCG a vCPU can crawl
	# through a `rep` string instruction for tens of seconds, one
	# iteration per host timer tick: seen in clear_page_rep/_erms and
	# copy_mc_enhanced_fast_string (page faults, migration), 23-55 s, on
	# an idle host in the debug lane and on a loaded one in the others,
	# with the other vCPU idle. A real lockup still trips it, and every
	# test has its own timeout (docs/testing.md).
	# rcupdate.rcu_cpu_stall_timeout=120: RCU's stall report likewise after
	# 120 s, not 21 s (a debug-lane crawl in clear_page_erms drew one at
	# 104 s, in 65-node-latency's memkind section, every test passing).
	# trace_options=norecord-cmd: enabling an event in a tracefs
	# instance (51, 52, 65, 70) would otherwise hook sched_switch and
	# sched_wakeup to record command names, patching static keys in
	# __schedule and ttwu_do_activate. Under multi-threaded TCG such a
	# patch twice drew an "Oops: int3" on the other vCPU in the core
	# kernel (docs/testing.md, runs 10 and 12); trace lines show
	# <...>-PID instead of the command name.
	append="$append nmi_watchdog=0 watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120 trace_options=norecord-cmd $*"
	local numa=(
		-object memory-backend-ram,id=m0,size=1536M
		-object memory-backend-ram,id=m1,size=1536M
		-object memory-backend-ram,id=m2,size=512M
		-object memory-backend-ram,id=m3,size=512M
		-numa node,nodeid=0,cpus=0-1,memdev=m0
		-numa node,nodeid=1,memdev=m1
		-numa node,nodeid=2,memdev=m2
		-numa node,nodeid=3,memdev=m3
	)
	if [ "${CXDVIRT_NUMA:-}" = two-node ]; then
		numa=(
			-object memory-backend-ram,id=m0,size=1536M
			-object memory-backend-ram,id=m1,size=2560M
			-numa node,nodeid=0,cpus=0-1,memdev=m0
			-numa node,nodeid=1,memdev=m1
		)
	fi
	# CXDVIRT_DISK: a raw file attached as the guest's /dev/vda (virtio),
	# kept across boots (tests/vm/acpi-guest.sh)
	local disk=()
	[ -z "${CXDVIRT_DISK:-}" ] ||
		disk=(-drive "file=$CXDVIRT_DISK,format=raw,if=virtio")
	: > "$console"
	: > "$taplog"
	local rc=0 qpid waited=0 boot_tmo=${LANE_BOOT_TMO:-240}
	timeout -k 10 "$tmo" qemu-system-x86_64 \
		-machine pc -accel "${LANE_QEMU_ACCEL:-tcg,thread=multi}" -cpu "${LANE_QEMU_CPU:-max}" -smp 2 \
		-m 4096M,slots=2,maxmem=8G \
		"${numa[@]}" "${disk[@]}" \
		-kernel "$kernel" -initrd "$initrd" -append "$append" \
		-nographic -serial mon:stdio -serial file:"$taplog" \
		-net none -no-reboot ${LANE_QEMU_EXTRA:-} \
		< /dev/null > "$console" 2>&1 &
	qpid=$!
	# Boot watchdog: /init writes its first TAP frame within seconds of
	# reaching user space (under a minute on the debug kernel, whose
	# /init starts about 45 s after QEMU on an idle host). A kernel
	# that hangs before that (seen once on the debug kernel, idle in
	# "Running RCU-tasks wait API self tests" for 12 minutes, no module
	# loaded yet) would otherwise hold the lane for the whole --timeout.
	while kill -0 "$qpid" 2>/dev/null && [ ! -s "$taplog" ]; do
		if [ "$waited" -ge "$boot_tmo" ]; then
			lane_log "boot hung: no output from /init after ${waited}s (LANE_BOOT_TMO); stopping the guest"
			kill "$qpid" 2>/dev/null
			wait "$qpid" 2>/dev/null
			return 125
		fi
		sleep 5
		waited=$((waited + 5))
	done
	wait "$qpid" || rc=$?
	return $rc
}

# lane_split_tap TAPLOG OUTDIR: one OUTDIR/NAME.tap and NAME.rc per
# CXDVIRT-TAP-BEGIN/END frame, and NAME.time ("SECONDS BUDGET", the END
# line's last two fields) where the guest gave them; prints the names in
# run order. A frame with no END (the guest died in it) gets rc "died".
lane_split_tap() {
	local taplog=$1 dir=$2
	rm -rf "$dir"
	mkdir -p "$dir"
	tr -d '\r' < "$taplog" | awk -v dir="$dir" '
		function close_open(rc, secs, budget) {
			if (cur != "") {
				print rc > (dir "/" cur ".rc"); close(dir "/" cur ".rc")
				if (secs != "") {
					print secs, budget > (dir "/" cur ".time")
					close(dir "/" cur ".time")
				}
				close(dir "/" cur ".tap")
				cur = ""
			}
		}
		/^CXDVIRT-TAP-BEGIN / {
			close_open("died")
			cur = $2; print cur
			printf "" > (dir "/" cur ".tap")
			next
		}
		/^CXDVIRT-TAP-END / {
			if (cur == $2) close_open($3, $4, $5)
			next
		}
		cur != "" { print >> (dir "/" cur ".tap") }
		END { close_open("died") }
	'
}

# lane_failed_subtests TAPDIR NAME...: for each test NAME whose TAP has a
# "not ok" line, its name, then every "not ok" line with the diagnostic
# ("#") lines that follow it, at most LANE_FAIL_LINES (default 120) lines in
# all. prove's summary gives only the numbers of the failed subtests; CI's
# log is all a reader of a failed run has.
lane_failed_subtests() {
	local dir=$1 n
	shift
	for n in "$@"; do
		[ -f "$dir/$n.tap" ] || continue
		awk -v n="$n" '
			/^not ok/ { if (!shown++) print "---- " n ": failed subtests ----"
				print; diag = 1; next }
			diag && /^[ \t]*#/ { print; next }
			{ diag = 0 }' "$dir/$n.tap"
	done | head -n "${LANE_FAIL_LINES:-120}" || true	# head may close early
}

# lane_times TAPDIR OUT LABEL NAME...: each test's seconds against its
# budget (the NAME.time files of lane_split_tap), in the order given, into
# OUT as
# "NAME SECONDS BUDGET PERCENT" lines; prints the slowest five.
lane_times() {
	local dir=$1 out=$2 label=$3 f n
	shift 3
	: > "$out"
	for n in "$@"; do
		f=$dir/$n.time
		[ -f "$f" ] || continue
		awk -v n="$n" '{ b = $2; p = (b ~ /^[0-9]+$/ && b > 0) ? sprintf("%.0f", 100 * $1 / b) : "-"
			print n, $1, b, p }' "$f" >> "$out"
	done
	[ -s "$out" ] || return 0
	lane_log "$label: slowest tests (seconds, budget, % of budget):"
	sort -k2,2 -g -r "$out" | head -n 5 | awk '{ printf "lane:   %-26s %7s s  %5s s  %4s%%\n", $1, $2, $3, $4 }' >&2
}

# lane_over_half TIMES LABEL: a "lane: over half:" line on stderr for every
# line of TIMES (lane_times' format) above half of its budget. A test that
# sits near its budget fails as soon as the host is busy (docs/testing.md),
# so such a line asks for the test to be split or made cheaper. Only warns:
# the test itself passed.
lane_over_half() {
	awk -v l="$2" '$4 != "-" && $2 * 2 > $3 {
		printf "lane: over half: %s: %s took %s s of its %s s budget (%s%%)\n", l, $1, $2, $3, $4 }' "$1" >&2
}
