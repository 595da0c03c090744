#!/bin/bash
# bloomctl trace (SPIE traceback) across random router trees, in the test VM.
# Each tree is built by scripts/topo.py from a fixed seed (the same tree on
# every run; its drawing is printed as a TAP comment), e.g. seed 1, 6 routers:
#
#   r1  <- v (victim)            every router: a time-paged spie filter
#   ├── r2                       attached at prerouting (bloomctl -n kt-rN
#   │   └── r4  <- h4 (host)     attach spie hook prerouting digest spie);
#   ├── r3  <- h3 (host)         hosts ping each other and the victim, the
#   └── r5                       attacker sends forged sources to v, which
#       └── r6  <- a (attacker)  captures; bloomctl trace walks from r1
#
# Trees: 6, 12, 9 and 20 routers (seeds 1, 2, 5, 3; one or two attackers at
# random leaves, 8 packets traced each) and 12 routers with small filters
# (seed 4, 24 packets). Per tree: every traced packet's true path (its
# attacker's router up to r1, known from the generator) is in the answer,
# edges and ingress included (no false negatives, ever), and the extra
# routers ("false branches") stay within expected + 3 sqrt(expected) + 1,
# expected being the answer's own estimate (docs/trace.md), per packet, and
# their sum within the two-sided 99.9% Poisson interval of the summed
# estimate. The small filters (~10% per hop) make the
# bound meet real branches. Packets older than r1's oldest window (windows 2
# interval 1s, 3.5 s later) are "not traceable" (exit 1), never "absent".
# The picture (trace ... dot FILE) of a packet of the 6-router tree: a
# graph Graphviz's dot accepts, every router the walk asked and the links
# between them drawn once, the others counted in its label, the red
# edges exactly the answer's, the ingress marked the true one; 'dot -'
# writes it alone on standard output, and is refused beside -j.
# The victim's own packets: its whole capture (both directions) traced with
# 'victim ADDR', and captures of tcpdump -i any (which record direction)
# and -Q in (docs/trace.md), leave out every packet the victim sent.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=userspace/bloomctl
py=(python3 -S)
tmp=$(mktemp -d)
P=kt-
cur=
sysctls="net.ipv4.ip_forward net.ipv4.conf.all.rp_filter net.ipv4.conf.default.rp_filter"
saved=$(for s in $sysctls; do echo "$s=$(sysctl -n $s)"; done)
trap '[ -n "$cur" ] && "$cur/teardown.sh"; sysctl -qw $saved; rm -rf "$tmp"' EXIT
dmesg_mark=$(dmesg | wc -l)

nx() { local n=$1; shift; nsenter --net=/run/netns/$P$n "$@"; }
stop() { # stop PID: SIGINT (tcpdump writes out and exits), then wait for it
	local i
	kill -INT "$1"
	for i in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$1" 2>/dev/null
	wait "$1"
}
hosts_of() { # hosts_of DIR ROLE: names of the hosts of that role
	sed -n "s/^addr_\(.*\)=.*/\1/p" "$1/addrs.sh" | grep "^$2"
}

# tree NAME ROUTERS SEED ATTACKERS: makes the tree in $tmp/NAME (outside
# check: check runs its command in a subshell), draws it as a TAP comment.
tree() {
	cur=$tmp/$1
	"${py[@]}" scripts/topo.py tree "$cur" --routers "$2" --seed "$3" \
		--prefix $P --attackers "$4" --hosts 2 | sed -n '1,/^$/{/^$/!s/^/#   /p}'
	. "$cur/addrs.sh"
}
# build: builds $cur; every host and attacker reaches the victim.
build() {
	local h
	"$cur/build.sh" || return 1
	for h in $(hosts_of "$cur" '[ah]'); do
		nx "$h" ping -q -c 1 -W 5 "$addr_v" >/dev/null || { echo "$h: no route to v"; return 1; }
	done
}

# filters CREATE-ARGS...: the spie filter on every router, attached.
filters() {
	local r
	for r in $(sed -n 's/^router \([^ ]*\) .*/\1/p' "$cur/topo.txt"); do
		$bc -n $P$r create spie "$@" &&
		$bc -n $P$r attach spie hook prerouting digest spie || return 1
	done
}

