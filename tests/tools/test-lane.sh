#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest harness (tests/vm/lib.sh). Its boot retry (lane_boot): a kernel
# that hung or died before /init wrote its first TAP frame is booted again,
# up to LANE_BOOTS times; a splat after that frame is never retried, so a
# failure of the module always fails the run. QEMU is replaced by a stub
# of lane_boot_once that plays each boot's console and TAP log. Then the
# failed-subtest report, the initramfs's reproducible bytes and the QEMU
# options of lane_icount. Prints TAP.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/tools/tap.bash
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
c=$tmp/console
t=$tmp/tap

# play BOOT...: boot i gets BOOT i, one of
#   oops	a splat on the console, no TAP frame (died before /init)
#   hung	no output, status 125 (the boot watchdog)
#   late	a TAP frame, then a splat (died in a test)
#   clean	a TAP frame, no splat
plays=()
played=0
lane_boot_once() {
	local what=${plays[$played]:-clean}
	played=$((played + 1))
	: > "$3"
	: > "$4"
	case $what in
	oops)	echo "[    5.43] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI" > "$3" ;;
	hung)	return 125 ;;
	late)	echo "CXDVIRT-GUEST-START" > "$4"
		echo "[   60.00] BUG: KASAN: slab-use-after-free in cxd_x" > "$3" ;;
	clean)	echo "CXDVIRT-GUEST-START" > "$4" ;;
	esac
	return 0
}

# check NAME EXPECTED-STATUS EXPECTED-BOOTS BOOT...
check() {
	local name=$1 want_rc=$2 want_boots=$3 rc=0 log
	shift 3
	plays=("$@")
	played=0
	rm -f "$c".boot*
	lane_boot kernel initrd "$c" "$t" 10 > "$tmp/log" 2>&1 || rc=$?
	log=$(cat "$tmp/log")
	if [ "$rc" = "$want_rc" ] && [ "$played" = "$want_boots" ]; then
		ok "$name: status $rc after $played boots"
	else
		not_ok "$name: status $rc after $played boots, want $want_rc after $want_boots" "$log"
	fi
}

check "a clean boot runs once" 0 1 clean
check "a splat after the first frame is not retried" 0 1 late
check "died before /init, then clean" 0 2 oops clean
check "hung, then died, then clean" 0 3 hung oops clean
check "died before /init three times: the last is returned" 0 3 oops oops oops
check "hung three times: status 125" 125 3 hung hung hung
check "died before /init, then a splat in a test: not retried" 0 2 oops late
if grep -q "BUG: KASAN" "$c"; then
	ok "the test's splat stays on the console, where the run finds it"
else
	not_ok "the test's splat stays on the console, where the run finds it"
fi
plays=(oops clean)
played=0
rm -f "$c".boot*
lane_boot kernel initrd "$c" "$t" 10 > "$tmp/log" 2>&1
log=$(cat "$tmp/log")
if [ -f "$c.boot1" ] && grep -q "Oops: int3" "$c.boot1" &&
   grep -q "boot 1 died before /init" <<< "$log"; then
	ok "the failed boot's console is kept and the retry is logged"
else
	not_ok "the failed boot's console is kept and the retry is logged" "$log"
fi
plays=(oops oops clean)
played=0
LANE_BOOTS=1 lane_boot kernel initrd "$c" "$t" 10 > /dev/null 2>&1
if [ "$played" = 1 ]; then
	ok "LANE_BOOTS=1: no retry"
else
	not_ok "LANE_BOOTS=1: no retry ($played boots)"
fi

# A failed run names its failed subtests with their diagnostics: prove's
# summary alone gives only their numbers.
mkdir -p "$tmp/taps"
printf 'ok 1 - fine\nnot ok 2 - waits agree\n#   got: 3242\n#   expected: 3241\nok 3 - after\n# not this one\n' > "$tmp/taps/45-x.tap"
printf 'ok 1 - all fine\n' > "$tmp/taps/46-y.tap"
out=$(lane_failed_subtests "$tmp/taps" 45-x 46-y)
want=$(printf -- '---- 45-x: failed subtests ----\nnot ok 2 - waits agree\n#   got: 3242\n#   expected: 3241')
if [ "$out" = "$want" ]; then
	ok "a failed subtest is shown with its diagnostics, nothing else"
else
	not_ok "a failed subtest is shown with its diagnostics, nothing else" "$out"
fi

