// SPDX-License-Identifier: GPL-2.0 OR MIT
/* detach NAME */
#include <errno.h>
#include <stdio.h>

#include "commands.h"
#include "describe.h"
#include "util.h"

int cmd_detach(int argc, char **argv)
{
	struct nl_msg *msg;
	struct kb_desc d;
	struct kb_nl nl;
	int r;

	if (filter_cmd_open(argc, argv, false, &nl))
		return EXIT_ERROR;
	msg = kb_nl_msg(&nl, KBLOOM_CMD_DETACH, 0, 0);
	kb_put_name(msg, argv[1]);
	r = kb_nl_request(&nl, msg, NULL, NULL);
	nlmsg_free(msg);
	if (r == -ENOENT && !nl.error.kmsg[0]) {
		/* ENOENT is both "no such filter" and "not attached". */
		struct kb_nl_error saved = nl.error;

		if (!kb_desc_get(&nl, argv[1], &d)) {
			nl.error = saved;
			snprintf(nl.error.why, sizeof(nl.error.why),
				 "not attached");
		} else {
			nl.error = saved;
		}
	}
	if (r)
		kb_nl_perror(&nl, "unable to detach filter '%s'",
			     quote(argv[1]));
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_detach = {
	.name = "detach",
	.fn = cmd_detach,
	.summary = "stop recording packet digests",
	.usage = "NAME\n",
	.help =
		"Detaches filter NAME from its hook: when detach returns, no packet\n"
		"is added to the filter any more. The filter keeps its contents.\n",
};
