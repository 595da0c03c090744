#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The ablation's quick mode (the bench tier of make check), TAP: every
# variant's edit still applies to kmod/ and builds, one short round of every
# variant runs in the test VM with every packet through the hook, and the
# report has a row per variant. It checks the pipeline, not the figures
# (`make ablate` measures).
cd "$(dirname "$0")/../.." || exit 2
B=bench/build/ablate
n=0 fail=0
ok() {	# ok STATUS DESCRIPTION [OUTPUT]
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		[ -n "${3:-}" ] && printf '%s\n' "$3" | tail -20 | sed 's/^/# /'
		echo "not ok $n - $2"
		fail=1
	fi
}
echo "TAP version 13"
mapfile -t vars < <(bench/ablate/variants.py names)
out=$(make -s -C bench/ablate 2>&1)
ok $? "ablate: the ${#vars[@]} variants (${vars[*]}) apply to kmod/ and build" "$out"
out=$(scripts/vm --timeout 600 bench/ablate/rounds.sh 1 20000 "${vars[@]}" 2>&1)
rc=$?
printf '%s\n' "$out" >"$B/quick.log"
rows=$(grep -c '^R 1 ' "$B/quick.log")
[ $rc -eq 0 ] && [ "$rows" -eq ${#vars[@]} ]
ok $? "ablate: one round of every variant ran in the VM, every packet through the hook ($rows rows)" "$out"
out=$(bench/ablate/variants.py report "$B/quick.log" 2>&1)
rc=$?
rows=$(printf '%s\n' "$out" | grep -c '^| [A-Z]* | ')
[ $rc -eq 0 ] && [ "$rows" -eq ${#vars[@]} ] && printf '%s\n' "$out" | grep -q '^| the netfilter call'
ok $? "ablate: the report has a row per variant and the steps" "$out"
echo "1..$n"
exit $fail
