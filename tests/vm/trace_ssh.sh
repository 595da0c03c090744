#!/bin/bash
# bloomctl trace across machines: a router reached over real OpenSSH, in
# the test VM.
#
#   root netns: bloomctl trace (ssh client)
#     kbt-ssh0 10.99.0.1 ----veth---- kbt-ssh1 10.99.0.2  netns kbt-remote
#                                                          sshd -D (key login)
#
#   kbt-v (victim)   kbt-r1            kbt-r2              kbt-r3          kbt-a
#   10.31.1.2 ------ .1 | 10.31.2.1 -- .2 | 10.31.3.1 ---- .2 | 10.31.4.1 -- 10.31.4.2
#   tcpdump -Q in    spie filter       spie filter         spie filter     sends UDP
#                    (netns)           (ssh: 'bloomctl      (netns)        to the victim
#                                       -n kbt-r2' run
#                                       by sshd)
#
# Every router records spie digests at prerouting into a time-paged
# filter. r2 is declared in the topology as an ssh router: its tables are
# read by running bloomctl on the "remote" side through sshd (a wrapper
# script as its 'bloomctl PATH' logs each run; $KBLOOM_SSH, a wrapper
# around ssh, logs each ssh invocation). The trace must find r1 <- r2 <-
# r3 with ingress r3, and use exactly one ssh invocation per step that
# asked r2 (KBLOOM_TRACE_STATS prints the walk's questions per router),
# however many packets are traced at once.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=$PWD/userspace/bloomctl
tmp=$(mktemp -d)
NS=(kbt-remote kbt-v kbt-r1 kbt-r2 kbt-r3 kbt-a)
cleanup() {
	[ -f "$tmp/sshd.pid" ] && kill "$(cat "$tmp/sshd.pid")" 2>/dev/null
	for n in "${NS[@]}"; do ip netns del "$n" 2>/dev/null; done
	ip link del kbt-ssh0 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
# expect RC OUTPUT-PATTERN command...: exit status and combined output.
expect() {
	local want=$1 pat=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	echo "exit $rc: $out" | head -20
	[ $rc -eq "$want" ] && [[ $out == $pat ]]
}

veth() {	# veth NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B
	ip link add "$2" netns "$1" type veth peer name "$5" netns "$4" &&
	ip -n "$1" addr add "$3/24" dev "$2" &&
	ip -n "$4" addr add "$6/24" dev "$5" || return 1
	ip netns exec "$1" ethtool -K "$2" tx off rx off tso off gso off gro off >/dev/null 2>&1
	ip netns exec "$4" ethtool -K "$5" tx off rx off tso off gso off gro off >/dev/null 2>&1
	ip -n "$1" link set "$2" up && ip -n "$4" link set "$5" up
}

routers() {
	local n
	for n in "${NS[@]}"; do
		ip netns add "$n" || return 1
		ip -n "$n" link set lo up
		ip netns exec "$n" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
			net.ipv4.conf.default.rp_filter=0 \
			net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1 || return 1
	done
	for n in kbt-r1 kbt-r2 kbt-r3; do
		ip netns exec $n sysctl -qw net.ipv4.ip_forward=1 || return 1
	done
	veth kbt-v v-r1 10.31.1.2 kbt-r1 r1-v 10.31.1.1 &&
	veth kbt-r1 r1-r2 10.31.2.1 kbt-r2 r2-r1 10.31.2.2 &&
	veth kbt-r2 r2-r3 10.31.3.1 kbt-r3 r3-r2 10.31.3.2 &&
	veth kbt-r3 r3-a 10.31.4.1 kbt-a a-r3 10.31.4.2 || return 1
	for n in kbt-v kbt-r1 kbt-r2 kbt-r3 kbt-a; do
		ip netns exec $n sh -c 'for f in /proc/sys/net/ipv4/conf/*/rp_filter; do echo 0 > $f; done'
	done
	ip -n kbt-v route add default via 10.31.1.1 &&
	ip -n kbt-r1 route add 10.31.3.0/24 via 10.31.2.2 &&
	ip -n kbt-r1 route add 10.31.4.0/24 via 10.31.2.2 &&
	ip -n kbt-r2 route add 10.31.1.0/24 via 10.31.2.1 &&
	ip -n kbt-r2 route add 10.31.4.0/24 via 10.31.3.2 &&
	ip -n kbt-r3 route add default via 10.31.3.1 &&
	ip -n kbt-a route add default via 10.31.4.1 &&
	ip netns exec kbt-a ping -q -c 1 -W 5 10.31.1.2
}
check "topology: victim - r1 - r2 - r3 - attacker, in namespaces" routers

sshd_up() {
	ip link add kbt-ssh0 type veth peer name kbt-ssh1 netns kbt-remote &&
	ip addr add 10.99.0.1/24 dev kbt-ssh0 &&
	ip -n kbt-remote addr add 10.99.0.2/24 dev kbt-ssh1 &&
	ip link set kbt-ssh0 up && ip -n kbt-remote link set kbt-ssh1 up ||
		return 1
	ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" -C kbt-host &&
	ssh-keygen -q -t ed25519 -N '' -f "$tmp/id" -C kbt-client &&
	cp "$tmp/id.pub" "$tmp/authorized_keys" || return 1
	mkdir -p /run/sshd && chmod 755 /run/sshd
	cat >"$tmp/sshd_config" <<-EOF
	ListenAddress 10.99.0.2
	Port 22
	HostKey $tmp/hostkey
	AuthorizedKeysFile $tmp/authorized_keys
	StrictModes no
	PermitRootLogin prohibit-password
	PubkeyAuthentication yes
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	UsePAM no
	PidFile $tmp/sshd.pid
	LogLevel VERBOSE
	EOF
	# The client: the host key must match (no trust on first use).
	echo "10.99.0.2 $(cut -d' ' -f1,2 "$tmp/hostkey.pub")" >"$tmp/known_hosts"
	cat >"$tmp/ssh_config" <<-EOF
	Host *
	  UserKnownHostsFile $tmp/known_hosts
	  StrictHostKeyChecking yes
	  IdentitiesOnly yes
	  LogLevel ERROR
	EOF
	# Not holding check's output pipe open: it would wait for sshd.
	ip netns exec kbt-remote /usr/sbin/sshd -D -f "$tmp/sshd_config" \
		-E "$tmp/sshd.log" </dev/null >/dev/null 2>&1 &
	local i
	for i in $(seq 50); do
		ssh -F "$tmp/ssh_config" -i "$tmp/id" -o BatchMode=yes \
			-o ConnectTimeout=2 root@10.99.0.2 true 2>/dev/null && return 0
		sleep 0.2
	done
	cat "$tmp/sshd.log"
	return 1
}
check "sshd in netns kbt-remote, key-based root login over a veth" sshd_up

# Password and unknown keys are refused: it is the key that logs in.
check "ssh without the key is refused" \
	expect 255 "*ermission denied*" ssh -F "$tmp/ssh_config" -o BatchMode=yes \
		-o IdentityFile=/dev/null root@10.99.0.2 true

filters() {
	local n
	for n in kbt-r1 kbt-r2 kbt-r3; do
		$bc -n $n create spie bloom bits 65536 hashes 4 windows 32 interval 10s &&
		$bc -n $n attach spie hook prerouting digest spie || return 1
	done
}
check "spie filters attached at prerouting on r1, r2, r3" filters

# The remote side's bloomctl: logs every run, then runs the real one.
cat >"$tmp/remote-bloomctl" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/remote-calls"
exec "$bc" "\$@"
EOF
# The local ssh: logs every invocation.
cat >"$tmp/ssh-count" <<EOF
#!/bin/sh
echo "\$*" >>"$tmp/ssh-calls"
exec ssh "\$@"
EOF
chmod +x "$tmp/remote-bloomctl" "$tmp/ssh-count"
export KBLOOM_SSH=$tmp/ssh-count

cat >"$tmp/topo.txt" <<EOF
# r2 is remote: its tables are read over ssh, in its own netns there
router r1 netns kbt-r1 filter spie
router r2 ssh root@10.99.0.2 filter spie netns kbt-r2 identity id config ssh_config bloomctl $tmp/remote-bloomctl
router r3 netns kbt-r3 filter spie
link r1 r2
link r2 r3
EOF

send() {
	rm -f "$tmp/cap.pcap"
	ip netns exec kbt-v tcpdump -i v-r1 -Q in -nn --immediate-mode -U \
		-Z root -s 0 -w "$tmp/cap.pcap" 'udp and dst port 9999' \
		2>"$tmp/tcpdump.err" &
	local pid=$! i
	for i in $(seq 100); do
		grep -q 'listening on' "$tmp/tcpdump.err" && break
		sleep 0.1
	done
	ip netns exec kbt-a bash -c \
		'for i in 1 2 3 4 5; do echo "packet $i" >/dev/udp/10.31.1.2/9999; sleep 0.05; done'
	sleep 0.5
	kill -TERM $pid
	wait $pid
	[ "$(tcpdump -r "$tmp/cap.pcap" -nn 2>/dev/null | wc -l)" -eq 5 ]
}
check "attacker behind r3 sends 5 UDP packets, captured at the victim" send

calls() { [ -f "$1" ] && wc -l <"$1" || echo 0; }
# r2's questions in the walk's own count (KBLOOM_TRACE_STATS on stderr)
r2_questions() { sed -n 's/.*, r2 \([0-9]*\).*/\1/p' "$tmp/stats"; }

trace_one() {
	local s0 q
	rm -f "$tmp/ssh-calls" "$tmp/remote-calls"
	KBLOOM_TRACE_STATS=1 $bc trace "$tmp/topo.txt" from r1 \
		pcap "$tmp/cap.pcap" packet 3 >"$tmp/out" 2>"$tmp/stats"
	s0=$?
	cat "$tmp/out" "$tmp/stats"
	echo "ssh invocations: $(calls "$tmp/ssh-calls"); remote runs:"
	cat "$tmp/remote-calls"
	q=$(r2_questions)
	[ $s0 -eq 0 ] &&
	grep -Eq '^r1  window [0-9]+ \(.* to .*\), fpr ' "$tmp/out" &&
	grep -Eq '^`-- r2  window [0-9]+ ' "$tmp/out" &&
	grep -Eq '^    `-- r3  window [0-9]+ ' "$tmp/out" &&
	grep -q '^ingress: r3$' "$tmp/out" &&
	grep -q 'trace: 3 steps, 3 questions, r1 1, r2 1, r3 1' "$tmp/stats" &&
	[ "$q" = 1 ] && [ "$(calls "$tmp/ssh-calls")" -eq "$q" ] &&
	[ "$(grep -c ' query spie pcap -' "$tmp/remote-calls")" -eq "$q" ] &&
	grep -q -- '-j -n kbt-r2 query spie pcap -' "$tmp/remote-calls"
}
check "trace one packet: r1 <- r2 (ssh) <- r3, ingress r3, one ssh call for r2's one step" trace_one

trace_all_json() {
	local s0 q
	rm -f "$tmp/ssh-calls" "$tmp/remote-calls"
	KBLOOM_TRACE_STATS=1 $bc -j trace "$tmp/topo.txt" from r1 \
		pcap "$tmp/cap.pcap" >"$tmp/out.json" 2>"$tmp/stats"
	s0=$?
	cat "$tmp/stats"
	head -c 1500 "$tmp/out.json"; echo
	q=$(r2_questions)
	echo "ssh invocations: $(calls "$tmp/ssh-calls"), r2 questions: $q"
	[ $s0 -eq 0 ] && [ "$q" = 1 ] &&
	[ "$(calls "$tmp/ssh-calls")" -eq 1 ] &&
	python3 - "$tmp/out.json" <<-'EOF'
	import json, sys
	d = json.load(open(sys.argv[1]))
	assert isinstance(d, list) and len(d) == 5, d
	for p in d:
	    assert p["traceable"] is True and p["status"] == "traced", p
	    assert [n["router"] for n in p["nodes"]] == ["r1", "r2", "r3"], p
	    assert [n["depth"] for n in p["nodes"]] == [0, 1, 2], p
	    assert {(e["from"], e["to"]) for e in p["edges"]} == {("r2", "r1"), ("r3", "r2")}, p
	    assert p["ingress"] == ["r3"], p
	    assert p["asked"] == 2, p
	    for n in p["nodes"]:
	        assert 0 <= n["fpr"] < 1e-6, n
	        assert n["window"]["id"] >= 1 and n["window"]["start"], n
	    assert 0 <= p["expected_false_branches"] < 1e-5, p
	    assert p["digest"].startswith("0x45"), p
	print("5 packets traced r1 <- r2 <- r3")
	EOF
}
check "trace 5 packets at once, -j: each r1 <- r2 <- r3, still one ssh call" trace_all_json

absent() {
	rm -f "$tmp/ssh-calls"
	expect 1 "*absent at r1*" $bc trace "$tmp/topo.txt" from r1 \
		packet 4500001c000100004011000001020304050607080001000200080000 &&
	[ "$(calls "$tmp/ssh-calls")" -eq 0 ]
}
check "a packet never sent: absent at r1, exit 1, no ssh call" absent

check "a packet older than r1's oldest window: not traceable, exit 1" \
	expect 1 "*not traceable (older than the oldest window*" \
	$bc trace "$tmp/topo.txt" from r1 pcap "$tmp/cap.pcap" packet 1 at -1h

traced_from_r2() {
	# the walk may start at the ssh router too
	local out
	# (r1, downstream, saw it too: it joins as a neighbour holding it)
	out=$($bc -j trace "$tmp/topo.txt" from r2 pcap "$tmp/cap.pcap" packet 2) &&
	echo "$out" &&
	[ "$(echo "$out" | json '("r3", "r2") in [(e["from"], e["to"]) for e in d["edges"]] and d["nodes"][0]["router"] == "r2"')" = True ]
}
check "trace starting at the ssh router: r2 <- r3" traced_from_r2

ssh_down() {
	sed 's/root@10.99.0.2 filter/root@10.99.0.2 port 2 filter/' \
		"$tmp/topo.txt" >"$tmp/bad.txt"
	expect 2 "bloomctl: unable to trace: router r2 (ssh root@10.99.0.2): ssh exited with status 255*" \
		$bc trace "$tmp/bad.txt" from r1 pcap "$tmp/cap.pcap" packet 1
}
check "an unreachable ssh router is an error naming it (exit 2)" ssh_down

no_filter() {
	sed 's/filter spie netns kbt-r2/filter nosuch netns kbt-r2/' \
		"$tmp/topo.txt" >"$tmp/bad2.txt"
	expect 2 "bloomctl: unable to trace: router r2 (ssh root@10.99.0.2): the remote bloomctl exited with status 2: bloomctl: *nosuch*" \
		$bc trace "$tmp/bad2.txt" from r1 pcap "$tmp/cap.pcap" packet 1
}
check "a remote bloomctl error is reported with its message (exit 2)" no_filter

archived_r3() {
	# r3's window holding the packets closes within the 10 s interval
	local out i
	mkdir -p "$tmp/arch"
	for i in $(seq 30); do
		$bc -n kbt-r3 archive spie "$tmp/arch" once >/dev/null || return 1
		[ "$(ls "$tmp/arch" | wc -l)" -ge 1 ] && break
		sleep 1
	done
	sleep 1
	$bc -n kbt-r3 archive spie "$tmp/arch" once >/dev/null
	ls -l "$tmp/arch"
	sed 's|^router r3 netns kbt-r3 filter spie|router r3 archive arch filter spie|' \
		"$tmp/topo.txt" >"$tmp/arch.txt"
	grep '^router r3' "$tmp/arch.txt"
	out=$($bc -j trace "$tmp/arch.txt" from r1 pcap "$tmp/cap.pcap") &&
	echo "$out" | head -c 600 && echo &&
	[ "$(echo "$out" | json 'all([n["router"] for n in p["nodes"]] == ["r1", "r2", "r3"] and p["ingress"] == ["r3"] for p in d)')" = True ]
}
check "r3 read from its archive directory (offline): the same paths" archived_r3

check "sshd logged key logins as root" grep -q 'Accepted publickey for root' "$tmp/sshd.log"

check "a bad topology line is an error naming file:line" \
	expect 2 "bloomctl: invalid topology: $tmp/bad3.txt:2: *" \
	bash -c "printf 'router r1 netns kbt-r1 filter spie\nrouter r2 ssh -oX filter spie\n' >$tmp/bad3.txt &&
		 $bc trace $tmp/bad3.txt from r1 pcap $tmp/cap.pcap"

finish
