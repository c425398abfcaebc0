#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make install and make uninstall into a scratch DESTDIR: every file lands
# where docs/install.md says, with its mode; the installed man pages
# render; uninstall leaves no file behind. Skipped without kernel headers
# (the module goes through the kernel's modules_install). Prints TAP.
set -u
cd "$(dirname "$0")/../.."
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
		tail -n 20 "$tmp/t.out" | sed 's/^/# /'
		fails=$((fails + 1))
	fi
}
if [ ! -f cxdvirt.ko ] || [ -z "$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null)" ]; then
	echo "1..0 # SKIP no cxdvirt.ko or no kernel headers (make all first)"
	exit 0
fi
D=$tmp/root
t "make install DESTDIR PREFIX=/usr" sh -c "make -s install DESTDIR='$D' PREFIX=/usr > '$tmp/install.log' 2>&1"
ko=$(find "$D/lib/modules" -path '*/extra/cxdvirt.ko')
t "module in lib/modules/KVER/extra/" test -n "$ko"
t "module is the tree's" cmp "$ko" cxdvirt.ko
t "depmod left to the target on a staging DESTDIR" grep -q "run 'depmod -a" "$tmp/install.log"
for f in usr/bin/cxdvirt-bench usr/bin/cxdvirt-sim usr/bin/cxdvirt-wl usr/sbin/cxdvirt-dev; do
	t "$f executable" test -x "$D/$f"
done
for f in usr/share/man/man1/cxdvirt-bench.1 usr/share/man/man1/cxdvirt-sim.1 \
	 usr/share/man/man1/cxdvirt-wl.1 \
	 usr/share/man/man4/cxdvirt.4 usr/share/man/man8/cxdvirt-dev.8; do
	t "$f renders" sh -c "man -l '$D/$f' > /dev/null 2>&1 || mandoc '$D/$f' > /dev/null"
done
t "modprobe.d file, 0644" test "$(stat -c %a "$D/etc/modprobe.d/cxdvirt.conf")" = 644
t "udev rule keeps 0600 root" grep -qx 'SUBSYSTEM=="cxdvirt", KERNEL=="cxdvirt\[0-9\]\*", OWNER="root", GROUP="root", MODE="0600"' "$D/etc/udev/rules.d/60-cxdvirt.rules"
t "udev rule: a commented group line" grep -q '^#SUBSYSTEM=="cxdvirt".*GROUP="cxdvirt", MODE="0660"' "$D/etc/udev/rules.d/60-cxdvirt.rules"
if command -v udevadm > /dev/null; then
	t "udevadm verify accepts the rule" sh -c "udevadm verify '$D/etc/udev/rules.d/60-cxdvirt.rules' 2>&1 || ! udevadm verify --help > /dev/null 2>&1"
fi
t "make uninstall" make -s uninstall DESTDIR="$D" PREFIX=/usr
t "uninstall leaves no file" test -z "$(find "$D" -type f)"
echo "1..$n"
[ "$fails" -eq 0 ]
