#!/bin/bash
# The exit-code table of bloomctl, the ipset way: tests/vm/exitcodes.txt
# holds lines "<expected exit status> <bloomctl arguments...>" (format
# there), run in order (later lines rely on earlier ones) in a network
# namespace of their own, from a directory holding the fixture files the
# table names. One TAP line per table line:
#
#   ok 7 - rc 2: bloomctl create x bloom bits 7 hashes 3
#
# Besides the status, the error contract is checked: exit 2 comes with a
# message on stderr, exits 0 and 1 with nothing on stderr. A failing line
# shows its line number, status, stderr and the start of stdout. Each
# command runs with stdin /dev/null and at most 60 s (a hang fails). A
# line marked "# TODO why" in the table (a known bug) prints its result
# with that TAP directive and does not fail the suite.
#
# Run in the test VM with the module loaded:
#   scripts/vm sh -c 'insmod kmod/kbloom.ko && tests/vm/exitcodes.sh'
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C

top=$PWD
bc=$top/userspace/bloomctl
table=$top/tests/vm/exitcodes.txt
ns=kb-exit
tmp=$(mktemp -d)
trap 'ip netns del "$ns" 2>/dev/null; rm -rf "$tmp"' EXIT

echo "TAP version 13"
n=0
fails=0

# Fixtures.
PKT=4500001c00010000401166ce0a0000010a00000213890fa000080000
PKT2=4500001c00010000401166c60a0000090a000002138a0fa000080000
PKTSPIE=0x4500001c00010000001100000a0000010a00000213890fa000080000
KEY1024=0x$(head -c 1024 /dev/zero | tr '\0' 'k' | od -An -v -tx1 | tr -d ' \n')
KEY1025=${KEY1024}6b
mkdir "$tmp/run" "$tmp/run/arch"
cd "$tmp/run" || exit 1
printf 'alpha\nbeta\n' >keys.txt
printf 'alpha\nnosuchkey\n' >absent.txt
printf 'a\n\nb\n' >empty-line.txt
printf '# this namespace, filter w\nrouter r1 netns - filter w\n' >topo.txt
printf 'router r1 netns - filter w\nrouter r1 netns - filter w\n' >bad-topo.txt
# r2's archive directory is empty: r2 cannot be asked (a partial trace)
mkdir empty-arch
printf 'router r1 netns - filter w\nrouter r2 archive empty-arch filter w\nlink r1 r2\n' >partial-topo.txt
printf 'router r1 none\nrouter r2 netns - filter w\nlink r1 r2\n' >none-topo.txt
printf 'not a save file at all\n' >garbage.kbf
printf 'KBLOOMF\n\001\000\000\000\000\000\000\000b\000\000' >truncated.kbf
printf '# batch fixture\nlist\nadd b batchkey\ntest b batchkey\n\n' >ok.batch
printf 'test b nosuchkey\nlist\n' >negative.batch
printf 'list\nclear nosuch\nlist\nshow nosuch2\n' >failing.batch
printf 'batch ok.batch\n' >recursive.batch

ip netns del "$ns" 2>/dev/null
if ! ip netns add "$ns"; then
	echo "not ok 1 - ip netns add $ns"
	echo "1..1"
	exit 1
fi

# The digest fixture must be what bloomctl computes, or the query lines
# test nothing.
got=$("$bc" digest packet "$PKT")
if [ "$got" != "$PKTSPIE" ]; then
	echo "not ok 1 - fixture: spie digest of @PKT@ is $PKTSPIE (bloomctl says '$got')"
	echo "1..1"
	exit 1
fi

lineno=0
while IFS= read -r line || [ -n "$line" ]; do
	lineno=$((lineno + 1))
	case $line in '' | '#'*) continue ;; esac
	# "... # TODO why": a known bug, a TAP TODO.
	todo=
	if [[ $line =~ ^(.*[^[:space:]])[[:space:]]+#[[:space:]]*(TODO.*)$ ]]; then
		line=${BASH_REMATCH[1]}
		todo=" # ${BASH_REMATCH[2]}"
	fi
	read -r -a words <<<"$line"
	want=${words[0]}
	args=()
	for w in "${words[@]:1}"; do
		w=${w//@PKTSPIE@/$PKTSPIE}
		w=${w//@PKT2@/$PKT2}
		w=${w//@PKT@/$PKT}
		w=${w//@KEY1024@/$KEY1024}
		w=${w//@KEY1025@/$KEY1025}
		w=${w//@NS@/$ns}
		args+=("$w")
	done
	# The description: the line as written (fixtures by name).
	desc="rc $want: bloomctl${line#"$want"}"
	ip netns exec "$ns" timeout 60 "$bc" "${args[@]}" \
		</dev/null >"$tmp/out" 2>"$tmp/err"
	rc=$?
	n=$((n + 1))
	why=
	if [ "$rc" -ne "$want" ]; then
		why="exit $rc, want $want"
	elif [ "$want" -eq 2 ] && [ ! -s "$tmp/err" ]; then
		why="exit 2 without a message on stderr"
	elif [ "$want" -ne 2 ] && [ -s "$tmp/err" ]; then
		why="exit $rc with a message on stderr"
	fi
	if [ -z "$why" ]; then
		echo "ok $n - $desc$todo"
	else
		echo "not ok $n - $desc$todo"
		echo "# exitcodes.txt:$lineno: $why"
		head -c 2000 "$tmp/err" | head -5 | sed 's/^/# stderr: /'
		head -c 2000 "$tmp/out" | head -5 | sed 's/^/# stdout: /'
		[ -n "$todo" ] || fails=$((fails + 1))
	fi
done <"$table"

echo "1..$n"
[ $fails -eq 0 ]
