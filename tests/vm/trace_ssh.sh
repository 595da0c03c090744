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
# however many packets are traced at once, over one ssh connection per
# destination for the whole trace (the master ended and its private
# directory removed after).
#
# Routers that cannot be asked: a second sshd that was stopped, a remote
# filter that does not exist, a router declared 'none', a host that accepts
# and never answers, a remote bloomctl that hangs: each is unknown with its
# reason (exit 1), its neighbours are asked in its place, and the trace
# still reaches the true ingress r3.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=$PWD/userspace/bloomctl
tmp=$(mktemp -d)
NS=(kbt-remote kbt-v kbt-r1 kbt-r2 kbt-r3 kbt-a)
cleanup() {
	[ -f "$tmp/sshd.pid" ] && kill "$(cat "$tmp/sshd.pid")" 2>/dev/null
	[ -n "${hang_pid:-}" ] && kill "$hang_pid" 2>/dev/null
	for n in "${NS[@]}"; do ip netns del "$n" 2>/dev/null; done
	ip link del kbt-ssh0 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
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
		$bc -n $n create spie bloom bits 65536 hashes 4 windows 180 interval 10s &&
		$bc -n $n attach spie hook prerouting digest spie || return 1
	done
}
# (180 windows of 10 s: the packets stay traceable for the whole suite)
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

# ssh invocations that asked something ('-O exit' ends a master)
calls() { [ -f "$1" ] && { grep -vc -- '-O exit' "$1" || true; } || echo 0; }
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

# A trace's range is its own ([at - slack, at]): the remote query reports
# every window (since @0), not only those within 2 s of the packet's
# stamp (query's default for a capture). Asked "at now" with slack 1h,
# once the packets' 10 s windows have closed 2 s ago and more, r2 over
# ssh still answers from the window that holds them.
wide_slack() {
	local sent
	sent=$(tcpdump -tt -nr "$tmp/cap.pcap" 2>/dev/null | tail -n 1 | cut -d. -f1) &&
	while [ "$(date +%s)" -lt $((sent + 13)) ]; do sleep 0.5; done &&
	$bc trace "$tmp/topo.txt" from r1 pcap "$tmp/cap.pcap" packet 3 at now slack 1h >"$tmp/out" &&
	cat "$tmp/out" &&
	grep -Eq '^`-- r2  window [0-9]+ ' "$tmp/out" &&
	grep -q '^ingress: r3$' "$tmp/out"
}
check "trace at now, slack 1h, the packets' windows closed: r2 over ssh still holds them, ingress r3" wide_slack

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

reuse() {
	# one login for the trace; the master is ended and its directory gone
	local before after s0 dirs0 dirs1
	before=$(grep -c 'Accepted publickey for root' "$tmp/sshd.log")
	dirs0=$(ls -d /tmp/bloomctl-ssh.* 2>/dev/null | wc -l)
	rm -f "$tmp/ssh-calls"
	KBLOOM_TRACE_STATS=1 $bc trace "$tmp/topo.txt" from r3 \
		pcap "$tmp/cap.pcap" >"$tmp/out" 2>"$tmp/stats"
	s0=$?
	sleep 0.5	# sshd logs the login
	after=$(grep -c 'Accepted publickey for root' "$tmp/sshd.log")
	dirs1=$(ls -d /tmp/bloomctl-ssh.* 2>/dev/null | wc -l)
	tail -3 "$tmp/out"; cat "$tmp/stats" "$tmp/ssh-calls"
	echo "logins: $before -> $after; control directories: $dirs0 -> $dirs1"
	[ $s0 -eq 0 ] && grep -q ', r2 1' "$tmp/stats" &&
	grep -q 'ControlMaster=auto' "$tmp/ssh-calls" &&
	grep -q 'ControlPath=/tmp/bloomctl-ssh\.[A-Za-z0-9]*/%C' "$tmp/ssh-calls" &&
	[ "$(grep -c -- '-O exit' "$tmp/ssh-calls")" -eq 1 ] &&
	[ $((after - before)) -eq 1 ] && [ "$dirs1" -eq "$dirs0" ]
}
check "ssh connection reuse: the master ended and its directory removed after the trace" reuse

