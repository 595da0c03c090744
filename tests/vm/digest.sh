#!/bin/bash
# Packet digests on a router, in the test VM:
#
#   netns kb-h1          netns kb-r1 (router)           netns kb-h2
#   h1-r1 ------------- r1-h1        r1-h2 ------------- h2-r1
#   10.1.0.1/24         10.1.0.254   10.2.0.254          10.2.0.2/24
#   fd01::1/64          fd01::fe     fd02::fe            fd02::2/64
#                       forwarding on, filters           tcpdump: what
#                       attached at FORWARD              arrives at h2
#
# Offloads (checksums, TSO, GSO, GRO) are off on every veth, so packets are
# digested at r1 and captured at h2 as they are on the wire. r1 records;
# bloomctl at r1 is then asked about the packets captured at h2 ("did they
# pass here, and when?"), about packets never sent, and the kernel's
# digests are compared with bloomctl's byte for byte. Any WARN, BUG or
# Oops fails the run (here and in scripts/vm).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=userspace/bloomctl
# -I -S: without site-packages python starts in a fraction of the time.
py=(python3 -I -S)
pt=("${py[@]}" tests/vm/pcaptool.py)
tmp=$(mktemp -d)
R=kb-r1
trap 'ip netns del kb-h1 2>/dev/null; ip netns del kb-r1 2>/dev/null
      ip netns del kb-h2 2>/dev/null; ip netns del kb-d1 2>/dev/null
      rm -rf "$tmp"' EXIT
dmesg_mark=$(dmesg | wc -l)

