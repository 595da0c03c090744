#!/bin/bash
# Traceback across tunnels (transforms tables, tunnel records), in the VM:
#
#   h 10.1.0.2 ── e ══════ m ══════ d ── v 10.4.0.2
#                 10.2.0.1   10.3.0.2
#                 └── tunnel t0: IPIP, GRE, GRE key 7 ──┘
#
# e encapsulates what h sends to v (route 10.4.0.0/24 dev t0), d
# decapsulates it; m, inside the tunnel, knows only the outer addresses
# (10.2.0.0/24, 10.3.0.0/24): it cannot route h's packets, only the outer
# ones. Every router records spie digests at forward: e and d the inner
# packets, m the outer. d's transforms table records, per packet, the
# outer packet each inner one came in (its IP ID is drawn per packet by
# e's kernel). Each packet v captures must trace from d through m (the
# outer packet) to e (the inner again), d's node naming the tunnel.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
. tests/vm/netns.sh
bc=userspace/bloomctl
py=(python3 -S)
tmp=$(mktemp -d)
P=kt2-
teardown() {
	local n
	for n in h e m d v; do ip netns del $P$n 2>/dev/null; done
}
trap 'teardown; rm -rf "$tmp"' EXIT
dmesg_mark=$(dmesg | wc -l)

build() {
	local n r
	for n in h e m d v; do
		ip netns add $P$n && ip -n $P$n link set lo up || return 1
	done
	veth h eth0 e eth0 && veth e eth1 m eth0 && veth m eth1 d eth0 &&
		veth d eth1 v eth0 || return 1
	ip -n ${P}h addr add 10.1.0.2/24 dev eth0
	ip -n ${P}e addr add 10.1.0.1/24 dev eth0
	ip -n ${P}e addr add 10.2.0.1/24 dev eth1
	ip -n ${P}m addr add 10.2.0.2/24 dev eth0
	ip -n ${P}m addr add 10.3.0.1/24 dev eth1
	ip -n ${P}d addr add 10.3.0.2/24 dev eth0
	ip -n ${P}d addr add 10.4.0.1/24 dev eth1
	ip -n ${P}v addr add 10.4.0.2/24 dev eth0
	ip -n ${P}h route add default via 10.1.0.1
	ip -n ${P}v route add default via 10.4.0.1
	ip -n ${P}e route add 10.3.0.0/24 via 10.2.0.2
	ip -n ${P}d route add 10.2.0.0/24 via 10.3.0.1
	for r in e m d; do
		nx $r sysctl -qw net.ipv4.ip_forward=1 || return 1
		$bc -n $P$r create spie bloom capacity 20000 fpr 0.000001 windows 60 interval 2s &&
			$bc -n $P$r attach spie hook forward digest spie || return 1
	done
	$bc -n ${P}d create xlate transforms capacity 10000 windows 60 interval 2s &&
		$bc -n ${P}d attach xlate hook postrouting || return 1
	cat >"$tmp/topo.txt" <<-EOF
	router d netns ${P}d filter spie transforms xlate
	router m netns ${P}m filter spie
	router e netns ${P}e filter spie
	link d m
	link m e
	EOF
}


# [src=ADDR] [sport=PORT] send NAME: pings and UDP datagrams (from port
# PORT, default 4000) from h to v, captured at v (those from ADDR, default
# h's 10.1.0.2).
send() {
	capture v "$1" ip src "${src:-10.1.0.2}" || return 1
	nx h ping -q -c 3 -i 0.3 10.4.0.2 >/dev/null
	nx h "${py[@]}" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.1.0.2", '"${sport:-4000}"'))
for i in range(3):
    s.sendto(b"datagram %d" % i, ("10.4.0.2", 7777))'
	stop "$1"
}

# [topo=FILE] traced NAME WANT: every packet of NAME.pcap traced from d through m to
# e, d's node naming the tunnel (WANT: a python regex of the whole text),
# m's and e's none; 6 packets (3 echo requests, 3 datagrams).
traced() {
	local rc=0
	$bc -j trace "${topo:-$tmp/topo.txt}" from d pcap "$tmp/$1.pcap" >"$tmp/$1.json" || rc=$?
	[ $rc -le 1 ] || return 1
	"${py[@]}" - "$tmp/$1.json" "$2" <<-'EOF'
	import json, re, sys
	res = json.load(open(sys.argv[1]))
	res = res if isinstance(res, list) else [res]
	want = sys.argv[2]
	for r in res:
	    print(r["packet"], r["description"], r["status"], r.get("ingress"),
	          [(n["router"], n["transforms"]) for n in r["nodes"]], r.get("why"))
	    assert r["status"] == "traced"
	    assert r["ingress"] == ["e"], r["ingress"]
	    path = [n["router"] for n in r["nodes"]]
	    assert path == ["d", "m", "e"], path
	    d = r["nodes"][0]["transforms"]
	    assert d is not None and re.fullmatch(want, d), (d, want)
	    assert r["nodes"][1]["transforms"] is None and r["nodes"][2]["transforms"] is None
	assert len(res) == 6, len(res)
	EOF
}

# m_holds NAME [only]: d's table gives each of NAME.pcap's 6 packets its
# outer packet (query xlate), whose digest m's table holds (each of them:
# 6 or more); only: and no answer is an arrival record ("came out of").
m_holds() {
	local out d n=0
	out=$($bc -n ${P}d query xlate pcap "$tmp/$1.pcap")
	echo "$out"
	echo "$out" | tail -1 | grep -qx '6 packets: 6 transformed, 0 not' || return 1
	[ "${2:-}" != only ] || ! echo "$out" | grep -q 'came out of' || return 1
	for d in $(echo "$out" | sed -n 's/.*before: .*, digest \(0x[0-9a-f]*\).*/\1/p'); do
		$bc -n ${P}m test spie "$d" || return 1
		n=$((n + 1))
	done
	[ "$n" -ge 6 ]
}

check "build: h, e, m, d, v; a spie filter at forward on e, m, d, a transforms table on d" build

check "IPIP: t0 between e and d carries h's packets to v" tunnel ipip
send ipip
check "IPIP: each packet v got traces from d, through m (the outer packet), to e; d names 'IPIP 10.2.0.1 > 10.3.0.2 id N'" \
	traced ipip 'IPIP 10\.2\.0\.1 > 10\.3\.0\.2 id \d+ \(window \d+\)'
# (A packet sent within the slack of m's first window is "absent from the
# oldest window on, not recorded before": not recorded in the count.)
check "m saw only outer packets: none of v's captured packets is in m's table as v got it" sh -c "
	$bc -n ${P}m query spie pcap $tmp/ipip.pcap | tail -1 | tee /dev/stderr |
		grep -qxE '6 packets: 0 present, [0-6] absent, [0-6] not recorded, 0 skipped'"

