#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The packet rate through a NAT router, with and without kbloom's
# transforms table, inside the test VM:
#
#   pktgen (xmit_mode netif_receive) --injects--> kbn1 (veth)
#     the router: forwards 198.19.0.0/16 to kbn2, nft masquerade at
#     postrouting (conntrack), [kbloom attachments]
#   kbn2: the sink, a dummy device (its transmit frees the packet)
#
# pktgen builds each packet (64-byte UDP from FLOWS sources 10.0.0.1 ..,
# port 1024, to 198.19.0.1:9, the sources taken in turn, so FLOWS
# conntrack entries, each masqueraded once and then only looked up) and
# runs the router's receive, forward, NAT and transmit inline, so its
# packets per second fall by exactly what an attachment costs. (A veth to
# a sink namespace would defer the sink's receive to softirq and ksoftirqd,
# which under TCG drops packets and makes the rate depend on scheduling.)
# Configurations, interleaved round by round so drift hits them all alike
# (in reverse order every other round; short runs, many rounds: other
# load on the host slows the VM for seconds at a time, and a round's
# configurations should see the same):
#   none             NAT, nothing attached
#   transforms       a transforms table attached at postrouting (a record
#                    per flow, then one lookup per packet finding it known)
#   transforms+spie  that, and a blocked filter (BITS bits, K hashes)
#                    attached at forward with digest spie
# After each run: the router sent every packet out of kbn2, the
# transforms table holds
# one record per flow and the attachment recorded every packet, the digest
# filter digested every packet.
#
# With --vxlan the router is a VXLAN endpoint instead (RFC 7348, IPv4,
# UDP checksum 0, as the transforms table records it) and does no NAT:
# pktgen's packets go to its own address, UDP port 4789, and a tc BPF
# program at kbn1's ingress (bench/pktpath/vxlan_tc.bpf.c, in every
# configuration alike) writes over their payload a VXLAN header (VNI 42),
# an Ethernet header to vx0's address and an inner IPv4 UDP packet to
# 198.19.0.1:9 whose IP ID is pktgen's sequence number, which vx0 takes
# out and the router forwards to kbn2. The transforms table records each
# packet at input (a tunnel record: one per packet) and, at postrouting,
# the vxlan device's arrival (one per flow: the inner packets are one
# flow).
#
#   bench/natpath.sh [--quick] [--vxlan] [--rounds R] [--out FILE]
#     --quick   one short round, prints TAP (make check: the pipeline
#               works; no timing is asserted)
#     --out     raw rows "nat CONFIG ROUND PPS" (TSV) for bench/report.py
#               ("vxlan CONFIG ROUND PPS" with --vxlan)
# Needs the module loaded (scripts/vm ... runs it after insmod), nft.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
bc=$PWD/userspace/bloomctl
writer=$PWD/bench/pktpath/vxlan_tc.bpf.o
. bench/pktgen.sh

quick=0 rounds=15 out=/dev/null mode=nat
while (($#)); do
	case $1 in
	--quick) quick=1; rounds=1; shift ;;
	--vxlan) mode=vxlan; shift ;;
	--rounds) rounds=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	*) echo "natpath.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
done

BITS=$((1 << 24)) K=7 FLOWS=1000
if ((quick)); then
	PKTS=20000
else
	PKTS=50000
fi
CONFIGS=(none transforms transforms+spie)
rows=$(mktemp)

tap_n=0 tap_fail=0
ok() {	# ok COND-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_fail=1; fi
}
row() { printf '%s\t%s\t%s\t%s\n' "$@" | tee -a "$rows" >>"$out"; echo "# $*"; }
die() { echo "natpath.sh: $*" >&2; echo "not ok $((tap_n + 1)) - $*"; exit 1; }

cleanup() {
	$bc destroy all >/dev/null 2>&1
	[ -e "$PG/kpktgend_0" ] && echo rem_device_all >"$PG/kpktgend_0"
	nft delete table ip kbnat 2>/dev/null
	ip link del vx0 2>/dev/null
	ip link del kbn0 2>/dev/null
	ip link del kbn2 2>/dev/null
	ip route del 10.0.0.0/16 dev kbn1 2>/dev/null
	rm -f "$rows"
}
trap cleanup EXIT

echo "TAP version 13"
command -v nft >/dev/null || die "nft is not installed (scripts/deps)"
modprobe pktgen || die "modprobe pktgen"