in_h1() { ip netns exec kb-h1 "$@"; }
in_h2() { ip netns exec kb-h2 "$@"; }
r1bc() { $bc -n $R "$@"; }
json() { "${py[@]}" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
setup() {
	local n d
	ip netns add kb-h1 && ip netns add kb-r1 && ip netns add kb-h2 &&
	ip link add h1-r1 netns kb-h1 type veth peer name r1-h1 netns kb-r1 &&
	ip link add r1-h2 netns kb-r1 type veth peer name h2-r1 netns kb-h2 ||
		return 1
	for n in kb-h1 kb-r1 kb-h2; do ip -n $n link set lo up || return 1; done
	ip -n kb-h1 addr add 10.1.0.1/24 dev h1-r1 &&
	ip -n kb-h1 addr add fd01::1/64 dev h1-r1 nodad &&
	ip -n kb-r1 addr add 10.1.0.254/24 dev r1-h1 &&
	ip -n kb-r1 addr add fd01::fe/64 dev r1-h1 nodad &&
	ip -n kb-r1 addr add 10.2.0.254/24 dev r1-h2 &&
	ip -n kb-r1 addr add fd02::fe/64 dev r1-h2 nodad &&
	ip -n kb-h2 addr add 10.2.0.2/24 dev h2-r1 &&
	ip -n kb-h2 addr add fd02::2/64 dev h2-r1 nodad &&
	ip netns exec kb-r1 sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv6.conf.all.forwarding=1 || return 1
	for d in kb-h1:h1-r1 kb-r1:r1-h1 kb-r1:r1-h2 kb-h2:h2-r1; do
		ip netns exec ${d%%:*} ethtool -K ${d#*:} tx off rx off tso off \
			gso off gro off 2>/dev/null
		ip -n ${d%%:*} link set ${d#*:} up || return 1
	done
	ip -n kb-h1 route add default via 10.1.0.254 &&
	ip -n kb-h1 -6 route add default via fd01::fe &&
	ip -n kb-h2 route add default via 10.2.0.254 &&
	ip -n kb-h2 -6 route add default via fd02::fe &&
	in_h1 ping -q -c 1 -W 5 10.2.0.2 && in_h1 ping -q -6 -c 1 -W 5 fd02::2
}
check "topology: h1 reaches h2 through router r1, IPv4 and IPv6" setup

offloads_off() {
	local d
	for d in kb-h1:h1-r1 kb-r1:r1-h1 kb-r1:r1-h2 kb-h2:h2-r1; do
		ip netns exec ${d%%:*} ethtool -k ${d#*:} |
			grep -E '^(generic-segmentation|generic-receive|tcp-segmentation)-offload: on' &&
			return 1
	done
	return 0
}
check "offloads: no GSO, GRO or TSO on any veth" offloads_off

# capture NAME COMMAND...: runs COMMAND while h2 captures the traffic of
# h1 and h2 (all of it crosses r1) into $tmp/NAME.pcap.
capture() {
	local name=$1 pid i rc
	shift
	rm -f "$tmp/$name.pcap"
	# Not through a shell function: $! must be tcpdump itself.
	ip netns exec kb-h2 tcpdump -i h2-r1 -nn --immediate-mode -U -Z root -s 0 \
		-w "$tmp/$name.pcap" 'host 10.1.0.1 or host fd01::1' \
		2>"$tmp/$name.err" &
	pid=$!
	for i in $(seq 100); do
		grep -q 'listening on' "$tmp/$name.err" && break
		sleep 0.1
	done
	"$@"
	rc=$?
	sleep 0.5
	kill -TERM $pid
	wait $pid
	echo "capture $name: $("${pt[@]}" count "$tmp/$name.pcap") packets"
	return $rc
}

# tcp ADDR PORT BYTES: one TCP connection h1 -> h2 carrying BYTES bytes.
tcp() {
	local fam=-4 srv
	[[ $1 == *:* ]] && fam=-6
	in_h2 nc $fam -l "$2" >/dev/null &
	srv=$!
	listening "$2" in_h2
	head -c "$3" /dev/urandom | in_h1 nc $fam -N "$1" "$2"
	wait $srv
}

# udp SRC DST SPORT DPORT COUNT SIZE: COUNT datagrams h1 -> h2, each with
# other payload bytes (so IPv6 datagrams differ too).
udp() {
	in_h1 "${py[@]}" -c '
import socket, sys, time
src, dst, sport, dport, count, size = sys.argv[1:]
s = socket.socket(socket.AF_INET6 if ":" in src else socket.AF_INET,
                  socket.SOCK_DGRAM)
s.bind((src, int(sport)))
for i in range(int(count)):
    s.sendto(bytes([i % 256]) * int(size), (dst, int(dport)))
    time.sleep(0.005)
' "$@"
}

mixed_traffic() {
	in_h1 ping -q -c 4 -i 0.2 10.2.0.2 &&
	in_h1 ping -q -6 -c 4 -i 0.2 fd02::2 &&
	in_h1 ping -q -R -c 2 -i 0.2 10.2.0.2 &&
	in_h1 ping -q -s 3000 -c 2 -i 0.2 10.2.0.2 &&
	in_h1 ping -q -6 -s 3000 -c 2 -i 0.2 fd02::2 &&
	tcp 10.2.0.2 5000 30000 && tcp fd02::2 5000 30000 &&
	udp 10.1.0.1 10.2.0.2 40000 5002 20 200 &&
	udp fd01::1 fd02::2 40000 5002 20 200 &&
	udp 10.1.0.1 10.2.0.2 40001 5002 1 4000 &&
	udp fd01::1 fd02::2 40001 5002 1 4000
}

attach_all() {
	# ~1e-9 false positives with a few hundred packets: none expected.
	r1bc create spie bloom capacity 100000 fpr 0.000001 &&
	r1bc create flows counting capacity 10000 fpr 0.001 counter-bits 16 &&
	r1bc create tuples multi capacity 10000 fpr 0.001 dims src,dst,dport &&
	r1bc create win blocked capacity 10000 fpr 0.001 windows 8 interval 2s &&
	r1bc create hist bloom capacity 10000 fpr 0.001 windows 240 interval 1s &&
	r1bc attach spie hook forward digest spie &&
	r1bc attach flows hook forward family any digest flow &&
	r1bc attach tuples hook forward digest multi &&
	r1bc attach win hook forward digest spie &&
	r1bc attach hist hook forward digest spie &&
	r1bc create spie13 bloom capacity 100000 fpr 0.000001 hash siphash-1-3 &&
	r1bc attach spie13 hook forward digest spie
}
check "r1: spie, flow, multi and time-paged filters attached at forward" attach_all

check "attach: an unknown hook is refused, naming it" \
	expect 2 "*invalid hook 'prerouted'*" \
	r1bc attach spie hook prerouted digest spie
check "attach: an unknown digest mode is refused, naming it" \
	expect 2 "*invalid digest 'md5'*" r1bc attach spie hook input digest md5
check "attach: a second attachment of one filter is refused (EBUSY)" \
	expect 2 "*'spie'*attached*" r1bc attach spie hook input digest spie
multi_needs_multi() {
	r1bc create plain bloom bits 4096 hashes 2 &&
	expect 2 "*'plain'*" r1bc attach plain hook forward digest multi &&
	expect 2 "*'tuples'*" r1bc attach tuples hook input digest spie || return 1
	r1bc destroy plain
}
check "attach: digest multi needs a multi filter, a multi filter needs multi" \
	multi_needs_multi
check "create: a bad interval is refused, naming it" \
	expect 2 "bloomctl: invalid interval '5x': *" \
	r1bc create w2 bloom bits 4096 hashes 2 windows 4 interval 5x
check "create: windows without an interval is a usage error" \
	expect 2 "*'windows' needs 'interval DURATION'*" \
	r1bc create w2 bloom bits 4096 hashes 2 windows 4
check "create: one window is refused" \
	expect 2 "*invalid windows '1'*" \
	r1bc create w2 bloom bits 4096 hashes 2 windows 1 interval 1s

check "traffic h1 <-> h2 (ping, ping -R, fragments, TCP, UDP; v4 and v6) captured at h2" \
	capture mix mixed_traffic
N=$("${pt[@]}" count "$tmp/mix.pcap")
LATER=$("${pt[@]}" count "$tmp/mix.pcap" later)
capture_kinds() {
	local k
	echo "packets $N, later fragments $LATER"
	[ "$N" -ge 100 ] || return 1
	for k in opt4 frag4 frag6 later; do
		echo "$k: $("${pt[@]}" count "$tmp/mix.pcap" $k)"
		[ "$("${pt[@]}" count "$tmp/mix.pcap" $k)" -ge 2 ] || return 1
	done
}
check "the capture holds IPv4 options and IPv4 and IPv6 fragments" capture_kinds

check "query pcap: every captured packet is found at r1 (exit 0)" \
	expect 0 "*$N packets: $N present, 0 absent, 0 not recorded, 0 skipped" \
	r1bc query spie pcap "$tmp/mix.pcap"

# The same digests through a filter of the other hash function.
check "query pcap: every captured packet is found in a siphash-1-3 filter too" \
	expect 0 "*$N packets: $N present, 0 absent, 0 not recorded, 0 skipped" \
	r1bc query spie13 pcap "$tmp/mix.pcap"

query_json() {
	r1bc -j query spie pcap "$tmp/mix.pcap" > "$tmp/mix.json" || return 1
	"${py[@]}" - "$tmp/mix.json" "$N" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert d["filter"] == "spie" and d["digest"] == "spie", d["filter"]
assert d["packets_total"] == n and d["present"] == n, (d["present"], n)
assert d["absent"] == 0 and d["skipped"] == 0
assert [w["id"] for w in d["windows"]] == [1], d["windows"]
for p in d["packets"]:
    assert p["present"] and p["windows"] == [1], p
    assert p["ts_ns"] > 0 and len(p["digest"]) in (2 + 56, 2 + 96), p
EOF
}
check "query -j: counts, one window, a digest and the window per packet" query_json

stats_match() {
	local s
	s=$(r1bc -j show spie) || return 1
	echo "$s" | json 'd["attach"]' &&
	[ "$(echo "$s" | json 'd["attach"]["seen"]')" -eq "$N" ] &&
	[ "$(echo "$s" | json 'd["attach"]["digested"]')" -eq "$N" ] &&
	[ "$(echo "$s" | json 'd["attach"]["skipped"]')" -eq 0 ] &&
	s=$(r1bc -j show flows) &&
	echo "$s" | json 'd["attach"]' &&
	[ "$(echo "$s" | json 'd["attach"]["seen"]')" -eq "$N" ] &&
	[ "$(echo "$s" | json 'd["attach"]["digested"]')" -eq $((N - LATER)) ] &&
	[ "$(echo "$s" | json 'd["attach"]["skipped_by_reason"]["fragment"]')" -eq "$LATER" ]
}
check "attach counters: seen = digested = packets captured; flow skips later fragments" \
	stats_match

# One word, inserts, for every key put in: by add and by the hook alike.
hook_inserts() {
	local s
	s=$(r1bc show spie) && echo "$s" | grep -E '^  (inserts|packets digested):' &&
	echo "$s" | grep -qx "  inserts: $N" &&
	[ "$(r1bc -j show spie | json 'd["inserts"]')" -eq "$N" ] &&
	r1bc list | grep -E "^spie .* inserts $N( |$)"
}
check "inserts counts the hook's digests: show, show -j and list say $N after $N packets" \
	hook_inserts

ttl() {
	local hex
	hex=$("${pt[@]}" hex "$tmp/mix.pcap" icmp4) || return 1
	echo "echo request at h2: $hex"
	# Captured after r1 decremented its TTL: 63.
	[ "${hex:16:2}" = 3f ] &&
	expect 0 "*echo request: window 1 *" r1bc query spie packet "$hex" &&
	[ "$($bc digest packet "$hex")" = \
	  "$($bc digest packet "$("${pt[@]}" ttl "$hex" 64)")" ] &&
	hex=$("${pt[@]}" hex "$tmp/mix.pcap" icmp6) &&
	[ "${hex:14:2}" = 3f ] &&
	expect 0 "*echo request: window 1 *" r1bc query spie packet "$hex"
}
check "TTL: an echo request captured at h2 (TTL/hop limit 63) matches r1's digest (64)" ttl

# Upper bound on false positives among N queries at rate P: the mean plus
# 4 standard deviations, at least 1.
fp_bound() {
	"${py[@]}" -c "import math,sys; n,p=int(sys.argv[1]),float(sys.argv[2]); m=n*p; print(max(1, int(m + 4*math.sqrt(m) + 1)))" "$@"
}

never_sent() {
	local fpr bound got
	"${pt[@]}" mutate "$tmp/mix.pcap" "$tmp/mut.pcap" || return 1
	"${pt[@]}" random "$tmp/rand.pcap" 2000 7 || return 1
	fpr=$(r1bc -j show spie | json 'd["fpr_now"]') || return 1
	for f in mut rand; do
		r1bc -j query spie pcap "$tmp/$f.pcap" > "$tmp/$f.json"
		[ $? -eq 1 ] || return 1
		got=$(json 'd["present"]' < "$tmp/$f.json")
		bound=$(fp_bound "$(json 'd["packets_total"]' < "$tmp/$f.json")" "$fpr")
		echo "$f: $got present (false positives), bound $bound at fpr $fpr"
		[ "$got" -le "$bound" ] || return 1
	done
}
# (bloomctl's arithmetic on the filter's cells, no kernel path: not on
# the debug kernel's tier.)
[ "${KBLOOM_TIER:-}" = vm-debug ] ||
	check "packets never sent (a digest byte changed; 2000 random) are absent, within the FPR bound (exit 1)" \
		never_sent

# same_digests FILE [linear N]: bloomctl and the kernel agree in every mode.
same_digests() {
	local file=$1 m
	shift
	for m in spie flow src dst multi; do
		$bc digest pcap "$file" digest $m > "$tmp/user.$m" &&
		r1bc digest pcap "$file" digest $m kernel "$@" > "$tmp/kern.$m" ||
			return 1
		if ! cmp "$tmp/user.$m" "$tmp/kern.$m"; then
			diff "$tmp/user.$m" "$tmp/kern.$m" | head -10
			return 1
		fi
	done
	echo "$(wc -l < "$tmp/user.spie") packets, $(grep -c 'no digest' "$tmp/user.flow") without a flow digest"
}
check "kernel and bloomctl digests agree, every mode, on the capture" \
	same_digests "$tmp/mix.pcap"
for n in 1 40; do
	check "... with only $n bytes in the skb's linear area" \
		same_digests "$tmp/mix.pcap" linear $n
done
fuzz() {
	# Every 4th packet: still every protocol and fragment kind, 1/4 the time.
	"${pt[@]}" fuzz "$tmp/mix.pcap" "$tmp/fuzz.pcap" 11 4 &&
	same_digests "$tmp/fuzz.pcap" && same_digests "$tmp/fuzz.pcap" linear 1 &&
	grep -q 'no digest (short)' "$tmp/user.spie" &&
	grep -q 'no digest (malformed)' "$tmp/user.spie" &&
	grep -q 'no digest (fragment)' "$tmp/user.flow"
}
check "... on truncated, malformed, option and fragment variants (skip reasons too)" fuzz

flow_counts() {
	local k4 k6 c
	udp 10.1.0.1 10.2.0.2 41000 5003 40 100 &&
	udp fd01::1 fd02::2 41000 5003 30 100 || return 1
	# protocol, source, destination, ports (uapi "Digest formats")
	k4=$(printf '0x11%s%s%04x%04x' 0a010001 0a020002 41000 5003)
	k6=$(printf '0x11%s%s%04x%04x' fd010000000000000000000000000001 \
		fd020000000000000000000000000002 41000 5003)
	c=$(r1bc count flows "$k4" | cut -d' ' -f2) && echo "v4 flow: $c" &&
	[ "$c" -ge 40 ] && [ "$c" -le 42 ] &&
	c=$(r1bc count flows "$k6" | cut -d' ' -f2) && echo "v6 flow: $c" &&
	[ "$c" -ge 30 ] && [ "$c" -le 32 ]
}
check "flow digests into a counting filter: count of the flow key = datagrams sent" \
	flow_counts

multi_tuples() {
	expect 0 "* present" r1bc test tuples src=0x0a010001,dst=0x0a020002,dport=0x138b &&
	expect 0 "* present" r1bc test tuples dst=0xfd020000000000000000000000000002 &&
	expect 1 "* absent" r1bc test tuples src=0x0a020002,dport=0x0001
}
check "multi digests: the flow's tuple is present, a port never used absent" multi_tuples

show_list() {
	local line s
	line=$(r1bc list | grep '^win ') && echo "$line" &&
	[[ $line == *" windows 8 interval 2s hook forward family any digest spie" ]] &&
	r1bc show win | grep -E '^  (windows|window [0-9]+|attached|packets)' &&
	r1bc show win | grep -qx '  windows: 8 of 2s' &&
	r1bc show win | grep -qE '^  window [0-9]+: [0-9T:.-]+ to now, inserts [0-9]+, fill [0-9]+ \(current\)$' &&
	r1bc show win | grep -qx '  attached: hook forward family any digest spie' &&
	r1bc -j show win | "${py[@]}" -c '
import json, sys
d = json.load(sys.stdin)
assert d["windows"] == 8 and d["interval_ms"] == 2000, d
w = d["window_list"]
assert 1 <= len(w) <= 8 and w[0]["end"] is None, w
assert [x["id"] for x in w] == list(range(w[0]["id"], w[0]["id"] - len(w), -1)), w
assert all(x["end_ns"] == y["start_ns"] for x, y in zip(w[1:], w)), w
a = d["attach"]
assert (a["hook"], a["family"], a["digest"], a["dev"]) == ("forward", "any", "spie", None), a
'
}
check "show and list: windows (id, start, end, inserts, fill) and the attachment" show_list

# The debug kernel's tier skips what follows up to the device and family
# counters: windows in time and bloomctl's query words, the same kernel
# paths as above (window_test runs rotation under the checkers); here
# they would only lengthen make check's longest tier.
if [ "${KBLOOM_TIER:-}" = vm-debug ]; then
	echo "# vm-debug: rotation, since/until, retention, capture times and query errors run in vm and vm-6.12"
else
# Rotation: two bursts, the second once the filter has moved past every
# window holding the first, each queried at once. The waits follow the
# filter's window IDs, not the clock: a bloomctl run takes most of a second
# in the TCG guest and over 6 s on a loaded debug kernel. The windows are
# 2 s and 8 are kept, so a burst stays queryable for 14 s at least.
burst() { in_h1 ping -q -c 3 -i 0.2 10.2.0.2; }
# newest FILTER: the ID of its current window.
newest() { r1bc -j show "$1" | json 'max(w["id"] for w in d["window_list"])'; }
# until_window FILTER TEST ID WHAT: polls FILTER's current window ID until
# it is -TEST (gt, ge) ID, for at most 60 s; says WHAT it waited for when
# that never happens.
until_window() {
	local cur deadline=$((SECONDS + 60))
	while cur=$(newest "$1") && ! [ "$cur" -"$2" "$3" ]; do
		[ $SECONDS -lt $deadline ] ||
			{ echo "after 60 s the current window of $1 is $cur: $4"; return 1; }
		sleep 0.3
	done
	[ -n "$cur" ]
}
# The highest window ID a query (qjson NAME) found its packets in.
last_window() {
	"${py[@]}" -c 'import json, sys
print(max(i for p in json.load(open(sys.argv[1]))["packets"] for i in p["windows"]))' "$1"
}
# qjson FILTER NAME: query -j of $tmp/NAME.pcap into $tmp/NAME.json, shown
# when the query fails.
qjson() {
	r1bc -j query "$1" pcap "$tmp/$2.pcap" > "$tmp/$2.json" && return 0
	cat "$tmp/$2.json"
	return 1
}
rotation() {
	local wa
	capture a burst && qjson win a && wa=$(last_window "$tmp/a.json") &&
	until_window win gt "$wa" "no window after burst a's ($wa)" &&
	capture b burst && qjson win b &&
	"${py[@]}" - "$tmp/a.json" "$tmp/b.json" <<'EOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["present"] == a["packets_total"] == 6, a
assert b["present"] == b["packets_total"] == 6, b
wa = {i for p in a["packets"] for i in p["windows"]}
wb = {i for p in b["packets"] for i in p["windows"]}
print("burst a in windows", sorted(wa), "burst b in", sorted(wb))
assert max(wa) < min(wb), (wa, wb)
EOF
}
check "rotation: a burst after the window of the one before lands in a later window (2 s windows)" rotation

# since/until on "hist" (240 windows of 1 s: both bursts are still there, even at 6 s a bloomctl run),
# around t, the start of the first window holding burst b.
since_until() {
	local t s iso
	qjson hist b || return 1
	t=$("${py[@]}" -c '
import json, sys
d = json.load(open(sys.argv[1]))
ids = {i for p in d["packets"] for i in p["windows"]}
print(min(w["start_ns"] for w in d["windows"] if w["id"] in ids))' "$tmp/b.json") ||
		return 1
	s=$((t / 1000000000))
	# local ISO-8601, 1 ms after t: burst a's windows all end by t
	iso=$(date -d "@$(((t / 1000000 + 1) / 1000))" +%Y-%m-%dT%H:%M:%S).$(printf %03d $(((t / 1000000 + 1) % 1000)))
	echo "burst b's first window starts at @$t; since $iso (local)"
	expect 0 "*6 packets: 6 present*" r1bc query hist pcap "$tmp/b.pcap" since "$iso" &&
	expect 1 "*6 packets: 0 present, 6 absent*" \
		r1bc query hist pcap "$tmp/a.pcap" since "$iso" &&
	expect 1 "*6 packets: 0 present, 6 absent*" \
		r1bc query hist pcap "$tmp/b.pcap" until "@$((s - 1))" &&
	expect 0 "*6 packets: 6 present*" \
		r1bc query hist pcap "$tmp/a.pcap" until "@$((s - 1)).5" &&
	expect 0 "*6 packets: 6 present*" \
		r1bc query hist pcap "$tmp/b.pcap" since -1h until now &&
	expect 0 "*6 packets: 6 present*" \
		r1bc query hist pcap "$tmp/b.pcap" until "$(date -u -d '+1 min' +%Y-%m-%dT%H:%M:%SZ)"
}
check "since/until: only windows overlapping the range count (local, @, -1h, now, Z forms)" \
	since_until

# Burst a's windows leave the ring of 8 once the current window is 8 past
# the last of them.
retention() {
	local wa
	wa=$(last_window "$tmp/a.json") &&
	until_window win ge $((wa + 8)) "burst a's window $wa is still kept" || return 1
	expect 1 "*6 packets: 0 present, 0 absent, 6 not recorded, 0 skipped" \
		r1bc query win pcap "$tmp/a.pcap" &&
	r1bc -j show win | json 'len(d["window_list"])' | grep -qx 8
}
check "retention: once 8 newer windows exist the first burst is gone: not recorded around its capture time, never absent" retention

# A capture's packets are looked up around their capture times (slack 2 s
# either side) when no since or until is given: moved an hour back, before
# the filter was made, they are not recorded there, never absent.
capture_time() {
	local n=$N
	"${pt[@]}" shift "$tmp/mix.pcap" "$tmp/past.pcap" -3600 &&
	"${pt[@]}" shift "$tmp/mix.pcap" "$tmp/future.pcap" 3600 &&
	expect 1 "*: not recorded (before the oldest window, *$n packets: 0 present, 0 absent, $n not recorded, 0 skipped" \
		r1bc query spie pcap "$tmp/past.pcap" &&
	expect 1 "*: not recorded (after now)*$n packets: 0 present, 0 absent, $n not recorded, 0 skipped" \
		r1bc query spie pcap "$tmp/future.pcap" &&
	expect 0 "*$n packets: $n present, 0 absent, 0 not recorded, 0 skipped" \
		r1bc query spie pcap "$tmp/past.pcap" slack 2h &&
	expect 0 "*$n packets: $n present, 0 absent, 0 not recorded, 0 skipped" \
		r1bc query spie pcap "$tmp/past.pcap" since -1d
}
check "query pcap: each packet around its capture time (slack 2 s), unless slack, since or until says otherwise" capture_time

query_errors() {
	expect 2 "bloomctl: invalid since 'yesterday': *" \
		r1bc query spie pcap "$tmp/mix.pcap" since yesterday &&
	expect 2 "bloomctl: invalid packet 'zz': *" r1bc query spie packet zz &&
	expect 2 "*'$tmp/nosuch.pcap'*" r1bc query spie pcap "$tmp/nosuch.pcap" &&
	expect 2 "*'nosuch'*No such file*" r1bc query nosuch pcap "$tmp/mix.pcap" &&
	expect 2 "*multi*" r1bc query spie pcap "$tmp/mix.pcap" digest multi &&
	expect 2 "*since*until*" r1bc query spie pcap "$tmp/mix.pcap" since now until -1h &&
	expect 2 "bloomctl: invalid slack '1s': it is around a capture time, and packet HEX has none" \
		r1bc query spie packet 4500 slack 1s &&
	expect 2 "bloomctl: invalid slack '1s': since and until give the range already" \
		r1bc query spie pcap "$tmp/mix.pcap" since -1h slack 1s &&
	expect 2 "bloomctl: invalid slack 'x': *" r1bc query spie pcap "$tmp/mix.pcap" slack x
}
check "query errors exit 2 and name the input" query_errors
fi

dev_family() {
	local s
	r1bc create in4 bloom capacity 1000 fpr 0.001 &&
	r1bc create back6 bloom capacity 1000 fpr 0.001 &&
	r1bc attach in4 hook forward dev r1-h1 family ipv4 digest spie &&
	r1bc attach back6 hook forward dev r1-h2 family ipv6 digest spie &&
	in_h1 ping -q -c 7 -i 0.2 10.2.0.2 && in_h1 ping -q -6 -c 5 -i 0.2 fd02::2 ||
		return 1
	# in4: the 7 IPv4 requests coming in on r1-h1; back6: the 5 IPv6
	# replies coming in on r1-h2.
	s=$(r1bc -j show in4) && echo "$s" | json 'd["attach"]' &&
	[ "$(echo "$s" | json '(d["attach"]["seen"], d["attach"]["digested"], d["attach"]["dev"])')" = "(7, 7, 'r1-h1')" ] &&
	s=$(r1bc -j show back6) && echo "$s" | json 'd["attach"]' &&
	[ "$(echo "$s" | json '(d["attach"]["seen"], d["attach"]["digested"], d["attach"]["family"])')" = "(5, 5, 'ipv6')" ]
}
check "dev and family: counters see exactly the packets of that device and family" dev_family

detach() {
	r1bc detach in4 && ! r1bc -j show in4 | grep -q '"attach"' &&
	r1bc show in4 | grep -qx '  attached: no' &&
	capture c in_h1 ping -q -c 3 -i 0.2 10.2.0.2 &&
	expect 1 "*0 present, 6 absent*" r1bc query in4 pcap "$tmp/c.pcap" &&
	expect 0 "*6 present, 0 absent*" r1bc query spie pcap "$tmp/c.pcap" &&
	expect 2 "*'in4'*not attached*" r1bc detach in4
}
check "detach stops recording (and a second detach is an error)" detach

destroy_busy() {
	local p
	in_h1 ping -q -i 0.002 -c 1500 10.2.0.2 >/dev/null &
	p=$!
	udp fd01::1 fd02::2 42000 5004 200 100 &
	sleep 0.5
	r1bc destroy spie && r1bc destroy flows && r1bc destroy tuples &&
	r1bc destroy win && r1bc detach back6 && r1bc destroy back6 ||
		return 1
	wait
	! r1bc list | grep -E '^(spie|flows|tuples|win|back6) '
}
check "destroy and detach while attached and traffic flows" destroy_busy

netns_del() {
	local p
	r1bc create pre bloom capacity 1000 fpr 0.01 windows 3 interval 100ms &&
	r1bc create post counting capacity 1000 fpr 0.01 &&
	r1bc attach pre hook prerouting digest spie &&
	r1bc attach post hook postrouting digest flow &&
	ip netns add kb-d1 && $bc -n kb-d1 create lo bloom bits 4096 hashes 2 &&
	$bc -n kb-d1 attach lo hook output digest src &&
	ip -n kb-d1 link set lo up || return 1
	in_h1 ping -q -i 0.002 -c 3000 -w 10 10.2.0.2 >/dev/null 2>&1 &
	ip netns exec kb-d1 ping -q -i 0.002 -c 3000 -w 10 127.0.0.1 >/dev/null 2>&1 &
	sleep 0.5
	ip netns del kb-r1 && ip netns del kb-d1 || return 1
	wait
	sleep 1
	# The module still answers, and a new netns starts empty.
	$bc list >/dev/null && ip netns add kb-d1 &&
	[ -z "$($bc -n kb-d1 list)" ] && ip netns del kb-d1
}
check "ip netns del with attached filters and traffic flowing" netns_del

kernel_log() {
	dmesg | tail -n +$((dmesg_mark + 1)) |
		grep -E 'WARNING|BUG|Oops|general protection|RCU|lockdep|KASAN|UBSAN' && return 1
	return 0
}
check "kernel log: no WARN, BUG or Oops during the suite" kernel_log

finish
