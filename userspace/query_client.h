/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The client of KBLOOM_CMD_QUERY, for 'bloomctl query' and the netns
 * backend of 'bloomctl trace': keys (packet digests) are queued, each for
 * an item of the caller (a packet), and sent in batches (keybatch.c);
 * every reply (NKEYS, WINDOW_LIST, WINDOW_HITS) is checked and gives each
 * item the IDs of the windows holding its key. The windows of every
 * reply are merged by ID, as a rotation may happen between two messages.
 */
#ifndef BLOOMCTL_QUERY_CLIENT_H
#define BLOOMCTL_QUERY_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "describe.h"
#include "keybatch.h"

struct kb_query_client {
	/* keybatch_perror(&c->batch, VERB) after a failed add or flush */
	struct keybatch batch;

	/* Every window reported (and those noted by the caller), by ID. */
	struct kb_window_desc *win;
	size_t nwin, cap_win;
	/*
	 * The start of the oldest window every key was asked of: the
	 * latest of the replies' oldest starts (0 before any reply).
	 */
	uint64_t oldest;

	/* private */
	size_t *pending;	/* items of the message being filled */
	size_t npending, cap_pending;
	uint64_t **ids;		/* per item: IDs of the windows holding it */
	uint32_t *nids;
	size_t nitems;		/* room in ids and nids */
	struct kb_window_desc reply_win[KBLOOM_WINDOWS_MAX];
};

/* Asks filter @name over @nl, which stays the caller's. */
void kb_query_client_init(struct kb_query_client *c, struct kb_nl *nl,
			  const char *name);

/*
 * Queues @key (labelled @label in error messages) for item @item; a full
 * batch is sent and answered first. 0 or a negative errno.
 */
int kb_query_client_add(struct kb_query_client *c, size_t item,
			const uint8_t *key, size_t len, const char *label,
			size_t label_len);
/* The same for a tuple of a multi filter. */
int kb_query_client_add_tuple(struct kb_query_client *c, size_t item,
			      const struct kp_tuple *t, const char *label,
			      size_t label_len);

/* Sends what is queued and takes its answers. 0 or a negative errno. */
int kb_query_client_flush(struct kb_query_client *c);

/*
 * The IDs of the windows holding item @item's key, *@n of them (none
 * for an item never queued), as the replies listed them.
 */
const uint64_t *kb_query_client_hits(const struct kb_query_client *c,
				     size_t item, uint32_t *n);

void kb_query_client_free(struct kb_query_client *c);

#endif
