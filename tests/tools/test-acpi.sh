#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# cxdvirt-dev acpi-tables against a fake /sys with a QEMU-like SRAT (two
# CPUs in domain 0; memory of domains 0 and 1, node 1 split around the PCI
# hole; a hot-pluggable range of domain 1). An independent decoder (python,
# from ACPI 6.4 5.2.16 and 5.2.27) checks the cpio and both tables:
# checksums, OEM fields, the reserved range cut out of domain 1 and given
# domain 2 (enabled, hot-pluggable), no overlapping memory, and the HMAT's
# latency and bandwidth against what the tool reports. Prints TAP.
set -u
cd "$(dirname "$0")/../.."
DEV=${1:-tools/cxdvirt-dev}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
fails=0
t() {	# DESC CMD...
	local d=$1
	shift
	n=$((n + 1))
	if "$@" > "$tmp/t.out" 2>&1; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		sed 's/^/# /' "$tmp/t.out"
		fails=$((fails + 1))
	fi
}

mkdir -p "$tmp/sys/firmware/acpi/tables" "$tmp/proc"
python3 - "$tmp/sys/firmware/acpi/tables/SRAT" <<'PY'
import struct, sys
def mem(pxm, base, size, flags=1):
    return struct.pack('<BBIHQQIIQ', 1, 40, pxm, 0, base, size, 0, flags, 0)
def lapic(pxm, apic):
    return struct.pack('<BBBBIB3sI', 0, 16, pxm & 0xff, apic, 1, 0, (pxm >> 8).to_bytes(3, 'little'), 0)
body = struct.pack('<IQ', 1, 0) + lapic(0, 0) + lapic(0, 1) + \
    mem(0, 0, 0xa0000) + mem(0, 0x100000, 0x5ff00000) + \
    mem(1, 0x60000000, 0x60000000) + mem(1, 0x100000000, 0xa0000000) + \
    mem(1, 0x200000000, 0x100000000, 3)
hdr = bytearray(struct.pack('<4sIBB6s8sI4sI', b'SRAT', 36 + len(body), 1, 0,
                            b'BOCHS ', b'BXPC    ', 1, b'BXPC', 1))
t = hdr + body
t[9] = (-sum(t)) & 0xff
open(sys.argv[1], 'wb').write(t)
PY
echo 'BOOT_IMAGE=/vmlinuz memmap=1G$4G quiet' > "$tmp/proc/cmdline"

run() { CXDVIRT_SYS=$tmp/sys CXDVIRT_PROC=$tmp/proc "$DEV" acpi-tables "$@"; }
t "acpi-tables from memmap= on the command line" run --out "$tmp/a.cpio"
t "acpi-tables --json" sh -c "CXDVIRT_SYS=$tmp/sys CXDVIRT_PROC=$tmp/proc $DEV acpi-tables --json --out $tmp/b.cpio > $tmp/a.json"
t "--range 1G@4G gives the same cpio" sh -c "CXDVIRT_SYS=$tmp/sys CXDVIRT_PROC=/nonexistent $DEV acpi-tables --range 1G@4G --out $tmp/c.cpio >/dev/null && cmp $tmp/a.cpio $tmp/c.cpio"
t "the cpio: kernel/firmware/acpi/SRAT.aml and HMAT.aml (cpio -t)" sh -c "cpio -it < $tmp/a.cpio 2>/dev/null | grep -qx kernel/firmware/acpi/SRAT.aml && cpio -it < $tmp/a.cpio 2>/dev/null | grep -qx kernel/firmware/acpi/HMAT.aml"
(cd "$tmp" && mkdir x && cd x && cpio -id < ../a.cpio 2>/dev/null)
t "the tables decode and check out" python3 - "$tmp/sys/firmware/acpi/tables/SRAT" "$tmp/x/kernel/firmware/acpi/SRAT.aml" "$tmp/x/kernel/firmware/acpi/HMAT.aml" "$tmp/a.json" <<'PY'
import json, struct, sys
orig, srat, hmat = (open(p, 'rb').read() for p in sys.argv[1:4])
info = json.load(open(sys.argv[4]))
def hdr(t):
    sig, ln, rev, ck, oem, oemt, oemrev = struct.unpack_from('<4sIBB6s8sI', t)
    assert ln == len(t), (sig, ln, len(t))
    assert sum(t) & 0xff == 0, (sig, 'checksum')
    return sig, rev, oem, oemt, oemrev
