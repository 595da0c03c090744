/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Subcommands. Each gets argv[0] = its own name and returns the exit code
 * (EXIT_OK, EXIT_NEGATIVE, EXIT_ERROR); errors are printed by the command.
 */
#ifndef BLOOMCTL_COMMANDS_H
#define BLOOMCTL_COMMANDS_H

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

int cmd_create(int argc, char **argv);
int cmd_destroy(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_clear(int argc, char **argv);
int cmd_del(int argc, char **argv);
int cmd_count(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_calc(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_detach(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_digest(int argc, char **argv);
int cmd_save(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_archive(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
int cmd_batch(int argc, char **argv);
int cmd_metrics(int argc, char **argv);

/*
 * Runs argv[0] from the command table (or help, or COMMAND --help), as
 * main does after the global options; @argc >= 1. Returns its exit code.
 */
int run_command(int argc, char **argv);

/*
 * The full name of the command @word names: itself, or the one command
 * name (help included) it is a prefix of, as iproute2 takes "ip li";
 * NULL when none or several. Prints nothing.
 */
const char *command_full_name(const char *word);

/* "bloomctl: CMD: MSG (see 'bloomctl CMD --help')", from bloomctl.c. */
void usage_errorf(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* usage_errorf() for a surplus argument, with a hint for global options. */
void unexpected_argument(const char *cmd, const char *arg);

/*
 * -V/--version: prints bloomctl's version and the loaded module's (or that
 * it is not loaded); warns when they differ. Returns the exit code.
 */
int print_version(void);
extern const char kb_tool_version[];

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
