#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# scripts/debug-kernel's cache, on a fake kernel tree (a tarball whose
# Makefile writes .config from the fragment and a bzImage, and logs each
# build): a build is used only when complete, the key follows the tarball
# and the fragment, a partial or failed build is built again, a fragment
# option that does not survive or a module fails the build, and two
# callers at once build once. Copies of the script and its fragment run
# in a scratch directory with their own cache. Prints TAP.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kbloom-dk-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/scripts" "$tmp/src/fake-source"
cp "$top/scripts/debug-kernel" "$top/scripts/debug-kernel.config" "$tmp/scripts/"
# The fake tree: allnoconfig writes the fragment as .config (=n as "is not
# set"), less $FAKE_DROP, plus $FAKE_MODULE=m; bzImage logs one line to
# $FAKE_LOG, sleeps $FAKE_SLEEP and fails when $FAKE_FAIL is set.
cat >"$tmp/src/fake-source/Makefile" <<'EOF'
allnoconfig:
	sed 's/^\(CONFIG_[A-Za-z0-9_]*\)=n$$/# \1 is not set/' $(KCONFIG_ALLCONFIG) | \
		grep -v "^$${FAKE_DROP:-none}=" >.config
	if [ -n "$${FAKE_MODULE:-}" ]; then echo "$$FAKE_MODULE=m" >>.config; fi
bzImage:
	echo build >>$$FAKE_LOG
	sleep $${FAKE_SLEEP:-0}
	[ -z "$${FAKE_FAIL:-}" ]
	mkdir -p arch/x86/boot && echo image >arch/x86/boot/bzImage
modules_prepare:
modules: bzImage
	echo symvers >Module.symvers
EOF
tar -cJf "$tmp/fake-source.tar.xz" -C "$tmp/src" fake-source

export KBLOOM_CACHE=$tmp/cache KBLOOM_KERNEL_TARBALL=$tmp/fake-source.tar.xz
export FAKE_LOG=$tmp/builds
: >"$FAKE_LOG"
dk=$tmp/scripts/debug-kernel
builds() { wc -l <"$FAKE_LOG" | tr -d ' '; }

n=0
fails=0
check() { # check DESCRIPTION COMMAND...: one TAP line
	local desc=$1 out
	shift
	n=$((n + 1))
	if out=$("$@" 2>&1); then
		echo "ok $n - $desc"
	else
		echo "not ok $n - $desc"
		printf '%s\n' "$out" | sed 's/^/#   /'
		fails=$((fails + 1))
	fi
}

echo "TAP version 13"
echo "1..11"

first() {
	local d
	d=$("$dk") && [ "$d" = "$("$dk" --dir)" ] && [ -f "$d/.complete" ] &&
		[ -s "$d/arch/x86/boot/bzImage" ] && [ "$(builds)" = 1 ]
}
check "a missing build is built once, complete, in the --dir it names" first

again() {
	[ "$("$dk")" = "$("$dk" --dir)" ] && [ "$("$dk" --check)" = "$("$dk" --dir)" ] &&
		[ "$(builds)" = 1 ]
}
check "a complete build is used again, not rebuilt; --check names it" again

fragment_key() {
	local before after
	before=$("$dk" --dir)
	echo "CONFIG_EXTRA_FOR_TEST=y" >>"$tmp/scripts/debug-kernel.config"
	after=$("$dk" --dir)
	echo "before $before, after $after"
	[ "$before" != "$after" ] && ! "$dk" --check
}
check "a change of the fragment changes the key: the old build is not used" fragment_key

rebuilt() {
	local d
	d=$("$dk") && [ "$(builds)" = 2 ] && [ -f "$d/.complete" ] &&
		[ "$(ls "$KBLOOM_CACHE/debug-kernel")" = "$(basename "$(dirname "$d")")" ]
}
check "... and the build for the new fragment replaces the old one" rebuilt

tarball_key() {
	local before
	before=$("$dk" --dir)
	touch -d '2001-01-01' "$KBLOOM_KERNEL_TARBALL"
	[ "$before" != "$("$dk" --dir)" ]
}
check "a different source tarball changes the key" tarball_key
"$dk" >/dev/null 2>&1

partial() {
	local d
	d=$("$dk" --dir)
	rm "$d/.complete" "$d/arch/x86/boot/bzImage"
	! "$dk" --check && "$dk" >/dev/null && [ -s "$d/arch/x86/boot/bzImage" ] &&
		[ "$(builds)" = 4 ]
}
check "a partial build (no .complete) is not used: --check fails, it is built again" partial

failed() {
	rm "$("$dk" --dir)/.complete"
	! FAKE_FAIL=1 "$dk" && ! "$dk" --check
}
check "a failed build fails and leaves nothing --check accepts" failed

dropped() {
	local out
	rm -rf "${KBLOOM_CACHE:?}"/debug-kernel/*
	out=$(FAKE_DROP=CONFIG_KASAN "$dk" 2>&1) && return 1
	echo "$out"
	case $out in *"CONFIG_KASAN=y did not stick"*) ;; *) return 1 ;; esac
	! "$dk" --check
}
check "an option of the fragment that did not survive fails the build, named" dropped

module() {
	local out
	out=$(FAKE_MODULE=CONFIG_SOMETHING "$dk" 2>&1) && return 1
	echo "$out"
	case $out in *"CONFIG_SOMETHING=m"*"make them =y"*) ;; *) return 1 ;; esac
	! "$dk" --check
}
check "an option that ends up a module fails the build, named" module

together() {
	local a b before
	before=$(builds)
	FAKE_SLEEP=2 "$dk" >"$tmp/a" 2>&1 &
	a=$!
	sleep 0.5
	"$dk" >"$tmp/b" 2>"$tmp/b.err"
	b=$?
	wait "$a" || return 1
	cat "$tmp/b.err"
	[ $b = 0 ] && [ "$(tail -n1 "$tmp/a")" = "$(cat "$tmp/b")" ] &&
		[ "$(builds)" = $((before + 1)) ] && grep -q "waiting for the build under way" "$tmp/b.err"
}
check "two callers at once: the second waits for the first's build and uses it" together

usage() {
	local out
	out=$("$dk" --bogus 2>&1) && return 1
	case $out in *"unknown option '--bogus'"*) ;; *) return 1 ;; esac
}
check "an unknown option is refused, quoted" usage

exit $((fails > 0))
