#!/bin/bash
# bloomctl against the loaded module, in the test VM:
#
#   bloomctl (root, init netns) --genetlink--> kbloom.ko
#   bloomctl -n kb-t1           --genetlink--> kbloom.ko, netns kb-t1
#   bloomctl as uid 65534 (no CAP_NET_ADMIN)   refused
#
# One behaviour per check; exit codes per the contract: 0 ok / all present,
# 1 some key absent, 2 error (one line on stderr naming the input).
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=userspace/bloomctl
tmp=$(mktemp -d)
trap '$bc destroy all >/dev/null 2>&1; ip netns del kb-t1 2>/dev/null; rm -rf "$tmp"' EXIT

json() { python3 -c "import json,sys; d=json.load(sys.stdin); print(d$1)"; }

check "create by bits and hashes" $bc create f bloom bits 65536 hashes 5
check "create sized from capacity 10000 fpr 0.01: m=95872, k=7" \
	expect 0 "*bits 95872 hashes 7*" \
	bash -c "$bc create sized bloom capacity 10000 fpr 0.01 && $bc list | grep '^sized '"
check "add keys, literal and hex" $bc add f alpha beta 0x00ff10
check "test: all present exits 0" expect 0 "*alpha present*0x00ff10 present*" \
	$bc test f alpha 0x00ff10
check "test: one absent exits 1 and says which" \
	expect 1 "*alpha present*gamma absent*" $bc test f alpha gamma
check "literal and hex spellings are the same key" $bc test f 0x616c706861

check "a duplicate name is refused, exit 2, kernel reason quoted" \
	expect 2 "bloomctl: *'f'*File exists*kernel: a filter of that name exists*" \
	$bc create f bloom bits 4096 hashes 3
check "an unknown name is an error (exit 2), not an absent key" \
	expect 2 "*'nosuch'*No such file*" $bc test nosuch alpha
check "an oversized key is refused and quoted" \
	expect 2 "*key*" $bc add f "0x$(head -c 1025 /dev/zero | od -An -v -tx1 | tr -d ' \n')"
check "a bad hex key is refused, exit 2" expect 2 "*0xZZ*" $bc test f 0xZZ
check "bits below the minimum are refused before the kernel" \
	expect 2 "*bits*" $bc create tiny bloom bits 8 hashes 1
check "an unknown type is refused" expect 2 "*type*" $bc create t2 nosuchtype bits 4096 hashes 3

bulk() {
	seq -f 'bulk-key-%g' 1 100000 > "$tmp/keys" &&
	$bc create big bloom capacity 100000 fpr 0.001 &&
	$bc add big -f "$tmp/keys" &&
	[ "$($bc test big -f "$tmp/keys" | tail -1)" = "100000 keys: 100000 present, 0 absent" ]
}
check "add -f of 100000 keys: every one present" bulk

few_messages() {
	# ~16 bytes a key, 60 KiB messages: ~27 sendmsg calls, not 100000.
	local calls
	calls=$(ASAN_OPTIONS=detect_leaks=0 strace -f -e trace=sendmsg,sendto -o "$tmp/st" $bc add big -f "$tmp/keys" &&
		grep -c -E 'send(msg|to)\(' "$tmp/st")
	echo "send calls: $calls"
	[ "$calls" -ge 20 ] && [ "$calls" -le 60 ]
}
if command -v strace >/dev/null; then
	check "add -f batches keys into few netlink messages" few_messages
fi

# -f FILE is pipelined: a thread sends each full message (about 5100 keys
# of 12 bytes on the wire here) while the next is parsed. Answers must still come back one a
# key, in the file's order, and an error in a later message must name its
# key and stop what follows. Their filters have a fixed hash key, so a
# false positive or a collision is the same in every run.
fixed_key=000102030405060708090a0b0c0d0e0f
ordered_answers() {
	local i
	$bc create cnt counting bits 1048576 hashes 3 counter-bits 8 key $fixed_key &&
	seq -f 'ord-%g' 1 18000 > "$tmp/ord" &&
	for i in 1 2 3; do $bc add cnt -f "$tmp/ord" || return 1; done &&
	$bc test cnt -f "$tmp/ord" | head -n 18000 | sed 's/ present$//' | cmp - "$tmp/ord" &&
	$bc count cnt -f "$tmp/ord" | awk '{print $1}' | cmp - "$tmp/ord" &&
	[ "$($bc count cnt -f "$tmp/ord" | awk '$2 < 3' | wc -l)" -eq 0 ]
}
check "test -f and count -f over 4 messages answer every key in file order" ordered_answers

