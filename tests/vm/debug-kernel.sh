#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh [--check] [--fragment FILE]
#
# Build (once) the debug guest kernel: Debian bookworm's linux-source-6.1,
# `make allnoconfig` with tests/vm/debug.config as KCONFIG_ALLCONFIG: what
# the guest lane needs plus the debug options (KASAN, lockdep, kmemleak,
# ...), nothing else.
# Prints the cache folder on stdout. It holds:
#
#   image/vmlinuz, image/lib/modules/KVER/   for run-guest.sh --kernel-dir
#   build/                                   the built tree: KDIR for M= builds
#   KVER, build-seconds, PACKAGE, config
#
# Cache: $CXDVIRT_CACHE/debug-kernel/<key>/ (default /var/cache/cxdvirt),
# key = source package version + hash of the fragment and of this recipe.
# The hash covers the fragment's every byte, comments too: editing even a
# comment of debug.config costs a rebuild (7-10 min) on every warm cache.
# A second call with the same key only checks a stamp file. The source
# package is fetched with `apt-get download` and never installed.
#
# --check: print the folder when the kernel is already built, else exit 3
# without building (CI uses this to skip the lane on a cold cache).
# Environment: DEBUG_KERNEL_JOBS (make -j, default 2). The build always runs
# under `nice -n 19`: other guests on this host are timing-sensitive.
set -euo pipefail

LANE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$LANE_DIR/lib.sh"

SRC_PKG=linux-source-6.1
RECIPE=3	# bump when the build steps below change
fragment=$LANE_DIR/debug.config
check_only=0
jobs=${DEBUG_KERNEL_JOBS:-2}

while [ $# -gt 0 ]; do
	case $1 in
	--check) check_only=1; shift ;;
	--fragment) fragment=$2; shift 2 ;;
	-h|--help) sed -n '3,26p' "$0"; exit 0 ;;
	*) lane_die "debug-kernel: unknown argument $1" ;;
	esac
done
[ -f "$fragment" ] || lane_die "no config fragment $fragment"

cache_root=$(lane_cache_root)/debug-kernel
mkdir -p "$cache_root"

pkgver=$(apt-cache policy "$SRC_PKG" 2>/dev/null | awk '/Candidate:/ { print $2 }')
[ "$pkgver" != "(none)" ] || pkgver=
fhash=$( { echo "recipe $RECIPE"; cat "$fragment"; } | sha256sum | cut -c1-12)
if [ -z "$pkgver" ]; then
	# No package lists: fall back to a cached build of this fragment.
	d=$(ls -d "$cache_root"/*-"$fhash" 2>/dev/null | sort -V | tail -n 1 || true)
	if [ -n "$d" ] && [ -f "$d/.complete" ]; then
		echo "$d"
		exit 0
	fi
	[ $check_only = 1 ] && exit 3
	lane_die "no candidate version of $SRC_PKG (apt-get update?)"
fi
key="$pkgver-$fhash"
dest=$cache_root/$key

ready() { [ -f "$dest/.complete" ] && [ -f "$dest/image/vmlinuz" ]; }
if ready; then
	echo "$dest"
	exit 0
fi
[ $check_only = 1 ] && exit 3

exec 9>"$cache_root/.lock"
flock 9
if ready; then
	echo "$dest"
	exit 0
fi

t0=$(date +%s)
# --- source --------------------------------------------------------------
srcdir=$cache_root/src/$pkgver
tarball=$srcdir/usr/src/$SRC_PKG.tar.xz
if [ ! -f "$tarball" ]; then
	mkdir -p "$srcdir"
	lane_log "fetching $SRC_PKG=$pkgver"
	(cd "$srcdir" && apt-get download -q "$SRC_PKG=$pkgver") 2>&1 |
		grep -v '^W: Download is performed unsandboxed' >&2 || true
	deb=$(ls "$srcdir"/"$SRC_PKG"_*.deb 2>/dev/null | head -n 1 || true)
	[ -n "$deb" ] || lane_die "apt-get download $SRC_PKG=$pkgver failed (apt-get update?)"
	dpkg -x "$deb" "$srcdir"
	rm -f "$deb"
fi

rm -rf "$dest"
mkdir -p "$dest/image"
lane_log "extracting $SRC_PKG $pkgver into $dest/build"
tar -xJf "$tarball" -C "$dest"
mv "$dest/$SRC_PKG" "$dest/build"
b=$dest/build

# --- configuration ---------------------------------------------------------
kmake() { nice -n 19 make -C "$b" "$@"; }
# allnoconfig with the fragment as its "all" file: the fragment's values
# are set first, every other visible option is "no", and hidden ones take
# their defaults in the fragment's context (64BIT=y from the start, so
# 64-bit defaults such as FRAME_WARN=2048 hold).
KCONFIG_ALLCONFIG=$fragment kmake -s allnoconfig >&2
# Every option the fragment sets must survive (a dependency missing from
# the fragment silently drops it).
bad=0
while IFS= read -r line; do
	case $line in
	CONFIG_*=*) grep -qxF "$line" "$b/.config" || { lane_log "fragment: $line not in .config"; bad=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		if grep -q "^$opt=" "$b/.config"; then lane_log "fragment: $opt still set"; bad=1; fi ;;
	esac
done < "$fragment"
[ $bad = 0 ] || lane_die "config fragment not applied as written (see above)"

# --- build -----------------------------------------------------------------
lane_log "building the debug kernel (make -j$jobs under nice -n 19; about 10 minutes)"
kmake -j"$jobs" bzImage modules >&2
kmake -s INSTALL_MOD_PATH="$dest/image" INSTALL_MOD_STRIP=1 modules_install >&2
kver=$(kmake -s kernelrelease)
cp "$b/arch/x86/boot/bzImage" "$dest/image/vmlinuz"
cp "$b/.config" "$dest/config"
rm -f "$dest/image/lib/modules/$kver/build" "$dest/image/lib/modules/$kver/source"
[ -f "$dest/image/lib/modules/$kver/modules.dep" ] || depmod -b "$dest/image" "$kver"
echo "$kver" > "$dest/KVER"
echo "$SRC_PKG=$pkgver" > "$dest/PACKAGE"
t1=$(date +%s)
echo $((t1 - t0)) > "$dest/build-seconds"
touch "$dest/.complete"
lane_log "debug kernel $kver ready in $dest ($((t1 - t0)) s)"
# Each build keeps a ~2.5 GB tree: keep this one and the previous one.
for old in $(ls -dt "$cache_root"/*/.complete 2>/dev/null | tail -n +3); do
	old=$(dirname "$old")
	[ "$old" != "$dest" ] || continue
	lane_log "removing the older debug kernel $old"
	rm -rf "$old"
done
echo "$dest"
