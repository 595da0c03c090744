#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# 'bloomctl trace' across live routers: N routers in network namespaces of
# the test VM, each recording SPIE digests into a time-paged filter of the
# real module, traced from the victim's router. Run in the VM with the
# module loaded ('make bench' does: scripts/vm ... bench/trace_live.sh).
#
#   bench/trace_live.sh [--sizes "10 50 100"] [--ssh N] [--rounds R]
#                       [--seed S] [--out FILE.tsv] [--quick]
#
#   r1 <- v (victim)          a random tree of N routers (scripts/topo.py),
#   |-- r2                    the victim behind r1, an attacker a behind a
#   |   `-- r5 <- a           leaf, two hosts pinging the victim; every
#   `-- r3 <- h3              router: bloom, 20 000 keys at 0.1%, 10 windows
#       ...                   of 2 min, attached at prerouting, digest spie
#
# Per size: the attacker sends 20 packets with forged sources; the victim
# captures them (scripts/tracecheck.py picks them out); 'bloomctl -j trace
# topo.txt from r1 pcap ...' runs ROUNDS times with 'parallel 1' and
# 'parallel 16' (median wall time; questions from KBLOOM_TRACE_STATS;
# tracecheck.py report holds each answer to the true path). Then a random
# tenth of the routers (never r1) lose their filter (so they cannot be
# asked: unknown) and the trace runs again: the packets whose ingress list
# still names the true ingress, and the questions.
#
# With --ssh N (default 20; 0: none), N routers answer over ssh instead:
# each runs its own sshd in its namespace, on a management network (a
# bridge in the VM's first namespace, 172.31.0.0/16, one veth per router),
# and the remote bloomctl queries its own namespace's filter; the trace
# runs four ways: parallel 1 or 16, reuse no or yes (median of ROUNDS),
# counting the logins sshd accepted.
#
# Prints a table per part; --out appends one TSV row per measurement:
#   part routers way questions wall_s packets found
# (part: netns, netns-10pct-unknown, ssh). --quick: 10 routers, 4 over
# ssh, one round, and TAP lines that check the pipeline (every packet
# found at its true ingress), not the figures.
set -uo pipefail
cd "$(dirname "$0")/.."
top=$PWD
bc=$top/userspace/bloomctl
sizes="10 50 100"
ssh_n=20
rounds=3
seed=1
out=
quick=
case " $* " in *" --quick "*) sizes=10; ssh_n=4; rounds=1 ;; esac
while [ $# -gt 0 ]; do
	case $1 in
	--sizes) sizes=$2; shift ;;
	--ssh) ssh_n=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--seed) seed=$2; shift ;;
	--out) out=$2; shift ;;
	--quick) quick=1 ;;
	*) echo "trace_live.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -e /sys/module/kbloom ] || { echo "trace_live.sh: the kbloom module is not loaded" >&2; exit 2; }

