# Network namespace helpers of the transforms suites (sourced; nat.sh,
# tunnel.sh). Namespaces are named $P<name>.
#   nx NAME CMD...                  runs CMD in namespace NAME
#   veth NS1 DEV1 NS2 DEV2          a veth pair, both ends up, every offload
#                                   off (checksums final on the wire, as
#                                   SPIE digests them; no GSO)
#   tunnel TYPE [ARGS...]           (re)makes t0, a tunnel of TYPE between
#                                   e (10.2.0.1) and d (10.3.0.2), routes
#                                   h's and v's networks (10.1.0.0/24,
#                                   10.4.0.0/24) through it; h pings v
#                                   (tunnel.sh, tunnel_gro.sh)
#   capture NS NAME [FILTER...]     tcpdump on NS's eth0, incoming only,
#                                   into $tmp/NAME.pcap; stop NAME ends it
#                                   ($capture_opts: more tcpdump options)

nx() { local n=$1; shift; nsenter --net=/run/netns/$P$n "$@"; }

veth() {
	ip -n $P$1 link add $2 type veth peer name $4 netns $P$3 || return 1
	ip -n $P$1 link set $2 up && ip -n $P$3 link set $4 up || return 1
	nx $1 ethtool -K $2 tx off rx off tso off gso off gro off >/dev/null 2>&1
	nx $3 ethtool -K $4 tx off rx off tso off gso off gro off >/dev/null 2>&1
	return 0
}

# capture NS NAME [FILTER...]: tcpdump of what NS receives, IPv4 only
# unless a filter is given (an IPv6 router solicitation of a new link
# once landed in a capture of echo replies).
capture() {
	local ns=$1 name=$2 i
	shift 2
	[ $# -gt 0 ] || set -- ip
	# --immediate-mode: nothing waits in the kernel's ring when it stops
	# shellcheck disable=SC2086 # capture_opts: more tcpdump options
	nsenter --net=/run/netns/$P$ns tcpdump -i eth0 -Q in -nn -U -s 0 \
		--immediate-mode ${capture_opts:-} -w "$tmp/$name.pcap" "$@" \
		>/dev/null 2>"$tmp/$name.err" &
	eval "cap_$name=$!"
	for i in $(seq 150); do
		grep -q 'listening on' "$tmp/$name.err" && return 0
		sleep 0.1
	done
	return 1
}

stop() {
	local pid i
	pid=$(eval echo "\$cap_$1")
	sleep 0.3
	kill -INT "$pid"
	for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	wait "$pid" 2>/dev/null
	return 0
}

tunnel() {
	local side
	for side in "e 10.2.0.1 10.3.0.2 10.4.0.0/24" "d 10.3.0.2 10.2.0.1 10.1.0.0/24"; do
		set -- $side "$@"
		ip -n $P$1 link del t0 2>/dev/null
		# No IPv6 of its own (a gre device's router solicitations and
		# MLD): the counts of the tunnel's packets are the test's.
		ip -n $P$1 link add t0 type $5 local $2 remote $3 "${@:6}" &&
			nx $1 sysctl -qw net.ipv6.conf.t0.disable_ipv6=1 &&
			ip -n $P$1 link set t0 up &&
			ip -n $P$1 route replace $4 dev t0 || return 1
		shift 4
	done
	nx h ping -q -c 1 -W 5 10.4.0.2 >/dev/null || { echo "h: no way to v through $*"; return 1; }
}
