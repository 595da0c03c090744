/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The directory of 'save all DIR' (cmd_save_all.c) and 'restore all DIR'
 * (cmd_restore_all.c): one save file DIR/NAME.kbf per filter.
 */
#ifndef BLOOMCTL_SAVEDIR_H
#define BLOOMCTL_SAVEDIR_H

#include <stdbool.h>

#define SAVE_EXT	".kbf"

/* Whether @name (an entry of DIR) is NAME.kbf, NAME not empty. */
bool savedir_entry(const char *name);

/*
 * The words after 'all' (argv as the command's: argv[1] "all"): *@dir is
 * argv[2]; with @zstd (save) 'compress zstd' may follow and sets it, with
 * @zstd NULL (restore) nothing may. A missing DIR says "'all' needs a
 * DIR" and @dir_hint. false when a usage error was printed.
 */
bool savedir_args(int argc, char **argv, const char *dir_hint,
		  const char **dir, bool *zstd);

#endif
