#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Floors, not circles (docs/design.md, "Floors"): scripts/floors over the
# module's objects (every one kmod/Kbuild links, the engine's included)
# and over bloomctl's own (the engine's copies aside: the module's are
# checked) finds no circle of calls between files, and no call up the
# floors design.md writes. So that a pass means something, it must also find
# what is planted in objects built here: a circle of two files, a circle
# through a header's inline function, a call up a floor. Prints TAP.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
echo "TAP version 13"
echo "1..9"

objs=$(sed -n 's/^kbloom-y [:+]= //p' kmod/Kbuild | tr ' ' '\n' |
	sed '/^$/d; s|^|kmod/|')
# The module as tests/run builds it (for the VM's kernel), when it is not.
stale=
for o in $objs; do
	[ "$o" -nt "${o%.o}.c" ] || stale=1
done
[ -z "$stale" ] ||
	make -s -C kmod KDIR="/lib/modules/$(scripts/kver)/build" >/dev/null 2>&1

out=$(python3 scripts/floors $objs 2>&1)
if [ $? -eq 0 ]; then
	echo "ok 1 - no circle of calls among the module's files: $out"
else
	echo "not ok 1 - circles of calls among the module's files:"
	echo "$out" | sed 's/^/# /'
fi

out=$(python3 scripts/floors --floors docs/design.md $objs 2>&1)
if [ $? -eq 0 ]; then
	echo "ok 2 - every call of the module keeps to docs/design.md's floors"
else
	echo "not ok 2 - calls against docs/design.md's floors:"
	echo "$out" | grep -v '^  ' | sed 's/^/# /'
fi

# bloomctl's objects, as userspace/Makefile builds them.
make -s -C userspace >/dev/null 2>&1
uobjs=$(ls userspace/*.o | grep -v -e '/engine-' -e '/lib-')
out=$(python3 scripts/floors $uobjs 2>&1)
if [ $? -eq 0 ]; then
	echo "ok 3 - no circle of calls among bloomctl's files: $out"
else
	echo "not ok 3 - circles of calls among bloomctl's files:"
	echo "$out" | sed 's/^/# /'
fi
out=$(python3 scripts/floors --floors docs/design.md $uobjs 2>&1)
if [ $? -eq 0 ]; then
	echo "ok 4 - every call of bloomctl keeps to docs/design.md's floors"
else
	echo "not ok 4 - calls against docs/design.md's floors:"
	echo "$out" | grep -v '^  ' | sed 's/^/# /'
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc=${CC:-cc}
# planted NAME FILE=TEXT...: NAME's files written, each .c compiled.
planted() {
	d=$tmp/$1
	shift
	mkdir -p "$d"
	for f in "$@"; do
		printf '%s\n' "${f#*=}" >"$d/${f%%=*}"
	done
	for c in "$d"/*.c; do
		$cc -c -o "${c%.c}.o" "$c" || return 1
	done
}

planted pair 'a.c=int b(void); int a(void) { return b(); }' \
	'b.c=int a(void); int b(int x) { return x ? a() : 0; }'
out=$(python3 scripts/floors --top "$tmp/pair" "$tmp"/pair/*.o 2>&1)
if [ $? -eq 1 ] && echo "$out" | grep -q '^circle 1 (2 files): a.c b.c$'; then
	echo "ok 5 - a planted circle of two files is found"
else
	echo "not ok 5 - a planted circle of two files is not found: $out"
fi

planted inline 'h.h=int c(void); static inline int hi(void) { return c(); }' \
	'c.c=#include "h.h"
int c(void) { return 0; }
int d(void) { return hi(); }'
out=$(python3 scripts/floors --top "$tmp/inline" "$tmp"/inline/*.o 2>&1)
if [ $? -eq 1 ] && echo "$out" | grep -q '^circle 1 (2 files): c.c h.h$'; then
	echo "ok 6 - a planted circle through a header's inline function is found"
else
	echo "not ok 6 - a circle through a header's inline function is not found: $out"
fi

planted up 'x.c=int y(void); int x(void) { return y(); }' \
	'y.c=int y(void) { return 1; }' \
	'floors.md=```
floor 1: y.c
floor 0: x.c
```'
out=$(python3 scripts/floors --top "$tmp/up" --floors "$tmp/up/floors.md" \
	"$tmp"/up/*.o 2>&1)
if [ $? -eq 1 ] && echo "$out" | grep -q 'x.c (floor 0) calls y.c (floor 1): y'; then
	echo "ok 7 - a planted call up a floor is found"
else
	echo "not ok 7 - a planted call up a floor is not found: $out"
fi

planted more 'x.c=int z(void); int x(void) { return z(); }' \
	'y.c=int y(void) { return 1; }' 'z.c=int z(void) { return 2; }' \
	'floors.md=```
floor 1: y.c
	z.c
floor 0: x.c
```'
out=$(python3 scripts/floors --top "$tmp/more" --floors "$tmp/more/floors.md" \
	"$tmp"/more/*.o 2>&1)
if [ $? -eq 1 ] && echo "$out" | grep -q 'x.c (floor 0) calls z.c (floor 1): z'; then
	echo "ok 8 - a floor's indented line goes on with it: a call up to it is found"
else
	echo "not ok 8 - a call up to a floor's indented line is not found: $out"
fi

planted pattern 'x.c=int ya(void); int x(void) { return ya(); }' \
	'ya.c=int ya(void) { return 1; }' \
	'floors.md=```
floor 1: y*.c
floor 0: x.c
```'
out=$(python3 scripts/floors --top "$tmp/pattern" --floors "$tmp/pattern/floors.md" \
	"$tmp"/pattern/*.o 2>&1)
if [ $? -eq 1 ] && echo "$out" | grep -q 'x.c (floor 0) calls ya.c (floor 1): ya'; then
	echo "ok 9 - a floor given by a pattern (y*.c) holds: a call up to it is found"
else
	echo "not ok 9 - a call up to a pattern's floor is not found: $out"
fi
