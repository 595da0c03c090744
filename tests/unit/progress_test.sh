#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The progress line (userspace/progress.c, bloomctl(8) -q) of a real long
# operation run on the host: 'bloomctl trace' over the archive routers of
# bench/trace_gen (50 routers), with KBLOOM_PROGRESS_DELAY_MS=0 so that it
# shows at once. Run under script(1) (util-linux) so that stderr is a
# terminal, stdout redirected to a file:
#   - on a terminal a "trace from ... questions answered" line appears on
#     stderr, drawn with \r and erased at the end (nothing else there)
#   - stderr no terminal: nothing at all on stderr
#   - -q, and -j: nothing on the terminal
#   - stdout is the same in every case (the JSON too, with and without a
#     terminal)
# Prints TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bc=$here/../../userspace/bloomctl
gen=$here/build/trace_gen
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$here/tap.sh"
echo "TAP version 13"

if ! command -v script >/dev/null; then
	notok "script(1) from util-linux is installed"
	finish
	exit 1
fi
if ! [ -x "$gen" ] || ! "$gen" --routers 50 --seed 7 "$tmp/a" >/dev/null; then
	notok "trace_gen --routers 50 --seed 7 runs ($gen)"
	finish
	exit 1
fi
from=$(awk '$1 == "from" { print $2 }' "$tmp/a/truth.txt")
export KBLOOM_PROGRESS_DELAY_MS=0

# tty NAME [OPTION]: trace with stderr on a terminal, stdout to NAME.out;
# what the terminal showed in NAME.tty.
tty() {
	(cd "$tmp/a" && script -qec "'$bc' $2 trace topo.txt from $from pcap attack.pcap >'$tmp/$1.out'" \
		/dev/null </dev/null >"$tmp/$1.tty")
}
# notty NAME [OPTION]: the same with stderr a file, NAME.err.
notty() {
	(cd "$tmp/a" && "$bc" $2 trace topo.txt from "$from" pcap attack.pcap \
		>"$tmp/$1.out" 2>"$tmp/$1.err")
}

tty plain ""
notty ref ""
tty quiet -q
tty json -j
notty jref -j

# The terminal: "\rLINE" drawn (each padded over the one before), then
# "\rSPACES\r" erasing the last; nothing else. awk splits at \r: the
# records are "", the lines drawn, the spaces (the final \r ends them).
verdict=$(awk -v RS='\r' -v want="^trace from $from \\(50 routers\\): [0-9]+ questions answered *\$" '
	NR == 1 { if ($0 != "") bad = "does not start with \\r" ; next }
	{ rec[++n] = $0 }
	END {
		if (n < 2 || rec[n] !~ /^ +$/ || length(rec[n]) < length(rec[n - 1]))
			{ print "last line not erased"; exit }
		for (i = 1; i < n; i++)
			if (rec[i] !~ want) { print "unexpected: " rec[i]; exit }
		print bad ? bad : "ok " (n - 1)
	}' "$tmp/plain.tty")
[ "$(tail -c 1 "$tmp/plain.tty" | od -An -c | tr -d ' ')" = '\r' ] || verdict="does not end with \\r"
case $verdict in
"ok "*)
	ok "on a terminal: a progress line on stderr (${verdict#ok } drawn), erased at the end, nothing else" ;;
*)
	notok "on a terminal: a progress line on stderr, erased at the end, nothing else"
	echo "# $verdict"
	od -c "$tmp/plain.tty" | head -8 | sed 's/^/# /' ;;
esac
if [ ! -s "$tmp/ref.err" ]; then
	ok "stderr no terminal: nothing on it"
else
	notok "stderr no terminal: nothing on it"
	od -c "$tmp/ref.err" | head -4 | sed 's/^/# /'
fi
if [ ! -s "$tmp/quiet.tty" ]; then
	ok "-q on a terminal: nothing on it"
else
	notok "-q on a terminal: nothing on it"
	od -c "$tmp/quiet.tty" | head -4 | sed 's/^/# /'
fi
if [ ! -s "$tmp/json.tty" ]; then
	ok "-j on a terminal: no progress at all"
else
	notok "-j on a terminal: no progress at all"
	od -c "$tmp/json.tty" | head -4 | sed 's/^/# /'
fi
if grep -q '^10 packets: 10 traced' "$tmp/ref.out" && cmp -s "$tmp/ref.out" "$tmp/plain.out" &&
   cmp -s "$tmp/ref.out" "$tmp/quiet.out" && grep -q '"ingress"' "$tmp/jref.out" &&
   cmp -s "$tmp/jref.out" "$tmp/json.out"; then
	ok "stdout the same with and without a terminal, -q, and -j"
else
	notok "stdout the same with and without a terminal, -q, and -j"
	diff "$tmp/ref.out" "$tmp/plain.out" | head -5 | sed 's/^/# /'
fi
finish
