#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The layout rule of userspace/ (README.md, "Layout"): cmd_NAME.c is the
# command NAME and defines its cmd_NAME() (cmd_NAME_PART.c holds a part of
# it, as cmd_save_all.c is 'save all') and its entry kb_cmd_NAME (name,
# function, help texts); every command of the table in bloomctl.c has its
# file; no other file defines a command. Library files (everything else)
# own no command. type_NAME.c is the filter type NAME's maths (types.h):
# it defines kb_utype_NAME, types.c's table names it, every type of the
# uapi (KBLOOM_TYPE_NAME) has one and no other file defines a type's ops.
# Prints TAP.
set -u

us=$(cd "$(dirname "$0")/../../userspace" && pwd)
. "$(dirname "$0")/tap.sh"
echo "TAP version 13"

# cmd_X of the table's entries &kb_cmd_X in bloomctl.c
table=$(sed -n 's/^[[:space:]]*&kb_\(cmd_[a-z_]*\),$/\1/p' "$us/bloomctl.c" | sort -u)
# files defining an int cmd_X(int argc, char **argv)
definers=$(grep -l '^int cmd_[a-z_]*(int argc, char \*\*argv)$' "$us"/*.c | xargs -n1 basename | sort)

outside=""
for f in $definers; do
	case $f in cmd_*.c) ;; *) outside="$outside $f" ;; esac
done
[ -n "$table" ] && [ -z "$outside" ]
ok_if "only cmd_*.c files define a command ($(echo "$definers" | wc -l) files)${outside:+; outside:$outside}" test $? = 0

missing=""
for c in $table; do
	f=$us/$c.c
	[ -f "$f" ] && grep -q "^int $c(int argc, char \*\*argv)$" "$f" &&
		grep -q "^const struct kb_command kb_$c = {$" "$f" ||
		missing="$missing $c"
done
[ -n "$table" ] && [ -z "$missing" ]
ok_if "each of the $(echo "$table" | wc -l) commands of the table is defined, with its entry kb_cmd_NAME, in its own cmd_NAME.c${missing:+; not:$missing}" test $? = 0

orphans=""
for f in "$us"/cmd_*.c; do
	name=$(basename "$f" .c)
	grep -q "^int $name(int argc, char \*\*argv)$" "$f" && continue
	# a part: cmd_NAME_PART.c beside its command's cmd_NAME.c
	[ -f "$us/${name%_*}.c" ] && [ "${name%_*}" != cmd ] && continue
	orphans="$orphans $name.c"
done
ok_if "every cmd_NAME.c defines cmd_NAME(), every cmd_NAME_PART.c has its cmd_NAME.c${orphans:+; not:$orphans}" test -z "$orphans"

# type_NAME.c for each KBLOOM_TYPE_NAME of the uapi, and only those
utypes=$(sed -n 's/^[[:space:]]*KBLOOM_TYPE_\([A-Z0-9_]*\),.*/\1/p' "$us/../kmod/uapi/kbloom.h" |
	grep -v '^UNSPEC$' | tr 'A-Z' 'a-z' | sort | tr '\n' ' ')
tbad=""
for tn in $utypes; do
	f=$us/type_$tn.c
	[ -f "$f" ] && grep -q "^const struct kb_utype kb_utype_$tn = {$" "$f" &&
		grep -q "^[[:space:]]*\[KBLOOM_TYPE_[A-Z0-9_]*\] = &kb_utype_$tn,$" "$us/types.c" ||
		tbad="$tbad type_$tn.c"
done
for f in $(grep -l '^const struct kb_utype kb_utype_[a-z_]* = {$' "$us"/*.c); do
	tn=$(sed -n 's/^const struct kb_utype kb_utype_\([a-z_]*\) = {$/\1/p' "$f")
	case " $utypes " in *" $tn "*) ;; *) tbad="$tbad $(basename "$f")" ;; esac
	[ "$(basename "$f")" = "type_$tn.c" ] || tbad="$tbad $(basename "$f")"
done
[ -n "$utypes" ] && [ -z "$tbad" ]
ok_if "each of the $(echo $utypes | wc -w) filter types has its ops kb_utype_NAME in its own type_NAME.c, named in types.c's table${tbad:+; not:$tbad}" test $? = 0
finish
