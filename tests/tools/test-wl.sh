#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# cxdvirt-wl (tools/workloads/): the workloads are deterministic (same
# arguments, same checksum; anonymous memory and a mapped file give the
# same result), the Kronecker graph is a proper undirected CSR, lackey
# filtering keeps exactly the accesses in the range as arena offsets
# (straddling accesses split), zipf is skewed and its memcached and redis
# clients count hits and misses, exec reports the status,
# --help prints every option, numbers are decimal (010 is ten) and a
# negative or out-of-range one is refused naming the option and its range;
# trace.sh's node and dax traces replay through cxdvirt-sim --faults.
# About 3 s (one small valgrind run).
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/tools/tap.bash
WL=tools/workloads/cxdvirt-wl
SIM=tools/cxdvirt-sim
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

check_of() { sed -n 's/.*"check": \([0-9]*\).*/\1/p' <<< "$1"; }

for w in "chase --pages 64 --steps 20000 --seed 3" "bfs --scale 10 --seed 5" \
	 "pagerank --scale 10 --iters 3"; do
	a=$($WL $w) b=$($WL $w)
	if [ -n "$(check_of "$a")" ] && [ "$(check_of "$a")" = "$(check_of "$b")" ]; then
		ok "$w: same checksum twice ($(check_of "$a"))"
	else
		not_ok "$w: checksums differ" "$a / $b"
	fi
done
# A regular file mapped as the arena (the --dax path) gives the same result.
truncate -s 4M "$T/arena"
a=$($WL bfs --scale 10 --seed 5) b=$($WL --dax "$T/arena" bfs --scale 10 --seed 5)
[ "$(check_of "$a")" = "$(check_of "$b")" ] && ok "bfs on a mapped file = on anonymous memory" ||
	not_ok "bfs on a mapped file differs" "$a / $b"
# BFS from a root reaches at most every vertex, at least 2 (a root with neighbours).
c=$(check_of "$($WL bfs --scale 10 --seed 5)")
[ "$c" -ge 2 ] && [ "$c" -le 1024 ] && ok "bfs reached $c of 1024 vertices" || not_ok "bfs reached $c"
# PageRank's sum is at most 1 (dangling vertices lose their share).
c=$(check_of "$($WL pagerank --scale 10 --iters 3)")
[ "$c" -gt 100000 ] && [ "$c" -le 1000001 ] && ok "pagerank sum $c ppm" || not_ok "pagerank sum $c ppm"

# lackey: range [0x10000, 0x10000 + 0x3000)
printf '==1== header\nI  0004,3\n L 00010008,8\n S 0000fffc,8\n M 00011ffc,8\n L 00013000,4\n S 00012000,4\n' > "$T/l.log"
got=$($WL lackey 0x10000 0x3000 < "$T/l.log" 2> /dev/null | tr '\n' ' ')
want='R 0x8 W 0x0 R 0x1ffc R 0x2000 W 0x1ffc W 0x2000 W 0x2000 '
[ "$got" = "$want" ] && ok "lackey keeps the range as offsets, splits straddles" ||
	not_ok "lackey filter" "got '$got', want '$want'"

# zipf: 2000 GETs over 1000 keys; the most requested key far above 2 (uniform's mean).
top=$($WL zipf --keys 1000 --ops 2000 --write-pct 0 | tr -d '\r' | grep '^key:' | sort | uniq -c | sort -rn | head -n 1 | awk '{ print $1 }')
[ "${top:-0}" -gt 50 ] && ok "zipf: the hottest key got $top of 2000 requests" || not_ok "zipf not skewed (top $top)"
nset=$($WL zipf --keys 10 --ops 0 --load | tr -d '\r' | grep -c '^SET$')
[ "$nset" = 10 ] && ok "zipf --load sets every key once" || not_ok "zipf --load: $nset SETs"

