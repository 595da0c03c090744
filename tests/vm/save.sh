#!/bin/bash
# save, restore and archive against the loaded module, in the test VM:
#
#   bloomctl save f FILE    --EXPORT dump--> savefile writer --> FILE
#   bloomctl restore FILE as g --verify FILE, CREATE g LOAD, IMPORT..., LOADED
#   bloomctl archive f DIR once --GET, EXPORT window ID--> DIR/f.<id>.kbf
#
# save all DIR / restore all DIR: every type of a namespace, into a fresh
# module load, with the same answers; all or nothing on a bad file or a
# name taken; DIR replaced whole.
# Every type round-trips (with and without zstd): the restored filter
# answers test (and count) exactly as the original on the added keys and
# on 1000 others; scalable filters (grown to several slices) and dcfs
# (counts past their small counters) come back with the same layout. A damaged or truncated file is refused, naming it, and no
# filter is created. Archived windows restore to filters holding exactly
# the keys added during that window. Save and archive files (they hold the
# hash key) are mode 0600 whatever the umask, and a link planted where the
# save writes is not followed.
# KBLOOM_SAVE_BENCH=1 also measures save/restore of a 64 MiB bloom filter.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=userspace/bloomctl
tmp=$(mktemp -d)
trap '$bc destroy all >/dev/null 2>&1; rm -rf "$tmp"' EXIT

seq -f 'added-%g' 1 500 > "$tmp/added"
seq -f 'other-%g' 1 1000 > "$tmp/others"
seq 1 500 | sed 's/.*/src=s&,dst=d&/' > "$tmp/added.multi"
# other tuples: unknown pairs, and single dimensions of known and unknown values
{ seq 1 400 | sed 's/.*/src=x&,dst=y&/'; seq 1 300 | sed 's/.*/src=s&/';
  seq 1 300 | sed 's/.*/dst=z&/'; } > "$tmp/others.multi"

# same_answers A B KEYFILE [count]: test (and count) outputs identical.
same_answers() {
	local a=$1 b=$2 keys=$3 ra rb
	$bc test "$a" -f "$keys" > "$tmp/ta"; ra=$?
	$bc test "$b" -f "$keys" > "$tmp/tb"; rb=$?
	[ $ra -le 1 ] && [ $ra -eq $rb ] || { echo "test exit $ra vs $rb"; return 1; }
	cmp "$tmp/ta" "$tmp/tb" || { diff "$tmp/ta" "$tmp/tb" | head; return 1; }
	if [ "${4:-}" = count ]; then
		$bc count "$a" -f "$keys" > "$tmp/ca" || return 1
		$bc count "$b" -f "$keys" > "$tmp/cb" || return 1
		cmp "$tmp/ca" "$tmp/cb" || { diff "$tmp/ca" "$tmp/cb" | head; return 1; }
	fi
}

round_trip() {
	local type=$1 z=$2 extra=() sfx="" cnt="" added=$tmp/added others=$tmp/others
	local f=rt-$type$z
	[ "$type" = multi ] && { extra=(dims src,dst); added=$tmp/added.multi; others=$tmp/others.multi; }
	[ "$z" = z ] && sfx="compress zstd"
	case $type in counting|dleft) cnt=count ;; esac
	$bc create "$f" "$type" capacity 2000 fpr 0.01 "${extra[@]}" || return 1
	$bc add "$f" -f "$added" || return 1
	# counts above 1 for some keys
	[ -n "$cnt" ] && { head -100 "$added" | $bc add "$f" -f - || return 1; }
	$bc save "$f" "$tmp/$f.kbf" $sfx || return 1
	[ ! -e "$tmp/$f.kbf.tmp" ] || { echo "temp file left"; return 1; }
	$bc restore "$tmp/$f.kbf" as "$f-r" || return 1
	$bc show "$f-r" | head -3
	same_answers "$f" "$f-r" "$added" $cnt || return 1
	same_answers "$f" "$f-r" "$others" $cnt || return 1
	# the added keys really are there (stable may forget a few)
	[ "$type" = stable ] || $bc test "$f-r" -f "$added" >/dev/null || return 1
	# restore without 'as' uses the saved name: taken, refused
	expect 2 "bloomctl: *'$f'*File exists*" $bc restore "$tmp/$f.kbf" || return 1
}

