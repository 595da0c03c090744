#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# What userspace/bloomctl loads at start-up: libnl, libzstd, libm and libc,
# nothing else. libpcap (and the dbus, systemd, gcrypt, ... it pulls in)
# is dlopen()ed only by the commands that read or write a capture
# (userspace/pcapdl.c): in the test VM every library opened costs a 9p
# round trip, and linked it doubled the start-up of every command.
# Prints TAP.
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
bc=$top/userspace/bloomctl
echo "TAP version 13"
echo "1..2"

needed=$(readelf -d "$bc" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
want="libc.so.6 libm.so.6 libnl-3.so.200 libnl-genl-3.so.200 libzstd.so.1 "
if [ "$needed" = "$want" ]; then
	echo "ok 1 - bloomctl links only: $want"
else
	echo "not ok 1 - bloomctl links '$needed', want '$want'"
fi

# The loader finds libpcap at run time: a capture that is no capture is
# refused by libpcap itself, not by a failure to load it.
out=$(printf 'not a capture' | "$bc" digest pcap - 2>&1)
case $out in
*"unable to load libpcap"*|*"lacks pcap_"*)
	echo "not ok 2 - bloomctl digest pcap - could not load libpcap: $out" ;;
*"unknown file format"*|*"bad dump file format"*)
	echo "ok 2 - libpcap is loaded on use: $out" ;;
*)
	echo "not ok 2 - bloomctl digest pcap -: unexpected '$out'" ;;
esac
