# TAP for the host's shell tests (POSIX sh): ok/notok number the lines,
# ok_if makes one from a command's status, finish prints the plan and
# fails when any line failed.
n=0
bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	bad=$((bad + 1))
}
# ok_if DESC COMMAND...: ok DESC when COMMAND (run in this shell, so a
# function may set variables) succeeds, else not ok DESC.
ok_if() {
	tap_desc=$1
	shift
	if "$@"; then ok "$tap_desc"; else notok "$tap_desc"; fi
}
finish() {
	echo "1..$n"
	[ $bad -eq 0 ]
}