reuse_many() {
	# six routers on one sshd (the same destination): one master shared,
	# one login for six questions
	local before after i
	before=$(grep -c 'Accepted publickey for root' "$tmp/sshd.log")
	printf 'router r1 netns kbt-r1 filter spie\n' >"$tmp/star.txt"
	for i in 1 2 3 4 5 6; do
		echo "router s$i ssh root@10.99.0.2 filter spie netns kbt-r2 identity $tmp/id config $tmp/ssh_config bloomctl $bc"
		echo "link r1 s$i"
	done >>"$tmp/star.txt"
	$bc trace "$tmp/star.txt" from r1 pcap "$tmp/cap.pcap" packet 1 parallel 1 >"$tmp/out" 2>&1
	sleep 0.5
	after=$(grep -c 'Accepted publickey for root' "$tmp/sshd.log")
	cat "$tmp/out"; echo "logins: $before -> $after"
	grep -q '^|-- s1  window' "$tmp/out" && grep -q '^`-- s6  window' "$tmp/out" &&
	[ $((after - before)) -eq 1 ]
}
check "six ssh routers on one host, one after the other: one login" reuse_many

no_reuse() {
	local before after
	before=$(grep -c 'Accepted publickey for root' "$tmp/sshd.log")
	rm -f "$tmp/ssh-calls"
	$bc trace "$tmp/star.txt" from r1 pcap "$tmp/cap.pcap" packet 1 reuse no >/dev/null
	sleep 0.5
	after=$(grep -c 'Accepted publickey for root' "$tmp/sshd.log")
	echo "logins: $before -> $after"; cat "$tmp/ssh-calls"
	! grep -q Control "$tmp/ssh-calls" && [ $((after - before)) -eq 6 ]
}
check "reuse no: plain ssh invocations, one login per question" no_reuse

# NAT at the ssh router: r2 masquerades what it sends to r1 (SNAT to
# 10.31.2.2) and records it in a transforms table at its postrouting. The
# victim sees the attacker's datagrams from 10.31.2.2; the trace reads
# r2's records over ssh (show -j for its windows, then every window's
# 'save TABLE -' in one call), undoes the NAT there and finds r3.
nat_ssh() {
	ip netns exec kbt-r2 nft -f - <<-'EOF' || return 1
	table ip kbtnat {
		chain post {
			type nat hook postrouting priority srcnat;
			oifname "r2-r1" masquerade
		}
	}
	EOF
	$bc -n kbt-r2 create xlate transforms capacity 1000 windows 60 interval 10s &&
		$bc -n kbt-r2 attach xlate hook postrouting || return 1
	mv "$tmp/cap.pcap" "$tmp/cap0.pcap"
	send
	local rc=$?
	mv "$tmp/cap.pcap" "$tmp/capnat.pcap"
	mv "$tmp/cap0.pcap" "$tmp/cap.pcap"
	ip netns exec kbt-r2 nft delete table ip kbtnat
	sed 's/^router r2 ssh .*/& transforms xlate/' "$tmp/topo.txt" >"$tmp/topo-nat.txt"
	[ $rc = 0 ] && tcpdump -nr "$tmp/capnat.pcap" 2>/dev/null | grep -c '10.31.2.2' | grep -qx 5
}
check "NAT at r2 (masquerade, transforms table xlate): the victim holds 5 datagrams from 10.31.2.2" nat_ssh

trace_nat_ssh() {
	local rc=0
	rm -f "$tmp/remote-calls"
	$bc -j trace "$tmp/topo-nat.txt" from r1 pcap "$tmp/capnat.pcap" >"$tmp/nat.json" || rc=$?
	echo "exit $rc; remote runs:"; cat "$tmp/remote-calls"
	[ $rc = 0 ] && grep -q -- '-n kbt-r2 save xlate - window' "$tmp/remote-calls" &&
	python3 - "$tmp/nat.json" <<-'EOF'
	import json, re, sys
	d = json.load(open(sys.argv[1]))
	assert len(d) == 5, len(d)
	for p in d:
	    assert p["status"] == "traced" and p["ingress"] == ["r3"], (p["status"], p["ingress"])
	    r2 = [n for n in p["nodes"] if n["router"] == "r2"][0]
	    assert re.fullmatch(r"SNAT 10\.31\.2\.2:(\d+) <- 10\.31\.4\.2:\d+ \(window \d+\)", r2["transforms"] or ""), r2["transforms"]
	print("5 datagrams traced r1 <- r2 (SNAT undone over ssh) <- r3")
	EOF
}
check "trace through r2's NAT over ssh: each datagram r1 <- r2 (SNAT 10.31.2.2 <- 10.31.4.2, read by save over ssh) <- r3" trace_nat_ssh