for type in bloom partitioned blocked counting dleft stable multi; do
	check "$type: save, restore as another name, same answers" round_trip "$type" ""
	check "$type: the same with compress zstd" round_trip "$type" z
done

check "zstd file is smaller than the plain one (bloom, 500 keys)" \
	test "$(stat -c %s "$tmp/rt-bloomz.kbf")" -lt "$(stat -c %s "$tmp/rt-bloom.kbf")"
check "FILE - writes to stdout, restore - reads stdin" bash -c "
	$bc save rt-bloom - | $bc restore - as from-stdin &&
	$bc test from-stdin -f $tmp/added >/dev/null"

list_unchanged() {
	local before after
	before=$($bc list | awk '{print $1}' | sort)
	"$@"
	after=$($bc list | awk '{print $1}' | sort)
	[ "$before" = "$after" ] || { echo "list changed: $before -> $after"; return 1; }
}

corrupt() {
	cp "$tmp/rt-counting.kbf" "$tmp/bad.kbf"
	# one bit of one cell byte
	python3 -c "
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[344 + 1000] ^= 0x04
open(p, 'wb').write(b)" "$tmp/bad.kbf"
	local out rc
	out=$($bc restore "$tmp/bad.kbf" as bad 2>&1); rc=$?
	echo "exit $rc: $out"
	[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
		[[ $out == *"$tmp/bad.kbf"*CRC* ]] &&
		! $bc show bad >/dev/null 2>&1
}
check "a flipped byte is refused, one line naming the file, no filter" \
	list_unchanged corrupt

corrupt_z() {
	cp "$tmp/rt-bloomz.kbf" "$tmp/badz.kbf"
	local size
	size=$(stat -c %s "$tmp/badz.kbf")
	# flipped, not overwritten: the byte there may already be the one written
	python3 -S -c "
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[$((size / 2))] ^= 0x55
open(p, 'wb').write(b)" "$tmp/badz.kbf"
	expect 2 "bloomctl: *$tmp/badz.kbf*" $bc restore "$tmp/badz.kbf" as badz &&
		! $bc show badz >/dev/null 2>&1
}
check "a damaged compressed file is refused, no filter" list_unchanged corrupt_z

truncated() {
	head -c 5000 "$tmp/rt-dleft.kbf" > "$tmp/short.kbf"
	local out rc
	out=$($bc restore "$tmp/short.kbf" as short 2>&1); rc=$?
	echo "exit $rc: $out"
	[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
		[[ $out == *"$tmp/short.kbf"*truncated* ]] &&
		! $bc show short >/dev/null 2>&1
}
check "a truncated file is refused, one line naming the file, no filter" \
	list_unchanged truncated
check "a missing file is refused, naming it" \
	expect 2 "bloomctl: *$tmp/nosuch.kbf*No such file*" $bc restore "$tmp/nosuch.kbf"
check "restore into an existing name is refused" \
	list_unchanged expect 2 "bloomctl: *'rt-bloom'*File exists*" \
	$bc restore "$tmp/rt-counting.kbf" as rt-bloom
save_unknown() {
	local rc
	$bc save nosuch "$tmp/nosuch.kbf"; rc=$?
	[ $rc -eq 2 ] && ! ls "$tmp" | grep '^nosuch\.kbf'
}
check "save of an unknown filter fails, exit 2, no file left" save_unknown

# ---- a save file holds the hash key: private, and no link followed ------
file_mode() {
	local m
	(umask 000 && $bc save rt-bloom "$tmp/mode.kbf") || return 1
	m=$(stat -c %a "$tmp/mode.kbf")
	echo "mode $m; $(ls "$tmp" | grep '^mode\.kbf')"
	[ "$m" = 600 ] && [ "$(ls "$tmp" | grep '^mode\.kbf')" = mode.kbf ]
}
check "save with umask 000: the file is mode 0600, no temp file left" file_mode
planted() {
	# Links to a victim file where the save will write: at the temp
	# name bloomctl used to take (FILE.tmp) and at FILE itself.
	echo victim >"$tmp/victim"
	ln -s "$tmp/victim" "$tmp/planted.kbf.tmp"
	ln -s "$tmp/victim" "$tmp/planted.kbf"
	$bc save rt-bloom "$tmp/planted.kbf" || return 1
	echo "victim now: $(head -c 20 "$tmp/victim" | od -c | head -1)"
	echo victim | cmp -s - "$tmp/victim" && [ ! -L "$tmp/planted.kbf" ] &&
		[ -f "$tmp/planted.kbf" ] && [ -L "$tmp/planted.kbf.tmp" ] &&
		$bc restore "$tmp/planted.kbf" as planted && $bc destroy planted
}
check "save follows no link planted at FILE or FILE.tmp: the link's target is untouched" planted
check "save into a missing directory fails, exit 2, naming it" \
	expect 2 "bloomctl: *$tmp/no/dir/f.kbf*" $bc save rt-bloom "$tmp/no/dir/f.kbf"
check "save: bad arguments refused" expect 2 "*compress*" $bc save rt-bloom "$tmp/x.kbf" compress lz4

# ---- scalable and dcf: format version 2, with their layout -------------
# layout FILTER: the slices or the overflow vector, and their counters,
# as show -j reports them (slices: bits, hashes, capacity, keys, fill,
# current).
layout() {
	$bc -j show "$1" | python3 -c "
import json, sys
d = json.load(sys.stdin)
print(d.get('slices'), d.get('overflow'), d.get('ofv_bits'), d.get('lost'),
      d.get('fill'), d.get('memory'))"
}
version_of() {
	python3 -c "import sys; print(int.from_bytes(open(sys.argv[1], 'rb').read()[8:12], 'little'))" "$1"
}

scalable_rt() {
	local z=$1 sfx="" f=sc$1 n
	[ "$z" = z ] && sfx="compress zstd"
	# 500 keys at 100 keys for slice 0: slices of 100, 200, 400, ...
	$bc create "$f" scalable capacity 100 fpr 0.01 || return 1
	$bc add "$f" -f "$tmp/added" || return 1
	n=$($bc -j show "$f" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["slices"]))')
	echo "$n slices"
	[ "$n" -ge 3 ] || return 1
	$bc save "$f" "$tmp/$f.kbf" $sfx || return 1
	[ "$(version_of "$tmp/$f.kbf")" = 2 ] || { echo "not version 2"; return 1; }
	$bc restore "$tmp/$f.kbf" as "$f-r" || return 1
	$bc show "$f-r" | sed 's/^/# /' | head -12
	$bc test "$f-r" -f "$tmp/added" >/dev/null || { echo "an added key is absent"; return 1; }
	same_answers "$f" "$f-r" "$tmp/added" || return 1
	same_answers "$f" "$f-r" "$tmp/others" || return 1
	[ "$(layout "$f")" = "$(layout "$f-r")" ] ||
		{ layout "$f"; layout "$f-r"; echo "show differs"; return 1; }
	# and it goes on growing as the original would
	seq -f 'more-%g' 1 800 | $bc add "$f-r" -f - >/dev/null || return 1
	seq -f 'more-%g' 1 800 | $bc test "$f-r" -f - >/dev/null
}
check "scalable (>= 3 slices): save (version 2), restore: same answers, same slices" scalable_rt ""
check "scalable: the same with compress zstd" scalable_rt z

dcf_rt() {
	local z=$1 sfx="" f=dc$1
	[ "$z" = z ] && sfx="compress zstd"
	$bc create "$f" dcf capacity 2000 fpr 0.01 counter-bits 4 || return 1
	$bc add "$f" -f "$tmp/added" || return 1
	# one key 1000 times: its 4-bit counters overflow, the OFV widens
	seq 1000 | sed 's/.*/hot/' | $bc add "$f" -f - || return 1
	head -100 "$tmp/added" | $bc add "$f" -f - || return 1
	$bc count "$f" hot | sed 's/^/# /'
	$bc save "$f" "$tmp/$f.kbf" $sfx || return 1
	[ "$(version_of "$tmp/$f.kbf")" = 2 ] || { echo "not version 2"; return 1; }
	$bc restore "$tmp/$f.kbf" as "$f-r" || return 1
	$bc show "$f-r" | sed 's/^/# /' | head -12
	same_answers "$f" "$f-r" "$tmp/added" count || return 1
	same_answers "$f" "$f-r" "$tmp/others" count || return 1
	[ "$($bc count "$f" hot)" = "$($bc count "$f-r" hot)" ] || return 1
	$bc -j count "$f-r" hot | python3 -c "
import json, sys
d = json.load(sys.stdin)
print('# hot:', d)
c = [k['count'] for k in d['counts']]
assert 1000 <= c[0] <= 1010, c" || return 1
	[ "$(layout "$f")" = "$(layout "$f-r")" ] ||
		{ layout "$f"; layout "$f-r"; echo "show differs"; return 1; }
	# counts go on exactly: del of hot, both
	$bc del "$f" hot && $bc del "$f-r" hot &&
		[ "$($bc count "$f" hot)" = "$($bc count "$f-r" hot)" ]
}
check "dcf (counts overflowed 4 bits): save (version 2), restore: every count equal" dcf_rt ""
check "dcf: the same with compress zstd" dcf_rt z

# A damaged v2 file: bytes of the layout (growth, ofv/slice count, the
# current slice, a slice's bits, hashes, keys), of the cells and of the
# trailer, one at a time; and cuts. Each refused, one line naming the
# file, no filter left.
bad_v2() {
	local src=$1 off=$2 how=$3 out rc
	rm -f "$tmp/bad2.kbf"
	if [ "$how" = cut ]; then
		head -c "$off" "$src" > "$tmp/bad2.kbf" || return 1
	else
		python3 -c "
import sys
p, o = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, 'rb').read())
b[o] ^= 0x10
open(sys.argv[3], 'wb').write(b)" "$src" "$off" "$tmp/bad2.kbf" || return 1
	fi
	out=$($bc restore "$tmp/bad2.kbf" as bad2 2>&1); rc=$?
	echo "$how $off: exit $rc: $out"
	[ $rc -eq 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] &&
		[[ $out == *"$tmp/bad2.kbf"*byte* ]] &&
		! $bc show bad2 >/dev/null 2>&1
}
damaged_v2() {
	local f size o
	for f in "$tmp/sc.kbf" "$tmp/dc.kbf"; do
		[ -s "$f" ] || { echo "no $f"; return 1; }
		[ "$(version_of "$f")" = 2 ] || return 1
		size=$(stat -c %s "$f")
		for o in 8 48 344 352 356 360 376 384 400 440 1400 $((size / 2)) $((size - 12)) $((size - 1)); do
			bad_v2 "$f" $o flip || return 1
		done
		for o in 16 344 1000 1400 $((size / 2)) $((size - 16)) $((size - 1)); do
			bad_v2 "$f" $o cut || return 1
		done
	done
}
check "damaged or truncated version 2 files are refused, no filter left" \
	list_unchanged damaged_v2
