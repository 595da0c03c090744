#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The service as make install ships it (systemd/): the files and where
# they go, systemd-analyze verify on every unit (silent: a warning is a
# failure), the hardening every service has, the admin's configuration
# kept over a reinstall, and the archive retention of kbloom-service prune
# (by size and by age, on files made here). The units' commands against
# the module run in the VM (tests/vm/service.sh). Prints TAP.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p=$tmp/prefix
units=$p/lib/systemd/system

echo "TAP version 13"

# Installed into a scratch prefix (the units then name its sbin).
if make -s -C "$top" install PREFIX="$p" SYSCONFDIR="$p/etc" \
	MODULE_INSTALL=none >"$tmp/log" 2>&1; then
	got=$(cd "$p" && find . -type f | sort)
	want="./etc/default/kbloom
./etc/kbloom/kbloom.conf
./lib/systemd/system/kbloom-archive@.service
./lib/systemd/system/kbloom-metrics.service
./lib/systemd/system/kbloom-metrics.timer
./lib/systemd/system/kbloom.service
./sbin/bloomctl
./sbin/kbloom-service
./share/bash-completion/completions/bloomctl
./share/man/man8/bloomctl.8"
	if [ "$got" = "$want" ]; then
		ok "make install: bloomctl, kbloom-service, the units, kbloom.conf and default/kbloom"
	else
		notok "make install: bloomctl, kbloom-service, the units, kbloom.conf and default/kbloom (got: $got)"
	fi
else
	notok "make install into $p ($(tail -5 "$tmp/log"))"
fi