later_message_fails() {
	# 18000 keys to delete (4 messages), a key never added in the 4th
	(cat "$tmp/ord"; echo never-added; echo ord-1) > "$tmp/del" &&
	expect 2 "bloomctl: unable to delete key 'never-added' from filter 'cnt' (the * keys of earlier messages stay deleted)*" \
		$bc del cnt -f "$tmp/del" &&
	# the message holding never-added was refused whole; earlier ones stay
	n=$($bc count cnt ord-1 | awk '{print $2}') && echo "count ord-1: $n" &&
	[ "$n" -eq 2 ] &&
	n=$($bc count cnt ord-18000 | awk '{print $2}') && echo "count ord-18000: $n" &&
	[ "$n" -eq 3 ] && $bc destroy cnt
}
check "del -f: a refused key in a later message is named; earlier messages stay deleted" \
	later_message_fails

bad_line_later() {
	local rc=0
	# 'after' absent must mean not added: at 18000 keys in 2^22 bits, k 3,
	# a false positive has p = 2e-6 (65536 bits gave 0.1).
	$bc create late bloom bits 4194304 hashes 3 key $fixed_key &&
	(cat "$tmp/ord"; echo 0xZZ; echo after) > "$tmp/late" &&
	expect 2 "bloomctl: invalid key at *late:18001 '0xZZ': 'Z' is not a hex digit" \
		$bc add late -f "$tmp/late" &&
	expect 0 "*ord-18000 present*" $bc test late -f "$tmp/ord" &&
	expect 1 "*after absent" $bc test late after || rc=1
	$bc destroy late || rc=1
	return $rc
}
check "add -f: a bad line is named; every key before it is added, none after" \
	bad_line_later

# A mistyped option is refused, not added: nothing reaches the filter.
option_typo() {
	local before
	before=$($bc -j show f | python3 -c 'import json,sys; print(json.load(sys.stdin)["inserts"])') &&
	expect 2 "bloomctl: add: '--file' looks like an option, not a key*" \
		$bc add f --file keys.txt &&
	expect 2 "bloomctl: test: '-F' looks like an option*" $bc test f keys.txt -F &&
	expect 2 "bloomctl: del: '--file' looks like an option*" $bc del f --file x &&
	expect 2 "bloomctl: count: '--file' looks like an option*" $bc count f --file x &&
	[ "$($bc -j show f | python3 -c 'import json,sys; print(json.load(sys.stdin)["inserts"])')" = "$before" ] &&
	expect 1 "--file absent" $bc test f -- --file
}
check "add/test/del/count: a word like an option among the keys is refused, nothing added" \
	option_typo

stdin_keys() {
	printf 'x1\nx2\r\nx3\n' | $bc add f -f - && $bc test f x1 x2 x3
}
check "add -f - reads stdin, strips CR" stdin_keys

check "an empty line in -f FILE is an error naming the line" \
	expect 2 "*2*" bash -c "printf 'a\n\nb\n' | $bc add f -f -"

absent_fpr() {
	local present
	seq -f 'other-%g' 1 100000 > "$tmp/other"
	present=$($bc -j test big -f "$tmp/other" | json '["present"]')
	echo "false positives: $present / 100000 (design 0.1%)"
	# 99.9% binomial bound around 100 expected.
	[ "$present" -le 140 ]
}
check "keys never added are absent at about the design rate" absent_fpr

json_show() {
	$bc -j show big | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["name"] == "big" and d["type"] == "bloom", d
assert d["inserts"] == 200000, d  # two bulk adds of the same keys
assert 0 < d["fill"] < d["bits"], d
assert abs(d["estimated_keys"] - 100000) / 100000 < 0.02, d
'
}
check "show -j is JSON with counters and a cardinality estimate within 2%" json_show

