#!/bin/bash
# A filter's hash function (create ... hash siphash-1-3, KBLOOM_A_HASH_FN),
# in the test VM: the module probes with SipHash-1-3 exactly as the uapi's
# rules say (checked against a SipHash-1-3 written here in Python, not the
# engine), show reports it, save writes format version 3 and restore
# brings it back, mapped lookups use it, and filters of the two functions
# never mix. A multi filter of more than 16 MiB a dimension, whose keys
# one at a time have their lines asked for first (engine/bloom.h), sets
# the same rules' bits with either function.
#
#   bloomctl create f bloom ... hash siphash-1-3 --CREATE HASH_FN=1--> module
#   bloomctl save f f.kbf  --EXPORT--> version 3, byte 164 = 1, cells
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=$PWD/userspace/bloomctl
tmp=$(mktemp -d)
trap '$bc destroy all >/dev/null 2>&1; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
key=f0e1d2c3b4a5968778695a4b3c2d1e0f

# The bits a bloom filter of m bits, k probes and hash key $key sets for
# the given keys, by the uapi's rules, with SipHash-1-3 (or 2-4) here.
cat >positions.py <<'PY'
import sys
M = (1 << 64) - 1
def rotl(x, b): return ((x << b) | (x >> (64 - b))) & M
def sipround(v):
    v0, v1, v2, v3 = v
    v0 = (v0 + v1) & M; v1 = rotl(v1, 13) ^ v0; v0 = rotl(v0, 32)
    v2 = (v2 + v3) & M; v3 = rotl(v3, 16) ^ v2
    v0 = (v0 + v3) & M; v3 = rotl(v3, 21) ^ v0
    v2 = (v2 + v1) & M; v1 = rotl(v1, 17) ^ v2; v2 = rotl(v2, 32)
    return [v0, v1, v2, v3]
def siphash(c, d, key, msg):
    k0 = int.from_bytes(key[:8], 'little'); k1 = int.from_bytes(key[8:], 'little')
    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d,
         k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573]
    tail = len(msg) & ~7
    words = [int.from_bytes(msg[i:i + 8], 'little') for i in range(0, tail, 8)]
    words.append(int.from_bytes(msg[tail:], 'little') | (len(msg) & 0xff) << 56)
    for m in words:
        v[3] ^= m
        for _ in range(c): v = sipround(v)
        v[0] ^= m
    v[2] ^= 0xff
    for _ in range(d): v = sipround(v)
    return v[0] ^ v[1] ^ v[2] ^ v[3]
