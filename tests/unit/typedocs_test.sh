#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# Every filter type and type keyword that the built userspace/bloomctl
# knows is in each place a user reads about it; prints TAP. What the tool
# knows comes from the tool: the types are those 'bloomctl -j calc' sizes
# (it sizes every type it has), and each type's keywords and their fixed
# values ("counter-bits 2|4|8") are those of the type's paragraph in
# 'bloomctl create --help'. Then:
#   - bash completion: 'create NAME ' and 'calc ... type ' offer every
#     type; 'create NAME TYPE ' offers each of the type's keywords, and a
#     keyword with fixed values offers exactly them; calc offers every
#     keyword
#   - man page: every type is named in the create subsection, and in the
#     list, show and calc subsections when that command's help names it; every JSON key of 'bloomctl -j calc' (both forms) is in
#     the JSON OUTPUT section's calc entry; every key that show and list
#     print (json_key() in userspace/describe.c) is in its show entry and
#     in 'bloomctl show --help'
#   - help: a type whose create paragraph names del, count or merge (it
#     takes it, or refuses it) is named in that command's help
#   - debian/control: the bloomctl package's description names every type
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bc=$top/userspace/bloomctl
page=$top/userspace/bloomctl.8
comp=$top/userspace/bloomctl.bash-completion
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

. "$here/tap.sh"
# check DESC MISSING: ok when MISSING (a list of words) is empty.
check() {
	if [ -z "$2" ]; then ok "$1"; else notok "$1 (missing:$2)"; fi
}

echo "TAP version 13"
if [ ! -x "$bc" ]; then
	notok "userspace/bloomctl is built (make -C userspace)"
	echo "1..$n"
	exit 1
fi

# The types, from the tool's own sizing of every type.
"$bc" -j calc capacity 1000 fpr 0.01 >"$tmp/calc1.json" 2>&1
"$bc" -j calc bits 4096 hashes 3 capacity 100 >"$tmp/calc2.json" 2>&1
types=$(grep -o '"type":"[a-z0-9]*"' "$tmp/calc1.json" | cut -d'"' -f4 | tr '\n' ' ')
# ... and transforms, the one table calc does not size (no false
# positive rate: 'bloomctl calc type transforms' says so).
if "$bc" calc type transforms capacity 10 fpr 0.1 2>&1 |
	grep -q "a transforms table has no false positive rate"; then
	types="$types transforms"
fi
set -- $types
if [ $# -ge 10 ]; then
	ok "bloomctl -j calc sizes $(($# - 1)) types, and refuses transforms ($types)"
else
	notok "bloomctl -j calc sizes every type (got: $types)"
	sed 's/^/#   /' "$tmp/calc1.json"
fi

# The Types section of create --help: "  TYPE  text" starts a type's
# paragraph, "    KEYWORD VALUE  text" is one of its keywords.
"$bc" create --help >"$tmp/create" 2>&1
sed -n '/^Types/,$p' "$tmp/create" | awk '
	/^  [a-z0-9]+  / { t = $1; next }
	/^    [a-z][a-z-]* / && t != "" { print t, $1, $2 }' >"$tmp/kw"
sed -n '/^Types/,$p' "$tmp/create" | awk '
	/^  [a-z0-9]+  / { t = $1 } t != "" { print t, $0 }' >"$tmp/para"
helptypes=$(sed -n '/^Types/,$p' "$tmp/create" | sed -n 's/^  \([a-z0-9]\{1,\}\)  .*/\1/p' | sort | tr '\n' ' ')
sorted=$(printf '%s\n' $types | sort | tr '\n' ' ')
if [ "$helptypes" = "$sorted" ]; then
	ok "create --help describes the same types"
else
	notok "create --help describes the same types (help: $helptypes; calc: $sorted)"
fi
allkw=$(cut -d' ' -f2 "$tmp/kw" | sort -u | tr '\n' ' ')

# Bash completion, sourced here with no bloomctl needed for these words.
. "$comp" || notok "sourcing userspace/bloomctl.bash-completion"
# complete LINE: prints COMPREPLY for LINE, one word a line.
complete_line() {
	local line=$1
	read -r -a COMP_WORDS <<<"$line"
	[[ $line == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_bloomctl bloomctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}"
}
# missing_from WORDS...: those of WORDS not in file $tmp/got.
missing_from() {
	local w m=
	for w in "$@"; do grep -qx -- "$w" "$tmp/got" || m="$m $w"; done
	printf '%s' "$m"
}
cd "$tmp" || exit 1
complete_line "bloomctl create x " >"$tmp/got"
check "completion: create NAME offers every type" "$(missing_from $types)"
complete_line "bloomctl calc capacity 10 fpr 0.1 type " >"$tmp/got"
check "completion: calc type offers every type it sizes" "$(missing_from ${types% transforms})"
complete_line "bloomctl calc capacity 10 fpr 0.1 " >"$tmp/got"
check "completion: calc offers every type keyword" "$(missing_from $allkw)"
for t in $types; do
	kws=$(awk -v t="$t" '$1 == t { print $2 }' "$tmp/kw" | tr '\n' ' ')
	complete_line "bloomctl create x $t " >"$tmp/got"
	check "completion: create NAME $t offers its keywords ($kws)" \
		"$(missing_from $kws)"
	awk -v t="$t" '$1 == t && $3 ~ /\|/ { print $2, $3 }' "$tmp/kw" |
	while read -r k vals; do
		complete_line "bloomctl create x $t $k " | sort >"$tmp/got"
		want=$(echo "$vals" | tr '|' '\n' | sort)
		if [ "$(cat "$tmp/got")" = "$want" ]; then
			echo "ok - completion: create NAME $t $k offers $vals"
		else
			echo "not ok - completion: create NAME $t $k offers $vals (got: $(tr '\n' ' ' <"$tmp/got"))"
		fi
	done >"$tmp/vals"
	while read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }" ;;
		*) notok "${line#not ok - }" ;;
		esac
	done <"$tmp/vals"
