#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# matrix.sh [--build-only] [--refresh] [--tests 'GLOB...'] [--timeout SECS]
#           [--test-timeout SECS] [SUITE...]
# matrix.sh prepare SUITE...
#
# The kernel matrix: build cxdvirt.ko with -Werror against the stock Debian
# kernel of each SUITE and run the guest suite on that kernel.
#
#   bookworm  the host's own kernel (6.1): `make module`, then run-guest.sh
#   trixie    6.12, built in a trixie chroot
#   sid       the newest (7.x), built in a sid chroot
#
# Default SUITEs: bookworm trixie sid. A newer kernel's headers need that
# suite's gcc and glibc (its prebuilt objtool/modpost), so each non-host suite
# gets a debootstrap'd chroot with build-essential and linux-headers-amd64:
#
#   $CXDVIRT_CACHE/chroot/<suite>/     (default /var/cache/cxdvirt)
#
# keyed by suite, mirror and package list (a stamp file); a rerun only checks
# the stamp. The sources (Kbuild and the folders it names) are copied into the
# chroot and built there; cxdvirt.ko is copied out to
# tests/vm/out/matrix/<suite>/. The guest kernel is that suite's
# linux-image of the same version as the chroot's headers, downloaded with a
# private apt state (the host's apt is not touched, nothing is installed on
# the host) and unpacked into $CXDVIRT_CACHE/kernels/<version>/, the layout
# fetch-kernel.sh uses. The tools and guest programs are the host's.
#
# --build-only   build the module, no guest (bookworm: just `make module`)
# --refresh      update the chroot's packages (newest headers of the suite)
#                before building; also done by itself when the suite's
#                mirror no longer has the image matching the chroot's headers
# `prepare`      only make the chroot and the guest kernel ready
# Unless --build-only, tests/vm/out/matrix/<suite>/guest-kernel then holds
# "KVER KERNEL-DIR" of the prepared guest kernel (tools/bench/bench.sh reads it).
#
# Environment: CXDVIRT_CACHE, CXDVIRT_MIRROR (Debian mirror; default: the
# one the host's apt sources use for its Debian suite),
# CXDVIRT_CHROOT_MAX_DAYS (refresh an older chroot; default 7).
set -euo pipefail

LANE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$LANE_DIR/lib.sh"

build_only=0
refresh=0
prepare_only=0
run_args=()
suites=()

while [ $# -gt 0 ]; do
	case $1 in
	prepare) prepare_only=1; shift ;;
	--build-only) build_only=1; shift ;;
	--refresh) refresh=1; shift ;;
	--tests|--timeout|--test-timeout) run_args+=("$1" "$2"); shift 2 ;;
	-h|--help) sed -n '3,41p' "$0"; exit 0 ;;
	-*) lane_die "matrix: unknown argument $1 (see --help)" ;;
	*) suites+=("$1"); shift ;;
	esac
done
[ ${#suites[@]} -gt 0 ] || suites=(bookworm trixie sid)

# Packages of the build chroot. Part of the chroot's key.
CHROOT_PKGS="build-essential,make,linux-headers-amd64,xz-utils"
CHROOT_KEY_VERSION=1

cache_root=$(lane_cache_root)

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# The Debian mirror of the host's apt sources (deb822 or one-line format).
host_mirror() {
	if [ -n "${CXDVIRT_MIRROR:-}" ]; then
		echo "$CXDVIRT_MIRROR"
		return
	fi
	local m
	m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }')
	[ -n "$m" ] || m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { print $i; exit } }')
	echo "${m:-http://deb.debian.org/debian}"
}
MIRROR=$(host_mirror)

# in_chroot DIR CMD...: run CMD in the chroot with a clean environment and
# /proc mounted (objtool reads it), in a private mount namespace so that the
# mount goes away with the command.
in_chroot() {
	local dir=$1
	shift
	unshare --mount --propagation private -- sh -c '
		d=$1; shift
		mount -t proc proc "$d/proc" || exit 1
		exec chroot "$d" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' \
		in_chroot "$dir" "$@"
}