def mix64(z):
    z = (z + 0x9e3779b97f4a7c15) & M
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    return z ^ (z >> 31)
rounds, key, m, k = sys.argv[1], bytes.fromhex(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
c, d = (1, 3) if rounds == '1-3' else (2, 4)
bits = set()
for word in sys.argv[5:]:
    h1 = siphash(c, d, key, word.encode()); h2 = mix64(h1)
    x, y = h1 * m >> 64, h2 * m >> 64
    for i in range(k):
        bits.add(x)
        x = (x + y) % m; y = (y + i + 1) % m
print(' '.join(map(str, sorted(bits))))
PY
# The bits set in an uncompressed version 1 or 3 save file of a bloom filter.
cat >setbits.py <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
n = int.from_bytes(b[336:344], 'little')
cells = b[344:344 + n]
print(' '.join(str(i) for i in range(n * 8) if cells[i // 8] >> (i % 8) & 1))
PY

keys="alpha beta gamma delta epsilon"

# The module sets the bits SipHash-1-3 gives, and not SipHash-2-4's.
probes() {
	local want other got
	$bc create f bloom bits 65536 hashes 4 key $key hash siphash-1-3 &&
	$bc add f $keys && $bc save f f.kbf || return 1
	want=$(python3 positions.py 1-3 $key 65536 4 $keys)
	other=$(python3 positions.py 2-4 $key 65536 4 $keys)
	got=$(python3 setbits.py f.kbf)
	echo "set: $got"
	echo "SipHash-1-3: $want"
	[ "$got" = "$want" ] && [ "$got" != "$other" ]
}
check "a siphash-1-3 bloom filter sets the bits the uapi's rules give for SipHash-1-3" probes

# ... and one made without the keyword SipHash-2-4's, as before.
default_probes() {
	$bc create d bloom bits 65536 hashes 4 key $key && $bc add d $keys &&
	$bc save d d.kbf || return 1
	[ "$(python3 setbits.py d.kbf)" = "$(python3 positions.py 2-4 $key 65536 4 $keys)" ]
}
check "a filter made without 'hash' probes with SipHash-2-4" default_probes

shows() {
	$bc show f | grep -x '  hash function: siphash-1-3' &&
	$bc show d | grep -x '  hash function: siphash-2-4' &&
	[ "$($bc -j show f | python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])')" = siphash-1-3 ]
}
check "show and show -j report the hash function" shows

# Version 3 at byte 8, the function at byte 164; version 1 and 0 for d.
versions() {
	local v3 h3 v1 h1
	v3=$(od -An -tu4 -j8 -N4 f.kbf | tr -d ' ') h3=$(od -An -tu4 -j164 -N4 f.kbf | tr -d ' ')
	v1=$(od -An -tu4 -j8 -N4 d.kbf | tr -d ' ') h1=$(od -An -tu4 -j164 -N4 d.kbf | tr -d ' ')
	echo "f.kbf: version $v3, hash $h3; d.kbf: version $v1, hash $h1"
	[ "$v3 $h3 $v1 $h1" = "3 1 1 0" ]
}
check "save writes a siphash-1-3 filter as format version 3, a siphash-2-4 one as 1" versions

restores() {
	$bc destroy f && $bc restore f.kbf &&
	$bc show f | grep -x '  hash function: siphash-1-3' &&
	expect 0 "alpha present" $bc test f alpha &&
	printf '%s\n' $keys >k && expect 0 "$(printf '%s present\n' $keys)
5 keys: 5 present, 0 absent" $bc test f -f k
}
check "restore brings back a siphash-1-3 filter that finds its keys" restores

# Mapped lookups (bloomctl test -f through /dev/kbloom) hash as the filter.
mapped() {
	seq -f 'k%g' 1 2000 >added && seq -f 'k%g' 1 4000 >tested &&
	$bc create mf blocked bits 65536 hashes 5 hash siphash-1-3 &&
	$bc add mf -f added || return 1
	$bc test mf -f tested >mapped.txt
	KBLOOM_NO_MAP=1 $bc test mf -f tested >netlink.txt
	tail -n 1 mapped.txt
	cmp mapped.txt netlink.txt && ! head -n 2000 mapped.txt | grep -q absent
}
check "test -f through the mapping answers as netlink for a siphash-1-3 filter" mapped

# One key at a time, a bloom filter of more than 16 MiB asks for a key's
# lines before reading them (engine/bloom.h); in the module that is a
# dimension of a multi filter that large (one dimension here: the debug
# tier runs this too). It sets the bits of the uapi's rules, with either
# function.
far() {
	local fn=$1 m=134217792 want got
	$bc create far multi bits $m hashes 7 dims a key $key hash siphash-$fn &&
	$bc add far a=alpha a=beta a=gamma && $bc save far far.kbf &&
	$bc destroy far || return 1
	want=$(python3 positions.py $fn $key $m 7 alpha beta gamma)
	got=$(python3 - far.kbf $want <<'PY'
import sys
b = open(sys.argv[1], 'rb').read()
cells = b[344:344 + int.from_bytes(b[336:344], 'little')]
want = [int(p) for p in sys.argv[2:]]
ok = all(cells[p // 8] >> (p % 8) & 1 for p in want)
print(int.from_bytes(cells, 'little').bit_count() if ok else 'missing')
PY
)
	echo "$got bits set; the rules give $want"
	[ "$got" = "$(echo $want | wc -w)" ] && $bc restore far.kbf &&
	expect 0 "*present*" $bc test far a=beta &&
	expect 1 "*absent*" $bc test far a=delta && $bc destroy far
}
check "a multi filter of a 16 MiB dimension (lines asked for first) sets the uapi's bits, siphash-1-3" far 1-3
check "a multi filter of a 16 MiB dimension (lines asked for first) sets the uapi's bits, siphash-2-4" far 2-4

# Filters of the two functions, same type, shape and key: not mergeable.
nomerge() {
	expect 2 "*unable to merge*hash functions differ (siphash-1-3 vs siphash-2-4)*" \
		$bc merge f d
}
check "merge of a siphash-2-4 filter into a siphash-1-3 one is refused, naming the difference" nomerge

exist() {
	expect 2 "bloomctl: unable to create filter 'd': File exists (kernel: a filter of that name exists with another hash function (HASH_FN))" \
		$bc -e create d bloom bits 65536 hashes 4 key $key hash siphash-1-3 &&
	$bc -e create d bloom bits 65536 hashes 4 key $key hash siphash-2-4 &&
	$bc -e create f bloom bits 65536 hashes 4 key $key hash siphash-1-3
}
check "create -e: the same hash function is the same filter, another is refused" exist

bad() {
	expect 2 "bloomctl: invalid hash 'siphash': siphash-2-4 or siphash-1-3" \
		$bc create x bloom bits 4096 hashes 3 hash siphash &&
	expect 2 "*'hash' is for filters of keys, not transforms*" \
		$bc create x transforms capacity 100 hash siphash-1-3 &&
	expect 2 "*'hash' has no bearing on sizing: create takes it, calc does not*" \
		$bc calc capacity 1000 fpr 0.01 hash siphash-1-3 &&
	! $bc show x >/dev/null 2>&1
}
check "a bad or misplaced hash function is refused, and nothing is made" bad

finish
