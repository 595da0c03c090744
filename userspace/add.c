// SPDX-License-Identifier: GPL-2.0 OR MIT
/* add NAME [--] KEY... | add NAME -f FILE */
#include "commands.h"
#include "keybatch.h"
#include "keysrc.h"
#include "util.h"

int cmd_add(int argc, char **argv)
{
	struct keybatch b;
	struct keysrc src;
	struct kb_nl nl;
	const char *name;
	int r, ret = EXIT_ERROR;

	if (keysrc_init(&src, argc, argv, &name))
		return EXIT_ERROR;
	if (!check_name(name) || keysrc_check_args(&src) ||
	    keysrc_open(&src))
		return EXIT_ERROR;
	if (open_netlink(&nl)) {
		keysrc_close(&src);
		return EXIT_ERROR;
	}
	keybatch_init(&b, &nl, KBLOOM_CMD_ADD, name, NULL, NULL);
	while ((r = keysrc_next(&src)) > 0) {
		if (keybatch_add(&b, src.key, src.keylen, src.text,
				 src.textlen)) {
			keybatch_perror(&b, "add");
			goto out;
		}
	}
	if (r < 0)
		goto out;	/* printed; earlier batches stay added */
	if (keybatch_flush(&b)) {
		keybatch_perror(&b, "add");
		goto out;
	}
	ret = EXIT_OK;
out:
	keybatch_free(&b);
	keysrc_close(&src);
	kb_nl_close(&nl);
	return ret;
}