# chroot_prepare SUITE: make $cache_root/chroot/SUITE ready; prints its path.
chroot_prepare() {
	local suite=$1 dir="$cache_root/chroot/$1"
	local key="v$CHROOT_KEY_VERSION $suite $MIRROR $CHROOT_PKGS"
	local stamp="$dir/.cxdvirt-chroot"

	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
		echo "$dir"
		return
	fi
	mkdir -p "$cache_root/chroot"
	exec 8>"$cache_root/chroot/.lock-$suite"
	flock 8
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ]; then
		exec 8>&-
		echo "$dir"
		return
	fi
	command -v debootstrap >/dev/null || lane_die "debootstrap missing (tests/vm/install-deps.sh)"
	local t0 tmp
	t0=$(now)
	tmp="$dir.new"
	rm -rf "$tmp"
	lane_log "$suite: debootstrap from $MIRROR into $dir (a few minutes, once)"
	if ! debootstrap --variant=minbase --include="$CHROOT_PKGS" \
		"$suite" "$tmp" "$MIRROR" > "$cache_root/chroot/debootstrap-$suite.log" 2>&1; then
		tail -n 20 "$cache_root/chroot/debootstrap-$suite.log" >&2
		lane_die "$suite: debootstrap failed (log: $cache_root/chroot/debootstrap-$suite.log)"
	fi
	rm -f "$tmp"/var/cache/apt/archives/*.deb
	rm -rf "$dir"
	mv "$tmp" "$dir"
	echo "$key" > "$stamp"
	exec 8>&-
	lane_log "$suite: chroot ready in $(since "$t0")s"
	echo "$dir"
}

# chroot_refresh DIR: newest packages of the suite (headers included).
chroot_refresh() {
	local dir=$1 t0
	t0=$(now)
	exec 8>"$cache_root/chroot/.lock-$(basename "$dir")"
	flock 8
	lane_log "$(basename "$dir"): refreshing the chroot's packages"
	in_chroot "$dir" apt-get update -qq
	in_chroot "$dir" apt-get install -y -qq --no-install-recommends linux-headers-amd64 >/dev/null
	in_chroot "$dir" apt-get dist-upgrade -y -qq >/dev/null
	in_chroot "$dir" apt-get clean
	touch "$dir/.cxdvirt-chroot"
	exec 8>&-
	lane_log "$(basename "$dir"): refreshed in $(since "$t0")s"
}

# The headers release (KVER) of a chroot: that of its linux-headers-amd64.
chroot_kver() {
	local dir=$1 dep
	dep=$(in_chroot "$dir" dpkg-query -W -f='${Depends}' linux-headers-amd64 |
		tr ',' '\n' | sed -n 's/^ *linux-headers-\([^ ]*\).*/\1/p' | head -n 1)
	[ -n "$dep" ] || lane_die "$(basename "$dir"): no linux-headers-amd64 in the chroot"
	echo "$dep"
}

# apt_private SUITE ARGS...: apt-get with a private state for SUITE.
apt_private() {
	local suite=$1
	shift
	local a="$cache_root/apt/$suite"
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
	echo "deb $MIRROR $suite main" > "$a/sources.list"
	apt-get -o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" \
		-o APT::Sandbox::User=root "$@"
}