check "archive of a scalable filter is refused, naming the type" \
	expect 2 "*scalable filter*no windows*save*" $bc archive sc "$tmp"

# ---- archive ----------------------------------------------------------
# Under emulation (TCG) one bloomctl run takes ~1 s, as long as a window:
# so no polling from here. An archiver follows the filter from its
# creation (it polls cheaply, from one process), keys are added, then
# 'archive once' runs after two rotations or more; its files must hold
# the very windows the follower wrote (header, cells), and the follower's files must
# hold each key set in exactly one window.
archive_once() {
	local F=$tmp/arch-follow O=$tmp/arch pid rc f n hold1=0 hold2=0
	mkdir -p "$F" "$O"
	$bc create ar bloom capacity 10000 fpr 0.001 windows 3 interval 1s || { echo "failed at line $LINENO"; return 1; }
	$bc archive ar "$F" > "$tmp/follow1.out" &
	pid=$!
	seq -f 'w1-%.0f' 1 200 | $bc add ar -f - || { echo "failed at line $LINENO"; return 1; }
	sleep 1.2
	seq -f 'w2-%.0f' 1 200 | $bc add ar -f - || { echo "failed at line $LINENO"; return 1; }
	sleep 1.2
	$bc archive ar "$O" once > "$tmp/arch.out" || { echo "failed at line $LINENO"; return 1; }
	cat "$tmp/arch.out"
	sleep 2.5
	kill -TERM $pid; wait $pid; rc=$?
	cat "$tmp/follow1.out"
	[ $rc -eq 0 ] || { echo "follower exit $rc"; return 1; }
	n=$(ls "$O" | grep -c '^ar\.[0-9]\{10\}\.kbf$')
	[ "$n" -ge 1 ] || { echo "once wrote $n files"; return 1; }
	! ls "$O" "$F" | grep -v '^$\|:$\|\.kbf$' || { echo "a file not .kbf left"; return 1; }
	for f in "$O"/*.kbf; do
		[ "$(stat -c %a "$f")" = 600 ] || { echo "$f: mode $(stat -c %a "$f")"; return 1; }
		# the same window, but for the filter's counters (bytes 120..151,
		# taken at each export) and so the CRC (the trailer's bytes 8..11)
		python3 -c "
import sys
a, b = (open(p, 'rb').read() for p in sys.argv[1:])
strip = lambda x: x[:120] + x[152:-8] + x[-4:]
sys.exit(len(a) != len(b) or strip(a) != strip(b))" "$f" "$F/${f##*/}" ||
			{ echo "$f differs from the follower's"; return 1; }
	done
	# a second run does not write the same windows again
	local first=("$O"/*.kbf)
	$bc archive ar "$O" once > "$tmp/arch2.out" || { echo "failed at line $LINENO"; return 1; }
	for f in "${first[@]}"; do
		! grep -qF "$f" "$tmp/arch2.out" || { echo "failed at line $LINENO"; return 1; }
	done
	# each archived window restored: the w1 keys in exactly one, w2 too
	n=0
	for f in "$F"/*.kbf; do
		n=$((n + 1))
		$bc restore "$f" as "ar-$n" || { echo "failed at line $LINENO"; return 1; }
		case "$($bc test "ar-$n" -f <(seq -f 'w1-%.0f' 1 200) | tail -1)" in
		"200 keys: 200 present, 0 absent") hold1=$((hold1 + 1)) ;;
		"200 keys: 0 present, 200 absent") ;;
		*) echo "$f: some w1 keys"; return 1 ;;
		esac
		case "$($bc test "ar-$n" -f <(seq -f 'w2-%.0f' 1 200) | tail -1)" in
		"200 keys: 200 present, 0 absent") hold2=$((hold2 + 1)) ;;
		"200 keys: 0 present, 200 absent") ;;
		*) echo "$f: some w2 keys"; return 1 ;;
		esac
	done
	echo "$n windows archived; w1 keys in $hold1, w2 keys in $hold2"
	[ $hold1 -eq 1 ] && [ $hold2 -eq 1 ]
}
check "archive once after two rotations: closed windows, each with its keys" archive_once

# A window the ring drops before its export is reported lost, as its own
# object (under two busy guests one was: a window lasts 1 s here).
archive_json() {
	local d=$tmp/arch-j
	mkdir -p "$d"
	$bc -j archive ar "$d" once > "$tmp/arch.json" || return 1
	cat "$tmp/arch.json"
	python3 -c "
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) >= 2, lines
files = [l for l in lines if 'file' in l]
assert files, lines
for l in lines:
    assert l['filter'] == 'ar', l
    if 'file' not in l:
        assert set(l) == {'filter', 'window', 'lost'} and l['lost'] is True, l
        assert isinstance(l['window'], int) and l['window'] > 0, l
        continue
    assert l['file'].endswith('.kbf') and l['bytes'] > 0, l
    assert l['window']['end_ns'] > l['window']['start_ns'], l
" "$tmp/arch.json"
}
check "archive -j: one JSON object per window, archived or lost" archive_json

archive_follow() {
	local d=$tmp/arch-f pid n
	mkdir -p "$d"
	$bc create af bloom capacity 1000 fpr 0.01 windows 2 interval 200ms || return 1
	$bc archive af "$d" > "$tmp/follow.out" 2> "$tmp/follow.err" &
	pid=$!
	for n in $(seq 10); do
		seq -f "af-$n-%g" 1 20 | $bc add af -f - || return 1
		sleep 0.15
	done
	kill -TERM $pid
	wait $pid; rc=$?
	cat "$tmp/follow.out" "$tmp/follow.err"
	[ $rc -eq 0 ] || { echo "exit $rc"; return 1; }
	n=$(ls "$d" | grep -c '^af\.[0-9]\{10\}\.kbf$')
	[ "$n" -ge 4 ] || { echo "only $n windows"; return 1; }
	! ls "$d" | grep -v '\.kbf$'
}
check "archive (following): windows as they close, SIGTERM exits 0" archive_follow
check "archive of a filter without windows is refused" \
	expect 2 "*not time-paged*" $bc archive rt-bloom "$tmp"
check "archive into a missing directory is refused" \
	expect 2 "*$tmp/nodir*" $bc archive ar "$tmp/nodir" once

# ---- save all / restore all: the whole namespace ----------------------
# Every type in a namespace of its own, saved whole, the module removed
# and loaded again (nothing left in the kernel), restored whole: the same
# filters, the same layout, the same answers (test, and count where the
# type counts) on the added keys and on others.
sa=kb-sa
ip netns del $sa 2>/dev/null
ip netns add $sa
trap '$bc destroy all >/dev/null 2>&1; ip netns del $sa 2>/dev/null; rm -rf "$tmp"' EXIT
all_types="bloom partitioned blocked counting dleft stable multi scalable dcf"

# answers DIR: every filter of $sa's answers into DIR.
answers() {
	local d=$1 t added others
	mkdir -p "$d"
	for t in $all_types; do
		added=$tmp/added others=$tmp/others
		[ $t = multi ] && { added=$tmp/added.multi; others=$tmp/others.multi; }
		$bc -n $sa test "all-$t" -f "$added" > "$d/$t.added"
		$bc -n $sa test "all-$t" -f "$others" > "$d/$t.others"
		case $t in counting | dleft | dcf)
			$bc -n $sa count "all-$t" -f "$added" > "$d/$t.count"
			$bc -n $sa count "all-$t" hot >> "$d/$t.count" ;;
		esac
	done
	# the restored counters (inserts) start at 0; memory is the kernel's
	$bc -n $sa list | sed -E 's/ memory [0-9]+//; s/ inserts [0-9]+//' > "$d/list"
}

save_all_setup() {
	local t extra
	for t in $all_types; do
		extra=(capacity 2000 fpr 0.01)
		case $t in
		multi) extra+=(dims src,dst) ;;
		scalable) extra=(capacity 100 fpr 0.01) ;;
		dcf) extra+=(counter-bits 4) ;;
		esac
		$bc -n $sa create "all-$t" $t "${extra[@]}" || return 1
		if [ $t = multi ]; then
			$bc -n $sa add all-multi -f "$tmp/added.multi" || return 1
		else
			$bc -n $sa add "all-$t" -f "$tmp/added" || return 1
		fi
	done
	# counts past 1, and past a dcf's 4-bit counters
	for t in counting dleft dcf; do
		seq 300 | sed 's/.*/hot/' | $bc -n $sa add "all-$t" -f - || return 1
	done
	answers "$tmp/ans-before"
	$bc -n $sa save all "$tmp/state"
}
check "save all: every type of a namespace, exit 0" save_all_setup

