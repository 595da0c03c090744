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

# Parallel and sequential walks give the same tree: for five seeds, 100
# routers with a random tenth of the archives gone (never from's), the
# plain and the JSON output of 'parallel 1' and 'parallel 16' are equal
# byte for byte, and so are their exit statuses.
same_trees() {
	seed=$1
	d=$tmp/p$seed
	"$gen" --routers 100 --seed "$seed" "$d" >/dev/null || return 1
	f=$(awk '$1 == "from" { print $2 }' "$d/truth.txt")
	i=0
	for r in $(ls "$d" | grep '^r[0-9]*$' | grep -vx "$f"); do
		i=$((i + 1))
		[ $((i % 10)) -eq $((seed % 10)) ] && rm -r "${d:?}/$r"
	done
	for j in "" -j; do
		for p in 1 16; do
			(cd "$d" && "$bc" $j trace topo.txt from "$f" pcap attack.pcap parallel $p \
				>"$d/out$j.$p" 2>&1)
			echo "exit $?" >>"$d/out$j.$p"
		done
		cmp "$d/out$j.1" "$d/out$j.16" || return 1
	done
	# Not a vacuous comparison: some router is unknown, the trace partial.
	grep -q '^partial: [1-9][0-9]* routers\{0,1\} could not be asked$' "$d/out.1" &&
		[ "$(tail -n 1 "$d/out.1")" = "exit 1" ]
}
for seed in 11 12 13 14 15; do
	ok_if "seed $seed, 100 routers, a tenth of them unknown: parallel 1 and 16 print the same tree (plain and JSON) and exit the same" same_trees $seed
done

# Many packets in one walk: 10 000 attack packets (256 Ki-bit windows,
# so the path's filters are not saturated) all come back with the true
# ingress, with as many questions as 1 000 packets take (each router's
# questions of a step go as one batch), and the trace's peak memory grows
# by less than 8 KiB a packet between 1 000 and 10 000 packets.
peak_kib() { # DIR ARGS...: runs trace in DIR, prints its peak RSS in KiB
	python3 -c '
import resource, subprocess, sys
with open(sys.argv[2], "w") as out:
    rc = subprocess.call(sys.argv[3:], cwd=sys.argv[1], stdout=out, stderr=subprocess.STDOUT)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, rc)' "$@"
}
many_packets() {
	for p in 1000 10000; do
		"$gen" --routers 200 --seed 3 --packets $p --bits 262144 "$tmp/m$p" >/dev/null || return 1
		set -- $(peak_kib "$tmp/m$p" "$tmp/m$p.out" "$bc" trace topo.txt from r200 pcap attack.pcap)
		eval "kib$p=$1 rc$p=$2"
	done
	ing=$(awk '$1 == "ingress" { print $2 }' "$tmp/m10000/truth.txt")
	q1=$(sed -n 's/^1000 packets: 1000 traced, 0 not; [0-9]* steps, \([0-9]*\) questions$/\1/p' "$tmp/m1000.out")
	q10=$(sed -n 's/^10000 packets: 10000 traced, 0 not; [0-9]* steps, \([0-9]*\) questions$/\1/p' "$tmp/m10000.out")
	tail -n 2 "$tmp/m10000.out" | sed "s/^/# /"
	echo "# peak RSS: $kib1000 KiB for 1000 packets, $kib10000 KiB for 10000; questions $q1, $q10"
	[ "$rc10000" = 0 ] && [ -n "$q10" ] && [ "$q1" = "$q10" ] &&
		[ "$(grep -c "^ingress: $ing\$" "$tmp/m10000.out")" = 10000 ] &&
		[ $((kib10000 - kib1000)) -lt $((9000 * 8)) ]
}
ok_if "10 000 packets in one walk: every one to the true ingress, the questions of 1 000 packets, under 8 KiB more memory a packet" many_packets
finish
