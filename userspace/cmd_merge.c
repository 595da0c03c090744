// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * merge DST SRC [op or|and]: DST = DST op SRC in the kernel. The filters
 * must have the same type, shape and hash key; the kernel says which
 * differs (its extack text is printed).
 */
#include <string.h>

#include "commands.h"
#include "describe.h"
#include "util.h"

int cmd_merge(int argc, char **argv)
{
	uint32_t op = KBLOOM_MERGE_OR;
	struct nl_msg *msg;
	struct kb_nl nl;
	int r;

	if (argc < 3) {
		usage_errorf(argv[0], argc < 2 ? "missing filter DST" :
			     "missing filter SRC");
		return EXIT_ERROR;
	}
	if (argc > 3) {
		if (strcmp(argv[3], "op")) {
			unexpected_argument(argv[0], argv[3]);
			return EXIT_ERROR;
		}
		if (argc < 5) {
			usage_errorf(argv[0], "'op' needs 'or' or 'and'");
			return EXIT_ERROR;
		}
		if (!strcmp(argv[4], "or")) {
			op = KBLOOM_MERGE_OR;
		} else if (!strcmp(argv[4], "and")) {
			op = KBLOOM_MERGE_AND;
		} else {
			errorf("invalid op '%s': 'or' or 'and'", quote(argv[4]));
			return EXIT_ERROR;
		}
		if (argc > 5) {
			unexpected_argument(argv[0], argv[5]);
			return EXIT_ERROR;
		}
	}
	if (!check_name(argv[1]) || !check_name(argv[2]))
		return EXIT_ERROR;
	if (open_netlink(&nl))
		return EXIT_ERROR;
	msg = kb_nl_msg(&nl, KBLOOM_CMD_MERGE, 0, 0);
	kb_put_name(msg, argv[1]);
	if (nla_put_string(msg, KBLOOM_A_SRC, argv[2]) < 0) {
		errorf("internal error: netlink message full");
		return EXIT_ERROR;
	}
	kb_put_u32(msg, KBLOOM_A_MERGE_OP, op);
	r = kb_nl_request(&nl, msg, NULL, NULL);
	nlmsg_free(msg);
	if (r)
		kb_explain_mismatch(&nl, argv[1], argv[2]);
	if (r)
		kb_nl_perror(&nl, "unable to merge filter '%s' into '%s' (op %s)",
			     quote(argv[2]), quote(argv[1]),
			     op == KBLOOM_MERGE_OR ? "or" : "and");
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_merge = {
	.name = "merge",
	.fn = cmd_merge,
	.summary = "merge a filter into another",
	.usage = "DST SRC [op or|and]\n",
	.help =
		"Merges filter SRC into filter DST, in the same network namespace; SRC\n"
		"is not changed:\n"
		"  op or    (default) bit types: the union of the bits, as if DST had\n"
		"           also been given SRC's keys; counting: the counters added,\n"
		"           saturating\n"
		"  op and   bit types: the bits set in both, a filter of the common keys\n"
		"           whose false positive rate can be higher than one built from\n"
		"           them; counting: the smaller of the two counters\n"
		"Both filters must have the same type, shape (bits, hashes, the type's\n"
		"options) and hash key: create both with the same 'key HEX32'. When\n"
		"they differ the error says what differs. Not for dleft, stable,\n"
		"scalable or dcf filters. Prints nothing on success.\n",
};
