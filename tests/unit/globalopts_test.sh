#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# bloomctl's global options as a user types them, on this host (where the
# kbloom module is not loaded: a request that gets past the options says
# so, with how to load it). Each check: the exact message, exit 2.
#   -exist (ipset's spelling) is --exist, as -json is --json;
#   a value given to a long option that takes none is named as that;
#   a wrong letter in a cluster is named with its cluster;
#   the module not loaded: the message says how to load it.
# Prints TAP.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bc=$top/userspace/bloomctl
. "$here/tap.sh"

echo "TAP version 13"
if [ -d /sys/module/kbloom ]; then
	notok "the kbloom module is not loaded on this host (these checks need that)"
	finish
	exit
fi

# expect DESC 'STDERR' ARGS...: exit 2, stderr exactly STDERR, no stdout.
expect() {
	desc=$1 want=$2
	shift 2
	out=$("$bc" "$@" 2>"$tmp_err")
	rc=$?
	err=$(cat "$tmp_err")
	if [ $rc -eq 2 ] && [ -z "$out" ] && [ "$err" = "$want" ]; then
		ok "$desc"
	else
		notok "$desc (exit $rc, stdout '$out', stderr '$err')"
	fi
}
tmp_err=$(mktemp)
trap 'rm -f "$tmp_err"' EXIT

not_loaded="bloomctl: kbloom module is not loaded (genetlink family 'kbloom' not found): load it as root with 'modprobe kbloom' (installed by make install or make dkms-install) or 'insmod kbloom.ko' from a build"

expect "-exist is --exist: create gets past the options to the module" \
	"$not_loaded" -exist create f bloom bits 64 hashes 1
expect "-exist is --exist: refused where it does not apply, as --exist is" \
	"bloomctl: option --exist applies to create, attach and batch, not to 'list'" -exist list
expect "--help=x: the option takes no value, said so" \
	"bloomctl: option '--help' takes no value: '--help=x' (see 'bloomctl --help')" --help=x
expect "-ejx: the unknown letter named with its cluster" \
	"bloomctl: unknown option '-x' in '-ejx' (see 'bloomctl --help')" -ejx list
expect "-x: an unknown option named" \
	"bloomctl: unknown option '-x' (see 'bloomctl --help')" -x list
expect "--bogus: an unknown long option named" \
	"bloomctl: unknown option '--bogus' (see 'bloomctl --help')" --bogus list
expect "module not loaded: the message says how to load it" \
	"$not_loaded" list
finish
