#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh [FILE...]: run the kernel's scripts/checkpatch.pl over the
# module's sources (default: driver/ with driver/devdax/ and driver/model/,
# hotplug/, include/).
#
# checkpatch.pl is not in the headers package. It comes from Debian's
# linux-source package of the headers' kernel: apt-get download (never
# installed), and only scripts/checkpatch.pl, spelling.txt and
# const_structs.checkpatch are extracted, into
# $CXDVIRT_CACHE/checkpatch/<version>/ (default /var/cache/cxdvirt).
#
# Ignored, on purpose:
#   LINUX_VERSION_CODE, CONSTANT_COMPARISON  driver/compat.h is the one place
#       that compares kernel versions, as out-of-tree code must;
#   ARRAY_SIZE  the model (driver/model/) is plain C shared with userspace and
#       has no kernel macros.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LANE_DIR=$(cd "$HERE/../vm" && pwd)	# the guest harness
. "$LANE_DIR/lib.sh"
cd "$REPO_ROOT"

cache=${CXDVIRT_CACHE:-/var/cache/cxdvirt}
[ -w "$(dirname "$cache")" ] || [ -w "$cache" ] 2>/dev/null || cache=$LANE_DIR/.cache
pkg=$(apt-cache depends linux-source 2>/dev/null | sed -n 's/.*Depends: \(linux-source-[0-9.]*\)$/\1/p' | head -n 1)
[ -n "$pkg" ] || pkg=linux-source-6.1
ver=$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/.*Candidate: //p')
[ -n "$ver" ] || lane_die "checkpatch: $pkg not known to apt (apt-get update?)"
dir=$cache/checkpatch/$ver
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	lane_log "checkpatch: extracting checkpatch.pl from $pkg $ver"
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$tmp" && apt-get download -qq "$pkg=$ver" >/dev/null)
	dpkg-deb --fsys-tarfile "$tmp"/*.deb |
		tar -x -C "$tmp" --wildcards '*/linux-source-*.tar.xz'
	mkdir -p "$dir.tmp"
	tar -xJf "$tmp"/usr/src/linux-source-*.tar.xz -C "$dir.tmp" \
		--strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
fi

if [ $# -eq 0 ]; then
	set -- driver/*.c driver/*.h driver/devdax/*.c driver/devdax/*.h \
		driver/model/*.c hotplug/*.c hotplug/*.h include/cxdvirt/*.h
fi
# include/cxdvirt/params.h is an X-macro table with its generators: lists
# of X(...) rows, case/statement templates and the names-function template
# (CXD_P_NAMES) are not expressions, so the macro-shape checks are off for
# that one file (and only for it).
XMACRO=COMPLEX_MACRO,MULTISTATEMENT_MACRO_USE_DO_WHILE,TRAILING_SEMICOLON
XMACRO=$XMACRO,TRAILING_STATEMENTS,SINGLE_STATEMENT_DO_WHILE_MACRO,SPACING
XMACRO=$XMACRO,MACRO_WITH_FLOW_CONTROL
# driver/fentry.c reads the -ENOSYS that x86's syscall entry leaves in the
# user registers' ax until the return value replaces it, to tell a fault
# inside a system call from a user fault: the ENOSYS check ("ENOSYS means
# invalid syscall nr") is off for that one file.
rc=0
files=() tables=() nosys=()
for f in "$@"; do
	case $f in
	include/cxdvirt/params.h) tables+=("$f") ;;
	driver/fentry.c) nosys+=("$f") ;;
	*) files+=("$f") ;;
	esac
done
out=
if [ ${#files[@]} -gt 0 ]; then
	out=$(perl "$dir/scripts/checkpatch.pl" --no-tree --terse --show-types \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON,ARRAY_SIZE \
		-f "${files[@]}") || rc=$?
fi
if [ ${#tables[@]} -gt 0 ]; then
	out="$out
$(perl "$dir/scripts/checkpatch.pl" --no-tree --terse --show-types \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON,ARRAY_SIZE,$XMACRO \
		-f "${tables[@]}")" || rc=$?
fi
if [ ${#nosys[@]} -gt 0 ]; then
	out="$out
$(perl "$dir/scripts/checkpatch.pl" --no-tree --terse --show-types \
		--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON,ARRAY_SIZE,ENOSYS \
		-f "${nosys[@]}")" || rc=$?
fi
printf '%s\n' "$out" | grep -v ' total: 0 errors, 0 warnings' || true
[ "$rc" -eq 0 ] && lane_log "checkpatch: clean ($# files)"
exit "$rc"
