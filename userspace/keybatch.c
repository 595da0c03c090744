// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "keybatch.h"
#include "util.h"

void keybatch_init(struct keybatch *b, struct kb_nl *nl, uint8_t cmd,
		   const char *name, kb_result_fn result, void *arg)
{
	memset(b, 0, sizeof(*b));
	b->nl = nl;
	b->cmd = cmd;
	b->name = name;
	b->result = result;
	b->arg = arg;
}

static void batch_start(struct keybatch *b)
{
	b->msg = kb_nl_msg(b->nl, b->cmd, 0, KB_MSG_SIZE_KEYS);
	b->hdr = nlmsg_hdr(b->msg);
	kb_put_name(b->msg, b->name);
	b->nest = nla_nest_start(b->msg, KBLOOM_A_KEYS | NLA_F_NESTED);
	if (!b->nest) {
		errorf("internal error: netlink message full");
		exit(EXIT_ERROR);
	}
	b->nkeys = 0;
	b->labels_len = 0;
	if (!b->label_off_cap) {
		b->label_off_cap = 256;
		b->label_off = xrealloc(NULL, b->label_off_cap *
					sizeof(*b->label_off));
	}
	b->label_off[0] = 0;
}

/* Checks NKEYS of a TEST or COUNT reply against the keys sent. */
static int reply_nkeys(struct keybatch *b, struct nlattr **tb,
		       int data_attr, uint32_t *n)
{
	if (!tb[KBLOOM_A_NKEYS] || !tb[data_attr])
		return kb_nl_fail(b->nl, "%s reply without %s",
				  b->cmd == KBLOOM_CMD_TEST ? "test" : "count",
				  kb_attr_name(tb[KBLOOM_A_NKEYS] ? data_attr :
					       KBLOOM_A_NKEYS));
	*n = nla_get_u32(tb[KBLOOM_A_NKEYS]);
	if (*n != b->nkeys)
		return kb_nl_fail(b->nl, "NKEYS is %u, %u keys were sent",
				  *n, b->nkeys);
	return 0;
}

static int report(struct keybatch *b, uint32_t i, uint32_t value)
{
	return b->result(b->arg, b->labels + b->label_off[i],
			 b->label_off[i + 1] - b->label_off[i], value);
}

/* The TEST reply: NKEYS, NPRESENT and the RESULT bitmap. */
static int test_reply(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct keybatch *b = arg;
	const uint8_t *bits;
	uint32_t n, npresent, i, count = 0;
	int r;

	r = reply_nkeys(b, tb, KBLOOM_A_RESULT, &n);
	if (r)
		return r;
	if (!tb[KBLOOM_A_NPRESENT])
		return kb_nl_fail(nl, "test reply without NPRESENT");
	npresent = nla_get_u32(tb[KBLOOM_A_NPRESENT]);
	if ((uint32_t)nla_len(tb[KBLOOM_A_RESULT]) < (n + 7) / 8)
		return kb_nl_fail(nl, "RESULT has %d bytes for %u keys",
				  nla_len(tb[KBLOOM_A_RESULT]), n);
	bits = nla_data(tb[KBLOOM_A_RESULT]);
	for (i = 0; i < n; i++)
		count += bits[i / 8] >> (i % 8) & 1;
	if (count != npresent)
		return kb_nl_fail(nl, "NPRESENT is %u, RESULT has %u bits set",
				  npresent, count);
	for (i = 0; i < n; i++) {
		r = report(b, i, bits[i / 8] >> (i % 8) & 1);
		if (r < 0)
			return r;
	}
	/* Only now: a second reply would be reported as a count mismatch. */
	b->nkeys = 0;
	return 0;
}

/* The COUNT reply: NKEYS and COUNTS, NKEYS u32 in host byte order. */
static int count_reply(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct keybatch *b = arg;
	const uint8_t *data;
	uint32_t n, i, c;
	int r;

	r = reply_nkeys(b, tb, KBLOOM_A_COUNTS, &n);
	if (r)
		return r;
	if ((uint64_t)nla_len(tb[KBLOOM_A_COUNTS]) != (uint64_t)n * 4)
		return kb_nl_fail(nl, "COUNTS has %d bytes for %u keys",
				  nla_len(tb[KBLOOM_A_COUNTS]), n);
	data = nla_data(tb[KBLOOM_A_COUNTS]);
	for (i = 0; i < n; i++) {
		memcpy(&c, data + 4 * i, sizeof(c));
		r = report(b, i, c);
		if (r < 0)
			return r;
	}
	b->nkeys = 0;
	return 0;
}

/*
 * The pipeline: the caller's batch builds messages; a full one is moved
 * (with its labels) into sb, which the sender thread sends with the
 * plain keybatch_flush() while the caller builds the next. One message is
 * in flight at a time, so answers stay in order; after a failure nothing
 * more is sent and sb keeps the failed message for keybatch_perror().
 */
struct kb_pipe {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct keybatch sb;	/* the message in flight; sb.pipe is NULL */
	bool busy;		/* sb holds a message to send */
	bool stop, joined;
	int err;		/* sb's flush failed */
};

