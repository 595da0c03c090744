#!/bin/bash
# The service under the real systemd: the guest's root is the host's,
# read-only over 9p, so systemd (Debian's, as on the host) runs as PID 1 of
# a PID and mount namespace chrooted into an overlay of that root with a
# writable tmpfs upper layer, the way a container boots (container=...).
# The overlay gets the service as `make install DESTDIR=... PREFIX=/usr`
# ships it (the Debian layout) and a configuration; "boot" is a target
# wanting kbloom.service, kbloom-archive@w1, kbloom-metrics.timer and
# Debian's prometheus-node-exporter.service. Checked: the units come up,
# their hardening rates OK or better (systemd-analyze security), a
# poweroff saves, a boot after the module was reloaded restores, and a
# damaged save file is reported in the journal while everything else
# comes up. The module is shared with the guest (insmod'ed outside).
#
# One behaviour per check, exact values.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
top=$PWD
bc=$top/userspace/bloomctl
ko=$(realpath "${KBLOOM_KO:-kmod/kbloom.ko}")
sd=$(mktemp -d)
r=$sd/root
up_pid=
pid=

halt_systemd() {
	[ -n "$up_pid" ] || return 0
	ns systemctl poweroff >/dev/null 2>&1
	for _ in $(seq 1 300); do kill -0 "$up_pid" 2>/dev/null || break; sleep 0.2; done
	kill -9 "$up_pid" 2>/dev/null
	wait "$up_pid" 2>/dev/null
	up_pid=
}
cleanup() {
	halt_systemd
	umount -l "$r" 2>/dev/null
	[ -d "$cg" ] && find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null
	$bc destroy all >/dev/null 2>&1
	rm -rf "$sd"
	[ -e /sys/module/kbloom ] || insmod "$ko"
}
trap cleanup EXIT

# ns CMD...: CMD inside the booted system (its namespaces and root).
ns() { nsenter -t "$pid" -m -p -r -w "$@"; }

mkdir -p "$sd/upper" "$sd/work" "$r"
mount -t overlay overlay -o "lowerdir=/,upperdir=$sd/upper,workdir=$sd/work" "$r"

install_it() {
	make -s -C "$top" install DESTDIR="$r" PREFIX=/usr MODULE_INSTALL=none &&
	cat >"$r/etc/kbloom/kbloom.conf" <<-'EOF' &&
	create f1 bloom bits 4096 hashes 3
	create w1 bloom bits 1024 hashes 2 windows 3 interval 1s
	attach w1 hook output digest spie
	EOF
	printf '%s\n' 'KBLOOM_ARCHIVE_MAX_BYTES=4K' 'KBLOOM_ARCHIVE_PRUNE_SECONDS=5' \
		>>"$r/etc/default/kbloom" &&
	cat >"$r/etc/systemd/system/kbloom-test.target" <<-'EOF'
	[Unit]
	Description=kbloom's test boot
	Wants=kbloom.service kbloom-archive@w1.service kbloom-metrics.timer prometheus-node-exporter.service
	EOF
}
check "make install DESTDIR=overlay PREFIX=/usr: the service and a configuration in the overlay root" install_it

# boot: systemd in its namespaces; sets up_pid and pid (systemd itself).
# systemd gets a cgroup subtree of its own, as root of a cgroup namespace
# (as systemd-nspawn delegates one), so it can manage its units' cgroups.
cg=/sys/fs/cgroup/kbloom-systemd
boot() {
	local s
	mkdir -p "$cg"
	(echo $BASHPID >"$cg/cgroup.procs" &&
	 exec env -i container=kbloom-test PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		unshare --pid --fork --mount --cgroup --propagation private \
		chroot "$r" /lib/systemd/systemd --system --unit=kbloom-test.target \
		--log-target=console --show-status=no) >>"$sd/console.log" 2>&1 &
	up_pid=$!
	pid=
	for _ in $(seq 1 100); do
		pid=$(pgrep -x systemd -P "$(pgrep -P "$up_pid" | tr '\n' , | sed 's/,$//')" 2>/dev/null ||
		      pgrep -x systemd -P "$up_pid")
		[ -n "$pid" ] && break
		sleep 0.2
	done
	# until it answers (its socket exists) and the boot is done
	state=
	for _ in $(seq 1 300); do
		s=$(ns systemctl is-system-running 2>/dev/null)
		case $s in running | degraded | maintenance | stopping) state=$s; break ;; esac
		sleep 1
	done
	echo "# boot: systemd pid $pid, ${state:-not up: $s}"
}

boot
booted() {
	echo "$state"; ns systemctl --no-pager --failed
	[ "$state" = running ]
}
check "boot: systemd reaches 'running', no unit failed" booted

