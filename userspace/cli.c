// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What every command shares below the command table (cli.h): the global
 * options, usage errors, the netlink socket in the --netns.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "util.h"

struct global_opts opts;
struct cli_dispatch cli_dispatch;

void usage_errorf(const char *cmd, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	errorf("%s: %s (see 'bloomctl %s --help')", cmd, msg, cmd);
}

void unexpected_argument(const char *cmd, const char *arg)
{
	static const char *const globals[] = { "-j", "--json", "-n", "--netns",
					       "-e", "--exist" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(globals); i++) {
		if (!strncmp(arg, globals[i], strlen(globals[i]))) {
			usage_errorf(cmd, "unexpected argument '%s': global options go before the command",
				     quote(arg));
			return;
		}
	}
	usage_errorf(cmd, "unexpected argument '%s'", quote(arg));
}

int open_netlink(struct kb_nl *nl)
{
	return kb_nl_open(nl, opts.netns);
}

int filter_cmd_open(int argc, char **argv, bool all, struct kb_nl *nl)
{
	if (argc < 2) {
		usage_errorf(argv[0], all ? "missing filter NAME (or 'all')" :
			     "missing filter NAME");
		return -1;
	}
	if (argc > 2) {
		unexpected_argument(argv[0], argv[2]);
		return -1;
	}
	if (!(all && !strcmp(argv[1], "all")) && !check_name(argv[1]))
		return -1;
	return open_netlink(nl) ? -1 : 0;
}
