#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build-initramfs.sh --kernel-dir DIR [--kver KVER] [--out FILE] [--tests 'GLOB...']
#                    [--module KO] [--init SCRIPT] [--extra BIN:DEST]...
#                    [--file FILE:DEST]...
#
# Build the test guest's initramfs (gzip'd newc cpio):
#
#   /init                   tests/vm/guest-init.sh (or --init SCRIPT)
#   /bin/busybox + applets  busybox-static
#   /cxdvirt.ko             the module from the repo root (or --module KO;
#                           missing: /init reports the insmod failure)
#   /bin/cxdvirt-dev, /bin/cxdvirt-bench, /bin/cxdvirt-sim   the tools,
#                           when built
#   /bin/numactl, /bin/daxctl, memhog, numastat, stress-ng, redis-server,
#   redis-cli, redis-benchmark              when the host has them
#   /tests/                 tests/guest/lib.sh, the NN-*.sh tests matching
#                           GLOB (all by default, none for ''), progs/
#                           (built here), progs/dax-kmem (memkind)
#   /lib/modules/KVER/      configfs, dax, device_dax, kmem, dax_hmem and
#                           whatever cxdvirt.ko depends on, with the closure of
#                           their modules.dep, indexed with depmod -b
#
# --extra adds a program (with its libraries), --file a plain file.
# Dynamically linked programs get the libraries ldd lists and the loader.
# --kernel-dir is the folder fetch-kernel.sh printed.
set -euo pipefail

LANE_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$LANE_DIR/lib.sh"

kdir_img=
kver=
out=
tests_glob='*'
module=${CXDVIRT_KO:-$REPO_ROOT/cxdvirt.ko}
init_script=$LANE_DIR/guest-init.sh
extras=()
files=()

while [ $# -gt 0 ]; do
	case $1 in
	--kernel-dir) kdir_img=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--tests) tests_glob=$2; shift 2 ;;
	--module) module=$2; shift 2 ;;
	--init) init_script=$2; shift 2 ;;
	--extra) extras+=("$2"); shift 2 ;;
	--file) files+=("$2"); shift 2 ;;
	-h|--help) sed -n '3,25p' "$0"; exit 0 ;;
	*) lane_die "build-initramfs: unknown argument $1" ;;
	esac
done

[ -n "$kver" ] || kver=$(lane_default_kver)
[ -n "$kver" ] || lane_die "no KVER"
[ -n "$kdir_img" ] || kdir_img=$("$LANE_DIR/fetch-kernel.sh" "$kver")
modroot="$kdir_img/lib/modules/$kver"
[ -f "$modroot/modules.dep" ] || lane_die "no module tree at $modroot (run fetch-kernel.sh $kver)"
out=${out:-$LANE_DIR/out/initramfs.cpio.gz}
mkdir -p "$(dirname "$out")"

stage="$(dirname "$out")/initramfs.d"
rm -rf "$stage"
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,run,root,etc,tests/progs,lib/modules/"$kver"}
ln -s bin "$stage/sbin"
mkdir -p "$stage/usr"
ln -s ../bin "$stage/usr/bin"
ln -s ../bin "$stage/usr/sbin"

# --- busybox ---------------------------------------------------------------
bb=$(command -v busybox || true)
[ -n "$bb" ] || lane_die "busybox not found (install busybox-static)"
# ldd fails on a static binary; a dynamic busybox would lack its libraries.
if ldd "$bb" >/dev/null 2>&1; then
	lane_die "$bb is not static (install busybox-static)"
fi
cp "$bb" "$stage/bin/busybox"
# `busybox --list` names busybox itself: skip it, or bin/busybox would become
# a symlink to itself.
for applet in $("$bb" --list); do
	case $applet in
	busybox|init|linuxrc) continue ;;
	esac
	[ -e "$stage/bin/$applet" ] || ln -s busybox "$stage/bin/$applet"
done

# --- dynamically linked programs -----------------------------------------
copy_file() {	# copy_file SRC DEST-PATH-IN-STAGE
	local src=$1 dst="$stage$2"
	[ -e "$dst" ] && return 0
	mkdir -p "$(dirname "$dst")"
	cp -L "$src" "$dst"
}

