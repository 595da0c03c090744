/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Subcommands. Each gets argv[0] = its own name and returns the exit code
 * (EXIT_OK, EXIT_NEGATIVE, EXIT_ERROR); errors are printed by the command.
 */
#ifndef BLOOMCTL_COMMANDS_H
#define BLOOMCTL_COMMANDS_H

#include <stdbool.h>

#include "cli.h"
#include "nl.h"

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
 * A command's entry in the table of bloomctl.c, defined beside the command
 * in its cmd_NAME.c. Its help texts may name the ABI limits as {NAME_LEN},
 * {KEY_MAX}, {BITS_MIN}, {BITS_MAX}, {BITS_MAX_LOG2}, {HASHES_MAX},
 * {MEM_MAX}, {DIMS_MAX}, {DIM_NAME_LEN}, {DECREMENT_MAX}, {WINDOWS_MAX},
 * {PACKET_MAX}: they are filled in from uapi/kbloom.h when printed.
 */
struct kb_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;	/* one line, for bloomctl --help */
	const char *usage;	/* argument lines, after "bloomctl NAME " */
	const char *help;	/* the rest of bloomctl NAME --help */
};

extern const struct kb_command kb_cmd_create, kb_cmd_destroy, kb_cmd_list,
	kb_cmd_show, kb_cmd_add, kb_cmd_test, kb_cmd_clear, kb_cmd_del,
	kb_cmd_count, kb_cmd_merge, kb_cmd_estimate, kb_cmd_calc,
	kb_cmd_attach, kb_cmd_detach, kb_cmd_query, kb_cmd_digest,
	kb_cmd_save, kb_cmd_restore, kb_cmd_archive, kb_cmd_trace,
	kb_cmd_monitor, kb_cmd_batch, kb_cmd_metrics;

/*
 * -V/--version: prints bloomctl's version and the loaded module's (or that
 * it is not loaded); warns when they differ. Returns the exit code.
 */
int print_version(void);
extern const char kb_tool_version[];

#endif
