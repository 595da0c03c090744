#!/bin/bash
# Traceback through NAT and fragmentation (transforms tables), in the VM:
#
#   a 10.9.0.5 ──┐
#                r2 ─── 10.8.0.0/24 ─── nat ─── 100.64.0.0/24 ─── r1 ─── v 10.2.0.2
#   b 10.7.0.5 ──┘                       │                         (r1-v: MTU 576)
#                          masquerade out of nat-r1 (SNAT to 100.64.0.1),
#                          port forwards 100.64.0.1:8053/udp -> a:53 and
#                          :8080/tcp -> a:80 (DNAT); a transforms table
#                          'xlate' attached at its postrouting
#
# Every router records spie digests at forward (windows 60 interval 2s).
# Each test sends traffic, captures it where it arrives (tcpdump -Q in) and
# traces every captured packet: every one must come back traced to its
# true ingress, with the transform nat undid named on nat's node, exactly
# (scripts in this file check the JSON of 'bloomctl -j trace').
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
. tests/vm/netns.sh
bc=userspace/bloomctl
py=(python3 -S)
tmp=$(mktemp -d)
P=kn-
routers="r2 nat r1"
sysctls="net.ipv4.ip_forward"
saved=$(for s in $sysctls; do echo "$s=$(sysctl -n $s)"; done)
teardown() {
	local n
	for n in a b r2 nat r1 v w c home; do ip netns del $P$n 2>/dev/null; done
}
trap 'teardown; sysctl -qw $saved; rm -rf "$tmp"' EXIT
dmesg_mark=$(dmesg | wc -l)

build() {
	local n r
	for n in a b r2 nat r1 v; do
		ip netns add $P$n && ip -n $P$n link set lo up || return 1
	done
	veth a eth0 r2 eth0 && veth b eth0 r2 eth2 && veth r2 eth1 nat eth0 &&
		veth nat eth1 r1 eth0 && veth r1 eth1 v eth0 || return 1
	ip -n ${P}a addr add 10.9.0.5/24 dev eth0
	ip -n ${P}b addr add 10.7.0.5/24 dev eth0
	ip -n ${P}r2 addr add 10.9.0.1/24 dev eth0
	ip -n ${P}r2 addr add 10.7.0.1/24 dev eth2
	ip -n ${P}r2 addr add 10.8.0.2/24 dev eth1
	ip -n ${P}nat addr add 10.8.0.1/24 dev eth0
	ip -n ${P}nat addr add 100.64.0.1/24 dev eth1
	ip -n ${P}r1 addr add 100.64.0.254/24 dev eth0
	ip -n ${P}r1 addr add 10.2.0.1/24 dev eth1
	ip -n ${P}v addr add 10.2.0.2/24 dev eth0
	ip -n ${P}r1 link set eth1 mtu 576 && ip -n ${P}v link set eth0 mtu 576
	ip -n ${P}a route add default via 10.9.0.1
	ip -n ${P}b route add default via 10.7.0.1
	ip -n ${P}r2 route add default via 10.8.0.1
	ip -n ${P}nat route add 10.9.0.0/24 via 10.8.0.2
	ip -n ${P}nat route add 10.7.0.0/24 via 10.8.0.2
	ip -n ${P}nat route add default via 100.64.0.254
	ip -n ${P}v route add default via 10.2.0.1
	for r in $routers; do
		nx $r sysctl -qw net.ipv4.ip_forward=1 || return 1
	done
	nx nat nft -f - <<-'EOF' || return 1
	table ip nat {
		chain pre {
			type nat hook prerouting priority dstnat;
			iifname "eth1" udp dport 8053 dnat to 10.9.0.5:53
			iifname "eth1" tcp dport 8080 dnat to 10.9.0.5:80
		}
		chain post {
			type nat hook postrouting priority srcnat;
			oifname "eth1" masquerade
		}
	}
	EOF
	for r in $routers; do
		$bc -n $P$r create spie bloom capacity 20000 fpr 0.000001 windows 60 interval 2s &&
			$bc -n $P$r attach spie hook forward digest spie || return 1
	done
	$bc -n ${P}nat create xlate transforms capacity 10000 windows 60 interval 2s &&
		$bc -n ${P}nat attach xlate hook postrouting || return 1
	nx a ping -q -c 1 -W 5 10.2.0.2 >/dev/null || { echo "a: no route to v"; return 1; }
	cat >"$tmp/topo.txt" <<-EOF
	router r1 netns ${P}r1 filter spie
	router nat netns ${P}nat filter spie transforms xlate
	router r2 netns ${P}r2 filter spie
	link r1 nat
	link nat r2
	EOF
}

# [topo=FILE] traced_through NAME FROM INGRESS PROTO ROUTER=REGEX...: traces
# every IP packet of $tmp/NAME.pcap of protocol PROTO (a python regex on
# the description) from FROM; each must be traced with exactly INGRESS as
# its ingress and each ROUTER's node naming the transform REGEX (a python
# regex, the whole text), every other node none; at least one packet.
traced_through() {
	local rc=0
	$bc -j trace "${topo:-$tmp/topo.txt}" from "$2" pcap "$tmp/$1.pcap" \
		>"$tmp/$1.json" 2>"$tmp/$1.trace.err" || rc=$?
	cat "$tmp/$1.trace.err"
	[ $rc -le 1 ] || return 1
	"${py[@]}" - "$tmp/$1.json" "$3" "$4" "${@:5}" <<-'EOF'
	import json, re, sys
	text = open(sys.argv[1]).read()
	res = json.loads(text)
	res = res if isinstance(res, list) else [res]
	ingress, proto = sys.argv[2], sys.argv[3]
	want = dict(a.split("=", 1) for a in sys.argv[4:])
	n = 0
	for r in res:
	    if not re.search(proto, r["description"]):
	        continue
	    n += 1
	    assert r["status"] == "traced", (r["packet"], r["description"], r["status"])
	    assert r["ingress"] == [ingress], (r["packet"], r["description"], r["ingress"])
	    for router, regex in want.items():
	        at = [x for x in r["nodes"] if x["router"] == router]
	        assert len(at) == 1, (r["packet"], router + " not on the path")
	        assert at[0]["transforms"] is not None and re.fullmatch(regex, at[0]["transforms"]), \
	            (r["packet"], r["description"], router, at[0]["transforms"], regex)
	    for x in r["nodes"]:
	        if x["router"] not in want:
	            assert x["transforms"] is None, (r["packet"], x)
	print("%d packets traced to %s through %s" % (n, ingress, ", ".join(want)))
	assert n > 0
	EOF
}

# [topo=FILE] traced NAME FROM INGRESS NAT-REGEX [PROTO]: traced_through
# with nat's transform NAT-REGEX, the others none (PROTO default: all).
traced() {
	traced_through "$1" "$2" "$3" "${5:-.}" "nat=$4"
}