# kernel_prepare SUITE KVER PKGVER: the guest kernel folder (vmlinuz and the
# decompressed module tree with modules.dep); prints it. Returns 2 when the
# mirror does not have linux-image-KVER=PKGVER.
kernel_prepare() {
	local suite=$1 kver=$2 pkgver=$3
	local dest="$cache_root/kernels/$pkgver" stamp
	stamp="$dest/.complete-$kver"
	if [ -f "$stamp" ] && [ -f "$dest/vmlinuz" ] && [ -f "$dest/lib/modules/$kver/modules.dep" ]; then
		echo "$dest"
		return 0
	fi
	mkdir -p "$cache_root/kernels"
	exec 9>"$cache_root/kernels/.lock"
	flock 9
	local t0 work deb p
	t0=$(now)
	work=$(mktemp -d "$cache_root/kernels/.fetch.XXXXXX")
	lane_log "$suite: fetching linux-image-$kver=$pkgver"
	apt_private "$suite" update -qq >&2 || { rm -rf "$work"; lane_die "$suite: apt-get update failed"; }
	for p in "linux-image-$kver" "linux-image-$kver-unsigned"; do
		(cd "$work" && apt_private "$suite" download -q "$p=$pkgver") >&2 2>/dev/null && break
	done
	deb=$(ls "$work"/*.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$deb" ]; then
		rm -rf "$work"
		exec 9>&-
		return 2
	fi
	# Newer kernels split the image: linux-image-KVER only depends on
	# linux-binary-KVER (vmlinuz), linux-modules-KVER and linux-base-KVER.
	for p in $(dpkg-deb -f "$deb" Depends | tr ',|' '\n\n' |
		sed -n "s/^ *\(linux-\(binary\|modules\|base\)-$kver\) .*/\1/p"); do
		(cd "$work" && apt_private "$suite" download -q "$p=$pkgver") >&2 ||
			{ rm -rf "$work"; lane_die "$suite: cannot download $p=$pkgver"; }
	done
	for p in "$work"/*.deb; do
		dpkg -x "$p" "$work/root"
	done
	local moddir=
	for p in "$work/root/lib/modules/$kver" "$work/root/usr/lib/modules/$kver"; do
		[ -d "$p" ] && moddir=$p && break
	done
	# vmlinuz: boot/vmlinuz-KVER, or (7.x) the module tree's vmlinuz.
	local vmlinuz=$work/root/boot/vmlinuz-$kver config=$work/root/boot/config-$kver
	[ -f "$vmlinuz" ] || vmlinuz=$moddir/vmlinuz
	[ -f "$config" ] || config=$moddir/config
	[ -f "$vmlinuz" ] && [ -n "$moddir" ] ||
		{ rm -rf "$work"; lane_die "$deb has no vmlinuz-$kver or module tree"; }
	# Decompress the modules: the host's kmod reads them, and the guest's
	# busybox modprobe need not know the compression.
	find "$moddir" -name '*.ko.xz' -exec xz -d {} +
	find "$moddir" -name '*.ko.zst' -exec zstd -q -d --rm {} +
	find "$moddir" -name '*.ko.gz' -exec gzip -d {} +
	rm -rf "$dest"
	mkdir -p "$dest/lib/modules"
	mv "$vmlinuz" "$dest/vmlinuz"
	[ -f "$config" ] && mv "$config" "$dest/config"
	mv "$moddir" "$dest/lib/modules/$kver"
	depmod -b "$dest" "$kver"
	echo "linux-image-$kver=$pkgver ($suite)" > "$dest/PACKAGE"
	rm -rf "$work"
	touch "$stamp"
	exec 9>&-
	lane_log "$suite: kernel $kver ready in $dest ($(since "$t0")s)"
	echo "$dest"
}

# build_in_chroot SUITE DIR KVER OUT: copy the module sources in, build with
# -Werror, copy cxdvirt.ko to OUT/.
build_in_chroot() {
	local suite=$1 dir=$2 kver=$3 out=$4
	# One folder per run: concurrent runs share the chroot.
	local name="cxdvirt.$$" dirs d
	local src="$dir/build/$name"
	rm -rf "$src"
	mkdir -p "$src"
	# Kbuild and the folders it names (driver/, hotplug/, ...), plus include/.
	dirs=$(grep -o '[A-Za-z0-9_-]*/' "$REPO_ROOT/Kbuild" | sort -u | tr -d /)
	(cd "$REPO_ROOT" && tar -cf - --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='*.mod' --exclude='*.mod.c' Kbuild include \
		$(for d in $dirs; do [ -d "$d" ] && [ "$d" != include ] && echo "$d"; done)) |
		tar -xf - -C "$src"
	lane_log "$suite: building cxdvirt.ko for $kver (-Werror)"
	if ! in_chroot "$dir" make -C "/usr/src/linux-headers-$kver" M="/build/$name" \
		KCFLAGS=-Werror -j"$(nproc)" modules > "$out/build.log" 2>&1; then
		cat "$out/build.log" >&2
		rm -rf "$src"
		lane_die "$suite: module build failed for $kver"
	fi
	grep -E 'warning|error' "$out/build.log" >&2 || true
	cp "$src/cxdvirt.ko" "$out/cxdvirt.ko"
	rm -rf "$src"
}

run_suite() {
	local suite=$1 out="$REPO_ROOT/tests/vm/out/matrix/$1"
	local t0 t_prep t_build t_guest dir kver pkgver kdir_img rc
	mkdir -p "$out"
	t0=$(now)

	if [ "$suite" = bookworm ]; then
		# The host's lane: its own kernel headers and compiler.
		[ $prepare_only = 1 ] && { "$LANE_DIR/fetch-kernel.sh" >/dev/null; return 0; }
		t_build=$(now)
		make -s -C "$REPO_ROOT" module KCFLAGS=-Werror > "$out/build.log" 2>&1 ||
			{ cat "$out/build.log" >&2; lane_die "$suite: module build failed"; }
		lane_log "$suite: build $(since "$t_build")s"
		[ $build_only = 1 ] && return 0
		t_guest=$(now)
		rc=0
		"$LANE_DIR/run-guest.sh" --out "$out" ${run_args[@]+"${run_args[@]}"} || rc=$?
		lane_log "$suite: guest suite $(since "$t_guest")s (status $rc)"
		return $rc
	fi

	dir=$(chroot_prepare "$suite")
	# A suite moves on: refresh a chroot older than CXDVIRT_CHROOT_MAX_DAYS.
	if [ -n "$(find "$dir/.cxdvirt-chroot" -mtime +"${CXDVIRT_CHROOT_MAX_DAYS:-7}")" ]; then
		lane_log "$suite: chroot older than ${CXDVIRT_CHROOT_MAX_DAYS:-7} days"
		refresh=1
	fi
	[ $refresh = 1 ] && chroot_refresh "$dir"
	kver=$(chroot_kver "$dir")
	pkgver=$(in_chroot "$dir" dpkg-query -W -f='${Version}' "linux-headers-$kver")
	if [ $build_only = 0 ]; then
		rc=0
		kdir_img=$(kernel_prepare "$suite" "$kver" "$pkgver") || rc=$?
		if [ $rc = 2 ]; then
			# The suite moved on: newest headers, then the matching image.
			lane_log "$suite: $MIRROR has no linux-image-$kver=$pkgver any more"
			chroot_refresh "$dir"
			kver=$(chroot_kver "$dir")
			pkgver=$(in_chroot "$dir" dpkg-query -W -f='${Version}' "linux-headers-$kver")
			kdir_img=$(kernel_prepare "$suite" "$kver" "$pkgver") ||
				lane_die "$suite: no linux-image-$kver=$pkgver on $MIRROR"
		elif [ $rc != 0 ]; then
			exit $rc
		fi
	fi
	lane_log "$suite: chroot and kernel $kver ($pkgver) ready in $(since "$t0")s"
	# For other lane scripts (bench.sh): the guest kernel's KVER and folder.
	[ $build_only = 1 ] || echo "$kver $kdir_img" > "$out/guest-kernel"
	[ $prepare_only = 1 ] && return 0

	t_build=$(now)
	build_in_chroot "$suite" "$dir" "$kver" "$out"
	lane_log "$suite: build $(since "$t_build")s"
	[ $build_only = 1 ] && return 0

	t_guest=$(now)
	rc=0
	CXDVIRT_KO="$out/cxdvirt.ko" "$LANE_DIR/run-guest.sh" --kver "$kver" \
		--kernel-dir "$kdir_img" --out "$out" ${run_args[@]+"${run_args[@]}"} || rc=$?
	lane_log "$suite: guest suite $(since "$t_guest")s (status $rc)"
	return $rc
}

failed=()
for s in "${suites[@]}"; do
	case $s in
	bookworm|trixie|sid|forky|unstable|testing) ;;
	*) lane_die "matrix: unknown suite $s" ;;
	esac
	t=$(now)
	if (run_suite "$s"); then
		lane_log "== $s: ok ($(since "$t")s)"
	else
		lane_log "== $s: FAILED ($(since "$t")s)"
		failed+=("$s")
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	lane_log "matrix FAILED: ${failed[*]}"
	exit 1
fi
lane_log "matrix passed: ${suites[*]}"
