// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * del NAME [--] KEY... | del NAME -f FILE: counting (plain update) and
 * dleft filters. A certainly-absent key fails its message, which the
 * kernel then undoes; the error names the key (extack offset).
 */
#include "commands.h"
#include "keycmd.h"
#include "util.h"

int cmd_del(int argc, char **argv)
{
	struct keycmd kc;
	int ret = EXIT_ERROR;

	if (!keycmd_open(&kc, KBLOOM_CMD_DEL, argc, argv) &&
	    !keycmd_run(&kc, NULL, NULL))
		ret = EXIT_OK;
	keycmd_close(&kc);
	return ret;
}