# icmp_blind NAME FROM [WHY [WHAT]]: each of the 2 ICMP errors of
# NAME.pcap, traced from FROM, is not traceable past nat, WHY (the reason's
# start, default: "an ICMP error about a flow its NAT rewrote"), exit 1;
# WHAT (default "unreachable") in each one's description (sections 5b, 12).
icmp_blind() {
	local name=$1 from=$2 rc=0
	local why=${3:-an ICMP error about a flow its NAT rewrote} what=${4:-unreachable}
	$bc -j trace "$tmp/topo.txt" from "$from" pcap "$tmp/$name.pcap" \
		>"$tmp/$name.json" || rc=$?
	tcpdump -nr "$tmp/$name.pcap" 2>/dev/null | cut -c1-120
	"${py[@]}" - "$tmp/$name.json" "$from" "$why" "$what" <<-'EOF'
	import json, sys
	res = json.load(open(sys.argv[1]))
	res = res if isinstance(res, list) else [res]
	for r in res:
	    print(r["packet"], r["description"], r["status"], r.get("why"))
	    assert sys.argv[4] in r["description"], r["description"]
	    assert r["status"] == "not traceable" and not r["traceable"], r["status"]
	    assert r["why"].startswith("not traceable past nat (" + sys.argv[3]), r["why"]
	    # Drawn as far as it goes: from, and nat where its hook saw this form.
	    assert r["nodes"][0]["router"] == sys.argv[2], r["nodes"]
	    assert {x["router"] for x in r["nodes"]} <= {sys.argv[2], "nat"}, r["nodes"]
	assert len(res) == 2, len(res)
	EOF
	[ $? = 0 ] && echo "exit $rc" && [ $rc = 1 ]
}

# show NS TABLE FIELD...: the fields of 'bloomctl -j show' (dotted paths).
show() {
	local ns=$1 name=$2
	shift 2
	$bc -n $P$ns -j show "$name" | "${py[@]}" -c '
import json, sys
d = json.load(sys.stdin)
out = []
for path in sys.argv[1:]:
    v = d
    for k in path.split("."):
        v = v[k]
    out.append(str(v))
print(" ".join(out))' "$@"
}

check "build: 6 namespaces, nat masquerading and forwarding ports, a transforms table at its postrouting" build

# refused WANT-TEXT command...: exit 2 and the message
refused() {
	local want=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	echo "exit $rc: $out"
	[ $rc -eq 2 ] && [[ $out == *"$want"* ]]
}
$bc -n ${P}nat create t2 transforms capacity 100
check "refused: a transforms table attached at forward" \
	refused "a transforms table records at HOOK postrouting, after NAT" $bc -n ${P}nat attach t2 hook forward
check "refused: a transforms table attached with a digest" \
	refused "a transforms table takes no DIGEST" $bc -n ${P}nat attach t2 hook postrouting digest spie
check "refused: keys added to a transforms table" \
	refused "a transforms table takes no keys" $bc -n ${P}nat add t2 k1
check "refused: query of a transforms table in a digest mode" \
	refused "invalid digest 'spie'" $bc -n ${P}nat query t2 packet 4500001c000000004001f98e0a0900050a020002 digest spie
check "nothing changed: t2 holds no record and is not attached" \
	test "$(show nat t2 fill)" = 0 -a "$($bc -n ${P}nat show t2 | grep -c 'attached: no')" = 1
$bc -n ${P}nat destroy t2

# 1. SNAT (masquerade), ICMP: requests at v, replies at a. nat also
# records at the netdev ingress hook of eth0 (from r2), before its NAT as
# prerouting is: traced by that filter, the requests give the same answers.
$bc -n ${P}nat create ing bloom capacity 20000 fpr 0.000001 windows 60 interval 2s &&
	$bc -n ${P}nat attach ing hook ingress dev eth0 digest spie
sed 's/^router nat netns \(.*\) filter spie /router nat netns \1 filter ing /' "$tmp/topo.txt" >"$tmp/topo-ing.txt"
traced_ing() { topo=$tmp/topo-ing.txt traced "$@"; }
echo "# a pings v: requests SNAT'ed by nat, replies un-SNAT'ed"
capture v echo && capture a reply &&
	nx a ping -q -c 3 -i 0.3 10.2.0.2 >/dev/null; stop echo; stop reply
check "masquerade, ICMP echo: each request traced from r1 through nat (SNAT 100.64.0.1 id N <- 10.9.0.5 id N) to r2" \
	traced echo r1 r2 'SNAT 100\.64\.0\.1 id (\d+) <- 10\.9\.0\.5 id \1 \(window \d+\)'
check "the reply direction: each echo reply traced from r2 through nat (DNAT 10.9.0.5 <- 100.64.0.1) to r1" \
	traced reply r2 r1 'DNAT 10\.9\.0\.5 <- 100\.64\.0\.1 \(window \d+\)'
check "nat by its ingress filter (hook ingress dev eth0): each request traced through nat (the same SNAT record) to r2, as by forward" \
	traced_ing echo r1 r2 'SNAT 100\.64\.0\.1 id (\d+) <- 10\.9\.0\.5 id \1 \(window \d+\)'

# 2. SNAT, UDP and TCP.
capture v udp && for i in 1 2 3; do echo "hi $i"; done |
	nx a nc -u -w 1 -p 4000 10.2.0.2 7777; stop udp
check "masquerade, UDP: each datagram traced through nat (SNAT 100.64.0.1:4000 <- 10.9.0.5:4000) to r2" \
	traced udp r1 r2 'SNAT 100\.64\.0\.1:4000 <- 10\.9\.0\.5:4000 \(window \d+\)' UDP
capture v tcp && { nx v timeout 10 nc -l 5001 >"$tmp/tcp.got" & srv=$!; } && listening 5001 nx v &&
	seq 1 200 | nx a nc -N -p 4500 10.2.0.2 5001; wait $srv; stop tcp
check "masquerade, TCP: every segment of a connection traced through nat (SNAT 100.64.0.1:4500 <- 10.9.0.5:4500) to r2" \
	traced tcp r1 r2 'SNAT 100\.64\.0\.1:4500 <- 10\.9\.0\.5:4500 \(window \d+\)' TCP

# 3. DNAT: port forwards into a.
capture a dnat && for i in 1 2; do echo "q $i"; done |
	nx v nc -u -w 1 -p 999 100.64.0.1 8053; stop dnat
check "port forward, UDP: each datagram v sent to 100.64.0.1:8053, traced from r2 through nat (DNAT 10.9.0.5:53 <- 100.64.0.1:8053) to r1" \
	traced dnat r2 r1 'DNAT 10\.9\.0\.5:53 <- 100\.64\.0\.1:8053 \(window \d+\)' UDP
capture a dnattcp && { nx a timeout 10 nc -l 80 >/dev/null & srv=$!; } && listening 80 nx a &&
	echo hello | nx v nc -N -p 1999 100.64.0.1 8080; wait $srv; stop dnattcp
check "port forward, TCP: every segment traced from r2 through nat (DNAT 10.9.0.5:80 <- 100.64.0.1:8080) to r1" \
	traced dnattcp r2 r1 'DNAT 10\.9\.0\.5:80 <- 100\.64\.0\.1:8080 \(window \d+\)' TCP

