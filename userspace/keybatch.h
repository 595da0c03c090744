/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Batches of keys for KBLOOM_CMD_ADD, TEST, DEL and COUNT: each message
 * carries NAME and a KBLOOM_A_KEYS nest with as many KBLOOM_KEYS_A_KEY (or,
 * for a multi filter, KBLOOM_KEYS_A_TUPLE nests whose attribute types are
 * the 1-based dimension numbers) as fit in KB_MSG_SIZE_KEYS bytes. Every
 * key is sent exactly once and test results and counts come back in the
 * order the keys were given. A full message is sent and answered before
 * the next one is started, or, after keybatch_pipeline(), sent by a thread
 * of its own while the caller builds the next: one message in flight.
 */
#ifndef BLOOMCTL_KEYBATCH_H
#define BLOOMCTL_KEYBATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keyparse.h"
#include "nl.h"

/*
 * TEST and COUNT: called once per key, in order, with the label the key
 * was added with (the key as the user wrote it) and its answer: 1 present
 * or 0 absent (TEST), its count (COUNT). Returns 0 or a negative errno.
 */
typedef int (*kb_result_fn)(void *arg, const char *label, size_t len,
			    uint32_t value);

struct keybatch {
	struct kb_nl *nl;
	uint8_t cmd;
	const char *name;
	kb_result_fn result;
	void *arg;

	/*
	 * Replies of another command (QUERY): set after keybatch_init(),
	 * called with the batch as arg; it must set nkeys to 0 once it has
	 * taken the answers of the nkeys keys sent (and may read labels).
	 */
	kb_reply_fn reply;

	struct nl_msg *msg;	/* message being filled, or NULL */
	struct nlmsghdr *hdr;	/* msg's header (its buffer never moves) */
	struct nlattr *nest;
	uint32_t nkeys;		/* keys in msg */
	uint64_t sent;		/* keys sent and answered so far */
	/*
	 * ADD answered ENOSPC: the filter (scalable) could not grow, but
	 * the keys were added; sending goes on and the caller reports
	 * this error (the first one) at the end.
	 */
	bool over;
	struct kb_nl_error over_err;

	/* Labels of the keys in msg, for results and error messages. */
	char *labels;
	size_t labels_len, labels_cap;
	size_t *label_off;	/* nkeys + 1 offsets into labels */
	size_t label_off_cap;

	struct kb_pipe *pipe;	/* keybatch_pipeline(): the sender thread */
};

void keybatch_init(struct keybatch *b, struct kb_nl *nl, uint8_t cmd,
		   const char *name, kb_result_fn result, void *arg);
/* Adds a parsed key (1..KBLOOM_KEY_MAX bytes); may send a full batch. */
int keybatch_add(struct keybatch *b, const uint8_t *key, size_t len,
		 const char *label, size_t label_len);
/* The same for a tuple of a multi filter (at least one dimension). */
int keybatch_add_tuple(struct keybatch *b, const struct kp_tuple *t,
		       const char *label, size_t label_len);
/*
 * From now on full messages are handed to a sender thread (which then
 * calls the result function) while the caller parses and builds the next
 * one: parsing overlaps the kernel's work, which is what a bulk load from
 * a file waits on. Not for a batch with a reply hook. If no thread can be
 * started the batch stays as it was.
 */
void keybatch_pipeline(struct keybatch *b);
/*
 * Sends what is pending and, pipelined, waits for the last answer and
 * ends the thread.
 */
int keybatch_flush(struct keybatch *b);
/*
 * Pipelined: waits for the message in flight (nothing pending is sent)
 * and ends the thread; 0 or that message's error, for keybatch_perror().
 * Returns 0 at once when not pipelined.
 */
int keybatch_wait(struct keybatch *b);
void keybatch_free(struct keybatch *b);

/*
 * After a failed keybatch_add/flush: "bloomctl: unable to VERB ...: WHY"
 * naming the key the kernel pointed at when it did, and for DEL how many
 * keys of earlier messages stay deleted.
 */
void keybatch_perror(const struct keybatch *b, const char *verb);

#endif
