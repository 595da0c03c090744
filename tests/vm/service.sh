#!/bin/bash
# The service units' commands, run as systemd runs them at boot and at
# shutdown (the guest has no systemd as init: its root is the host's,
# shared read-only): the Exec lines are read from the unit files of
# systemd/, @SBINDIR@ being this checkout's bloomctl and kbloom-service,
# with the settings of /etc/default/kbloom given in the environment.
# Boot: kbloom.service, then kbloom-archive@w1 and kbloom-metrics;
# shutdown: the archive, then kbloom.service's stop. A reboot is the module
# unloaded and loaded again; a damaged save file at boot is reported and
# set aside while everything else comes up.
#
# One behaviour per check, exact values.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
top=$PWD
bc=$top/userspace/bloomctl
ko=$(realpath "${KBLOOM_KO:-kmod/kbloom.ko}")
tmp=$(mktemp -d)
arch_pid=
cleanup() {
	[ -n "$arch_pid" ] && kill "$arch_pid" 2>/dev/null
	$bc destroy all >/dev/null 2>&1
	rm -rf "$tmp" /var/lib/prometheus/node-exporter/kbloom.prom
	[ -e /sys/module/kbloom ] || insmod "$ko"
}
trap cleanup EXIT

# The installed layout: SBINDIR holding bloomctl and kbloom-service.
mkdir -p "$tmp/sbin" /var/lib/prometheus/node-exporter
ln -s "$bc" "$tmp/sbin/bloomctl"
ln -s "$top/systemd/kbloom-service" "$tmp/sbin/kbloom-service"
export KBLOOM_CONF=$tmp/kbloom.conf
export KBLOOM_STATE_DIR=$tmp/lib/state
export KBLOOM_DAMAGED_DIR=$tmp/lib/damaged
export KBLOOM_ARCHIVE_DIR=$tmp/lib/archive
export KBLOOM_ARCHIVE_MAX_AGE=0 KBLOOM_ARCHIVE_MAX_BYTES=600
export KBLOOM_ARCHIVE_PRUNE_SECONDS=1

# exec_line UNIT KEY [INSTANCE]: the unit's KEY= command, as words.
exec_line() {
	sed -n "s/^$2=//p" "systemd/$1" | sed "s|@SBINDIR@|$tmp/sbin|g; s|%i|${3:-}|g"
}

# run UNIT KEY [INSTANCE]: runs it; stdout+stderr in $tmp/out, status $rc.
run() {
	local cmd
	cmd=$(exec_line "$@")
	[ -n "$cmd" ] || { echo "no $2 in $1"; rc=127; return; }
	# shellcheck disable=SC2086
	$cmd >"$tmp/out" 2>&1
	rc=$?
	echo "$1 $2: $cmd: exit $rc"
	sed 's/^/  /' "$tmp/out"
}

reboot() { rmmod kbloom && insmod "$ko" && [ "$($bc list)" = "" ]; }

cat >"$KBLOOM_CONF" <<'EOF'
# filters of this router
create f1 bloom bits 4096 hashes 3
create c1 counting bits 1024 hashes 2
create w1 bloom bits 1024 hashes 2 windows 3 interval 1s
attach w1 hook output digest spie
EOF

first_boot() {
	run kbloom.service ExecStart && [ $rc -eq 0 ] &&
	grep -qx "<6>kbloom: no saved filters in $KBLOOM_STATE_DIR" "$tmp/out" &&
	grep -qx "<6>kbloom: applied $KBLOOM_CONF" "$tmp/out" &&
	[ "$($bc list | awk '{print $1}' | tr '\n' ' ')" = "c1 f1 w1 " ] &&
	$bc list | grep -q '^w1 .* windows 3 interval 1s hook output family any digest spie$'
}
check "first boot, no saved state: kbloom.service start makes the configured filters, w1 attached" first_boot

again() {
	run kbloom.service ExecStart && [ $rc -eq 0 ] &&
	[ "$($bc list | awk '{print $1}' | tr '\n' ' ')" = "c1 f1 w1 " ]
}
check "start again over the running filters: --exist leaves them, exit 0" again