# 4. The record outlives the conntrack entry. (Pings of their own: those
# of section 1 may have left r1's 2 minutes of windows on a slow guest.)
capture v echo4 && nx a ping -q -c 3 -i 0.3 10.2.0.2 >/dev/null; stop echo4
nx nat conntrack -F >/dev/null 2>&1
check "after conntrack forgot every flow (conntrack -F): the echo requests still trace through nat to r2" \
	traced echo4 r1 r2 'SNAT 100\.64\.0\.1 id (\d+) <- 10\.9\.0\.5 id \1 \(window \d+\)'

# 5. Fragmentation: r1 fragments for the 576-byte link to v.
capture v frag && nx a ping -q -c 2 -i 0.3 -s 1400 -M dont 10.2.0.2 >/dev/null; stop frag
check "fragmented by r1 (MTU 576): v holds 3 fragments per request" sh -c "
	n=\$(tcpdump -nr $tmp/frag.pcap 'ip[6:2] & 0x3fff != 0' 2>/dev/null | wc -l); echo \"\$n fragments\"; [ \$n -eq 6 ]"
check "each fragment, the later ones too, traced through nat (SNAT ... id N <- 10.9.0.5 id N) to r2" \
	traced frag r1 r2 'SNAT 100\.64\.0\.1 id (\d+) <- 10\.9\.0\.5 id \1 \(window \d+\)' ICMP

# 5b. IPv6 NAT (nftables' ip6 family): the same routers, IPv6 beside
# IPv4, and w (fd02::2) behind r1 (v's 576-byte link is too small for
# IPv6, whose minimum is 1280):
#   a fd09::5 - r2 - fd08::/64 - nat - fd64::/64 - r1 - w fd02::2
# nat masquerades out of eth1 (to fd64::1) and forwards [fd64::1]:8053/udp
# to [fd09::5]:53. Its records fold the addresses; each address it
# rewrote, as it arrived, has an address record; the trace undoes them.
ipv6() {
	local r
	ip netns add ${P}w && ip -n ${P}w link set lo up && veth r1 eth2 w eth0 || return 1
	for end in "a eth0 fd09::5" "r2 eth0 fd09::1" "r2 eth1 fd08::2" "nat eth0 fd08::1" \
		"nat eth1 fd64::1" "r1 eth0 fd64::254" "r1 eth2 fd02::1" "w eth0 fd02::2"; do
		set -- $end
		ip -n $P$1 addr add $3/64 dev $2 nodad || return 1
	done
	ip -n ${P}a route add default via fd09::1 && ip -n ${P}r2 -6 route add default via fd08::1 &&
		ip -n ${P}nat -6 route add fd09::/64 via fd08::2 && ip -n ${P}nat -6 route add default via fd64::254 &&
		ip -n ${P}w route add default via fd02::1 || return 1
	for r in $routers; do nx $r sysctl -qw net.ipv6.conf.all.forwarding=1 || return 1; done
	nx nat nft -f - <<-'EOF' || return 1
	table ip6 nat {
		chain pre {
			type nat hook prerouting priority dstnat;
			iifname "eth1" udp dport 8053 dnat to [fd09::5]:53
		}
		chain post {
			type nat hook postrouting priority srcnat;
			oifname "eth1" masquerade
		}
	}
	EOF
	nx a ping -6 -q -c 1 -W 5 fd02::2 >/dev/null || { echo "a: no route to w over IPv6"; return 1; }
}
check "IPv6 beside IPv4: a, r2, nat, r1 and w (fd02::2); nat's ip6 table masquerades and forwards a port" ipv6
capture w echo6 ip6 src fd64::1 && nx a ping -6 -q -c 3 -i 0.3 fd02::2 >/dev/null; stop echo6
check "IPv6 masquerade, ICMPv6 echo: each request traced from r1 through nat (SNAT fd64::1 id N <- fd09::5 id N) to r2" \
	traced echo6 r1 r2 'SNAT fd64::1 id (\d+) <- fd09::5 id \1 \(window \d+\)'
capture w udp6 ip6 src fd64::1 && for i in 1 2 3; do echo "hi $i"; done |
	nx a nc -6 -u -w 1 -p 4000 fd02::2 7777; stop udp6
check "IPv6 masquerade, UDP: each datagram traced through nat (SNAT [fd64::1]:4000 <- [fd09::5]:4000) to r2" \
	traced udp6 r1 r2 'SNAT \[fd64::1\]:4000 <- \[fd09::5\]:4000 \(window \d+\)' UDP
capture w tcp6 ip6 src fd64::1 && { nx w timeout 10 nc -6 -l 5001 >/dev/null & srv=$!; } && listening 5001 nx w &&
	seq 1 200 | nx a nc -6 -N -p 4600 fd02::2 5001; wait $srv; stop tcp6
check "IPv6 masquerade, TCP: every segment traced through nat (SNAT [fd64::1]:4600 <- [fd09::5]:4600) to r2" \
	traced tcp6 r1 r2 'SNAT \[fd64::1\]:4600 <- \[fd09::5\]:4600 \(window \d+\)' TCP
capture a dnat6 ip6 dst fd09::5 and udp && for i in 1 2; do echo "q $i"; done |
	nx w nc -6 -u -w 1 -p 999 fd64::1 8053; stop dnat6
check "IPv6 port forward, UDP: each datagram w sent to [fd64::1]:8053, traced from r2 through nat (DNAT [fd09::5]:53 <- [fd64::1]:8053) to r1" \
	traced dnat6 r2 r1 'DNAT \[fd09::5\]:53 <- \[fd64::1\]:8053 \(window \d+\)' UDP
