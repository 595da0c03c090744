// SPDX-License-Identifier: GPL-2.0 OR MIT
/* add NAME [--] KEY... | add NAME -f FILE */
#include "commands.h"
#include "keycmd.h"
#include "util.h"

int cmd_add(int argc, char **argv)
{
	struct keycmd kc;
	int ret = EXIT_ERROR;

	if (!keycmd_open(&kc, KBLOOM_CMD_ADD, argc, argv) &&
	    !keycmd_run(&kc, NULL, NULL))
		ret = EXIT_OK;
	keycmd_close(&kc);
	return ret;
}
