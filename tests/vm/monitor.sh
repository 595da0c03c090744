#!/bin/bash
# bloomctl monitor against the loaded module, in the test VM: four
# monitors run in the background, each writing to a file, while filters
# are created, rotate and are destroyed:
#
#   mon.txt   bloomctl monitor              (init netns, text; SIGINT)
#   mon.json  bloomctl -j monitor           (init netns, JSON; SIGTERM)
#   monp.txt  bloomctl monitor p            (only filter p)
#   monns.txt bloomctl -n kb-m1 monitor     (netns kb-m1 only)
#
# A monitor has joined its group once it reports a probe filter (type
# blocked) created and destroyed in its netns ('ready', 'nsready'; for
# 'monitor p', p itself); only the lines after its last probe are compared.
# Events reach a socket in the order they happen, so those lines are
# exactly the events of the run.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=$PWD/userspace/bloomctl
tmp=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	$bc destroy all >/dev/null 2>&1
	ip netns del kb-m1 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1
ip netns add kb-m1 || exit 1

T='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}'

# wait_for FILE TEXT: until a line of FILE holds TEXT (at most 20 s).
wait_for() {
	local i
	for ((i = 0; i < 200; i++)); do
		grep -qF -- "$2" "$1" && return 0
		sleep 0.1
	done
	echo "timed out waiting for '$2' in $1:"
	cat "$1"
	return 1
}

# probe FILE TEXT NAME [-n NETNS]: creates and destroys filter NAME until
# FILE shows TEXT (its destroy event): the monitor is listening.
probe() {
	local file=$1 text=$2 name=$3 i
	shift 3
	for ((i = 0; i < 100; i++)); do
		$bc "$@" create "$name" blocked bits 512 hashes 1 &&
		$bc "$@" destroy "$name" || return 1
		grep -qF -- "$text" "$file" && return 0
		sleep 0.1
	done
	echo "monitor writing $file never saw '$text'"
	return 1
}

# after FILE TEXT: the lines of FILE after the last one holding TEXT.
after() {
	awk -v m="$2" 'index($0, m) { n = NR } { l[NR] = $0 }
		END { for (i = n + 1; i <= NR; i++) print l[i] }' "$1"
}

start() {
	local out=$1
	shift
	"$bc" "$@" >"$out" 2>"$out.err" &
	pids+=($!)
}

start mon.txt monitor
mon=$!
start mon.json -j monitor
monj=$!
start monp.txt monitor p
monp=$!
start monns.txt -n kb-m1 monitor
monns=$!

events() {
	probe monp.txt 'destroy p' p &&
	probe monns.txt 'destroy nsready' nsready -n kb-m1 &&
	probe mon.txt 'destroy ready' ready &&
	probe mon.json '"event":"destroy","filter":"ready"' ready &&
	$bc create p bloom bits 1024 hashes 2 &&
	$bc -n kb-m1 create nsonly bloom bits 1024 hashes 2 &&
	$bc create w bloom bits 4096 hashes 3 windows 2 interval 500ms &&
	# one counter, 16 adds of one key: saturated at 15 in window 1
	$bc create c counting bits 1024 hashes 1 counter-bits 4 windows 2 interval 3s &&
	$bc add c k k k k k k k k k k k k k k k k &&
	wait_for mon.txt 'rotate w closed window 2 ' &&
	wait_for mon.txt 'rotate c closed window 1 ' &&
	$bc destroy c &&
	# w just after a rotation: the next is 500 ms away (see paged)
	wait_for mon.txt "rotate w closed window $(($(grep -c '^rotate w ' mon.txt) + 1)) " &&
	$bc destroy w && $bc destroy p &&
	$bc -n kb-m1 destroy nsonly &&
	wait_for mon.txt 'destroy p' && wait_for mon.json '"event":"destroy","filter":"p"' &&
	wait_for monp.txt 'destroy p' && wait_for monns.txt 'destroy nsonly'
}
check "four monitors report the probes, then the events of the run" events

alive() { kill -0 $mon && kill -0 $monj && kill -0 $monp && kill -0 $monns; }
check "each line is in the file while the monitor still runs (flushed per event)" alive

# wait works on children of this shell only, not inside check.
kill -INT $mon; wait $mon; rc_int=$?
kill -TERM $monj; wait $monj; rc_term=$?
kill -INT $monp; wait $monp; rc_p=$?
kill -INT $monns; wait $monns; rc_ns=$?
pids=()
check "SIGINT ends monitor with exit status 0" test $rc_int -eq 0
check "SIGTERM ends monitor -j with exit status 0" test $rc_term -eq 0
check "monitor NAME and -n monitor exit 0 on SIGINT" test $rc_p -eq 0 -a $rc_ns -eq 0
check "the monitors wrote nothing on stderr" \
	bash -c '! [ -s mon.txt.err ] && ! [ -s mon.json.err ] && ! [ -s monp.txt.err ] && ! [ -s monns.txt.err ]'

after mon.txt 'destroy ready' > run.txt
after mon.json '"event":"destroy","filter":"ready"' > run.json
show() { echo "--- $1"; cat "$1"; }

plain() {
	show run.txt
	[ "$(grep -E '^[a-z]+ p( |$)' run.txt)" = $'create p type bloom\ndestroy p' ]
}
check "create and destroy of a filter: 'create p type bloom', 'destroy p'" plain