# The ICMPv6 errors and fragments below are bloomctl's walk over the
# kernel paths above: not in the debug kernel's tier, make check's
# longest.
if [ "${KBLOOM_TIER:-}" != vm-debug ]; then
	# ICMPv6 errors about a NAT'ed flow, undone as section 12's ICMP
	# ones (the addresses nat rewrote, as they left too, have address
	# records): w's port unreachables for a's masqueraded datagrams
	# (exact), a's for w's datagrams to the port forward (its sender,
	# which nat set to fd64::1, put back as a: a guess nat's digest
	# confirms).
	nx w sysctl -qw net.ipv6.icmp.ratelimit=0 && nx a sysctl -qw net.ipv6.icmp.ratelimit=0
	capture a icmperr6 icmp6 and ip6[40] == 1 && for i in 1 2; do
		echo "z $i" | nx a nc -6 -u -w 1 -p 4200 fd02::2 7999; done; stop icmperr6
	check "w's ICMPv6 port unreachables for a's masqueraded datagrams, captured at a: each traced from r2 through nat (ICMP error about SNAT [fd64::1]:P <- [fd09::5]:4200) to r1" \
		traced icmperr6 r2 r1 'ICMP error about SNAT \[fd64::1\]:\d+ <- \[fd09::5\]:4200 \(window \d+\)'
	capture w icmperr6b icmp6 and ip6[40] == 1 && for i in 1 2; do
		echo "y $i" | nx w nc -6 -u -w 1 -p 998 fd64::1 8053; done; stop icmperr6b
	check "a's ICMPv6 port unreachables for w's datagrams to the port forward, captured at w: each traced from r1 through nat (ICMP error about DNAT [fd09::5]:53 <- [fd64::1]:8053, its sender guessed) to r2" \
		traced icmperr6b r1 r2 'ICMP error about DNAT \[fd09::5\]:53 <- \[fd64::1\]:8053, its sender guessed \(window \d+\)'
	# IPv6 fragments (a sends 2000-byte pings on 1500-byte links: a
	# fragments them). nat tracks connections: it reassembles each datagram
	# before its forward hook (which digests it whole) and cuts it again on
	# the way out with an identification of its own (RFC 8200 4.5: the
	# kernel draws it), which the fragments r2 carried did not have. So each
	# fragment w gets is not traceable past nat, said so, never traced
	# to nat as its ingress nor absent at r2: a first one (which the trace
	# finds at nat reassembled from the capture's fragments, its NAT undone)
	# as reassembled there, a later one (no ports, no record of its own) as
	# a later fragment through a NAT.
	frag6() {
		local rc=0
		$bc -j trace "$tmp/topo.txt" from r1 pcap "$tmp/frag6.pcap" >"$tmp/frag6.json" || rc=$?
		[ $rc = 1 ] || { echo "exit $rc, not 1"; return 1; }
		"${py[@]}" - "$tmp/frag6.json" <<-'EOF'
		import json, re, sys
		res = json.load(open(sys.argv[1]))
		res = res if isinstance(res, list) else [res]
		first = later = 0
		for r in res:
		    print(r["packet"], r["description"], r["status"], r.get("why"),
		          [(x["router"], x["transforms"]) for x in r["nodes"]])
		    assert r["status"] == "not traceable", r["status"]
		    assert [x["router"] for x in r["nodes"]] == ["r1", "nat"], r["nodes"]
		    if "offset 0+" in r["description"]:
		        first += 1
		        assert r["why"].startswith("not traceable past nat (an IPv6 fragment it reassembled"), r["why"]
		        assert re.fullmatch(r"SNAT fd64::1 id (\d+) <- fd09::5 id \1 \(window \d+\)", r["nodes"][1]["transforms"])
		    else:
		        later += 1
		        assert r["why"].startswith("not traceable past nat (a later IPv6 fragment through its NAT"), r["why"]
		assert first == 2 and later == 2, (first, later)
		EOF
	}
	capture w frag6 ip6 src fd64::1 && nx a ping -6 -q -c 2 -i 0.3 -s 2000 fd02::2 >/dev/null; stop frag6
	check "IPv6 fragments through nat, which reassembles and cuts them again: each not traceable past nat (said so: reassembled there, or a later fragment through its NAT), exit 1" frag6
fi

# Sections 6 and 7 drive the same kernel paths as 1-3 (records in their
# windows) and the transfer commands transfer_test runs under the
# checkers: the debug kernel's tier goes on at section 8.
if [ "${KBLOOM_TIER:-}" != vm-debug ]; then
# 6. One public port, two flows at different times: the window decides.
# udp NS SRC SPORT TEXT: one datagram to v:7777 (no reply is awaited)
udp() {
	nx "$1" "${py[@]}" -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((sys.argv[1], int(sys.argv[2])))
s.sendto(sys.argv[3].encode(), ("10.2.0.2", 7777))' "$2" "$3" "$4"
}
capture v port && udp a 10.9.0.5 4100 one && sleep 5 &&
	nx nat conntrack -F >/dev/null 2>&1 && udp b 10.7.0.5 4100 two; stop port
check "the public port 100.64.0.1:4100 served a, then (5 s and two windows later) b" sh -c "
	tcpdump -nr $tmp/port.pcap udp 2>/dev/null | tee /dev/stderr | grep -c '100.64.0.1.4100 > 10.2.0.2.7777' | grep -qx 2"
check "the first datagram traces to a's flow (SNAT ... <- 10.9.0.5:4100), the second to b's (<- 10.7.0.5:4100), each only to its own" \
	"${py[@]}" -c '
import json, re, subprocess, sys
out = subprocess.run(sys.argv[1:], capture_output=True, text=True).stdout
res = [r for r in json.loads(out) if "UDP" in r["description"]]
print([ [n["transforms"] for n in r["nodes"] if n["router"] == "nat"] for r in res])
assert len(res) == 2
for r, who in zip(res, ["10.9.0.5", "10.7.0.5"]):
    nat = [n for n in r["nodes"] if n["router"] == "nat"][0]["transforms"]
    assert re.fullmatch(r"SNAT 100\.64\.0\.1:4100 <- %s:4100 \(window \d+\)" % re.escape(who), nat), nat
    assert r["ingress"] == ["r2"], r["ingress"]
' $bc -j trace "$tmp/topo.txt" from r1 pcap "$tmp/port.pcap"
check "query since -1h on the table lists both records of 100.64.0.1:4100 for each datagram, in different windows" sh -c "
	$bc -n ${P}nat query xlate pcap $tmp/port.pcap since -1h | tee /dev/stderr | grep 'UDP 100.64.0.1:4100' |
	grep 'SNAT 100.64.0.1:4100 <- 10.9.0.5:4100 (window [0-9]*), before: UDP 10.9.0.5:4100 > 10.2.0.2:7777' |
	grep -c 'SNAT 100.64.0.1:4100 <- 10.7.0.5:4100 (window [0-9]*), before: UDP 10.7.0.5:4100 > 10.2.0.2:7777' | grep -qx 2"

check "query on the table, each datagram within 2 s of its capture time: a's finds only a's record, b's only b's" sh -c "
	$bc -n ${P}nat query xlate pcap $tmp/port.pcap >$tmp/port.q; cat $tmp/port.q
	grep 'UDP 100.64.0.1:4100' $tmp/port.q | sed -n 1p | grep -x '.*: SNAT 100.64.0.1:4100 <- 10.9.0.5:4100 (window [0-9]*), before: UDP 10.9.0.5:4100 > 10.2.0.2:7777, digest [0-9a-fx]*' &&
	grep 'UDP 100.64.0.1:4100' $tmp/port.q | sed -n 2p | grep -x '.*: SNAT 100.64.0.1:4100 <- 10.7.0.5:4100 (window [0-9]*), before: UDP 10.7.0.5:4100 > 10.2.0.2:7777, digest [0-9a-fx]*'"

