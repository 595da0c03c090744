#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR MIT
#
# The family's YNL spec (docs/netlink/kbloom.yaml) agrees with the ABI
# header kmod/uapi/kbloom.h and the module's policies: commands,
# attributes, types and enum values, checked with the kernel's own YNL
# library from Debian's linux-source-6.12 (scripts/ynl). Prints TAP
# (tests/unit/ynlspec.py says how).
set -u
here=$(cd "$(dirname "$0")" && pwd)
ynl=$("$here/../../scripts/ynl") || { echo "not ok 1 - scripts/ynl: no YNL tooling"; exit 1; }
exec python3 "$here/ynlspec.py" "$ynl"
