// SPDX-License-Identifier: GPL-2.0 OR MIT
/* destroy NAME | destroy all */
#include <string.h>

#include "commands.h"
#include "util.h"

int cmd_destroy(int argc, char **argv)
{
	struct nl_msg *msg;
	struct kb_nl nl;
	bool all;
	int r;

	if (filter_cmd_open(argc, argv, true, &nl))
		return EXIT_ERROR;
	all = !strcmp(argv[1], "all");
	msg = kb_nl_msg(&nl, KBLOOM_CMD_DESTROY, 0, 0);
	if (all)
		kb_put_u32(msg, KBLOOM_A_FLAGS, KBLOOM_F_ALL);
	else
		kb_put_name(msg, argv[1]);
	r = kb_nl_request(&nl, msg, NULL, NULL);
	nlmsg_free(msg);
	if (r && all)
		kb_nl_perror(&nl, "unable to destroy all filters");
	else if (r)
		kb_nl_perror(&nl, "unable to destroy filter '%s'",
			     quote(argv[1]));
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_destroy = {
	.name = "destroy",
	.fn = cmd_destroy,
	.summary = "destroy a filter, or all filters",
	.usage =
		"NAME\n"
		"all\n",
	.help = "Destroys filter NAME, or every filter of the network namespace.\n",
};
