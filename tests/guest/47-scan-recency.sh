#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The accessed-bit scan feeds native hits to recency policies: a page kept
# hot by native accesses (no faults) survives a stream under lru, clock and
# s3fifo, and is evicted over and over under fifo and with the scan off.
. /tests/lib.sh

D=scanh
STREAM=192
LINES=16
trap 'dev_rm $D 2>/dev/null' EXIT

extra_for() {	# POLICY SCAN_MS
	dev_create $D capacity=2M cache_size=$((LINES * 4))K t_read_ns=1000 \
		policy=$1 scan_interval_ms=$2 || { echo fail; return; }
	dev_on $D || { echo fail; return; }
	"$PROGS/scanhot" "$(dev_node $D)" $STREAM 4 40 | sed -n 's/^extra //p'
	dev_rm $D
}

for p in lru clock s3fifo; do
	e=$(extra_for $p 5)
	cmp_ok "${e:-999}" -le 2 "$p with a 5 ms scan: the hot page stays ($e extra misses)"
done
e=$(extra_for fifo 5)
cmp_ok "${e:--1}" -ge $((STREAM / LINES / 2)) "fifo: the hot page is evicted again and again ($e extra misses)"
e=$(extra_for lru 0)
cmp_ok "${e:--1}" -ge $((STREAM / LINES / 2)) "lru with the scan off: no recency, the hot page is evicted ($e extra misses)"
done_testing