# The senders' veth pair and the sink.
modprobe dummy 2>/dev/null
ip link add kbn0 type veth peer name kbn1 || die "veth kbn0"
ip link add kbn2 type dummy || die "dummy kbn2"
for d in kbn0 kbn1 kbn2; do
	# no IPv6 (router solicitations would be forwarded and digested too)
	sysctl -qw net.ipv6.conf.$d.disable_ipv6=1
	ip link set $d up
done
ip addr add 198.18.4.2/24 dev kbn1
ip addr add 198.18.5.1/24 dev kbn2
sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
	net.ipv4.conf.kbn1.rp_filter=0
# The senders are behind kbn1 (whatever the default route says).
ip route add 10.0.0.0/16 dev kbn1 || die "route to the senders"
ip route add 198.19.0.0/16 dev kbn2 || die "route to the sink"
if [ $mode = nat ]; then
	nft -f - <<-'EOF' || die "nft masquerade table"
	table ip kbnat {
		chain post {
			type nat hook postrouting priority srcnat; policy accept;
			oifname "kbn2" masquerade
		}
	}
	EOF
else
	ip link add vx0 type vxlan id 42 dstport 4789 local 198.18.4.2 dev kbn1 noudpcsum ||
		die "vxlan vx0"
	sysctl -qw net.ipv6.conf.vx0.disable_ipv6=1 net.ipv4.conf.vx0.rp_filter=0
	ip link set vx0 address 02:00:00:00:00:42 && ip link set vx0 up || die "vx0 up"
	# What pktgen's UDP payload becomes: bench/pktpath/vxlan_tc.bpf.c.
	[ -e "$writer" ] || die "$writer is not built (make -C bench/pktpath)"
	tc qdisc add dev kbn1 clsact &&
		tc filter add dev kbn1 ingress bpf direct-action obj "$writer" sec tc ||
		die "tc: the VXLAN writer at kbn1's ingress"
fi

# natdev COUNT: kbn1 on pktgen thread 0: COUNT UDP packets of 64 bytes,
# sources 10.0.0.1 .. (FLOWS of them, in turn), port 1024 -> 198.19.0.1:9.
natdev() {
	local f i last=$((FLOWS))
	pg kpktgend_0 rem_device_all
	# The thread removes the device itself, within 125 ms unless the VM
	# stalls: until then adding it again is EBUSY.
	for ((i = 0; i < 100; i++)); do
		echo "add_device kbn1" 2>/dev/null >"$PG/kpktgend_0" && break
		sleep 0.2
	done
	((i < 100)) || die "pktgen: cannot add kbn1 to kpktgend_0"
	# VXLAN: to the router, UDP 4789, room for the encapsulation and the
	# inner 28 bytes (the writer above).
	local size=64 dst=198.19.0.1 dport=9
	[ $mode = vxlan ] && size=$((14 + 20 + 8 + 8 + 14 + 28)) dst=198.18.4.2 dport=4789
	for f in "count $1" "pkt_size $size" "clone_skb 0" "burst 1" \
		"xmit_mode netif_receive" "dst $dst" \
		"dst_mac $(cat /sys/class/net/kbn1/address)" \
		"src_min 10.0.0.1" "src_max 10.0.$((last / 256)).$((last % 256))" \
		"udp_src_min 1024" "udp_src_max 1024" \
		"udp_dst_min $dport" "udp_dst_max $dport"; do
		pg kbn1 "$f"
	done
}

sent() { cat /sys/class/net/kbn2/statistics/tx_packets; }

# run: one pktgen run of PKTS packets, to its end. Writing start to pgctrl
# returns when no device is running, after giving the threads 125 ms to
# start: a VM stalled longer than that by the host's load returns before
# the run began. So the device is added anew (its result "Idle") and the
# run waited for until the device has a result.
run() {
	local i
	natdev "$PKTS"
	pg pgctrl start
	for ((i = 0; i < 1200; i++)); do
		grep -q '^Result: Idle' "$PG/kbn1" || return 0
		sleep 0.5
	done
	die "pktgen: no result on kbn1 after 10 minutes"
}
show() { $bc -j show "$1" | python3 -c "import json,sys; d=json.load(sys.stdin); print($2)"; }

