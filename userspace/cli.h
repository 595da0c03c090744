/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The floor below the commands (cmd_*.c) that every command stands on:
 * the global options main read, usage errors, the netlink socket in the
 * --netns. Defined in cli.c; main (bloomctl.c) and the command table are
 * above it, and it never calls up into them.
 */
#ifndef BLOOMCTL_CLI_H
#define BLOOMCTL_CLI_H

#include <stdbool.h>

#include "nl.h"

/* Global options, set by main before the command runs. */
struct global_opts {
	bool json;
	bool exist;	/* -e/--exist: FLAGS EXIST on CREATE and ATTACH */
	bool quiet;	/* -q/--quiet: no progress line (progress.h) */
	const char *netns;
};
extern struct global_opts opts;

/*
 * The command table's dispatch, set by main before a command runs, for
 * the commands that run other commands (batch): such a command calls
 * through it instead of up into main's file.
 *   run        runs argv[0] from the table (or help, or COMMAND --help)
 *              as main does after the global options; @argc >= 1;
 *              returns its exit code
 *   full_name  the full name of the command @word names: itself, or the
 *              one command name (help included) it is a prefix of, as
 *              iproute2 takes "ip li"; NULL when none or several. Prints
 *              nothing
 */
struct cli_dispatch {
	int (*run)(int argc, char **argv);
	const char *(*full_name)(const char *word);
};
extern struct cli_dispatch cli_dispatch;

/* "bloomctl: CMD: MSG (see 'bloomctl CMD --help')". */
void usage_errorf(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* usage_errorf() for a surplus argument, with a hint for global options. */
void unexpected_argument(const char *cmd, const char *arg);
/* kb_nl_open() with the global --netns. */
int open_netlink(struct kb_nl *nl);

/*
 * The prologue of the commands on one filter, "CMD NAME" (clear, detach,
 * show, destroy, estimate): NAME given and nothing after it, a valid
 * name (or "all" when @all), then open_netlink(). Prints the error; 0 or
 * -1.
 */
int filter_cmd_open(int argc, char **argv, bool all, struct kb_nl *nl);


#endif
