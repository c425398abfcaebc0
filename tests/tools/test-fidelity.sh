#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/bench/fidelity.sh's output folder (make fidelity): without OUT each
# run gets a folder of its own (mktemp under TMPDIR), a given OUT is used.
# A stand-in for cxdvirt-sim records the folder each sweep is given and
# fails, so the table and the document are never reached. Prints TAP;
# exits non-zero if any test fails.
#
# Usage: tests/tools/test-fidelity.sh

set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

. "$top/tests/tools/tap.bash"

# check DESCRIPTION EXPECTED ACTUAL
check() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "expected '$2', got '$3'"
	fi
}

echo "1..4"

# The stand-in: `sim sweep --out DIR GRID` appends DIR to $tmp/outs, fails.
cat >"$tmp/sim" <<EOF
#!/bin/sh
[ "\$1" = sweep ] && [ "\$2" = --out ] && echo "\$3" >>"$tmp/outs"
exit 1
EOF
chmod +x "$tmp/sim"
echo "the document" >"$tmp/doc.md"
mkdir "$tmp/t"

TMPDIR=$tmp/t "$top/tools/bench/fidelity.sh" "$tmp/sim" "" "$tmp/doc.md" 2>"$tmp/err1"
TMPDIR=$tmp/t "$top/tools/bench/fidelity.sh" "$tmp/sim" "" "$tmp/doc.md" 2>"$tmp/err2"
a=$(sed -n 1p "$tmp/outs")
b=$(sed -n 2p "$tmp/outs")
check "no OUT: each run has its own folder under TMPDIR" "1 1 1" \
	"$([ "${a%/*}" != "${b%/*}" ] && echo 1) $(case $a in "$tmp"/t/cxdvirt-fidelity.*/steady) echo 1 ;; esac) $(case $b in "$tmp"/t/cxdvirt-fidelity.*/steady) echo 1 ;; esac)"
check "no OUT: the folder is named on stderr" "${a%/*}" \
	"$(sed -n 's/^fidelity: the sweeps in //p' "$tmp/err1")"
"$top/tools/bench/fidelity.sh" "$tmp/sim" "$tmp/given" "$tmp/doc.md" 2>/dev/null
check "a given OUT is used" "$tmp/given/steady" "$(sed -n 3p "$tmp/outs")"
check "a failed sweep leaves the document alone" "the document" "$(cat "$tmp/doc.md")"

[ "$fails" -eq 0 ]