copy_libs() {	# the libraries ldd lists, and the loader, at the same paths
	local bin=$1 lib
	ldd "$bin" >/dev/null 2>&1 || return 0	# static
	for lib in $(ldd "$bin" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		copy_file "$lib" "$lib"
	done
}

copy_bin() {	# copy_bin SRC DEST-PATH-IN-STAGE
	copy_file "$1" "$2"
	chmod 0755 "$stage$2"
	copy_libs "$1"
}

for t in "$REPO_ROOT/tools/cxdvirt-dev" "$REPO_ROOT/tools/cxdvirt-bench" \
	 "$REPO_ROOT/tools/cxdvirt-sim"; do
	if [ -x "$t" ]; then
		copy_bin "$t" "/bin/$(basename "$t")"
	else
		lane_log "note: $t not built, not in the guest"
	fi
done
# perf (linux-perf) reads the cxdvirt tracepoints in 51-tracepoints.sh.
for t in numactl daxctl memhog numastat stress-ng redis-server redis-cli redis-benchmark perf; do
	p=$(command -v "$t" || true)
	[ -n "$p" ] && copy_bin "$p" "/bin/$t"
done
# e2fsprogs' mke2fs, as mkfs.ext4 (busybox's mke2fs makes ext2 only):
# 79-node-unseen's page cache of an ext4 file system.
p=$(command -v mkfs.ext4 || true)
[ -n "$p" ] && copy_bin "$p" /bin/mkfs.ext4
for e in ${extras[@]+"${extras[@]}"}; do
	copy_bin "${e%%:*}" "${e#*:}"
done
for f in ${files[@]+"${files[@]}"}; do
	copy_file "${f%%:*}" "${f#*:}"
done

# --- guest tests ---------------------------------------------------------
make -s -C "$REPO_ROOT/tests/guest" progs >&2
cp "$REPO_ROOT/tests/guest/lib.sh" "$stage/tests/lib.sh"
for p in "$REPO_ROOT"/tests/guest/progs/bin/*; do
	[ -x "$p" ] && copy_bin "$p" "/tests/progs/$(basename "$p")"
done
# The memkind checker links libmemkind (libmemkind-dev): built only when the
# host has it; copy_bin brings libmemkind and its ldd closure along.
mk_src=$REPO_ROOT/tests/guest/memkind/dax-kmem.c
if [ -f "$mk_src" ] && [ -f /usr/include/memkind.h ]; then
	mk_bin="$(dirname "$out")/dax-kmem"
	if ${CC:-cc} -O2 -g -Wall -Wextra -Werror -std=gnu11 -o "$mk_bin" "$mk_src" -lmemkind; then
		copy_bin "$mk_bin" /tests/progs/dax-kmem
	else
		lane_log "warning: $mk_src did not build: not in the guest"
	fi
else
	lane_log "note: no memkind.h (libmemkind-dev): tests/progs/dax-kmem not in the guest"
fi
ntests=0
for t in "${CXDVIRT_GUEST_TESTS:-$REPO_ROOT/tests/guest}"/[0-9]*.sh; do
	[ -e "$t" ] || continue
	name=$(basename "$t")
	match=0
	set -f		# the globs are patterns for case, not for the shell
	for g in $tests_glob; do
		# shellcheck disable=SC2254
		case $name in $g|$g.sh) match=1 ;; esac
	done
	set +f
	[ $match = 1 ] || continue
	cp "$t" "$stage/tests/$name"
	chmod 0755 "$stage/tests/$name"
	ntests=$((ntests + 1))
done
[ $ntests -gt 0 ] || [ -z "$tests_glob" ] || lane_log "warning: no guest test matches '$tests_glob'"

# --- module and kernel modules -------------------------------------------
# ext4 (which mounts ext2): 71-node-shared needs a disk file system whose
# page cache is movable, so that it can go onto the node; ramfs's is not.
want_mods="configfs dax device_dax kmem dax_hmem loop ext4"
# virtio_blk for the disk of CXDVIRT_DISK (tests/vm/lib.sh); only then, so
# that every other guest boots the same bytes as before.
[ -z "${CXDVIRT_DISK:-}" ] || want_mods="$want_mods virtio_pci virtio_blk"
if [ -f "$module" ]; then
	cp "$module" "$stage/cxdvirt.ko"
	vm=$(modinfo -F vermagic "$module" 2>/dev/null | awk '{ print $1 }')
	[ "$vm" = "$kver" ] || lane_log "warning: $module is built for '$vm', the guest runs $kver"
	deps=$(modinfo -F depends "$module" 2>/dev/null | tr ',' ' ')
	want_mods="$want_mods $deps"
else
	lane_log "warning: $module not found: the guest will report the insmod failure"
fi

for f in modules.builtin modules.builtin.modinfo modules.order; do
	[ -f "$modroot/$f" ] && cp "$modroot/$f" "$stage/lib/modules/$kver/"
done
for m in $want_mods; do
	# Lines "insmod /path/x.ko" for the closure, "builtin x" for built-ins.
	deps=$(modprobe -d "$kdir_img" -S "$kver" --show-depends "$m" 2>/dev/null) ||
		{ lane_log "warning: module $m not found for $kver"; continue; }
	for ko in $(echo "$deps" | awk '$1 == "insmod" { print $2 }'); do
		rel=${ko#"$kdir_img"}
		rel=${rel#/usr}		# usr/lib/modules -> lib/modules
		dst="$stage$rel"
		case $dst in
		*.ko.xz)  dst=${dst%.xz};  mkdir -p "$(dirname "$dst")"; xz -dc "$ko" > "$dst" ;;
		*.ko.zst) dst=${dst%.zst}; mkdir -p "$(dirname "$dst")"; zstd -qdc "$ko" > "$dst" ;;
		*.ko.gz)  dst=${dst%.gz};  mkdir -p "$(dirname "$dst")"; gzip -dc "$ko" > "$dst" ;;
		*) copy_file "$ko" "$rel" ;;
		esac
	done
done
depmod -b "$stage" "$kver"

# --- init ----------------------------------------------------------------
cp "$init_script" "$stage/init"
chmod 0755 "$stage/init"
echo "$kver" > "$stage/etc/kver"
echo 'root:x:0:0:root:/root:/bin/sh' > "$stage/etc/passwd"
echo 'root:x:0:' > "$stage/etc/group"

lane_pack_cpio "$stage" "$out.tmp"
mv "$out.tmp" "$out"
lane_log "initramfs $out ($(du -h "$out" | cut -f1), $ntests guest tests)"
