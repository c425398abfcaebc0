#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install what building and testing cxdvirt needs on a Debian/Ubuntu host.
# Idempotent: only packages that are missing are installed. Needs root.
set -euo pipefail

HOST_PKGS=(
	build-essential bc bison flex libelf-dev kmod cpio sparse pkg-config
	linux-headers-amd64
	clang libclang-rt-14-dev libcmocka-dev libjson-c-dev libnuma-dev libdaxctl-dev libmemkind-dev
	qemu-system-x86 busybox-static numactl daxctl gnuplot-nox
	stress-ng redis-server redis-tools
	memcached libmemcached-tools sysbench fio
	debootstrap
	perl xz-utils util-linux coreutils gzip
	valgrind
	mandoc dkms linux-perf
	libinih-dev parallel slurm-wlm munge
)

missing=()
for p in "${HOST_PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages: ${missing[*]}" >&2
	echo "install-deps: run as root (or with sudo) so they can be installed" >&2
	exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
