// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * KBLOOM_CMD_QUERY: the keys go out in batches (keybatch.c, one message
 * answered before the next is sent); the reply to a message of N keys
 * holds NKEYS = N, the filter's WINDOW_LIST at the time, and WINDOW_HITS,
 * one row of ceil(W/8) bytes per key, bit j set when window j holds it.
 */
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "query_client.h"
#include "util.h"

/*
 * Checks a QUERY reply for @nkeys keys: NKEYS, WINDOW_LIST (parsed into
 * @win, *@nwin windows) and WINDOW_HITS, a row of *@row bytes per key, bit
 * j set when window j holds the key (*@hits). 0 or -EPROTO (kb_nl_fail).
 */
static int reply_parse(struct kb_nl *nl, struct nlattr **tb, uint32_t nkeys,
		       struct kb_window_desc *win, uint32_t *nwin,
		       const uint8_t **hits, uint32_t *row)
{
	uint32_t n;
	int r;

	if (!tb[KBLOOM_A_NKEYS] || !tb[KBLOOM_A_WINDOW_LIST] ||
	    !tb[KBLOOM_A_WINDOW_HITS])
		return kb_nl_fail(nl, "query reply without %s",
				  !tb[KBLOOM_A_NKEYS] ? "NKEYS" :
				  !tb[KBLOOM_A_WINDOW_LIST] ? "WINDOW_LIST" :
				  "WINDOW_HITS");
	n = nla_get_u32(tb[KBLOOM_A_NKEYS]);
	if (n != nkeys)
		return kb_nl_fail(nl, "NKEYS is %u, %u keys were sent", n, nkeys);
	r = kb_windows_parse(nl, tb[KBLOOM_A_WINDOW_LIST], win, nwin);
	if (r)
		return r;
	if (!*nwin)
		return kb_nl_fail(nl, "empty WINDOW_LIST");
	*row = (*nwin + 7) / 8;
	if ((uint64_t)nla_len(tb[KBLOOM_A_WINDOW_HITS]) != (uint64_t)n * *row)
		return kb_nl_fail(nl, "WINDOW_HITS has %d bytes for %u keys and %u windows",
				  nla_len(tb[KBLOOM_A_WINDOW_HITS]), n, *nwin);
	*hits = nla_data(tb[KBLOOM_A_WINDOW_HITS]);
	return 0;
}

static int query_reply(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct keybatch *b = arg;
	struct kb_query_client *c = b->arg;
	uint32_t nwin, row = 0, i, j;
	const uint8_t *hits = NULL;
	uint64_t first;
	int r;

	if (c->npending != b->nkeys)
		return kb_nl_fail(nl, "internal error: %zu packets pending, %u keys sent",
				  (size_t)c->npending, b->nkeys);
	r = reply_parse(nl, tb, b->nkeys, c->reply_win, &nwin, &hits, &row);
	if (r)
		return r;
	first = UINT64_MAX;
	for (j = 0; j < nwin; j++) {
		kb_window_note(&c->win, &c->nwin, &c->cap_win, &c->reply_win[j]);
		if (c->reply_win[j].start < first)
			first = c->reply_win[j].start;
	}
	if (first > c->oldest)
		c->oldest = first;
	for (i = 0; i < b->nkeys; i++) {
		size_t it = c->pending[i];
		const uint8_t *bits = hits + (size_t)i * row;

		for (j = 0; j < nwin; j++) {
			if (!(bits[j / 8] >> (j % 8) & 1))
				continue;
			c->ids[it] = xrealloc(c->ids[it], (c->nids[it] + 1) *
					      sizeof(**c->ids));
			c->ids[it][c->nids[it]++] = c->reply_win[j].id;
		}
	}
	c->npending = 0;
	b->nkeys = 0;
	return 0;
}

void kb_query_client_init(struct kb_query_client *c, struct kb_nl *nl,
			  const char *name)
{
	memset(c, 0, sizeof(*c));
	keybatch_init(&c->batch, nl, KBLOOM_CMD_QUERY, name, NULL, c);
	c->batch.reply = query_reply;
}

/* Item @item's key went into the message being filled. */
static void note_pending(struct kb_query_client *c, size_t item)
{
	size_t n;

	if (item >= c->nitems) {
		n = c->nitems ? 2 * c->nitems : 256;
		while (n <= item)
			n *= 2;
		c->ids = xrealloc(c->ids, n * sizeof(*c->ids));
		c->nids = xrealloc(c->nids, n * sizeof(*c->nids));
		memset(c->ids + c->nitems, 0,
		       (n - c->nitems) * sizeof(*c->ids));
		memset(c->nids + c->nitems, 0,
		       (n - c->nitems) * sizeof(*c->nids));
		c->nitems = n;
	}
	if (c->npending == c->cap_pending) {
		c->cap_pending = c->cap_pending ? 2 * c->cap_pending : 256;
		c->pending = xrealloc(c->pending,
				      c->cap_pending * sizeof(*c->pending));
	}
	c->pending[c->npending++] = item;
}

int kb_query_client_add(struct kb_query_client *c, size_t item,
			const uint8_t *key, size_t len, const char *label,
			size_t label_len)
{
	/* A full batch is sent (and answered) before this key goes in. */
	int r = keybatch_add(&c->batch, key, len, label, label_len);

	if (!r)
		note_pending(c, item);
	return r;
}

int kb_query_client_add_tuple(struct kb_query_client *c, size_t item,
			      const struct kp_tuple *t, const char *label,
			      size_t label_len)
{
	int r = keybatch_add_tuple(&c->batch, t, label, label_len);

	if (!r)
		note_pending(c, item);
	return r;
}

int kb_query_client_flush(struct kb_query_client *c)
{
	return keybatch_flush(&c->batch);
}

const uint64_t *kb_query_client_hits(const struct kb_query_client *c,
				     size_t item, uint32_t *n)
{
	if (item >= c->nitems) {
		*n = 0;
		return NULL;
	}
	*n = c->nids[item];
	return c->ids[item];
}

void kb_query_client_free(struct kb_query_client *c)
{
	size_t i;

	keybatch_free(&c->batch);
	for (i = 0; i < c->nitems; i++)
		free(c->ids[i]);
	free(c->ids);
	free(c->nids);
	free(c->pending);
	free(c->win);
	c->ids = NULL;
	c->nids = NULL;
	c->pending = NULL;
	c->win = NULL;
	c->nitems = c->npending = c->nwin = c->cap_win = 0;
}
