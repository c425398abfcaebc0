#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# redis-pipe.sh [RUNS]: why the redis Zipf rows of `make workloads` (the
# requests piped into redis-cli --pipe) do not repeat, measured on this
# host (docs/workloads.md, "Repeatability"). For each client, RUNS times
# (default 5): a fresh redis-server, pinned with its client to one CPU as
# in the guest's one vCPU, loaded with 2048 keys of 1 KiB, then the same
# 20000 Zipf requests, by redis-cli --pipe or one at a time by cxdvirt-wl
# zipf --redis. Prints per run the server's minor faults during the
# requests (pages it touched for the first time: on a node-mode device,
# each is a miss), its RSS growth, the reads it processed and the largest
# output (reply) buffer of a client. Needs redis-server, redis-cli and
# taskset; about 10 s.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WL=${WL:-$HERE/cxdvirt-wl}
runs=${1:-5}
tmp=$(mktemp -d)
trap 'redis-cli -s "$tmp/r.sock" shutdown nosave > /dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
zipf=("$WL" zipf --keys 2048 --value-size 1024)
"${zipf[@]}" --ops 20000 > "$tmp/zipf.resp"

field() {	# field NAME: NAME's value in the server's INFO
	redis-cli -s "$tmp/r.sock" info | tr -d '\r' | sed -n "s/^$1://p"
}

for client in pipe one-at-a-time; do
	for run in $(seq "$runs"); do
		taskset -c 0 redis-server --port 0 --unixsocket "$tmp/r.sock" \
			--save '' --appendonly no --dir "$tmp" > "$tmp/r.log" 2>&1 &
		rp=$!
		until [ "$(redis-cli -s "$tmp/r.sock" ping 2> /dev/null)" = PONG ]; do
			sleep 0.1
		done
		if [ $client = pipe ]; then
			"${zipf[@]}" --ops 0 --load | taskset -c 0 redis-cli -s "$tmp/r.sock" --pipe > /dev/null
		else
			taskset -c 0 "${zipf[@]}" --ops 0 --load --redis "$tmp/r.sock" > /dev/null
		fi
		redis-cli -s "$tmp/r.sock" config resetstat > /dev/null
		f0=$(awk '{ print $10 }' "/proc/$rp/stat")
		r0=$(awk '/^VmRSS/ { print $2 }' "/proc/$rp/status")
		if [ $client = pipe ]; then
			taskset -c 0 redis-cli -s "$tmp/r.sock" --pipe < "$tmp/zipf.resp" > /dev/null
		else
			taskset -c 0 "${zipf[@]}" --ops 20000 --redis "$tmp/r.sock" > /dev/null
		fi
		f1=$(awk '{ print $10 }' "/proc/$rp/stat")
		r1=$(awk '/^VmRSS/ { print $2 }' "/proc/$rp/status")
		echo "$client run $run: minor faults $((f1 - f0)), RSS +$((r1 - r0)) KiB," \
			"reads $(field total_reads_processed)," \
			"largest reply buffer $(field client_recent_max_output_buffer) bytes"
		redis-cli -s "$tmp/r.sock" shutdown nosave > /dev/null 2>&1 || true
		wait $rp || true
	done
done
