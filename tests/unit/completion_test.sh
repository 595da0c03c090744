#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# userspace/bloomctl.bash-completion, sourced in bash with a stub bloomctl
# (a shell function: fixed --help and per-namespace 'list' output) and a
# stub ip (netns and link names); each check sets COMP_WORDS/COMP_CWORD as
# bash would for a command line and compares COMPREPLY, sorted, with the
# exact expected words. Last, the command names it completes with the real
# userspace/bloomctl are those of its --help. Prints TAP.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
comp=$top/userspace/bloomctl.bash-completion
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

n=0
bad=0
echo "TAP version 13"

if ! . "$comp"; then
	echo "not ok 1 - sourcing userspace/bloomctl.bash-completion"
	echo "1..1"
	exit 1
fi

n=$((n + 1))
if [ "$(complete -p bloomctl 2>&1)" = "complete -F _bloomctl bloomctl" ]; then
	echo "ok $n - complete -F _bloomctl bloomctl is registered"
else
	echo "not ok $n - complete -F _bloomctl bloomctl is registered"
	echo "#   got: $(complete -p bloomctl 2>&1)"
	bad=$((bad + 1))
fi

# The stubs. stub_calls records every bloomctl invocation.
stub_calls=$tmp/calls
bloomctl() {
	echo "$*" >>"$stub_calls"
	case "$*" in
	--help)
		cat <<'H'
Usage: bloomctl [-j|--json] [-n|--netns NAME] COMMAND [ARGS]

Options:
  -j, --json          print JSON (list, show, ...)

Commands:
  create    create a filter
  show      show a filter, with estimates
  save      save a filter's contents to a file
  attach    record packet digests into a filter
  help      print help: bloomctl help [COMMAND]

KEY is taken as literal bytes; 0x followed by an even number of hex
  src=10.0.0.1,dst=10.0.0.2,dport=80
H
		;;
	list)
		echo "alpha bloom bits 4096 hashes 3 memory 1208 fill 9 inserts 3"
		echo "beta counting bits 4096 hashes 3 memory 4792 fill 6 inserts 3"
		echo "flows dleft bits 4096 hashes 1 memory 17080 fill 2 inserts 3 windows 4 interval 1h hook forward family any digest flow"
		;;
	"-n r1 list")
		echo "r1only bloom bits 4096 hashes 3 memory 1208 fill 0 inserts 0"
		;;
	*) return 2 ;;
	esac
}
ip() {
	case "$*" in
	"netns list") printf 'r1 (id: 0)\nr2\nhost-a (id: 3)\n' ;;
	"-o link show")
		printf '1: lo: <LOOPBACK,UP> mtu 65536 qdisc noqueue\\    link/loopback 00:00:00:00:00:00\n'
		printf '2: veth0@if3: <BROADCAST,UP> mtu 1500\\    link/ether 02:00:00:00:00:01\n'
		;;
	"-n r1 -o link show") printf '1: lo: <LOOPBACK> mtu 65536\n5: r1-eth0@if6: <UP> mtu 1500\n' ;;
	*) return 1 ;;
	esac
}