up() {
	[ "$(ns systemctl is-active kbloom.service kbloom-archive@w1.service kbloom-metrics.timer prometheus-node-exporter.service | tr '\n' ' ')" = "active active active active " ] &&
	[ "$($bc list | awk '{print $1}' | tr '\n' ' ')" = "f1 w1 " ] &&
	$bc list | grep -q '^w1 .* hook output family any digest spie$'
}
check "kbloom.service, kbloom-archive@w1, kbloom-metrics.timer, node exporter active; f1 and w1 (attached) made" up

security() {
	local u line
	for u in kbloom.service kbloom-archive@w1.service kbloom-metrics.service; do
		line=$(ns systemd-analyze security --no-pager "$u" | tail -n 1)
		echo "$u: $line"
		[[ $line =~ Overall\ exposure\ level\ for\ $u:\ [0-9.]+\ (SAFE|OK) ]] || return 1
	done
}
check "systemd-analyze security: each kbloom service's exposure is SAFE or OK" security

scrape() {
	local out
	for _ in $(seq 1 60); do
		out=$(curl -sf http://127.0.0.1:9100/metrics) &&
			grep -qx 'kbloom_filters 2' <<<"$out" && break
		sleep 1
	done
	grep -qx 'kbloom_filters 2' <<<"$out" &&
	grep -qx 'kbloom_filter_info{filter="w1",type="bloom"} 1' <<<"$out" &&
	grep -qx 'node_textfile_scrape_error 0' <<<"$out"
}
check "kbloom-metrics.timer's file, scraped from the node exporter: 2 filters, no textfile error" scrape

archived() {
	for _ in $(seq 1 30); do
		ping -q -c 2 -i 0.2 127.0.0.1 >/dev/null
		ls "$r/var/lib/kbloom/archive/w1" 2>/dev/null | grep -q '^w1\.[0-9]\{10\}\.kbf$' && break
	done
	ls -ld "$r/var/lib/kbloom/archive/w1" | grep -q '^drwx------ ' &&
	ls "$r/var/lib/kbloom/archive/w1" | grep -q '^w1\.[0-9]\{10\}\.kbf$'
}
check "kbloom-archive@w1 archives w1's windows into /var/lib/kbloom/archive/w1 (mode 0700)" archived

restart() {
	$bc add f1 alpha beta &&
	ns systemctl restart kbloom.service &&
	[ "$(ns systemctl is-active kbloom.service kbloom-archive@w1.service | tr '\n' ' ')" = "active active " ] &&
	[ "$($bc test f1 alpha beta)" = $'alpha present\nbeta present' ]
}
check "systemctl restart kbloom.service: f1 saved and restored with its keys, the archive restarted with it" restart

halt_systemd
poweroff_saved() {
	ls "$r/var/lib/kbloom/state" && [ "$(ls "$r/var/lib/kbloom/state")" = "f1.kbf" ] &&
	[ "$($bc list)" = "" ]
}
check "poweroff: kbloom.service's stop saved f1 (not time-paged w1) and destroyed the filters" poweroff_saved

rmmod kbloom && insmod "$ko"
boot
reboot_restored() {
	echo "$state" &&
	[ "$state" = running ] &&
	[ "$($bc test f1 alpha beta)" = $'alpha present\nbeta present' ] &&
	$bc list | grep -q '^w1 .* hook output family any digest spie$'
}
check "reboot, module reloaded: f1 restored with its keys, w1 made anew and attached, system running" reboot_restored

halt_systemd
printf 'XXXX' | dd of="$r/var/lib/kbloom/state/f1.kbf" bs=1 seek=40 conv=notrunc 2>/dev/null
rmmod kbloom && insmod "$ko"
boot
damaged() {
	local j
	j=$(ns journalctl --no-pager -u kbloom.service -p err -o cat)
	echo "$j"
	[[ $j == "kbloom: save file '/var/lib/kbloom/state/f1.kbf' not restored, moved to /var/lib/kbloom/damaged: "* ]] &&
	[ "$(ls "$r/var/lib/kbloom/damaged" | sed 's/\..*//')" = f1 ] &&
	[ "$($bc list | awk '{print $1}' | tr '\n' ' ')" = "f1 w1 " ] &&
	{ $bc test f1 alpha >/dev/null; [ $? -eq 1 ]; }
}
check "a damaged save file at boot: the journal has it at priority err, it is moved aside, f1 made empty" damaged

others() {
	echo "$state"; ns systemctl --no-pager --failed
	[ "$state" = running ] &&
	[ "$(ns systemctl is-active kbloom.service kbloom-archive@w1.service kbloom-metrics.timer prometheus-node-exporter.service | tr '\n' ' ')" = "active active active active " ]
}
check "after the damaged boot every unit is active and the system running" others

finish
