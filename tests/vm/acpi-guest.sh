#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# acpi-guest.sh [--kver KVER] [--out DIR]
#
# Node mode on a machine whose firmware lists no empty NUMA node, with
# cxdvirt-dev acpi-tables. Two boots of the lane guest with
# CXDVIRT_NUMA=two-node (nodes 0-1, both with memory; memmap=1G$4G hides
# 1G of node 1):
#   1. tests/guest/acpi/01-acpi-make.sh prints the node lists, runs
#      cxdvirt-dev acpi-tables on the guest and sends the cpio back as
#      base64 TAP diag lines;
#   2. the host puts that cpio in front of the initramfs and boots again;
#      tests/guest/acpi/02-acpi-node.sh checks node 2 is possible and
#      empty, a node-mode device onlines there, and
#      node2/access0/initiators/read_latency is the modeled value.
# The same two boots check that a NAND image's contents survive a reboot
# (docs/interface.md): both get OUT/reboot-disk.raw, 32 MiB + 4 KiB of
# zeros, as their virtio disk /dev/vda. In boot 1,
# tests/guest/acpi/03-reboot-write.sh leaves records dirty in the cache of
# a powered device whose image is that disk and has the guest reboot; in
# boot 2, 04-reboot-check.sh finds them all on the disk. (Two boots of
# their own would cost CI a minute.)
# OUT (default tests/vm/out/acpi) gets boot1/, boot2/, acpi.cpio and
# reboot-disk.raw.
set -euo pipefail

LANE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$LANE_DIR/lib.sh"

kver=
out=$LANE_DIR/out/acpi
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '3,25p' "$0"; exit 0 ;;
	*) lane_die "unknown argument $1 (see --help)" ;;
	esac
done
kargs=()
[ -n "$kver" ] && kargs=(--kver "$kver")
export CXDVIRT_NUMA=two-node CXDVIRT_GUEST_TESTS=$REPO_ROOT/tests/guest/acpi
mkdir -p "$out"
export CXDVIRT_DISK=$out/reboot-disk.raw
rm -f "$CXDVIRT_DISK"
truncate -s $((32 * 1048576 + 4096)) "$CXDVIRT_DISK"

lane_log "acpi: boot 1 (no empty node): make the tables; records dirty at a reboot"
"$LANE_DIR/run-guest.sh" "${kargs[@]}" --tests '01* 03*' --out "$out/boot1"
# the module's reboot notifier (driver/devdax/image.c) says what it wrote
grep -a 'host shutdown:' "$out/boot1/console.log" | tr -d '\r' >&2 ||
	lane_log "boot 1: the module logged no flush at the reboot"
tap=$out/boot1/tap/01-acpi-make.tap
sed -n 's/^# ACPI-CPIO //p' "$tap" | base64 -d > "$out/acpi.cpio"
lat=$(sed -n 's/^# ACPI-READ-LATENCY //p' "$tap")
[ -s "$out/acpi.cpio" ] && [ -n "$lat" ] || lane_die "boot 1 sent no tables ($tap)"
lane_log "acpi: $(cpio -it < "$out/acpi.cpio" 2>/dev/null | tr '\n' ' ')"
grep -h 'NODES-BEFORE' "$tap" >&2 || true

lane_log "acpi: boot 2 with the tables in front of the initramfs"
CXDVIRT_EARLY_CPIO=$out/acpi.cpio "$LANE_DIR/run-guest.sh" "${kargs[@]}" \
	--tests '02* 04*' --out "$out/boot2" --append "cxdvirt_expect_read_latency=$lat"
grep -h 'NODES-AFTER\|access0:' "$out/boot2/tap/02-acpi-node.tap" >&2 || true
