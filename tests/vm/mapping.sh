#!/bin/bash
# bloomctl test -f through /dev/kbloom (userspace/mapview.c), in the test
# VM: where a filter can be mapped, test -f reads its cells itself instead of
# asking over netlink, and must answer exactly as netlink does
# (KBLOOM_NO_MAP=1), for every type it maps, with and without windows.
#
#   bloomctl test f -f keys --MAP "f", mmap--> header | table 0 | ...
#   KBLOOM_NO_MAP=1 bloomctl test f -f keys --TEST batches--> module
#
# That the mapping was used shows in the namespace's memory (STATUS): the first MAP of a filter
# charges its header (a page) to the namespace.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=$PWD/userspace/bloomctl
tmp=$(mktemp -d)
trap '$bc destroy all >/dev/null 2>&1; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
key=000102030405060708090a0b0c0d0e0f

# 3000 keys added, then 3000 more that were not: 6000 tested.
seq -f 'k%g' 1 3000 >added
seq -f 'k%g' 1 6000 >tested

# The namespace's kernel memory (STATUS's MEM_NETNS, as metrics gives it).
# awk reads to the end: under pipefail, bloomctl killed by SIGPIPE after an
# early exit of awk would fail the check (it did once, on 6.12).
mem_netns() { $bc metrics | awk '$1 ~ /^kbloom_memory_bytes/ && !n++ { print $NF }'; }
queries() { $bc -j show "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["queries"])'; }

# same NAME: mapped and netlink answers equal, text and JSON, exit codes
# too; the mapping was used (STATUS grew by its header) and its lookups
# counted in the filter's queries.
same() {
	local f=$1 m0 q0 rc1 rc2
	$bc add "$f" -f added || return 1
	m0=$(mem_netns) q0=$(queries "$f")
	$bc test "$f" -f tested >mapped.txt; rc1=$?
	[ "$(mem_netns)" -gt "$m0" ] || { echo "no header charged: not mapped"; return 1; }
	KBLOOM_NO_MAP=1 $bc test "$f" -f tested >netlink.txt; rc2=$?
	echo "exit $rc1 / $rc2"
	[ $rc1 -eq $rc2 ] && [ $rc1 -eq 1 ] && cmp mapped.txt netlink.txt || return 1
	head -c 300 mapped.txt; tail -n 1 mapped.txt
	grep -qx 'k3000 present' mapped.txt && ! grep -q '^k[0-9]* absent$' <(head -n 3000 mapped.txt) || return 1
	[ "$(queries "$f")" -eq $((q0 + 12000)) ] || { echo "queries $(queries "$f") not $((q0 + 12000))"; return 1; }
	$bc -j test "$f" -f tested >m.json
	KBLOOM_NO_MAP=1 $bc -j test "$f" -f tested >n.json
	cmp m.json n.json
}

for spec in "bloom bits 65536 hashes 3" "partitioned bits 65536 hashes 4" \
	"blocked bits 65536 hashes 5" "counting bits 65536 hashes 3 counter-bits 4" \
	"dleft capacity 4000 fpr 0.01" "stable bits 65536 hashes 3 counter-bits 8 decrement 1"; do
	t=${spec%% *}
	$bc create "$t" $spec key $key >/dev/null
	check "$t: test through the mapping answers as over netlink (6000 keys, text, JSON, exit 1)" same "$t"
done

# A time-paged filter: answers over every retained window.
paged() {
	$bc create w bloom bits 65536 hashes 3 windows 4 interval 1h key $key &&
	same w
}
check "time-paged bloom: the same answers over its windows" paged

# Cells under a page are slab memory and never mapped: netlink answers.
small() {
	local m0
	$bc create s bloom bits 4096 hashes 3 && $bc add s a b &&
	printf 'a\nb\nc\n' >abc && m0=$(mem_netns) &&
	expect 1 $'a present\nb present\nc absent\n3 keys: 2 present, 1 absent' \
		$bc test s -f abc &&
	[ "$(mem_netns)" -eq "$m0" ]
}
check "a filter smaller than a page is tested over netlink, same output" small

# Keys on the command line go over netlink: nothing is mapped.
args() {
	local m0
	$bc create big bloom bits 65536 hashes 3 && $bc add big a &&
	m0=$(mem_netns) &&
	expect 1 $'a present\nc absent' $bc test big a c &&
	[ "$(mem_netns)" -eq "$m0" ]
}
check "keys on the command line are tested over netlink" args

# A multi filter's tuples go over netlink.
multi() {
	local m0
	$bc create mu multi bits 65536 hashes 3 dims a,b &&
	$bc add mu a=1,b=2 && echo a=1,b=2 >tuple && m0=$(mem_netns) &&
	expect 0 $'a=1,b=2 present\n1 keys: 1 present, 0 absent' $bc test mu -f tuple &&
	[ "$(mem_netns)" -eq "$m0" ]
}
check "a multi filter is tested over netlink" multi

# An unprivileged user gets netlink's refusal, nothing from the mapping.
unpriv() {
	echo k1 | expect 2 "*unable to test keys in filter 'bloom'*Operation not permitted*" \
		setpriv --reuid=65534 --regid=65534 --clear-groups $bc test bloom -f -
}
check "an unprivileged user is refused as over netlink" unpriv

finish
