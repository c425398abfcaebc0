#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Bad-input sweep over the tools' options: every numeric or named option of
# cxdvirt-sim, cxdvirt-bench and cxdvirt-dev gets each value of a table of
# bad values. Each must be refused with exit status 2 (usage) or 1 (error)
# and a message on stderr, and must never crash (no signal, no sanitizer).
set -u
cd "$(dirname "$0")/../.."
SIM=tools/cxdvirt-sim
BENCH=tools/cxdvirt-bench
DEV=tools/cxdvirt-dev
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'R 0\nW 1\n' > "$tmp/trace"
: > "$tmp/file"
truncate -s 1M "$tmp/file"

n=0
fails=0
check() {	# DESC CMD...: must exit 1 or 2, print something on stderr
	local desc=$1 rc
	shift
	"$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
	rc=$?
	n=$((n + 1))
	if { [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; } && [ -s "$tmp/err" ]; then
		echo "ok $n - $desc (exit $rc)"
	else
		echo "not ok $n - $desc: exit $rc, stderr: $(head -c 200 "$tmp/err")"
		fails=$((fails + 1))
	fi
}

BAD_NUM=("" "abc" "-1" "18446744073709551616" "99999999999999999999999" "1K1" "0x" "1e9" "12 3" "$(printf '1\t')")
BAD_NAME=("" "bogus" "FIFO" "fifo2" "$(head -c 300 /dev/zero | tr '\0' x)")

for opt in --capacity --cache --ways --seed --degree --distance --think \
	   --t-read --t-prog --t-bers --channels --dies --planes --page-size \
	   --mbps --pages-per-block; do
	for v in "${BAD_NUM[@]}"; do
		check "cxdvirt-sim $opt '$v'" $SIM "$opt" "$v" "$tmp/trace"
	done
done
for opt in --preset --policy --prefetch --write-alloc --writeback --stripe --xfer; do
	for v in "${BAD_NAME[@]}"; do
		check "cxdvirt-sim $opt '$v'" $SIM "$opt" "$v" "$tmp/trace"
	done
done
check "cxdvirt-sim: zero channels" $SIM --channels 0 "$tmp/trace"
check "cxdvirt-sim: cache larger than capacity" $SIM --capacity 1M --cache 2M "$tmp/trace"
check "cxdvirt-sim: missing trace" $SIM "$tmp/none"
check "cxdvirt-sim: --compare without values" $SIM --compare policy= "$tmp/trace"

for opt in --pages --passes --seed --write-ratio -T --stride; do
	for v in "${BAD_NUM[@]}"; do
		check "cxdvirt-bench $opt '$v'" $BENCH --device "$tmp/file" "$opt" "$v"
	done
done
for v in "${BAD_NAME[@]}"; do
	check "cxdvirt-bench --pattern '$v'" $BENCH --device "$tmp/file" --pattern "$v"
done
check "cxdvirt-bench: zero pages" $BENCH --device "$tmp/file" --pages 0
check "cxdvirt-bench: missing device" $BENCH --device "$tmp/none"

# cxdvirt-dev against an empty fake configfs root: option values are
# checked before anything is written.
mkdir -p "$tmp/cfs" "$tmp/sys"
for v in "${BAD_NUM[@]}"; do
	check "cxdvirt-dev create --capacity '$v'" env CXDVIRT_CONFIGFS="$tmp/cfs" \
		CXDVIRT_SYSFS="$tmp/sys" $DEV create d0 --capacity "$v"
	check "cxdvirt-dev create --cache-size '$v'" env CXDVIRT_CONFIGFS="$tmp/cfs" \
		CXDVIRT_SYSFS="$tmp/sys" $DEV create d0 --cache-size "$v"
done
for v in "${BAD_NAME[@]}"; do
	check "cxdvirt-dev create --preset '$v'" env CXDVIRT_CONFIGFS="$tmp/cfs" \
		CXDVIRT_SYSFS="$tmp/sys" $DEV create d0 --preset "$v"
done
check "cxdvirt-dev: unknown verb" $DEV frobnicate
# getopt's own message names the program and the verb.
for verb in create set list stats; do
	check "cxdvirt-dev $verb --bogus" $DEV $verb d0 --bogus
	n=$((n + 1))
	if head -n 1 "$tmp/err" | grep -q "^cxdvirt-dev $verb: unrecognized option '--bogus'"; then
		echo "ok $n - cxdvirt-dev $verb --bogus: the message names the program and the verb"
	else
		echo "not ok $n - cxdvirt-dev $verb --bogus: $(head -n 1 "$tmp/err")"
		fails=$((fails + 1))
	fi
done
check "cxdvirt-dev: name too long" env CXDVIRT_CONFIGFS="$tmp/cfs" \
	CXDVIRT_SYSFS="$tmp/sys" $DEV create "$(head -c 64 /dev/zero | tr '\0' n)"
n=$((n + 1))
if left=$(ls -A "$tmp/cfs") && [ -z "$left" ]; then
	echo "ok $n - no device directory left behind by refused creates"
else
	echo "not ok $n - refused creates left: ${left:-(the fake configfs root is gone)}"
	fails=$((fails + 1))
fi
echo "1..$n"
[ "$fails" -eq 0 ]
