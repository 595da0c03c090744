#!/bin/bash
# Golden outputs of 'bloomctl list' and 'bloomctl show', plain and JSON, the
# ipset way: in a fresh network namespace (no other suite's filters, no
# traffic), filters of every type are created with a fixed 'key HEX32' and
# fixed keys, so cells, fill, estimates and rates are the same on every
# run; each output is compared with diff against its file in
# tests/vm/golden/ (one TAP check per file, the diff shown on failure):
#
#   list.out, list-json.out            bloomctl list, bloomctl -j list
#   show-NAME.out, show-NAME-json.out  bloomctl show NAME, -j show NAME
#
# What is not deterministic is normalized with sed before comparing:
#   - times (window start; 2026-11-24T01:21:11.924[+00:00]) -> TIME, and
#     the *_ns times in JSON -> "NS" (an open window's end_ns 0 stays 0)
#   - kernel memory: it counts sizeof(the kernel's filter object) and per-CPU
#     counters, so it differs between kernels (6.1, 6.12, debug) and CPU
#     counts -> "memory N", "memory: N bytes (N)", "memory":"N"
# (JSON stays JSON: the raw -j output must also parse, and a failing
# JSON check shows its diff field by field too).
# Everything else (fill, counters, generation, estimates and their
# formatting) is compared as printed.
#
# Run in the test VM with the module loaded:
#   scripts/vm sh -c 'insmod kmod/kbloom.ko && tests/vm/golden.sh'
# To regenerate the files after a deliberate output change (no make
# needed; the checkout is writable in the VM), then review 'git diff':
#   scripts/vm sh -c 'insmod kmod/kbloom.ko && tests/vm/golden.sh --update'
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
export LC_ALL=C TZ=UTC

update=0
case ${1:-} in
--update) update=1 ;;
"") ;;
*) echo "usage: tests/vm/golden.sh [--update]" >&2; exit 2 ;;
esac

dir=tests/vm/golden
ns=kb-golden
bc=(userspace/bloomctl -n "$ns")
K=000102030405060708090a0b0c0d0e0f
tmp=$(mktemp -d)
trap 'ip netns del "$ns" 2>/dev/null; rm -rf "$tmp"' EXIT

n=0
fails=0
echo "TAP version 13"
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() { n=$((n + 1)); echo "not ok $n - $1"; fails=$((fails + 1)); }

# The filters, one of each type and of each kind of option, their keys and
# what changes their counters. Every line must succeed (test ... exit 1 is
# run as 'test-absent').
setup() {
	cat <<EOF
create a-bloom bloom bits 4096 hashes 3 capacity 100 key $K
add a-bloom alpha beta gamma 0x00ff10
test a-bloom alpha
test-absent a-bloom nosuchkey
create b-part partitioned bits 4096 hashes 4 key $K
add b-part alpha beta
create c-blocked blocked bits 4096 hashes 5 capacity 200 key $K
add c-blocked a b c d
create d-count counting capacity 1000 fpr 0.01 counter-bits 8 key $K
add d-count x x y z
del d-count z
create e-cons counting bits 4096 hashes 3 update conservative key $K
add e-cons x x x y
create f-dleft dleft bits 4096 subtables 4 bucket-cells 8 fp-bits 12 capacity 500 key $K
add f-dleft x x y
create g-stable stable bits 4096 hashes 3 counter-bits 2 decrement 10 key $K
add g-stable only-one-add
create h-stable-fpr stable capacity 1000 fpr 0.01 key $K
create i-multi multi bits 4096 hashes 3 dims src,dst,dport key $K
add i-multi src=10.0.0.1,dst=10.0.0.2,dport=0x0050
test i-multi src=10.0.0.1,dport=0x0050
create j-window bloom bits 4096 hashes 3 windows 4 interval 1h key $K
add j-window k1 k2
attach j-window hook forward digest spie
create k-flow counting bits 4096 hashes 3 key $K
attach k-flow hook input dev lo family ipv4 digest flow
create l-merged bloom bits 4096 hashes 3 key $K
add l-merged one two
create l-src bloom bits 4096 hashes 3 key $K
add l-src two three
merge l-merged l-src op or
create m-cleared bloom bits 1024 hashes 2 key $K
add m-cleared gone
clear m-cleared
add m-cleared kept
create n-full bloom bits 64 hashes 4 key $K
EOF
}

