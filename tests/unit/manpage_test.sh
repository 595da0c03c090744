#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# userspace/bloomctl.8 against the built userspace/bloomctl; prints TAP.
#   - every command of 'bloomctl --help' has a subsection (.SS) under
#     COMMANDS, and every subsection there is such a command (no more, no
#     fewer)
#   - per command, every literal word of its usage lines ('bloomctl help
#     COMMAND': keywords such as bits, hook, ipv4, -f, --) appears in its
#     subsection
#   - the sections the page promises are there, in order
#   - man renders it without a warning (LC_ALL=C MANWIDTH=80 man --warnings)
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
page=$top/userspace/bloomctl.8
bc=$top/userspace/bloomctl
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

. "$here/tap.sh"
# note FILE: prints FILE as TAP diagnostics.
note() { sed 's/^/#   /' "$1"; }

echo "TAP version 13"

if [ ! -f "$page" ]; then
	notok "userspace/bloomctl.8 exists"
	echo "1..$n"
	exit 1
fi
if [ ! -x "$bc" ]; then
	notok "userspace/bloomctl is built (make -C userspace)"
	echo "1..$n"
	exit 1
fi

# The commands of bloomctl --help: the lines after "Commands:" up to the
# first blank line, first word each.
"$bc" --help >"$tmp/help" 2>&1 || { notok "bloomctl --help exits 0"; note "$tmp/help"; }
sed -n '/^Commands:$/,/^$/{/^  [a-z]/s/^  \([a-z][a-z0-9-]*\).*/\1/p;}' \
	"$tmp/help" | sort >"$tmp/cmds"

# The page as text: font escapes and macro names dropped, \- as -.
sed -e 's/\\f[BIRP]//g' -e 's/\\(aq/'"'"'/g' -e 's/\\(lq/"/g' \
	-e 's/\\(rq/"/g' -e 's/\\-/-/g' -e 's/\\e/\\/g' -e 's/\\&//g' \
	-e 's/\\c$//' "$page" >"$tmp/plain"
