#!/bin/bash
# The family's YNL spec (docs/netlink/kbloom.yaml) drives the real module:
# the kernel's own spec-driven CLI (tools/net/ynl/cli.py of Debian's
# linux-source-6.12, copied to tests/vm/build/ynl by make -C tests/vm)
# creates filters, adds, tests and counts keys, dumps the list and reads
# the module's status with no kbloom code of its own; bloomctl checks what
# it did, and what it reports is what bloomctl reports.
#
# One behaviour per check, exact values.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=$PWD/userspace/bloomctl
ynldir=$PWD/tests/vm/build/ynl
spec=$PWD/docs/netlink/kbloom.yaml
tmp=$(mktemp -d)
trap '$bc destroy all >/dev/null 2>&1; rm -rf "$tmp"' EXIT

# ynl ARGS...: the CLI on the spec, JSON out, captured (tap.sh): stdout in
# $tmp/out, stderr in $tmp/err, exit status in $rc. The first call checks
# the spec against the genetlink-legacy schema (as the CLI does by
# default); the spec does not change, so the others skip that check
# (--no-schema), which under emulation is most of a call's 18 s. (check
# runs each in a subshell: a file says the check was made.)
ynl() {
	local schema=(--schema "$ynldir/Documentation/netlink/genetlink-legacy.yaml")
	[ -e "$tmp/schema-checked" ] && schema=(--no-schema)
	capture "$tmp" python3 "$ynldir/tools/net/ynl/cli.py" --spec "$spec" \
		"${schema[@]}" --output-json "$@"
	[ $rc -ne 0 ] || : >"$tmp/schema-checked"
}