check "list -j is a JSON array of every filter" bash -c \
	"$bc -j list | python3 -c 'import json,sys; assert sorted(f[\"name\"] for f in json.load(sys.stdin)) == [\"big\",\"f\",\"sized\"]'"

cleared() {
	$bc clear f && [ "$($bc -j show f | json '["fill"]')" -eq 0 ] &&
	! $bc test f alpha
}
check "clear empties the filter and keeps it" cleared

netns() {
	$bc add f beta && ip netns add kb-t1 &&
	$bc -n kb-t1 create f bloom bits 4096 hashes 2 &&
	[ "$($bc -n kb-t1 list | wc -l)" -eq 1 ] &&
	! $bc -n kb-t1 test f beta && $bc test f beta
}
check "-n NETNS: a separate registry, same names allowed" netns
check "-n with an unknown netns is an error naming it" \
	expect 2 "*nosuchns*" $bc -n nosuchns list

unpriv() {
	expect 2 "*Operation not permitted (kbloom needs CAP_NET_ADMIN in the initial user namespace*" \
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		$bc test f beta &&
	expect 2 "*Operation not permitted*" \
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		$bc create evil bloom bits 4096 hashes 2 &&
	! $bc show evil 2>/dev/null
}
check "an unprivileged user is refused every command" unpriv

# A create past a module limit: exit 2, nothing made, and the figures
# named (6.2+ kernels format them in; on 6.1 bloomctl adds them from
# STATUS). The limits are set for the check, then put back.
params=/sys/module/kbloom/parameters
over_memory() {
	local old rc=0
	old=$(cat $params/max_memory)
	echo 4096 >$params/max_memory
	expect 2 "*unable to create filter 'overmem'*of max_memory 4096 in use*" \
		$bc create overmem bloom bits 65536 hashes 4 || rc=1
	# and the bytes it needs: 6.2+ kernels say them (cells and
	# bookkeeping); on 6.1 bloomctl adds its cells, 65536 bits
	expect 2 "*filter needs [0-9]* B; *" \
		$bc create overmem bloom bits 65536 hashes 4 ||
		expect 2 "*; its cells need 8192 B)" \
			$bc create overmem bloom bits 65536 hashes 4 || rc=1
	# time-paged: 4 windows and the spare, 5 tables of 8192 B
	expect 2 "*filter needs [0-9]* B; *" \
		$bc create overmem bloom bits 65536 hashes 4 windows 4 interval 1h ||
		expect 2 "*; its cells need 40960 B)" \
			$bc create overmem bloom bits 65536 hashes 4 windows 4 interval 1h ||
		rc=1
	echo "$old" >$params/max_memory
	! $bc show overmem 2>/dev/null && return $rc
}
check "create past max_memory: refused with what it needs, what is in use and the limit" over_memory
# A create the memory cgroup refuses (48 MiB for 64 MiB of cells) names
# what it needs, and nothing is made.
over_memcg() {
	local cg=/sys/fs/cgroup/kbloom-bc-$$ rc=0
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control && mkdir $cg &&
		echo 48M >$cg/memory.max || return 1
	expect 2 "*unable to create filter 'overcg'*cannot allocate filter memory*" \
		bash -c "echo \$\$ >$cg/cgroup.procs && exec $bc create overcg bloom bits 536870912 hashes 3" &&
	{ expect 2 "*cannot allocate filter memory: filter needs 671[0-9][0-9][0-9][0-9][0-9] B)" \
		bash -c "echo \$\$ >$cg/cgroup.procs && exec $bc create overcg bloom bits 536870912 hashes 3" ||
	  expect 2 "*cannot allocate filter memory; its cells need 67108864 B)" \
		bash -c "echo \$\$ >$cg/cgroup.procs && exec $bc create overcg bloom bits 536870912 hashes 3"; } ||
		rc=1
	rmdir $cg
	! $bc show overcg 2>/dev/null && return $rc
}
check "create refused by the memory cgroup: names the bytes the filter needs" over_memcg
# calc's memory of a time-paged filter is what the module allocates for its
# cells: show's memory adds only the bookkeeping (window records, per-CPU
# counters, the filter object: 920 B + 196 B per table with 2 CPUs).
calc_vs_show() {
	local calc1 calc5 mem1 mem5
	$bc create cw1 bloom bits 1048576 hashes 4 &&
	$bc create cw5 bloom bits 1048576 hashes 4 windows 4 interval 1h || return 1
	calc1=$($bc -j calc bits 1048576 hashes 4 capacity 1000 type bloom |
		json '["types"][0]["bytes"]') &&
	calc5=$($bc -j calc bits 1048576 hashes 4 capacity 1000 type bloom \
		windows 4 interval 1h | json '["types"][0]["total_bytes"]') &&
	mem1=$($bc -j show cw1 | json '["memory"]') &&
	mem5=$($bc -j show cw5 | json '["memory"]') || return 1
	echo "calc: $calc1 / $calc5 B of cells; show: $mem1 / $mem5 B;" \
		"bookkeeping $((mem1 - calc1)) / $((mem5 - calc5)) B"
	$bc destroy cw1 && $bc destroy cw5 &&
	[ "$calc1" -eq 131072 ] && [ "$calc5" -eq $((5 * 131072)) ] &&
	[ $((mem1 - calc1)) -ge 0 ] && [ $((mem1 - calc1)) -lt 8192 ] &&
	[ $((mem5 - calc5)) -ge 0 ] && [ $((mem5 - calc5)) -lt 8192 ]
}
check "calc windows W: W + 1 tables, what show's memory holds but for a few KiB of bookkeeping" \
	calc_vs_show
