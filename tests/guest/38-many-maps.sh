#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Tearing down N mappings of a device costs O(N), not O(N^2): the mapping's
# record is found through vm_private_data, not by a search of all of them.
. /tests/lib.sh

# One of the slowest tests under KASAN + lockdep (about 4 minutes), and
# about the model or scale rather than kernel safety: it runs on the stock
# kernels; the debug-kernel lane skips it to keep CI within its time.
if [ "${cxdvirt_debug:-0}" = 1 ]; then
	skip "38-many-maps" "stock kernels only (debug-lane time)"
	done_testing
fi

D=maps
trap 'dev_rm $D 2>/dev/null' EXIT

dev_create $D capacity=2M cache_size=256K scan_interval_ms=50 || bail "create $D"
dev_on $D || bail "power on $D"
N=$(dev_node $D)
unmap_us() {	# unmap_us COUNT: time to unmap COUNT mappings
	"$PROGS/harden" maps "$N" "$1" | sed -n 's/.*unmap_us \([0-9]*\).*/\1/p'
}
unmap_us 2000 > /dev/null	# warm up
small=$(unmap_us 2000)
big=$(unmap_us 16000)
diag "unmap 2000 mappings: $small us; 16000 mappings: $big us"
cmp_ok "$small" -gt 0 "2000 mappings unmapped ($small us)"
# linear: 8x; quadratic: 64x
cmp_ok "$big" -lt $((small * 32)) "8x the mappings take less than 32x the time ($big us vs $small us)"
dev_rm $D
ok $? "remove $D"
done_testing
