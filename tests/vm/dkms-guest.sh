#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-guest.sh [--tests 'GLOB...'] [--kver KVER] [--out DIR]
#
# The DKMS path a user takes, checked end to end without touching the host:
#   1. a scratch root: a copy of the lane kernel's folder (vmlinuz and its
#      lib/modules/KVER from fetch-kernel.sh) and empty DKMS trees;
#   2. in a private mount namespace, /etc/dkms is replaced by a framework.conf
#      that points source_tree, dkms_tree, install_tree and the signing key
#      (DKMS makes a throwaway one) into the scratch root (dkms 3.0 takes
#      them from there only);
#   3. make dkms DESTDIR=SCRATCH (sources -> SCRATCH/usr/src/cxdvirt-VER,
#      dkms add), dkms build and dkms install against the lane's headers
#      (/usr/src/linux-headers-KVER), depmod -b on the scratch kernel tree;
#   4. checks that modprobe resolves cxdvirt to the module DKMS installed;
#   5. boots the guest on that kernel folder with that installed module
#      (CXDVIRT_KO), not ./cxdvirt.ko, and runs GLOB (default '10*').
# The DKMS transcript is OUT/dkms.log (OUT default tests/vm/out/dkms).
set -euo pipefail

LANE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$LANE_DIR/lib.sh"
cd "$REPO_ROOT"

kver=
tests='10*'
out=$LANE_DIR/out/dkms
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--tests) tests=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	-h|--help) sed -n '3,19p' "$0"; exit 0 ;;
	*) lane_die "unknown argument $1 (see --help)" ;;
	esac
done
[ -n "$kver" ] || kver=$(lane_default_kver)
[ -n "$kver" ] || lane_die "no kernel version (install linux-headers-amd64 or pass --kver)"
command -v dkms > /dev/null || lane_die "dkms missing (tests/vm/install-deps.sh)"
command -v unshare > /dev/null || lane_die "unshare missing (util-linux)"
hdr=/usr/src/linux-headers-$kver
[ -d "$hdr" ] || lane_die "no headers at $hdr"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
kimg=$("$LANE_DIR/fetch-kernel.sh" "$kver")

mkdir -p "$out"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/cxdvirt-dkms.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/etc-dkms" "$scratch/var/lib/dkms" "$scratch/usr/src" "$scratch/kernel"
cp -a "$kimg/vmlinuz" "$kimg/lib" "$scratch/kernel/"
cat > "$scratch/etc-dkms/framework.conf" <<CONF
source_tree="$scratch/usr/src"
dkms_tree="$scratch/var/lib/dkms"
install_tree="$scratch/kernel/lib/modules"
mok_signing_key="$scratch/mok.key"
mok_certificate="$scratch/mok.pub"
CONF

log=$out/dkms.log
lane_log "dkms: building and installing cxdvirt $ver for $kver in $scratch (transcript: $log)"
# The namespace's /etc/dkms is ours; the host's is untouched.
if ! unshare -m bash -euo pipefail -c '
	mount --bind "$1/etc-dkms" /etc/dkms
	set -x
	make -s dkms DESTDIR="$1"
	dkms status -m cxdvirt
	dkms build -m cxdvirt -v "$2" -k "$3" --kernelsourcedir "$4"
	dkms install -m cxdvirt -v "$2" -k "$3" --kernelsourcedir "$4" --no-depmod
	dkms status -m cxdvirt
	' dkms-guest "$scratch" "$ver" "$kver" "$hdr" > "$log" 2>&1; then
	cat "$log" >&2
	lane_die "dkms failed"
fi
echo "+ depmod -b $scratch/kernel -a $kver" >> "$log"
depmod -b "$scratch/kernel" -a "$kver" >> "$log" 2>&1
cat "$log"

# dkms.conf says extra/; Debian's DKMS puts modules in updates/dkms/.
ko=$(find "$scratch/kernel/lib/modules/$kver" -name 'cxdvirt.ko*' | head -n 1)
[ -n "$ko" ] || lane_die "dkms install left no cxdvirt.ko under $scratch/kernel/lib/modules/$kver"
got=$(modprobe -d "$scratch/kernel" -S "$kver" --show-depends cxdvirt 2>&1 | awk '$1 == "insmod" { print $2 }' | tail -n 1)
[ "$got" = "$ko" ] || lane_die "modprobe resolves cxdvirt to '$got', not DKMS's $ko"
lane_log "dkms: modprobe cxdvirt -> $got ($(modinfo -F vermagic "$ko"), signer: $(modinfo -F signer "$ko"))"
case $ko in *.ko) ;; *) lane_die "compressed module $ko: the guest lane loads a plain .ko" ;; esac

CXDVIRT_KO=$ko "$LANE_DIR/run-guest.sh" --kver "$kver" --kernel-dir "$scratch/kernel" \
	--tests "$tests" --out "$out"