sshd2() {
	# a second sshd on port 2222, then stopped: a router whose sshd is down
	local i
	sed -e 's/^Port 22$/Port 2222/' -e "s|^PidFile .*|PidFile $tmp/sshd2.pid|" \
		"$tmp/sshd_config" >"$tmp/sshd2_config"
	ip netns exec kbt-remote /usr/sbin/sshd -f "$tmp/sshd2_config" \
		-E "$tmp/sshd2.log" </dev/null >/dev/null 2>&1 || return 1
	for i in $(seq 50); do
		ssh -F "$tmp/ssh_config" -i "$tmp/id" -p 2222 -o BatchMode=yes \
			-o ConnectTimeout=2 root@10.99.0.2 true 2>/dev/null && break
		sleep 0.2
	done
	kill "$(cat "$tmp/sshd2.pid")" && sleep 0.5 &&
	! ssh -F "$tmp/ssh_config" -i "$tmp/id" -p 2222 -o BatchMode=yes \
		-o ConnectTimeout=2 root@10.99.0.2 true 2>/dev/null
}
check "a second sshd (port 2222) started, then stopped" sshd2

cat >"$tmp/partial.txt" <<EOF
# r1's upstream neighbours: three that cannot be asked, then r2 and r3
router r1 netns kbt-r1 filter spie
router down ssh root@10.99.0.2 port 2222 filter spie netns kbt-r2 identity id config ssh_config
router nofilter ssh root@10.99.0.2 filter nosuch netns kbt-r2 identity id config ssh_config bloomctl $bc
router dark none
router r2 ssh root@10.99.0.2 filter spie netns kbt-r2 identity id config ssh_config bloomctl $bc
router r3 netns kbt-r3 filter spie
link r1 down
link r1 nofilter
link r1 dark
link down r2
link nofilter r2
link dark r2
link r2 r3
EOF

partial() {
	local s0
	$bc trace "$tmp/partial.txt" from r1 pcap "$tmp/cap.pcap" packet 3 \
		>"$tmp/out" 2>"$tmp/err"
	s0=$?
	cat "$tmp/out" "$tmp/err"
	[ $s0 -eq 1 ] &&
	grep -Eq '^r1  window [0-9]+ ' "$tmp/out" &&
	grep -Eq '^\|-- down  unknown: router down \(ssh root@10.99.0.2\): ssh exited with status 255: .*refused' "$tmp/out" &&
	grep -Eq '^\|-- nofilter  unknown: router nofilter \(ssh root@10.99.0.2\): the remote bloomctl exited with status 2: bloomctl: .*nosuch' "$tmp/out" &&
	grep -q "^\`-- dark  unknown: records nothing (declared 'none' on line 5)$" "$tmp/out" &&
	# r2 is drawn under the first of them, '(see above)' under the others
	grep -Eq '^\|   `-- r2  window [0-9]+ ' "$tmp/out" &&
	grep -Eq '^\|       `-- r3  window [0-9]+ ' "$tmp/out" &&
	[ "$(grep -c -- '`-- r2 (see above)$' "$tmp/out")" -eq 2 ] &&
	grep -q '^ingress: r3$' "$tmp/out" &&
	tail -2 "$tmp/out" | tr '\n' '|' | grep -qx '|partial: 2 routers could not be asked|' &&
	[ ! -s "$tmp/err" ]
}
check "sshd stopped, filter missing, router 'none': all three named unknown, ingress r3 still found (exit 1)" partial

partial_json() {
	local out s0
	out=$($bc -j trace "$tmp/partial.txt" from r1 pcap "$tmp/cap.pcap" packet 3 2>/dev/null)
	s0=$?
	echo "exit $s0: $out" | head -c 1500; echo
	[ $s0 -eq 1 ] && echo "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
n = {x["router"]: x for x in d["nodes"]}
assert list(n) == ["r1", "down", "nofilter", "dark", "r2", "r3"], list(n)
for r in ("down", "nofilter", "dark"):
    assert n[r]["window"] is None and n[r]["fpr"] is None and n[r]["depth"] == 1, n[r]
assert "status 255" in n["down"]["unknown"], n["down"]
assert "nosuch" in n["nofilter"]["unknown"], n["nofilter"]
assert n["dark"]["unknown"] == "records nothing (declared \x27none\x27 on line 5)", n["dark"]
assert "unknown" not in n["r2"] and n["r2"]["window"]["id"] >= 1
assert {(e["from"], e["to"]) for e in d["edges"]} == {("down", "r1"), ("nofilter", "r1"), ("dark", "r1"), ("r2", "down"), ("r2", "nofilter"), ("r2", "dark"), ("r3", "r2")}, d["edges"]
assert d["ingress"] == ["r3"] and d["unknown"] == [] and d["status"] == "traced", d
print("ok")'
}
check "the same in JSON: unknown nodes with their reasons, window and fpr null" partial_json