# 7. Save, restore, a damaged file.
save_restore() {
	local r1=0 r2=0 win
	# a flow of its own, fresh: section 2's may have left the 2-minute
	# ring by now on a slow (debug, emulated) guest, or be in it twice
	capture v udp7 && for i in 1 2 3; do echo "hi $i"; done |
		nx a nc -u -w 1 -p 4001 10.2.0.2 7777
	stop udp7
	$bc -n ${P}nat query xlate pcap "$tmp/udp7.pcap" >"$tmp/q1" || r1=$?
	# the window holding the record
	win=$(sed -n 's/.*(window \([0-9]*\)).*/\1/p' "$tmp/q1" | head -1)
	$bc -n ${P}nat save xlate "$tmp/xlate.kbf" window "$win" &&
		$bc -n ${P}nat restore "$tmp/xlate.kbf" as xlate2 || return 1
	$bc -n ${P}nat query xlate2 pcap "$tmp/udp7.pcap" >"$tmp/q2" || r2=$?
	cat "$tmp/q1" "$tmp/q2"
	echo "exit $r1 and $r2"
	[ $r1 = 0 ] && [ $r2 = 0 ] &&
		grep -q 'SNAT 100.64.0.1:4001 <- 10.9.0.5:4001' "$tmp/q2" &&
		diff <(sed 's/(window [0-9]*)//' "$tmp/q1") <(sed 's/(window [0-9]*)//' "$tmp/q2")
}
damaged() {
	local out rc
	cp "$tmp/xlate.kbf" "$tmp/bad.kbf" &&
		printf '\xff' | dd of="$tmp/bad.kbf" bs=1 seek=200 conv=notrunc 2>/dev/null
	out=$($bc -n ${P}nat restore "$tmp/bad.kbf" as xlate3 2>&1)
	rc=$?
	echo "exit $rc: $out"
	[ $rc = 2 ] && ! $bc -n ${P}nat show xlate3 >/dev/null 2>&1
}
check "save and restore (the window of the UDP flow): the restored table answers query as the original" save_restore
check "a damaged save file is refused (exit 2) and nothing is created" damaged
fi

# 8. Capacity: more flows than records.
capacity() {
	local got cells fill recorded full
	# capacity 10: the smallest table, 64 cells (KBLOOM_BITS_MIN)
	$bc -n ${P}nat create tiny transforms capacity 10 &&
		$bc -n ${P}nat attach tiny hook postrouting || return 1
	nx a "${py[@]}" -c '
import socket
for p in range(5000, 5100):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("10.9.0.5", p))
    s.sendto(b"x", ("10.2.0.2", 7777))
    s.close()' || return 1
	sleep 1
	got=$(show nat tiny bits fill attach.digested attach.skipped_by_reason.full)
	echo "cells, records, packets recorded, packets full: $got"
	$bc -n ${P}nat destroy tiny
	read -r cells fill recorded full <<<"$got"
	# (other NAT'ed packets may pass meanwhile: at least 100 in all). A
	# record may only take one of the 8 lines from its home, so a slot
	# or two can stay free while a flow whose lines are all taken is
	# counted full (once: 62 recorded, 38 full).
	[ "$cells" = 64 ] && [ "$fill" -ge 56 ] && [ "$recorded" = "$fill" ] &&
		[ $((fill + full)) -ge 100 ] && [ "$full" -ge 36 ]
}
check "a table of 64 records and 100 new flows: nearly full, every record counted, the rest counted full, none lost silently" capacity

# 13. Stateless rewrites at r1, no conntrack entry there: nftables'
# payload rewrites, and NPTv6 (RFC 6296) with ip6tables' SNPT and DNPT:
#   a fd09::5 - r2 - nat (masquerade) - r1 - w fd02::2, v 10.2.0.2
# r1's transforms table sees each packet as it arrived and as it left.
# Its forward digest holds a packet rewritten at postrouting as it was
# before, one rewritten at prerouting as it is after: only the record
# lets the trace ask it, and the routers before it, about the other form.
stateless_setup() {
	# (r1 had no IPv6 route past nat: nat masqueraded all it sent on)
	ip -n ${P}r1 -6 route add default via fd64::1 || return 1
	$bc -n ${P}r1 create xlate transforms capacity 1000 windows 60 interval 2s &&
		$bc -n ${P}r1 attach xlate hook postrouting || return 1
	sed 's/^router r1 netns \([^ ]*\) filter spie$/& transforms xlate/' \
		"$tmp/topo.txt" >"$tmp/topo-npt.txt"
	grep -q '^router r1 .* transforms xlate$' "$tmp/topo-npt.txt" &&
		nx w ping -6 -q -c 1 -W 5 fd09::5 >/dev/null
}
check "r1: a route past nat for w, a transforms table at its postrouting; w reaches a" stateless_setup
traced_npt() { topo=$tmp/topo-npt.txt traced_through "$@"; }
# nftables' 'ip daddr set' (r1 sends what comes for 10.2.0.99 to v),
# the IPv4 header and UDP checksums updated: not neutral.
nx r1 nft -f - <<-'EOF'
table ip stateless {
	chain pre {
		type filter hook prerouting priority mangle;
		ip daddr 10.2.0.99 ip daddr set 10.2.0.2
	}
}
EOF
capture v st_udp udp and dst port 7777 && for i in 1 2; do echo "s $i"; done |
	nx a nc -u -w 1 -p 4400 10.2.0.99 7777; stop st_udp
check "nftables' stateless 'ip daddr set' at r1: a's datagrams to 10.2.0.99, captured at v, traced from r1 (stateless DNAT 10.2.0.2:7777 <- 10.2.0.99:7777) through nat (SNAT 100.64.0.1:4400 <- 10.9.0.5:4400) to r2" \
	traced_npt st_udp r1 r2 UDP \
	'r1=stateless DNAT 10\.2\.0\.2:7777 <- 10\.2\.0\.99:7777 \(window \d+\)' \
	'nat=SNAT 100\.64\.0\.1:4400 <- 10\.9\.0\.5:4400 \(window \d+\)'
# nftables' 'ip6 saddr set' on w's datagrams out of eth0 (postrouting):
# the UDP checksum updated over the pseudo-header.
nx r1 nft -f - <<-'EOF'
table ip6 stateless {
	chain post {
		type filter hook postrouting priority mangle;
		oifname "eth0" ip6 saddr fd02::2 ip6 saddr set 2001:db8:9::2
	}
}
EOF
capture a st_udp6 ip6 src 2001:db8:9::2 and udp && for i in 1 2; do echo "t $i"; done |
	nx w nc -6 -u -w 1 -p 4500 fd09::5 7777; stop st_udp6
nx r1 nft delete table ip6 stateless
check "nftables' stateless 'ip6 saddr set' at r1: w's datagrams, captured at a, traced from r2 to r1 (stateless SNAT [2001:db8:9::2]:4500 <- [fd02::2]:4500)" \
	traced_npt st_udp6 r2 r1 UDP \
	'r1=stateless SNAT \[2001:db8:9::2\]:4500 <- \[fd02::2\]:4500 \(window \d+\)'
if [ "${KBLOOM_TIER:-}" = vm-debug ]; then
	echo "# vm-debug: NPTv6 (ip6tables' SNPT and DNPT, not in the debug kernel) runs in vm and vm-6.12"
