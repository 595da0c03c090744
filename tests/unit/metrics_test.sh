#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# bloomctl metrics on this host, where the kbloom module is not loaded
# (it cannot load modules): a module not loaded is a figure, not an error;
# FILE is written whole or not at all. The figures of a loaded module are
# checked in the VM (tests/vm/metrics.sh). Prints TAP.
set -u

here=$(cd "$(dirname "$0")" && pwd)
bc=$here/../../userspace/bloomctl
. "$here/tap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "TAP version 13"
if [ -e /sys/module/kbloom ]; then
	notok "the kbloom module is not loaded on this host (these checks need that)"
	finish
	exit
fi

want='# HELP kbloom_module_loaded 1 when the kbloom module is loaded.
# TYPE kbloom_module_loaded gauge
kbloom_module_loaded 0'

out=$("$bc" metrics 2>"$tmp/err"); rc=$?; err=$(cat "$tmp/err"); rm -f "$tmp/err"
if [ $rc -eq 0 ] && [ "$out" = "$want" ] && [ -z "$err" ]; then
	ok "module not loaded: kbloom_module_loaded 0 with its HELP and TYPE, nothing else, exit 0"
else
	notok "module not loaded: kbloom_module_loaded 0 with its HELP and TYPE, nothing else, exit 0 (exit $rc: $out $err)"
fi

out=$("$bc" -n r1 metrics 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | tail -n 1)" = 'kbloom_module_loaded{netns="r1"} 0' ]; then
	ok "-n r1: the sample is labelled netns=\"r1\""
else
	notok "-n r1: the sample is labelled netns=\"r1\" (exit $rc: $out)"
fi

echo stale >"$tmp/kbloom.prom"
"$bc" metrics "$tmp/kbloom.prom"; rc=$?
if [ $rc -eq 0 ] && [ "$(cat "$tmp/kbloom.prom")" = "$want" ] &&
   [ "$(stat -c %a "$tmp/kbloom.prom")" = 644 ] &&
   [ "$(ls "$tmp")" = kbloom.prom ]; then
	ok "metrics FILE: replaces FILE with the same text, mode 0644, no temp file left"
else
	notok "metrics FILE: replaces FILE with the same text, mode 0644, no temp file left (exit $rc; $(ls -l "$tmp"))"
fi

out=$("$bc" metrics "$tmp/nodir/kbloom.prom" 2>&1); rc=$?
case $out in
"bloomctl: metrics: unable to write '$tmp/nodir/kbloom.prom."*".tmp': No such file or directory")
	[ $rc -eq 2 ] && ok "metrics FILE in a missing directory: exit 2, the temp file named" ||
		notok "metrics FILE in a missing directory: exit 2 (exit $rc)" ;;
*)	notok "metrics FILE in a missing directory: exit 2, the temp file named (exit $rc: $out)" ;;
esac

out=$("$bc" metrics a b 2>&1); rc=$?
if [ $rc -eq 2 ] && [ "$out" = "bloomctl: metrics: unexpected argument 'b' (see 'bloomctl metrics --help')" ]; then
	ok "metrics a b: exit 2, the surplus argument quoted"
else
	notok "metrics a b: exit 2, the surplus argument quoted (exit $rc: $out)"
fi

out=$("$bc" -j metrics 2>&1); rc=$?
if [ $rc -eq 2 ] && [ "$out" = "bloomctl: metrics: no JSON output: the format is Prometheus text (see 'bloomctl metrics --help')" ]; then
	ok "-j metrics: exit 2, there is no JSON form"
else
	notok "-j metrics: exit 2, there is no JSON form (exit $rc: $out)"
fi
finish
