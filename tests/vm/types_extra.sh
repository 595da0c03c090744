#!/bin/bash
# The scalable filter through bloomctl, in the test VM:
#
#   bloomctl add -f (100x the first slice's capacity) --> slices made in
#       process context; show lists them; every key present; the measured
#       false positive rate under the target within a 99.9% bound
#   netns kb-sx: UDP to 127.0.0.1 from 3000 source ports --> OUTPUT hook,
#       digest flow, adds from softirq/atomic context: slices made by the
#       work item, none of the 3000 flows lost, no WARN/BUG in dmesg
#   max_memory just above the filter --> add fails naming max_memory, the
#       keys are still there, test still works
#   calc, save (refused with the kernel's reason), create refusals
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
bc=userspace/bloomctl
py=(python3 -I -S)
tmp=$(mktemp -d)
params=/sys/module/kbloom/parameters
maxmem=$(cat $params/max_memory)
trap 'echo "$maxmem" > $params/max_memory; $bc destroy all >/dev/null 2>&1
      ip netns del kb-sx 2>/dev/null; rm -rf "$tmp"' EXIT
dmesg_mark=$(dmesg | wc -l)
json() { "${py[@]}" -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

seq -f 'k-%g' 1 100000 > "$tmp/keys"
seq -f 'absent-%g' 1 100000 > "$tmp/absent"

check "scalable: create needs a capacity" \
	bash -c "$bc create s0 scalable bits 9600 hashes 7 2>&1 | grep -q 'needs .capacity N'"
check "scalable: tighten out of range is refused" \
	bash -c "$bc create s0 scalable capacity 1000 fpr 0.01 tighten 1.5 2>&1 | grep -q 'invalid tighten'"
check "scalable: growth is not for bloom" \
	bash -c "$bc create s0 bloom capacity 1000 fpr 0.01 growth 2 2>&1 | grep -q \"'growth' is for scalable\""
check "scalable: create from capacity, fpr, growth and tighten" \
	$bc create sc scalable capacity 1000 fpr 0.01 growth 2 tighten 0.9

grown() {
	$bc add sc -f "$tmp/keys" &&
	[ "$($bc test sc -f "$tmp/keys" | tail -1)" = "100000 keys: 100000 present, 0 absent" ] &&
	$bc show sc > "$tmp/show" && cat "$tmp/show" &&
	grep -q '^  slice 6: capacity 64000, .* (current)' "$tmp/show" &&
	grep -q '^  overflow: 0 keys' "$tmp/show" &&
	grep -q '^  growth: grows' "$tmp/show"
}
check "scalable: 100x its capacity through add: 7 slices, none overflowed, every key present" grown

# Rate at 100x: at most 0.01 + 3.29 sqrt(0.01 * 0.99 / 100000) + 0.5/1e5.
fpr_under_target() {
	local absent
	{ $bc -j test sc -f "$tmp/absent" > "$tmp/t.json"; [ $? -le 1 ]; } &&
	absent=$(json 'd["absent"]' < "$tmp/t.json") &&
	"${py[@]}" -c "
import math
p = (100000 - $absent) / 100000
b = 0.01 + 3.29 * math.sqrt(0.01 * 0.99 / 100000) + 0.5 / 100000
print('fpr measured', p, 'bound', b)
assert p <= b
"
}
check "scalable: measured fpr at 100x under the target (99.9% bound)" fpr_under_target

json_slices() {
	$bc -j show sc | json '(len(d["slices"]), d["slices"][0]["capacity"], d["growth"], d["tighten"], d["grow_error"])' |
		grep -Eq '^\((7|8), 1000, 2, 0.9, None\)$'
}
check "scalable: show -j lists the slices" json_slices

check "scalable: save is refused with the kernel's reason" \
	bash -c "$bc save sc $tmp/sc.kbf 2>&1 | grep -q 'EXPORT does not support scalable' && [ ! -e $tmp/sc.kbf ]"
check "scalable: calc prints its row with the bound" \
	bash -c "$bc calc capacity 1000 fpr 0.01 | grep -q '^scalable .*any number of keys <= 0.00'"

# The packet path: adds in softirq context, slices from the work item.
packet_path() {
	ip netns add kb-sx && ip -n kb-sx link set lo up &&
	$bc -n kb-sx create flows scalable capacity 200 fpr 0.01 &&
	$bc -n kb-sx attach flows hook output family ipv4 digest flow &&
	ip netns exec kb-sx "${py[@]}" -c '
import socket
for port in range(20000, 23000):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", port))
    s.sendto(b"x", ("127.0.0.1", 9))
    s.close()
' &&
	sleep 1 && $bc -n kb-sx -j show flows > "$tmp/flows.json" &&
	"${py[@]}" -c '
import json
d = json.load(open("'"$tmp/flows.json"'"))
sl = d["slices"]
print("digested", d["attach"]["digested"], "slices", [(s["capacity"], s["keys"]) for s in sl], "overflow", d["overflow"], "grow_error", d["grow_error"])
assert d["attach"]["digested"] >= 3000
assert len(sl) >= 4, "no growth from the packet path"
assert d["grow_error"] is None
assert sum(s["keys"] for s in sl) >= 2900
'
}
check "scalable: attached at OUTPUT, 3000 flows grow it from the packet path" packet_path

flows_present() {
	# Every flow's key (proto 17, 127.0.0.1:port > 127.0.0.1:9) present.
	"${py[@]}" -c '
for port in range(20000, 23000):
    print("0x11" + "7f000001" + "7f000001" + "%04x" % port + "0009")
' > "$tmp/flowkeys" &&
	[ "$($bc -n kb-sx test flows -f "$tmp/flowkeys" | tail -1)" = "3000 keys: 3000 present, 0 absent" ]
}
check "scalable: no flow lost on the packet path" flows_present

at_limit() {
	local used out rc
	# Below what every filter uses: its next slice cannot be charged.
	$bc create lim scalable capacity 1000 fpr 0.01 &&
	used=$($bc -j show lim | json 'd["memory"]') &&
	echo $((used + 65536)) > $params/max_memory &&
	out=$($bc add lim -f "$tmp/keys" 2>&1)
	rc=$?
	echo "exit $rc: $out"
	[ $rc -eq 2 ] && [[ $out == *max_memory* ]] &&
	echo "$maxmem" > $params/max_memory &&
	[ "$($bc test lim -f "$tmp/keys" | tail -1)" = "100000 keys: 100000 present, 0 absent" ] &&
	$bc show lim | grep -q '^  growth: stopped: the next slice would pass the module.s max_memory'
}
check "scalable: at max_memory add fails naming it, keys kept, test works" at_limit

check "no WARN, BUG or Oops in the kernel log" \
	bash -c "! dmesg | tail -n +$((dmesg_mark + 1)) | grep -E 'WARNING:|BUG:|Oops'"

finish
