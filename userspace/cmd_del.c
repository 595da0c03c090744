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

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_del = {
	.name = "del",
	.fn = cmd_del,
	.summary = "delete keys from a counting, dleft or dcf filter",
	.usage =
		"NAME [--] KEY...\n"
		"NAME -f FILE\n",
	.help =
		"Deletes each KEY, in order, from filter NAME, a counting filter with\n"
		"plain update, a dleft filter or a dcf: its k counters are decremented\n"
		"(a counter at its maximum stays there), or its d-left cell's count.\n"
		"Not for the other types (bloom, partitioned, blocked, stable, multi,\n"
		"scalable); a dcf that lost increments refuses del until clear. A key\n"
		"that is certainly absent is an error naming it (exit 2), and its\n"
		"message changes nothing: the kernel puts back the keys of that message\n"
		"deleted before it. Keys go in messages of up to 60 KiB (thousands of\n"
		"short keys); when a later message fails, the keys of the earlier ones\n"
		"stay deleted and the error says how many. With -f, reads one key a\n"
		"line from FILE ('-' for standard input), as add. Delete only keys that\n"
		"were added: deleting a false positive decrements other keys' counters\n"
		"and can make them absent. Prints nothing on success.\n",
};
