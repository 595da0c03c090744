#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# One version, written once: PACKAGE_VERSION of dkms.conf. bloomctl
# --version and -V print it (and, the module not being loaded on this
# host, say so without loading it), the built kbloom.ko carries it as its
# modinfo version, and debian/changelog's newest entry has it. Prints TAP.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bc=$top/userspace/bloomctl
ko=$top/kmod/kbloom.ko
. "$here/tap.sh"

echo "TAP version 13"
v=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' "$top/dkms.conf")
if [ -n "$v" ]; then
	ok "dkms.conf has PACKAGE_VERSION ($v)"
else
	notok "dkms.conf has PACKAGE_VERSION"
fi

for opt in --version -V; do
	out=$("$bc" $opt 2>&1)
	rc=$?
	first=$(printf '%s\n' "$out" | head -n 1)
	if [ $rc -eq 0 ] && [ "$first" = "bloomctl $v" ]; then
		ok "bloomctl $opt: first line 'bloomctl $v', exit 0"
	else
		notok "bloomctl $opt: first line 'bloomctl $v', exit 0 (exit $rc: $out)"
	fi
done

# No kbloom on the host (it cannot load modules): the second line says so.
if [ ! -e /sys/module/kbloom ]; then
	out=$("$bc" --version 2>&1)
	want=$(printf 'bloomctl %s\nkbloom module: not loaded' "$v")
	if [ "$out" = "$want" ]; then
		ok "module not loaded: bloomctl --version says so, nothing else"
	else
		notok "module not loaded: bloomctl --version says so, nothing else (got: $out)"
	fi
fi

if [ -f "$ko" ] && command -v modinfo >/dev/null; then
	mv=$(modinfo -F version "$ko")
	if [ "$mv" = "$v" ]; then
		ok "kmod/kbloom.ko's modinfo version is $v"
	else
		notok "kmod/kbloom.ko's modinfo version is $v (got '$mv')"
	fi
else
	n=$((n + 1))
	echo "ok $n - kmod/kbloom.ko's modinfo version # SKIP module not built or no modinfo"
fi

dv=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$top/debian/changelog")
if [ "$dv" = "$v" ]; then
	ok "debian/changelog's newest version is $v"
else
	notok "debian/changelog's newest version is $v (got '$dv')"
fi

finish
