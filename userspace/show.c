// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * show NAME: every field of the description and the numbers derived from
 * it here (cardinality estimate, false positive rates).
 */
#include "commands.h"
#include "describe.h"
#include "util.h"

struct show_state {
	struct kb_desc d;
	int replies;
};

static int show_reply(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct show_state *s = arg;

	if (s->replies++)
		return kb_nl_fail(nl, "more than one description");
	return kb_desc_parse(nl, tb, &s->d);
}

int cmd_show(int argc, char **argv)
{
	struct show_state s = { 0 };
	struct nl_msg *msg;
	struct kb_nl nl;
	int r;

	if (argc < 2) {
		usage_errorf(argv[0], "missing filter NAME");
		return EXIT_ERROR;
	}
	if (argc > 2) {
		unexpected_argument(argv[0], argv[2]);
		return EXIT_ERROR;
	}
	if (!check_name(argv[1]))
		return EXIT_ERROR;
	if (open_netlink(&nl))
		return EXIT_ERROR;
	msg = kb_nl_msg(&nl, KBLOOM_CMD_GET, 0, 0);
	kb_put_name(msg, argv[1]);
	r = kb_nl_request(&nl, msg, show_reply, &s);
	nlmsg_free(msg);
	if (!r && !s.replies)
		r = kb_nl_fail(&nl, "no description");
	if (r) {
		kb_nl_perror(&nl, "unable to show filter '%s'",
			     quote(argv[1]));
	} else if (opts.json) {
		struct json j;

		json_init(&j, stdout);
		kb_desc_json(&j, &s.d);
	} else {
		kb_desc_print_full(&s.d);
	}
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}