# (The debug kernel's tier runs GRE with its words, below: the same parse
# with more of it, and vxlan, geneve and sit instead.)
if [ "${KBLOOM_TIER:-}" != vm-debug ]; then
	check "GRE: t0 between e and d" tunnel gre
	send gre
	check "GRE: each packet traces from d through m to e; d names 'GRE 10.2.0.1 > 10.3.0.2 id N'" \
		traced gre 'GRE 10\.2\.0\.1 > 10\.3\.0\.2 id \d+ \(window \d+\)'
fi

check "GRE with key 7: t0 between e and d" tunnel gre key 7
send grekey
check "GRE with a key: each packet traces from d through m to e; d names 'GRE ... key 7'" \
	traced grekey 'GRE 10\.2\.0\.1 > 10\.3\.0\.2 id \d+ key 7 \(window \d+\)'

check "query on d's table: each packet's outer packet, its digest as m recorded it" \
	m_holds grekey

# Outsiders: tunnel packets no device of d takes (t0 is now GRE key 7
# from 10.2.0.1) are dropped by d's kernel, and take no record: 2000 IPIP
# packets from m, GRE ones from m's own address (not t0's remote) with
# key 7, key 8 and none. A ping through t0 is still recorded. The debug
# kernel (each packet through the same parse, under its checkers) takes a
# tenth of every count.
outsiders_div=1
[ "${KBLOOM_TIER:-}" != vm-debug ] || outsiders_div=10
raw_tunnel() { # raw_tunnel N PROTO KEY|-: N outer packets from m to d
	nx m "${py[@]}" - "$@" <<-'EOF'
	import socket, struct, sys
	n, proto, key = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
	inner = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, 1, 0, 64, 17, 0,
	                    socket.inet_aton("10.9.9.9"),
	                    socket.inet_aton("10.4.0.2")) + bytes(8)
	payload = inner
	if proto == 47:
	    payload = struct.pack("!HH", 0x2000 if key != "-" else 0, 0x0800)
	    if key != "-":
	        payload += struct.pack("!I", int(key))
	    payload += inner
	s = socket.socket(socket.AF_INET, socket.SOCK_RAW, proto)
	for i in range(n):
	    s.sendto(payload, ("10.3.0.2", 0))
	EOF
}
recorded() { # tunnel packets d's table recorded, and those it passed over
	$bc -n ${P}d -j show xlate | "${py[@]}" -c '
import json, sys
a = json.load(sys.stdin)["attach"]
print(a["digested"], a["skipped_by_reason"]["untransformed"])'
}
outsiders() {
	local r0 s0 r1 s1 r2 s2
	# (e's t0 has no IPv6 of its own, tunnel(): none of it is counted.)
	read -r r0 s0 <<<"$(recorded)"
	local ipip=$((2000 / outsiders_div)) gre=$((200 / outsiders_div))
	raw_tunnel $ipip 4 - && raw_tunnel $gre 47 7 && raw_tunnel $gre 47 8 &&
		raw_tunnel $gre 47 - || return 1
	sleep 0.5
	read -r r1 s1 <<<"$(recorded)"
	nx h ping -q -c 1 -W 5 10.4.0.2 >/dev/null || return 1
	sleep 0.5
	read -r r2 s2 <<<"$(recorded)"
	echo "recorded $r0, passed over $s0; after $((ipip + 3 * gre)) outsiders' packets $r1, $s1; after a ping through t0 $r2"
	[ "$r1" = "$r0" ] && [ $((s1 - s0)) -ge $((ipip + 3 * gre)) ] && [ "$r2" = $((r0 + 1)) ]
}
check "outsiders' IPIP and GRE packets that no tunnel of d takes are passed over, none recorded; t0's still are" \
	outsiders