# The module stops a filter's rotations before it announces its destroy:
# 'destroy w' is w's last line.
paged() {
	local lines rot=() n i re id s e prev_e=
	show run.txt
	mapfile -t lines < <(grep -E '^[a-z]+ w( |$)' run.txt)
	[ "${lines[0]}" = 'create w type bloom' ] &&
	[ "${lines[-1]}" = 'destroy w' ] &&
	[ "$(printf '%s\n' "${lines[@]}" | grep -c -x 'destroy w')" -eq 1 ] || return 1
	rot=("${lines[@]:1:${#lines[@]}-2}")
	n=${#rot[@]}
	[ "$n" -ge 3 ] || { echo "$n rotations"; return 1; }
	lines=('' "${rot[@]}")
	re="^rotate w closed window ([0-9]+) \(($T) to ($T), 0 packets\), opened window ([0-9]+)$"
	for ((i = 1; i <= n; i++)); do
		[[ ${lines[i]} =~ $re ]] || { echo "bad line: ${lines[i]}"; return 1; }
		id=${BASH_REMATCH[1]} s=${BASH_REMATCH[2]} e=${BASH_REMATCH[3]}
		[ "$id" -eq "$i" ] && [ "${BASH_REMATCH[4]}" -eq $((i + 1)) ] ||
			{ echo "ids out of order: ${lines[i]}"; return 1; }
		[ -z "$prev_e" ] || [ "$s" = "$prev_e" ] ||
			{ echo "window $id does not start where $((id - 1)) ended"; return 1; }
		prev_e=$e
	done
}
check "time-paged filter: create, rotate lines (closed 1..N, 0 packets, opened N+1, each starting where the last ended), destroy" paged

saturated() {
	local re="^rotate c closed window 1 \\($T to $T, 16 packets\\), opened window 2, saturated 1$"
	show run.txt
	[ "$(grep -E '^[a-z]+ c( |$)' run.txt | sed -n 1p)" = 'create c type counting' ] &&
	[ "$(grep -E '^[a-z]+ c( |$)' run.txt | tail -n 1)" = 'destroy c' ] &&
	[[ $(grep -E '^[a-z]+ c( |$)' run.txt | sed -n 2p) =~ $re ]] &&
	[ "$(grep -c -x 'destroy c' run.txt)" -eq 1 ]
}
check "a rotation that closes saturated counters ends in ', saturated 1'" saturated

json() {
	show run.json
	python3 - run.json run.txt <<-'EOF'
	import json, sys
	evs = [json.loads(l) for l in open(sys.argv[1])]
	assert len(evs) == len(open(sys.argv[2]).read().splitlines()), "JSON and text differ in events"
	win = {"id", "start", "start_ns", "end", "end_ns", "packets", "fill"}
	by = lambda n: [e for e in evs if e["filter"] == n]
	assert by("p") == [{"event": "create", "filter": "p", "type": "bloom"},
	                   {"event": "destroy", "filter": "p", "type": "bloom"}], by("p")
	w = by("w")
	assert w[0] == {"event": "create", "filter": "w", "type": "bloom"}, w[0]
	d = [e for e in w if e["event"] == "destroy"]
	assert d == [{"event": "destroy", "filter": "w", "type": "bloom"}], d
	rot = [e for e in w[1:] if e["event"] != "destroy"]   # see paged
	assert len(rot) >= 3, w
	for i, e in enumerate(rot, 1):
	    assert set(e) == {"event", "filter", "closed", "opened", "saturated"}, e
	    c, o = e["closed"], e["opened"]
	    assert e["event"] == "rotate" and set(c) == win and set(o) == win, e
	    assert c["id"] == i and o["id"] == i + 1, e
	    assert c["packets"] == 0 and c["fill"] == 0 and e["saturated"] == 0, e
	    assert c["start_ns"] < c["end_ns"] == o["start_ns"], e
	    assert isinstance(c["end"], str) and o["end"] is None and o["end_ns"] == 0, e
	r = [e for e in by("c") if e["event"] == "rotate"][0]
	assert r["closed"]["id"] == 1 and r["closed"]["packets"] == 16, r
	assert r["closed"]["fill"] == 1 and r["saturated"] == 1, r
	EOF
}
check "-j: one JSON object per line, the same events, with the documented fields" json

name_filter() {
	show monp.txt
	# the probes (blocked), then the run's p (bloom); nothing else
	[ "$(grep -vx -e 'create p type blocked' -e 'create p type bloom' -e 'destroy p' monp.txt)" = '' ] &&
	[ "$(after monp.txt 'create p type blocked')" = $'destroy p\ncreate p type bloom\ndestroy p' ]
}
check "monitor NAME prints only that filter's events" name_filter

netns_only() {
	show monns.txt
	[ "$(after monns.txt 'destroy nsready')" = $'create nsonly type bloom\ndestroy nsonly' ] &&
	! grep -qE ' (ready|p|w|c)( |$)' monns.txt
}
check "-n NETNS monitor sees only that netns' events" netns_only

check "the init netns monitor saw nothing of netns kb-m1" \
	bash -c '! grep -qE " (nsready|nsonly)( |$)" mon.txt'

check "without CAP_NET_ADMIN monitor exits 2 with one line" \
	expect 2 "bloomctl: monitor: unable to join the multicast group 'events' of 'kbloom': Operation not permitted" \
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$bc" monitor

usage() {
	expect 2 "bloomctl: monitor: unexpected argument 'b' (see 'bloomctl monitor --help')" \
		"$bc" monitor a b &&
	expect 2 "bloomctl: unable to open network namespace 'nosuchns' (/run/netns/nosuchns): No such file or directory" \
		"$bc" -n nosuchns monitor
}
check "bad arguments and an unknown netns exit 2 with one line" usage

finish
