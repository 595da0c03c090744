#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The packet-path benchmark, inside the test VM (issue 8, items 2-5, 7):
#
#   pktgen (xmit_mode netif_receive) --injects--> kbp1 (veth, 198.18.0.2)
#     rx path: [tc ingress: BPF peer] -> [prerouting: kbloom attach]
#              -> route 198.19.0.0/16 blackhole (dropped after the hooks)
#   kbp3 (a second veth) and a second pktgen thread for the 2-CPU rows
#
# pktgen builds each packet (UDP, random source address and port, so every
# digest differs) and runs the device's whole receive path inline, so its
# packets per second fall by exactly what the hooks cost. Configurations,
# interleaved round by round so drift hits them all alike:
#   none            nothing attached
#   hook-only       kbloom's netfilter hook registered (attached for device
#                   lo), so every packet pays the hook call and returns at
#                   its device check: the floor for any netfilter recorder
#   bloom, blocked, counting
#                   kbloom, digest spie, into that filter type (BITS bits,
#                   K hashes; counting: 4-bit counters)
#   blocked-sip13   blocked, made with hash siphash-1-3 (SipHash-1-3 of each
#                   digest instead of SipHash-2-4)
#   blocked-ingress blocked, attached at the netdev ingress hook of kbp1
#                   (hook ingress dev kbp1, before any flowtable) instead
#                   of prerouting
#   flow-counting   kbloom, digest flow, into the counting filter
#   bpf-bloom       the BPF peer (bench/pktpath/spie_tc.bpf.c): tc ingress,
#                   the same 28-byte digest into BPF_MAP_TYPE_BLOOM_FILTER
#                   of the same bits and k
# After each run the digests recorded are checked against the packets sent.
# Then lookups (bloomctl test -f through a mapping and in netlink batches,
# bench/maplookup's lookups alone through the mapping, BPF_PROG_TEST_RUN
# peeks), bulk
# load (one bloomctl per key, bloomctl add -f, and the same keys added in
# the kernel by bench/kadd's kb_addbench.ko), and 1 vs 2 CPUs.
#
#   bench/pktpath.sh [--quick] [--rounds R] [--out FILE]
#     --quick   one short round, prints TAP (make check: the pipeline works)
#     --out     raw rows "SECTION CONFIG ROUND VALUE" (TSV) for bench/report
# Needs the module loaded (scripts/vm ... runs it after insmod).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
bc=$PWD/userspace/bloomctl
bpf=$PWD/bench/pktpath/spie_bpf
maplookup=$PWD/bench/maplookup
addbench=$PWD/bench/build/kadd/kb_addbench.ko
. bench/pktgen.sh

quick=0 rounds=5 out=/dev/null
while (($#)); do
	case $1 in
	--quick) quick=1; rounds=1; shift ;;
	--rounds) rounds=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "pktpath.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done

BITS=$((1 << 24)) K=7
if ((quick)); then
	PKTS=20000 KEYS=20000 ONEKEYS=20
else
	# A bulk load's size: at 200k keys bloomctl's start-up (about 70 ms in
	# the VM, half of it fork and exec) is a quarter of the run.
	PKTS=300000 KEYS=1000000 ONEKEYS=500
fi
CONFIGS=(none hook-only bloom blocked blocked-sip13 blocked-ingress counting flow-counting bpf-bloom)
tmp=$(mktemp -d)

tap_n=0 tap_fail=0
ok() {	# ok COND-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_fail=1; fi
}
row() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$out"; echo "# $*"; }
die() { echo "pktpath.sh: $*" >&2; echo "not ok $((tap_n + 1)) - $*"; exit 1; }