# A flood through t0 itself: tunnel records (one a packet) take at most
# half of a window, so a router that also NATs keeps room for its flows'
# records. A table of 64 cells (capacity 10) and 100 datagrams: 32
# records, the rest counted full.
tunnel_half() {
	local got cells fill full
	$bc -n ${P}d create tiny transforms capacity 10 &&
		$bc -n ${P}d attach tiny hook postrouting || return 1
	nx h "${py[@]}" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(100):
    s.sendto(b"x", ("10.4.0.2", 7777))' || return 1
	sleep 0.5
	got=$($bc -n ${P}d -j show tiny | "${py[@]}" -c '
import json, sys
d = json.load(sys.stdin)
print(d["bits"], d["fill"], d["attach"]["skipped_by_reason"]["full"])')
	$bc -n ${P}d destroy tiny
	read -r cells fill full <<<"$got"
	echo "cells $cells, records $fill, full $full"
	[ "$cells" = 64 ] && [ "$fill" = 32 ] && [ "$full" -ge 68 ]
}
check "tunnel records take at most half of a window: 64 cells, 100 packets through t0, 32 records, the rest full" \
	tunnel_half

# RFC 2890's per-packet words: a checksum (of the GRE header and the
# inner packet) and a sequence number. The record keeps the first word;
# a digest covers no other (the outer header and 8 bytes of GRE).
# (The debug kernel's tier runs the last of the three, whose record
# parses all three words: the first two would only lengthen it.)
if [ "${KBLOOM_TIER:-}" != vm-debug ]; then
	check "GRE with sequence numbers: t0 between e and d" tunnel gre seq
	send greseq
	check "GRE with sequence numbers: each packet traces from d through m to e; d names 'GRE ... seq N'" \
		traced greseq 'GRE 10\.2\.0\.1 > 10\.3\.0\.2 id \d+ seq \d+ \(window \d+\)'
	check "GRE with checksums and sequence numbers: t0 between e and d" tunnel gre csum seq
	send grecsum
	check "GRE with checksums: each packet traces from d through m to e; d names 'GRE ... csum 0xXXXX seq'" \
		traced grecsum 'GRE 10\.2\.0\.1 > 10\.3\.0\.2 id \d+ csum 0x[0-9a-f]{4} seq \(window \d+\)'
fi
check "GRE with key 7, checksums and sequence numbers: t0 between e and d" tunnel gre key 7 csum seq
send greall
check "GRE with a key after the checksum: d takes t0's packets by their key, each traces from d through m to e" \
	traced greall 'GRE 10\.2\.0\.1 > 10\.3\.0\.2 id \d+ csum 0x[0-9a-f]{4} key seq \(window \d+\)'

# VXLAN (RFC 7348), IPv4 underlay, no UDP checksum: d's table records
# each packet's outer headers at input, as for IPIP and GRE; so does 6in4
# (sit), IPv6 in IPv4, keyed by a tag of the IPv6 packet (it has no ID).
# Then tunnels no record undoes:
# VXLAN with UDP checksums, IPsec ESP in tunnel mode,
# WireGuard, a program's tun device. m carried another
# packet (an outer one kbloom does not rebuild, or ciphertext): d's table
# records, per flow and window, what each packet came out of, and the
# trace stops at d saying so, never "absent" at m. The debug kernel is
# built without these devices.
# [topo=FILE] opaque NAME WANT: each of NAME.pcap's 6 packets, traced from
# d, is not traceable past d, which names WANT (a python regex); exit 1.
opaque() {
	local rc=0
	$bc -j trace "${topo:-$tmp/topo.txt}" from d pcap "$tmp/$1.pcap" >"$tmp/$1.json" || rc=$?
	[ $rc -le 1 ] || return 1
	"${py[@]}" - "$tmp/$1.json" "$2" <<-'EOF'
	import json, re, sys
	res = json.load(open(sys.argv[1]))
	res = res if isinstance(res, list) else [res]
	for r in res:
	    print(r["packet"], r["description"], r["status"], r.get("why"))
	    assert r["status"] == "not traceable" and not r["traceable"], r["status"]
	    assert re.fullmatch(r"not traceable past d \(it came out of %s there: "
	                        r"the routers before it carried another packet, which no record rebuilds\)"
	                        % sys.argv[2], r["why"]), r["why"]
	    assert [n["router"] for n in r["nodes"]] == ["d"], r["nodes"]
	assert len(res) == 6, len(res)
	EOF
	[ $? = 0 ] && echo "exit $rc" && [ $rc = 1 ]
}
# [ends="E D"] [nolocal=1] overlay TYPE ARGS...: t0 of TYPE between e
# and d (E and D, by default 10.2.0.1 and 10.3.0.2; addresses
# 192.168.77.1/30 and .2), h's and v's networks routed over it; nolocal:
# TYPE has no local address (geneve: remote only).
overlay() {
	local side e=${ends:-} d=${ends:-} local
	e=${e% *} d=${d#* }
	[ -n "${ends:-}" ] || e=10.2.0.1 d=10.3.0.2
	for side in "e $e $d" "d $d $e"; do
		set -- $side "$@"
		local="local $2"
		[ -z "${nolocal:-}" ] || local=
		ip -n $P$1 link del t0 2>/dev/null
		ip -n $P$1 link add t0 type "${@:4}" $local remote $3 || return 1
		shift 3
	done
	t0_routed "$*"
}
# t0_routed WHAT: e's and d's t0 (made) addressed 192.168.77.1/30 and .2
# and up, h's and v's networks routed over it; h reaches v through it.
t0_routed() {
	local side
	for side in "e 192.168.77.1 192.168.77.2 10.4.0.0/24" \
		"d 192.168.77.2 192.168.77.1 10.1.0.0/24"; do
		set -- $side
		ip -n $P$1 addr add $2/30 dev t0 && ip -n $P$1 link set t0 up &&
			ip -n $P$1 route replace $4 via $3 dev t0 || return 1
	done
	nx h ping -q -c 1 -W 5 10.4.0.2 >/dev/null || { echo "h: no way to v through $1"; return 1; }
}
# send6 NAME: IPv6 pings and UDP datagrams from h to v, captured at v.
send6() {
	# h's only: d's own MLD reports reach v too
	capture v "$1" ip6 src fd01::2 || return 1
	nx h ping -6 -q -c 3 -i 0.3 fd04::2 >/dev/null
	nx h "${py[@]}" -c '
import socket
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for i in range(3):
    s.sendto(b"datagram %d" % i, ("fd04::2", 7777))'
	stop "$1"
}
# inner6_over_t0: h's and v's IPv6 networks routed over t0 (an overlay).
inner6_over_t0() {
	ip -n ${P}e addr add fd77::1/64 dev t0 nodad && ip -n ${P}d addr add fd77::2/64 dev t0 nodad &&
		ip -n ${P}e route replace fd04::/64 via fd77::2 dev t0 &&
		ip -n ${P}d route replace fd01::/64 via fd77::1 dev t0 || return 1
	nx h ping -6 -q -c 1 -W 5 fd04::2 >/dev/null || { echo "h: no way to v over t0"; return 1; }
}
# geneve_outsider: d's t0 told to take VNI 48 from 10.2.0.9 only: e's
# packets (from 10.2.0.1) are not decapsulated there, and no tunnel
# record is made of them (the end's remote, read from rtnetlink).
geneve_outsider() {
	local before after
	ip -n ${P}d link del t0 && ip -n ${P}d link add t0 type geneve id 48 remote 10.2.0.9 udpcsum &&
		ip -n ${P}d addr add 192.168.77.2/30 dev t0 && ip -n ${P}d link set t0 up || return 1
	before=$($bc -j -n ${P}d show xlate | "${py[@]}" -c 'import json,sys; print(json.load(sys.stdin)["inserts"])')
	# IPv4 in them (e's ARP for d's new t0 may go too)
	capture d gout udp port 6081 and udp[28:2] = 0x0800 || return 1
	nx h ping -q -c 2 -i 0.3 -W 1 10.4.0.2 >/dev/null && { echo "v answered through a tunnel d should not take"; return 1; }
	stop gout
	after=$($bc -j -n ${P}d show xlate | "${py[@]}" -c 'import json,sys; print(json.load(sys.stdin)["inserts"])')
	echo "records before $before, after $after; at d: $(tcpdump -nr "$tmp/gout.pcap" 2>/dev/null | wc -l) GENEVE packets of IPv4"
	[ "$before" = "$after" ] && [ "$(tcpdump -nr "$tmp/gout.pcap" 2>/dev/null | wc -l)" = 2 ]
}
# geneve_opts E D VNI CSUM OPTS: t0 at e a collect_md geneve device
# (external), whose packets' tunnel metadata tc's tunnel_key action on
# its egress sets as OVS's would (from E to D, VNI, port 6081, CSUM:
# csum or nocsum, the GENEVE options OPTS, CLASS:TYPE:DATA,...; a TTL:
# a collect_md device sends the metadata's, 0 by default); t0 at d
# a plain geneve device (VNI, remote E; udp6zerocsumrx), which takes
# options it need not understand (none critical, RFC 8926 3.5.1); h's
# and v's networks routed over it (192.168.77.1/30, .2).
geneve_opts() {
	local e=$1 d=$2 vni=$3 csum=$4 opts=$5 r
	for r in e d; do ip -n $P$r link del t0 2>/dev/null; done
	ip -n ${P}e link add t0 type geneve external &&
		ip -n ${P}d link add t0 type geneve id "$vni" remote "$e" udp6zerocsumrx &&
		nx e tc qdisc add dev t0 clsact &&
		nx e tc filter add dev t0 egress matchall action tunnel_key set \
			src_ip "$e" dst_ip "$d" id "$vni" dst_port 6081 ttl 64 "$csum" geneve_opts "$opts" &&
		t0_routed "geneve with options"
}
# 32 bytes of GENEVE options: 24 (class 0x0102, type 1, 20 bytes) and 8;
# 252, the most: 128 and 124 (an option holds at most 124 bytes).
opts32=0102:01:00112233445566778899aabbccddeeff00112233,0103:02:44556677
opts252=0102:01:$(printf '%0248d' 0),0103:02:$(printf '%0240d' 7)
# sit6: IPv6 for h and v, carried between e and d in IPv4 (sit).
# hosts6: IPv6 for h (fd01::2) and v (fd04::2), e and d forwarding it.
hosts6() {
	local r
	ip -n ${P}h addr replace fd01::2/64 dev eth0 nodad && ip -n ${P}e addr replace fd01::1/64 dev eth0 nodad &&
		ip -n ${P}v addr replace fd04::2/64 dev eth0 nodad && ip -n ${P}d addr replace fd04::1/64 dev eth1 nodad &&
		ip -n ${P}h route replace default via fd01::1 && ip -n ${P}v route replace default via fd04::1 || return 1
	for r in e d; do nx $r sysctl -qw net.ipv6.conf.all.forwarding=1 || return 1; done
}
sit6() {
	local r
	hosts6 || return 1
	for r in e d; do ip -n $P$r link del t0 || return 1; done
	ip -n ${P}e link add t6 type sit local 10.2.0.1 remote 10.3.0.2 && ip -n ${P}e link set t6 up &&
		ip -n ${P}e route add fd04::/64 dev t6 &&
		ip -n ${P}d link add t6 type sit local 10.3.0.2 remote 10.2.0.1 && ip -n ${P}d link set t6 up &&
		ip -n ${P}d route add fd01::/64 dev t6 || return 1
	nx h ping -6 -q -c 1 -W 5 fd04::2 >/dev/null || { echo "h: no way to v over sit"; return 1; }
}
# esp: IPsec ESP in tunnel mode between e (10.2.0.1) and d (10.3.0.2).
esp() {
	local r key=0x0102030405060708090a0b0c0d0e0f1011121314
	ip -n ${P}d link del t6
	ip -n ${P}e route replace 10.4.0.0/24 via 10.2.0.2 && ip -n ${P}e route replace 10.3.0.0/24 via 10.2.0.2 &&
		ip -n ${P}d route replace 10.1.0.0/24 via 10.3.0.1 || return 1
	for r in e d; do
		ip -n $P$r xfrm state add src 10.2.0.1 dst 10.3.0.2 proto esp spi 0x4242 mode tunnel \
			aead 'rfc4106(gcm(aes))' $key 128 &&
			ip -n $P$r xfrm state add src 10.3.0.2 dst 10.2.0.1 proto esp spi 0x4243 mode tunnel \
				aead 'rfc4106(gcm(aes))' $key 128 || return 1
	done
	ip -n ${P}e xfrm policy add src 10.1.0.0/24 dst 10.4.0.0/24 dir out \
		tmpl src 10.2.0.1 dst 10.3.0.2 proto esp mode tunnel &&
		ip -n ${P}e xfrm policy add src 10.4.0.0/24 dst 10.1.0.0/24 dir fwd \
			tmpl src 10.3.0.2 dst 10.2.0.1 proto esp mode tunnel &&
		ip -n ${P}d xfrm policy add src 10.1.0.0/24 dst 10.4.0.0/24 dir fwd \
			tmpl src 10.2.0.1 dst 10.3.0.2 proto esp mode tunnel &&
		ip -n ${P}d xfrm policy add src 10.4.0.0/24 dst 10.1.0.0/24 dir out \
			tmpl src 10.3.0.2 dst 10.2.0.1 proto esp mode tunnel || return 1
	nx h ping -q -c 1 -W 5 10.4.0.2 >/dev/null || { echo "h: no way to v through ESP"; return 1; }
}
# wireguard: the ESP states gone, a WireGuard tunnel between e and d.
wireguard() {
	local r
	for r in e d; do
		ip -n $P$r xfrm policy flush && ip -n $P$r xfrm state flush &&
			wg genkey >"$tmp/$r.key" && ip -n $P$r link add wg0 type wireguard || return 1
	done
	nx e wg set wg0 listen-port 51820 private-key "$tmp/e.key" \
		peer "$(wg pubkey <"$tmp/d.key")" allowed-ips 10.4.0.0/24 endpoint 10.3.0.2:51820 &&
		nx d wg set wg0 listen-port 51820 private-key "$tmp/d.key" \
			peer "$(wg pubkey <"$tmp/e.key")" allowed-ips 10.1.0.0/24 endpoint 10.2.0.1:51820 &&
		ip -n ${P}e link set wg0 up && ip -n ${P}e route replace 10.4.0.0/24 dev wg0 &&
		ip -n ${P}d link set wg0 up && ip -n ${P}d route replace 10.1.0.0/24 dev wg0 || return 1
	nx h ping -q -c 1 -W 5 10.4.0.2 >/dev/null || { echo "h: no way to v through wg0"; return 1; }
}
# archived_wg: the routers' windows archived, the WireGuard capture
# traced from the archives: the same answers.
archive_all() {
	local r
	sleep 2.5	# the windows close
	rm -rf "$tmp"/arch-?
	for r in e m d; do
		mkdir -p "$tmp/arch-$r" &&
			$bc -n $P$r archive spie "$tmp/arch-$r" once >/dev/null || return 1
	done
	$bc -n ${P}d archive xlate "$tmp/arch-d" once >/dev/null || return 1
	printf '%s\n' "router d archive $tmp/arch-d filter spie transforms xlate" \
		"router m archive $tmp/arch-m filter spie" "router e archive $tmp/arch-e filter spie" \
		'link d m' 'link m e' >"$tmp/topo-arch.txt"
}
archived_wg() {
	archive_all && topo=$tmp/topo-arch.txt opaque wg 'a wireguard device \(ifindex \d+\)'
}
# archived_4in6: the 4in6 capture traced from the archives (d's tunnel
# records and address records among its windows): the same answers.
archived_4in6() {
	archive_all &&
		topo=$tmp/topo-arch.txt traced dslite '4in6 fd02::1 > fd03::2 flowlabel 0x[0-9a-f]{5} encaplimit 4 \(window \d+\)'
}
# archived_geneve6opt: the capture of GENEVE over IPv6 with options
# traced from the archives (d's tunnel records, their more records and
# address records among its windows): the same answers.
archived_geneve6opt() {
	archive_all &&
		topo=$tmp/topo-arch.txt traced geneve6opt 'GENEVE6 \[fd02::1\]:\d+ > \[fd03::2\]:6081 flowlabel 0x[0-9a-f]{5} csum 0x[0-9a-f]{4} options 8 bytes \(window \d+\)'
}
# underlay6: IPsec gone (and WireGuard, when it ran); e and d reach each
# other over IPv6 through m (fd02::/64, fd03::/64).
underlay6() {
	local r
	hosts6 || return 1
	for r in e d; do
		# (no xfrm in the debug kernel, and no ESP ran there)
		ip -n $P$r xfrm policy flush 2>/dev/null
		ip -n $P$r xfrm state flush 2>/dev/null
		ip -n $P$r link del wg0 2>/dev/null
		ip -n $P$r link del t6 2>/dev/null
	done
	ip -n ${P}e addr add fd02::1/64 dev eth1 nodad && ip -n ${P}m addr add fd02::2/64 dev eth0 nodad &&
		ip -n ${P}m addr add fd03::1/64 dev eth1 nodad && ip -n ${P}d addr add fd03::2/64 dev eth0 nodad &&
		ip -n ${P}e route add fd03::/64 via fd02::2 && ip -n ${P}d route add fd02::/64 via fd03::1 &&
		nx m sysctl -qw net.ipv6.conf.all.forwarding=1
}
# tunnel6 FAMILY TYPE ARGS...: t0 of TYPE between e (fd02::1) and d
# (fd03::2), over the IPv6 underlay, carrying h's and v's IPv4 (FAMILY
# 4) or IPv6 (6) networks.
tunnel6() {
	local fam=$1 to=10.4.0.0/24 back=10.1.0.0/24 ping=(ping -q -c 1 -W 5 10.4.0.2)
	shift
	[ "$fam" = 6 ] && to=fd04::/64 back=fd01::/64 ping=(ping -6 -q -c 1 -W 5 fd04::2)
	ip -n ${P}e link del t0 2>/dev/null
	ip -n ${P}d link del t0 2>/dev/null
	ip -n ${P}e link add t0 type "$@" local fd02::1 remote fd03::2 && ip -n ${P}e link set t0 up &&
		ip -n ${P}e route replace $to dev t0 &&
		ip -n ${P}d link add t0 type "$@" local fd03::2 remote fd02::1 && ip -n ${P}d link set t0 up &&
		ip -n ${P}d route replace $back dev t0 || return 1
	nx h "${ping[@]}" >/dev/null || { echo "h: no way to v through $*"; return 1; }
}
# outsiders6: 4in6 and 6in6 packets from m's own address (fd03::1, not
# t0's remote) to d, which t0 (mode ipip6, from fd02::1) does not take,
# take no record; a ping through t0 still does, twice: its tunnel record
# at input, and at postrouting the arrival record of a packet out of an
# ip6tnl device (which a tunnel record undoes: it stands for the packets
# that have none).
raw6_tunnel() { # raw6_tunnel N PROTO: N outer packets from m to d
	nx m "${py[@]}" - "$@" <<-'EOF'
	import socket, struct, sys
	n, proto = int(sys.argv[1]), int(sys.argv[2])
	if proto == 4:
	    inner = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 28, 1, 0, 64, 17, 0,
	                        socket.inet_aton("10.9.9.9"),
	                        socket.inet_aton("10.4.0.2")) + bytes(8)
	else:
	    inner = struct.pack("!IHBB16s16s", 6 << 28, 8, 17, 64,
	                        socket.inet_pton(socket.AF_INET6, "fd09::9"),
	                        socket.inet_pton(socket.AF_INET6, "fd04::2")) + bytes(8)
	s = socket.socket(socket.AF_INET6, socket.SOCK_RAW, proto)
	for i in range(n):
	    s.sendto(inner, ("fd03::2", 0))
	EOF
}
outsiders6() {
	local r0 s0 r1 s1 r2 s2
	read -r r0 s0 <<<"$(recorded)"
	local n4=$((1000 / outsiders_div)) n6=$((200 / outsiders_div))
	raw6_tunnel $n4 4 && raw6_tunnel $n6 41 || return 1
	sleep 0.5
	read -r r1 s1 <<<"$(recorded)"
	nx h ping -q -c 1 -W 5 10.4.0.2 >/dev/null || return 1
	sleep 0.5
	read -r r2 s2 <<<"$(recorded)"
	echo "recorded $r0, passed over $s0; after $((n4 + n6)) outsiders' packets $r1, $s1; after a ping through t0 $r2"
	[ "$r1" = "$r0" ] && [ $((s1 - s0)) -ge $((n4 + n6)) ] && [ "$r2" = $((r0 + 2)) ]
}
# aftr: d, the tunnel's end, also NATs what it decapsulates (DS-Lite's
# AFTR, RFC 6333: the carrier NAT): h's packets reach v from 10.4.0.1.
aftr() {
	nx d nft -f - <<-'EOF' || return 1
	table ip aftr {
		chain post {
			type nat hook postrouting priority srcnat;
			oifname "eth1" ip saddr 10.1.0.0/24 masquerade
		}
	}
	EOF
	nx h ping -q -c 1 -W 5 10.4.0.2 >/dev/null || { echo "h: no way to v through the AFTR"; return 1; }
}
# tun_writes NAME SPORT COUNT DEV...: a program on d (a userspace VPN's
# end) writes COUNT UDP packets from h's address (port SPORT) to v into
# each tun device DEV, each packet into all of them; v captures them.
tun_writes() {
	local name=$1 sport=$2 count=$3
	shift 3
	nx d sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
	# The guest's /dev may lack the node (misc 10:200); the module loads on use.
	modprobe tun 2>/dev/null
	[ -e /dev/net/tun ] || { mkdir -p /dev/net && mknod /dev/net/tun c 10 200; } || return 1
	capture v "$name" ip src 10.1.0.2 || return 1
	nx d "${py[@]}" - "$sport" "$count" "$@" <<-'EOF'
	import fcntl, os, socket, struct, subprocess, sys, time
	sport, count, devs = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
	fds = []
	for dev in devs:
	    fd = os.open("/dev/net/tun", os.O_RDWR)
	    # TUNSETIFF: IFF_TUN | IFF_NO_PI
	    fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", dev.encode(), 0x0001 | 0x1000))
	    subprocess.run(["ip", "link", "set", dev, "up"], check=True)
	    fds.append(fd)
	def csum(b):
	    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
	    while s >> 16:
	        s = (s & 0xffff) + (s >> 16)
	    return ~s & 0xffff
	for i in range(count):
	    payload = b"vpn %d" % i
	    udp = struct.pack("!HHHH", sport, 7777, 8 + len(payload), 0) + payload
	    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0x2000 + i, 0,
	                     64, 17, 0, socket.inet_aton("10.1.0.2"),
	                     socket.inet_aton("10.4.0.2"))
	    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
	    for fd in fds:
	        os.write(fd, ip + udp)
	time.sleep(1)
	EOF
	stop "$name"
}
# GENEVE with options (RFC 8926 3.5; Linux's geneve device sends them
# only from tunnel metadata, as tc's or OVS's): not kept (no digest
# covers them), their length is, in a more record. 32 bytes make the
# header's first byte 0x08, VXLAN's I flag: told apart by GENEVE's
# protocol, 0x6558.
geneve_opts4() {
	check "geneve with 32 bytes of options and UDP checksums: t0 between e (collect_md, tc tunnel_key) and d (VNI 50)" \
		geneve_opts 10.2.0.1 10.3.0.2 50 csum "$opts32"
	sport=4050 send geneveopt
	check "geneve with options: each packet traces from d through m to e; d names 'GENEVE 10.2.0.1:S > 10.3.0.2:6081 id N csum 0xC options 32 bytes'" \
		traced geneveopt 'GENEVE 10\.2\.0\.1:\d+ > 10\.3\.0\.2:6081 id \d+ csum 0x[0-9a-f]{4} options 32 bytes \(window \d+\)'
}
# vxlan4: VXLAN over IPv4 without checksums (a vxlan device's ends are
# read from its own structures).
vxlan4() {
	check "vxlan without UDP checksums: t0, an overlay between e and d, carries h's packets to v" \
		overlay vxlan id 42 dstport 4789 noudpcsum
	send vxlan
	check "vxlan: each packet traces from d through m (the outer packet, its UDP source port e's hash) to e; d names 'VXLAN 10.2.0.1:S > 10.3.0.2:4789 id N'" \
		traced vxlan 'VXLAN 10\.2\.0\.1:\d+ > 10\.3\.0\.2:4789 id \d+ \(window \d+\)'
}
# sit4: 6in4 (a sit device's ends read from its own structures).
sit4() {
	check "sit: IPv6 between h and v, in IPv4 between e and d" sit6
	send6 sit
	check "sit: each IPv6 packet v got traces from d through m (the outer IPv4 packet) to e; d names '6in4 10.2.0.1 > 10.3.0.2 id N'" \
		traced sit '6in4 10\.2\.0\.1 > 10\.3\.0\.2 id \d+ \(window \d+\)'
}
# The debug kernel has vxlan, geneve and sit for the first check of
# each (their ends' structures, the packet read past GENEVE's options);
# IPsec and WireGuard, and the variants, run in vm and vm-6.12.
if [ "${KBLOOM_TIER:-}" = vm-debug ]; then
	vxlan4
	geneve_opts4
	sit4