# A register dump whose EFLAGS no CPU pushes is named (the emulator's
# state, docs/testing.md "Emulator faults"); possible ones are not.
cat > "$tmp/regs" <<'EOF'
[  268.90] RSP: 0018:ff5856af4228bbe0 EFLAGS: 00010246
[  268.91] RSP: 0018:ff5856af4228bbe0 EFLAGS: 48bac202
[  268.92] RSP: 002b:00007ffcbb248608 EFLAGS: 00200293
[  268.93] RSP: 002b:00007ffcbb248608 EFLAGS: 00020202
[  268.94] RSP: 002b:00007ffcbb248608 EFLAGS: 00000222
EOF
out=$(lane_eflags_impossible "$tmp/regs" | cut -d' ' -f1-4)
want=$(printf 'line 2: EFLAGS 0x48bac202\nline 4: EFLAGS 0x20202\nline 5: EFLAGS 0x222')
if [ "$out" = "$want" ]; then
	ok "an EFLAGS with reserved bits or VM set is named, a possible one is not"
else
	not_ok "an EFLAGS with reserved bits or VM set is named, a possible one is not" "$out"
fi

# An initramfs has reproducible bytes: the same files packed at another
# time, with other mtimes, make the same image (an icount guest replays
# only what it boots); other content makes another.
for d in a b; do
	mkdir -p "$tmp/st$d/bin" "$tmp/st$d/etc"
	echo 'echo hi' > "$tmp/st$d/bin/x"
	echo 6.1 > "$tmp/st$d/etc/kver"
	ln -s x "$tmp/st$d/bin/y"
done
touch -d @1000000 "$tmp/stb/bin/x" "$tmp/stb/etc"
lane_pack_cpio "$tmp/sta" "$tmp/a.gz"
lane_pack_cpio "$tmp/stb" "$tmp/b.gz"
echo 6.12 > "$tmp/stb/etc/kver"
lane_pack_cpio "$tmp/stb" "$tmp/c.gz"
if cmp -s "$tmp/a.gz" "$tmp/b.gz" && ! cmp -s "$tmp/a.gz" "$tmp/c.gz" &&
   [ "$(gzip -dc "$tmp/a.gz" | cpio -i --to-stdout --quiet etc/kver)" = 6.1 ]; then
	ok "the same files make the same initramfs bytes, other files other bytes"
else
	not_ok "the same files make the same initramfs bytes, other files other bytes" "$(cmp "$tmp/a.gz" "$tmp/b.gz"; cmp "$tmp/a.gz" "$tmp/c.gz"; gzip -dc "$tmp/a.gz" | cpio -i --to-stdout --quiet etc/kver 2>&1)"
fi

# lane_icount: single-threaded TCG, -icount, and none of the host inputs
# that made two icount boots of one image differ (randomness, the RTC).
(
	unset LANE_QEMU_ACCEL LANE_QEMU_EXTRA LANE_SEED
	lane_icount shift=0,sleep=off
	echo "$LANE_QEMU_ACCEL|$LANE_QEMU_EXTRA"
	LANE_SEED=7 lane_icount shift=3
	echo "$LANE_QEMU_EXTRA"
) > "$tmp/icount"
if grep -qx 'tcg,thread=single|-icount shift=0,sleep=off -seed 1 -rtc base=2026-01-01T00:00:00,clock=vm' "$tmp/icount" &&
   grep -qx -- '-icount shift=3 -seed 7 -rtc base=2026-01-01T00:00:00,clock=vm' "$tmp/icount"; then
	ok "lane_icount: -icount SPEC with a fixed seed and a guest-clocked RTC"
else
	not_ok "lane_icount: -icount SPEC with a fixed seed and a guest-clocked RTC" "$(cat "$tmp/icount")"
fi

# A retried icount boot draws the next seed: with the same one it would
# repeat the hang instruction for instruction.
seeds=()
lane_boot_once() {
	seeds+=("$(sed -n 's/.*-seed \([0-9]*\).*/\1/p' <<< "$LANE_QEMU_EXTRA")")
	: > "$3"
	: > "$4"
	[ ${#seeds[@]} -lt 2 ] && return 125
	echo "CXDVIRT-GUEST-START" > "$4"
}
(
	lane_icount shift=0,sleep=off
	lane_boot k i "$c" "$t" 60 > /dev/null 2>&1
	echo "${seeds[*]}"
) > "$tmp/seeds"
if [ "$(cat "$tmp/seeds")" = "1 2" ]; then
	ok "a retried icount boot draws the next seed"
else
	not_ok "a retried icount boot draws the next seed" "seeds: $(cat "$tmp/seeds")"
fi

echo "1..$n"
[ "$fails" -eq 0 ]
