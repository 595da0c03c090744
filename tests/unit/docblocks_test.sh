#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# tests/vm/docblocks.py, the extractor and comparer of the docs suite
# (tests/vm/docs.sh), on sample markdown run with plain shell commands:
# which blocks run, output and exit status compared by its rules ("#> "
# lines, "..." within a line, "#> ..." for lines, "#> [exit N]"), shell
# state kept from command to command, and a mismatch reported with the
# file and line; and that README.md and docs/tour.md have blocks to run.
# Prints TAP.
# The unit tier runs scripts with sh: this one needs bash.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

here=$(cd "$(dirname "$0")" && pwd)
db=$here/../vm/docblocks.py
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

n=0
bad=0
# result NAME WHY: ok when WHY is empty.
result() {
	n=$((n + 1))
	if [ -z "$2" ]; then
		echo "ok $n $1"
	else
		echo "not ok $n $1"
		printf '%s\n' "$2" | sed 's/^/# /'
		bad=$((bad + 1))
	fi
}
# run_block N: runs block N of $tmp/b in a fresh directory, then checks
# it; the report in $tmp/report.N, the status of the check in $?.
run_block() {
	rm -rf "$tmp/w$1" "$tmp/r$1"
	mkdir "$tmp/w$1" "$tmp/r$1"
	(cd "$tmp/w$1" && bash "$tmp/b/$1.sh" "$tmp/r$1")
	python3 -S "$db" check "$tmp/b/$1.json" "$tmp/r$1" >"$tmp/report.$1"
}

echo "TAP version 13"
echo "1..9"

cat >"$tmp/doc.md" <<'MD'
Not run:

```
false
```

```console
$ false
```

```sh
cd /
x=42
echo "x is $x in $PWD"
#> x is 42 in /
printf 'a\nb\nc\nd\n'
#> a
#> ...
#> d
echo "took 12.3 s at 2026-11-25"   # a comment of the shell's
#> took ... s at ...
(exit 3)
#> [exit 3]
echo $?
#> 3
echo one \
	two
#> one two
true && echo ignored
```

```sh
echo wrong
#> right
```

```sh
exit_1() { return 1; }
exit_1
#> [exit 0]
```

```sh
false
echo after
#> after
```
MD
mkdir "$tmp/b"
(cd "$tmp" && python3 -S "$db" extract b doc.md) >"$tmp/list"
want=$'1 doc.md:11\n2 doc.md:32\n3 doc.md:37\n4 doc.md:43'
result "only the \`\`\`sh blocks are extracted, named FILE:LINE" \
	"$([ "$(cat "$tmp/list")" = "$want" ] || { echo "got:"; cat "$tmp/list"; })"

run_block 1
result "outputs, '...' within a line and for lines, exit status, state kept: passes" \
	"$([ $? -eq 0 ] && [ ! -s "$tmp/report.1" ] || cat "$tmp/report.1")"
result "a continuation line is part of its command" \
	"$(grep -q 'one \\' "$tmp/b/1.json" || echo "not joined")"

run_block 2
st=$?
result "a wrong output fails, naming the file, line and both outputs" \
	"$([ $st -eq 1 ] && grep -q '^doc.md:33: echo wrong: output differs from the doc$' "$tmp/report.2" &&
	   grep -q '^    right$' "$tmp/report.2" && grep -q '^    wrong$' "$tmp/report.2" ||
	   { echo "exit $st"; cat "$tmp/report.2"; })"

run_block 3
st=$?
result "a wrong exit status fails" \
	"$([ $st -eq 1 ] && grep -q '^doc.md:39: exit_1: exit 1, the doc says 0$' "$tmp/report.3" ||
	   { echo "exit $st"; cat "$tmp/report.3"; })"

run_block 4
st=$?
result "a command without '#>' lines must exit 0" \
	"$([ $st -eq 1 ] && grep -q '^doc.md:44: false: exit 1, the doc says 0$' "$tmp/report.4" ||
	   { echo "exit $st"; cat "$tmp/report.4"; })"

# A line of the doc's output that the command does not print.
sed 's/^#> d$/#> e/' "$tmp/doc.md" >"$tmp/doc2.md"
rm -rf "$tmp/b" && mkdir "$tmp/b"
(cd "$tmp" && python3 -S "$db" extract b doc2.md) >/dev/null
run_block 1
st=$?
result "'#> ...' does not hide a last line that differs" \
	"$([ $st -eq 1 ] && grep -q "^doc2.md:16: printf 'a" "$tmp/report.1" ||
	   { echo "exit $st"; cat "$tmp/report.1"; })"

printf '```sh\necho x\n' >"$tmp/open.md"
out=$(cd "$tmp" && python3 -S "$db" extract b open.md 2>&1)
st=$?
result "a block never closed is an error" \
	"$([ $st -ne 0 ] && [ "$out" = 'docblocks: open.md:1: ```sh block never closed' ] ||
	   echo "exit $st: $out")"

# The project's docs, as tests/vm/docs.sh extracts them: README's taste
# and the tour in docs/tour.md (moved there from README) run in the vm
# tier; a doc that lost its blocks would silently run nothing.
top=$here/../..
rm -rf "$tmp/b" && mkdir "$tmp/b"
(cd "$top" && python3 -S "$db" extract "$tmp/b" README.md docs/*.md) >"$tmp/list"
result "README.md and docs/tour.md have runnable blocks ($(wc -l <"$tmp/list") in the docs)" \
	"$(for d in README.md docs/tour.md; do
		grep -q " $d:" "$tmp/list" || echo "$d: no \`\`\`sh block"; done)"

[ $bad -eq 0 ]
