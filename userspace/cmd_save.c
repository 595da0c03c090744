// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * save NAME FILE [window ID] [compress zstd] | save all DIR: the command.
 * The export and the file writing are save.c's (kb_export_save); 'all'
 * saves every filter (cmd_save_all.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "save.h"
#include "util.h"

static bool parse_save_args(int argc, char **argv, struct kb_export *x)
{
	bool have_window = false, have_compress = false;
	int i;

	if (argc < 3) {
		usage_errorf(argv[0], argc < 2 ? "missing filter NAME" :
			     "missing FILE ('-' for stdout)");
		return false;
	}
	x->name = argv[1];
	x->path = argv[2];
	for (i = 3; i < argc; i += 2) {
		if (!strcmp(argv[i], "window") && !have_window) {
			have_window = true;
			if (i + 1 >= argc) {
				usage_errorf(argv[0], "'window' needs a window ID");
				return false;
			}
			if (parse_u64(argv[i + 1], &x->window) || !x->window) {
				errorf("save: invalid window ID '%s': a number from 1 (see 'bloomctl show %s')",
				       quote(argv[i + 1]), quote(x->name));
				return false;
			}
		} else if (!strcmp(argv[i], "compress") && !have_compress) {
			have_compress = true;
			if (!parse_compress("save", argc, argv, i, &x->zstd))
				return false;
		} else if (!strcmp(argv[i], "window") ||
			   !strcmp(argv[i], "compress")) {
			usage_errorf(argv[0], "'%s' given twice", argv[i]);
			return false;
		} else {
			unexpected_argument(argv[0], argv[i]);
			return false;
		}
	}
	if (!*x->path) {
		errorf("save: invalid FILE '': empty");
		return false;
	}
	return check_name(x->name);
}

int cmd_save(int argc, char **argv)
{
	struct kb_export x = { 0 };
	struct kb_nl nl;
	int r;

	if (argc > 1 && !strcmp(argv[1], "all"))
		return kb_save_all(argc, argv);
	if (!parse_save_args(argc, argv, &x))
		return EXIT_ERROR;
	if (!strcmp(x.path, "-") && isatty(STDOUT_FILENO)) {
		errorf("save: refusing to write a binary save file to a terminal (redirect stdout, or give a FILE)");
		return EXIT_ERROR;
	}
	if (open_netlink(&nl))
		return EXIT_ERROR;
	r = kb_export_save(&nl, &x);
	if (r && x.file_error)
		errorf("unable to save filter '%s' to '%s': %s", quote(x.name),
		       quote(x.path), x.err);
	else if (r && x.window)
		kb_nl_perror(&nl, "unable to save window %" PRIu64 " of filter '%s' to '%s'",
			     x.window, quote(x.name), quote(x.path));
	else if (r)
		kb_nl_perror(&nl, "unable to save filter '%s' to '%s'",
			     quote(x.name), quote(x.path));
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}