tmp=$(mktemp -d)
net=
sshd_pids=()
cleanup() {
	local p
	for p in "${sshd_pids[@]}"; do kill "$p" 2>/dev/null; done
	[ -n "$net" ] && [ -x "$net/teardown.sh" ] && "$net/teardown.sh" 2>/dev/null
	ip link del kbt-mgmt 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

tap_n=0
tap_bad=0
tap() { # tap DESC STATUS
	tap_n=$((tap_n + 1))
	if [ "$2" = 0 ]; then echo "ok $tap_n - $1"; else echo "not ok $tap_n - $1"; tap_bad=1; fi
}
nx() { local n=$1; shift; nsenter --net=/run/netns/"$n" "$@"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
row() { [ -n "$out" ] && printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$out"; return 0; }

# The packets of a 'bloomctl -j trace' answer (an array, one object, or
# one object a line) as the list ps, for the python3 snippets below.
packets_py='
import json, sys
t = open(sys.argv[1]).read().strip()
try:
    v = json.loads(t)
    ps = v if isinstance(v, list) else [v]
except ValueError:
    ps = [json.loads(l) for l in t.splitlines() if l.strip()]
'
# found JSON INGRESS: the packets whose ingress list names INGRESS
found() {
	python3 -S -c "$packets_py"'
print(sum(1 for p in ps if sys.argv[2] in (p.get("ingress") or [])))' "$1" "$2"
}

# trace_once OUT ARGS...: one trace; OUT.time the wall seconds, OUT.err
# the stats line, OUT the JSON answer
trace_once() {
	local o=$1 t0 t1
	shift
	t0=$(date +%s%N)
	KBLOOM_TRACE_STATS=1 "$bc" -j trace "$@" >"$o" 2>"$o.err"
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", (b - a) / 1e9 }' >"$o.time"
}
# unknowns JSON: the reasons of its unknown routers, as comments
unknowns() {
	python3 -S -c "$packets_py"'
why = set()
for p in ps:
    if p.get("status") == "unknown":
        why.add("from: %s" % p.get("why"))
    for n in p.get("nodes") or []:
        if n.get("unknown"):
            why.add("%s: %s" % (n["router"], n["unknown"]))
for w in sorted(why):
    print("# unknown", w)' "$1"
}
questions() { sed -n 's/^trace: [0-9]* steps, \([0-9]*\) questions.*/\1/p' "$1.err"; }

# build N: the tree, its filters, the attack captured at the victim;
# sets net, ingress, npk
build() {
	local n=$1 r t0=$SECONDS
	net=$tmp/net$n
	python3 -S scripts/topo.py tree "$net" --routers "$n" --seed "$seed" \
		--hosts 2 --attackers 1 -q || { echo "# topo.py failed"; return 1; }
	"$net/build.sh" >"$tmp/build.log" 2>&1 || { sed 's/^/# /' "$tmp/build.log"; return 1; }
	. "$net/addrs.sh"
	for r in $(seq "$n"); do
		printf 'create spie bloom capacity 20000 fpr 0.001 windows 10 interval 120s\nattach spie hook prerouting digest spie\n' |
			"$bc" -n "r$r" batch - || { echo "# r$r: filter not made"; return 1; }
	done
	ingress=$(python3 -S -c 'import json, sys; print(json.load(open(sys.argv[1]))["true_path"]["a"][0])' "$net/topo.json")
	# nsenter itself, not the nx function: a function put in the background
	# runs in a subshell, which ignores SIGINT, and so would tcpdump.
	nsenter --net=/run/netns/v tcpdump -i v-r1 -nn -U -Z root -s 0 -w "$tmp/victim.pcap" >/dev/null 2>"$tmp/tcpdump.err" &
	local cap=$!
	for r in $(seq 300); do
		grep -q 'listening on' "$tmp/tcpdump.err" && break
		sleep 0.1
	done
	local h bg=()
	for h in $(grep -o '^addr_h[0-9]*' "$net/addrs.sh" | cut -d_ -f2); do
		nx "$h" ping -q -c 5 -i 0.2 "$addr_v" >/dev/null &
		bg+=($!)
	done
	rm -f "$tmp/sent.log"
	nx a python3 -S scripts/spoof.py "$addr_v" 20 --seed "$seed" --interval 0.02 --log "$tmp/sent.log"
	[ ${#bg[@]} -eq 0 ] || wait "${bg[@]}"
	sleep 0.3
	kill -INT "$cap"
	wait "$cap"
	python3 -S scripts/tracecheck.py pick "$tmp/victim.pcap" "$tmp/sent.log" \
		"$tmp/attack$n.pcap" --max 20 >"$tmp/pick.log" 2>&1 ||
		{ sed 's/^/# /' "$tmp/pick.log" "$tmp/tcpdump.err"; return 1; }
	npk=$(python3 -S -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["picked"]))' "$tmp/attack$n.pcap.json")
	echo "# $n routers built, filters attached, $npk attack packets captured in $((SECONDS - t0)) s (true ingress $ingress)"
}

# netns_part N: sequential and parallel, then a tenth unknown
netns_part() {
	local n=$1 par w q f v k r gone
	for par in 1 16; do
		: >"$tmp/walls"
		for r in $(seq "$rounds"); do
			trace_once "$tmp/t" "$net/topo.txt" from r1 pcap "$tmp/attack$n.pcap" parallel $par
			cat "$tmp/t.time" >>"$tmp/walls"
		done
		w=$(median <"$tmp/walls")
		q=$(questions "$tmp/t")
		f=$(found "$tmp/t" "$ingress")
		python3 -S scripts/tracecheck.py report "$net/topo.json" "$tmp/attack$n.pcap.json" \
			"$tmp/t" >"$tmp/report" 2>&1
		v=$?
		printf '| %s | netns | parallel %s | %s | %s | %s / %s | %s |\n' "$n" "$par" "$q" "$w" \
			"$f" "$npk" "$(tail -n 1 "$tmp/report" | sed 's/^verdict: //')"
		row netns "$n" "parallel $par" "$q" "$w" "$npk" "$f"
		[ -n "$quick" ] && tap "netns, $n routers, parallel $par: every attack packet traced along its true path to $ingress" "$v"
	done
	# A tenth of the routers (never r1) lose their filter: unknown.
	k=$((n / 10))
	[ $k -lt 1 ] && k=1
	gone=$(seq 2 "$n" | shuf -n "$k" --random-source=<(openssl enc -aes-256-ctr \
		-pass pass:"$seed" -nosalt -pbkdf2 </dev/zero 2>/dev/null) | sed 's/^/r/')
	for r in $gone; do "$bc" -n "$r" destroy spie || return 1; done
	trace_once "$tmp/t" "$net/topo.txt" from r1 pcap "$tmp/attack$n.pcap"
	q=$(questions "$tmp/t")
	f=$(found "$tmp/t" "$ingress")
	local onpath
	onpath=$(python3 -S -c 'import json, sys; p = json.load(open(sys.argv[1]))["true_path"]["a"]; print(" ".join(r for r in sys.argv[2:] if r in p) or "none")' \
		"$net/topo.json" $gone)
	printf '| %s | netns, %s unknown (%s on the true path) | parallel 16 | %s | %s | %s / %s | |\n' \
		"$n" "$k" "$onpath" "$q" "$(cat "$tmp/t.time")" "$f" "$npk"
	row netns-10pct-unknown "$n" "parallel 16" "$q" "$(cat "$tmp/t.time")" "$npk" "$f"
	if [ -n "$quick" ]; then
		grep -q '"unknown"' "$tmp/t"
		tap "netns, $n routers, $k without a filter: reported unknown, the walk goes on" $?
	fi
}

# ssh_part N: N of the routers answer over ssh, each its own sshd
ssh_part() {
	local n=$1 r a way w logins
	ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey" <<<y >/dev/null
	ssh-keygen -q -t ed25519 -N '' -f "$tmp/id" <<<y >/dev/null
	cp "$tmp/id.pub" "$tmp/authorized_keys"
	cat >"$tmp/ssh_config" <<-EOF
	Host *
	  UserKnownHostsFile /dev/null
	  StrictHostKeyChecking no
	  IdentitiesOnly yes
	  LogLevel ERROR
	EOF
	mkdir -p /run/sshd
	ip link add kbt-mgmt type bridge && ip addr add 172.31.255.254/16 dev kbt-mgmt &&
		ip link set kbt-mgmt up || return 1
	: >"$tmp/sshd.log"
	for r in $(seq "$n"); do
		a=172.31.0.$r
		ip link add "m-r$r" type veth peer name mgmt netns "r$r" &&
			ip link set "m-r$r" master kbt-mgmt up &&
			ip -n "r$r" addr add "$a/16" dev mgmt && ip -n "r$r" link set mgmt up || return 1
		nx "r$r" /usr/sbin/sshd -o ListenAddress="$a" -o Port=22 -o HostKey="$tmp/hostkey" \
			-o AuthorizedKeysFile="$tmp/authorized_keys" -o StrictModes=no \
			-o PermitRootLogin=prohibit-password -o PasswordAuthentication=no \
			-o KbdInteractiveAuthentication=no -o UsePAM=no -o MaxStartups=200 \
			-o MaxSessions=100 -o PidFile="$tmp/sshd$r.pid" -E "$tmp/sshd.log" || return 1
	done
	for r in $(seq "$n"); do
		for a in $(seq 50); do [ -s "$tmp/sshd$r.pid" ] && break; sleep 0.1; done
		sshd_pids+=("$(cat "$tmp/sshd$r.pid")")
	done
	{
		for r in $(seq "$n"); do
			echo "router r$r ssh root@172.31.0.$r filter spie identity $tmp/id config $tmp/ssh_config bloomctl $bc"
		done
		grep '^link ' "$net/topo.txt"
	} >"$tmp/topo-ssh.txt"
	for way in "parallel 1 reuse no" "parallel 1 reuse yes" "parallel 16 reuse no" "parallel 16 reuse yes"; do
		: >"$tmp/walls"
		local l0
		l0=$(grep -c 'Accepted publickey' "$tmp/sshd.log")
		for r in $(seq "$rounds"); do
			# shellcheck disable=SC2086
			trace_once "$tmp/t" "$tmp/topo-ssh.txt" from r1 pcap "$tmp/attack$n.pcap" $way
			cat "$tmp/t.time" >>"$tmp/walls"
		done
		w=$(median <"$tmp/walls")
		logins=$(( ($(grep -c 'Accepted publickey' "$tmp/sshd.log") - l0) / rounds ))
		f=$(found "$tmp/t" "$ingress")
		printf '| %s | ssh (%s sshd) | %s | %s | %s | %s / %s | %s logins a trace |\n' "$n" "$n" "$way" \
			"$(questions "$tmp/t")" "$w" "$f" "$npk" "$logins"
		row ssh "$n" "$way" "$(questions "$tmp/t")" "$w" "$npk" "$f"
		[ "$f" = "$npk" ] || { unknowns "$tmp/t"; head -c 1500 "$tmp/t" | sed 's/^/# /'; echo; sed 's/^/# /' "$tmp/t.err"; }
		[ -n "$quick" ] && tap "ssh, $n routers each with its own sshd, $way: every attack packet at its true ingress $ingress" \
			"$([ "$f" = "$npk" ] && [ "$npk" -gt 0 ] && echo 0 || echo 1)"
	done
}

echo "# bloomctl trace across live routers (network namespaces of this VM); seed $seed, median of $rounds"
echo "| routers | routers are | trace | questions | wall s | packets at the true ingress | verdict |"
echo "|---:|---|---|---:|---:|---:|---|"
for n in $sizes; do
	build "$n" || { tap "build $n routers" 1; exit 1; }
	netns_part "$n"
	"$net/teardown.sh"
	net=
done
if [ "$ssh_n" -gt 0 ]; then
	build "$ssh_n" || { tap "build $ssh_n routers" 1; exit 1; }
	ssh_part "$ssh_n"
fi
[ -n "$quick" ] && echo "1..$tap_n"
exit $tap_bad