static void *sender(void *arg)
{
	struct kb_pipe *p = arg;
	int r;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->busy && !p->stop)
			pthread_cond_wait(&p->cond, &p->lock);
		if (!p->busy)
			break;
		pthread_mutex_unlock(&p->lock);
		r = keybatch_flush(&p->sb);
		pthread_mutex_lock(&p->lock);
		p->err = r;
		p->busy = false;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void keybatch_pipeline(struct keybatch *b)
{
	struct kb_pipe *p = calloc(1, sizeof(*p));

	if (!p || b->reply)
		goto out;
	p->sb = *b;
	p->sb.msg = NULL;
	p->sb.labels = NULL;
	p->sb.label_off = NULL;
	p->sb.labels_cap = p->sb.label_off_cap = 0;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	if (pthread_create(&p->thread, NULL, sender, p)) {
		pthread_cond_destroy(&p->cond);
		pthread_mutex_destroy(&p->lock);
		goto out;
	}
	b->pipe = p;
	return;
out:
	free(p);	/* stays synchronous */
}

/* Waits until nothing is in flight; the sender's error, if any. */
static int pipe_idle(struct kb_pipe *p)
{
	int r;

	pthread_mutex_lock(&p->lock);
	while (p->busy)
		pthread_cond_wait(&p->cond, &p->lock);
	r = p->err;
	pthread_mutex_unlock(&p->lock);
	return r;
}

#define SWAP(a, b) do { typeof(a) t_ = (a); (a) = (b); (b) = t_; } while (0)