so, ss = hdr(orig), hdr(srat)
assert ss[0] == b'SRAT' and ss[2:4] == so[2:4], 'OEM ID and table ID kept'
assert ss[4] == so[4] + 1, 'OEM revision + 1'
mems, cpus = [], 0
off = 48
while off < len(srat):
    typ, ln = srat[off], srat[off + 1]
    if typ == 1:
        _, _, pxm, _, base, size, _, flags, _ = struct.unpack_from('<BBIHQQIIQ', srat, off)
        mems.append((base, base + size, pxm, flags))
    elif typ == 0:
        cpus += 1
    off += ln
assert off == len(srat) and cpus == 2
mems.sort()
for a, b in zip(mems, mems[1:]):
    assert a[1] <= b[0], ('overlap', a, b)
want = [(0, 0xa0000, 0, 1), (0x100000, 0x60000000, 0, 1), (0x60000000, 0xc0000000, 1, 1),
        (0x100000000, 0x140000000, 2, 3), (0x140000000, 0x1a0000000, 1, 1),
        (0x200000000, 0x300000000, 1, 3)]
assert mems == want, mems
assert info['domains'] == [{'proximity_domain': 2, 'start': 0x100000000, 'size': 0x40000000}], info
sh = hdr(hmat)
assert sh[0] == b'HMAT' and sh[1] == 2 and sh[2] == so[2], sh
off, vals, mpda = 40, {}, []
while off < len(hmat):
    typ, _, ln = struct.unpack_from('<HHI', hmat, off)
    if typ == 0:
        mpda.append(struct.unpack_from('<I', hmat, off + 16)[0])
    elif typ == 1:
        flags, dt, _, _, ni, nt, _, base = struct.unpack_from('<BBBBIIIQ', hmat, off + 8)
        p = off + 32
        inits = struct.unpack_from('<%dI' % ni, hmat, p); p += 4 * ni
        targs = struct.unpack_from('<%dI' % nt, hmat, p); p += 4 * nt
        ent = struct.unpack_from('<%dH' % (ni * nt), hmat, p)
        assert inits == (0,) and targs == (2,) and flags == 0, (inits, targs)
        v = ent[0] * base
        vals[dt] = -(-v // 1000) if dt in (1, 2) else v   # hmat_normalize()
    off += ln
assert off == len(hmat) and mpda == [2]
assert vals[1] == info['read_latency_ns'] and vals[2] == info['write_latency_ns'], (vals, info)
assert vals[4] == info['read_bandwidth_mbps'] and vals[5] == info['write_bandwidth_mbps'], (vals, info)
print(vals)
PY
t "refused: an HMAT exists already" sh -c "cp $tmp/x/kernel/firmware/acpi/HMAT.aml $tmp/sys/firmware/acpi/tables/HMAT; CXDVIRT_SYS=$tmp/sys CXDVIRT_PROC=$tmp/proc $DEV acpi-tables --out $tmp/d.cpio > $tmp/e 2>&1; [ \$? -eq 1 ] && grep -q 'has an HMAT already' $tmp/e"
rm -f "$tmp/sys/firmware/acpi/tables/HMAT"
t "refused: no memmap= and no --range" sh -c "echo quiet > $tmp/proc/cmdline; CXDVIRT_SYS=$tmp/sys CXDVIRT_PROC=$tmp/proc $DEV acpi-tables --out $tmp/d.cpio 2>&1 | grep -q 'no memmap='"
t "refused: a range not 2 MiB aligned" sh -c "CXDVIRT_SYS=$tmp/sys $DEV acpi-tables --range 1M@4G --out $tmp/d.cpio 2>&1 | grep -q 'not 2 MiB aligned'"
t "usage error: --range without @" sh -c "CXDVIRT_SYS=$tmp/sys $DEV acpi-tables --range 1G --out $tmp/d.cpio; [ \$? -eq 2 ]"
t "refused: no SRAT" sh -c "rm $tmp/sys/firmware/acpi/tables/SRAT; CXDVIRT_SYS=$tmp/sys $DEV acpi-tables --range 1G@4G --out $tmp/d.cpio 2>&1 | grep -q 'cannot read the SRAT'"
echo "1..$n"
[ "$fails" -eq 0 ]