execs=$(grep -h '^Exec' "$units"/* | sed 's/^[A-Za-z]*=//; s/ .*//' | sort -u)
if [ "$execs" = "$p/sbin/bloomctl
$p/sbin/kbloom-service" ] && ! grep -q "@[A-Z]*@" "$units"/*.service "$units"/*.timer; then
	ok "the units run \$(SBINDIR)/kbloom-service and bloomctl, every @SBINDIR@ replaced"
else
	notok "the units run \$(SBINDIR)/kbloom-service and bloomctl, every @SBINDIR@ replaced (got: $execs)"
fi

# systemd-analyze verify: 0 and not a word (it only warns on bad values).
verify() {
	(cd "$1" && shift && MANPATH=$p/share/man systemd-analyze verify "$@") >"$tmp/verify" 2>&1
	rc=$?
	[ $rc -eq 0 ] && [ ! -s "$tmp/verify" ]
}
if verify "$units" kbloom.service kbloom-archive@spie.service \
	kbloom-metrics.service kbloom-metrics.timer; then
	ok "systemd-analyze verify: the four units (an archive instance) pass without a warning"
else
	notok "systemd-analyze verify: the four units pass without a warning (exit $rc: $(cat "$tmp/verify"))"
fi

mkdir "$tmp/bad"
sed 's/^ProtectSystem=strict/ProtectSystem=sideways/' "$units/kbloom.service" >"$tmp/bad/kbloom.service"
if ! verify "$tmp/bad" kbloom.service && grep -q 'sideways' "$tmp/verify"; then
	ok "systemd-analyze verify check fails on a unit with a bad value (ProtectSystem=sideways)"
else
	notok "systemd-analyze verify check fails on a unit with a bad value ($(cat "$tmp/verify"))"
fi

# Every service: no new privileges, CAP_NET_ADMIN only, the file system
# read-only but for its own directory, no devices, homes, kernel knobs.
hardening="NoNewPrivileges=yes
CapabilityBoundingSet=CAP_NET_ADMIN
ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
RestrictAddressFamilies=AF_NETLINK AF_UNIX
RestrictNamespaces=yes
RestrictSUIDSGID=yes
MemoryDenyWriteExecute=yes
SystemCallArchitectures=native
SystemCallFilter=@system-service"
for u in kbloom.service:/var/lib/kbloom kbloom-archive@.service:/var/lib/kbloom/archive/%i \
	kbloom-metrics.service:/var/lib/prometheus/node-exporter; do
	f=$units/${u%%:*}
	missing=$(printf '%s\n' "$hardening" | while read -r line; do
		grep -qx "$line" "$f" || echo "$line"; done)
	rw=$(sed -n 's/^ReadWritePaths=//p' "$f")
	if [ -z "$missing" ] && [ "$rw" = "${u#*:}" ]; then
		ok "${u%%:*}: hardened, writable only ${u#*:}"
	else
		notok "${u%%:*}: hardened, writable only ${u#*:} (missing: $missing; ReadWritePaths=$rw)"
	fi
done

echo '# mine' >>"$p/etc/kbloom/kbloom.conf"
echo 'KBLOOM_ARCHIVE_MAX_AGE=1d' >>"$p/etc/default/kbloom"
if make -s -C "$top" install PREFIX="$p" SYSCONFDIR="$p/etc" MODULE_INSTALL=none >/dev/null 2>&1 &&
   [ "$(tail -n 1 "$p/etc/kbloom/kbloom.conf")" = '# mine' ] &&
   [ "$(tail -n 1 "$p/etc/default/kbloom")" = 'KBLOOM_ARCHIVE_MAX_AGE=1d' ]; then
	ok "make install again keeps the edited kbloom.conf and default/kbloom"
else
	notok "make install again keeps the edited kbloom.conf and default/kbloom"
fi

# Retention: windows 1..6 of 1000 bytes, 1 and 2 two days old.
ks=$top/systemd/kbloom-service
arch() {
	rm -rf "$tmp/archive" && mkdir -p "$tmp/archive/spie" &&
	for i in 1 2 3 4 5 6; do
		head -c 1000 /dev/zero >"$tmp/archive/spie/spie.000000000$i.kbf"
	done &&
	touch -d '2 days ago' "$tmp/archive/spie/spie.0000000001.kbf" \
		"$tmp/archive/spie/spie.0000000002.kbf" &&
	echo keep >"$tmp/archive/spie/notes.txt"
}
left() { (cd "$tmp/archive/spie" && ls | tr '\n' ' '); }

arch
KBLOOM_ARCHIVE_DIR=$tmp/archive KBLOOM_ARCHIVE_MAX_AGE=0 KBLOOM_ARCHIVE_MAX_BYTES=3500 "$ks" prune spie
got=$(left)
if [ "$got" = "notes.txt spie.0000000004.kbf spie.0000000005.kbf spie.0000000006.kbf " ]; then
	ok "prune by size: 3500 bytes keep the newest 3 windows of 1000 bytes, other files untouched"
else
	notok "prune by size: 3500 bytes keep the newest 3 windows of 1000 bytes (left: $got)"
fi

arch
KBLOOM_ARCHIVE_DIR=$tmp/archive KBLOOM_ARCHIVE_MAX_AGE=1d KBLOOM_ARCHIVE_MAX_BYTES=0 "$ks" prune spie
got=$(left)
if [ "$got" = "notes.txt spie.0000000003.kbf spie.0000000004.kbf spie.0000000005.kbf spie.0000000006.kbf " ]; then
	ok "prune by age: 1d removes the two windows 2 days old"
else
	notok "prune by age: 1d removes the two windows 2 days old (left: $got)"
fi

out=$(KBLOOM_ARCHIVE_DIR=$tmp/archive KBLOOM_ARCHIVE_MAX_AGE=7x "$ks" prune spie 2>&1); rc=$?
if [ $rc -eq 1 ] && [ "$out" = "<3>kbloom: KBLOOM_ARCHIVE_MAX_AGE: '7x' is not N[smhd]" ]; then
	ok "prune with KBLOOM_ARCHIVE_MAX_AGE=7x: exit 1, the value quoted"
else
	notok "prune with KBLOOM_ARCHIVE_MAX_AGE=7x: exit 1, the value quoted (exit $rc: $out)"
fi
finish
