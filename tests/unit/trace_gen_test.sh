#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# bench/trace_gen (the archive routers of bench/trace_scale.sh) on a small
# network of 50 routers: 'bloomctl trace' of its attack capture finds the
# true path and ingress, the same seed makes the same files, and a router
# of the path with its archive gone is stepped over. So the generator
# cannot silently stop making what trace reads. Prints TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bc=$here/../../userspace/bloomctl
gen=$here/build/trace_gen
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$here/tap.sh"
echo "TAP version 13"

if ! [ -x "$gen" ] || ! "$gen" --routers 50 --seed 7 "$tmp/a" >"$tmp/gen.out"; then
	notok "trace_gen --routers 50 --seed 7 runs ($gen)"
	finish
	exit 1
fi
ok "trace_gen --routers 50 --seed 7 runs"

from=$(awk '$1 == "from" { print $2 }' "$tmp/a/truth.txt")
ingress=$(awk '$1 == "ingress" { print $2 }' "$tmp/a/truth.txt")
path=$(sed -n 's/^path //p' "$tmp/a/truth.txt")
if [ "$from" = r50 ] && [ -n "$ingress" ] && [ "$(echo "$path" | wc -w)" -ge 3 ] &&
   [ "${path%% *}" = "$ingress" ] && [ "${path##* }" = "$from" ] &&
   [ "$(ls "$tmp/a/r1" | tr '\n' ' ')" = "spie.0000000001.kbf spie.0000000002.kbf spie.0000000003.kbf " ] &&
   [ "$(grep -c '^router r[0-9]* archive r[0-9]* filter spie$' "$tmp/a/topo.txt")" = 50 ] &&
   [ "$(grep -c '^link ' "$tmp/a/topo.txt")" = 97 ]; then
	ok "50 routers, 97 links, 3 windows each, a path of 2 hops or more from the ingress to r50"
else
	notok "50 routers, 97 links, 3 windows each, a path of 2 hops or more from the ingress to r50"
	sed 's/^/# /' "$tmp/a/truth.txt"
fi

(cd "$tmp/a" && "$bc" trace topo.txt from "$from" pcap attack.pcap >"$tmp/trace.out" 2>&1)
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c "^ingress: $ingress\$" "$tmp/trace.out")" = 10 ] &&
   grep -q '^10 packets: 10 traced, 0 not;' "$tmp/trace.out"; then
	ok "trace: all 10 attack packets come back with the true ingress $ingress alone (exit 0)"
else
	notok "trace: all 10 attack packets come back with the true ingress $ingress alone (exit 0)"
	echo "# exit $rc"
	grep -E '^(ingress|[0-9]+ packets)' "$tmp/trace.out" | sed 's/^/# /'
fi

missing=
for r in $path; do
	[ "$(grep -cE "(^|-- )$r  window 3 " "$tmp/trace.out")" = 10 ] || missing="$missing $r"
done
if [ -z "$missing" ]; then
	ok "every router of the true path ($path) holds every packet in window 3"
else
	notok "every router of the true path ($path) holds every packet in window 3"
	echo "# not on every packet's path:$missing"
fi

"$gen" --routers 50 --seed 7 "$tmp/b" >/dev/null && "$gen" --routers 50 --seed 8 "$tmp/c" >/dev/null
if diff -r "$tmp/a" "$tmp/b" >/dev/null && ! cmp -s "$tmp/a/r1/spie.0000000001.kbf" "$tmp/c/r1/spie.0000000001.kbf"; then
	ok "the same seed makes the same files, another seed other windows"
else
	notok "the same seed makes the same files, another seed other windows"
fi

# The router next to the ingress loses its archive: an unknown router,
# stepped over to the ingress (exit 1: a partial trace).
next=$(echo "$path" | cut -d' ' -f2)
rm -r "$tmp/a/$next"
(cd "$tmp/a" && "$bc" trace topo.txt from "$from" pcap attack.pcap >"$tmp/trace.out" 2>&1)
rc=$?
if [ $rc -eq 1 ] && [ "$(grep -c "^ingress: $ingress\$" "$tmp/trace.out")" = 10 ] &&
   [ "$(grep -cE "(^|-- )$next  unknown: router $next: archive $next: No such file or directory\$" "$tmp/trace.out")" = 10 ] &&
   grep -q '^partial: 1 router could not be asked$' "$tmp/trace.out"; then
	ok "with $next's archive gone, every packet still has the ingress $ingress; $next unknown; partial (exit 1)"
else
	notok "with $next's archive gone, every packet still has the ingress $ingress; $next unknown; partial (exit 1)"
	echo "# exit $rc"
	grep -E "^(ingress|partial)|$next  unknown" "$tmp/trace.out" | sed 's/^/# /'
fi
finish
