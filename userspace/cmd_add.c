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

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_add = {
	.name = "add",
	.fn = cmd_add,
	.summary = "add keys to a filter",
	.usage =
		"NAME [--] KEY...\n"
		"NAME -f FILE\n",
	.help =
		"Adds each KEY to filter NAME. With -f, reads one key a line from FILE\n"
		"('-' for standard input); a trailing \\r is dropped, an empty line is an\n"
		"error. A bad line stops the file there, naming it: every key before\n"
		"it is added, none after. Prints nothing on success.\n"
		"A KEY starting with '-' on the command line is refused as a mistyped\n"
		"option (exit 2, nothing sent) unless the keys follow '--'; or give it\n"
		"in hex (0x2d...). The same holds for del, test and count.\n",
};