dead_end() {
	# nothing beyond 'down': it is listed apart, r1 is the ingress
	printf 'router r1 netns kbt-r1 filter spie\nrouter down ssh root@10.99.0.2 port 2222 filter spie identity %s config %s\nlink r1 down\n' \
		"$tmp/id" "$tmp/ssh_config" >"$tmp/dead.txt"
	expect 1 "*ingress: r1
unknown next to the path: down (router down (ssh root@10.99.0.2): ssh exited with status 255*" \
		$bc trace "$tmp/dead.txt" from r1 pcap "$tmp/cap.pcap" packet 1
}
check "an unknown router with nothing beyond it: 'unknown next to the path', exit 1" dead_end

# timed_trace TOPOLOGY ARGS...: 'bloomctl trace TOPOLOGY from r1 pcap
# cap.pcap ARGS...' into $tmp/out, printed with its exit status ($s0) and
# how long it took ($ms).
timed_trace() {
	local t0 t1 topo=$1
	shift
	t0=$(date +%s%N)
	$bc trace "$topo" from r1 pcap "$tmp/cap.pcap" "$@" >"$tmp/out" 2>&1
	s0=$?
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	cat "$tmp/out"
	echo "exit $s0 after $ms ms"
}

hang_up() {
	# accepts connections, never says a word
	ip netns exec kbt-remote python3 -c '
import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.99.0.2", 2223))
s.listen(8)
c = []
while True:
    c.append(s.accept())
' </dev/null >/dev/null 2>&1 &
	hang_pid=$!
	# (listening before ssh connects: a refusal is another failure)
	listening 2223 ip netns exec kbt-remote
	cat >"$tmp/hang.txt" <<-EOF
	router r1 netns kbt-r1 filter spie
	router mute ssh root@10.99.0.2 port 2223 filter spie identity $tmp/id config $tmp/ssh_config
	router r2 ssh root@10.99.0.2 filter spie netns kbt-r2 identity $tmp/id config $tmp/ssh_config bloomctl $bc
	router r3 netns kbt-r3 filter spie
	link r1 mute
	link mute r2
	link r2 r3
	EOF
	local s0 ms
	# (10 s: r2's login must fit in it on a busy VM)
	timed_trace "$tmp/hang.txt" packet 3 timeout 10s
	[ $s0 -eq 1 ] && [ $ms -lt 30000 ] &&
	grep -Eq '^`-- mute  unknown: router mute \(ssh root@10.99.0.2\): ' "$tmp/out" &&
	grep -q '^ingress: r3$' "$tmp/out"
}
check "a host that accepts and never answers: cut off at 'timeout 10s', unknown, ingress r3" hang_up

hung_bloomctl() {
	# logs in, then the remote command never answers: killed at the timeout
	local s0 ms
	printf '#!/bin/sh\nsleep 600\n' >"$tmp/hung-bloomctl"
	chmod +x "$tmp/hung-bloomctl"
	printf 'router r1 netns kbt-r1 filter spie\nrouter r2 ssh root@10.99.0.2 filter spie identity %s config %s bloomctl %s\nlink r1 r2\n' \
		"$tmp/id" "$tmp/ssh_config" "$tmp/hung-bloomctl" >"$tmp/hung.txt"
	timed_trace "$tmp/hung.txt" packet 3 timeout 2s
	[ $s0 -eq 1 ] && [ $ms -lt 20000 ] &&
	grep -q '^unknown next to the path: r2 (router r2 (ssh root@10.99.0.2): no answer within the timeout (2000 ms): killed)$' "$tmp/out" &&
	! pgrep -f "ssh.*$tmp/hung-bloomctl" >/dev/null
}
check "a remote bloomctl that hangs: killed at 'timeout 2s', reported, no ssh left running" hung_bloomctl


check "sshd logged key logins as root" grep -q 'Accepted publickey for root' "$tmp/sshd.log"

check "a bad topology line is an error naming file:line" \
	expect 2 "bloomctl: invalid topology: $tmp/bad3.txt:2: *" \
	bash -c "printf 'router r1 netns kbt-r1 filter spie\nrouter r2 ssh -oX filter spie\n' >$tmp/bad3.txt &&
		 $bc trace $tmp/bad3.txt from r1 pcap $tmp/cap.pcap"

finish
