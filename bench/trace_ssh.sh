#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The cost of 'bloomctl trace' over ssh: parallel questions and connection
# reuse, measured in one run on this machine (no kernel module needed).
#
#   bench/trace_ssh.sh [ROUTERS [HOSTS [ROUNDS]]]    (default 20 4 3; root)
#
# One sshd on 127.0.0.1 .. 127.0.0.HOSTS (port 22022, a key made for the
# run), ROUTERS ssh routers spread over the HOSTS addresses (as several
# routers' namespaces on one remote machine), in a star around a first
# router r1 (a star: one step asks them all). The remote 'bloomctl PATH'
# is a stand-in that answers like 'bloomctl -j show' and 'bloomctl -j
# query' of a filter holding every packet, so what is measured is ssh
# (connections, logins, sessions) and the walk, not the kernel. Prints the
# median wall time of each way of asking and the ratios to the slowest.
set -uo pipefail
routers=${1:-20}
hosts=${2:-4}
rounds=${3:-3}
bc=$(cd "$(dirname "$0")/.." && pwd)/userspace/bloomctl
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ssh-keygen -q -t ed25519 -N '' -f "$tmp/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$tmp/id"
cp "$tmp/id.pub" "$tmp/authorized_keys"
{
	for h in $(seq "$hosts"); do echo "ListenAddress 127.0.0.$h"; done
	cat <<-EOF
	Port 22022
	HostKey $tmp/hostkey
	AuthorizedKeysFile $tmp/authorized_keys
	StrictModes no
	PermitRootLogin prohibit-password
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	UsePAM no
	MaxStartups 200
	MaxSessions 100
	PidFile $tmp/sshd.pid
	EOF
} >"$tmp/sshd_config"
cat >"$tmp/ssh_config" <<EOF
Host *
  Port 22022
  UserKnownHostsFile /dev/null
  StrictHostKeyChecking no
  IdentitiesOnly yes
  LogLevel ERROR
EOF
mkdir -p /run/sshd
/usr/sbin/sshd -f "$tmp/sshd_config" -E "$tmp/sshd.log" || { cat "$tmp/sshd.log"; exit 1; }
for i in $(seq 50); do
	[ -s "$tmp/sshd.pid" ] && break
	sleep 0.1
done
pid=$(cat "$tmp/sshd.pid") || { cat "$tmp/sshd.log"; exit 1; }

# The stand-in remote bloomctl: 'show' then 'query FILTER pcap -'.
cat >"$tmp/remote" <<'EOF'
#!/bin/sh
case "$*" in
*show*) echo '{"name":"spie","type":"bloom","bits":1048576,"hashes":4}' ;;
*query*)
	cat >/dev/null
	echo '{"windows":[{"id":1,"start_ns":1,"end_ns":0,"packets":1,"fill":4}],"packets":[{"index":1,"windows":[1]}]}' ;;
esac
EOF
chmod +x "$tmp/remote"
{
	echo "router r1 ssh root@127.0.0.1 filter spie identity $tmp/id config $tmp/ssh_config bloomctl $tmp/remote"
	for r in $(seq 2 "$routers"); do
		echo "router r$r ssh root@127.0.0.$(( (r - 1) % hosts + 1 )) filter spie identity $tmp/id config $tmp/ssh_config bloomctl $tmp/remote"
		echo "link r1 r$r"
	done
} >"$tmp/topo.txt"
hex=4500001c000100004011000001020304050607080001000200080000

# run ARGS...: median wall ms of ROUNDS traces
run() {
	local i t0 t1 ms=()
	for i in $(seq "$rounds"); do
		t0=$(date +%s%N)
		"$bc" trace "$tmp/topo.txt" from r1 packet "$hex" at @1 "$@" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; }
		t1=$(date +%s%N)
		ms+=($(( (t1 - t0) / 1000000 )))
	done
	printf '%s\n' "${ms[@]}" | sort -n | sed -n "$(( (rounds + 1) / 2 ))p"
}

ways=("parallel 1 reuse no" "parallel 1 reuse yes" "parallel 16 reuse no" "parallel 16 reuse yes")
declare -A t
for way in "${ways[@]}"; do
	# shellcheck disable=SC2086
	t[$way]=$(run $way)
done
slow=${t["parallel 1 reuse no"]}
logins=$(grep -c 'Accepted publickey' "$tmp/sshd.log" || true)
echo "trace over ssh: $routers routers on $hosts addresses (star), median of $rounds"
printf '%-24s %8s %8s\n' "way" "ms" "ratio"
for way in "${ways[@]}"; do
	awk -v w="$way" -v m="${t[$way]}" -v s="$slow" \
		'BEGIN { printf "%-24s %8d %8.2f\n", w, m, s / m }'
done
echo "($logins logins in all)"