cleanup() {
	$bc destroy all >/dev/null 2>&1
	"$bpf" detach kbp1,kbp3 2>/dev/null
	bench_net_del
	rmmod kb_addbench 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

echo "TAP version 13"
[ -x "$bpf" ] || die "bench/pktpath/spie_bpf is not built (make -C bench/pktpath)"
mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf || die "cannot mount bpffs"
[ -f "$addbench" ] || die "bench/build/kadd/kb_addbench.ko is not built (make -C bench/kadd)"
bench_net 2
modprobe sch_ingress 2>/dev/null; modprobe cls_bpf 2>/dev/null
pgdev 0 kbp1 "$PKTS"
pg kpktgend_1 rem_device_all

# setup CONFIG [DEV]: attach CONFIG's recorder (all devices when DEV is
# empty); teardown CONFIG; recorded CONFIG: digests recorded since setup.
setup() {
	local dev=${2:+dev $2}
	case $1 in
	none) ;;
	hook-only) $bc create r blocked bits $BITS hashes $K &&
		$bc attach r hook prerouting dev lo family ipv4 digest spie ;;
	bloom | blocked) $bc create r "$1" bits $BITS hashes $K &&
		$bc attach r hook prerouting $dev family ipv4 digest spie ;;
	blocked-sip13) $bc create r blocked bits $BITS hashes $K hash siphash-1-3 &&
		$bc attach r hook prerouting $dev family ipv4 digest spie ;;
	blocked-ingress) $bc create r blocked bits $BITS hashes $K &&
		$bc attach r hook ingress dev "${2:?ingress needs a device}" family ipv4 digest spie ;;
	counting) $bc create r counting bits $BITS hashes $K counter-bits 4 &&
		$bc attach r hook prerouting $dev family ipv4 digest spie ;;
	flow-counting) $bc create r counting bits $BITS hashes $K counter-bits 4 &&
		$bc attach r hook prerouting $dev family ipv4 digest flow ;;
	bpf-bloom) "$bpf" attach "${2:-kbp1,kbp3}" $BITS $K ;;
	esac
}
teardown() {
	case $1 in
	none) ;;
	bpf-bloom) "$bpf" detach "${2:-kbp1,kbp3}" ;;
	*) $bc destroy r ;;
	esac
}
recorded() {
	case $1 in
	none) echo 0 ;;
	bpf-bloom) "$bpf" counts | cut -d' ' -f1 ;;
	*) $bc -j show r | python3 -c 'import json,sys; print(json.load(sys.stdin)["attach"]["digested"])' ;;
	esac
}

bench_crng
# A first run warms caches and the allocator; it is not counted.
pg pgctrl start
pgdev 0 kbp1 "$PKTS"

# ---- 2. and 3.: packets per second, one CPU
declare -A sum
for ((r = 1; r <= rounds; r++)); do
	for c in "${CONFIGS[@]}"; do
		setup "$c" kbp1 || die "set-up of $c"
		pg pgctrl start
		rate=$(pps kbp1)
		got=$(recorded "$c")
		teardown "$c" kbp1 || die "tear-down of $c"
		want=$PKTS
		[ "$c" = none ] || [ "$c" = hook-only ] && want=0
		[ "$got" = "$want" ] || die "$c recorded $got digests of $want packets"
		row pps "$c" "$r" "$rate"
	done
done
ok 0 "packet path: ${CONFIGS[*]} each ran $rounds round(s) of $PKTS packets, every digest recorded"

# ---- 7.: two pktgen threads (CPUs 0 and 1), one device each
if [ -e "$PG/kpktgend_1" ]; then
	for ((r = 1; r <= rounds; r++)); do
		for c in none blocked bpf-bloom; do
			pgdev 0 kbp1 "$PKTS"
			pgdev 1 kbp3 "$PKTS"
			setup "$c" "" || die "set-up of $c (2 CPUs)"
			pg pgctrl start
			rate=$(($(pps kbp1) + $(pps kbp3)))
			got=$(recorded "$c")
			teardown "$c"
			want=$((2 * PKTS))
			[ "$c" = none ] && want=0
			[ "$got" = "$want" ] || die "$c recorded $got digests of $want packets (2 CPUs)"
			row pps2 "$c" "$r" "$rate"
		done
	done
	pg kpktgend_1 rem_device_all
	ok 0 "2 CPUs: none, blocked and bpf-bloom, $rounds round(s), every digest recorded"
