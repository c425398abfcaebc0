#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The man pages against the tools and the module: every option that a
# tool's --help prints (and, for cxdvirt-dev, every verb's --help, inside
# that verb's section) must be on its page; every configfs attribute the
# module lists in `features` and every stats file it creates must be in
# cxdvirt(4). Also mandoc -Tlint on each page when mandoc is installed.
# Prints TAP.
set -u
cd "$(dirname "$0")/../.." || exit 1
MAN=docs/man
n=0
fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() {	# COND-STATUS DESC
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fails=$((fails + 1))
	fi
}

# roff source -> plain text good enough to grep: \- is -, fonts dropped.
plain() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\&//g' "$1"
}

# Options in a --help text: --long anywhere, -x where an option list has it.
help_opts() {
	grep -oE '(^|[][ ,|(])--[a-z][a-z0-9-]*' "$1" | sed 's/^[][ ,|(]//'
	grep -oE '(^|[ ,])-[a-zA-Z]([ ,]|$)' "$1" | tr -d ' ,'
}

has_opt() {	# FILE OPT: OPT as a whole word in FILE
	grep -qE -- "(^|[^a-zA-Z0-9-])$2([^a-zA-Z0-9-]|$)" "$1"
}

check_help() {	# LABEL PAGE-TEXT HELP-TEXT [SKIP-OPT]
	local label=$1 page=$2 help=$3 skip=${4-} o opts
	opts=$(help_opts "$help" | sort -u)
	for o in $opts; do
		[ "$o" = "$skip" ] && continue
		has_opt "$page" "$o"
		ok $? "$label: $o is on the page"
	done
}

# ---------------------------------------------------------------- lint --
if command -v mandoc > /dev/null; then
	for p in "$MAN"/*.[1-8]; do
		mandoc -Tlint -Wwarning "$p" > "$tmp/lint" 2>&1
		ok $? "mandoc -Tlint $(basename "$p") $(head -c 300 "$tmp/lint")"
	done
else
	echo "ok $((n += 1)) - # SKIP mandoc not installed (tests/vm/install-deps.sh)"
fi

# ------------------------------------------------------- cxdvirt-bench/sim --
for t in bench sim; do
	plain "$MAN/cxdvirt-$t.1" > "$tmp/page"
	tools/cxdvirt-$t --help > "$tmp/help" 2>&1
	[ "$(help_opts "$tmp/help" | wc -l)" -ge 10 ]
	ok $? "cxdvirt-$t --help lists its options"
	check_help "cxdvirt-$t" "$tmp/page" "$tmp/help"
done

# cxdvirt-sim sweep has a --help of its own: its options on the same page.
plain "$MAN/cxdvirt-sim.1" > "$tmp/page"
tools/cxdvirt-sim sweep --help > "$tmp/help" 2>&1
[ "$(help_opts "$tmp/help" | wc -l)" -ge 10 ]
ok $? "cxdvirt-sim sweep --help lists its options"
check_help "cxdvirt-sim sweep" "$tmp/page" "$tmp/help"

# ------------------------------------------------------------- cxdvirt-wl --
# Its --help and zipf's own, both on the one page.
plain "$MAN/cxdvirt-wl.1" > "$tmp/page"
for sub in "" zipf; do
	# shellcheck disable=SC2086 # no subcommand, or one
	tools/workloads/cxdvirt-wl $sub --help > "$tmp/help" 2>&1
	[ "$(help_opts "$tmp/help" | wc -l)" -ge 8 ]
	ok $? "cxdvirt-wl ${sub:+$sub }--help lists its options"
	check_help "cxdvirt-wl${sub:+ $sub}" "$tmp/page" "$tmp/help"
done
for w in chase bfs pagerank zipf lackey exec; do
	grep -qx "\.B $w" "$MAN/cxdvirt-wl.1"
	ok $? "cxdvirt-wl: workload $w has its entry"
done

# ------------------------------------------------------------ cxdvirt-dev --
plain "$MAN/cxdvirt-dev.8" > "$tmp/page"
tools/cxdvirt-dev --help > "$tmp/help"
check_help "cxdvirt-dev" "$tmp/page" "$tmp/help"
verbs=$(sed -n '/^Verbs:/,/^$/p' "$tmp/help" | awk 'NF > 1 { print $1 }')
[ "$(echo "$verbs" | wc -w)" -ge 9 ]
ok $? "cxdvirt-dev --help lists the verbs (${verbs//$'\n'/ })"
for v in $verbs; do
	# The verb's section: from ".SS verb" to the next .SS or .SH.
	awk -v v="$v" '/^\.S[SH] / { on = ($1 == ".SS" && $2 == v) } on' \
		"$tmp/page" > "$tmp/sect"
	[ -s "$tmp/sect" ]
	ok $? "cxdvirt-dev $v has a section"
	tools/cxdvirt-dev "$v" --help > "$tmp/vhelp" 2>&1
	# --help: every verb takes it (global options); some usages mention
	# another verb's --help.
	check_help "cxdvirt-dev $v" "$tmp/sect" "$tmp/vhelp" --help
done

# ------------------------------------------------------------- cxdvirt(4) --
plain "$MAN/cxdvirt.4" > "$tmp/page"
# features is generated from the parameter table: expand it with the
# preprocessor, then add the attributes configfs.c appends to it.
feat=$(printf '#include <cxdvirt/params.h>\nCXD_PARAMS_ALL(CXD_P_NAME_)\n' |
	${CC:-cc} -E -P -Iinclude - 2>/dev/null | tail -n 1 | tr -d '"')
feat="$feat $(sed -n 's/.*CXD_PARAMS_ALL(CXD_P_NAME_) "\([a-z_ ]*\)");.*/\1/p' driver/configfs.c)"
case $feat in capacity*power) ;; *) feat= ;; esac
[ -n "$feat" ]
ok $? "the module's features list found in driver/configfs.c"
for a in $feat; do
	grep -qx "\.B $a" "$tmp/page"
	ok $? "cxdvirt(4): configfs attribute $a"
done
stats=$(sed -n -e 's/^CXD_[A-Z]*_ATTR(\([a-z_0-9]*\)[,)].*/\1/p' \
	-e 's/^static DEVICE_ATTR_[RW]O(\([a-z_0-9]*\)).*/\1/p' \
	-e 's/.*__BIN_ATTR_RO(\([a-z_0-9]*\),.*/\1/p' driver/sysfs.c hotplug/node.c | grep -v '^_' | sort -u)
[ -n "$stats" ]
ok $? "the module's stats files found in driver/sysfs.c and hotplug/node.c"
for s in $stats; do
	grep -qE "^\.B (stats/)?$s\$" "$tmp/page"
	ok $? "cxdvirt(4): sysfs $s"
done

echo "1..$n"
[ "$fails" -eq 0 ]
