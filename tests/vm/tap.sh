# TAP helpers for the shell suites (sourced).
#   check "description" command...   runs the command, one TAP line
#   finish                           prints the plan, returns 1 if any failed
tap_n=0
tap_fails=0
echo "TAP version 13"

check() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	tap_n=$((tap_n + 1))
	if [ $rc -eq 0 ]; then
		echo "ok $tap_n - $desc"
	else
		printf '%s\n' "$out" | tail -20 | sed 's/^/# /'
		echo "not ok $tap_n - $desc"
		tap_fails=$((tap_fails + 1))
	fi
}

finish() {
	echo "1..$tap_n"
	[ $tap_fails -eq 0 ]
}