check "calc with windows: text total column and the memory line" \
	expect 0 "*windows 60 of 1m: 61 tables (the windows and a spare); total = 61 x bytes
type * total *
bloom         19170176 13    2396272    146172592 *
memory: 146172592 bytes (139.4 MiB) of cells in 61 tables" \
	$bc calc capacity 1000000 fpr 0.0001 type bloom windows 60 interval 1m
check "calc: windows without interval is a usage error" \
	expect 2 "bloomctl: calc: 'windows' needs 'interval DURATION'*" \
	$bc calc capacity 1000 fpr 0.01 windows 4
check "calc: a scalable filter takes no windows (exit 2)" \
	expect 2 "bloomctl: unable to size a scalable filter: takes no windows (it grows)" \
	$bc calc capacity 1000 fpr 0.01 type scalable windows 4 interval 1m
over_filters() {
	local old rc=0
	old=$(cat $params/max_filters)
	echo 1 >$params/max_filters
	# the kernel's words, then bloomctl's figures (6.1) or the kernel's (6.2+)
	expect 2 "*unable to create filter 'g'*max_filters*" \
		$bc -n kb-t1 create g bloom bits 4096 hashes 2 &&
	expect 2 "*max_filters filters already: 1 of max_filters 1)" \
		$bc -n kb-t1 create g bloom bits 4096 hashes 2 ||
	expect 2 "*namespace holds 1 filters, the limit max_filters)" \
		$bc -n kb-t1 create g bloom bits 4096 hashes 2 || rc=1
	echo "$old" >$params/max_filters
	! $bc -n kb-t1 show g 2>/dev/null && return $rc
}
check "create past max_filters: refused with the count and the limit" over_filters

# query and time: a filter holds what happened from the start of its oldest
# window (its creation while window 1 is kept) to now. A range outside that
# is "not recorded", one beginning before it absent only in part: never a
# bare "absent" (which is certain). @PKT is added (its spie digest), PKT2
# never is.
PKT=4500001c00010000401166ce0a0000010a00000213890fa000080000
PKT2=4500001c00010000401166c60a0000090a000002138a0fa000080000
future() { date -d '+1 hour' +%Y-%m-%dT%H:%M:%S; }
qt_setup() {
	$bc create qt bloom bits 65536 hashes 4 &&
	$bc add qt "$($bc digest packet $PKT)" && sleep 2
}
check "query time ranges: a filter without windows, one key added" qt_setup
check "query until before the filter existed: not recorded, exit 1" \
	expect 1 "1 UDP 10.0.0.1:5001 > 10.0.0.2:4000: not recorded (before the oldest window, 20*)
1 packets: 0 present, 0 absent, 1 not recorded, 0 skipped" \
	$bc query qt packet $PKT until -1h
check "query since after now: not recorded (after now), exit 1" \
	expect 1 "*: not recorded (after now)