# attack SEED COUNT [PICK]: background traffic between the hosts and COUNT
# forged packets from each attacker, captured at the victim into
# $cur/victim.pcap; then picks PICK (default 8) of them ($cur/attack.pcap,
# .json), spread over the attackers.
attack() {
	local cap i h a v n=0 bg=()
	rm -f "$cur/sent.log"
	# Not through nx: $! must be tcpdump itself (a function would run in
	# a subshell, which ignores the SIGINT below).
	nsenter --net=/run/netns/${P}v tcpdump -i v-r1 -nn -U -Z root -s 0 \
		-w "$cur/victim.pcap" >/dev/null 2>"$cur/tcpdump.err" &
	cap=$!
	for i in $(seq 150); do
		grep -q 'listening on' "$cur/tcpdump.err" && break
		sleep 0.1
	done
	for h in $(hosts_of "$cur" h); do
		nx "$h" ping -q -c 8 -i 0.2 "$addr_v" >/dev/null & bg+=($!)
		for a in $(hosts_of "$cur" h); do
			[ "$a" = "$h" ] && continue
			v=addr_$a
			nx "$h" ping -q -c 5 -i 0.2 "${!v}" >/dev/null & bg+=($!)
		done
	done
	for a in $(hosts_of "$cur" a); do
		n=$((n + 1))
		nx "$a" "${py[@]}" scripts/spoof.py "$addr_v" "$2" --seed "$1$n" \
			--interval 0.03 --tag "$a" --log "$cur/sent.log" & bg+=($!)
	done
	wait "${bg[@]}"
	sleep 0.3
	stop $cap
	"${py[@]}" scripts/tracecheck.py pick "$cur/victim.pcap" "$cur/sent.log" \
		"$cur/attack.pcap" --max "${3:-8}"
}

# traced NAME: traces the picked packets from r1 and compares with the true
# paths ($cur/summary.json); fails on any missing router, edge or ingress.
traced() {
	local rc=0
	$bc -j trace "$cur/topo.txt" from r1 pcap "$cur/attack.pcap" >"$cur/trace.json" || rc=$?
	[ $rc -le 1 ] || return 1
	"${py[@]}" scripts/tracecheck.py report "$cur/topo.json" \
		"$cur/attack.pcap.json" "$cur/trace.json" --summary "$cur/summary.json"
}

# within_bound [MIN-EXTRA]: every packet's false branches within its bound,
# the sum within the 99.9% Poisson interval of the summed expectation,
# both sides (and at least MIN-EXTRA of them).
within_bound() {
	"${py[@]}" -c '
import json, sys
s = json.load(open(sys.argv[1]))
print("false branches: %(extra)d, expected %(expected).3g (99.9%%: %(low)d to "
      "%(high)d), bound %(bound)d; packets over their own bound: "
      "%(over_bound)d" % s)
assert s["answers"] == s["packets"] > 0
assert s["over_bound"] == 0 and s["extra"] <= s["bound"]
assert s["low"] <= s["extra"] <= s["high"]
assert s["extra"] >= int(sys.argv[2])
' "$cur/summary.json" "${1:-0}"
}

figures() { # figures NAME: the run's counts, as a TAP comment
	[ -r "$cur/summary.json" ] && "${py[@]}" -c '
import json, sys
s = json.load(open(sys.argv[1]))
print("# %s: %d packets traced, %d true paths missing, %d false branches "
      "(%.3g expected, bound %d)" % (sys.argv[2], s["packets"], s["missing"],
                                     s["extra"], s["expected"], s["bound"]))
' "$cur/summary.json" "$1"
}

teardown() { "$cur/teardown.sh"; cur=; }

# --- random trees, filters sized for their traffic --------------------------
run_tree() { # run_tree NAME ROUTERS SEED ATTACKERS
	local name=$1
	echo "# tree $name: $2 routers, seed $3, $4 attacker(s)"
	tree "$@"
	check "$name: $2 routers built (seed $3), every host reaches the victim" build
	check "$name: a spie filter attached on every router" \
		filters bloom capacity 20000 fpr 0.0001 windows 4 interval 30s
	[ "$name" = t6 ] && check "$name: and a short-lived one (windows 2 interval 1s)" \
		short_filters
	check "$name: hosts talk, $4 attacker(s) forge 20 packets each, the victim captures" \
		attack "$3" 20
	check "$name: every true path is in the answer (no false negatives)" traced
	check "$name: false branches within the per-hop FPR bound" within_bound
	figures "$name"
}

short_filters() {
	local r
	for r in $(sed -n 's/^router \([^ ]*\) .*/\1/p' "$cur/topo.txt"); do
		$bc -n $P$r create short bloom capacity 20000 fpr 0.0001 windows 2 interval 1s &&
		$bc -n $P$r attach short hook prerouting digest spie || return 1
	done
	sed 's/ filter spie$/ filter short/' "$cur/topo.txt" >"$cur/short.txt"
}