else
	# NPTv6: fd02::/64 <-> 2001:db8:2::/64 on r1's eth0 (toward nat).
	npt() {
		nx r1 ip6tables -t mangle -A POSTROUTING -o eth0 -s fd02::/64 \
			-j SNPT --src-pfx fd02::/64 --dst-pfx 2001:db8:2::/64 &&
			nx r1 ip6tables -t mangle -A PREROUTING -i eth0 -d 2001:db8:2::/64 \
				-j DNPT --src-pfx 2001:db8:2::/64 --dst-pfx fd02::/64 &&
			nx w ping -6 -q -c 1 -W 5 fd09::5 >/dev/null
	}
	check "NPTv6 at r1 (SNPT fd02::/64 -> 2001:db8:2::/64 out of eth0, DNPT back); w reaches a" npt
	npt6='2001:db8:2:0:[0-9a-f]{1,4}::2'
	capture a npt_echo ip6 src net 2001:db8:2::/64 and icmp6 &&
		nx w ping -6 -q -c 3 -i 0.3 fd09::5 >/dev/null; stop npt_echo
	check "NPTv6, ICMPv6 echo: each of w's requests, captured at a, traced from r2 to r1 (stateless SNAT $npt6 id N <- fd02::2 id N)" \
		traced_npt npt_echo r2 r1 'echo request' \
		"r1=stateless SNAT $npt6 id (\d+) <- fd02::2 id \1 \(window \d+\)"
	capture a npt_udp ip6 src net 2001:db8:2::/64 and udp && for i in 1 2 3; do echo "n $i"; done |
		nx w nc -6 -u -w 1 -p 4300 fd09::5 7777; stop npt_udp
	check "NPTv6, UDP (its checksum as the sender wrote it: the mapping is checksum-neutral): each datagram traced from r2 to r1" \
		traced_npt npt_udp r2 r1 UDP \
		"r1=stateless SNAT \[$npt6\]:4300 <- \[fd02::2\]:4300 \(window \d+\)"
	# w's translated address, as a saw it.
	w_pub=$(tcpdump -nr "$tmp/npt_echo.pcap" 2>/dev/null | sed -n '1s/.* \(2001:db8:2:[0-9a-f:]*\) > .*/\1/p')
	echo "# w's address past r1: ${w_pub:-none}"
	capture w npt_back ip6 dst fd02::2 and icmp6 &&
		nx a ping -6 -q -c 3 -i 0.3 "${w_pub:-2001:db8:2::2}" >/dev/null; stop npt_back
	check "NPTv6 and a NAT in a row: a's requests to w's translated address, captured at w, traced from r1 (stateless DNAT fd02::2 <- $npt6) through nat (SNAT fd64::1 id N <- fd09::5 id N) to r2" \
		traced_npt npt_back r1 r2 'echo request' \
		"r1=stateless DNAT fd02::2 <- $npt6 \(window \d+\)" \
		'nat=SNAT fd64::1 id (\d+) <- fd09::5 id \1 \(window \d+\)'
fi
stateless_records() {
	local recorded full
	read -r recorded full <<<"$(show r1 xlate attach.digested attach.skipped_by_reason.full)"
	echo "packets recorded: $recorded, packets full: $full"
	[ "$recorded" -gt 0 ] && [ "$full" = 0 ]
}
check "r1's table: records made, no packet lost to a full table" stateless_records

# The debug kernel's tier stops here: sections 9 to 12 drive bloomctl's
# walk over records the kernel made as above (archives, fragments cut
# before one or two NATs, ICMP errors), which vm and vm-6.12 run; here they would only
# lengthen make check's longest tier.
if [ "${KBLOOM_TIER:-}" = vm-debug ]; then
	echo "# vm-debug: sections 9-12 (the walk over the same kernel paths) run in vm and vm-6.12"
	check "the kernel log holds no warning" sh -c "dmesg | tail -n +$((dmesg_mark + 1)) | grep -E 'WARNING|BUG|Oops' && exit 1 || exit 0"
	finish
	exit
fi

# 9. Archives: the trace reads nat's windows offline.
archived() {
	local r
	capture v echo2 && nx a ping -q -c 3 -i 0.3 10.2.0.2 >/dev/null
	stop echo2
	sleep 2.5	# the window closes
	for r in $routers; do
		mkdir -p "$tmp/arch-$r" &&
			$bc -n $P$r archive spie "$tmp/arch-$r" once >/dev/null || return 1
	done
	$bc -n ${P}nat archive xlate "$tmp/arch-nat" once >/dev/null || return 1
	printf '%s\n' 'router r1 archive arch-r1 filter spie' \
		'router nat archive arch-nat filter spie transforms xlate' \
		'router r2 archive arch-r2 filter spie' 'link r1 nat' 'link nat r2' \
		>"$tmp/topo-arch.txt"
	$bc trace "$tmp/topo-arch.txt" from r1 pcap "$tmp/echo2.pcap" | tee "$tmp/arch.out"
	[ "$(grep -c '^ *SNAT 100.64.0.1 id [0-9]* <- 10.9.0.5 id [0-9]* (window [0-9]*)$' "$tmp/arch.out")" = 3 ] &&
		[ "$(grep -c '^ingress: r2$' "$tmp/arch.out")" = 3 ] &&
		grep -qx '3 packets: 3 traced, 0 not; 3 steps, 3 questions' "$tmp/arch.out"
}
check "archived windows (bloomctl archive ... once) trace the echo requests through nat as the live tables do" archived

