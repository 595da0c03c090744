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

# expect RC OUTPUT-PATTERN command...: exit status and combined output.
expect() {
	local want=$1 pat=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	echo "exit $rc: $out" | head -5
	[ $rc -eq "$want" ] && [[ $out == $pat ]]
}

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
	echo "$old" >$params/max_memory
	! $bc show overmem 2>/dev/null && return $rc
}
check "create past max_memory: refused with what is in use and the limit" over_memory
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
