#!/bin/bash
# The progress line of long work (bloomctl(8), -q; userspace/progress.c)
# against the loaded module, in the test VM. Each command runs under
# script(1) (util-linux), so its stderr is a terminal, with stdout
# redirected to a file, and again with stderr a plain file; with
# KBLOOM_PROGRESS_DELAY_MS=0 the line shows at the first update:
#   - add -f, test -f (stdout a file), save, restore and archive catching
#     up on closed windows draw their line on the terminal ("\rLINE",
#     the last erased with spaces and "\r"), and nothing else
#   - with stderr no terminal nothing appears on it; with -q nothing on
#     the terminal; with -j no progress at all
#   - stdout is the same in every case (test -f's answers, -j's JSON,
#     archive's lines)
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=$PWD/userspace/bloomctl
tmp=$(mktemp -d)
trap '$bc destroy all >/dev/null 2>&1; rm -rf "$tmp"' EXIT
export KBLOOM_PROGRESS_DELAY_MS=0

# tty NAME ARG...: bloomctl ARG... with stderr on a terminal and stdout in
# $tmp/NAME.out; what the terminal got in $tmp/NAME.tty. Its exit status.
tty() {
	local name=$1 cmd
	shift
	printf -v cmd '%q ' "$bc" "$@"
	script -qec "$cmd >$tmp/$name.out" /dev/null </dev/null >"$tmp/$name.tty"
}
# notty NAME ARG...: the same with stderr in $tmp/NAME.err.
notty() {
	local name=$1
	shift
	"$bc" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
}
# drawn NAME REGEX: $tmp/NAME.tty is "\rLINE" one or more times, every LINE
# (less its padding) matching REGEX, then "\rSPACES\r" erasing the last.
drawn() {
	local v
	v=$(awk -v RS='\r' -v want="^($2) *\$" '
		NR == 1 { if ($0 != "") bad = "does not start with \\r"; next }
		{ rec[++n] = $0 }
		END {
			if (n < 2 || rec[n] !~ /^ +$/ || length(rec[n]) < length(rec[n - 1]))
				{ print "the last line is not erased"; exit }
			for (i = 1; i < n; i++)
				if (rec[i] !~ want) { print "unexpected: " rec[i]; exit }
			print bad ? bad : "ok " (n - 1) " drawn, the last: " rec[n - 1]
		}' "$tmp/$1.tty")
	[ "$(tail -c 1 "$tmp/$1.tty" | od -An -c | tr -d ' ')" = '\r' ] ||
		v="does not end with \\r"
	echo "$v"
	[[ $v == "ok "* ]] || { od -c "$tmp/$1.tty" | head -6; return 1; }
}
empty() { # empty FILE...: each exists and is empty
	local f
	for f; do
		[ -e "$f" ] && [ ! -s "$f" ] || { echo "$f:"; od -c "$f" | head -4; return 1; }
	done
}
le1() { "$@"; [ $? -le 1 ]; }	# test exits 1: some keys absent
same() { cmp "$1" "$2" && echo "same stdout ($(wc -c <"$1") bytes)"; }

# 300000 keys, 2.2 MB: a few hundred ms of work.
seq -f 'key-%g' 1 300000 >"$tmp/keys"
seq -f 'key-%g' 299001 301000 >"$tmp/probe"
$bc create p bloom capacity 1000000 fpr 0.01

add() {
	tty add add p -f "$tmp/keys" && drawn add "add 'p': [0-9]+ keys \([0-9]+%\)" &&
	notty add_notty add p -f "$tmp/keys" && tty add_q -q add p -f "$tmp/keys" &&
	empty "$tmp/add.out" "$tmp/add_notty.out" "$tmp/add_notty.err" "$tmp/add_q.out" "$tmp/add_q.tty"
}
check "add -f on a terminal: 'add 'p': N keys (P%)' drawn and erased; none without a terminal or with -q; stdout empty" add

test_f() {
	le1 tty test test p -f "$tmp/probe" && drawn test "test 'p': [0-9]+ keys \([0-9]+%\)" &&
	le1 notty test_notty test p -f "$tmp/probe" && same "$tmp/test.out" "$tmp/test_notty.out" &&
	le1 tty test_q -q test p -f "$tmp/probe" && same "$tmp/test.out" "$tmp/test_q.out" &&
	le1 tty test_j -j test p -f "$tmp/probe" && le1 notty test_jnotty -j test p -f "$tmp/probe" &&
	same "$tmp/test_j.out" "$tmp/test_jnotty.out" &&
	empty "$tmp/test_notty.err" "$tmp/test_q.tty" "$tmp/test_j.tty" "$tmp/test_jnotty.err" &&
	grep -c present "$tmp/test.out"
}
check "test -f, stdout a file: the line on the terminal; its answers the same with and without a terminal, -q, and -j's JSON; -j and -q show none" \
	test_f

save_restore() {
	tty save save p "$tmp/p.kbf" && drawn save "save 'p': [0-9.]+ (B|KiB|MiB) of [0-9.]+ MiB \([0-9]+%\)" &&
	notty save_notty save p "$tmp/p2.kbf" && tty save_q -q save p "$tmp/p3.kbf" &&
	tty restore restore "$tmp/p.kbf" as r1 &&
	drawn restore "restore 'r1': [0-9.]+ (B|KiB|MiB) of [0-9.]+ MiB \([0-9]+%\)" &&
	notty restore_notty restore "$tmp/p.kbf" as r2 && tty restore_q -q restore "$tmp/p.kbf" as r3 &&
	empty "$tmp/save.out" "$tmp/save_notty.err" "$tmp/save_q.tty" "$tmp/restore.out" \
		"$tmp/restore_notty.err" "$tmp/restore_q.tty" &&
	le1 notty r1 test r1 -f "$tmp/probe" && same "$tmp/test_notty.out" "$tmp/r1.out"
}
check "save and restore on a terminal: 'save 'p': X of Y MiB (P%)' and 'restore ...' drawn and erased; none without a terminal or with -q; the restored filter answers as the saved one" \
	save_restore

archive() {
	local d
	# 64 windows of 500 ms keep window 1 for 32 s: on a loaded host the
	# three runs below (each starts from an empty directory, so from
	# window 1) took more than the 4 s that 8 windows kept it.
	$bc create w bloom capacity 1000 fpr 0.01 windows 64 interval 500ms || return 1
	sleep 3
	for d in a b c; do mkdir "$tmp/$d"; done
	tty arch archive w "$tmp/a" once &&
	drawn arch "archive 'w': [0-9]+ windows \([0-9]+%\)" &&
	notty arch_notty archive w "$tmp/b" once && tty arch_q -q archive w "$tmp/c" once &&
	empty "$tmp/arch_notty.err" "$tmp/arch_q.tty" &&
	[ "$(ls "$tmp/a" | wc -l)" -ge 4 ] && grep -c '^window ' "$tmp/arch.out"
}
check "archive catching up on several closed windows: 'archive 'w': N windows (P%)' on a terminal, erased; none without one or with -q" \
	archive

finish
