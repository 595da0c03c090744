#!/bin/bash
# Packets an nftables flowtable forwards, in the test VM:
#
#   netns ft-a (A)          netns ft-r (router R)                netns ft-v (V)
#   eth0 ------------------ r-a                 r-v ------------ eth0
#   10.1.0.1/24             10.1.0.254          10.2.0.254       10.2.0.2/24
#                           flowtable ft { r-a, r-v } at ingress,  tcpdump: what
#                           'flow add @ft' for TCP and UDP         A sent to V
#                           filters: pre   hook prerouting
#                                    ing   hook ingress dev r-a
#                                    eg    hook egress dev r-v
#
# Once a flow is established, R forwards its packets from the netdev
# ingress hook of r-a (the flowtable's): they never reach prerouting or
# forward. The ingress and egress attachments still see every one (ingress
# runs first of r-a's hooks, egress after the flowtable's transmit), so
# every packet captured at V is found there; the prerouting attachment
# misses the offloaded ones, and says so: 'bypass: flowtable' while the
# flowtable exists, nothing once it is gone. Then GRO super-packets at
# ingress (digested per segment), a rename, and devices that go away under
# traffic (deleted, or moved to another netns): the attachment goes with a
# detach event, the filter stays, nothing leaks or warns.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
. tests/vm/netns.sh
bc=userspace/bloomctl
py=(python3 -I -S)
pt=("${py[@]}" tests/vm/pcaptool.py)
tmp=$(mktemp -d)
P=ft-
# The monitor's socket holds R's netns (and its filters) alive: killed by
# its PID before the namespaces go.
mon=
trap '[ -n "$mon" ] && kill $mon 2>/dev/null
	kill $(jobs -p) 2>/dev/null; for n in a r v x ba b bv vl1 vl2; do ip netns del $P$n 2>/dev/null; done; rm -rf "$tmp"' EXIT
dmesg_mark=$(dmesg | wc -l)
rbc() { $bc -n ${P}r "$@"; }
json() { "${py[@]}" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# bypass_is FILTER WORDS...: show -j's bypass of FILTER's attachment is
# exactly WORDS (none: an empty list).
bypass_is() {
	local f=$1 got
	shift
	got=$(rbc -j show "$f" | json '" ".join(d["attach"]["bypass"])') || return 1
	echo "bypass of $f: [$got]"
	[ "$got" = "$*" ]
}

flowtable_on() {
	nx r nft -f - <<'EOF'
table inet f {
	flowtable ft {
		hook ingress priority 0
		devices = { r-a, r-v }
	}
	chain forward {
		type filter hook forward priority 0; policy accept;
		meta l4proto { tcp, udp } flow add @ft
	}
}
EOF
}

build() {
	local n
	for n in a r v; do
		ip netns add $P$n && ip -n $P$n link set lo up || return 1
	done
	veth a eth0 r r-a && veth r r-v v eth0 || return 1
	ip -n ${P}a addr add 10.1.0.1/24 dev eth0 &&
	ip -n ${P}r addr add 10.1.0.254/24 dev r-a &&
	ip -n ${P}r addr add 10.2.0.254/24 dev r-v &&
	ip -n ${P}v addr add 10.2.0.2/24 dev eth0 &&
	ip -n ${P}a route add default via 10.1.0.254 &&
	ip -n ${P}v route add default via 10.2.0.254 &&
	nx r sysctl -qw net.ipv4.ip_forward=1 || return 1
	nx a ping -q -c 1 -W 5 10.2.0.2 >/dev/null || return 1
	flowtable_on || return 1
	for n in pre ing eg; do
		rbc create $n bloom capacity 100000 fpr 0.000001 || return 1
	done
	rbc attach pre hook prerouting digest spie &&
	rbc attach ing hook ingress dev r-a digest spie &&
	rbc attach eg hook egress dev r-v digest spie
}
check "build: A - R - V, flowtable ft on r-a and r-v at R, filters at R's prerouting, ingress of r-a and egress of r-v" build

check "attach hook ingress without dev is refused before the kernel is asked, naming dev IFACE" \
	expect 2 "*hook ingress needs 'dev IFACE'*" rbc attach pre hook ingress digest spie
check "attach hook egress dev of no such device is refused by the kernel, naming IFNAME" \
	expect 2 "*No such device (kernel: no device of that IFNAME in this namespace)*" \
	sh -c "$bc -n ${P}r create spare bloom capacity 100 fpr 0.01 && $bc -n ${P}r attach spare hook egress dev nosuch0 digest spie"
check "show prints the ingress attachment's hook and device" \
	expect 0 "*attached: hook ingress dev r-a family any digest spie*" rbc show ing

check "show says the prerouting attachment may be bypassed by a flowtable, as the kernel reports it" \
	expect 0 "*  bypass: flowtable (packets these carry do not reach this hook)*" rbc show pre
check "show -j: the prerouting attachment's bypass is [\"flowtable\"]" bypass_is pre flowtable
# metric_bypass BY WANT: bloomctl metrics' kbloom_filter_attach_bypass of
# the prerouting filter, by BY, is WANT.
metric_bypass() {
	rbc metrics | grep '^kbloom_filter_attach_bypass{netns="ft-r",filter="pre"' | tee /dev/stderr |
		grep -qx "kbloom_filter_attach_bypass{netns=\"ft-r\",filter=\"pre\",by=\"$1\"} $2"
}
metric_bypass_on() { metric_bypass flowtable 1 && metric_bypass xdp 0; }
check "metrics: kbloom_filter_attach_bypass{filter=\"pre\",by=\"flowtable\"} 1, by xdp 0" metric_bypass_on
check "show -j: nothing bypasses the ingress attachment (it runs before the flowtable)" bypass_is ing
check "show -j: nothing bypasses the egress attachment (the flowtable transmits through it)" bypass_is eg

# A TCP connection A -> V carrying $3 bytes, and $4 UDP datagrams from A
# each answered by V (so conntrack sees both directions and offloads).
traffic() {
	nx v "${py[@]}" -c '
import socket, sys
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("10.2.0.2", int(sys.argv[1]))); t.listen(1); t.settimeout(60)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("10.2.0.2", int(sys.argv[1])))
u.settimeout(60)
c, _ = t.accept(); n = 0
while True:
    b = c.recv(1 << 16)
    if not b: break
    n += len(b)
