/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kselftest harness as the VM suites use it. Its 30 s per test is for
 * native machines; here a test runs under emulation, on the debug kernel
 * (KASAN, lockdep: 5-10 times slower) and beside another guest on a busy
 * 2-core host, so the backstop against a hang is 300 s (tests wait for
 * states with deadlines of their own; scripts/vm's --timeout bounds the run).
 */
#ifndef KBLOOM_TEST_VM_HARNESS_H
#define KBLOOM_TEST_VM_HARNESS_H

#include "kselftest_harness.h"

#undef TEST_TIMEOUT_DEFAULT
#define TEST_TIMEOUT_DEFAULT 300

#endif