/* Hands b's message to the sender; b gets sb's emptied buffers back. */
static int pipe_send(struct keybatch *b)
{
	struct kb_pipe *p = b->pipe;
	struct keybatch *sb = &p->sb;
	int r = pipe_idle(p);

	if (r)
		return r;
	SWAP(b->msg, sb->msg);		/* sb->msg was NULL: sent and freed */
	SWAP(b->hdr, sb->hdr);
	SWAP(b->nest, sb->nest);
	SWAP(b->nkeys, sb->nkeys);
	SWAP(b->labels, sb->labels);
	SWAP(b->labels_len, sb->labels_len);
	SWAP(b->labels_cap, sb->labels_cap);
	SWAP(b->label_off, sb->label_off);
	SWAP(b->label_off_cap, sb->label_off_cap);
	pthread_mutex_lock(&p->lock);
	p->busy = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int keybatch_wait(struct keybatch *b)
{
	struct kb_pipe *p = b->pipe;

	if (!p)
		return 0;
	if (!p->joined) {
		pipe_idle(p);
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
		p->joined = true;
		b->sent = p->sb.sent;
		b->over = p->sb.over;
		b->over_err = p->sb.over_err;
	}
	return p->err;
}

/* The plain flush, or the hand-off to the sender. */
static int send_full(struct keybatch *b)
{
	return b->pipe ? pipe_send(b) : keybatch_flush(b);
}

int keybatch_flush(struct keybatch *b)
{
	uint32_t nkeys = b->nkeys;
	int r;

	if (b->pipe) {
		r = b->msg && nkeys ? pipe_send(b) : 0;
		return keybatch_wait(b) ?: r;
	}

	if (!b->msg)
		return 0;
	if (!nkeys) {
		nlmsg_free(b->msg);
		b->msg = NULL;
		return 0;
	}
	nla_nest_end(b->msg, b->nest);
	r = kb_nl_request(b->nl, b->msg,
			  b->reply ? b->reply :
			  b->cmd == KBLOOM_CMD_TEST ? test_reply :
			  b->cmd == KBLOOM_CMD_COUNT ? count_reply : NULL, b);
	if (!r && (b->reply || b->cmd == KBLOOM_CMD_TEST ||
		   b->cmd == KBLOOM_CMD_COUNT) && b->nkeys)
		r = kb_nl_fail(b->nl, "no %s reply",
			       b->cmd == KBLOOM_CMD_TEST ? "test" :
			       b->cmd == KBLOOM_CMD_COUNT ? "count" : "query");
	/* A scalable filter at its limit: the keys are in, go on. */
	if (r == -ENOSPC && b->cmd == KBLOOM_CMD_ADD) {
		if (!b->over)
			b->over_err = b->nl->error;
		b->over = true;
		r = 0;
	}
	/* Keep msg and labels after a failure, for keybatch_perror(). */
	if (r) {
		b->nkeys = nkeys;
		return r;
	}
	nlmsg_free(b->msg);
	b->msg = NULL;
	b->sent += nkeys;
	return 0;
}

/*
 * Makes room for a key of @size bytes on the wire (attribute header
 * included), sending the batch first when it would not fit.
 */
static int make_room(struct keybatch *b, size_t size)
{
	int r;

	if (b->msg && b->nkeys &&
	    b->hdr->nlmsg_len + size > KB_MSG_SIZE_KEYS) {
		r = send_full(b);
		if (r)
			return r;
	}
	if (!b->msg)
		batch_start(b);
	return 0;
}

/* Records the label of the key just put. */
static void add_label(struct keybatch *b, const char *label, size_t label_len)
{
	if (b->nkeys + 2 > b->label_off_cap) {
		b->label_off_cap *= 2;
		b->label_off = xrealloc(b->label_off, b->label_off_cap *
					sizeof(*b->label_off));
	}
	if (b->labels_len + label_len > b->labels_cap) {
		b->labels_cap = (b->labels_len + label_len) * 2;
		b->labels = xrealloc(b->labels, b->labels_cap);
	}
	memcpy(b->labels + b->labels_len, label, label_len);
	b->labels_len += label_len;
	b->nkeys++;
	b->label_off[b->nkeys] = b->labels_len;
}

/*
 * nla_put() of a KEY at the message's tail, written the way libnl writes
 * it (nlmsg_len is the tail) without its per-call cost, which was a sixth
 * of a bulk load. make_room() has checked that it fits.
 */
static void put_key(struct nlmsghdr *h, const uint8_t *key, size_t len)
{
	size_t total = NLA_ALIGN(NLA_HDRLEN + len);
	char *tail = (char *)h + NLMSG_ALIGN(h->nlmsg_len);
	struct nlattr a = {
		.nla_len = NLA_HDRLEN + len,
		.nla_type = KBLOOM_KEYS_A_KEY,
	};
	uint32_t zero = 0;

	/* The padding (0-3 bytes) zeroed first; the key then overwrites. */
	memcpy(tail + total - sizeof(zero), &zero, sizeof(zero));
	memcpy(tail, &a, sizeof(a));
	memcpy(tail + NLA_HDRLEN, key, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + total;
}

int keybatch_add(struct keybatch *b, const uint8_t *key, size_t len,
		 const char *label, size_t label_len)
{
	int r = make_room(b, NLA_ALIGN(NLA_HDRLEN + len));

	if (r)
		return r;
	put_key(b->hdr, key, len);
	add_label(b, label, label_len);
	return 0;
}

int keybatch_add_tuple(struct keybatch *b, const struct kp_tuple *t,
		       const char *label, size_t label_len)
{
	size_t size = NLA_HDRLEN;
	struct nlattr *nest;
	unsigned int d;
	int r;

	for (d = 0; d < KBLOOM_DIMS_MAX; d++)
		if (t->mask & (1U << d))
			size += nla_total_size(t->len[d]);
	r = make_room(b, size);
	if (r)
		return r;
	nest = nla_nest_start(b->msg, KBLOOM_KEYS_A_TUPLE | NLA_F_NESTED);
	if (!nest)
		kb_nl_full();
	/* Attribute type = the 1-based dimension number. */
	for (d = 0; d < KBLOOM_DIMS_MAX; d++)
		if ((t->mask & (1U << d)) &&
		    nla_put(b->msg, d + 1, t->len[d], t->val[d]) < 0)
			kb_nl_full();
	nla_nest_end(b->msg, nest);
	add_label(b, label, label_len);
	return 0;
}

void keybatch_free(struct keybatch *b)
{
	if (b->pipe) {
		keybatch_wait(b);
		keybatch_free(&b->pipe->sb);
		pthread_cond_destroy(&b->pipe->cond);
		pthread_mutex_destroy(&b->pipe->lock);
		free(b->pipe);
	}
	if (b->msg)
		nlmsg_free(b->msg);
	free(b->labels);
	free(b->label_off);
	memset(b, 0, sizeof(*b));
}

void keybatch_perror(const struct keybatch *b, const char *verb)
{
	struct kb_nl_error *e = &b->nl->error;

	/* The sender's failed message, with the labels of its keys. */
	if (b->pipe && b->pipe->err)
		b = &b->pipe->sb;
	const char *prep = b->cmd == KBLOOM_CMD_ADD ? "to" :
			   b->cmd == KBLOOM_CMD_DEL ? "from" : "in";
	char earlier[96] = "";

	if (b->cmd == KBLOOM_CMD_DEL && b->sent)
		snprintf(earlier, sizeof(earlier),
			 " (the %llu keys of earlier messages stay deleted)",
			 (unsigned long long)b->sent);
	if (b->msg && e->attr == KBLOOM_A_KEYS && e->nest_index >= 0 &&
	    (uint32_t)e->nest_index < b->nkeys) {
		size_t i = e->nest_index;

		/* ENOENT on a key is not "No such file or directory". */
		if (b->cmd == KBLOOM_CMD_DEL && e->err == ENOENT && !e->why[0])
			snprintf(e->why, sizeof(e->why),
				 "not in the filter (certainly absent)");
		kb_nl_perror(b->nl, "unable to %s key '%s' %s filter '%s'%s",
			     verb, quote_mem(b->labels + b->label_off[i],
					     b->label_off[i + 1] -
					     b->label_off[i]),
			     prep, quote(b->name), earlier);
		return;
	}
	kb_nl_perror(b->nl, "unable to %s keys %s filter '%s'%s", verb, prep,
		     quote(b->name), earlier);
}