save_all_files() {
	local want got
	want=$(for t in $all_types; do echo "all-$t.kbf"; done | sort)
	got=$(ls -A "$tmp/state" | sort)
	[ "$want" = "$got" ] || { echo "files: $got"; return 1; }
	[ "$(stat -c %a "$tmp/state")" = 700 ] || { echo "dir mode $(stat -c %a "$tmp/state")"; return 1; }
	[ -z "$(find "$tmp/state" -type f ! -perm 0600)" ] || { echo "a file not 0600"; return 1; }
	[ -z "$(ls -d "$tmp"/state.* 2>/dev/null)" ] || { echo "temp dir left"; return 1; }
	# each file is a plain save file: restore FILE reads it
	$bc -n $sa restore "$tmp/state/all-bloom.kbf" as one-of-all &&
		same_answers_ns one-of-all all-bloom && $bc -n $sa destroy one-of-all
}
same_answers_ns() {
	[ "$($bc -n $sa test "$1" -f "$tmp/added")" = "$($bc -n $sa test "$2" -f "$tmp/added")" ] &&
	[ "$($bc -n $sa test "$1" -f "$tmp/others")" = "$($bc -n $sa test "$2" -f "$tmp/others")" ]
}
check "save all: DIR/NAME.kbf per filter, DIR 0700, files 0600, nothing else left" save_all_files

