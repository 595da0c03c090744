#!/bin/bash
# Tests the test VM runner (scripts/vm) itself; prints TAP. Eight boots,
# about a minute in all: one runs all in-guest checks, the others check exit
# status passthrough, kernel-log failure detection, the timeout, a failed
# boot retried once, and a guest that never boots told from a test result.
set -euo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
vm=$top/scripts/vm
kver=$("$top/scripts/kver")

echo "TAP version 13"
if ! command -v qemu-system-x86_64 >/dev/null || [[ ! -r /boot/vmlinuz-$kver ]]; then
	echo "1..0 # SKIP qemu-system-x86_64 or /boot/vmlinuz-$kver missing (run scripts/deps)"
	exit 0
fi
echo "1..15"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbloom-vm-selftest.XXXXXX")
# The guest writes this file into the checkout; the host checks it.
marker=$top/.vm-selftest-$$.tmp
trap 'rm -rf "$tmp" "$marker"' EXIT

n=0 passed=0 failed=0
result() { # result OK? DESCRIPTION [DIAGNOSTIC FILE...]
	local good=$1 desc=$2
	shift 2
	n=$((n + 1))
	if [[ $good == 0 ]]; then
		echo "ok $n - $desc"
		passed=$((passed + 1))
	else
		echo "not ok $n - $desc"
		failed=$((failed + 1))
		local f
		for f in "$@"; do
			[[ -s $f ]] && tail -n 25 "$f" | sed 's/^/# /'
		done
	fi
}
run() { # run NAME VM-ARGS...: boot, keeping status, stdout and stderr
	local name=$1
	shift
	set +e
	# TMPDIR: the run files of the boots meant to fail go with $tmp.
	TMPDIR=$tmp "$vm" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	set -e
}
rc() { cat "$tmp/$1.rc"; }
guest() { # guest CHECK: did the in-guest check CHECK pass?
	grep -qx "$1 ok" "$tmp/run1/results" 2>/dev/null
}

# Boot 1: everything checked from inside one guest, reported to the
# run's shared directory; exits 0.
KBLOOM_SELFTEST_VALUE="a b'c \$x" KBLOOM_SELFTEST_MARKER=$marker \
	run checks --out "$tmp/run1" - <<'EOF'
r=$KBLOOM_VM_OUT/results
check() { # check NAME COMMAND...: record whether COMMAND succeeds
	local name=$1
	shift
	if "$@" >>"$KBLOOM_VM_OUT/check.log" 2>&1; then
		echo "$name ok" >>"$r"
	else
		echo "$name FAIL" >>"$r"
	fi
}
veth() { # two namespaces joined by a veth pair, ping across
	ip netns add kbst-a &&
	ip netns add kbst-b &&
	ip link add v0 netns kbst-a type veth peer name v1 netns kbst-b &&
	ip -n kbst-a addr add 198.18.0.1/24 dev v0 &&
	ip -n kbst-b addr add 198.18.0.2/24 dev v1 &&
	ip -n kbst-a link set v0 up &&
	ip -n kbst-b link set v1 up &&
	ip netns exec kbst-a ping -c 1 -W 5 198.18.0.2
}
check netns veth
check checkout-writable sh -c 'echo written-by-guest >"$KBLOOM_SELFTEST_MARKER"'
check root-readonly sh -c '! touch /usr/.kbloom-vm-selftest 2>/dev/null'
check tmpfs-writable sh -c 'touch /tmp/x /run/x /var/tmp/x /var/log/x /root/x'
check env [ "$KBLOOM_SELFTEST_VALUE" = "a b'c \$x" ]
exit 0
EOF
result "$(($(rc checks) != 0))" "exit status 0 passes through" "$tmp/checks.err"
guest netns
result $? "netns + veth work in the guest (ping across a veth pair)" "$tmp/run1/check.log"
[[ $(cat "$marker" 2>/dev/null) == written-by-guest ]]
result $? "the checkout is writable from the guest (host sees the file)" "$tmp/run1/check.log"
guest root-readonly
result $? "the host root is read-only in the guest"
guest tmpfs-writable
result $? "/tmp /run /var/tmp /var/log /root are writable in the guest" "$tmp/run1/check.log"
guest env
result $? "KBLOOM_* variables reach the guest unchanged"

# Boot 2: a non-zero status comes back exactly; stdout is the command's
# output alone (no boot noise, no markers, no \r).
run exit3 'echo hello from the guest; exit 3'
result "$(($(rc exit3) != 3))" "exit status 3 passes through (got $(rc exit3))" "$tmp/exit3.err"
[[ $(cat "$tmp/exit3.out") == "hello from the guest" ]]
result $? "stdout shows exactly the command's output" "$tmp/exit3.out"

# Boot 3: a WARNING in the guest kernel log fails a command that succeeded.
KBLOOM_VM_LOG=$tmp/warn.dmesg run warn 'echo "WARNING: CPU: 0 PID: 1 at fake" >/dev/kmsg'
[[ $(rc warn) == 123 ]] && grep -q 'WARNING: CPU: 0 PID: 1 at fake' "$tmp/warn.err"
result $? "a WARNING in the guest kernel log fails the run (got $(rc warn))" "$tmp/warn.err"
grep -q 'WARNING: CPU: 0 PID: 1 at fake' "$tmp/warn.dmesg" 2>/dev/null
result $? "the guest kernel log is saved to \$KBLOOM_VM_LOG"

# Boot 4: a guest that never finishes is stopped at --timeout.
start=$SECONDS
run hang --timeout 10 'sleep 600'
took=$((SECONDS - start))
[[ $(rc hang) == 124 && $took -lt 60 ]] && grep -q 'timed out' "$tmp/hang.err"
result $? "a hung guest is stopped at --timeout (status $(rc hang) after ${took}s)" "$tmp/hang.err"

# Boots 5 and 6: the first boot panics before init (no such init, no
# root: "Kernel panic - not syncing"); the runner says so, boots again,
# and the command's status comes back as if nothing had happened.
KBLOOM_VM_APPEND_FIRST=rdinit=/kbloom-no-such-init run retry 'echo after a retry; exit 7'
ok=0
[[ $(rc retry) == 7 && $(cat "$tmp/retry.out") == "after a retry" ]] || ok=1
result $ok "a boot that fails before the command is retried once: status 7 passes through (got $(rc retry))" "$tmp/retry.err"
ok=0
grep -q '^vm: the guest did not boot (Kernel panic - not syncing: .*); booting it once more$' "$tmp/retry.err" || ok=1
result $ok "the failed boot is named on stderr, with the panic" "$tmp/retry.err"

# Boots 7 and 8: a guest that never boots is a failure of the run (125),
# said to be no test result, after the one retry.
KBLOOM_VM_APPEND=rdinit=/kbloom-no-such-init run noboot 'exit 0'
ok=0
[[ $(rc noboot) == 125 ]] || ok=1
result $ok "a guest that fails to boot twice: status 125 (got $(rc noboot))" "$tmp/noboot.err"
ok=0
[[ $(grep -c 'booting it once more' "$tmp/noboot.err") == 1 ]] &&
	grep -q '^vm: FAILED: the guest did not boot, twice: the command never ran (a boot failure, not a test result)$' "$tmp/noboot.err" || ok=1
result $ok "it is retried once and reported as a boot failure, not a test result" "$tmp/noboot.err"

echo "# $passed passed, $failed failed"
((failed == 0))