# --- the picture: trace ... dot FILE -------------------------------------------
picture() {
	local rc=0
	$bc trace "$cur/topo.txt" from r1 pcap "$cur/attack.pcap" packet 1 \
		dot "$cur/p1.dot" >"$cur/p1.txt" || rc=$?
	echo "exit $rc; $(grep '^ingress: ' "$cur/p1.txt")"
	[ $rc -eq 0 ] && grep -q '^ingress: ' "$cur/p1.txt" || return 1
	$bc -j trace "$cur/topo.txt" from r1 pcap "$cur/attack.pcap" packet 1 \
		>"$cur/p1.json" || return 1
	dot -Tsvg "$cur/p1.dot" -o "$cur/p1.svg" || return 1
	grep -c '<svg' "$cur/p1.svg" | sed 's/^/svg elements: /'
	"${py[@]}" -c '
import json, re, sys
cur = sys.argv[1]
dot = open(cur + "/p1.dot").read().splitlines()
ans = json.load(open(cur + "/p1.json"))
topo = json.load(open(cur + "/topo.json"))
attacker = json.load(open(cur + "/attack.pcap.json"))["picked"][0]["attacker"]
truth = topo["true_path"][attacker]
routers, links = [], set()
for l in open(cur + "/topo.txt"):
    w = l.split()
    if w[:1] == ["router"]:
        routers.append(w[1])
    elif w[:1] == ["link"]:
        links.add(frozenset(w[1:3]))
nodes = {}
edges = []
for l in dot:
    m = re.match(r"^  \"([^\"]+)\" \[label=(.*)\];$", l)
    if m:
        assert m.group(1) not in nodes, l
        nodes[m.group(1)] = m.group(2)
    m = re.match(r"^  \"([^\"]+)\" -> \"([^\"]+)\"( \[(.*)\])?;$", l)
    if m:
        edges.append((m.group(1), m.group(2), m.group(4) or ""))
assert dot[0] == "digraph trace {" and dot[-1] == "}", (dot[0], dot[-1])
# what the walk asked: r1, the routers of the answer and their neighbours
nbr = {r: set() for r in routers}
for l in links:
    a, b = tuple(l)
    nbr[a].add(b)
    nbr[b].add(a)
asked = {"r1"}
for n in ans["nodes"]:
    asked |= {n["router"]} | nbr[n["router"]]
asked_links = {l for l in links if l <= asked}
assert sorted(nodes) == sorted(asked), (sorted(nodes), sorted(asked))
drawn = [frozenset(e[:2]) for e in edges]
assert set(drawn) == asked_links and len(drawn) == len(asked_links), (drawn, asked_links)
left = len(routers) - len(asked)
label = [l for l in dot if l.startswith("  label=")]
if left:
    note = "%d of %d routers and %d links not drawn: not asked" % (
        left, len(routers), len(links) - len(asked_links))
    assert label and note in label[0], (label, note)
print("drawn %d of %d routers, %d of %d links" %
      (len(asked), len(routers), len(asked_links), len(links)))
red = {e[:2] for e in edges if "#cc0000" in e[2]}
want = {(e["from"], e["to"]) for e in ans["edges"]}
ingress = {n for n, a in nodes.items() if "peripheries=2" in a}
print("true path %s; red edges %s; ingress marked %s" %
      (">".join(truth), sorted(red), sorted(ingress)))
assert red == want and set(zip(truth, truth[1:])) <= red
assert ingress == set(ans["ingress"]) and truth[0] in ingress
assert "from (next to the victim)" in nodes["r1"]
' "$cur" || return 1
	$bc trace "$cur/topo.txt" from r1 pcap "$cur/attack.pcap" packet 1 dot - \
		>"$cur/p1.stdout" || return 1
	cmp "$cur/p1.dot" "$cur/p1.stdout" || return 1
	expect 2 "bloomctl: 'dot -' and -j would both write standard output: give 'dot FILE'" \
		$bc -j trace "$cur/topo.txt" from r1 pcap "$cur/attack.pcap" dot -
}

# --- not traceable: older than the oldest window ------------------------------
not_traceable() {
	local out rc=0
	sleep 3.5
	$bc -j trace "$cur/short.txt" from r1 pcap "$cur/attack.pcap" >"$cur/old.json" || rc=$?
	echo "exit $rc"
	[ $rc -eq 1 ] || return 1
	"${py[@]}" -c '
import json, sys
d = json.load(open(sys.argv[1]))
d = d if isinstance(d, list) else [d]
print("%d answers, traceable: %s" % (len(d), sorted({str(x.get("traceable")) for x in d})))
assert d and all(x["traceable"] is False and not x.get("nodes") for x in d)
' "$cur/old.json" || return 1
	out=$($bc trace "$cur/short.txt" from r1 pcap "$cur/attack.pcap" packet 1 2>&1)
	echo "$out"
	[[ $out == *"not traceable (older than the oldest window"* && $out != *absent* ]]
}

