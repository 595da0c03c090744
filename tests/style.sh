#!/bin/bash
# The style tier: the kernel sources pass checkpatch.pl --strict (from
# Debian's linux-source-6.1), with no error, warning or check.
cd "$(dirname "$0")/.."
echo "TAP version 13"
echo "1..1"
if out=$(make -s style 2>&1); then
	echo "ok 1 - checkpatch --strict clean on kmod/ and bench/kadd/"
else
	printf '%s\n' "$out" | sed 's/^/# /'
	echo "not ok 1 - checkpatch --strict clean on kmod/ and bench/kadd/"
fi
