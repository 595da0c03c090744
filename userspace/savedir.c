// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What 'save all DIR' and 'restore all DIR' share (savedir.h).
 */
#include <string.h>

#include "commands.h"
#include "save.h"
#include "savedir.h"

bool savedir_entry(const char *name)
{
	size_t len = strlen(name), ext = strlen(SAVE_EXT);

	return len > ext && !strcmp(name + len - ext, SAVE_EXT);
}

bool savedir_args(int argc, char **argv, const char *dir_hint,
		  const char **dir, bool *zstd)
{
	if (argc < 3) {
		usage_errorf(argv[0], "'all' needs a DIR%s", dir_hint);
		return false;
	}
	*dir = argv[2];
	if (argc == 3)
		return true;
	if (!zstd || strcmp(argv[3], "compress")) {
		unexpected_argument(argv[0], argv[3]);
		return false;
	}
	if (!parse_compress("save", argc, argv, 3, zstd))
		return false;
	if (argc > 5) {
		unexpected_argument(argv[0], argv[5]);
		return false;
	}
	return true;
}