never_sent() {
	# A forged UDP packet never sent, traced now (slack 500ms: within the
	# retained windows): absent at r1, exit 1.
	local hex
	hex=4500001c4b1d00004011000001020304$(printf '%02x' ${addr_v//./ })b2e1000900080000
	expect 1 "*absent at r1*" $bc trace "$cur/short.txt" from r1 packet "$hex" slack 500ms
}

# --- the victim's own packets ------------------------------------------------
# sides JSON LEFT_OUT: per packet of trace's JSON answer, whether its
# source is the victim's; prints the counts. Every packet from the victim
# must have been left out with the reason LEFT_OUT, and no other; at least
# one of each.
sides() {
	"${py[@]}" -c '
import json, sys
d = json.load(open(sys.argv[1]))
d = d if isinstance(d, list) else [d]
v, why = sys.argv[2], sys.argv[3]
def src(x):
    w = x["description"].split()[1]
    return w.rsplit(":", 1)[0] if w.count(":") == 1 else w
mine = [x for x in d if src(x) == v]
rest = [x for x in d if src(x) != v]
print("%d packets from the victim, %d to it; statuses: %s" % (len(mine), len(rest),
      sorted({(src(x) == v, x["status"]) for x in d})))
assert mine and rest
for x in mine:
    assert x["status"] == "left out" and x["traceable"] is False, x
    assert x["left_out"] == why and not x["nodes"] and not x["ingress"], x
for x in rest:
    assert x["status"] != "left out" and "left_out" not in x, x
' "$@"
}

# Without 'victim', the whole capture's replies from the victim come back
# traced, with an ingress: where they left the network (what 'victim' is
# for).
victim_unfiltered() {
	local rc=0
	$bc -j trace "$cur/topo.txt" from r1 pcap "$cur/victim.pcap" >"$cur/all.json" || rc=$?
	echo "exit $rc"
	[ $rc -le 1 ] || return 1
	"${py[@]}" -c '
import json, sys
d = json.load(open(sys.argv[1]))
mine = [x for x in d if x["description"].split()[1] == sys.argv[2]]
print("%d from the victim, %d of them with an ingress" %
      (len(mine), sum(1 for x in mine if x["ingress"])))
assert any(x["status"] == "traced" and x["ingress"] for x in mine)
' "$cur/all.json" "$addr_v"
}

victim_option() {
	local rc=0 out
	$bc -j trace "$cur/topo.txt" from r1 pcap "$cur/victim.pcap" victim "$addr_v" \
		>"$cur/both.json" || rc=$?
	echo "exit $rc"
	[ $rc -le 1 ] || return 1
	sides "$cur/both.json" "$addr_v" "sent by the victim: source in $addr_v/32" || return 1
	out=$($bc trace "$cur/topo.txt" from r1 pcap "$cur/victim.pcap" victim "$addr_v/32")
	echo "$out" | grep -m1 'left out'
	echo "$out" | tail -1
	[[ $out == *"ICMP $addr_v > "*", at "*": left out (sent by the victim: source in $addr_v/32)"* ]] &&
	[[ $(echo "$out" | tail -1) =~ ^[0-9]+\ packets:\ [0-9]+\ traced,\ [0-9]+\ not,\ [1-9][0-9]*\ left\ out\ \(sent\ by\ the\ victim\)\;\  ]]
}

# captures DIR: a host pings the victim, which captures on every interface
# (tcpdump -i any: Linux cooked, with directions) into DIR/any.pcap and on
# its link to r1 with -Q in (as docs/trace.md shows) into DIR/in.pcap.
captures() {
	local a i h
	h=$(hosts_of "$cur" h | head -1)
	nsenter --net=/run/netns/${P}v tcpdump -i any -nn -U -Z root -s 0 \
		-w "$cur/any.pcap" icmp >/dev/null 2>"$cur/any.err" &
	a=$!
	nsenter --net=/run/netns/${P}v tcpdump -i v-r1 -Q in -nn -U -Z root -s 0 \
		-w "$cur/in.pcap" icmp >/dev/null 2>"$cur/in.err" &
	i=$!
	for _ in $(seq 150); do
		grep -q 'listening on' "$cur/any.err" && grep -q 'listening on' "$cur/in.err" && break
		sleep 0.1
	done
	nx "$h" ping -q -c 4 -i 0.2 "$addr_v" >/dev/null
	# Stopped once both files hold what passed (a loaded guest is slow to
	# read its capture buffers): 8 packets on any, 4 on v-r1 inbound.
	for _ in $(seq 100); do
		[ "$(tcpdump -r "$cur/any.pcap" 2>/dev/null | wc -l)" -ge 8 ] &&
			[ "$(tcpdump -r "$cur/in.pcap" 2>/dev/null | wc -l)" -ge 4 ] && break
		sleep 0.1
	done
	stop $a
	stop $i
	head -c 24 "$cur/any.pcap" | od -An -tu4 | awk '{print "# any.pcap link type " $6}'
}

victim_outgoing() {
	local rc=0 out
	$bc -j trace "$cur/topo.txt" from r1 pcap "$cur/any.pcap" >"$cur/any.json" || rc=$?
	echo "exit $rc"
	[ $rc -eq 0 ] || return 1
	sides "$cur/any.json" "$addr_v" "sent by the victim: outgoing in the capture" || return 1
	out=$($bc trace "$cur/topo.txt" from r1 pcap "$cur/any.pcap" | tail -1)
	echo "$out"
	[[ $out == "8 packets: 4 traced, 0 not, 4 left out (sent by the victim); "* ]]
}

victim_q_in() {
	local out
	out=$($bc trace "$cur/topo.txt" from r1 pcap "$cur/in.pcap" 2>&1)
	echo "$out" | tail -1
	[[ $out != *"ICMP $addr_v > "* && $out != *"left out"* ]] &&
	[[ $(echo "$out" | tail -1) == "4 packets: 4 traced, 0 not; "* ]]
}

run_tree t6 6 1 1
check "t6: 'dot FILE' draws packet 1: dot accepts it, every router asked and its links once, the rest counted, red edges the answer's, the true ingress marked; 'dot -' alone on stdout, refused with -j" \
	picture
check "t6: 3.5 s later (windows 2 interval 1s), the capture is not traceable, exit 1 (not absent)" \
	not_traceable
check "t6: a packet never sent is absent at r1, exit 1 (not 'not traceable')" never_sent
check "t6: the whole capture without 'victim': the victim's replies come back with an ingress" \
	victim_unfiltered
check "t6: with 'victim ADDR', every packet from the victim is left out (plain and JSON), no other" \
	victim_option
check "t6: the victim captures a host's 4 pings (tcpdump -i any, and -Q in)" captures
check "t6: a tcpdump -i any capture: the victim's 4 replies left out as outgoing, 4 pings traced" \
	victim_outgoing
check "t6: a tcpdump -Q in capture holds only the 4 pings, all traced" victim_q_in
teardown
run_tree t12 12 2 2
teardown
run_tree t9 9 5 2
teardown
run_tree t20 20 3 2
teardown

# --- small filters: ~10% false positives per hop, real false branches --------
noise() { # ~430 keys into every router's filter: FPR ~0.1 at m=2048, k=3
	local r
	for r in $(sed -n 's/^router \([^ ]*\) .*/\1/p' "$cur/topo.txt"); do
		seq -f "noise-$r-%g" 1 430 | $bc -n $P$r add spie -f - >/dev/null || return 1
	done
	$bc -j -n ${P}r1 show spie | "${py[@]}" -c '
import json, sys
d = json.load(sys.stdin)
print("r1: fill %d of %d, fpr now %.3g" % (d["fill"], d["bits"], d["fpr_now"]))
assert 0.05 <= d["fpr_now"] <= 0.3
'
}
echo "# tree small: 12 routers, seed 4, 2 attackers, 2048-bit filters"
tree small 12 4 2
check "small: 12 routers built (seed 4), every host reaches the victim" build
check "small: 2048-bit 3-hash filters attached on every router" \
	filters bloom bits 2048 hashes 3 windows 2 interval 5m
check "small: 430 noise keys in each: false positive rate 5-30% per hop" noise
# 24 packets: ~10 false branches expected.
check "small: hosts talk, 2 attackers forge 20 packets each, the victim captures" \
	attack 4 20 24
check "small: every true path is in the answer, false branches notwithstanding" traced
check "small: false branches appear, within the per-hop FPR bound" within_bound 1
figures small
teardown

kernel_log() {
	dmesg | tail -n +$((dmesg_mark + 1)) |
		grep -E 'WARNING|BUG|Oops|general protection|RCU|lockdep|KASAN|UBSAN' && return 1
	return 0
}
check "kernel log: no WARN, BUG or Oops during the suite" kernel_log

finish
