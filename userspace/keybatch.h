/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Batches of keys for KBLOOM_CMD_ADD and KBLOOM_CMD_TEST: each message
 * carries NAME and a KBLOOM_A_KEYS nest with as many KBLOOM_KEYS_A_KEY as
 * fit in KB_MSG_SIZE_KEYS bytes; a full message is sent and answered
 * before the next one is started, so every key is sent exactly once and
 * test results come back in the order the keys were given.
 */
#ifndef BLOOMCTL_KEYBATCH_H
#define BLOOMCTL_KEYBATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl.h"

/*
 * TEST: called once per key, in order, with the label the key was added
 * with (the key as the user wrote it). Returns 0 or a negative errno.
 */
typedef int (*kb_result_fn)(void *arg, const char *label, size_t len,
			    bool present);

struct keybatch {
	struct kb_nl *nl;
	uint8_t cmd;
	const char *name;
	kb_result_fn result;
	void *arg;

	struct nl_msg *msg;	/* message being filled, or NULL */
	struct nlattr *nest;
	uint32_t nkeys;		/* keys in msg */
	uint64_t sent;		/* keys sent and answered so far */

	/* Labels of the keys in msg, for results and error messages. */
	char *labels;
	size_t labels_len, labels_cap;
	size_t *label_off;	/* nkeys + 1 offsets into labels */
	size_t label_off_cap;
};

void keybatch_init(struct keybatch *b, struct kb_nl *nl, uint8_t cmd,
		   const char *name, kb_result_fn result, void *arg);
/* Adds a parsed key (1..KBLOOM_KEY_MAX bytes); may send a full batch. */
int keybatch_add(struct keybatch *b, const uint8_t *key, size_t len,
		 const char *label, size_t label_len);
/* Sends what is pending. */
int keybatch_flush(struct keybatch *b);
void keybatch_free(struct keybatch *b);

/*
 * After a failed keybatch_add/flush: "bloomctl: unable to VERB ...: WHY"
 * naming the key the kernel pointed at when it did.
 */
void keybatch_perror(const struct keybatch *b, const char *verb);

#endif