else
	vxlan4
	check "query on d's table: each packet's outer VXLAN packet, its digest as m recorded it" \
		m_holds vxlan only
	# With a UDP checksum (Debian 6.1's default; over the inner frame's
	# Ethernet addresses too, which no capture of the inner packet holds)
	# the record keeps the checksum as carried.
	check "vxlan with UDP checksums: t0 between e and d" overlay vxlan id 43 dstport 4789 udpcsum
	send vxlancsum
	check "vxlan with UDP checksums: each packet traces from d through m to e; d names 'VXLAN 10.2.0.1:S > 10.3.0.2:4789 id N csum 0xC'" \
		traced vxlancsum 'VXLAN 10\.2\.0\.1:\d+ > 10\.3\.0\.2:4789 id \d+ csum 0x[0-9a-f]{4} \(window \d+\)'
	# With DF on the outer header (df set): the record says so.
	check "vxlan with UDP checksums and DF: t0 between e and d" overlay vxlan id 44 dstport 4789 udpcsum df set
	send vxlandf
	check "vxlan with UDP checksums and DF: each packet traces from d through m to e" \
		traced vxlandf 'VXLAN 10\.2\.0\.1:\d+ > 10\.3\.0\.2:4789 id \d+ csum 0x[0-9a-f]{4} \(window \d+\)'
	# GENEVE (RFC 8926; the geneve device has no local address, and
	# sends no options): recorded as VXLAN is; its VNI and port matched
	# against the device's, which geneve.c tells rtnetlink only.
	nolocal=1 check "geneve: t0 between e and d (VNI 47, port 6081, no UDP checksum) carries h's packets to v" \
		overlay geneve id 47
	send geneve
	check "geneve: each packet traces from d through m to e; d names 'GENEVE 10.2.0.1:S > 10.3.0.2:6081 id N'" \
		traced geneve 'GENEVE 10\.2\.0\.1:\d+ > 10\.3\.0\.2:6081 id \d+ \(window \d+\)'
	nolocal=1 check "geneve with UDP checksums: t0 between e and d" overlay geneve id 48 udpcsum
	send genevecsum
	check "geneve with UDP checksums: each packet traces from d through m to e; d names 'GENEVE ... csum 0xC'" \
		traced genevecsum 'GENEVE 10\.2\.0\.1:\d+ > 10\.3\.0\.2:6081 id \d+ csum 0x[0-9a-f]{4} \(window \d+\)'
	check "geneve from an address d's device does not name (remote 10.2.0.9): the 2 GENEVE packets reach d, which takes none and records none" \
		geneve_outsider
	geneve_opts4
	sit4
	check "IPsec: ESP in tunnel mode between e and d (xfrm states and policies)" esp
	send esp
	check "IPsec: each packet v got is not traceable past d (it came out of IPsec ESP 10.2.0.1 > 10.3.0.2 spi 0x4242 there), exit 1" \
		opaque esp 'IPsec ESP 10\.2\.0\.1 > 10\.3\.0\.2 spi 0x4242'
