#!/bin/bash
# Module lifetime, in the test VM (expects kbloom.ko loaded; leaves it
# unloaded):
#
#   init netns: filters "a" (with keys), "b"
#   netns kb-m1: filter "a" (with keys)
#   netns kb-m2: filter "x", then the netns is deleted
#   "a" of both namespaces attached at OUTPUT on lo, ping -f flooding lo
#   in both, some of their digests still queued (kmod/digest_queue.c);
#   "i" of the init netns at the netdev ingress hook of lo
#
# rmmod with all of that present and the traffic flowing succeeds, frees everything (the module
# WARNs on exit if any byte is still accounted, and scripts/vm fails the run
# on any WARN), and the family is gone; a fresh insmod starts empty; a
# container's root is held to its user's share of memory.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=userspace/bloomctl
pingers=()
trap 'kill "${pingers[@]}" 2>/dev/null; nft delete table ip kb-keep 2>/dev/null
      nft delete table netdev kb-keep-i 2>/dev/null
      ip netns del kb-m1 2>/dev/null; ip netns del kb-m2 2>/dev/null' EXIT

setup() {
	ip netns add kb-m1 && ip netns add kb-m2 &&
	$bc create a bloom bits 65536 hashes 4 && $bc add a k1 k2 k3 &&
	$bc create b bloom capacity 1000 fpr 0.01 &&
	$bc create i bloom bits 65536 hashes 4 &&
	$bc -n kb-m1 create a bloom bits 4096 hashes 2 && $bc -n kb-m1 add a z &&
	$bc -n kb-m2 create x bloom bits 4096 hashes 2
}
check "filters created in three namespaces" setup

others_intact() {
	ip netns del kb-m2 &&
	[ "$($bc list | wc -l)" -eq 3 ] && [ "$($bc -n kb-m1 list | wc -l)" -eq 1 ] &&
	$bc -n kb-m1 test a z
}
check "deleting a namespace leaves the others' filters alone" others_intact

# Until rmmod: the digests flow into "a" of both namespaces. An nftables
# chain at IPv4 output (the debug kernel has nf_tables for ip, not inet;
# the pings are IPv4) keeps netfilter's count of hooks there above 0, so
# rmmod's unregistering patches no kernel text (NF_HOOK's static key)
# under the pings: an emulated guest (QEMU TCG, Debian's 6.12) running
# the patched code on the other CPU took the patch's int3 as a fatal trap.
# A netdev chain on lo's ingress does the same for the ingress hooks' key.
traffic() {
	nft add table ip kb-keep &&
	nft add chain ip kb-keep out '{ type filter hook output priority 0; }' &&
	nft add table netdev kb-keep-i &&
	nft add chain netdev kb-keep-i in '{ type filter hook ingress device lo priority 0; }' &&
	$bc attach a hook output dev lo digest spie &&
	$bc attach i hook ingress dev lo digest spie &&
	$bc -n kb-m1 attach a hook output dev lo digest spie &&
	ip -n kb-m1 link set lo up || return 1
	ping -q -f 127.0.0.1 >/dev/null 2>&1 &
	pingers+=($!)
	ip netns exec kb-m1 ping -q -f 127.0.0.1 >/dev/null 2>&1 &
	pingers+=($!)
	sleep 1
	# The hooks are busy: each one has digested packets.
	$bc -j show a | grep -q '"digested":[1-9]' &&
	$bc -j show i | grep -q '"digested":[1-9]' &&
	$bc -n kb-m1 -j show a | grep -q '"digested":[1-9]'
}
check "traffic flows through filters attached in two namespaces, and lo's ingress" traffic

check "rmmod with filters present and traffic flowing succeeds" rmmod kbloom
kill "${pingers[@]}" 2>/dev/null
nft delete table ip kb-keep
check "the module is gone" test ! -e /sys/module/kbloom

version_not_loaded() {
	local out rc mp calls
	# The module helper, were it called, would leave a trace.
	calls=$(mktemp) && rm -f "$calls"
	printf '#!/bin/sh\necho "$*" >>%s\nexit 1\n' "$calls" >"$calls.sh" &&
		chmod +x "$calls.sh" || return 1
	mp=$(cat /proc/sys/kernel/modprobe)
	echo "$calls.sh" >/proc/sys/kernel/modprobe
	out=$($bc --version 2>&1)
	rc=$?
	echo "$mp" >/proc/sys/kernel/modprobe
	echo "exit $rc: $out; module helper calls: $(cat "$calls" 2>/dev/null)"
	[ $rc -eq 0 ] && [ ! -e "$calls" ] && [ ! -e /sys/module/kbloom ] &&
	[ "$out" = "$(printf 'bloomctl %s\nkbloom module: not loaded' \
		"$(sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$/\1/p' dkms.conf)")" ]
	rc=$?
	rm -f "$calls" "$calls.sh"
	return $rc
}
check "--version without the module: says not loaded, exit 0, loads nothing" version_not_loaded

not_loaded() {
	local out rc mp
	# With kbloom installed for this kernel (make install, DKMS) the
	# request would auto-load it: no module helper for this one.
	mp=$(cat /proc/sys/kernel/modprobe)
	echo /bin/false >/proc/sys/kernel/modprobe
	out=$($bc list 2>&1)
	rc=$?
	echo "$mp" >/proc/sys/kernel/modprobe
	echo "exit $rc: $out"
	[ $rc -eq 2 ] && [[ $out == *"not loaded"* ]]
}
check "bloomctl says the module is not loaded, exit 2" not_loaded

fresh() {
	insmod "${KBLOOM_KO:-kmod/kbloom.ko}" && [ -z "$($bc list)" ] &&
	[ -z "$($bc -n kb-m1 list)" ] && rmmod kbloom
}
check "a fresh insmod starts with no filters" fresh

# A container's root (uid 65534 outside, `unshare -Urn`) with
# userns_admin=1 and max_memory 64 MiB: its user's share is 16 MiB
# (user_memory_percent 25), and bloomctl says so with the figures.
container_share() {
	local out rc
	insmod "${KBLOOM_KO:-kmod/kbloom.ko}" userns_admin=1 max_memory=67108864 || return 1
	out=$(setpriv --reuid 65534 --regid 65534 --clear-groups unshare -Urn \
		sh -c "$bc create small bloom bits 8388608 hashes 3 &&
		       $bc create big bloom bits 134217728 hashes 3" 2>&1)
	rc=$?
	rmmod kbloom
	echo "exit $rc: $out"
	[ $rc -eq 2 ] &&
	# 6.1: the limit's text, bloomctl adds "X of 16777216 B in use, ...";
	# 6.2+: the kernel's "user_memory_percent: X of 16777216 B used"
	[[ $out == *"unable to create filter 'big'"*"user_memory_percent"*" of 16777216 B "* ]]
}
check "in a container, a create past its user's share is refused with the figures" container_share

finish