save_all_foreign() {
	mkdir "$tmp/notasave" && echo x > "$tmp/notasave/notes.txt" &&
	expect 2 "bloomctl: save: refusing to replace '$tmp/notasave': it holds 'notes.txt', not a save file of 'save all'" \
		$bc -n $sa save all "$tmp/notasave" &&
	[ "$(ls -A "$tmp/notasave")" = notes.txt ] &&
	[ -z "$(ls -d "$tmp"/notasave.* 2>/dev/null)" ]
}
check "save all: a DIR holding other files is refused, left as it was" save_all_foreign
check "save all: a FILE where DIR should be is refused" \
	expect 2 "bloomctl: save: refusing to replace '$tmp/added': not a directory" \
	$bc -n $sa save all "$tmp/added"

save_all_replace() {
	$bc -n $sa save all "$tmp/state2" || return 1
	$bc -n $sa create all-extra bloom bits 4096 hashes 3 || return 1
	$bc -n $sa save all "$tmp/state2" compress zstd || return 1
	[ -e "$tmp/state2/all-extra.kbf" ] || { echo "new filter missing"; return 1; }
	[ "$(version_of "$tmp/state2/all-bloom.kbf")" = 1 ] || return 1
	python3 -c "import sys; sys.exit(0 if open(sys.argv[1], 'rb').read()[12] & 1 else 1)" \
		"$tmp/state2/all-bloom.kbf" || { echo "not compressed"; return 1; }
	$bc -n $sa destroy all-extra || return 1
	$bc -n $sa save all "$tmp/state2" || return 1
	[ ! -e "$tmp/state2/all-extra.kbf" ] || { echo "a destroyed filter's file stayed"; return 1; }
	[ "$(ls -A "$tmp/state2" | wc -l)" = 9 ] &&
		[ -z "$(ls -d "$tmp"/state2.* 2>/dev/null)" ]
}
check "save all over an earlier save all: replaced whole (a filter destroyed since is gone)" save_all_replace