done

# The man page as text, and a section or subsection of it.
sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g' -e 's/\\(aq/'"'"'/g' -e 's/\\&//g' \
	"$page" >"$tmp/plain"
subsection() {
	awk -v c="$1" '/^\.S[HS] / { gsub(/"/, ""); on = ($1 == ".SS" && $2 == c); next }
		on { print }' "$tmp/plain"
}
subsection create >"$tmp/sec"
m=
for t in $types; do grep -qw -- "$t" "$tmp/sec" || m="$m $t"; done
check "man page: the create subsection names every type" "$m"
for c in list show calc; do
	"$bc" help "$c" >"$tmp/chelp" 2>&1
	subsection "$c" >"$tmp/sec"
	m=
	for t in $types; do
		grep -qw -- "$t" "$tmp/chelp" || continue
		grep -qw -- "$t" "$tmp/sec" || m="$m $t"
	done
	check "man page: the $c subsection names every type its help names" "$m"
done
# The JSON OUTPUT section's entry for a command (.TP, .B CMD, text).
json_entry() {
	awk -v c="$1" '/^\.SH / { sec = ($0 ~ /JSON OUTPUT/); next }
		sec && /^\.TP/ { tp = 1; on = 0; next }
		sec && tp { tp = 0; on = ($0 == ".B " c); next }
		sec && on { print }' "$tmp/plain"
}
json_entry calc >"$tmp/sec"
m=
for k in $(cat "$tmp/calc1.json" "$tmp/calc2.json" | grep -o '"[a-z_0-9]*":' | tr -d '":' | sort -u); do
	grep -qw -- "$k" "$tmp/sec" || m="$m $k"
done
check "man page: JSON OUTPUT calc names every key of bloomctl -j calc" "$m"
json_entry show >"$tmp/sec"
"$bc" show --help >"$tmp/showhelp" 2>&1
keys=$(grep -o 'json_key(j, "[a-z_0-9]*"' "$top/userspace/describe.c" | cut -d'"' -f2 | sort -u)
m=
mh=
for k in $keys; do
	grep -qw -- "$k" "$tmp/sec" || m="$m $k"
	grep -qw -- "$k" "$tmp/showhelp" || mh="$mh $k"
done
check "man page: JSON OUTPUT show names every key show prints" "$m"
check "show --help names every key show prints" "$mh"

# del, count, merge: the types whose create paragraph names the command.
for c in del count merge; do
	"$bc" help "$c" >"$tmp/chelp" 2>&1
	m=
	for t in $types; do
		awk -v t="$t" '$1 == t { $1 = ""; print }' "$tmp/para" |
			grep -qw -- "$c" || continue
		grep -qw -- "$t" "$tmp/chelp" || m="$m $t"
	done
	check "bloomctl help $c names every type whose create paragraph names $c" "$m"
done

# debian/control: the bloomctl package's description.
awk '/^Package: / { on = ($2 == "bloomctl") } on' "$top/debian/control" >"$tmp/deb"
m=
for t in $types; do grep -qw -- "$t" "$tmp/deb" || m="$m $t"; done
check "debian/control: the bloomctl description names every type" "$m"

finish