setup_run() {
	local cmd want rc
	ip netns del "$ns" 2>/dev/null
	ip netns add "$ns" || return 1
	while read -r cmd rest; do
		want=0
		if [ "$cmd" = test-absent ]; then
			cmd="test"
			want=1
		fi
		# shellcheck disable=SC2086 # words of the line
		"${bc[@]}" $cmd $rest >/dev/null
		rc=$?
		if [ $rc -ne $want ]; then
			echo "# set-up: bloomctl $cmd $rest: exit $rc, want $want"
			return 1
		fi
	done < <(setup)
	# n-full: 400 keys into 64 bits, every bit set: 'saturated'.
	seq -f 'fill-%g' 1 400 >"$tmp/keys"
	"${bc[@]}" add n-full -f "$tmp/keys" || return 1
}

if setup_run >"$tmp/setup.log" 2>&1; then
	ok "set-up: filters of every type, fixed hash key, fixed keys"
else
	notok "set-up: filters of every type, fixed hash key, fixed keys"
	sed 's/^/# /' "$tmp/setup.log"
	echo "1..$n"
	exit 1
fi

normalize() {
	sed -E \
		-e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?/TIME/g' \
		-e 's/"(start|end)_ns":[1-9][0-9]*/"\1_ns":"NS"/g' \
		-e 's/\<memory [0-9]+\>/memory N/g' \
		-e 's/memory: [0-9]+ bytes \([0-9.]+ [KMGT]?i?B\)/memory: N bytes (N)/' \
		-e 's/"memory":[0-9]+/"memory":"N"/g'
}

# golden FILE BLOOMCTL-ARGS...: one check.
golden() {
	local file=$1 out rc
	shift
	out=$tmp/$file
	"${bc[@]}" "$@" >"$out.raw" 2>"$tmp/err"
	rc=$?
	normalize <"$out.raw" >"$out"
	echo "$file" >>"$tmp/checked"
	if [ $rc -ne 0 ] || [ -s "$tmp/err" ]; then
		notok "$file: bloomctl $* (exit $rc)"
		sed 's/^/# /' "$tmp/err"
		return
	fi
	if [[ $file == *-json.out ]] &&
	   ! python3 -m json.tool <"$out.raw" >/dev/null 2>"$tmp/err"; then
		notok "$file: bloomctl $* (not JSON)"
		sed 's/^/# /' "$tmp/err" "$out.raw"
		return
	fi
	if [ $update -eq 1 ]; then
		if mkdir -p "$dir" && cp "$out" "$dir/$file"; then
			ok "$file: bloomctl $* (written)"
		else
			notok "$file: bloomctl $* (cannot write $dir/$file)"
		fi
		return
	fi
	if [ ! -f "$dir/$file" ]; then
		notok "$file: bloomctl $* (no $dir/$file: run golden.sh --update)"
		sed 's/^/# + /' "$out"
	elif diff -u "$dir/$file" "$out" >"$tmp/diff"; then
		ok "$file: bloomctl $*"
	else
		notok "$file: bloomctl $*"
		sed 's/^/# /' "$tmp/diff"
		# One-line JSON: the same diff, one field a line.
		if [[ $file == *-json.out ]] && command -v python3 >/dev/null; then
			echo "# field by field:"
			diff -u <(python3 -m json.tool <"$dir/$file" 2>&1) \
				<(python3 -m json.tool <"$out" 2>&1) | head -80 |
				sed 's/^/#   /'
		fi
	fi
}

: >"$tmp/checked"
golden list.out list
golden list-json.out -j list
for f in a-bloom b-part c-blocked d-count e-cons f-dleft g-stable \
	h-stable-fpr i-multi j-window k-flow l-merged m-cleared n-full; do
	golden "show-$f.out" show "$f"
	golden "show-$f-json.out" -j show "$f"
done

# Every golden file has its check (none left over from a renamed filter).
stale=
for f in "$dir"/*; do
	[ -e "$f" ] || continue
	grep -qxF -e "${f##*/}" "$tmp/checked" || stale="$stale ${f##*/}"
done
if [ -z "$stale" ]; then
	ok "every file in $dir has a check"
else
	notok "every file in $dir has a check (no check:$stale)"
fi

echo "1..$n"
[ $fails -eq 0 ]