# The records a run makes: one per flow (NAT), one per packet (VXLAN).
records=$FLOWS
[ $mode = vxlan ] && records=$PKTS
setup() {
	case $1 in
	none) ;;
	transforms) $bc create x transforms capacity $((4 * records)) &&
		$bc attach x hook postrouting ;;
	transforms+spie) setup transforms &&
		$bc create d blocked bits $BITS hashes $K &&
		$bc attach d hook forward family ipv4 digest spie ;;
	esac
}
teardown() {
	case $1 in
	none) ;;
	transforms) $bc destroy x ;;
	transforms+spie) $bc destroy x && $bc destroy d ;;
	esac
}
# check CONFIG SENT: after a run, what CONFIG's tables must hold.
check() {
	local records recorded digested
	[ "$2" = "$PKTS" ] || die "$1: the router sent $2 of $PKTS packets to the sink"
	case $1 in
	transforms | transforms+spie)
		records=$(show x 'd["fill"]')
		recorded=$(show x 'd["attach"]["digested"]')
		if [ $mode = vxlan ]; then
			# A tunnel record per packet, the device's arrival per flow.
			[ "$records" = $((PKTS + 1)) ] ||
				die "$1: $records transform records, want one per packet and the arrival: $((PKTS + 1))"
			[ "$recorded" = $((2 * PKTS)) ] ||
				die "$1: the transforms attachment recorded $recorded of $((2 * PKTS)) (input and postrouting, each packet)"
		else
			[ "$records" = "$FLOWS" ] ||
				die "$1: $records transform records, want one per flow: $FLOWS"
			[ "$recorded" = "$PKTS" ] ||
				die "$1: the transforms attachment recorded $recorded of $PKTS packets"
		fi
		;;
	esac
	if [ "$1" = transforms+spie ]; then
		digested=$(show d 'd["attach"]["digested"]')
		[ "$digested" = "$PKTS" ] ||
			die "$1: the spie attachment digested $digested of $PKTS packets"
	fi
}

bench_crng
# A first run warms caches, conntrack (FLOWS entries, each masqueraded)
# and the allocator; it is not counted.
run
n=$(conntrack -C 2>/dev/null) && echo "# conntrack entries after the warm-up: $n"

declare -A rate
for ((r = 1; r <= rounds; r++)); do
	order=("${CONFIGS[@]}")
	((r % 2)) || mapfile -t order < <(printf '%s\n' "${CONFIGS[@]}" | tac)
	for c in "${order[@]}"; do
		setup "$c" || die "set-up of $c"
		tx0=$(sent)
		run
		rate[$c]=$(pps kbn1)
		check "$c" $(($(sent) - tx0))
		teardown "$c" || die "tear-down of $c"
		row $mode "$c" "$r" "${rate[$c]}"
	done
	echo "# round $r: transforms / none = $(python3 -c "print(f'{${rate[transforms]} / ${rate[none]}:.3f}')")"
done
# The figure report.py gives: the median of the rounds' ratios; beside it
# the ratio of the best rates (other load on the host only ever slows a
# run down).
python3 -S - "$rows" <<'EOF'
import statistics, sys
rate = {}
for line in open(sys.argv[1]):
    _, cfg, rnd, val = line.split()
    rate.setdefault(cfg, {})[int(rnd)] = float(val)
for cfg in rate:
    r = [rate[cfg][i] / rate["none"][i] for i in rate[cfg]]
    print(f"# {cfg} / none: median of {len(r)} round(s) {statistics.median(r):.3f} "
          f"[{min(r):.3f}-{max(r):.3f}], best rates "
          f"{max(rate[cfg].values()) / max(rate['none'].values()):.3f}")
EOF
what="NAT router" made="one transform record per flow"
[ $mode = vxlan ] && what="VXLAN endpoint" made="one tunnel record per packet"
ok 0 "$what: ${CONFIGS[*]} each ran $rounds round(s) of $PKTS packets from $FLOWS flows, every packet forwarded, $made, every packet recorded and digested"
if ((quick)); then
	# The pipeline gives a figure; how large is for `make bench`.
	awk "BEGIN { exit !(${rate[transforms]} > 0 && ${rate[none]} > 0) }"
	ok $? "$what: transforms / none = $(python3 -c "print(f'{${rate[transforms]} / ${rate[none]}:.3f}')") (> 0)"
fi

echo "1..$tap_n"
exit $tap_fail