# memcached over its unix socket: load 200 keys, then every GET hits.
if command -v memcached > /dev/null; then
	memcached -u root -s "$T/mc.sock" -m 16 -t 1 > /dev/null 2>&1 &
	mc=$!
	for _ in $(seq 50); do [ -S "$T/mc.sock" ] && break; sleep 0.1; done
	$WL zipf --keys 200 --load --ops 0 --memcached "$T/mc.sock" > /dev/null
	o=$($WL zipf --keys 200 --ops 1000 --write-pct 0 --memcached "$T/mc.sock")
	grep -q '"gets": 1000, "get_hits": 1000' <<< "$o" && ok "memcached: 1000 GETs after the load, all hits" ||
		not_ok "memcached client" "$o"
	o=$($WL zipf --keys 400 --ops 1000 --write-pct 0 --memcached "$T/mc.sock")
	h=$(sed -n 's/.*"get_hits": \([0-9]*\).*/\1/p' <<< "$o")
	[ "${h:-0}" -gt 0 ] && [ "$h" -lt 1000 ] && ok "memcached: keys beyond the load miss ($h of 1000 hit)" ||
		not_ok "memcached misses" "$o"
	kill $mc; wait $mc 2> /dev/null
else
	echo "ok $((n + 1)) # SKIP memcached missing"; n=$((n + 1))
fi

# redis-server over its unix socket, one request at a time: load 200 keys,
# then every GET hits; keys beyond the load miss.
if command -v redis-server > /dev/null; then
	redis-server --port 0 --unixsocket "$T/r.sock" --save '' --appendonly no \
		--dir "$T" > /dev/null 2>&1 &
	rp=$!
	for _ in $(seq 50); do [ -S "$T/r.sock" ] && break; sleep 0.1; done
	o=$($WL zipf --keys 200 --load --ops 0 --redis "$T/r.sock")
	grep -q '"workload": "redis-zipf", "gets": 0' <<< "$o" && ok "redis: the load" ||
		not_ok "redis load" "$o"
	o=$($WL zipf --keys 200 --ops 1000 --write-pct 0 --redis "$T/r.sock")
	grep -q '"gets": 1000, "get_hits": 1000' <<< "$o" && ok "redis: 1000 GETs after the load, all hits" ||
		not_ok "redis client" "$o"
	o=$($WL zipf --keys 400 --ops 1000 --write-pct 0 --redis "$T/r.sock")
	h=$(sed -n 's/.*"get_hits": \([0-9]*\).*/\1/p' <<< "$o")
	[ "${h:-0}" -gt 0 ] && [ "$h" -lt 1000 ] && ok "redis: keys beyond the load miss ($h of 1000 hit)" ||
		not_ok "redis misses" "$o"
	kill $rp; wait $rp 2> /dev/null
else
	for _ in 1 2 3; do echo "ok $((n + 1)) # SKIP redis-server missing"; n=$((n + 1)); done
fi
$WL zipf --keys 10 --redis "$T/r.sock" --memcached "$T/mc.sock" > /dev/null 2>&1
[ $? = 2 ] && ok "zipf: --redis and --memcached together is a usage error" ||
	not_ok "zipf: --redis with --memcached accepted"
$WL --help > "$T/help" 2>&1 && grep -q -- '--edge-factor' "$T/help" &&
	$WL zipf --help > "$T/zhelp" 2>&1 && grep -q -- '--redis SOCKET' "$T/zhelp" &&
	ok "--help and zipf --help: on stdout, exit 0" || not_ok "--help" "$(cat "$T/help" "$T/zhelp")"

# Numbers: decimal or 0x-hex, a leading 0 is not octal; a negative or
# out-of-range value is a usage error (exit 2, nothing on stdout) whose
# first line names the option and its range, before where the usage is.
used() { sed -n 's/.*"used_bytes": \([0-9]*\).*/\1/p' <<< "$1"; }
a=$($WL chase --pages 010 --steps 100) b=$($WL chase --pages 10 --steps 100) c=$($WL chase --pages 0xa --steps 100)
[ -n "$(used "$a")" ] && [ "$(used "$a")" = "$(used "$b")" ] && [ "$(used "$a")" = "$(used "$c")" ] &&
	ok "--pages 010 is ten pages, as 10 and 0xa" || not_ok "--pages 010 is not decimal" "$a / $b / $c"
