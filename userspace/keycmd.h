/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What add, test, del and count share: "NAME [--] KEY... | NAME -f FILE",
 * the filter's description (GET: its type decides whether keys are KEYs
 * or TUPLEs of its dimensions, and whether del and count apply), then
 * every key streamed through a keybatch.
 */
#ifndef BLOOMCTL_KEYCMD_H
#define BLOOMCTL_KEYCMD_H

#include "describe.h"
#include "keybatch.h"
#include "keysrc.h"

struct keycmd {
	uint8_t cmd;		/* KBLOOM_CMD_ADD, TEST, DEL or COUNT */
	const char *name;
	struct kb_nl nl;
	bool nl_open;
	struct kb_desc desc;
	struct keysrc src;
	struct keybatch batch;
	bool batch_init;
};

/*
 * Parses the arguments, opens netlink, reads the filter's description,
 * checks that @cmd applies to its type and every command-line key, opens
 * the key file. 0, or -1 with the error printed (call keycmd_close()
 * either way).
 */
int keycmd_open(struct keycmd *kc, uint8_t cmd, int argc, char **argv);

/*
 * Sends every key; @fn gets the answers of TEST and COUNT. 0, or -1 with
 * the error printed.
 */
int keycmd_run(struct keycmd *kc, kb_result_fn fn, void *arg);

void keycmd_close(struct keycmd *kc);

#endif
