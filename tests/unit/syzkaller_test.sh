#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The syzkaller description of the family
# (tests/fuzz/syzkaller/socket_netlink_generic_kbloom.txt) follows the ABI
# header (kmod/uapi/kbloom.h); prints TAP:
#   - every command of enum kbloom_cmd has its sendmsg$ call
#   - every enumerator of the header's other enums (attributes of every
#     nest, types, hooks, families, digests, skip and grow reasons, update
#     and merge rules) but the *_UNSPEC placeholders is named in it
#   - every KBLOOM_F_* flag is in its kbloom_flags set
#   - every KBLOOM_* name it uses is the header's (a renamed one would
#     leave it describing what no longer exists)
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
hdr=$top/kmod/uapi/kbloom.h
desc=$top/tests/fuzz/syzkaller/socket_netlink_generic_kbloom.txt

n=0
fails=0
result() { # result OK DESCRIPTION [DETAIL]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		[ -z "${3:-}" ] || printf '%s\n' "$3" | sed 's/^/#   /'
		fails=$((fails + 1))
	fi
}

# The enumerators of the header's enums, one a line (no __*_MAX).
enumerators() {
	awk '/^enum kbloom_[a-z_]* \{/ { inside = 1; next }
	     inside && /^\};/ { inside = 0 }
	     inside { sub(/\/\*.*/, ""); gsub(/[ \t,]/, "");
		      sub(/=.*/, ""); if ($0 ~ /^KBLOOM_/) print }' "$hdr"
}
# Whole-word presence in the description.
named() { grep -qw -- "$1" "$desc"; }

echo "TAP version 13"
echo "1..5"

[ -s "$desc" ]
result $? "the description exists ($desc)"

missing=
for c in $(enumerators | grep '^KBLOOM_CMD_' | grep -v '_UNSPEC$'); do
	grep -q "^sendmsg\\\$$c(" "$desc" || missing="$missing $c"
done
[ -z "$missing" ]
result $? "every command has its sendmsg\$ call" "missing:$missing"

missing=
count=0
for e in $(enumerators | grep -v '^KBLOOM_CMD_' | grep -v '_UNSPEC$'); do
	count=$((count + 1))
	named "$e" || missing="$missing $e"
done
[ -z "$missing" ] && [ "$count" -gt 100 ]
result $? "every attribute and value of the header's enums is described ($count)" \
	"missing:$missing"

flags=$(sed -n 's/^#define \(KBLOOM_F_[A-Z]*\)[ \t]*_BITUL.*/\1/p' "$hdr")
line=$(grep '^kbloom_flags = ' "$desc")
missing=
for f in $flags; do
	printf '%s\n' "$line" | grep -qw -- "$f" || missing="$missing $f"
done
[ -n "$flags" ] && [ -z "$missing" ]
result $? "every KBLOOM_F_* flag is in kbloom_flags" "missing:$missing"

unknown=
for w in $(grep -v '^#' "$desc" | grep -ow 'KBLOOM_[A-Z0-9_]*' | sort -u); do
	grep -qw -- "$w" "$hdr" || unknown="$unknown $w"
done
[ -z "$unknown" ]
result $? "every KBLOOM_* name the description uses is in the header" \
	"not in the header:$unknown"

[ "$fails" -eq 0 ]