# kbloom-archive@w1 runs from here on (a check runs in a subshell).
$bc add f1 alpha beta >/dev/null 2>&1
$bc add c1 x x >/dev/null 2>&1
arch_cmd=$(exec_line kbloom-archive@.service ExecStart w1)
echo "# kbloom-archive@w1: $arch_cmd"
$arch_cmd >"$tmp/archive.log" 2>&1 &
arch_pid=$!
archive() {
	for _ in $(seq 1 8); do ping -q -c 2 -i 0.2 127.0.0.1 >/dev/null; sleep 0.5; done &&
	kill -0 "$arch_pid" &&
	ls "$KBLOOM_ARCHIVE_DIR/w1" | grep -q '^w1\.[0-9]\{10\}\.kbf$'
}
check "kbloom-archive@w1: archives w1's closed windows as w1.<10-digit ID>.kbf" archive

# The archiver adds a window a second and prunes each second: the checks
# below look at its directory while it is stopped (SIGSTOP, the service
# and its children), after one prune pass of their own, so what they see
# cannot change under them however slow the guest is.
freeze() { kill -STOP "$arch_pid"; pkill -STOP -P "$arch_pid"; }
thaw() { pkill -CONT -P "$arch_pid"; kill -CONT "$arch_pid"; }
newest_closed() {
	$bc -j show w1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["window_list"][1]["id"])'
}
archived_ids() {
	ls "$KBLOOM_ARCHIVE_DIR/w1" | sed -n 's/^w1\.0*\([0-9]*\)\.kbf$/\1/p' | sort -n
}
retention() {
	local want i ids total n rc=0
	# the archiver has caught up with the window that was newest when
	# this check began (a loaded guest lags; a state, not a time)
	want=$(newest_closed)
	for i in $(seq 240); do
		[ "$(archived_ids | tail -n 1)" -ge "$want" ] 2>/dev/null && break
		sleep 0.5
	done
	freeze
	"$top/systemd/kbloom-service" prune w1 || rc=1
	ids=$(archived_ids)
	total=$(cat "$KBLOOM_ARCHIVE_DIR"/w1/*.kbf | wc -c)
	n=$(echo "$ids" | wc -l)
	# windows the archiver said it lost (a poll that a loaded guest
	# delayed past two rotations of 1 s windows: 'window N of 'w1' lost')
	lost=$(sed -n "s/.*archive: window \([0-9]*\) of 'w1' lost: .*/\1/p" "$tmp/archive.log")
	thaw
	echo "# waited for window $want; after a pass: total $total bytes, ids $(echo $ids); reported lost: $(echo $lost)"
	[ $rc -eq 0 ] && [ "$total" -le 600 ] && [ "$n" -ge 1 ] &&
	[ "$(echo "$ids" | tail -n 1)" -ge "$want" ] &&
	[ "$(echo "$ids" | head -n 1)" -gt 1 ] || return 1
	# the ones kept are the newest: every ID from the oldest kept to the
	# newest is kept, or was reported lost, never silently missing
	for ((i = $(echo "$ids" | head -n 1); i <= $(echo "$ids" | tail -n 1); i++)); do
		grep -qx "$i" <<<"$ids" || grep -qx "$i" <<<"$lost" ||
			{ echo "window $i neither kept nor reported lost"; return 1; }
	done
}
check "retention KBLOOM_ARCHIVE_MAX_BYTES=600: after a prune pass at most 600 bytes kept, the newest windows, window 1 pruned" retention

archived_file() {
	local f rc=0
	freeze
	f=$(ls "$KBLOOM_ARCHIVE_DIR"/w1/*.kbf | tail -n 1) && $bc restore "$f" as w1copy || rc=1
	thaw
	[ $rc -eq 0 ] &&
	$bc list | grep -q '^w1copy bloom bits 1024 hashes 2 ' &&
	$bc destroy w1copy
}
check "an archived window restores (bloomctl restore FILE as w1copy)" archived_file

metrics() {
	run kbloom-metrics.service ExecStart && [ $rc -eq 0 ] &&
	grep -qx 'kbloom_filters 3' /var/lib/prometheus/node-exporter/kbloom.prom &&
	grep -qx 'kbloom_filter_inserts_total{filter="f1"} 2' /var/lib/prometheus/node-exporter/kbloom.prom
}
check "kbloom-metrics.service writes the node exporter's kbloom.prom (3 filters, f1's 2 inserts)" metrics

# Shutdown: the archive stops first (After=kbloom.service), by SIGTERM.
kill -TERM "$arch_pid"
wait "$arch_pid"
arch_rc=$?
arch_pid=
archive_stops() {
	echo "exit $arch_rc"; cat "$tmp/archive.log"
	[ $arch_rc -eq 0 ] && ! pgrep -f 'bloomctl archive w1' >/dev/null
}
check "shutdown: kbloom-archive@w1 stops on SIGTERM, exit 0, no bloomctl archive left" archive_stops

shutdown() {
	run kbloom.service ExecStop && [ $rc -eq 0 ] &&
	grep -qx "<6>kbloom: saved the filters to $KBLOOM_STATE_DIR" "$tmp/out" &&
	[ "$(ls "$KBLOOM_STATE_DIR" | tr '\n' ' ')" = "c1.kbf f1.kbf " ] &&
	[ "$($bc list)" = "" ]
}
check "shutdown: kbloom.service stop saves c1 and f1 (not time-paged w1) and destroys all" shutdown

reboot_restore() {
	reboot &&
	run kbloom.service ExecStart && [ $rc -eq 0 ] &&
	grep -qx "<6>kbloom: restored the filters saved in $KBLOOM_STATE_DIR" "$tmp/out" &&
	[ "$($bc test f1 alpha beta)" = $'alpha present\nbeta present' ] &&
	[ "$($bc count c1 x)" = "x 2" ] &&
	$bc list | grep -q '^w1 .* windows 3 interval 1s hook output family any digest spie$'
}
check "reboot (module reloaded): start restores f1's and c1's contents, makes w1 anew and attaches it" reboot_restore

damaged() {
	local f
	run kbloom.service ExecStop && [ $rc -eq 0 ] &&
	printf 'XXXX' | dd of="$KBLOOM_STATE_DIR/c1.kbf" bs=1 seek=40 conv=notrunc 2>/dev/null &&
	reboot &&
	run kbloom.service ExecStart && [ $rc -eq 0 ] &&
	grep -q "^<3>kbloom: save file '$KBLOOM_STATE_DIR/c1.kbf' not restored, moved to $KBLOOM_DAMAGED_DIR: " "$tmp/out" &&
	f=$(ls "$KBLOOM_DAMAGED_DIR") && [[ $f == c1.kbf.* ]] &&
	[ ! -e "$KBLOOM_STATE_DIR/c1.kbf" ] &&
	[ "$($bc test f1 alpha beta)" = $'alpha present\nbeta present' ] &&
	[ "$($bc count c1 x)" = "x 0" ] &&
	[ "$($bc list | awk '{print $1}' | tr '\n' ' ')" = "c1 f1 w1 " ]
}
check "a damaged save file at boot: reported (err), moved aside; f1 restored, c1 made empty by the configuration, exit 0" damaged

others_up() {
	run kbloom-metrics.service ExecStart && [ $rc -eq 0 ] &&
	grep -qx 'kbloom_filters 3' /var/lib/prometheus/node-exporter/kbloom.prom &&
	run kbloom-archive@.service ExecStart nosuch && [ $rc -ne 0 ] &&
	grep -q "nosuch" "$tmp/out"
}
check "after the damaged boot the metrics unit runs; an archive of a missing filter fails (Restart=on-failure)" others_up

bad_conf() {
	echo 'create bad bloom bits 12 hashes 3' >>"$KBLOOM_CONF" &&
	echo 'create g1 bloom bits 1024 hashes 2' >>"$KBLOOM_CONF" &&
	run kbloom.service ExecStop && reboot &&
	run kbloom.service ExecStart && [ $rc -eq 1 ] &&
	grep -q "^bloomctl: $KBLOOM_CONF:6: " "$tmp/out" &&
	grep -qx "<3>kbloom: $KBLOOM_CONF: some lines failed (above)" "$tmp/out" &&
	[ "$($bc list | awk '{print $1}' | tr '\n' ' ')" = "c1 f1 g1 w1 " ]
}
check "a bad configuration line: start fails (exit 1) naming it, the other lines still applied" bad_conf

finish
