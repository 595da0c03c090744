#!/bin/bash
# Every filter type through bloomctl, in the test VM (2 vCPUs):
#
#   bloomctl add -f A.keys ---\
#                              >-- one filter per type in kbloom.ko
#   bloomctl add -f B.keys ---/    (two processes at once, one per CPU)
#
# No false negatives for any type under concurrent adds; counting types
# count, delete and refuse absent deletes; merge and estimate work on
# same-key filters; calc prints every type.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=userspace/bloomctl
tmp=$(mktemp -d)
trap '$bc destroy all >/dev/null 2>&1; rm -rf "$tmp"' EXIT

seq -f 'a-%g' 1 40000 > "$tmp/a"
seq -f 'b-%g' 1 40000 > "$tmp/b"
cat "$tmp/a" "$tmp/b" > "$tmp/ab"
awk '{ printf "src=%s,dst=d%d,dport=%d\n", $0, NR % 7, NR % 100 }' "$tmp/a" > "$tmp/ta"
awk '{ printf "src=%s,dst=d%d,dport=%d\n", $0, NR % 7, NR % 100 }' "$tmp/b" > "$tmp/tb"
cat "$tmp/ta" "$tmp/tb" > "$tmp/tab"

# Two writers at once; then every key of both must be present.
concurrent() {
	local name=$1 fa=$2 fb=$3 all=$4 pa pb
	$bc add "$name" -f "$fa" & pa=$!
	$bc add "$name" -f "$fb" & pb=$!
	wait $pa && wait $pb &&
	[ "$($bc test "$name" -f "$all" | tail -1)" = "80000 keys: 80000 present, 0 absent" ]
}

for t in bloom partitioned blocked counting dleft; do
	check "$t: create from capacity and fpr" $bc create "c-$t" $t capacity 100000 fpr 0.01
	check "$t: no false negative under concurrent adds from 2 CPUs" \
		concurrent "c-$t" "$tmp/a" "$tmp/b" "$tmp/ab"
done

# A stable filter forgets old keys by design: a key's cell survives each
# later add with probability 1 - P/m, so with N adds the share of keys
# missing is at most 1 - (1 - e^(-kPN/m)) / (kPN/m) (re-sets only help).
stable_fades_as_bounded() {
	local absent
	$bc create c-stable stable capacity 100000 fpr 0.01 decrement 1 &&
	{ $bc add c-stable -f "$tmp/a" & $bc add c-stable -f "$tmp/b"; wait; } &&
	# Exit 1 (some absent) is expected here.
	{ $bc -j test c-stable -f "$tmp/ab" > "$tmp/st.json"; [ $? -le 1 ]; } &&
	absent=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["absent"])' < "$tmp/st.json") &&
	$bc -j show c-stable | python3 -c "
import json, math, sys
d = json.load(sys.stdin)
x = d['hashes'] * d['decrement'] * 80000 / d['bits']
bound = 1 - (1 - math.exp(-x)) / x
print('absent', $absent, 'of 80000; bound', round(bound * 80000))
assert $absent <= bound * 80000
"
}
check "stable: concurrent adds from 2 CPUs, old keys fade within the bound" stable_fades_as_bounded
check "multi: create with dims" $bc create c-multi multi capacity 100000 fpr 0.01 dims src,dst,dport
check "multi: no false negative under concurrent adds from 2 CPUs" \
	concurrent c-multi "$tmp/ta" "$tmp/tb" "$tmp/tab"
check "multi: a subset of the dimensions can be asked" $bc test c-multi src=a-17,dport=17
check "multi: an unknown dimension is named in the error" \
	bash -c "$bc test c-multi proto=6 2>&1 | grep -q proto"

counts() {
	$bc create cnt counting capacity 1000 fpr 0.01 counter-bits 8 &&
	$bc add cnt x x x y &&
	[ "$($bc count cnt x y z)" = "$(printf 'x 3\ny 1\nz 0')" ] &&
	$bc del cnt x &&
	[ "$($bc count cnt x)" = "x 2" ]
}
check "counting: count and del" counts

absent_del() {
	! $bc del cnt y nope 2>"$tmp/err" && grep -q nope "$tmp/err" &&
	[ "$($bc count cnt y)" = "y 1" ]
}
check "counting: a batch deleting an absent key is refused whole, naming it" absent_del

merged() {
	local k=000102030405060708090a0b0c0d0e0f
	$bc create m1 bloom bits 262144 hashes 5 key $k &&
	$bc create m2 bloom bits 262144 hashes 5 key $k &&
	$bc add m1 -f "$tmp/a" && $bc add m2 -f "$tmp/b" &&
	$bc merge m1 m2 &&
	$bc test m1 -f "$tmp/ab" | tail -1 | grep -q '80000 present'
}
check "merge or: the union of two same-key filters" merged

estimated() {
	local k=000102030405060708090a0b0c0d0e0f
	$bc create e1 bloom bits 1048576 hashes 5 key $k &&
	$bc create e2 bloom bits 1048576 hashes 5 key $k &&
	head -30000 "$tmp/ab" | $bc add e1 -f - &&
	sed -n '20001,50000p' "$tmp/ab" | $bc add e2 -f - &&
	$bc -j estimate e1 with e2 | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(d)
u = d["union"]["estimated_keys"]
i = d["intersection"]["estimated_keys"]
assert abs(u - 50000) / 50000 < 0.05, u
assert abs(i - 10000) / 10000 < 0.05, i
'
}
check "estimate: union and intersection within 5%" estimated

refused() {
	local out rc
	out=$($bc merge m1 c-bloom 2>&1)
	rc=$?
	echo "exit $rc: $out"
	[ $rc -eq 2 ] && [[ $out == *differ* ]]
}
check "merge of differently shaped filters is refused with the kernel's reason" refused

check "calc prints every type" bash -c \
	"out=\$($bc calc capacity 1000000 fpr 0.01) && for t in bloom partitioned blocked counting dleft stable; do grep -q \$t <<<\"\$out\" || exit 1; done"

finish