# The subsections of COMMANDS, in page order.
awk '/^\.SH / { in_cmds = ($2 == "COMMANDS") }
     in_cmds && /^\.SS / { gsub(/"/, ""); print $2 }' "$tmp/plain" >"$tmp/ss"
sort "$tmp/ss" >"$tmp/ss.sorted"

if [ "$(wc -l <"$tmp/cmds")" -ge 10 ]; then
	ok "bloomctl --help lists $(wc -l <"$tmp/cmds") commands"
else
	notok "bloomctl --help lists commands (found $(wc -l <"$tmp/cmds"))"
	note "$tmp/help"
fi

for c in $(cat "$tmp/cmds"); do
	if grep -qx "$c" "$tmp/ss"; then
		ok "command $c has a subsection under COMMANDS"
	else
		notok "command $c has a subsection under COMMANDS"
	fi
done

comm -13 "$tmp/cmds" "$tmp/ss.sorted" >"$tmp/extra"
if [ -s "$tmp/extra" ]; then
	notok "every COMMANDS subsection is a command of bloomctl --help"
	echo "# subsections that bloomctl --help does not list:"
	note "$tmp/extra"
else
	ok "every COMMANDS subsection is a command of bloomctl --help"
fi

dups=$(uniq -d "$tmp/ss.sorted" | tr '\n' ' ')
if [ -z "$dups" ]; then
	ok "no command has two subsections"
else
	notok "no command has two subsections (twice: $dups)"
fi

# Per command: the text of its subsection, then the literal words of its
# usage lines (lower-case keywords, -x options, --), each must be in it.
# 'help' has no usage of its own ('bloomctl help help' is refused).
for c in $(cat "$tmp/cmds"); do
	[ "$c" = help ] && continue
	grep -qx "$c" "$tmp/ss" || continue
	awk -v c="$c" '/^\.S[HS] / { gsub(/"/, ""); on = ($1 == ".SS" && $2 == c); next }
		on && !/^\.\\"/ { sub(/^\.[A-Za-z]+ ?/, ""); print }' \
		"$tmp/plain" >"$tmp/sec"
	if ! "$bc" help "$c" >"$tmp/chelp" 2>&1; then
		notok "usage words of $c are in its subsection ('bloomctl help $c' failed)"
		note "$tmp/chelp"
		continue
	fi
	sed -n '/^$/q;s/^Usage: //;s/^ *//;p' "$tmp/chelp" |
		tr '[]|' '   ' | tr -s ' ' '\n' |
		grep -E '^(--?)?[a-z][a-z0-9-]*$|^--$' |
		grep -vx -e bloomctl -e "$c" | sort -u >"$tmp/words"
	missing=
	grep -q "^bloomctl $c\( \|$\)" "$tmp/sec" || missing=" 'bloomctl $c'"
	for w in $(cat "$tmp/words"); do
		grep -qwF -e "$w" "$tmp/sec" || missing="$missing $w"
	done
	if [ -z "$missing" ]; then
		ok "usage of $c is in its subsection (bloomctl $c$(sed 's/^/ /' "$tmp/words" | tr -d '\n'))"
	else
		notok "usage of $c is in its subsection (missing:$missing)"
	fi
done

# create: every type and every type keyword of its help ("  bloom  ...",
# "    counter-bits 4|8|16 ...").
if grep -qx create "$tmp/ss" && "$bc" help create >"$tmp/chelp" 2>&1; then
	awk -v c=create '/^\.S[HS] / { gsub(/"/, ""); on = ($1 == ".SS" && $2 == c); next }
		on && !/^\.\\"/ { sub(/^\.[A-Za-z]+ ?/, ""); print }' \
		"$tmp/plain" >"$tmp/sec"
	sed -n '/^Types/,$p' "$tmp/chelp" |
		sed -n 's/^  \([a-z]\{4,\}\)  .*/\1/p;s/^    \([a-z][a-z-]*\) .*/\1/p' |
		sort -u >"$tmp/words"
	missing=
	for w in $(cat "$tmp/words"); do
		grep -qwF -e "$w" "$tmp/sec" || missing="$missing $w"
	done
	if [ -z "$missing" ] && [ "$(wc -l <"$tmp/words")" -ge 14 ]; then
		ok "create: every type and type keyword is in its subsection ($(wc -l <"$tmp/words") words)"
	else
		notok "create: every type and type keyword is in its subsection (missing:$missing; $(wc -l <"$tmp/words") words)"
	fi
fi

want="NAME SYNOPSIS DESCRIPTION OPTIONS COMMANDS KEYS EXIT STATUS JSON OUTPUT ENVIRONMENT FILES EXAMPLES SEE ALSO"
got=$(sed -n 's/^\.SH //p' "$tmp/plain" | tr -d '"' | tr '\n' ' ' | sed 's/ $//')
if [ "$got" = "$want" ]; then
	ok "sections in order: $want"
else
	notok "sections in order: $want"
	echo "#   got: $got"
fi

for w in 'ip (8)' 'ipset (8)' 'tcpdump (8)'; do
	if sed -n '/^\.SH "SEE ALSO"/,$p' "$page" | grep -q "^\.BR ${w}"; then
		ok "SEE ALSO names ${w% *}${w#* }"
	else
		notok "SEE ALSO names ${w% *}${w#* }"
	fi
done

if ! command -v man >/dev/null; then
	n=$((n + 1))
	echo "ok $n - man renders the page without warnings # SKIP man not installed"
else
	LC_ALL=C MANWIDTH=80 man --warnings -l "$page" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ -s "$tmp/out" ]; then
		ok "man renders the page without warnings"
	else
		notok "man renders the page without warnings (exit $rc)"
		note "$tmp/err"
	fi
fi

finish