save_all_windows() {
	$bc -n kb-sw create w dleft capacity 1000 fpr 0.01 windows 3 interval 1h &&
	$bc -n kb-sw add w wkey &&
	expect 0 "" $bc -n kb-sw save all "$tmp/stw" &&
	$bc -n kb-sw destroy w && $bc -n kb-sw restore all "$tmp/stw" &&
	$bc -n kb-sw test w wkey && ! $bc -n kb-sw show w | grep -q window
}
check "save all: a filter with windows comes back as its current window, without windows" \
	bash -c "ip netns add kb-sw && $(declare -f expect save_all_windows); bc=$bc tmp=$tmp; save_all_windows; rc=\$?; ip netns del kb-sw; exit \$rc"

fresh_module() {
	rmmod kbloom && insmod "${KBLOOM_KO:-kmod/kbloom.ko}" &&
		[ -z "$($bc -n $sa list)" ]
}
check "the module removed and loaded again: the namespace is empty" fresh_module

restore_all_damaged() {
	cp -r "$tmp/state" "$tmp/damaged"
	python3 -c "
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[344 + 100] ^= 0x10
open(p, 'wb').write(b)" "$tmp/damaged/all-counting.kbf"
	local out rc
	out=$($bc -n $sa restore all "$tmp/damaged" 2>&1); rc=$?
	echo "exit $rc: $out"
	[ $rc = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
		[[ $out == *"$tmp/damaged/all-counting.kbf"*CRC* ]] &&
		[ -z "$($bc -n $sa list)" ]
}
check "restore all: one damaged file, exit 2 naming it, nothing created" restore_all_damaged

restore_all_taken() {
	$bc -n $sa create all-stable bloom bits 4096 hashes 3 || return 1
	expect 2 "bloomctl: unable to restore filter 'all-stable' from '$tmp/state/all-stable.kbf': File exists*" \
		$bc -n $sa restore all "$tmp/state" || return 1
	[ "$($bc -n $sa list | awk '{print $1}')" = all-stable ] &&
		$bc -n $sa destroy all-stable
}
check "restore all: a name taken refuses it all, nothing else created" restore_all_taken

restore_all_twice() {
	cp -r "$tmp/state" "$tmp/dup" && cp "$tmp/state/all-bloom.kbf" "$tmp/dup/copy.kbf" &&
	expect 2 "bloomctl: unable to restore all from '$tmp/dup': '$tmp/dup/all-bloom.kbf' and '$tmp/dup/copy.kbf' both hold filter 'all-bloom'" \
		$bc -n $sa restore all "$tmp/dup" &&
	[ -z "$($bc -n $sa list)" ]
}
check "restore all: two files of one filter are refused, nothing created" restore_all_twice

restore_all_rt() {
	local f
	$bc -n $sa restore all "$tmp/state" || return 1
	answers "$tmp/ans-after"
	for f in "$tmp/ans-before"/*; do
		cmp "$f" "$tmp/ans-after/${f##*/}" ||
			{ diff "$f" "$tmp/ans-after/${f##*/}" | head; return 1; }
	done
	cat "$tmp/ans-after/list" | sed 's/^/# /'
}
check "restore all into the fresh module: every type, same filters and answers" restore_all_rt
check "restore all: an empty DIR restores nothing, exit 0" \
	bash -c "mkdir $tmp/empty && $bc -n $sa restore all $tmp/empty"
