# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# pktgen and veth helpers shared by the VM benchmarks (pktpath.sh,
# ablate/rounds.sh); sourced. The caller defines die().
#
#   pktgen kbp0 <-veth-> kbp1 (198.18.0.2)   kbp2 <-veth-> kbp3 (198.18.1.2)
#   packets to 198.19.0.0/16 are injected into kbp1 and kbp3 and dropped by
#   a blackhole route after the prerouting hooks.
PG=/proc/net/pktgen

# bench_net NPAIRS: NPAIRS (1 or 2) veth pairs and the blackhole route.
bench_net() {
	local i a b
	modprobe pktgen || die "modprobe pktgen"
	for ((i = 0; i < $1; i++)); do
		a=kbp$((2 * i)) b=kbp$((2 * i + 1))
		ip link add $a type veth peer name $b || die "veth $a"
		# no IPv6 (router solicitations would be digested too)
		sysctl -qw net.ipv6.conf.$a.disable_ipv6=1 net.ipv6.conf.$b.disable_ipv6=1
		ip link set $a up && ip link set $b up
		ip addr add 198.18.$i.2/24 dev $b
	done
	ip route add blackhole 198.19.0.0/16 || die "blackhole route"
}

bench_net_del() {
	ip link del kbp0 2>/dev/null
	ip link del kbp2 2>/dev/null
	ip route del blackhole 198.19.0.0/16 2>/dev/null
}

pg() { echo "$2" >"$PG/$1" || die "pktgen: '$2' > $1"; }

# pgdev THREAD DEV COUNT: device DEV on pktgen thread THREAD: COUNT UDP
# packets of 64 bytes, random source address and port (every digest
# differs), run through DEV's receive path inline.
pgdev() {
	local i
	pg "kpktgend_$1" rem_device_all
	# The thread lets its devices go by itself, later: while $PG/DEV is
	# there, add_device fails with EBUSY (a loaded machine showed it).
	for i in $(seq 100); do
		[ -e "$PG/$2" ] || break
		sleep 0.1
	done
	[ ! -e "$PG/$2" ] || die "pktgen: thread $1 still holds $2 10 s after rem_device_all"
	pg "kpktgend_$1" "add_device $2"
	local f
	for f in "count $3" "pkt_size 64" "clone_skb 0" "burst 1" \
		"xmit_mode netif_receive" "dst 198.19.0.1" \
		"dst_mac $(cat /sys/class/net/"$2"/address)" \
		"src_min 10.0.0.1" "src_max 10.0.255.254" "flag IPSRC_RND" \
		"udp_src_min 1024" "udp_src_max 65000" "flag UDPSRC_RND" \
		"udp_dst_min 9" "udp_dst_max 9"; do
		pg "$2" "$f"
	done
}

# The last run's rate on DEV, packets per second.
pps() { sed -n 's/.* \([0-9][0-9]*\)pps.*/\1/p' "$PG/$1"; }

# pktgen draws each packet's random source address and port with
# get_random_u32(), which until the kernel's random pool is initialised
# takes a slow path: a third of the rate here, until the first process to
# call getrandom() had the kernel make the pool ready. A blocking read of
# /dev/random does that now.
bench_crng() {
	head -c 1 /dev/random >/dev/null || die "cannot read /dev/random"
}
