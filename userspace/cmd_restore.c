// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * restore FILE [as NAME] | restore all DIR [as-is]: the command. The
 * steps (verify, create hidden, import, publish) are restore.c's; 'all'
 * runs them for every file of DIR (cmd_restore_all.c).
 */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "restore.h"
#include "util.h"

int cmd_restore(int argc, char **argv)
{
	struct kb_restore o = { 0 };
	struct kb_nl nl;
	int ret = EXIT_ERROR;

	if (argc < 2) {
		usage_errorf(argv[0], "missing FILE ('-' for stdin) or 'all DIR'");
		return EXIT_ERROR;
	}
	if (!strcmp(argv[1], "all"))
		return kb_restore_all(argc, argv);
	o.path = argv[1];
	if (argc > 2) {
		if (strcmp(argv[2], "as")) {
			unexpected_argument(argv[0], argv[2]);
			return EXIT_ERROR;
		}
		if (argc < 4) {
			usage_errorf(argv[0], "'as' needs a filter NAME");
			return EXIT_ERROR;
		}
		if (argc > 4) {
			unexpected_argument(argv[0], argv[4]);
			return EXIT_ERROR;
		}
		o.name = argv[3];
		if (!check_new_name(o.name))
			return EXIT_ERROR;
	}

	/* 1. The whole file, checked before anything reaches the kernel. */
	if (kb_restore_open(&o))
		return EXIT_ERROR;
	if (!check_new_name(o.name))
		goto out;

	/*
	 * 2. The hidden filter, reserved for this socket; 3. its cells;
	 * 4. complete: the filter appears. Any failure just reports and
	 * exits: the kernel destroys a filter created with FLAGS LOAD when
	 * the socket that created it closes before LOADED, so no cleanup
	 * call is needed and nothing half-made is left.
	 */
	if (open_netlink(&nl))
		goto out;
	if (!kb_restore_create(&nl, &o) && !kb_restore_cells(&nl, &o) &&
	    !kb_restore_loaded(&nl, &o))
		ret = EXIT_OK;
	kb_nl_close(&nl);
out:
	kb_restore_close(&o);
	return ret;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_restore = {
	.name = "restore",
	.fn = cmd_restore,
	.summary = "create a filter from a save file",
	.usage =
		"FILE [as NAME]\n"
		"all DIR\n",
	.help =
		"Creates a filter from a file written by 'save' or 'archive', named\n"
		"as when saved or NAME: same type, shape, hash key, dimensions and\n"
		"cells, so it answers test, count and query exactly as the saved\n"
		"table did (its counters start at 0). A saved window becomes a filter\n"
		"without windows holding that window's table; a scalable filter or a\n"
		"dcf gets the saved slices or overflow vector back (and its overflow\n"
		"or lost count), so it also grows on as the original. The whole file is\n"
		"checked first (CRCs, header, the cell size its shape needs): a bad\n"
		"file is refused with its name and the byte where it went wrong, and\n"
		"nothing is created. The filter appears only once every cell is\n"
		"loaded; a restore that fails or is killed half-way leaves nothing\n"
		"behind. An existing NAME is refused (--exist does not apply: a\n"
		"restore brings contents, not a setup). FILE '-' is stdin.\n"
		"restore all DIR restores every DIR/*.kbf file ('save all'), all or\n"
		"nothing: every file is checked first (one bad file and nothing is\n"
		"created), every filter is loaded hidden, and they appear together\n"
		"only once all are loaded; an existing name, two files of one name,\n"
		"or the memory limit refuses the whole restore. Attach again\n"
		"afterwards: attachments are not saved. Prints nothing on success.\n",
};
