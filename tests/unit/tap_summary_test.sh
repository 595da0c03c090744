#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# tests/tap-summary on sample TAP streams; prints TAP itself.
set -u

here=$(cd "$(dirname "$0")" && pwd)
summary="$here/../tap-summary"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

n=0
bad=0

# check NAME WANT_LAST_LINE WANT_STATUS: feeds $tmp/in to tap-summary and
# checks the last line, the exit status and that the input came through
# unchanged (every line, in order, before the summary).
check() {
	n=$((n + 1))
	"$summary" <"$tmp/in" >"$tmp/out"
	status=$?
	last=$(tail -n 1 "$tmp/out")
	sed '$d' "$tmp/out" | grep -v '^# tap-summary:' >"$tmp/body"
	why=
	[ "$last" = "$2" ] || why="last line '$last', want '$2'"
	[ "$status" -eq "$3" ] || why="$why${why:+; }exit $status, want $3"
	cmp -s "$tmp/in" "$tmp/body" || why="$why${why:+; }input not echoed unchanged"
	if [ -z "$why" ]; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		echo "# $why"
		sed 's/^/#   | /' "$tmp/out"
		bad=$((bad + 1))
	fi
}

echo "TAP version 13"
echo "1..19"

cat >"$tmp/in" <<'T'
TAP version 13
1..3
# Starting 3 tests from 1 test cases.
#  RUN           global.a ...
#            OK  global.a
ok 1 global.a
#  RUN           global.b ...
#            OK  global.b
ok 2 global.b
#  RUN           global.c ...
#            OK  global.c
ok 3 global.c
# PASSED: 3 / 3 tests passed.
# Totals: pass:3 fail:0 xfail:0 xpass:0 skip:0 error:0
T
check "kselftest stream, all pass" "3 passed, 0 failed" 0

cat >"$tmp/in" <<'T'
TAP version 13
1..3
ok 1 global.a
# global.b: Test terminated by assertion
#          FAIL  global.b
not ok 2 global.b
ok 3 global.c
# FAILED: 2 / 3 tests passed.
# Totals: pass:2 fail:1 xfail:0 xpass:0 skip:0 error:0
T
check "one failure" "2 passed, 1 failed" 1

cat >"$tmp/in" <<'T'
TAP version 13
1..3
ok 1 global.a
#      SKIP      no netns support
ok 2 # SKIP no netns support
ok 3 global.c
# PASSED: 3 / 3 tests passed.
# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:1 error:0
T
check "skip counted apart" "2 passed, 0 failed, 1 skipped" 0

cat >"$tmp/in" <<'T'
make: Entering directory '/work/main/tests/unit'
  CC     lib_filter.o
TAP version 13
1..2
ok 1 hash.a
ok 2 hash.b
# PASSED: 2 / 2 tests passed.
# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0
TAP version 13
1..3
ok 1 bloom.a
not ok 2 bloom.b
ok 3 bloom.c # skip slow
# FAILED: 1 / 3 tests passed.
# Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0
TAP version 13
1..1
ok 1 vm.netlink
make: Leaving directory '/work/main/tests/unit'
T
check "three concatenated streams and make chatter" \
	"4 passed, 1 failed, 1 skipped" 1

cat >"$tmp/in" <<'T'
TAP version 13
1..2
# ok 1 this is a comment, not a result
# not ok 2 neither is this
    ok 1 - indented subtest
    not ok 2 - indented subtest
    1..2
ok 1 parent
ok 2 other
T
check "comments and nested subtests not counted" "2 passed, 0 failed" 0

: >"$tmp/in"
check "empty input fails" "0 passed, 0 failed" 1

cat >"$tmp/in" <<'T'
make: *** [Makefile:80: build/x] Error 1
okay, nothing ran
T
check "no test lines fails" "0 passed, 0 failed" 1

cat >"$tmp/in" <<'T'
TAP version 13
1..4
ok 1 global.a
T
check "crashed stream: missing results are failures" "1 passed, 3 failed" 1

cat >"$tmp/in" <<'T'
TAP version 13
1..4
ok 1 global.a
not ok - build/x exited with status 134
T
check "crash with a stand-in failure line" "1 passed, 3 failed" 1

cat >"$tmp/in" <<'T'
TAP version 13
1..2
ok 1 global.a
Bail out! cannot open /dev/kbloom
T
check "bail out" "1 passed, 2 failed" 1

cat >"$tmp/in" <<'T'
TAP version 13
1..3
ok 1 a
not ok 2 b # TODO merge not written yet
ok 3 c # XFAIL known to fail
T
check "TODO is not a failure, XFAIL is a pass" "2 passed, 0 failed, 1 skipped" 0

cat >"$tmp/in" <<'T'
TAP version 13
1..0 # SKIP kbloom.ko not loaded
T
check "whole stream skipped" "0 passed, 0 failed, 1 skipped" 0

cat >"$tmp/in" <<'T'
ok 1 a
ok 2 b
1..2
TAP version 13
1..1
ok 1 c
T
check "trailing plan, then another stream" "3 passed, 0 failed" 0

cat >"$tmp/in" <<'T'
TAP version 13
1..2
ok 1 a
not ok 2 # error no such file
T
check "kselftest error result" "1 passed, 1 failed" 1

cat >"$tmp/in" <<'T'
ok
not ok
ok
T
check "bare results without plan or numbers" "2 passed, 1 failed" 1

cat >"$tmp/in" <<'T'
1..2
ok 1 first stream
ok 2 first stream
1..2
ok 1 second stream
not ok 2 second stream
T
check "streams without version lines" "3 passed, 1 failed" 1

cat >"$tmp/in" <<'T'
TAP version 13
1..2
ok 1 name with # in it is fine
ok 2 - SKIP in the name is not a directive
T
check "hash and SKIP inside descriptions" "2 passed, 0 failed" 0

printf 'TAP version 13\n1..1\nok 1 no newline at end' >"$tmp/in"
n=$((n + 1))
out=$("$summary" <"$tmp/in")
if [ "$(printf '%s\n' "$out" | tail -n 1)" = "1 passed, 0 failed" ] &&
   [ "$(printf '%s\n' "$out" | sed -n 3p)" = "ok 1 no newline at end" ]; then
	echo "ok $n last line without newline"
else
	echo "not ok $n last line without newline"
	bad=$((bad + 1))
fi

# The summary is exactly one line, the last.
{
	echo "TAP version 13"; echo "1..200"
	i=1
	while [ $i -le 200 ]; do echo "ok $i t$i"; i=$((i + 1)); done
} >"$tmp/in"
n=$((n + 1))
"$summary" <"$tmp/in" >"$tmp/out"
if [ "$(wc -l <"$tmp/out")" -eq 203 ] &&
   [ "$(grep -c 'passed, ' "$tmp/out")" -eq 1 ] &&
   [ "$(tail -n 1 "$tmp/out")" = "200 passed, 0 failed" ]; then
	echo "ok $n one summary line, last"
else
	echo "not ok $n one summary line, last"
	bad=$((bad + 1))
fi

[ "$n" -eq 19 ] || { echo "# planned 19, ran $n"; exit 1; }
[ "$bad" -eq 0 ]
