// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * show NAME: every field of the description and the numbers derived from
 * it here (cardinality estimate, false positive rates; describe.c).
 */
#include "commands.h"
#include "describe.h"
#include "util.h"

int cmd_show(int argc, char **argv)
{
	struct kb_desc d;
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
	r = kb_desc_get(&nl, argv[1], &d);
	if (r) {
		kb_nl_perror(&nl, "unable to show filter '%s'",
			     quote(argv[1]));
	} else {
		struct kb_out o;
		struct json j;

		kb_out_stdout(&o, &j, opts.json);
		kb_desc_render(&o, &d);
	}
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}
