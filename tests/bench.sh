#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The bench tier: the benchmarks' quick modes. Builds bench/engine_bench
# and the BPF peer (bench/pktpath), runs `engine_bench --quick` (100k keys,
# one round: about a second), which prints TAP: every filter type and
# libbloom ran, each measured FPR is within a factor of 3 of its model,
# no false negatives (the stable filter's are by design: skipped), the
# limit loops ran (bench/README.md, "The limits"); then
# `bench/pktpath.sh --quick` in the test VM: every packet-path
# configuration (kbloom and the BPF Bloom map) ran and recorded every
# packet, bulk load and lookups ran, and `bench/natpath.sh --quick`: the
# NAT router ran with and without a transforms table, every packet
# forwarded and recorded, one record per flow, and `--vxlan`: a VXLAN
# endpoint likewise, one tunnel record per packet; then
# `bench/ablate/quick.sh`: every variant of the ablation builds and runs
# one short round. It checks that
# the pipeline works, not the figures: `make bench` and `make ablate`
# measure.
cd "$(dirname "$0")/.." || exit 1
if ! out=$(make -s -C bench 2>&1); then
	echo "TAP version 13"
	echo "1..1"
	printf '%s\n' "$out" | sed 's/^/# /'
	echo "not ok 1 - bench/engine_bench builds"
	exit 1
fi
bench/engine_bench --quick || rc=1
# One VM for the packet-path scripts (each prints its own TAP).
scripts/vm --timeout 900 sh -c 'insmod kmod/kbloom.ko &&
	{ bench/pktpath.sh --quick; rc=$?; bench/natpath.sh --quick || rc=1;
	  bench/natpath.sh --quick --vxlan || rc=1; exit $rc; }' || rc=1
bench/ablate/quick.sh || rc=1
exit ${rc:-0}
