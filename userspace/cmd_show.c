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

	if (filter_cmd_open(argc, argv, false, &nl))
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
