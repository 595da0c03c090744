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