print(n, flush=True)
for i in range(int(sys.argv[2])):
    b, peer = u.recvfrom(2048); u.sendto(b, peer)
' "$1" "$3" >"$tmp/got" &
	local srv=$!
	listening "$1" nx v || return 1
	nx a "${py[@]}" -c '
import socket, sys
s = socket.create_connection(("10.2.0.2", int(sys.argv[1])), timeout=60)
s.sendall(bytes(range(256)) * (int(sys.argv[2]) // 256)); s.close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(5)
for i in range(int(sys.argv[3])):
    u.sendto(bytes([i % 256]) * 200, ("10.2.0.2", int(sys.argv[1])))
    u.recvfrom(2048)
' "$1" "$2" "$3" || return 1
	wait $srv && [ "$(head -n 1 "$tmp/got")" = "$2" ]
}

# run NAME PORT BYTES DATAGRAMS: the traffic, captured at V into NAME.pcap.
run() {
	capture_opts="-B 65536" capture v "$1" src host 10.1.0.1 &&
		traffic "$2" "$3" "$4"
	local rc=$?
	stop "$1"
	echo "$("${pt[@]}" count "$tmp/$1.pcap") packets captured at V"
	[ $rc = 0 ] && grep -qx '0 packets dropped by kernel' "$tmp/$1.err"
}
check "TCP: 256 KiB from A reach V through R, UDP: 50 datagrams answered, all captured at V" \
	run ft 5001 262144 50

offloaded() {
	nx r conntrack -L 2>/dev/null | tee "$tmp/ct"
	grep -q 'udp .*dport=5001 .*\[OFFLOAD\]' "$tmp/ct"
}
check "conntrack at R shows the UDP flow [OFFLOAD]ed to the flowtable" offloaded

# all_present FILTER PCAP: every packet of PCAP is in FILTER (exit 0).
all_present() {
	local n out
	n=$("${pt[@]}" count "$tmp/$2.pcap")
	out=$(rbc query "$1" pcap "$tmp/$2.pcap" | tail -n 1)
	echo "$1: $out (exit ${PIPESTATUS[0]})"
	[ "$out" = "$n packets: $n present, 0 absent, 0 not recorded, 0 skipped" ]
}
check "every packet captured at V is present at R's ingress attachment (r-a)" all_present ing ft
check "every packet captured at V is present at R's egress attachment (r-v)" all_present eg ft
check "query at the ingress attachment exits 0 (all present)" \
	sh -c "$bc -n ${P}r query ing pcap $tmp/ft.pcap >/dev/null"

# The prerouting attachment misses what the flowtable forwarded: the
# reason the bypass is reported. Never "absent" there: "not seen", with
# what may pass the hook by, counted as not recorded.
pre_misses() {
	local out
	rbc query pre pcap "$tmp/ft.pcap" >"$tmp/pre.q"
	out=$(tail -n 1 "$tmp/pre.q")
	echo "pre: $out"
	grep -m 2 'not seen' "$tmp/pre.q"
	[[ $out =~ ^([0-9]+)\ packets:\ ([0-9]+)\ present,\ 0\ absent,\ ([0-9]+)\ not\ recorded ]] &&
		((BASH_REMATCH[3] > 0 && BASH_REMATCH[2] + BASH_REMATCH[3] == BASH_REMATCH[1])) &&
		[ "$(grep -c ': not seen (its attachment may be passed by: flowtable)$' "$tmp/pre.q")" = "${BASH_REMATCH[3]}" ]
}
check "R's prerouting attachment holds only some of them: the offloaded ones are 'not seen (... passed by: flowtable)', none absent" pre_misses

# A trace from R by its prerouting filter: what the flowtable carried past
# it is unknown at R, with the reason, never "absent"; by the ingress
# filter every packet is traced.
trace_bypassed() {
	local rc=0
	echo "router r netns ${P}r filter pre" >"$tmp/topo-pre.txt"
	echo "router r netns ${P}r filter ing" >"$tmp/topo-ing.txt"
	$bc -j trace "$tmp/topo-pre.txt" from r pcap "$tmp/ft.pcap" >"$tmp/tpre.json" || rc=$?
	echo "trace by pre: exit $rc"
	[ $rc = 1 ] || return 1
	"${py[@]}" - "$tmp/tpre.json" <<'EOF'
import json, sys
res = json.load(open(sys.argv[1]))
st = [r["status"] for r in res]
print({s: st.count(s) for s in set(st)})
assert "absent" not in st, st
assert st.count("unknown") > 0 and set(st) <= {"traced", "unknown"}, st
for r in res:
    if r["status"] == "unknown":
        assert "may be passed by (flowtable)" in r["why"], r["why"]
EOF
	[ $? = 0 ] && $bc trace "$tmp/topo-ing.txt" from r pcap "$tmp/ft.pcap" >/dev/null
}
check "trace from R by its prerouting filter: the offloaded packets unknown (passed by: flowtable), none absent, exit 1; by ingress all traced" trace_bypassed

flowtable_off() {
	nx r nft delete table inet f
}
check "the flowtable is removed" flowtable_off
no_bypass_line() {
	local out
	out=$(rbc show pre) || return 1
	echo "$out"
	! grep -q bypass <<<"$out"
}
check "show no longer prints a bypass for the prerouting attachment" no_bypass_line
check "show -j: the prerouting attachment's bypass is [] without the flowtable" bypass_is pre
check "metrics: by flowtable 0 without the flowtable" metric_bypass flowtable 0

# GRO at ingress: A sends TCP segments (no TSO), r-a merges them (GRO on),
# so the ingress hook sees super-packets; it digests them per segment,
# and every segment V captured (R cuts them again for r-v) is found.
gro_on() {
	nx r ethtool -K r-a gro on >/dev/null && rbc clear ing
}
check "GRO on at r-a, the ingress filter cleared" gro_on
counters() {
	rbc -j show ing | json 'd["attach"]["seen"], d["attach"]["digested"], d["attach"]["skipped"]' | tr -d '(),'
}
read -r seen0 dig0 _ < <(counters)
check "GRO: 1 MiB of TCP from A reaches V, captured" run gro 5002 1048576 1
gro_per_segment() {
	local seen dig skip
	read -r seen dig skip < <(counters)
	echo "ingress: seen $((seen - seen0)), digested $((dig - dig0)), skipped $skip"
	# 1 MiB is at least 725 segments: fewer packets seen than digested
	[ "$skip" = 0 ] && [ $((dig - dig0)) -ge 725 ] && [ $((seen - seen0)) -lt $((dig - dig0)) ]
}
check "GRO: the ingress hook saw super-packets and digested one key per segment, none skipped" gro_per_segment
check "GRO: every segment captured at V is present at R's ingress attachment" all_present ing gro

renamed() {
	ip -n ${P}r link set r-v down && ip -n ${P}r link set r-v name r-w &&
		ip -n ${P}r link set r-w up &&
		rbc show eg | grep -q 'attached: hook egress dev r-w '
}
check "a rename keeps the egress attachment; show names the device's new name" renamed

# bloomctl monitor at R into $tmp/mon.txt; listening once it reported a
# probe filter's destroy.
# (bloomctl itself, not through rbc: a function in the background is a
# subshell, whose PID is not bloomctl's)
$bc -n ${P}r monitor >"$tmp/mon.txt" 2>&1 &
mon=$!
start_monitor() {
	local i
	for i in $(seq 100); do
		rbc create probe bloom capacity 100 fpr 0.01 && rbc destroy probe
		grep -q 'destroy probe' "$tmp/mon.txt" && return 0
		sleep 0.2
	done
	return 1
}
check "a monitor listens at R" start_monitor

# Deletes r-a while A floods UDP through it.
delete_under_traffic() {
	nx a "${py[@]}" -c '
import socket, time
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
end = time.time() + 5
while time.time() < end:
    try: u.sendto(bytes(100), ("10.2.0.2", 9))
    except OSError: pass' &
	local gen=$!
	sleep 1
	ip -n ${P}r link del r-a
	local rc=$?
	wait $gen
	return $rc
}
check "r-a is deleted while A sends UDP through it" delete_under_traffic
check "the ingress filter stays, not attached" expect 0 "*attached: no*" rbc show ing
monitor_saw() {
	local i
	for i in $(seq 50); do
		grep -qx 'detach ing hook ingress dev r-a: the device is gone' "$tmp/mon.txt" && return 0
		sleep 0.1
	done
	cat "$tmp/mon.txt"
	return 1
}
check "monitor printed the detach of ing with its hook and device" monitor_saw
check "the ingress filter can be attached again, to r-w" rbc attach ing hook ingress dev r-w digest spie

moved() {
	ip netns add ${P}x && ip -n ${P}r link set r-w netns ${P}x &&
		rbc show ing | grep -q 'attached: no' &&
		rbc show eg | grep -q 'attached: no'
}
check "r-w moved to another netns takes both its attachments (ingress and egress) away" moved
check "monitor printed the detach of eg (hook egress dev r-w)" \
	grep -qx 'detach eg hook egress dev r-w: the device is gone' "$tmp/mon.txt"
kill -TERM $mon 2>/dev/null; wait $mon 2>/dev/null

# A bridge: B forwards frames between BA and BV at layer 2 (br_netfilter
# off, so no IP hook of B sees them):
#
#   netns ft-ba (BA)        netns ft-b (bridge br0)              netns ft-bv (BV)
#   eth0 ------------------ b-a [br0] b-v ---------------------- eth0
#   10.5.0.1/24             filters: brf  hook bridge-forward    10.5.0.2/24
#                                    bra  hook bridge-forward    tcpdump: what
#                                         dev b-a (its in port)  BA sent to BV
#                                    bpre hook prerouting
bridge_build() {
	local n
	for n in ba b bv; do
		ip netns add $P$n && ip -n $P$n link set lo up || return 1
	done
	veth ba eth0 b b-a && veth b b-v bv eth0 || return 1
	ip -n ${P}b link add br0 type bridge &&
	ip -n ${P}b link set b-a master br0 && ip -n ${P}b link set b-v master br0 &&
	ip -n ${P}b link set br0 up || return 1
	ip -n ${P}ba addr add 10.5.0.1/24 dev eth0 &&
	ip -n ${P}bv addr add 10.5.0.2/24 dev eth0 || return 1
	for n in brf bra bpre; do
		$bc -n ${P}b create $n bloom capacity 10000 fpr 0.000001 || return 1
	done
	$bc -n ${P}b attach brf hook bridge-forward digest spie &&
	$bc -n ${P}b attach bra hook bridge-forward dev b-a digest spie &&
	$bc -n ${P}b attach bpre hook prerouting digest spie || return 1
	nx ba ping -q -c 1 -W 5 10.5.0.2 >/dev/null
}
check "bridge: BA - br0 (B) - BV, filters at B's bridge-forward (all ports, and in port b-a) and prerouting" bridge_build

check "show names the hook bridge-forward and its device" \
	expect 0 "*hook bridge-forward*dev b-a*" $bc -n ${P}b show bra

bridged() {
	capture bv br ip src 10.5.0.1 && nx ba ping -q -c 5 -i 0.2 10.5.0.2 >/dev/null &&
		nx ba "${py[@]}" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(10):
    s.sendto(b"bridged %d" % i, ("10.5.0.2", 9))'
	local rc=$?
	stop br
	[ $rc = 0 ] && [ "$("${pt[@]}" count "$tmp/br.pcap")" -ge 15 ]
}
check "BA sends 5 pings and 10 UDP datagrams to BV across the bridge, captured at BV" bridged

# bq FILTER: query of BV's capture at B's FILTER, its summary line; the
# whole answer in $tmp/bq.FILTER.
bq() { $bc -n ${P}b query "$1" pcap "$tmp/br.pcap" >"$tmp/bq.$1"; tail -n 1 "$tmp/bq.$1"; }
bridged_present() {
	local n out
	n=$("${pt[@]}" count "$tmp/br.pcap")
	for f in brf bra; do
		out=$(bq $f)
		echo "$f: $out"
		if [ "$out" != "$n packets: $n present, 0 absent, 0 not recorded, 0 skipped" ]; then
			# which packets, and when (the capture's times, the filter's)
			grep -v ': window\|packets:' "$tmp/bq.$f"
			$bc -n ${P}b show $f
			date '+now %s.%N'
			return 1
		fi
	done
}
check "every bridged packet captured at BV is present at bridge-forward, and at bridge-forward dev b-a" bridged_present
bridged_not_ip() {
	local out
	out=$(bq bpre)
	echo "bpre: $out"
	[[ $out == *" 0 present, "* ]]
}
check "prerouting of B (br_netfilter off) saw none of them: bridged frames are bridge-forward's" bridged_not_ip

# A VLAN device that puts its tag in the frame itself (reorder_hdr off):
# at the egress hook of the device below it the frame's type is 802.1Q,
# the IP packet behind the tag.
#
#   netns ft-vl1: eth0.10 10.6.0.1 (vlan 10, reorder_hdr off) on eth0 ---- eth0 (vlan 10: 10.6.0.2) netns ft-vl2
#                 filter vle: hook egress dev eth0                         tcpdump: the tagged frames
vlan_egress() {
	local n out
	for n in vl1 vl2; do
		ip netns add $P$n && ip -n $P$n link set lo up || return 1
	done
	veth vl1 eth0 vl2 eth0 || return 1
	ip -n ${P}vl1 link add link eth0 name eth0.10 type vlan id 10 reorder_hdr off &&
	ip -n ${P}vl2 link add link eth0 name eth0.10 type vlan id 10 &&
	ip -n ${P}vl1 addr add 10.6.0.1/24 dev eth0.10 && ip -n ${P}vl1 link set eth0.10 up &&
	ip -n ${P}vl2 addr add 10.6.0.2/24 dev eth0.10 && ip -n ${P}vl2 link set eth0.10 up || return 1
	$bc -n ${P}vl1 create vle bloom capacity 1000 fpr 0.000001 &&
		$bc -n ${P}vl1 attach vle hook egress dev eth0 digest spie || return 1
	nx vl1 ping -q -c 1 -W 5 10.6.0.2 >/dev/null || return 1
	capture vl2 vl vlan && nx vl1 ping -q -c 5 -i 0.2 10.6.0.2 >/dev/null
	local rc=$?
	stop vl
	out=$($bc -n ${P}vl1 query vle pcap "$tmp/vl.pcap" | tail -n 1)
	echo "vle: $out"
	[ $rc = 0 ] && [[ $out =~ ^([0-9]+)\ packets:\ ([0-9]+)\ present,\ 0\ absent,\ 0\ not\ recorded,\ 0\ skipped$ ]] &&
		((BASH_REMATCH[1] >= 5 && BASH_REMATCH[1] == BASH_REMATCH[2]))
}
check "egress of a VLAN's lower device, the tag in the frame (802.1Q type): every tagged packet captured is present" vlan_egress

check "the kernel log holds no warning" sh -c "dmesg | tail -n +$((dmesg_mark + 1)) | grep -E 'WARNING|BUG|Oops|leak' && exit 1 || exit 0"
finish
