#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The bench tier: the engine benchmark's quick mode. Builds
# bench/engine_bench and runs `engine_bench --quick` (100k keys, one
# round: about a second), which prints TAP: every filter type and
# libbloom ran, each measured FPR is within a factor of 3 of its model,
# no false negatives (the stable filter's are by design: skipped). It
# checks that the pipeline works, not the figures: `make bench` measures.
cd "$(dirname "$0")/.." || exit 1
if ! out=$(make -s -C bench 2>&1); then
	echo "TAP version 13"
	echo "1..1"
	printf '%s\n' "$out" | sed 's/^/# /'
	echo "not ok 1 - bench/engine_bench builds"
	exit 1
fi
exec bench/engine_bench --quick
