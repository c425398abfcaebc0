#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# trace.sh OUT -- PROGRAM [ARG...]
#
# Run PROGRAM once under valgrind lackey (every load and store) and write:
#   OUT.json      what PROGRAM printed on stdout (cxdvirt-wl: its JSON line)
#   OUT.node.bin  every data access of the process as a cxdvirt-sim binary
#                 trace (virtual pages): what a node-mode device sees when
#                 the whole process is bound to it with numactl --membind
#   OUT.dax.bin   with --dax: only the accesses inside the arena PROGRAM
#                 reported (arena_base, arena_bytes in its JSON), as pages
#                 of the arena: what a devdax device mapped as the arena sees
# Instruction fetches are dropped: program text is page cache, not device
# memory. Replay with cxdvirt-sim --faults --policy fifo (docs/workloads.md).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SIM=${SIM:-$HERE/../cxdvirt-sim}
WL=${WL:-$HERE/cxdvirt-wl}
dax=0
[ "${1:-}" = --dax ] && { dax=1; shift; }
[ $# -ge 3 ] && [ "$2" = -- ] || { sed -n '3,16p' "$0" >&2; exit 2; }
out=$1
shift 2
command -v valgrind > /dev/null || { echo "trace.sh: valgrind is missing (tests/vm/install-deps.sh)" >&2; exit 1; }

log=$out.lackey
rc=0
valgrind --tool=lackey --trace-mem=yes --log-file="$log" "$@" > "$out.json" || rc=$?
if [ $rc != 0 ]; then
	echo "trace.sh: $1 exited with status $rc under valgrind lackey; the end of its output ($out.json):" >&2
	tail -n 5 "$out.json" >&2
	exit 1
fi
if ! "$SIM" --format lackey --convert "$out.node.bin" "$log" 2> "$out.convert.err"; then
	echo "trace.sh: cxdvirt-sim could not convert $log:" >&2
	cat "$out.convert.err" >&2
	exit 1
fi
rm -f "$out.convert.err"
if [ $dax = 1 ]; then
	read -r base len < <(sed -n 's/.*"arena_base": "\([^"]*\)".*"arena_bytes": \([0-9]*\).*/\1 \2/p' "$out.json")
	[ -n "${len:-}" ] || { echo "trace.sh: $out.json names no arena" >&2; exit 1; }
	"$WL" lackey "$base" "$len" < "$log" 2> /dev/null |
		"$SIM" --format text --convert "$out.dax.bin" - 2> /dev/null ||
		{ echo "trace.sh: could not turn the arena's accesses in $log into $out.dax.bin" >&2; exit 1; }
fi
rm -f "$log"
