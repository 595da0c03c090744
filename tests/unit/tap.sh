# TAP for the host's shell tests (POSIX sh): ok/notok number the lines,
# finish prints the plan and fails when any line failed.
n=0
bad=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
notok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	bad=$((bad + 1))
}
finish() {
	echo "1..$n"
	[ $bad -eq 0 ]
}
