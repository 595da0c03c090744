#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# bloomctl trace on bad input, on the host (archive routers need no
# kernel): an archive directory that is empty or holds foreign files is a
# clear unknown router (exit 1), never a crash; a topology of 100 000
# routers and one whose every router is linked to every other are read and
# walked with clear answers. Prints TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bc=$here/../../userspace/bloomctl
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$here/tap.sh"
# run WANT_STATUS WANT_LINE ARGS...: the status, and WANT_LINE a whole line
# of the combined output.
run() {
	want=$1 line=$2
	shift 2
	out=$("$bc" "$@" 2>&1)
	rc=$?
	if [ $rc -eq "$want" ] && printf '%s\n' "$out" | grep -qxF -- "$line"; then
		return 0
	fi
	printf '%s\n' "exit $rc, want $want and the line: $line" "$out" | head -20 | sed 's/^/# /'
	return 1
}

pkt=4500001c000100004011000001020304050607080001000200080000
echo "TAP version 13"
mkdir "$tmp/empty" "$tmp/foreign"
echo junk >"$tmp/foreign/spie.0000000001.kbf"
echo hello >"$tmp/foreign/README"
cat >"$tmp/topo.txt" <<EOF
router r1 archive empty filter spie
router r2 archive foreign filter spie
router r3 none
link r1 r2
link r2 r3
EOF

ok_if "an empty archive directory: unknown, with the reason, exit 1" \
	run 1 "unknown at r1 (router r1: archive $tmp/empty: no window files of filter 'spie' (spie.*.kbf))" \
	trace "$tmp/topo.txt" from r1 packet $pkt

foreign() {
	run 1 "partial: 1 router could not be asked" \
		trace "$tmp/topo.txt" from r2 packet $pkt &&
	printf '%s\n' "$out" | grep -q "^unknown at r2 (router r2: savefile $tmp/foreign/spie.0000000001.kbf: "
}
ok_if "an archive directory with foreign files: unknown, naming the file, exit 1" foreign

json_unknown() {
	out=$("$bc" -j trace "$tmp/topo.txt" from r1 packet $pkt 2>/dev/null)
	rc=$?
	if [ $rc -eq 1 ] && printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["status"] == "unknown" and d["traceable"] is False, d
assert d["why"].startswith("router r1: archive ") and d["nodes"] == [], d
assert d["unknown"] == [] and d["ingress"] == [], d'; then
		return 0
	fi
	printf '%s\n' "exit $rc" "$out" | sed 's/^/# /'
	return 1
}
ok_if "-j: status unknown, traceable false, why" json_unknown

ok_if "from a 'none' router: an error, exit 2" \
	run 2 "bloomctl: invalid from 'r3': router r3 records nothing (declared 'none' on line 3 of $tmp/topo.txt); start at a router next to the victim that does" \
	trace "$tmp/topo.txt" from r3 packet $pkt

# 100 000 routers in a chain, each an empty archive: the walk steps over
# every one of them (each unknown, its neighbour asked in its place).
awk 'BEGIN {
	for (i = 0; i < 100000; i++) printf "router r%d archive empty filter spie\n", i
	for (i = 1; i < 100000; i++) printf "link r%d r%d\n", i - 1, i
}' >"$tmp/big.txt"
ok_if "a topology of 100 000 routers: read, and a clear answer" \
	run 1 "unknown at r0 (router r0: archive $tmp/empty: no window files of filter 'spie' (spie.*.kbf))" \
	trace "$tmp/big.txt" from r0 packet $pkt

# every router linked to every other (300 routers, 44 850 links)
awk 'BEGIN {
	for (i = 0; i < 300; i++) printf "router k%d archive empty filter spie\n", i
	for (i = 0; i < 300; i++) for (j = i + 1; j < 300; j++) printf "link k%d k%d\n", i, j
}' >"$tmp/clique.txt"
ok_if "a graph of 44 850 links, all cycles: read, and a clear answer" \
	run 1 "partial: 1 router could not be asked" \
	trace "$tmp/clique.txt" from k0 packet $pkt

finish
