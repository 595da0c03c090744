#!/bin/bash
# The dkms tier: the DKMS packaging end to end, for each pinned kernel
# (default: scripts/kver --all). Prints TAP.
#
#   tests/dkms.sh [KVER...]
#
# On the host, `make dkms-install KVER=...` and `make dkms-remove` run the
# real dkms (add, build, sign, install) with its trees pointed at a scratch
# directory in build/ (dkms --dkmstree/--sourcetree/--installtree), so the
# host's /usr/src, /var/lib/dkms and /lib/modules are not touched and runs
# on one machine cannot collide. depmod then indexes the installed module
# together with the kernel's own (`depmod -b` over a symlinked copy of
# /lib/modules/KVER), as dkms's own depmod would in /lib/modules.
# In the test VM booting that kernel, the index and updates/dkms/ are laid
# over /lib/modules/KVER (overlayfs), and the guest checks that
# `modprobe kbloom` loads exactly the module dkms built, and that with the
# module unloaded, bloomctl's first request loads it (genetlink family
# auto-loading, MODULE_ALIAS_GENL_FAMILY).
#
# One side effect stays as dkms makes it: signing needs its key pair in
# /var/lib/dkms (mok.key, mok.pub); the run removes them again when it was
# the one that created them.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 1

# ---- In the guest: tests/dkms.sh --guest SCRATCH (one TAP stream).
if [[ ${1:-} == --guest ]]; then
	scratch=$2
	k=$(uname -r)
	mods=/lib/modules/$k
	bc=userspace/bloomctl
	. tests/vm/tap.sh
	layer() {
		modprobe overlay &&
		mount -t overlay kbloom-dkms -o "ro,lowerdir=$scratch/index/$k:$mods" "$mods"
	}
	check "$k: the dkms-installed module and its depmod index laid over $mods" layer
	where() {
		local f
		f=$(modinfo -n kbloom) && echo "$f" && [[ $f == "$mods/updates/dkms/kbloom.ko"* ]]
	}
	check "$k: modinfo finds kbloom in updates/dkms" where
	build_id() { # the GNU build ID of a module file (.ko, .ko.xz, ...), as hex
		local f=$1 t=/tmp/kbloom-dkms.ko
		case $f in
		*.xz) xz -dc "$f" >"$t" ;;
		*.zst) zstd -qdc "$f" >"$t" ;;
		*.gz) gzip -dc "$f" >"$t" ;;
		*) cp "$f" "$t" ;;
		esac && readelf -n "$t" | sed -n 's/^ *Build ID: *//p'
	}
	loaded_id() { # ... and of the loaded module (the note's payload)
		od -An -tx1 -v /sys/module/kbloom/notes/.note.gnu.build-id |
			tr -d ' \n' | cut -c33-
	}
	probe() {
		[ ! -e /sys/module/kbloom ] && modprobe kbloom && [ -e /sys/module/kbloom ] &&
		want=$(build_id "$(echo "$scratch/modules/$k/updates/dkms/kbloom.ko"*)") &&
		got=$(loaded_id) && echo "dkms built $want, loaded $got" &&
		[ -n "$want" ] && [ "$want" = "$got" ]
	}
	check "$k: modprobe kbloom loads the module dkms built" probe
	check "$k: modprobe -r kbloom unloads it" sh -c 'modprobe -r kbloom && [ ! -e /sys/module/kbloom ]'
	autoload() {
		[ ! -e /sys/module/kbloom ] && out=$($bc list) && [ -z "$out" ] &&
		[ -e /sys/module/kbloom ] &&
		$bc create dk bloom capacity 1000 fpr 0.01 && $bc add dk alpha &&
		$bc test dk alpha && $bc destroy dk
	}
	check "$k: with kbloom unloaded, bloomctl's first request loads it (genetlink alias)" autoload
	check "$k: and it unloads again" modprobe -r kbloom
	umount "$mods"
	finish
	exit
fi

