#!/bin/bash
# TCP segmentation offload on the packet path, in the test VM:
#
#   netns h1 (sender)          netns r1 (router)            netns h2
#   eth0 --------------------- eth1            eth2 -------- eth0
#   10.1.0.1/24, fd01::1/64    10.1.0.254      10.2.0.254    10.2.0.2/24
#   TSO and GSO on: TCP        fd01::fe        fd02::fe      fd02::2/64
#   leaves as super-packets;                   TSO, GSO off: tcpdump: the
#   filters at OUTPUT                          r1 segments   segments as on
#                                                            the wire
#
# h1's filters see GSO super-packets (one packet, many segments at OUTPUT;
# TCP's, and UDP's datagrams of UDP_SEGMENT).
# kbloom digests each segment as segmentation puts it on the wire (IP
# lengths, IPv4 ID, TCP sequence number), so every segment captured at h2
# must be found in h1's filters, in every digest mode, and the hook counts
# one digest per segment, more than the packets it saw.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
. tests/vm/netns.sh
bc=userspace/bloomctl
py=(python3 -I -S)
tmp=$(mktemp -d)
P=kg-
trap 'for n in h1 r1 h2; do ip netns del $P$n 2>/dev/null; done; rm -rf "$tmp"' EXIT
dmesg_mark=$(dmesg | wc -l)
json() { "${py[@]}" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

build() {
	local n
	for n in h1 r1 h2; do
		ip netns add $P$n && ip -n $P$n link set lo up || return 1
	done
	ip -n ${P}h1 link add eth0 type veth peer name eth1 netns ${P}r1 &&
	ip -n ${P}r1 link add eth2 type veth peer name eth0 netns ${P}h2 || return 1
	ip -n ${P}h1 link set eth0 up && ip -n ${P}r1 link set eth1 up &&
	ip -n ${P}r1 link set eth2 up && ip -n ${P}h2 link set eth0 up || return 1
	# h1 hands its device whole super-packets; r1 must cut them for eth2
	nx h1 ethtool -K eth0 tso on gso on >/dev/null &&
	nx r1 ethtool -K eth2 tso off gso off >/dev/null &&
	nx h2 ethtool -K eth0 gro off >/dev/null || return 1
	ip -n ${P}h1 addr add 10.1.0.1/24 dev eth0 &&
	ip -n ${P}h1 addr add fd01::1/64 dev eth0 nodad &&
	ip -n ${P}r1 addr add 10.1.0.254/24 dev eth1 &&
	ip -n ${P}r1 addr add fd01::fe/64 dev eth1 nodad &&
	ip -n ${P}r1 addr add 10.2.0.254/24 dev eth2 &&
	ip -n ${P}r1 addr add fd02::fe/64 dev eth2 nodad &&
	ip -n ${P}h2 addr add 10.2.0.2/24 dev eth0 &&
	ip -n ${P}h2 addr add fd02::2/64 dev eth0 nodad || return 1
	ip -n ${P}h1 route add default via 10.1.0.254 &&
	ip -n ${P}h1 -6 route add default via fd01::fe &&
	ip -n ${P}h2 route add default via 10.2.0.254 &&
	ip -n ${P}h2 -6 route add default via fd02::fe || return 1
	nx r1 sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 &&
	nx h1 ping -q -c 1 -W 5 10.2.0.2 >/dev/null &&
	nx h1 ping -q -c 1 -W 5 fd02::2 >/dev/null || return 1
	for f in spie flow src dst; do
		$bc -n ${P}h1 create $f bloom capacity 100000 fpr 0.000001 || return 1
	done
	$bc -n ${P}h1 attach spie hook output dev eth0 digest spie &&
	$bc -n ${P}h1 attach flow hook output digest flow &&
	$bc -n ${P}h1 attach src hook output digest src &&
	$bc -n ${P}h1 attach dst hook output digest dst || return 1
	# a filter for what leaves by lo: nothing of the tests below
	$bc -n ${P}h1 create lo bloom capacity 1000 fpr 0.01 &&
		$bc -n ${P}h1 attach lo hook output dev lo digest spie || return 1
	$bc -n ${P}h1 create multi multi capacity 100000 fpr 0.000001 dims src,dst,dport &&
		$bc -n ${P}h1 attach multi hook output digest multi
}
check "build: h1 (TSO and GSO on) -> r1 (segments for eth2) -> h2; spie (dev eth0), flow, src, dst, multi and lo (dev lo) filters at h1's output" build

# send ADDR PORT BYTES: one TCP connection from h1 carrying BYTES to h2.
send() {
	nx h2 "${py[@]}" -c '
import socket, sys
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); s.settimeout(60)
c, _ = s.accept(); n = 0
while True:
    b = c.recv(1 << 16)
    if not b: break
    n += len(b)
print(n)' "$1" "$2" >"$tmp/got" &
	local srv=$!
	listening "$2" nx h2 || return 1
	nx h1 "${py[@]}" -c '
import socket, sys
s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=60)
s.sendall(bytes(range(256)) * (int(sys.argv[3]) // 256)); s.close()' "$1" "$2" "$3" || return 1
	wait $srv && [ "$(cat "$tmp/got")" = "$3" ]
}

# counters FILTER: the attachment's seen, digested and skipped, as words.
counters() {
	$bc -n ${P}h1 -j show "$1" |
		json 'd["attach"]["seen"], d["attach"]["digested"], d["attach"]["skipped"]' |
		tr -d '(),'
}

# One connection per family, captured at h2 (h1's segments only): none
# may be dropped by the capture.
transfer() {
	local fam=$1 addr=$2 port=$3
	# a buffer (KiB) for the whole transfer: tcpdump under emulation
	# falls behind
	capture_opts="-s 128 -B 65536" capture h2 $fam tcp port $port and src host "$4" &&
		send "$addr" "$port" 1048576
	local rc=$?
	stop $fam
	cat "$tmp/$fam.err"
	[ $rc = 0 ] && grep -qx '0 packets dropped by kernel' "$tmp/$fam.err" && echo "$(tcpdump -nr "$tmp/$fam.pcap" 2>/dev/null | wc -l) segments captured at h2"
}

# gso_seen FAM: the counters of h1's spie attachment since the last call.
seen0=0 dig0=0
gso_seen() {
	local fam=$1 seen dig skip n
	read -r seen dig skip < <(counters spie)
	n=$(tcpdump -nr "$tmp/$fam.pcap" 2>/dev/null | wc -l)
	echo "spie at h1: seen $((seen - seen0)), digested $((dig - dig0)), skipped $skip; $n captured at h2"
	set -- $((seen - seen0)) $((dig - dig0)) "$skip" "$n"
	seen0=$seen dig0=$dig
	# 1 MiB is at least 725 segments of 1448 bytes: all digested, from
	# fewer packets at h1 (under 3/4 of them: a slow, loaded debug kernel
	# sends smaller bursts); every one captured at h2 was among them
	[ "$3" = 0 ] && [ "$2" -ge 725 ] && [ "$1" -lt $(($2 * 3 / 4)) ] && [ "$2" -ge "$4" ] &&
		[ "$4" -ge 725 ]
}

# query_all FAM: every segment captured at h2 is in each of h1's filters.
query_all() {
	local f n out
	n=$(tcpdump -nr "$tmp/$1.pcap" 2>/dev/null | wc -l)
	for f in spie flow src dst multi; do
		out=$($bc -n ${P}h1 query $f pcap "$tmp/$1.pcap" | tail -n 1)
		echo "$f: $out"
		[ "$out" = "$n packets: $n present, 0 absent, 0 not recorded, 0 skipped" ] ||
			return 1
	done
}

check "IPv4: 1 MiB over TCP from h1 reaches h2 in segments, every one captured" transfer v4 10.2.0.2 5001 10.1.0.1
check "IPv4: h1's hook saw GSO super-packets (fewer than 3/4 of the segments) and digested each of the 725 or more segments, all captured at h2, none skipped" gso_seen v4
check "IPv4: every segment captured at h2 is present in h1's spie, flow, src, dst and multi filters" query_all v4
check "IPv6: 1 MiB over TCP from h1 reaches h2 in segments, every one captured" transfer v6 fd02::2 5002 fd01::1
check "IPv6: h1's hook saw GSO super-packets (fewer than 3/4 of the segments) and digested each of the 725 or more segments, all captured at h2, none skipped" gso_seen v6
check "IPv6: every segment captured at h2 is present in h1's spie, flow, src, dst and multi filters" query_all v6

# UDP GSO (UDP_SEGMENT): 3 super-datagrams of 4000 bytes cut at 1000 are
# 12 datagrams on the wire (r1 cuts them for eth2): h1's hook digests
# each as segmentation makes it (lengths, IPv4 ID, its checksum summed
# over it), so every datagram captured at h2 is found at h1; the hook saw
# fewer packets than half the datagrams (the super-datagrams, and maybe
# a neighbour solicitation).
udp_gso() {
	local before after seen0 seen1 out
	before=$($bc -n ${P}h1 -j show spie | json 'd["attach"]["skipped_by_reason"]["gso"]')
	seen0=$($bc -n ${P}h1 -j show spie | json 'd["attach"]["seen"]')
	# r1 cuts them for eth2 (else a veth hands the super-datagram on whole)
	nx r1 ethtool -K eth2 tx-udp-segmentation off >/dev/null || return 1
	capture h2 ugso udp port 9 || return 1
	nx h1 "${py[@]}" -c '
import socket
for fam, dst in ((socket.AF_INET, "10.2.0.2"), (socket.AF_INET6, "fd02::2")):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_UDP, 103, 1000)     # UDP_SEGMENT: 1000-byte datagrams
    for i in range(3):
        s.sendto(bytes([i]) * 4000, (dst, 9))'
	local rc=$?
	stop ugso
	[ $rc = 0 ] || return 1
	after=$($bc -n ${P}h1 -j show spie | json 'd["attach"]["skipped_by_reason"]["gso"]')
	seen1=$($bc -n ${P}h1 -j show spie | json 'd["attach"]["seen"]')
	out=$($bc -n ${P}h1 query spie pcap "$tmp/ugso.pcap" | tail -n 1)
	echo "skipped as gso: $before before, $after after; seen $((seen1 - seen0)); at h2: $out"
	[ "$before" = 0 ] && [ "$after" = 0 ] && [ $((seen1 - seen0)) -lt 12 ] &&
		[ "$out" = "24 packets: 24 present, 0 absent, 0 not recorded, 0 skipped" ]
}
check "UDP GSO: 6 super-datagrams (UDP_SEGMENT, IPv4 and IPv6) reach h2 as 24 datagrams, each present at h1's output, none skipped" udp_gso