fi
# Over IPv6 (RFC 2473): d's table records each packet's outer
# IPv6 packet (its addresses once a window, by their folds), and the
# trace rebuilds it for m, on 6.1 and 6.12 (ip6tnl's and ip6gre's
# structures are read).
check "IPv6 between e and d through m: fd02::/64, fd03::/64" underlay6
check "4in6 (ip6tnl mode ipip6, DS-Lite's tunnel): IPv4 between h and v, in IPv6 between e and d" \
	tunnel6 4 ip6tnl mode ipip6
send dslite
check "4in6: each packet v got traces from d through m (the outer IPv6 packet) to e; d names '4in6 fd02::1 > fd03::2 flowlabel 0xN encaplimit 4'" \
	traced dslite '4in6 fd02::1 > fd03::2 flowlabel 0x[0-9a-f]{5} encaplimit 4 \(window \d+\)'
check "query on d's table: each 4in6 packet's outer packet, its digest as m recorded it" \
	m_holds dslite
check "outsiders' 4in6 and 6in6 packets that t0 does not take (from m's fd03::1) are passed over, none recorded; t0's still are" \
	outsiders6
# The archives and the AFTR's walk (records undone one after another)
# are bloomctl's, over kernel paths the checks above and nat.sh drive:
# not in the debug kernel's tier, make check's longest.
if [ "${KBLOOM_TIER:-}" != vm-debug ]; then
	check "archives (bloomctl archive ... once): the 4in6 packets trace d > m > e from them as they do live" archived_4in6
	check "an AFTR: d decapsulates 4in6 and NATs it (masquerade to 10.4.0.1)" aftr
	src=10.4.0.1 send aftr
	check "through the AFTR: each packet v got (from 10.4.0.1) traces from d, its NAT and then its tunnel undone, through m to e" \
		traced aftr 'SNAT 10\.4\.0\.1( id \d+|:\d+) <- 10\.1\.0\.2( id \d+|:4000) \(window \d+\); 4in6 fd02::1 > fd03::2 flowlabel 0x[0-9a-f]{5} encaplimit 4 \(window \d+\)'
	nx d nft delete table ip aftr
