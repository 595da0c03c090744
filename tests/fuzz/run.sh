#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
# Runs each libFuzzer target for a bounded time on a copy of its corpus and
# prints TAP (tests/fuzz/Makefile's `make run`):
#   ok N - TARGET: E executions, no crash
#   not ok N - TARGET: crash, reproducer build/crash/TARGET/crash-...
# followed, on a crash, by the first lines of the report as comments.
#   run.sh BUILD_DIR CORPUS_DIR SECONDS JOBS TARGET...
# Reproduce a crash: build/TARGET build/crash/TARGET/crash-...
b=$1 corpus=$2 secs=$3 jobs=$4
shift 4
echo "1..$#"
n=0 status=0
work=$(mktemp -d "${TMPDIR:-/tmp}/kbloom-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
for t in "$@"; do
	n=$((n + 1))
	bin=$b/$t
	if [ ! -x "$bin" ]; then
		echo "not ok $n - $t: does not build"
		status=1
		continue
	fi
	mkdir -p "$work/$t" "$b/crash/$t"
	[ -d "$corpus/$t" ] && cp -r "$corpus/$t/." "$work/$t/"
	log=$b/$t.log
	# -jobs=1 and -workers=1 keep one process; more jobs run in parallel
	# and split the time. Every run ends by itself after $secs seconds.
	if [ "$jobs" -gt 1 ]; then
		par="-fork=$jobs"
	else
		par=""
	fi
	TMPDIR=$work "$bin" -max_total_time="$secs" -print_final_stats=1 \
		-timeout=25 -rss_limit_mb=2560 $par \
		-artifact_prefix="$b/crash/$t/" "$work/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9][0-9]*\).*DONE.*/\1/p' "$log" | tail -n 1)
	cov=$(sed -n 's/^#[0-9]*[[:space:]]*DONE[[:space:]]*\(cov: [0-9]* ft: [0-9]*\).*/\1/p' "$log" | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		echo "ok $n - $t: ${execs:-?} executions, no crash${cov:+ # $cov}"
		continue
	fi
	status=1
	repro=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
	echo "not ok $n - $t: crash after ${execs:-?} executions (exit $rc), reproducer ${repro:-none written, see $log}"
	grep -m 1 -n -E '^==[0-9]+==ERROR|FUZZ INVARIANT|runtime error|^==[0-9]+== ERROR|deadly signal|out-of-memory|timeout' "$log" |
		cut -d: -f1 | while read -r first; do
			sed -n "${first},$((first + 24))p" "$log" | sed 's/^/# /'
		done
	echo "# reproduce: $bin ${repro:-CRASH_FILE}; full log $log"
done
exit $status
