#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The ablation's rounds, inside the test VM (bench/ablate/Makefile starts
# it; kbloom must not be loaded, each variant's module is):
#
#   pktgen --injects--> kbp1 (veth) -> [prerouting: kbloom attach, dev kbp1]
#          -> route 198.19.0.0/16 blackhole
#
# Per round, per variant: insmod bench/build/ablate/VARIANT/kbloom.ko, a run
# with nothing attached, one with digest spie attached to a blocked filter
# (pktpath.sh's shape: 2^24 bits, k = 7), one with nothing attached again,
# rmmod. Every packet must have passed the hook (the attachment's 'seen').
# Prints "R ROUND VARIANT NONE BLOCKED NONE" (packets per second);
# variants.py report turns them into tables.
#
#   bench/ablate/rounds.sh ROUNDS PACKETS VARIANT...
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
bc=$PWD/userspace/bloomctl
die() { echo "rounds.sh: $*" >&2; exit 1; }
. bench/pktgen.sh

(($# >= 3)) || die "usage: rounds.sh ROUNDS PACKETS VARIANT..."
rounds=$1 pkts=$2
shift 2
for v in "$@"; do
	[ -f "bench/build/ablate/$v/kbloom.ko" ] || die "bench/build/ablate/$v/kbloom.ko is not built (make -C bench/ablate)"
done
grep -q '^kbloom ' /proc/modules && die "kbloom is loaded: each variant loads its own"

cleanup() {
	$bc destroy all >/dev/null 2>&1
	rmmod kbloom 2>/dev/null
	bench_net_del
}
trap cleanup EXIT
bench_net 1
bench_crng
run() { pgdev 0 kbp1 "$pkts"; pg pgctrl start; pps kbp1; }
run >/dev/null	# warms caches and the allocator; not counted

for ((r = 1; r <= rounds; r++)); do
	for v in "$@"; do
		insmod "bench/build/ablate/$v/kbloom.ko" || die "insmod $v"
		a=$(run)
		$bc create r blocked bits $((1 << 24)) hashes 7 &&
			$bc attach r hook prerouting dev kbp1 family ipv4 digest spie ||
			die "$v: create and attach"
		b=$(run)
		seen=$($bc -j show r | python3 -c 'import json,sys; print(json.load(sys.stdin)["attach"]["seen"])')
		[ "$seen" = "$pkts" ] || die "$v: the hook saw $seen of $pkts packets"
		$bc destroy r || die "$v: destroy"
		c=$(run)
		rmmod kbloom || die "rmmod $v"
		echo "R $r $v $a $b $c"
	done
done