fi
# (The debug kernel's tier reads an outer IPv6 header without the limit
# in GENEVE's, below.)
if [ "${KBLOOM_TIER:-}" != vm-debug ]; then
	check "4in6 without an encapsulation limit (encaplimit none)" tunnel6 4 ip6tnl mode ipip6 encaplimit none
	send nolimit
	check "4in6 without an encapsulation limit: each packet traces from d through m to e; d names '4in6 fd02::1 > fd03::2 flowlabel 0xN'" \
		traced nolimit '4in6 fd02::1 > fd03::2 flowlabel 0x[0-9a-f]{5} \(window \d+\)'
fi
check "6in6 (ip6tnl mode ip6ip6): IPv6 between h and v, in IPv6 between e and d" tunnel6 6 ip6tnl mode ip6ip6
send6 six6
check "6in6: each IPv6 packet v got traces from d through m to e; d names '6in6 fd02::1 > fd03::2 flowlabel 0xN encaplimit 4'" \
	traced six6 '6in6 fd02::1 > fd03::2 flowlabel 0x[0-9a-f]{5} encaplimit 4 \(window \d+\)'
check "GRE in IPv6 with key 7 (ip6gre): IPv4 between h and v" tunnel6 4 ip6gre key 7
send gre6
check "GRE in IPv6: each packet v got traces from d through m to e; d names 'GRE6 fd02::1 > fd03::2 flowlabel 0xN encaplimit 4 key 7'" \
	traced gre6 'GRE6 fd02::1 > fd03::2 flowlabel 0x[0-9a-f]{5} encaplimit 4 key 7 \(window \d+\)'
