#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-kernel.sh [KVER]
#
# Fetch the Debian kernel image package that matches the installed
# linux-headers-KVER (same package version), extract it into a cache folder
# and print that folder on stdout. The folder holds:
#
#   vmlinuz                  the guest kernel
#   lib/modules/KVER/        its module tree, with modules.dep
#
# The kernel is never installed into the host: the package is only fetched
# with `apt-get download` and unpacked with `dpkg -x`. A second call with the
# same version only checks a stamp file.
#
# KVER defaults to the release of the headers tree in KDIR (see lib.sh).
# Cache: $CXDVIRT_CACHE/kernels/<pkgver>/, default /var/cache/cxdvirt, and
# tests/vm/.cache when that is not writable.
set -euo pipefail

LANE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$LANE_DIR/lib.sh"

kver=${1:-$(lane_default_kver)}
[ -n "$kver" ] || lane_die "no kernel version: install linux-headers-amd64 (tests/vm/install-deps.sh) or pass KVER"

pkg="linux-image-$kver"

# The package version: that of the installed headers for this KVER, so the
# image and the headers the module is built against are the same build.
pkgver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null || true)
if [ -z "$pkgver" ]; then
	pkgver=$(apt-cache policy "$pkg" 2>/dev/null | awk '/Candidate:/ { print $2 }')
	[ "$pkgver" != "(none)" ] || pkgver=
fi
[ -n "$pkgver" ] || lane_die "cannot find a version of $pkg (is linux-headers-$kver installed? apt-get update?)"

cache_root=$(lane_cache_root)
dest="$cache_root/kernels/$pkgver"
stamp="$dest/.complete-$kver"

if [ -f "$stamp" ] && [ -f "$dest/vmlinuz" ] && [ -f "$dest/lib/modules/$kver/modules.dep" ]; then
	echo "$dest"
	exit 0
fi

mkdir -p "$cache_root/kernels"
# Serialise concurrent fetches of the same cache.
exec 9>"$cache_root/kernels/.lock"
flock 9
if [ -f "$stamp" ]; then
	echo "$dest"
	exit 0
fi

work=$(mktemp -d "$cache_root/kernels/.fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT

lane_log "fetching $pkg=$pkgver into $dest"
# apt-get download writes into the current directory. The _apt sandbox user
# may not be able to write there; that only produces a warning.
download() {
	(cd "$work" && apt-get download -q "$pkg=$pkgver") 2>&1 |
		grep -v '^W: Download is performed unsandboxed' >&2 || true
	ls "$work"/*.deb 2>/dev/null | head -n 1 || true
}
deb=$(download)
if [ -z "$deb" ] && [ "$(id -u)" = 0 ]; then
	# A fresh machine may have no package lists yet.
	lane_log "apt-get update, then retrying"
	apt-get update -qq >&2 || true
	deb=$(download)
fi
[ -n "$deb" ] || lane_die "apt-get download $pkg=$pkgver failed (try apt-get update)"

dpkg -x "$deb" "$work/root"

vmlinuz="$work/root/boot/vmlinuz-$kver"
[ -f "$vmlinuz" ] || lane_die "$deb has no boot/vmlinuz-$kver"
moddir=
for d in "$work/root/lib/modules/$kver" "$work/root/usr/lib/modules/$kver"; do
	[ -d "$d" ] && moddir=$d && break
done
[ -n "$moddir" ] || lane_die "$deb has no modules tree for $kver"

rm -rf "$dest"
mkdir -p "$dest/lib/modules"
mv "$vmlinuz" "$dest/vmlinuz"
[ -f "$work/root/boot/config-$kver" ] && mv "$work/root/boot/config-$kver" "$dest/config"
mv "$moddir" "$dest/lib/modules/$kver"

# The package ships no modules.dep (the postinst makes it): build it here,
# writing only below $dest.
if [ ! -f "$dest/lib/modules/$kver/modules.dep" ]; then
	depmod -b "$dest" "$kver"
fi

echo "$pkg=$pkgver" > "$dest/PACKAGE"
touch "$stamp"
lane_log "kernel $kver ready in $dest"
echo "$dest"