1 packets: 0 present, 0 absent, 1 not recorded, 0 skipped" \
	$bc query qt packet $PKT since "$(future)"
check "query since before the filter existed: a packet never added is absent only in part" \
	expect 1 "*: absent from the oldest window on (20*), not recorded before
1 packets: 0 present, 0 absent, 1 not recorded, 0 skipped" \
	$bc query qt packet $PKT2 since -1h
check "query since before the filter existed: an added packet is present (exit 0)" \
	expect 0 "*: window 1 (*)
1 packets: 1 present, 0 absent, 0 not recorded, 0 skipped" \
	$bc query qt packet $PKT since -1h until now
check "query of a range the filter covers: a packet never added is absent (certain)" \
	expect 1 "*: absent
1 packets: 0 present, 1 absent, 0 not recorded, 0 skipped" \
	$bc query qt packet $PKT2 since -1s
check "query without since/until: absent for what the filter holds" \
	expect 1 "*: absent
1 packets: 0 present, 1 absent, 0 not recorded, 0 skipped" \
	$bc query qt packet $PKT2
query_time_json() {
	local start
	# window 1, created with the filter, as query lists it
	start=$($bc -j query qt packet $PKT | json '["windows"][0]["start_ns"]') &&
	$bc -j query qt packet $PKT until -1h >"$tmp/q1.json"
	[ $? -eq 1 ] && $bc -j query qt packet $PKT2 since -1h >"$tmp/q2.json"
	[ $? -eq 1 ] && $bc -j query qt packet $PKT2 >"$tmp/q3.json"
	[ $? -eq 1 ] && python3 - "$tmp" "$start" <<'PY'
import json, sys
d = [json.load(open("%s/q%d.json" % (sys.argv[1], i))) for i in (1, 2, 3)]
for x in d:
    print(x["oldest_ns"], x["packets"][0]["status"],
          x["absent"], x["not_recorded"])
    assert x["oldest_ns"] == int(sys.argv[2]), x["oldest_ns"]
    assert x["packets"][0]["present"] is False
assert d[0]["packets"][0]["status"] == "not recorded"
assert (d[0]["absent"], d[0]["not_recorded"]) == (0, 1)
assert d[1]["packets"][0]["status"] == "absent in part"
assert (d[1]["absent"], d[1]["not_recorded"]) == (0, 1)
assert d[2]["packets"][0]["status"] == "absent"
assert (d[2]["absent"], d[2]["not_recorded"]) == (1, 0)
PY
}
check "query -j: status not recorded / absent in part / absent, oldest, counts" \
	query_time_json
# A time-paged filter whose first window has been dropped: 2 windows of 1 s,
# 3.5 s on. Since 1 h ago is partly before its oldest window.
query_dropped() {
	local old
	$bc create qw bloom bits 65536 hashes 4 windows 2 interval 1s &&
	$bc add qw "$($bc digest packet $PKT)" && sleep 3.5 &&
	old=$($bc -j show qw | json '["window_list"][-1]["id"]') &&
	echo "oldest window kept: $old" && [ "$old" -gt 1 ] &&
	expect 1 "*: absent from the oldest window on (20*), not recorded before*" \
		$bc query qw packet $PKT since -1h &&
	expect 1 "*: not recorded (before the oldest window, 20*)*" \
		$bc query qw packet $PKT until -3s
}
check "query on a time-paged filter after its first window dropped: not recorded, not absent" \
	query_dropped