# IPv6 in GRE (GRE's protocol 0x86DD), over IPv6 (ip6gre) and over
# IPv4 (gre): keyed by a tag of the IPv6 packet, as 6in4's and 6in6's;
# with no optional GRE word the digest of the outer packet covers the
# inner header's first 4 bytes, its traffic class among them, which the
# record keeps. Before, a gre device's IPv6 packets had neither a tunnel
# record nor an arrival one: m was asked about the inner packet, which
# it never carried, and d was named the ingress. (The debug kernel's
# tier runs GRE6 and 6in6 above: the same parse.)
# gre6in4: IPv6 between h and v in IPv4 GRE (t6) between e and d.
gre6in4() {
	local r
	for r in e d; do ip -n $P$r link del t0 2>/dev/null; ip -n $P$r link del t6 2>/dev/null; done
	ip -n ${P}e link add t6 type gre local 10.2.0.1 remote 10.3.0.2 && ip -n ${P}e link set t6 up &&
		ip -n ${P}e route replace fd04::/64 dev t6 &&
		ip -n ${P}d link add t6 type gre local 10.3.0.2 remote 10.2.0.1 && ip -n ${P}d link set t6 up &&
		ip -n ${P}d route replace fd01::/64 dev t6 || return 1
	nx h ping -6 -q -c 1 -W 5 fd04::2 >/dev/null || { echo "h: no way to v over gre"; return 1; }
}
if [ "${KBLOOM_TIER:-}" != vm-debug ]; then
	check "IPv6 in ip6gre: IPv6 between h and v, in GRE in IPv6 between e and d" tunnel6 6 ip6gre
	send6 gre66
	check "IPv6 in ip6gre: each IPv6 packet v got traces from d through m to e; d names 'GRE6 fd02::1 > fd03::2 flowlabel 0xN encaplimit 4'" \
		traced gre66 'GRE6 fd02::1 > fd03::2 flowlabel 0x[0-9a-f]{5} encaplimit 4 \(window \d+\)'
	check "IPv6 in ip6gre with key 7 and checksums: t0 between e and d" tunnel6 6 ip6gre key 7 csum encaplimit none
	send6 gre66csum
	check "IPv6 in ip6gre with checksums: each packet traces from d through m to e; d names 'GRE6 ... flowlabel 0xN csum 0xC key'" \
		traced gre66csum 'GRE6 fd02::1 > fd03::2 flowlabel 0x[0-9a-f]{5} csum 0x[0-9a-f]{4} key \(window \d+\)'
	check "IPv6 in GRE over IPv4: t6 (gre) between e and d carries h's IPv6 packets to v" gre6in4
	send6 gre64
	check "IPv6 in GRE over IPv4: each IPv6 packet v got traces from d through m to e; d names 'GRE 10.2.0.1 > 10.3.0.2 id N'" \
		traced gre64 'GRE 10\.2\.0\.1 > 10\.3\.0\.2 id \d+ \(window \d+\)'
	for r in e d; do ip -n $P$r link del t6; done