else
	ok 0 "2 CPUs # SKIP one CPU only"
fi

# Keys: KEYS distinct 28-byte digests, one hex key a line (kb_addbench's
# kb_make_key() makes the same ones).
python3 -S -c "
import sys
for i in range($KEYS):
    print('0x4500003200000000401100000a%06x c6130001%04x0009001e0000' % (i, i & 0xffff))
" | tr -d ' ' >"$tmp/keys"

now() { date +%s%N; }

# ---- 5.: bulk load
$bc create load bloom bits $BITS hashes $K || die "create load"
t0=$(now)
head -n "$ONEKEYS" "$tmp/keys" | while read -r key; do $bc add load "$key" || exit 1; done ||
	die "bloomctl add, one process per key"
t1=$(now)
row load per-process 1 $((ONEKEYS * 1000000000 / (t1 - t0)))
# Once a run, not once a round: 1M keys take a while in the VM.
$bc clear load || die "clear load"
t0=$(now)
$bc add load -f "$tmp/keys" || die "bloomctl add -f"
t1=$(now)
row load batch 1 $((KEYS * 1000000000 / (t1 - t0)))
# The same keys added inside the kernel, no netlink (bench/kadd).
insmod "$addbench" keys=$KEYS bits=$BITS hashes=$K || die "insmod $addbench"
P=/sys/module/kb_addbench/parameters
kns=$(cat $P/ns) found=$(cat $P/present)
rmmod kb_addbench
[ "$found" = "$KEYS" ] || die "kb_addbench found $found of its $KEYS keys"
[ "${kns:-0}" -gt 0 ] || die "kb_addbench timed no adds"
row load in-kernel 1 $((KEYS * 1000000000 / kns))
# The namespace's memory grows by the mapping's header at the first MAP:
# the proof that test read the mapping. awk reads to the end (pipefail).
memns() { $bc metrics | awk '$1 ~ /^kbloom_memory_bytes/ && !n++ { print $NF }'; }
m0=$(memns)
$bc test load -f "$tmp/keys" >/dev/null || die "a bulk-loaded key is absent"
[ "$(memns)" -gt "$m0" ] || die "test -f did not map the filter"
ok 0 "bulk load: $ONEKEYS keys one process each, $KEYS by add -f, in-kernel add timed; all present"

# ---- 4.: lookups: through a mapping, batched over netlink, BPF_PROG_TEST_RUN
t0=$(now)
$bc test load -f "$tmp/keys" >/dev/null || die "test -f (mapped)"
t1=$(now)
row lookup kbloom-test-mapped 1 $((KEYS * 1000000000 / (t1 - t0)))
t0=$(now)
KBLOOM_NO_MAP=1 $bc test load -f "$tmp/keys" >/dev/null || die "test -f (netlink)"
t1=$(now)
row lookup kbloom-test-batch 1 $((KEYS * 1000000000 / (t1 - t0)))
# The lookups alone, through the mapping (keys made and hashed in place).
read -r mns found < <("$maplookup" load "$KEYS" 3) || die "maplookup"
[ "$found" = "$KEYS" ] || die "maplookup found $found of $KEYS keys"
row lookup kbloom-mapped 1 $((1000000000 / (mns > 0 ? mns : 1)))
ns=$("$bpf" lookup $BITS $K "$KEYS" $((KEYS * 5))) || die "BPF lookup test run"
row lookup bpf-test-run 1 $((1000000000 / (ns > 0 ? ns : 1)))
ok 0 "lookups: bloomctl test -f through the mapping and over netlink, maplookup, and BPF_PROG_TEST_RUN, on the same digests"

echo "1..$tap_n"
exit $tap_fail