nset=$($WL zipf --keys 010 --ops 0 --load | tr -d '\r' | grep -c '^SET$')
[ "$nset" = 10 ] && ok "zipf --keys 010 is ten keys" || not_ok "zipf --keys 010: $nset SETs"
for a in "zipf --keys 10 --ops -1|--ops -1: expected a whole number 0 .. 18446744073709551615" \
	 "zipf --keys 1|--keys 1: expected a whole number 2 .. 1000000000000" \
	 "zipf --keys 10 --write-pct 101|--write-pct 101: expected a whole number 0 .. 100" \
	 "zipf --keys 10 --value-size 0|--value-size 0: expected a whole number 1 .. 1048576" \
	 "zipf --keys 10 --theta 1.5|--theta 1.5: expected a number strictly between 0 and 1" \
	 "chase --pages -1 --steps 10|--pages -1: expected a whole number 1 .. 16777216" \
	 "chase --pages 16777217 --steps 10|--pages 16777217: expected a whole number 1 .. 16777216" \
	 "chase --pages 4 --steps 0|--steps 0: expected a whole number 1 .. 18446744073709551615" \
	 "bfs --scale 27|--scale 27: expected a whole number 2 .. 26" \
	 "bfs --scale 4 --edge-factor 65|--edge-factor 65: expected a whole number 1 .. 64" \
	 "pagerank --scale 4 --iters 4294967296|--iters 4294967296: expected a whole number 1 .. 4294967295" \
	 "chase --pages 1K --steps 10|--pages 1K: expected a whole number 1 .. 16777216"; do
	# shellcheck disable=SC2086
	timeout 10 $WL ${a%%|*} > "$T/o" 2> "$T/e" < /dev/null
	st=$?
	first=$(head -n 1 "$T/e")
	if [ $st = 2 ] && [ ! -s "$T/o" ] && grep -q "^Try 'cxdvirt-wl" "$T/e" &&
	   { [ "$first" = "cxdvirt-wl: ${a#*|} (decimal or 0x-hex)" ] ||
	     [ "$first" = "cxdvirt-wl: ${a#*|}" ]; }; then
		ok "${a%%|*}: refused (exit 2), naming the option and its range"
	else
		not_ok "${a%%|*}: refused (exit 2), naming the option and its range" "exit $st: $(cat "$T/e")"
	fi
done

# --dax is for the arena of chase, bfs and pagerank: zipf (the server's
# memory), lackey and exec refuse it rather than ignore it.
r=
for c in "zipf --keys 10 --ops 0 --load" "lackey 0 4096" "exec true"; do
	# shellcheck disable=SC2086
	$WL --dax "$T/arena" $c > "$T/o" 2> "$T/e" < /dev/null
	r="$r $?:$(grep -c -- "--dax is for chase, bfs and pagerank, not ${c%% *}" "$T/e"):$(wc -c < "$T/o")"
done
[ "$r" = " 2:1:0 2:1:0 2:1:0" ] && ok "--dax refused by zipf, lackey and exec (exit 2)" ||
	not_ok "--dax refused by zipf, lackey and exec (exit 2)" "$r: $(cat "$T/e")"

o=$($WL exec sh -c 'exit 3'); st=$?
[ $st = 3 ] && grep -q '"status": 3' <<< "$o" && ok "exec passes the status on" || not_ok "exec status" "$o"
$WL bfs --scale 0 > /dev/null 2>&1 && not_ok "bfs --scale 0 accepted" || ok "bfs --scale 0 refused"

if command -v valgrind > /dev/null; then
	tools/workloads/trace.sh --dax "$T/t" -- $WL chase --pages 32 --steps 3000
	for m in node dax; do
		j=$($SIM --faults --policy fifo --cache-size 64K --json "$T/t.$m.bin")
		acc=$(sed -n 's/.*"accesses": *\([0-9]*\).*/\1/p' <<< "$j" | head -n 1)
		mis=$(sed -n 's/.*"misses": *\([0-9]*\).*/\1/p' <<< "$j" | head -n 1)
		# 3000 chase loads plus the 2048-element cycle set-up, at least.
		[ "${acc:-0}" -ge 5000 ] && [ "${mis:-0}" -ge 32 ] &&
			ok "trace.sh $m trace replays: $acc accesses, $mis misses" ||
			not_ok "trace.sh $m trace" "$j"
	done
	# A program that fails under valgrind: exit 1, with its status and
	# the end of its output.
	e=$(tools/workloads/trace.sh "$T/f" -- sh -c 'echo last words; exit 3' 2>&1); st=$?
	[ $st = 1 ] && grep -q 'status 3' <<< "$e" && grep -q 'last words' <<< "$e" &&
		ok "trace.sh names a failing program's status and output" ||
		not_ok "trace.sh on a failing program" "exit $st: $e"
else
	echo "ok $((n + 1)) # SKIP valgrind missing"; n=$((n + 1))
fi

echo "1..$n"
[ "$fails" -eq 0 ]