# A transforms table named as a router's filter holds no digests: that
# router cannot be asked (unknown, naming why; the trace is partial, exit
# 1), rather than asked and answering "absent".
xlate_as_filter() {
	local rc=0
	printf '%s\n' 'router r1 archive arch-r1 filter spie' \
		'router nat archive arch-nat filter xlate' 'link r1 nat' \
		>"$tmp/topo-bad.txt"
	$bc trace "$tmp/topo-bad.txt" from r1 pcap "$tmp/echo2.pcap" \
		>"$tmp/bad.out" 2>&1 || rc=$?
	cat "$tmp/bad.out"
	[ $rc = 1 ] && [ "$(grep -c "^unknown next to the path: nat (router nat (archive .*arch-nat): filter 'xlate' is a transforms table: name it with 'transforms xlate'" "$tmp/bad.out")" = 3 ] &&
		[ "$(tail -n 1 "$tmp/bad.out")" = 'partial: 1 router could not be asked' ]
}
check "an archived transforms table named as a router's filter: that router unknown with the reason, not answering absent" xlate_as_filter

# 10. Fragmented before the NAT: a cuts its datagrams for a 576-byte
# link, r2 forwards the fragments as they are (no conntrack there), nat
# reassembles them (conntrack), SNATs and cuts them again. A later
# fragment has no ports, so no record of its own: the trace takes its
# datagram's, found by the head (the first fragment, or the head rebuilt
# from the capture), and r2 is asked about the fragment as it was there.
# The other way: v cuts for its 576-byte link, nat DNATs (port forward).
frag_before() {
	local rc=0
	nx a ip link set eth0 mtu 576 &&
		ip -n ${P}r2 link set eth0 mtu 576 || return 1
	capture v fsnat && nx a ping -q -c 2 -i 0.3 -s 1400 -M dont 10.2.0.2 >/dev/null
	nx a "${py[@]}" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.9.0.5", 4200))
s.sendto(b"u" * 1300, ("10.2.0.2", 7777))' || rc=1
	stop fsnat
	capture a fdnat && nx v "${py[@]}" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.2.0.2", 998))
s.sendto(b"d" * 1300, ("100.64.0.1", 8053))' || rc=1
	stop fdnat
	nx a ip link set eth0 mtu 1500
	ip -n ${P}r2 link set eth0 mtu 1500
	later=$("${py[@]}" tests/vm/pcaptool.py count "$tmp/fsnat.pcap" later)
	back=$("${py[@]}" tests/vm/pcaptool.py count "$tmp/fdnat.pcap" later)
	echo "later fragments at v: $later, at a: $back"
	[ $rc = 0 ] && [ "$later" = 6 ] && [ "$back" = 2 ]
}
check "fragmented before nat: a's pings and a UDP datagram reach v in 3 fragments each, v's datagram reaches a in 3" \
	frag_before
check "each fragment of the pings, the later ones too, traced from r1 through nat (SNAT ... <- 10.9.0.5 id N) to r2" \
	traced fsnat r1 r2 'SNAT 100\.64\.0\.1 id (\d+) <- 10\.9\.0\.5 id \1 \(window \d+\)' ICMP
check "each fragment of the UDP datagram traced through nat (SNAT 100.64.0.1:4200 <- 10.9.0.5:4200) to r2" \
	traced fsnat r1 r2 'SNAT 100\.64\.0\.1:4200 <- 10\.9\.0\.5:4200 \(window \d+\)' UDP
check "the port-forwarded datagram's fragments traced from r2 through nat (DNAT 10.9.0.5:53 <- 100.64.0.1:8053) to r1" \
	traced fdnat r2 r1 'DNAT 10\.9\.0\.5:53 <- 100\.64\.0\.1:8053 \(window \d+\)' UDP
# The capture reversed: later fragments before their first one.
reverse_pcap() {
	"${py[@]}" - "$tmp/$1.pcap" "$tmp/$2.pcap" <<-'EOF'
	import struct, sys
	b = open(sys.argv[1], "rb").read()
	recs, off = [], 24
	while off + 16 <= len(b):
	    n = struct.unpack_from("<I", b, off + 8)[0]
	    recs.append(b[off:off + 16 + n])
	    off += 16 + n
	open(sys.argv[2], "wb").write(b[:24] + b"".join(reversed(recs)))
	print("%d packets reversed" % len(recs))
	EOF
}
reversed_traced() {
	reverse_pcap fsnat fsrev &&
		traced fsrev r1 r2 'SNAT 100\.64\.0\.1 id (\d+) <- 10\.9\.0\.5 id \1 \(window \d+\)' ICMP
}
check "the same capture in reverse order (later fragments first): each fragment still traced through nat to r2" \
	reversed_traced

# Without the first fragments (lost before the capture, say): a later
# fragment has no head to find nat's record by, and nat's NAT may have
# rewritten it (records with its addresses). Not traceable past nat, said
# so, exit 1: never "traced" with an ingress at r1 or nat.
no_heads() {
	local rc=0
	"${py[@]}" - "$tmp/fsnat.pcap" "$tmp/fsnohead.pcap" <<-'EOF'
	import struct, sys
	b = open(sys.argv[1], "rb").read()
	out, off, n = [b[:24]], 24, 0
	while off + 16 <= len(b):
	    cap = struct.unpack_from("<I", b, off + 8)[0]
	    rec = b[off:off + 16 + cap]
	    ip = rec[16 + 14:]
	    if len(ip) >= 20 and ip[0] >> 4 == 4 and struct.unpack("!H", ip[6:8])[0] & 0x1fff:
	        out.append(rec)
	        n += 1
	    off += 16 + cap
	open(sys.argv[2], "wb").write(b"".join(out))
	print("%d later fragments kept" % n)
	EOF
	$bc -j trace "$tmp/topo.txt" from r1 pcap "$tmp/fsnohead.pcap" \
		>"$tmp/fsnohead.json" || rc=$?
	"${py[@]}" - "$tmp/fsnohead.json" <<-'EOF'
	import json, sys
	res = json.load(open(sys.argv[1]))
	res = res if isinstance(res, list) else [res]
	for r in res:
	    print(r["packet"], r["description"], r["status"], r.get("why"))
	    assert r["status"] == "not traceable" and not r["traceable"], r["status"]
	    assert "not traceable past nat (a later fragment through its NAT" in r["why"], r.get("why")
	assert len(res) == 6, len(res)
	EOF
	[ $? = 0 ] && echo "exit $rc" && [ $rc = 1 ]
}
check "later fragments without their first ones: each not traceable past nat (its NAT, no record to go by), exit 1" \
	no_heads

# 11. Fragmented before two NATs, a router between them. c's home router
# masquerades (a second transforms table) on a 576-byte uplink to r2:
#
#   c 10.5.0.5 ── home ── 10.6.0.0/24 ── r2 ── nat ── r1 ── v
#     (c-home and home-r2: MTU 576; home: masquerade out of its uplink,
#      SNAT to 10.6.0.2, a transforms table 'xlate' at its postrouting)
#
# c cuts its datagrams; home reassembles (conntrack), SNATs and cuts them
# again; r2 forwards the fragments; nat reassembles, SNATs, sends them
# whole; r1 cuts them for v. Every fragment v holds must trace through
# both NATs, each naming its own record, to home.
two_nats_build() {
	local n
	for n in c home; do
		ip netns add $P$n && ip -n $P$n link set lo up || return 1
	done
	veth c eth0 home eth0 && veth home eth1 r2 eth3 || return 1
	ip -n ${P}c addr add 10.5.0.5/24 dev eth0
	ip -n ${P}home addr add 10.5.0.1/24 dev eth0
	ip -n ${P}home addr add 10.6.0.2/24 dev eth1
	ip -n ${P}r2 addr add 10.6.0.1/24 dev eth3
	ip -n ${P}c link set eth0 mtu 576 && ip -n ${P}home link set eth0 mtu 576 &&
		ip -n ${P}home link set eth1 mtu 576 && ip -n ${P}r2 link set eth3 mtu 576 || return 1
	ip -n ${P}c route add default via 10.5.0.1
	ip -n ${P}home route add default via 10.6.0.1
	ip -n ${P}nat route add 10.6.0.0/24 via 10.8.0.2
	nx home sysctl -qw net.ipv4.ip_forward=1 || return 1
	nx home nft -f - <<-'EOF' || return 1
	table ip nat {
		chain post {
			type nat hook postrouting priority srcnat;
			oifname "eth1" masquerade
		}
	}
	EOF
	$bc -n ${P}home create spie bloom capacity 20000 fpr 0.000001 windows 60 interval 2s &&
		$bc -n ${P}home attach spie hook forward digest spie &&
		$bc -n ${P}home create xlate transforms capacity 10000 windows 60 interval 2s &&
		$bc -n ${P}home attach xlate hook postrouting || return 1
	cat "$tmp/topo.txt" - >"$tmp/topo2.txt" <<-EOF
	router home netns ${P}home filter spie transforms xlate
	link r2 home
	EOF
	capture v twonat && nx c ping -q -c 2 -i 0.3 -s 1400 -M dont 10.2.0.2 >/dev/null
	nx c "${py[@]}" -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.5.0.5", 4300))
s.sendto(b"u" * 1300, ("10.2.0.2", 7777))' || return 1
	stop twonat
	later=$("${py[@]}" tests/vm/pcaptool.py count "$tmp/twonat.pcap" later)
	echo "later fragments at v: $later"
	[ "$later" = 6 ]
}
check "two NATs: c's pings and a UDP datagram, cut before home, reach v in 3 fragments each" two_nats_build

# traced2 NAME PROTO N HOME-REGEX NAT-REGEX: the N IP packets of
# $tmp/NAME.pcap of protocol PROTO each traced from r1 to home, home's and
# nat's nodes naming their transforms exactly, no other node a transform.
traced2() {
	local rc=0
	$bc -j trace "$tmp/topo2.txt" from r1 pcap "$tmp/$1.pcap" \
		>"$tmp/$1.json" 2>"$tmp/$1.trace.err" || rc=$?
	cat "$tmp/$1.trace.err"
	[ $rc -le 1 ] || return 1
	"${py[@]}" - "$tmp/$1.json" "$2" "$3" "$4" "$5" <<-'EOF'
	import json, re, sys
	res = json.load(open(sys.argv[1]))
	res = res if isinstance(res, list) else [res]
	proto, count = sys.argv[2], int(sys.argv[3])
	want = {"home": sys.argv[4], "nat": sys.argv[5]}
	n = 0
	for r in res:
	    if not re.search(proto, r["description"]):
	        continue
	    n += 1
	    assert r["status"] == "traced", (r["packet"], r["description"], r["status"], r.get("why"))
	    assert r["ingress"] == ["home"], (r["packet"], r["description"], r["ingress"])
	    for x in r["nodes"]:
	        w = want.get(x["router"])
	        if w is None:
	            assert x["transforms"] is None, (r["packet"], x)
	        else:
	            assert x["transforms"] is not None and re.fullmatch(w, x["transforms"]), \
	                (r["packet"], r["description"], x["router"], x["transforms"], w)
	    assert {x["router"] for x in r["nodes"]} >= {"home", "nat"}, (r["packet"], r["nodes"])
	print("%d packets traced to home through both NATs" % n)
	assert n == count, (n, count)
	EOF
}
check "each fragment of the pings traced from r1 through nat (SNAT 100.64.0.1 <- 10.6.0.2) and home (SNAT 10.6.0.2 <- 10.5.0.5) to home" \
	traced2 twonat ICMP 6 'SNAT 10\.6\.0\.2 id (\d+) <- 10\.5\.0\.5 id \1 \(window \d+\)' \
	'SNAT 100\.64\.0\.1 id (\d+) <- 10\.6\.0\.2 id \1 \(window \d+\)'
check "each fragment of the UDP datagram traced through nat (:4300 <- 10.6.0.2:4300) and home (<- 10.5.0.5:4300) to home" \
	traced2 twonat UDP 3 'SNAT 10\.6\.0\.2:4300 <- 10\.5\.0\.5:4300 \(window \d+\)' \
	'SNAT 100\.64\.0\.1:4300 <- 10\.6\.0\.2:4300 \(window \d+\)'
reversed2() { reverse_pcap twonat tworev && traced2 tworev ICMP 6 'SNAT 10\.6\.0\.2 id (\d+) <- 10\.5\.0\.5 id \1 \(window \d+\)' \
	'SNAT 100\.64\.0\.1 id (\d+) <- 10\.6\.0\.2 id \1 \(window \d+\)'; }
check "the two-NAT capture in reverse order: each ping fragment still traced through both NATs to home" reversed2

# 12. ICMP errors about a NAT'ed flow. nat rewrites the header they quote
# and the outer addresses (conntrack relates them to the flow), and the
# flow's record undoes that: from outside, v's port unreachable for a's
# masqueraded datagram (its outer destination and quoted source
# un-SNAT'ed: exact); from inside, a's port unreachable for v's datagram
# to a port forward with no server (its outer source and quoted
# destination SNAT'ed: the source before nat is no record's, put back as
# the flow's other end, a, its likeliest sender). An error from a router
# inside about that flow left nat with the same source: put back as a,
# which no digest holds, it is not traceable past nat, said so, exit 1,
# never "absent" at nat nor traced to a wrong ingress.
nx v sysctl -qw net.ipv4.icmp_ratelimit=0 && nx a sysctl -qw net.ipv4.icmp_ratelimit=0 &&
	nx r2 sysctl -qw net.ipv4.icmp_ratelimit=0
# One datagram per nc: after a port unreachable its socket is refused.
capture a icmperr icmp && for i in 1 2; do
	echo "x $i" | nx a nc -u -w 1 -p 4100 10.2.0.2 7999; done; stop icmperr
check "v's port unreachables for a's masqueraded datagrams, captured at a: each traced from r2 through nat (ICMP error about SNAT 100.64.0.1:P <- 10.9.0.5:4100) to r1" \
	traced icmperr r2 r1 'ICMP error about SNAT 100\.64\.0\.1:\d+ <- 10\.9\.0\.5:4100 \(window \d+\)'
capture v icmperr2 icmp && for i in 1 2; do
	echo "y $i" | nx v nc -u -w 1 -p 999 100.64.0.1 8053; done; stop icmperr2
check "a's port unreachables for v's datagrams to a port forward, captured at v: each traced from r1 through nat (ICMP error about DNAT 10.9.0.5:53 <- 100.64.0.1:8053, its sender guessed) to r2" \
	traced icmperr2 r1 r2 'ICMP error about DNAT 10\.9\.0\.5:53 <- 100\.64\.0\.1:8053, its sender guessed \(window \d+\)'
query_undone() {
	local out rc=0
	out=$($bc -n ${P}nat query xlate pcap "$tmp/icmperr.pcap") || rc=$?
	echo "exit $rc: $out"
	[ $rc = 0 ] && [ "$(grep -cE ': ICMP error about SNAT 100\.64\.0\.1:[0-9]+ <- 10\.9\.0\.5:4100 \(window [0-9]+\), before: ICMP 10\.2\.0\.2 > 100\.64\.0\.1 ' <<<"$out")" = 2 ] &&
		[ "$(tail -1 <<<"$out")" = "2 packets: 2 transformed, 0 not" ]
}
check "query xlate pcap: each of v's errors as it reached nat ('ICMP error about SNAT ...', before: ICMP 10.2.0.2 > 100.64.0.1 ...)" query_undone
# v's datagrams to the port forward with a TTL of 3: r2 (inside)
# answers time exceeded from 10.8.0.2, which nat sets to 100.64.0.1.
capture v icmpttl icmp && nx v "${py[@]}" -c '
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, 3)
s.bind(("10.2.0.2", 998))
for i in range(2):
    s.sendto(b"t %d" % i, ("100.64.0.1", 8053))
    time.sleep(0.3)'; stop icmpttl
check "r2's time exceededs for v's datagrams to a port forward (nat set their source, 10.8.0.2, to 100.64.0.1), captured at v: not traceable past nat (which set the error's source: no digest holds it as sent by a), exit 1" \
	icmp_blind icmpttl r1 "an ICMP error about a flow its NAT rewrote, which set the error's source to the flow's end: no digest holds it as sent by the flow's other end" "time exceeded"

check "the kernel log holds no warning" sh -c "dmesg | tail -n +$((dmesg_mark + 1)) | grep -E 'WARNING|BUG|Oops' && exit 1 || exit 0"
finish
