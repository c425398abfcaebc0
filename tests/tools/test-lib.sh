#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The tools' shared library (tools/lib/, libcxu.a) on its own: lib-test.c
# built against it. Prints TAP.
set -u
cd "$(dirname "$0")/../.."
LIB=tools/libcxu.a
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ ! -f "$LIB" ]; then
	echo "Bail out! $LIB not built (make tools)"
	exit 1
fi
# shellcheck disable=SC2046
if ! cc -std=gnu11 -Wall -Wextra -Werror -O1 -Itools/lib \
	$(pkg-config --cflags json-c 2>/dev/null) -o "$tmp/lib-test" \
	tests/tools/lib-test.c "$LIB" \
	$(pkg-config --libs json-c 2>/dev/null || echo -ljson-c) 2>"$tmp/cc.err"; then
	echo "Bail out! tests/tools/lib-test.c does not build: $(head -c 300 "$tmp/cc.err")"
	exit 1
fi
"$tmp/lib-test"