fi
# VXLAN and GENEVE over IPv6 (RFC 7348, RFC 8926; the debug kernel has
# no vxlan, and geneve for its options only): the outer UDP checksum is there by default (RFC 8200 8.1),
# a per-packet value the tunnel record has no room for beside the outer
# addresses' folds and flow label: a more record keeps it. vxlan with
# zero checksums (RFC 6935, udp6zerocsumtx) makes none.
# geneve6_max: GENEVE over IPv6 with the most options, 252 bytes (the
# debug kernel's tier runs it: the packet read past them).
geneve6_max() {
	check "geneve over IPv6 with 252 bytes of options (the most) and zero UDP checksums: t0 between e and d (VNI 52)" \
		geneve_opts fd02::1 fd03::2 52 nocsum "$opts252"
	sport=4052 send geneve6max
	check "geneve over IPv6 with 252 bytes of options, no checksum: each packet traces from d through m to e; d names 'GENEVE6 ... options 252 bytes'" \
		traced geneve6max 'GENEVE6 \[fd02::1\]:\d+ > \[fd03::2\]:6081 flowlabel 0x[0-9a-f]{5} options 252 bytes \(window \d+\)'
}
if [ "${KBLOOM_TIER:-}" != vm-debug ]; then
	ends="fd02::1 fd03::2" check "vxlan over IPv6: t0 between e (fd02::1) and d (fd03::2), UDP checksums on" \
		overlay vxlan id 46 dstport 4789
	# A flow of its own: the arrival records (one a flow and window) of
	# GRE6's datagrams, a moment before, would match these too.
	sport=4046 send vxlan6
	check "vxlan over IPv6: each packet v got traces from d through m to e; d names 'VXLAN6 [fd02::1]:S > [fd03::2]:4789 flowlabel 0xN csum 0xC'" \
		traced vxlan6 'VXLAN6 \[fd02::1\]:\d+ > \[fd03::2\]:4789 flowlabel 0x[0-9a-f]{5} csum 0x[0-9a-f]{4} \(window \d+\)'
	check "query on d's table: each VXLAN6 packet's outer packet, its digest as m recorded it" \
		m_holds vxlan6
	ends="fd02::1 fd03::2" check "vxlan over IPv6 with zero UDP checksums (udp6zerocsumtx): t0 between e and d" \
		overlay vxlan id 45 dstport 4789 udp6zerocsumtx udp6zerocsumrx
	sport=4045 send vxlan6z
	check "vxlan over IPv6, zero checksums: each packet traces from d through m to e; d names 'VXLAN6 ...' without a checksum" \
		traced vxlan6z 'VXLAN6 \[fd02::1\]:\d+ > \[fd03::2\]:4789 flowlabel 0x[0-9a-f]{5} \(window \d+\)'
	ends="fd02::1 fd03::2" nolocal=1 check "geneve over IPv6: t0 between e and d (VNI 49, port 6081, UDP checksums on)" \
		overlay geneve id 49
	sport=4049 send geneve6
	check "geneve over IPv6: each packet traces from d through m to e; d names 'GENEVE6 [fd02::1]:S > [fd03::2]:6081 flowlabel 0xN csum 0xC'" \
		traced geneve6 'GENEVE6 \[fd02::1\]:\d+ > \[fd03::2\]:6081 flowlabel 0x[0-9a-f]{5} csum 0x[0-9a-f]{4} \(window \d+\)'
	# IPv6 inside (Ethernet type 0x86DD): keyed as 6in4's.
	check "geneve over IPv6 carrying IPv6: h's IPv6 packets routed over t0 (fd77::1, fd77::2)" inner6_over_t0
	send6 geneve66
	check "geneve over IPv6 carrying IPv6: each IPv6 packet v got traces from d through m to e; d names 'GENEVE6 ... csum 0xC'" \
		traced geneve66 'GENEVE6 \[fd02::1\]:\d+ > \[fd03::2\]:6081 flowlabel 0x[0-9a-f]{5} csum 0x[0-9a-f]{4} \(window \d+\)'
	check "geneve over IPv6 with 8 bytes of options and UDP checksums: t0 between e (collect_md, tc tunnel_key) and d (VNI 51)" \
		geneve_opts fd02::1 fd03::2 51 csum 0102:01:8899aabb
	sport=4051 send geneve6opt
	check "geneve over IPv6 with options: each packet traces from d through m to e; d names 'GENEVE6 ... csum 0xC options 8 bytes'" \
		traced geneve6opt 'GENEVE6 \[fd02::1\]:\d+ > \[fd03::2\]:6081 flowlabel 0x[0-9a-f]{5} csum 0x[0-9a-f]{4} options 8 bytes \(window \d+\)'
	check "query on d's table: each GENEVE6 packet's outer packet with its 8 bytes of options, its digest as m recorded it" \
		m_holds geneve6opt
	geneve6_max
	# (bloomctl's reading of archives: on 6.1, as the others.)
	[ -n "${KBLOOM_KVER:-}" ] ||
		check "archives (bloomctl archive ... once): the GENEVE6 packets with options trace d > m > e from them as they do live" \
			archived_geneve6opt
else
	geneve6_max
fi
# On 6.12 vxlan, sit, IPsec and the IPv6 tunnels (their kernel
# structures are read); the others are device kinds by name, as on 6.1.
if [ -n "${KBLOOM_KVER:-}" ]; then
	echo "# vm-6.12: WireGuard, archives and tun run on 6.1"
elif [ "${KBLOOM_TIER:-}" != vm-debug ]; then
	check "WireGuard: wg0 between e and d (10.2.0.1:51820, 10.3.0.2:51820)" wireguard
	send wg
	check "WireGuard: each packet v got is not traceable past d (it came out of a wireguard device there), exit 1" \
		opaque wg 'a wireguard device \(ifindex \d+\)'
	check "archives (bloomctl archive ... once): the WireGuard packets stop at d as they do live" archived_wg
	tun_writes tun 5000 6 tun0
	check "a program's packets (a userspace VPN's, written to a tun device on d) are not traceable past d (it came out of a tun or tap device there), exit 1" \
		opaque tun 'a tun or tap device \(a program wrote the packet\) \(ifindex \d+\)'
	# The same packets out of two devices in one window: an arrival
	# record each (their devices differ), and the trace names both.
	tun_writes tun2 5001 3 tun0 tun1
	check "each packet written into two tun devices on d: not traceable past d, which names both (it came out of a tun or tap device (ifindex A) or a tun or tap device (ifindex B) there), exit 1" \
		opaque tun2 'a tun or tap device \(a program wrote the packet\) \(ifindex (\d+)\) or a tun or tap device \(a program wrote the packet\) \(ifindex (?!\1\))\d+\)'
fi

check "the kernel log holds no warning" sh -c "dmesg | tail -n +$((dmesg_mark + 1)) | grep -E 'WARNING|BUG|Oops' && exit 1 || exit 0"
finish