# UDP checksum offload: h1's datagrams reach its output hook with the
# seed where their checksum goes (CHECKSUM_PARTIAL: h1's eth0 checksums
# in "hardware"); r1's eth2 does not (tx off for this test), so r1
# completes the checksum and h2 receives it as a wire carries it. h1's
# filter must hold each datagram as h2 received it; a capture at h1
# itself holds the seed and is read with the checksum completed.
udp_csum() {
	local rc=0 out
	nx r1 ethtool -K eth2 tx off >/dev/null || return 1
	capture h2 csum udp port 7100 &&
		capture_opts="-Q out" capture h1 csum1 udp port 7100 || rc=1
	nx h1 "${py[@]}" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(5):
    s.sendto(b"checksum %d" % i, ("10.2.0.2", 7100))
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for i in range(5):
    s.sendto(b"checksum %d" % i, ("fd02::2", 7100))' || rc=1
	stop csum
	stop csum1
	nx r1 ethtool -K eth2 tx on >/dev/null
	[ $rc = 0 ] || return 1
	# the seed at h1, the checksum at h2: different bytes, one datagram
	tcpdump -vvnr "$tmp/csum1.pcap" >"$tmp/csum1.txt" 2>&1
	tcpdump -vvnr "$tmp/csum.pcap" >"$tmp/csum.txt" 2>&1
	grep -c 'bad udp cksum' "$tmp/csum1.txt" | grep -qx 10 ||
		{ echo "h1's capture: not 10 datagrams with the seed"; cat "$tmp/csum1.txt"; return 1; }
	grep -c 'udp sum ok' "$tmp/csum.txt" | grep -qx 10 ||
		{ echo "h2's capture: not 10 datagrams with the checksum"; cat "$tmp/csum.txt"; return 1; }
	for c in csum csum1; do
		out=$($bc -n ${P}h1 query spie pcap "$tmp/$c.pcap" | tail -n 1)
		echo "$c: $out"
		[ "$out" = "10 packets: 10 present, 0 absent, 0 not recorded, 0 skipped" ] || return 1
	done
}
check "UDP checksum offload: 10 datagrams h1 sent with the seed, received at h2 with the checksum, are present at h1's output; h1's own capture of them too" udp_csum

lo_only() {
	local seen
	seen=$($bc -n ${P}h1 -j show lo | json 'd["attach"]["seen"]')
	echo "lo (dev lo): seen $seen"
	[ "$seen" = 0 ]
}
check "dev lo: the filter attached to lo saw none of the packets that left by eth0" lo_only

check "the kernel log holds no warning" sh -c "dmesg | tail -n +$((dmesg_mark + 1)) | grep -E 'WARNING|BUG|Oops' && exit 1 || exit 0"
finish