# json_is PYTHON-EXPR WANT: the expression over j (the JSON of $tmp/out)
# prints exactly WANT.
json_is() {
	local got
	got=$(python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$tmp/out" "$1") || return 1
	[ "$got" = "$2" ] || { echo "got: $got"; echo "want: $2"; return 1; }
}

hex() { printf '%s' "$1" | od -An -tx1 | tr -d ' \n'; }

create() {
	ynl --do create --json '{"name": "y1", "type": "bloom", "bits": 4096, "hashes": 3}' &&
	[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] &&
	[ "$($bc -j show y1 | python3 -c 'import json, sys
j = json.load(sys.stdin)
print(j["name"], j["type"], j["bits"], j["hashes"])')" = "y1 bloom 4096 3" ]
}
check "create (type by enum name): bloomctl shows bloom y1, 4096 bits, 3 hashes" create

add() {
	ynl --do add --json "{\"name\": \"y1\", \"keys\": {\"key\": [\"$(hex alpha)\", \"$(hex beta)\"]}}" &&
	[ $rc -eq 0 ] &&
	[ "$($bc test y1 alpha beta)" = $'alpha present\nbeta present' ]
}
check "add two keys (a multi-attr nest): bloomctl finds both present" add

testkeys() {
	"$bc" add y1 gamma &&
	ynl --do test --json "{\"name\": \"y1\", \"keys\": {\"key\": [\"$(hex alpha)\", \"$(hex delta)\", \"$(hex gamma)\"]}}" &&
	[ $rc -eq 0 ] &&
	json_is '(j["name"], j["nkeys"], j["npresent"], j["result"])' "('y1', 3, 2, '05')"
}
check "test: nkeys 3, npresent 2, result bitmap 05 (keys 0 and 2 present)" testkeys

count() {
	"$bc" create y2 counting bits 1024 hashes 2 windows 3 interval 1h &&
	"$bc" add y2 a a a b &&
	ynl --do count --json "{\"name\": \"y2\", \"keys\": {\"key\": [\"$(hex a)\", \"$(hex b)\", \"$(hex c)\"]}}" &&
	[ $rc -eq 0 ] &&
	json_is '(j["nkeys"], j["npresent"], j["counts"])' "(3, 2, [3, 1, 0])"
}
check "count on a counting filter: counts decoded as u32s [3, 1, 0]" count

dump() {
	ynl --dump get && [ $rc -eq 0 ] &&
	json_is '[(f["name"], f["type"], f["bits"], f["hashes"], f.get("windows"), f.get("counter-bits"), f.get("update")) for f in j]' \
		"[('y1', 'bloom', 4096, 3, None, None, None), ('y2', 'counting', 1024, 2, 3, 4, 'plain')]"
}
check "dump get lists both filters with type, shape and type parameters" dump

# The dump's figures are bloomctl's: the same attributes, decoded by two
# independent codecs.
same_as_bloomctl() {
	ynl --dump get && [ $rc -eq 0 ] &&
	"$bc" -j list >"$tmp/bc.json" &&
	python3 -c 'import json, sys
y = {f["name"]: f for f in json.load(open(sys.argv[1]))}
b = {f["name"]: f for f in json.load(open(sys.argv[2]))}
assert sorted(y) == sorted(b) == ["y1", "y2"], (sorted(y), sorted(b))
for n in y:
    got = (y[n]["memory"], y[n]["fill"], y[n]["generation"], y[n]["stats"]["inserts"], y[n]["capacity"])
    want = (b[n]["memory"], b[n]["fill"], b[n]["generation"], b[n]["inserts"], b[n]["capacity"])
    assert got == want, (n, got, want)' "$tmp/out" "$tmp/bc.json"
}
check "dump get: memory, fill, generation, inserts and capacity equal bloomctl -j list's" same_as_bloomctl

windows() {
	ynl --do get --json '{"name": "y2"}' && [ $rc -eq 0 ] &&
	json_is '[(w["id"], w["end"], w["packets"]) for w in j["window-list"]["window"]]' "[(1, 0, 4)]"
}
check "get y2: its window list (nested multi-attr) holds window 1, open, 4 keys" windows

status() {
	local v
	v=$(cat /sys/module/kbloom/version) &&
	ynl --do status && [ $rc -eq 0 ] &&
	json_is '(j["nfilters"], j["version"], j["mem-limit"] == int(open("/sys/module/kbloom/parameters/max_memory").read()))' \
		"(2, '$v', True)"
}
check "status: 2 filters, the module's version, mem-limit is max_memory" status

multi() {
	ynl --do create --json '{"name": "y3", "type": "multi", "bits": 4096, "hashes": 3, "dims": {"name": ["src", "dst"]}}' &&
	[ $rc -eq 0 ] &&
	ynl --do add --json "{\"name\": \"y3\", \"keys\": {\"tuple\": [{\"dim1\": \"$(hex s1)\", \"dim2\": \"$(hex d1)\"}]}}" &&
	[ $rc -eq 0 ] &&
	"$bc" test y3 src=s1,dst=d1 >/dev/null &&
	{ "$bc" test y3 src=s1,dst=d2 >/dev/null; [ $? -eq 1 ]; }
}
check "a multi filter: dims by name, a tuple key by dimension number" multi

exists() {
	ynl --do create --json '{"name": "y1", "type": "bloom", "bits": 64, "hashes": 1}' &&
	[ $rc -ne 0 ] && grep -q "error: -17" "$tmp/out" &&
	grep -q "'msg': 'a filter of that name exists in this namespace'" "$tmp/out"
}
check "create of a taken name: error -17 (EEXIST) with the module's extack message" exists

flags() {
	ynl --do destroy --json '{"flags": ["all"]}' && [ $rc -eq 0 ] &&
	[ "$($bc -j list)" = "[]" ]
}
check "destroy with flags [all] (a flags enum): no filter left" flags

# The kernel's YNL library sends family version 1 in every header; the
# spec's client-version says it speaks 2, as EXPORT of SipHash-1-3 needs.
h13key=000102030405060708090a0b0c0d0e0f
export13_refused() {
	ynl --do create --json "{\"name\": \"y13\", \"type\": \"bloom\", \"bits\": 4096, \"hashes\": 3, \"hash-fn\": \"siphash13\", \"hash-key\": \"$h13key\"}" &&
	[ $rc -eq 0 ] && "$bc" add y13 alpha beta &&
	ynl --dump export --json '{"name": "y13"}' &&
	[ $rc -ne 0 ] && grep -q "error: -95" "$tmp/out" &&
	grep -q "send CLIENT_VERSION 2" "$tmp/out"
}
check "export of a SipHash-1-3 filter as YNL's version 1: error -95 (EOPNOTSUPP), the message names client-version" export13_refused

export13() {
	ynl --dump export --json '{"name": "y13", "client-version": 2}' && [ $rc -eq 0 ] &&
	cp "$tmp/out" "$tmp/export13.json" &&
	json_is '(j[0]["hash-fn"], j[0]["hash-key"], j[0]["cell-bytes"], sum(len(bytes.fromhex(m["cells"])) for m in j[1:]))' \
		"('siphash13', '00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f', 512, 512)"
}
check "export with client-version 2: hash-fn siphash13, the hash key (hex, as the spec hints), 512 bytes of cells in chunks" export13

# Restored through the spec alone, on one socket (the load is the
# creating socket's): the copy answers as the original does.
restore13() {
	[ -s "$tmp/export13.json" ] &&
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
h = j[0]
ops = [("create", {"name": "y14", "type": "bloom", "bits": h["bits"], "hashes": h["hashes"],
                   "hash-fn": h["hash-fn"], "hash-key": h["hash-key"], "flags": ["load"]})]
ops += [("import", {"name": "y14", "offset": m["offset"], "cells": m["cells"]}) for m in j[1:]]
ops += [("import", {"name": "y14", "flags": ["loaded"]})]
for op, a in ops:
    print(op)
    print(json.dumps(a))' "$tmp/export13.json" >"$tmp/ops" &&
	mapfile -t ops <"$tmp/ops" &&
	local multi=() i &&
	for ((i = 0; i < ${#ops[@]}; i += 2)); do multi+=(--multi "${ops[i]}" "${ops[i+1]}"); done &&
	ynl "${multi[@]}" && [ $rc -eq 0 ] &&
	[ "$("$bc" test y14 alpha beta gamma)" = "$("$bc" test y13 alpha beta gamma)" ] &&
	[ "$("$bc" -j show y14 | python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["hash"], j["fill"])')" = \
	  "$("$bc" -j show y13 | python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["hash"], j["fill"])')" ]
}
check "create (flags load) and import of the export on one socket (--multi): the copy tests and fills as the original" restore13

# The events group as the spec models it: create and destroy under their
# commands' numbers, decoded by name. The CLI listens while bloomctl acts:
# 6.12's ynl loses its request when an event arrives in a read of its own
# (lib/ynl.py _ops: op = None, then op.attr_set), so it does no request
# itself. It is listening when /proc/net/netlink shows its socket's group.
events() {
	python3 "$ynldir/tools/net/ynl/cli.py" --spec "$spec" --no-schema \
		--output-json --subscribe events --sleep 8 >"$tmp/ntf" 2>"$tmp/err" &
	local pid=$! i
	for ((i = 0; i < 600; i++)); do
		awk -v p=$pid '$2 == 16 && $3 == p && $4 != "00000000" { f = 1 } END { exit !f }' \
			/proc/net/netlink && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	"$bc" create y15 bloom bits 64 hashes 1 && "$bc" destroy y15 &&
	wait $pid &&
	python3 -c 'import json, sys
j = json.load(open(sys.argv[1]))
assert [(m["name"], m["msg"]) for m in j] == [("create-ntf", {"name": "y15", "type": "bloom"}),
                                              ("destroy-ntf", {"name": "y15", "type": "bloom"})], j' "$tmp/ntf" ||
	{ echo "# listener: $(cat "$tmp/ntf" "$tmp/err")"; return 1; }
}
check "events: create-ntf and destroy-ntf (name, type) decoded from the spec" events

finish