# ---- On the host.
echo "TAP version 13"
kvers=("$@")
((${#kvers[@]})) || mapfile -t kvers < <(scripts/kver --all)
skip=
if ((EUID != 0)); then
	skip="dkms install needs root"
elif ! command -v dkms >/dev/null || ! command -v qemu-system-x86_64 >/dev/null; then
	skip="dkms or qemu-system-x86_64 missing (run scripts/deps)"
else
	for k in "${kvers[@]}"; do
		[[ -e /lib/modules/$k/build/Makefile && -r /boot/vmlinuz-$k ]] ||
			skip="kernel $k or its headers missing (run scripts/deps)"
	done
fi
if [[ -n $skip ]]; then
	echo "1..0 # SKIP $skip"
	exit 0
fi

mkdir -p build
scratch=$(mktemp -d "$top/build/dkms-test.XXXXXX")
keys=()
for f in /var/lib/dkms/mok.key /var/lib/dkms/mok.pub; do
	[[ -e $f ]] || keys+=("$f")
done
# shellcheck disable=SC2317 # invoked by the trap
cleanup() {
	rm -rf "$scratch"
	# The signing key pair, if this run made it.
	((${#keys[@]})) && rm -f "${keys[@]}"
}
trap cleanup EXIT
dkms=(dkms --dkmstree "$scratch/dkms" --sourcetree "$scratch/src"
	--installtree "$scratch/modules" --no-depmod)
mk=(make -s --no-print-directory DKMS="${dkms[*]}" DKMS_SRCTREE="$scratch/src")
mkdir -p "$scratch/dkms" "$scratch/src"

# The guests' TAP streams are printed after this one, which ends first.
echo "1..$((3 * ${#kvers[@]} + 2))"
n=0 fails=0
result() { # result STATUS DESCRIPTION [LOG]
	n=$((n + 1))
	if [[ $1 == 0 ]]; then
		echo "ok $n - $2"
	else
		[[ -n ${3:-} && -s ${3:-} ]] && tail -n 25 "$3" | sed 's/^/# /'
		echo "not ok $n - $2"
		fails=$((fails + 1))
	fi
}

version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
for k in "${kvers[@]}"; do
	log=$scratch/install-$k.log
	mkdir -p "$scratch/modules/$k"
	# (compressed as the kernel's own modules are: .ko on 6.1, .ko.xz on 6.12)
	"${mk[@]}" dkms-install KVER="$k" >"$log" 2>&1 &&
		ko=$(echo "$scratch/modules/$k/updates/dkms/kbloom.ko"*) && [[ -e $ko ]] &&
		[[ $(modinfo -F vermagic "$ko") == "$k "* ]] &&
		"${dkms[@]}" status -m kbloom -v "$version" -k "$k" | grep -q ': installed$'
	result $? "make dkms-install KVER=$k: dkms adds, builds and installs kbloom/$version" "$log"

	# depmod over the kernel's modules plus this one, as dkms does.
	idx=$scratch/index/$k
	root=$scratch/depmod-root
	log=$scratch/depmod-$k.log
	{
		rm -rf "$root" && mkdir -p "$root/lib/modules/$k" &&
		cp -rs "/lib/modules/$k/kernel" "$root/lib/modules/$k/kernel" &&
		for f in modules.order modules.builtin modules.builtin.modinfo; do
			[[ ! -e /lib/modules/$k/$f ]] || cp "/lib/modules/$k/$f" "$root/lib/modules/$k/" || exit 1
		done &&
		cp -a "$scratch/modules/$k/updates" "$root/lib/modules/$k/" &&
		depmod -b "$root" -F "/boot/System.map-$k" "$k" &&
		mkdir -p "$idx" && cp -a "$scratch/modules/$k/updates" "$idx/" &&
		cp "$root/lib/modules/$k"/modules.* "$idx/" && rm -rf "$root" &&
		grep -x 'alias net-pf-16-proto-16-family-kbloom kbloom' "$idx/modules.alias"
	} >"$log" 2>&1
	result $? "$k: depmod indexes it with its genetlink family alias" "$log"

	log=$scratch/vm-$k.log
	KBLOOM_KVER=$k scripts/vm --timeout 300 tests/dkms.sh --guest "$scratch" \
		>"$scratch/guest-$k.tap" 2>"$log"
	result $? "$k: in the test VM, modprobe and genetlink auto-loading work (its checks follow)" "$log"
	rm -rf "$idx"
done

log=$scratch/remove.log
"${mk[@]}" dkms-remove >"$log" 2>&1 &&
	[[ -z $("${dkms[@]}" status -m kbloom) ]] &&
	[[ ! -e $scratch/src/kbloom-$version ]] &&
	! find "$scratch/modules" -name 'kbloom.ko*' | grep -q .
result $? "make dkms-remove uninstalls from every kernel and removes the sources" "$log"
# The Debian packages (debian/), built from a copy of the checkout's
# sources: the files git tracks or would (not those .gitignore names),
# never build products, which other tiers write while this one runs
# (bench/build/ablate: tar failed on a file removed as it read it).
sources() {
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$top" ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do
				[[ -e $top/$f || -L $top/$f ]] && printf '%s\0' "$f"
			done
	else
		(cd "$top" && find . \( -name .git -o -name build \) -prune -o \
			\( -type f -o -type l \) ! -name '*.o' ! -name '*.ko' \
			! -name '.*.cmd' -print0)
	fi
}
debs() {
	local pkg=$scratch/pkg f
	mkdir -p "$pkg/kbloom" &&
	sources | tar -C "$top" --null -T - -cf - | tar -C "$pkg/kbloom" -xf - &&
	if [[ -n $(cd "$pkg/kbloom" && find . -name build -o -name '*.o' -o -name '*.ko' | head -3) ]]; then
		echo "build products copied into the package's sources:"
		(cd "$pkg/kbloom" && find . -name build -o -name '*.o' -o -name '*.ko' | head -3)
		return 1
	fi &&
	(cd "$pkg/kbloom" && dpkg-buildpackage -us -uc -b) &&
	dpkg-deb -c "$pkg"/bloomctl_*.deb >"$pkg/bloomctl.list" &&
	for f in usr/sbin/bloomctl usr/sbin/kbloom-service etc/kbloom/kbloom.conf \
		etc/default/kbloom lib/systemd/system/kbloom.service \
		lib/systemd/system/kbloom-archive@.service \
		lib/systemd/system/kbloom-metrics.service \
		lib/systemd/system/kbloom-metrics.timer; do
		grep -E " \./$f\$" "$pkg/bloomctl.list" || { echo "bloomctl lacks $f"; return 1; }
	done &&
	dpkg-deb -I "$pkg"/bloomctl_*.deb postinst | grep -q "deb-systemd-helper.*enable.*'kbloom.service'" &&
	dpkg-deb -I "$pkg"/bloomctl_*.deb postinst | grep -q "deb-systemd-helper.*enable.*'kbloom-metrics.timer'" &&
	dpkg-deb -c "$pkg"/kbloom-dkms_*_all.deb >"$pkg/dkms.list" || return 1
	for f in dkms.conf $(cd kmod && ls Kbuild ./*.[ch] engine/*.[ch] uapi/*.h |
		sed 's|^\./||' | grep -v '\.mod\.c$'); do
		grep -E " \./usr/src/kbloom-$version/$f\$" "$pkg/dkms.list" ||
			{ echo "kbloom-dkms lacks $f"; return 1; }
	done
	dpkg-deb -I "$pkg"/kbloom-dkms_*_all.deb postinst | grep common.postinst
}
log=$scratch/deb.log
debs >"$log" 2>&1
result $? "dpkg-buildpackage builds bloomctl (with the service units, enabled) and kbloom-dkms (the module's whole source, DKMS hooks)" "$log"
for k in "${kvers[@]}"; do
	echo "# the test VM booting $k:"
	cat "$scratch/guest-$k.tap"
done
((fails == 0))
