// SPDX-License-Identifier: GPL-2.0 OR MIT
/* clear NAME */
#include "commands.h"
#include "util.h"

int cmd_clear(int argc, char **argv)
{
	struct nl_msg *msg;
	struct kb_nl nl;
	int r;

	if (filter_cmd_open(argc, argv, false, &nl))
		return EXIT_ERROR;
	msg = kb_nl_msg(&nl, KBLOOM_CMD_CLEAR, 0, 0);
	kb_put_name(msg, argv[1]);
	r = kb_nl_request(&nl, msg, NULL, NULL);
	nlmsg_free(msg);
	if (r)
		kb_nl_perror(&nl, "unable to clear filter '%s'",
			     quote(argv[1]));
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_clear = {
	.name = "clear",
	.fn = cmd_clear,
	.summary = "empty a filter",
	.usage = "NAME\n",
	.help = "Empties filter NAME; its shape and hash key are kept.\n",
};
