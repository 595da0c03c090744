#!/bin/bash
# The docs run as written: every ```sh block of README.md and docs/*.md,
# in document order, each from a clean state, its outputs compared where
# the doc shows them (tests/vm/docblocks.py holds the rules: "#> " lines
# are output, "..." any text, "#> [exit N]" the exit status; ``` and
# ```console blocks are not run). One TAP line per block, named FILE:LINE.
#
# Each block starts with the module unloaded (its first request loads
# it, or its modprobe does), in a network namespace and a mount namespace
# of its own: tmpfs on /etc/modprobe.d, /etc/modules-load.d, /run/netns
# and /var/lib, an empty working directory, PATH first finding bloomctl
# (userspace/bloomctl) and a modprobe that stands for the installed
# module: 'modprobe kbloom [PARAM=V...]' (and the kernel's own request for
# net-pf-16-proto-16-family-kbloom, through /proc/sys/kernel/modprobe)
# insmods $KBLOOM_KO with the parameters given and those of "options
# kbloom" lines in /etc/modprobe.d (the kernel's request runs outside the
# block's mount namespace: it sees the machine's /etc/modprobe.d, not the
# block's), 'modprobe -r kbloom' rmmods it; any
# other module goes to the real modprobe. Afterwards the module is loaded
# again with its defaults, for the suites that follow.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/vm/tap.sh
top=$PWD
ko=$(realpath "${KBLOOM_KO:-kmod/kbloom.ko}")
tmp=$(mktemp -d)
mp=$(cat /proc/sys/kernel/modprobe)
restore() {
	echo "$mp" >/proc/sys/kernel/modprobe
	rmmod kbloom 2>/dev/null
	insmod "$ko"
	rm -rf "$tmp"
}
trap restore EXIT

mkdir "$tmp/bin" "$tmp/blocks"
ln -s "$top/userspace/bloomctl" "$tmp/bin/bloomctl"
cat >"$tmp/bin/modprobe" <<EOF
#!/bin/bash
# modprobe for tests/vm/docs.sh: kbloom is $ko
name= remove=0 params=()
for a in "\$@"; do
	case \$a in
	-r | --remove) remove=1 ;;
	-q | --quiet | --) ;;
	-*) exec $mp "\$@" ;;
	*) if [ -z "\$name" ]; then name=\$a; else params+=("\$a"); fi ;;
	esac
done
case \$name in
kbloom | net-pf-16-proto-16-family-kbloom) ;;
*) exec $mp "\$@" ;;
esac
if [ \$remove = 1 ]; then
	[ ! -e /sys/module/kbloom ] || /sbin/rmmod kbloom
	exit
fi
[ ! -e /sys/module/kbloom ] || exit 0
opts=\$(sed -n 's/^options[[:blank:]]\{1,\}kbloom[[:blank:]]\{1,\}//p' /etc/modprobe.d/*.conf 2>/dev/null)
exec /sbin/insmod $ko \$opts "\${params[@]}"
EOF
chmod +x "$tmp/bin/modprobe"
echo "$tmp/bin/modprobe" >/proc/sys/kernel/modprobe

# block N: runs block N in its namespaces, then compares.
block() {
	local n=$1 work=$tmp/w$1 res=$tmp/r$1
	mkdir "$work" "$res"
	[ ! -e /sys/module/kbloom ] || rmmod kbloom || return 1
	unshare -m -n bash -c '
		for d in /etc/modprobe.d /etc/modules-load.d /run/netns /var/lib; do
			mount -t tmpfs tmpfs "$d" || exit 1
		done
		ip link set lo up
		cd "$1" && PATH=$2:$PATH timeout 300 bash "$3" "$4"' \
		docs "$work" "$tmp/bin" "$tmp/blocks/$n.sh" "$res"
	python3 -S tests/vm/docblocks.py check "$tmp/blocks/$n.json" "$res"
}

python3 -S tests/vm/docblocks.py extract "$tmp/blocks" README.md docs/*.md \
	>"$tmp/list" || { echo 'not ok 1 - the runnable blocks of the docs extracted'; exit 1; }
while read -r n where; do
	check "$where: runs as written" block "$n"
done <"$tmp/list"
# The front door's taste and the tour run: a doc moved must keep its blocks.
for doc in README.md docs/tour.md; do
	grep -q " $doc:" "$tmp/list" || check "$doc has runnable blocks" false
done
finish