# ---- --exist: a setup script may run again --------------------------------
# The script: every kind of create (sized, by bits, with key, windows,
# multi dims, scalable) and an attach, each with --exist.
cat >"$tmp/setup.sh" <<SETUP
set -e
$bc --exist create ex-sized bloom capacity 10000 fpr 0.01
$bc --exist create ex-bits counting bits 4096 hashes 3 counter-bits 8
$bc --exist create ex-key bloom bits 4096 hashes 3 key 000102030405060708090a0b0c0d0e0f
$bc --exist create ex-win dleft capacity 1000 fpr 0.01 windows 4 interval 1h
$bc --exist create ex-multi multi bits 4096 hashes 3 dims src,dst,dport
$bc --exist create ex-scal scalable bits 4096 hashes 3 capacity 100 growth 4
$bc -e attach ex-multi hook forward dev lo digest multi
SETUP
setup_twice() {
	local before after
	bash "$tmp/setup.sh" || { echo "first run failed"; return 1; }
	$bc add ex-sized kept || return 1
	before=$($bc -j list)
	bash "$tmp/setup.sh" || { echo "second run failed"; return 1; }
	after=$($bc -j list)
	# nothing made anew: same filters, counters, generations, attachment
	[ "$before" = "$after" ] ||
		{ diff <(echo "$before") <(echo "$after") | head; return 1; }
	$bc test ex-sized kept >/dev/null
}
check "--exist: a setup script run twice exits 0 and changes nothing" setup_twice
check "without --exist the same create is still refused (File exists)" \
	expect 2 "bloomctl: unable to create filter 'ex-bits': File exists (kernel: a filter of that name exists in this namespace)" \
	$bc create ex-bits counting bits 4096 hashes 3 counter-bits 8
check "--exist: other bits are refused, naming them" \
	expect 2 "bloomctl: unable to create filter 'ex-bits': File exists (kernel: a filter of that name exists with other bits (BITS))" \
	$bc --exist create ex-bits counting bits 8192 hashes 3 counter-bits 8
check "--exist: another type is refused, naming it" \
	expect 2 "*exists, of another type)" \
	$bc --exist create ex-bits bloom bits 4096 hashes 3
check "--exist: other counter bits are refused, naming them" \
	expect 2 "*exists with other counter bits (COUNTER_BITS))" \
	$bc --exist create ex-bits counting bits 4096 hashes 3 counter-bits 16
check "--exist: another hash key is refused, naming it" \
	expect 2 "*exists with another hash key (HASH_KEY))" \
	$bc --exist create ex-key bloom bits 4096 hashes 3 key 00000000000000000000000000000001
check "--exist: no key given matches the filter's key" \
	expect 0 "" $bc --exist create ex-key bloom bits 4096 hashes 3
check "--exist: another interval is refused, naming it" \
	expect 2 "*exists with another interval (INTERVAL))" \
	$bc --exist create ex-win dleft capacity 1000 fpr 0.01 windows 4 interval 2h
check "--exist: no windows where there are is refused, naming them" \
	expect 2 "*exists with other windows (WINDOWS))" \
	$bc --exist create ex-win dleft capacity 1000 fpr 0.01
check "--exist: other dimension names are refused, naming them" \
	expect 2 "*exists with other dimensions (DIMS))" \
	$bc --exist create ex-multi multi bits 4096 hashes 3 dims src,dst,sport
check "--exist: another growth is refused, naming it" \
	expect 2 "*exists with another growth (GROWTH))" \
	$bc --exist create ex-scal scalable bits 4096 hashes 3 capacity 100
check "--exist: another capacity is refused, naming it" \
	expect 2 "*exists with another capacity (CAPACITY))" \
	$bc --exist create ex-key bloom bits 4096 hashes 3 capacity 100
check "--exist attach: another hook is refused, naming it" \
	expect 2 "*attached already, at another HOOK)" \
	$bc --exist attach ex-multi hook input dev lo digest multi
check "--exist attach: another device is refused, naming it" \
	expect 2 "*attached already, to another IFNAME)" \
	$bc --exist attach ex-multi hook forward digest multi
check "without --exist the same attach is still refused" \
	expect 2 "*attached already; DETACH it first)" \
	$bc attach ex-multi hook forward dev lo digest multi
check "--exist on a command that makes nothing is refused" \
	expect 2 "bloomctl: option --exist applies to create, attach and batch, not to 'list'" \
	$bc --exist list
exist_batch() {
	printf 'create ex-b bloom bits 4096 hashes 3\nlist\n' >"$tmp/ex.batch"
	$bc --exist batch "$tmp/ex.batch" >/dev/null &&
		$bc --exist batch "$tmp/ex.batch" >/dev/null &&
		! $bc batch "$tmp/ex.batch" >/dev/null 2>&1
}
check "--exist batch: its create lines may run again, other lines as ever" exist_batch
exist_race() {
	local i pids=() rc=0
	for i in 1 2 3 4 5 6; do
		$bc --exist create ex-race bloom capacity 5000 fpr 0.001 & pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	[ $rc = 0 ] && [ "$($bc list | grep -c '^ex-race ')" = 1 ]
}
check "--exist: six creates of one filter at once all succeed, one filter" exist_race

