# TAP helpers for the shell suites (sourced).
#   check "description" command...   runs the command, one TAP line
#   finish                           prints the plan, returns 1 if any failed
# and, for the commands check runs:
#   expect RC 'PATTERN' command...   runs the command: true when it exits
#                                    RC and its output (stdout and stderr
#                                    together) matches the glob PATTERN
#   capture DIR command...           runs the command, stdout in DIR/out,
#                                    stderr in DIR/err, exit status in $rc
#   listening PORT [PREFIX...]       waits (10 s at most) until a TCP
#                                    socket listens on PORT, asking ss
#                                    under PREFIX (nx NS, ip netns exec NS)
# Both show what the command did (in check's log of a failure).
tap_n=0
tap_fails=0
echo "TAP version 13"

check() {
	local desc=$1 out rc t0=${EPOCHREALTIME/./}
	shift
	out=$("$@" 2>&1)
	rc=$?
	tap_n=$((tap_n + 1))
	# The slow ones say so: what to look at when a tier grows.
	t0=$(( (${EPOCHREALTIME/./} - t0) / 100000 ))
	[ $t0 -lt 100 ] || echo "# $tap_n took $((t0 / 10)).$((t0 % 10)) s"
	if [ $rc -eq 0 ]; then
		echo "ok $tap_n - $desc"
	else
		printf '%s\n' "$out" | tail -20 | sed 's/^/# /'
		echo "not ok $tap_n - $desc"
		tap_fails=$((tap_fails + 1))
	fi
}

expect() {
	local want=$1 pat=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	echo "exit $rc: $out" | head -20
	[ $rc -eq "$want" ] && [[ $out == $pat ]]
}

capture() {
	local dir=$1
	shift
	"$@" >"$dir/out" 2>"$dir/err"
	rc=$?
	echo "$*: exit $rc"
	sed 's/^/stdout: /' "$dir/out" | head -20
	sed 's/^/stderr: /' "$dir/err" | head -20
	return 0
}

# listening PORT [PREFIX...]: a server started in the background is ready
# (a loaded guest starts python slowly: a client sent after a fixed sleep
# was once refused on the debug kernel).
listening() {
	local port=$1 i
	shift
	for i in $(seq 100); do
		"$@" ss -Hltn "sport = :$port" | grep -q . && return 0
		sleep 0.1
	done
	echo "# nothing listens on TCP port $port after 10 s ($*)"
	return 1
}

finish() {
	echo "1..$tap_n"
	[ $tap_fails -eq 0 ]
}