check "restore all: a missing DIR is refused, naming it" \
	expect 2 "bloomctl: restore: unable to read directory '$tmp/nosuchdir': No such file or directory" \
	$bc -n $sa restore all "$tmp/nosuchdir"

check "save, restore and archive --help" bash -c "
	$bc save --help | grep -q 'compress zstd' &&
	$bc restore --help | grep -q 'as NAME' &&
	$bc archive --help | grep -q 'once'"

# ---- throughput (optional: KBLOOM_SAVE_BENCH=1) -----------------------
bench() {
	local s e
	$bc create big bloom bits $((64 * 8 * 1024 * 1024)) hashes 32 || return 1
	# ~10% fill: 1 - exp(-32 * 1.75M / 512 Mi) = 9.9%
	seq -f 'b%.0f' 1 1750000 | $bc add big -f - || return 1
	$bc show big | grep -i fill | sed 's/^/# /' 
	sync
	s=$(date +%s.%N); $bc save big "$tmp/big.kbf" || return 1; e=$(date +%s.%N)
	echo "# save 64 MiB: $(python3 -c "print('%.3f s, %.0f MB/s' % ($e - $s, 64 * 1.048576 / ($e - $s)))")"
	s=$(date +%s.%N); cat "$tmp/big.kbf" > /dev/null; e=$(date +%s.%N)
	echo "# cat of the file: $(python3 -c "print('%.3f s, %.0f MB/s' % ($e - $s, 64 * 1.048576 / ($e - $s)))")"
	s=$(date +%s.%N); $bc restore "$tmp/big.kbf" as big2 || return 1; e=$(date +%s.%N)
	echo "# restore 64 MiB: $(python3 -c "print('%.3f s, %.0f MB/s' % ($e - $s, 64 * 1.048576 / ($e - $s)))")"
	s=$(date +%s.%N); $bc save big "$tmp/bigz.kbf" compress zstd || return 1; e=$(date +%s.%N)
	echo "# save compress zstd: $(python3 -c "print('%.3f s, %.0f MB/s' % ($e - $s, 64 * 1.048576 / ($e - $s)))")"
	echo "# zstd at this fill: $(stat -c %s "$tmp/big.kbf") -> $(stat -c %s "$tmp/bigz.kbf") bytes, ratio $(python3 -c "print('%.2f' % ($(stat -c %s "$tmp/big.kbf") / $(stat -c %s "$tmp/bigz.kbf")))")"
	s=$(date +%s.%N); $bc restore "$tmp/bigz.kbf" as big3 || return 1; e=$(date +%s.%N)
	echo "# restore compressed: $(python3 -c "print('%.3f s, %.0f MB/s' % ($e - $s, 64 * 1.048576 / ($e - $s)))")"
	$bc test big2 b1 b1750000 >/dev/null && $bc test big3 b1 b1750000 >/dev/null
}
if [ -n "${KBLOOM_SAVE_BENCH:-}" ]; then
	check "64 MiB bloom: save and restore throughput" \
		bash -c "$(declare -f bench); bc=$bc tmp=$tmp; bench | tee $tmp/bench.txt"
	grep '^# ' "$tmp/bench.txt"
fi

finish
