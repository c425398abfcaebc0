#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/sweep.sh's command line and grid checks, on the host: every
# run here uses --list (the jobs only: no guest is built or booted). A bad
# key or value of a --grid block, or an option without its value, is a
# usage error (exit 2) with a message naming it; the default and smoke
# grids pass. Prints TAP; exits non-zero if any test fails.
#
# Usage: tests/tools/test-sweep-grid.sh

set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
sweep=$top/tools/bench/sweep.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tools/tap.bash"

# refused DESCRIPTION MESSAGE ARGS...: exit 2, MESSAGE on stderr, no job
refused() {
	local desc=$1 msg=$2 rc
	shift 2
	"$sweep" --list "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" = 2 ] && grep -qF -- "$msg" "$tmp/err" && [ ! -s "$tmp/out" ] &&
	   ! grep -q 'unbound variable' "$tmp/err"; then
		ok "$desc"
	else
		not_ok "$desc" "exit $rc: $(cat "$tmp/err")"
	fi
}

plan=18
echo "1..$plan"

if [ ! -x "$top/tools/cxdvirt-sim" ] || [ ! -x "$top/tools/cxdvirt-bench" ]; then
	for i in $(seq $plan); do
		echo "not ok $i - tools not built (make tools)"
	done
	exit 1
fi

good="target=dax pattern=random ratio=0.5 threads=2 write-ratio=0 policy=lru prefetch=none"
# block KEY=VALUE: the good block with KEY's value replaced
block() {
	local k=${1%%=*} w out=
	for w in $good; do
		[ "${w%%=*}" = "$k" ] && w=$1
		out="$out${out:+ }$w"
	done
	echo "$out"
}

refused "--grid without a value" "sweep.sh: --grid needs a value" --grid
refused "--out without a value" "sweep.sh: --out needs a value" --out
refused "an unknown argument" "sweep.sh: unknown argument --bogus" --bogus
refused "a bad target" "grid: target=dx: not dax or node" --grid "$(block target=dx)"
refused "a bad pattern" "grid: pattern=rand: not random, seq, chase or stride" \
	--grid "$(block pattern=rand)"
refused "a ratio that is not a number" "grid: ratio=abc: not a decimal number above 0, at most 32" \
	--grid "$(block ratio=0.5,abc)"
refused "a ratio of 0" "grid: ratio=0: not a decimal number above 0" --grid "$(block ratio=0)"
refused "threads 0" "grid: threads=0: not a whole number 1 .. 256" --grid "$(block threads=0)"
refused "threads 257" "grid: threads=257: not a whole number 1 .. 256" --grid "$(block threads=257)"
refused "a write ratio above 1" "grid: write-ratio=1.5: not a decimal number 0 .. 1" \
	--grid "$(block write-ratio=1.5)"
refused "an unknown policy, with the choices" \
	"grid: policy=lur: not one of fifo lifo clock lru s3fifo random cflru 2q" \
	--grid "$(block policy=lur)"
refused "an unknown prefetcher, with the choices" \
	"grid: prefetch=nxt: not one of none next stride" --grid "$(block prefetch=nxt)"
refused "an empty value in a list" "grid: ratio: an empty value" --grid "$(block ratio=0.5,,1)"
refused "a key missing" "grid: prefetch missing" --grid "${good% prefetch=none}"
refused "an unknown key" "grid: unknown key 'polcy'" --grid "$good polcy=lru"

if "$sweep" --list --grid "$(block ratio=0.1,32)" --grid "$(block threads=1,256)" \
	>"$tmp/out" 2>"$tmp/err" && [ "$(wc -l <"$tmp/out")" = 4 ]; then
	ok "the ranges' ends pass: 4 jobs"
else
	not_ok "the ranges' ends pass: 4 jobs" "$(cat "$tmp/err" "$tmp/out")"
fi
r=
for a in "" --smoke; do
	# shellcheck disable=SC2086
	"$sweep" --list $a >"$tmp/out" 2>"$tmp/err"
	r="$r $?:$(wc -l <"$tmp/out")"
done
if [ "$r" = " 0:123 0:8" ]; then
	ok "the default grid (123 jobs) and the smoke grid (8) pass"
else
	not_ok "the default grid (123 jobs) and the smoke grid (8) pass" "got '$r': $(cat "$tmp/err")"
fi

# docs/tools.md's example of a refused grid is what the script prints.
cmd=$(sed -n 's/^\$ \(tools\/bench\/sweep.sh --grid .*\)$/\1/p' "$top/docs/tools.md" | head -n 1)
want=$(sed -n "/^\\$ tools\/bench\/sweep.sh --grid /{n;p;n;p;q}" "$top/docs/tools.md")
got=$(cd "$top" && eval "$cmd --list" 2>&1 >/dev/null)
if [ -n "$cmd" ] && [ -n "$want" ] && [ "$got" = "$want" ]; then
	ok "docs/tools.md's refused --grid example is the real message"
else
	not_ok "docs/tools.md's refused --grid example is the real message" "'$cmd': '$want' != '$got'"
fi

[ "$n" = "$plan" ] || not_ok "ran $n of $plan tests"
[ "$fails" -eq 0 ]
