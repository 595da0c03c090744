#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# How 'bloomctl trace' grows with the number of routers: archive routers
# made by bench/trace_gen (a preferential-attachment graph, real engine
# windows with background traffic), traced sequentially (parallel 1) and
# in parallel (the default), then with 10% of the routers' archive
# directories removed (unknown routers). One run on this machine, no
# kernel module; not part of 'make check'.
#
#   bench/trace_scale.sh [SIZES]        (default "100 1000 10000")
#
#   ROUNDS=5   traces per mode with every router (the median wall time)
#   TRIALS=20  removals of 10% of the routers per size (each a different
#              random 10%; never the 'from' router)
#   SEED=1     trace_gen's seed; TMPDIR where the archives go (N=10000
#              takes ~160 MB)
#   OUT=FILE   also append one TSV row per measurement (as
#              bench/trace_live.sh: part routers way questions wall_s
#              packets found (listing the true ingress); part archive
#              or archive-10pct-unknown, the latter's figures summed or
#              averaged over the trials)
#
# Prints, per size: the questions asked, the median wall time, the peak
# RSS (/usr/bin/time's maximum resident set size; python3's getrusage
# when /usr/bin/time is missing) and how many of the attack packets came
# back with the true ingress first, listed among the ingresses, or reached
# (in the graph, holding the packet); then the same with 10% unknown, and
# a table of ratios (with the trials in which the ingress itself was
# removed, and those with a gap in the true path). Needs openssl (the
# random bytes for shuf) and bc.
set -euo pipefail
sizes=${1:-100 1000 10000}
rounds=${ROUNDS:-5}
trials=${TRIALS:-20}
seed=${SEED:-1}
top=$(cd "$(dirname "$0")/.." && pwd)
bc=$top/userspace/bloomctl
gen=$top/bench/trace_gen
make -s -C "$top/userspace"
make -s -C "$top/bench" trace_gen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run OUT ARGS...: one trace; OUT.time gets "WALL_S RSS_KB" (the wall
# time from date +%s%N around it: /usr/bin/time's is to 10 ms), OUT.err
# the stats line, OUT.out the trace.
run() {
	local out=$1 t0 t1 rss
	shift
	if [ -x /usr/bin/time ]; then
		t0=$(date +%s%N)
		KBLOOM_TRACE_STATS=1 /usr/bin/time -f '%M' -o "$out.rss" \
			"$bc" trace "$@" >"$out.out" 2>"$out.err" || true
		t1=$(date +%s%N)
		rss=$(tail -n 1 "$out.rss")
		awk -v a="$t0" -v b="$t1" -v r="$rss" \
			'BEGIN { printf "%.4f %d\n", (b - a) / 1e9, r }' >"$out.time"
	else
		KBLOOM_TRACE_STATS=1 python3 -c '
import resource, subprocess, sys, time
t = time.monotonic()
subprocess.call(sys.argv[2:], stdout=open(sys.argv[1] + ".out", "w"),
                stderr=open(sys.argv[1] + ".err", "w"))
print("%.4f %d" % (time.monotonic() - t,
      resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss),
      file=open(sys.argv[1] + ".time", "w"))' "$out" "$bc" trace "$@"
	fi
}
questions() { sed -n 's/^trace: [0-9]* steps, \([0-9]*\) questions.*/\1/p' "$1.err"; }
# packets whose ingress (the deepest) is the true one; whose list has it
found() { grep -c "^ingress: $2\( \|\$\)" "$1.out" || true; }
# packets whose graph has the true ingress holding the packet (the walk
# reached it; a false branch behind it may still make it no ingress)
reached() {
	awk -v r="$2" '/^packet [0-9]+:/ { p = $2 } p != "" && $0 ~ "(^|-- )" r "  window " { seen[p] = 1 }
		END { n = 0; for (k in seen) n++; print n }' "$1.out"
}
listed() { grep -c "^ingress: \(.* \)\?(\?$2[,)]\?\( \|\$\)" "$1.out" || true; }
# A fixed stream of random bytes for shuf, from a seed (as the coreutils
# manual suggests: 'yes SEED' repeats itself and makes trials alike).
rand() { openssl enc -aes-256-ctr -pass pass:"$1" -nosalt -pbkdf2 </dev/zero 2>/dev/null; }
row() { [ -z "${OUT:-}" ] || printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$OUT"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '| routers | links | hops | trace | questions | wall s (median) | peak RSS MiB | packets: true ingress first | listed | reached |\n'
printf '|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n'
summary=
for n in $sizes; do
	d=$tmp/n$n
	"$gen" --routers "$n" --seed "$seed" "$d" >/dev/null
	from=$(awk '$1 == "from" { print $2 }' "$d/truth.txt")
	ingress=$(awk '$1 == "ingress" { print $2 }' "$d/truth.txt")
	hops=$(awk '$1 == "hops" { print $2 }' "$d/truth.txt")
	links=$(grep -c '^link ' "$d/topo.txt")
	pkts=$(awk '/^# trace_gen/ { for (i = 1; i < NF; i++) if ($i == "--packets") print $(i + 1) }' "$d/topo.txt")
	declare -A wall q
	for mode in seq par; do
		[ $mode = seq ] && par="parallel 1" || par=
		: >"$tmp/walls"
		rss=0
		for r in $(seq "$rounds"); do
			# shellcheck disable=SC2086
			run "$tmp/t" "$d/topo.txt" from "$from" pcap "$d/attack.pcap" $par
			read -r w k <"$tmp/t.time"
			echo "$w" >>"$tmp/walls"
			[ "$k" -gt "$rss" ] && rss=$k
		done
		wall[$mode]=$(median <"$tmp/walls")
		q[$mode]=$(questions "$tmp/t")
		printf '| %s | %s | %s | %s | %s | %s | %.1f | %s / %s | %s / %s | %s / %s |\n' "$n" "$links" \
			"$hops" "$([ $mode = seq ] && echo 'parallel 1' || echo 'parallel 16')" \
			"${q[$mode]}" "${wall[$mode]}" "$(echo "$rss / 1024" | bc -l)" \
			"$(found "$tmp/t" "$ingress")" "$pkts" \
			"$(listed "$tmp/t" "$ingress")" "$pkts" \
			"$(reached "$tmp/t" "$ingress")" "$pkts"
		row archive "$n" "$([ $mode = seq ] && echo 'parallel 1' || echo 'parallel 16')" \
			"${q[$mode]}" "${wall[$mode]}" "$pkts" "$(listed "$tmp/t" "$ingress")"
	done
	# 10% unknown: TRIALS different random tenths, never 'from'.
	k=$((n / 10))
	qsum=0 fsum=0 lsum=0 rsum=0 ok=0 live=0 liveok=0 gaps=0 wseq=0 wpar=0 rss=0
	pathr=$(sed -n 's/^path //p' "$d/truth.txt" | tr ' ' '\n')
	mkdir "$d/gone"
	for t in $(seq "$trials"); do
		gone=$(seq "$n" | sed 's/^/r/' | grep -vx "$from" |
		       shuf -n "$k" --random-source=<(rand "$seed.$t"))
		for r in $gone; do mv "$d/$r" "$d/gone/"; done
		run "$tmp/u" "$d/topo.txt" from "$from" pcap "$d/attack.pcap" parallel 1
		read -r w1 _ <"$tmp/u.time"
		q1=$(questions "$tmp/u")
		run "$tmp/u" "$d/topo.txt" from "$from" pcap "$d/attack.pcap"
		read -r w2 k2 <"$tmp/u.time"
		[ "$k2" -gt "$rss" ] && rss=$k2
		q2=$(questions "$tmp/u")
		[ "$q1" = "$q2" ] || echo "trace_scale: N=$n trial $t: $q1 questions sequential, $q2 parallel" >&2
		f=$(found "$tmp/u" "$ingress")
		qsum=$((qsum + q2))
		l=$(listed "$tmp/u" "$ingress")
		rsum=$((rsum + $(reached "$tmp/u" "$ingress")))
		fsum=$((fsum + f))
		lsum=$((lsum + l))
		[ "$l" = "$pkts" ] && ok=$((ok + 1))
		grep -qxF "$pathr" <<<"$gone" && gaps=$((gaps + 1))
		if ! grep -qx "$ingress" <<<"$gone"; then
			live=$((live + 1))
			[ "$l" = "$pkts" ] && liveok=$((liveok + 1))
		fi
		wseq=$(echo "$wseq + $w1" | bc -l)
		wpar=$(echo "$wpar + $w2" | bc -l)
		for r in $gone; do mv "$d/gone/$r" "$d/"; done
	done
	rmdir "$d/gone"
	printf '| %s | %s | %s | 10%% unknown, parallel 1 | %s (mean) | %.4f (mean) | | | | |\n' \
		"$n" "$links" "$hops" "$(echo "$qsum / $trials" | bc -l | xargs printf '%.1f')" \
		"$(echo "$wseq / $trials" | bc -l)"
	printf '| %s | %s | %s | 10%% unknown, parallel 16 | %s (mean) | %.4f (mean) | %.1f | %s / %s | %s / %s | %s / %s |\n' \
		"$n" "$links" "$hops" "$(echo "$qsum / $trials" | bc -l | xargs printf '%.1f')" \
		"$(echo "$wpar / $trials" | bc -l)" "$(echo "$rss / 1024" | bc -l)" \
		"$fsum" "$((pkts * trials))" "$lsum" "$((pkts * trials))" \
		"$rsum" "$((pkts * trials))"
	row archive-10pct-unknown "$n" "parallel 16" "$(echo "$qsum / $trials" | bc -l | xargs printf '%.1f')" \
		"$(echo "$wpar / $trials" | bc -l | xargs printf '%.4f')" "$((pkts * trials))" "$lsum"
	summary+=$(printf '| %s | %s | %s | %s/%s | %s/%s | %s | %s |' "$n" \
		"$(awk -v a="${wall[par]}" -v b="${wall[seq]}" 'BEGIN { printf "%.2f", a / b }')" \
		"$(awk -v a="$qsum" -v t="$trials" -v b="${q[par]}" 'BEGIN { printf "%.2f", a / t / b }')" \
		"$ok" "$trials" "$liveok" "$live" "$gaps" \
		"$(awk -v q="${q[par]}" -v n="$n" 'BEGIN { printf "%.3f", q / n }')")$'\n'
	rm -rf "$d"
	unset wall q
done
echo
printf '| routers | wall parallel / sequential | questions 10%% unknown / all known | trials: true ingress listed for every packet | the same, trials where the ingress took part | trials with a gap in the true path | questions / routers |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|\n'
printf '%s' "$summary"