# check DESC LINE WANT...: completes LINE (words split at blanks; a
# trailing blank starts an empty word) and compares the sorted COMPREPLY
# with the sorted WANT words.
check() {
	local desc=$1 line=$2 got want
	shift 2
	read -r -a COMP_WORDS <<<"$line"
	[[ $line == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	_bloomctl bloomctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
	want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	[ $# -gt 0 ] || want=$(printf '\n' | tr '\n' ' ')
	[ ${#COMPREPLY[@]} -gt 0 ] || got=$(printf '\n' | tr '\n' ' ')
	n=$((n + 1))
	if [ "$got" = "$want" ]; then
		echo "ok $n - $desc: '$line' -> ${want% }"
	else
		echo "not ok $n - $desc: '$line'"
		echo "#   want: ${want% }"
		echo "#   got:  ${got% }"
		bad=$((bad + 1))
	fi
}

# File completion looks at the current directory.
mkdir -p "$tmp/files/sub" && : >"$tmp/files/keys.txt" &&
	: >"$tmp/files/k2.txt" && : >"$tmp/files/seen.kbf"
printf '# routers\nrouter r1 netns - filter spie\n  router r9 archive a filter spie # x\nlink r1 r9\n' \
	>"$tmp/files/topo.txt"
cd "$tmp/files" || exit 1

check "command names from --help" "bloomctl " create show save attach help
check "command names by prefix" "bloomctl s" show save
check "command names after -j" "bloomctl -j " create show save attach help
check "global options" "bloomctl -" -j -json --json -n --netns -e -exist --exist -q --quiet -h --help -V --version
check "global long options" "bloomctl --" --json --netns --exist --quiet --help --version
check "command names after -q" "bloomctl -q " create show save attach help
check "command names after --exist" "bloomctl --exist " create show save attach help
check "netns names after -n" "bloomctl -n " r1 r2 host-a
check "netns names after --netns, by prefix" "bloomctl --netns h" host-a
check "commands after -n NS" "bloomctl -n r1 a" attach
check "filter name after show" "bloomctl show " alpha beta flows
check "filter name after show, by prefix" "bloomctl show b" beta
check "an abbreviated command completes as its command: sh is show" "bloomctl sh " alpha beta flows
check "an abbreviated command completes as its command: cr is create" "bloomctl cr x b" bloom blocked
check "filter names of the netns after -n r1" "bloomctl -n r1 show " r1only
check "list was asked in netns r1" "bloomctl -n r1 show r" r1only
n=$((n + 1))
if grep -qx -- "-n r1 list" "$stub_calls"; then
	echo "ok $n - the netns filters came from 'bloomctl -n r1 list'"
else
	echo "not ok $n - the netns filters came from 'bloomctl -n r1 list'"
	sed 's/^/#   call: /' "$stub_calls"
	bad=$((bad + 1))
fi
check "destroy: filters and all" "bloomctl destroy " all alpha beta flows
check "list takes nothing" "bloomctl list "
check "--help for a command" "bloomctl show -" --help
check "help: command names" "bloomctl help " create show save attach help
check "types after create NAME" "bloomctl create x " \
	bloom partitioned blocked counting dleft stable multi scalable dcf transforms
check "a transforms table's keywords: records, no rate" "bloomctl create x transforms " \
	bits capacity key windows interval
check "types by prefix" "bloomctl create x b" bloom blocked
check "no completion for a new NAME" "bloomctl create "
check "create bloom keywords" "bloomctl create x bloom " \
	bits hashes capacity fpr key hash windows interval
check "create counting keywords, used ones dropped" \
	"bloomctl create x counting bits 4096 hashes 3 " \
	capacity fpr key hash windows interval counter-bits update
check "create dleft keywords" "bloomctl create x dleft capacity 10 fpr 0.1 " \
	bits hashes key hash windows interval subtables bucket-cells fp-bits
check "create stable keywords" "bloomctl create x stable " \
	bits hashes capacity fpr key hash windows interval counter-bits decrement
check "create multi keywords" "bloomctl create x multi " \
	bits hashes capacity fpr key hash windows interval dims
check "create scalable keywords, no windows" "bloomctl create x scalable " \
	bits hashes capacity fpr key hash growth tighten
check "create dcf keywords, no windows" "bloomctl create x dcf " \
	bits hashes capacity fpr key hash counter-bits
check "dcf counter-bits values" "bloomctl create x dcf counter-bits " 2 4 8
check "no completion for a growth factor" "bloomctl create x scalable growth "
check "counting counter-bits values" "bloomctl create x counting counter-bits " 4 8 16
check "stable counter-bits values" "bloomctl create x stable counter-bits " 1 2 4 8
check "update values" "bloomctl create x counting update " plain conservative
check "hash values" "bloomctl create x blocked hash " siphash-2-4 siphash-1-3
check "no completion for a number" "bloomctl create x bloom bits "
check "attach: filter name" "bloomctl attach " alpha beta flows
check "attach keywords" "bloomctl attach alpha " hook dev family digest
check "hook values after attach NAME hook" "bloomctl attach alpha hook " \
	prerouting input forward output postrouting ingress egress bridge-forward
check "hook values by prefix" "bloomctl attach alpha hook p" prerouting postrouting
check "attach keywords, hook used" "bloomctl attach alpha hook input " dev family digest
check "digest modes" "bloomctl attach alpha hook input digest " spie flow src dst multi
check "family values" "bloomctl attach alpha family " ipv4 ipv6 any
check "dev: interfaces" "bloomctl attach alpha dev " lo veth0
check "dev: interfaces of the netns" "bloomctl -n r1 attach r1only dev " lo r1-eth0
check "query keywords" "bloomctl query alpha " packet pcap digest since until
check "query keywords after pcap FILE" "bloomctl query alpha pcap x.pcap " digest since until slack
check "query keywords after packet HEX (no capture time, no slack)" "bloomctl query alpha packet 45 " digest since until
check "query digest modes" "bloomctl query alpha digest " spie flow src dst multi
check "query pcap: file names" "bloomctl query alpha pcap k" keys.txt k2.txt
check "merge: filter names" "bloomctl merge alpha " alpha beta flows
check "merge: op" "bloomctl merge alpha beta " op
check "merge: or and" "bloomctl merge alpha beta op " or and
check "estimate: with" "bloomctl estimate alpha " with
check "estimate with: filter names" "bloomctl estimate alpha with " alpha beta flows
check "calc: type values" "bloomctl calc capacity 10 fpr 0.1 type " \
	bloom partitioned blocked counting dleft stable multi scalable dcf
check "add: -f and --" "bloomctl add alpha -" -f --
check "add -f: file names" "bloomctl add alpha -f " keys.txt k2.txt seen.kbf sub topo.txt
check "test -f: file names by prefix" "bloomctl test alpha -f k" keys.txt k2.txt
check "keys are not completed" "bloomctl test alpha "
check "save: file name" "bloomctl save alpha s" seen.kbf sub
check "save: keywords" "bloomctl save alpha f.kbf " window compress
check "save: compress zstd" "bloomctl save alpha f.kbf compress " zstd
check "save: all or filter names" "bloomctl save " all alpha beta flows
check "save all: directories" "bloomctl save all " sub
check "save all: compress" "bloomctl save all sub " compress
check "save all: compress zstd" "bloomctl save all sub compress " zstd
check "restore: file names and all" "bloomctl restore " keys.txt k2.txt seen.kbf sub topo.txt all
check "restore: as" "bloomctl restore seen.kbf " as
check "restore all: directories" "bloomctl restore all " sub
check "restore all: nothing after DIR" "bloomctl restore all sub "
check "archive: directories" "bloomctl archive flows " sub
check "archive: keywords" "bloomctl archive flows sub " once compress
check "digest: packet or pcap" "bloomctl digest " packet pcap
check "digest: keywords" "bloomctl digest packet 4500 " digest kernel
check "digest: modes" "bloomctl digest packet 4500 digest " spie flow src dst multi
check "digest: pcap file names" "bloomctl digest pcap s" seen.kbf sub
check "trace: topology file" "bloomctl trace t" topo.txt
check "trace: routers of the topology" "bloomctl trace topo.txt from " r1 r9
check "trace: keywords" "bloomctl trace topo.txt from r1 " pcap packet at slack victim parallel timeout reuse dot
check "trace: reuse yes or no" "bloomctl trace topo.txt from r1 reuse " yes no
check "trace: dot file names" "bloomctl trace topo.txt from r1 dot t" topo.txt
check "batch: -k" "bloomctl batch -" -k --help -
check "batch: file after -k" "bloomctl batch -k t" topo.txt

# The real bloomctl: every command of its --help is completed, no other.
cd "$top" || exit 1
unset -f bloomctl
bc=$top/userspace/bloomctl
n=$((n + 1))
if [ -x "$bc" ]; then
	COMP_WORDS=("$bc" "")
	COMP_CWORD=1
	COMPREPLY=()
	_bloomctl "$bc" "" "$bc"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ')
	want=$("$bc" --help | awk '/^Commands:$/ { on = 1; next } on && /^$/ { exit }
		on { print $1 }' | sort | tr '\n' ' ')
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		echo "ok $n - the real bloomctl: its --help commands (${want% })"
	else
		echo "not ok $n - the real bloomctl: its --help commands"
		echo "#   want: $want"
		echo "#   got:  $got"
		bad=$((bad + 1))
	fi
else
	echo "not ok $n - userspace/bloomctl is built (make -C userspace)"
	bad=$((bad + 1))
fi

echo "1..$n"
[ $bad -eq 0 ]