# Commands abbreviated as iproute2 takes them; -json as it spells it.
check "a prefix of one command is that command: 'li' is list" \
	bash -c "[ \"\$($bc li)\" = \"\$($bc list)\" ] && [ -n \"\$($bc li)\" ]"
check "... and its messages name it in full" \
	expect 2 "bloomctl: show: unexpected argument 'x' (see 'bloomctl show --help')" $bc sh f x
check "a prefix of several is an error naming them, exit 2" \
	expect 2 "bloomctl: ambiguous command 'd': destroy, del, detach, digest (see 'bloomctl --help')" $bc d f
check "-json is -j" bash -c "[ \"\$($bc -json show f)\" = \"\$($bc -j show f)\" ] && $bc -json show f | grep -q '^{'"

# A key that is not UTF-8 comes out of test -j and count -j in hex, and
# that text is the key: given back, it is present.
non_utf8_key() {
	local k got
	$bc add f "$(printf 'caf\351')" &&
	got=$($bc -j test f "$(printf 'caf\351')" | json '["results"][0]["key"]') &&
	echo "key in JSON: $got" && [ "$got" = 0x636166e9 ] &&
	expect 0 "0x636166e9 present" $bc test f "$got" &&
	$bc create nu counting bits 4096 hashes 3 key $fixed_key &&
	$bc add nu "$(printf '\377x')" "$(printf '\377x')" &&
	got=$($bc -j count nu "$(printf '\377x')" | json '["counts"][0]') &&
	echo "count -j: $got" && [ "$got" = "{'key': '0xff78', 'count': 2}" ] &&
	expect 0 "0xff78 2" $bc count nu 0xff78 &&
	$bc destroy nu
}
check "a key that is not UTF-8: test -j and count -j give its hex, which names the same key" non_utf8_key

# --version: bloomctl's version and the module's, from its STATUS reply.
version=$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' dkms.conf)
same_version() {
	local out err rc
	out=$($bc --version 2>"$tmp/err")
	rc=$?
	err=$(cat "$tmp/err")
	echo "exit $rc: $out / stderr: $err / sysfs: $(cat /sys/module/kbloom/version)"
	[ $rc -eq 0 ] && [ -z "$err" ] &&
	[ "$out" = "$(printf 'bloomctl %s\nkbloom module %s' "$version" "$version")" ] &&
	[ "$(cat /sys/module/kbloom/version)" = "$version" ]
}
check "--version: bloomctl's and the loaded module's version (dkms.conf's), no warning" same_version
check "-V is --version" bash -c "[ \"\$($bc -V)\" = \"\$($bc --version)\" ]"
# A bloomctl of another version: the same objects, version.o built anew.
other_version() {
	local out err rc
	cc -c -o "$tmp/version.o" -DKBLOOM_VERSION='"0.0-other"' \
		$(pkg-config --cflags libnl-genl-3.0) userspace/version.c &&
	cc -o "$tmp/bloomctl-other" $(ls userspace/*.o | grep -vx userspace/version.o) \
		"$tmp/version.o" $(pkg-config --libs libnl-genl-3.0 libzstd) -lm || return 1
	out=$("$tmp/bloomctl-other" --version 2>"$tmp/err")
	rc=$?
	err=$(cat "$tmp/err")
	echo "exit $rc: $out / stderr: $err"
	[ $rc -eq 0 ] &&
	[ "$out" = "$(printf 'bloomctl 0.0-other\nkbloom module %s' "$version")" ] &&
	[ "$err" = "bloomctl: warning: bloomctl 0.0-other and the loaded kbloom module $version differ: load the module built with this bloomctl" ]
}
check "--version: a bloomctl of another version warns on stderr, exit 0" other_version

check "destroy one" bash -c "$bc destroy sized && ! $bc show sized 2>/dev/null"
check "destroy all" bash -c "$bc destroy all && [ -z \"\$($bc list)\" ]"

finish
