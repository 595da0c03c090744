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

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_save = {
	.name = "save",
	.fn = cmd_save,
	.summary = "save a filter's contents to a file",
	.usage =
		"NAME FILE [window ID] [compress zstd]\n"
		"all DIR [compress zstd]\n",
	.help =
		"Writes filter NAME (its shape, hash key, counters and cells) to\n"
		"FILE in the kbloom save file format (versioned, little-endian,\n"
		"CRC32C-checked; see userspace/savefile.h), streamed from the kernel\n"
		"as it is read. FILE is written as a new FILE.XXXXXX (random suffix,\n"
		"mode 0600: the file holds the filter's secret hash key, with which\n"
		"anyone can craft keys that collide) and renamed when complete: a\n"
		"failed save leaves no file. FILE '-' is stdout.\n"
		"  window ID      of a time-paged filter, that window (IDs: 'bloomctl\n"
		"                 show NAME'); default the current window, or the only\n"
		"                 table of a filter without windows. The current window\n"
		"                 is saved while it takes adds: every key added before\n"
		"                 the save began is in the file.\n"
		"  compress zstd  compress the file (a filter at low fill shrinks a lot)\n"
		"A scalable filter or a dcf is saved with its layout (every slice; the\n"
		"overflow vector and its width) as format version 2; a filter made\n"
		"with 'hash siphash-1-3' as version 3 (4 with a layout), which older\n"
		"readers refuse rather than misread. If the filter\n"
		"grows, is cleared or merged into, or is destroyed and made again\n"
		"during the save, the save starts again (a few times at most; with\n"
		"FILE '-' it fails instead). 'restore' reads it back.\n"
		"save all DIR writes every filter of the namespace as DIR/NAME.kbf,\n"
		"one such file each, into a new directory DIR.XXXXXX (mode 0700) that\n"
		"then takes DIR's place in one step (an existing DIR is swapped out\n"
		"and removed; it may hold nothing but the .kbf files of an earlier\n"
		"save all): DIR is always one whole save, and a failed save all\n"
		"leaves it as it was. A filter with windows is saved as its current\n"
		"window, which restore makes a filter without windows ('archive'\n"
		"keeps the closed windows). Attachments are not saved. Prints nothing\n"
		"on success.\n",
};
