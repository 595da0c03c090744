// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * list: one line per filter of the netns, sorted by name:
 *	NAME TYPE bits M hashes K memory BYTES fill X inserts N
 * or with -j a JSON array of descriptions (as show -j).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "describe.h"
#include "util.h"

struct desc_list {
	struct kb_desc *d;
	size_t n, cap;
};

static void list_reset(void *arg)
{
	struct desc_list *l = arg;

	l->n = 0;
}

static int list_reply(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct desc_list *l = arg;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct kb_desc *d = realloc(l->d, cap * sizeof(*d));

		if (!d) {
			errorf("out of memory");
			exit(EXIT_ERROR);
		}
		l->d = d;
		l->cap = cap;
	}
	if (kb_desc_parse(nl, tb, &l->d[l->n]) < 0)
		return -EPROTO;
	l->n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct kb_desc *)a)->name,
		      ((const struct kb_desc *)b)->name);
}

int cmd_list(int argc, char **argv)
{
	struct desc_list l = { 0 };
	struct kb_nl nl;
	size_t i;
	int r;

	if (argc > 1) {
		unexpected_argument(argv[0], argv[1]);
		return EXIT_ERROR;
	}
	if (open_netlink(&nl))
		return EXIT_ERROR;
	r = kb_nl_dump(&nl, KBLOOM_CMD_GET, list_reply, list_reset, &l);
	if (r) {
		kb_nl_perror(&nl, "unable to list filters");
		goto out;
	}
	if (l.n)
		qsort(l.d, l.n, sizeof(*l.d), by_name);
	if (opts.json) {
		struct kb_out o;
		struct json j;

		kb_out_stdout(&o, &j, true);
		json_arr_begin(&j);
		for (i = 0; i < l.n; i++)
			kb_desc_render(&o, &l.d[i]);
		json_arr_end(&j);
	} else {
		for (i = 0; i < l.n; i++)
			kb_desc_print_line(&l.d[i]);
	}
out:
	free(l.d);
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_list = {
	.name = "list",
	.fn = cmd_list,
	.summary = "list the filters, one line each",
	.usage = "\n",
	.help =
		"Prints one line per filter, sorted by name:\n"
		"  NAME TYPE bits M hashes K memory BYTES fill X inserts N\n"
		"where M is the number of cells (per dimension for multi; the first\n"
		"slice's for scalable) and X the cells set or non-zero (of the current\n"
		"window when time-paged). A time-paged filter's line goes on with\n"
		"\"windows W interval D\", an\n"
		"attached filter's with \"hook HOOK [dev IFACE] family F digest MODE\".\n"
		"With -j, a JSON array of objects as printed by 'show -j' (without\n"
		"window_list).\n",
};
