// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * 'bloomctl trace' backend for routers in a network namespace of this
 * machine: a generic netlink socket is opened inside the namespace (setns
 * to /run/netns/NAME and back: a socket stays in the namespace it was
 * created in), the filter is described once (GET: type, m, k, its digest
 * mode), then each question is one KBLOOM_CMD_QUERY of all its packets'
 * digests, asked by query_client.c (split into messages, the windows of
 * every reply merged by ID: a rotation may happen between two messages).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netlink/genl/genl.h>

#include "describe.h"
#include "digestfmt.h"
#include "pktfmt.h"
#include "query_client.h"
#include "trace_backend.h"
#include "types.h"
#include "util.h"
#include "xlate_read.h"

struct netns_state {
	struct kb_nl nl;
	struct kb_desc desc;
	uint32_t mode;		/* enum kbloom_digest */
	char what[160];		/* "router r2 (netns r2)" */
};

static void netns_free(struct netns_state *s)
{
	if (!s)
		return;
	kb_nl_close(&s->nl);
	free(s);
}

/* Opens @s->nl inside @netns (NULL: here). 0 or -1 (printed or in @err). */
static int open_in(struct netns_state *s, const char *netns, char *err,
		   size_t errlen)
{
	char path[300];
	int self, fd, r;

	if (!netns)
		return kb_nl_open(&s->nl, NULL);
	if (!*netns || strchr(netns, '/') || strlen(netns) > 255) {
		snprintf(err, errlen, "%s: invalid network namespace name",
			 s->what);
		return -1;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	/* this thread's: the walk may ask from several threads at once */
	self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		snprintf(err, errlen, "%s: unable to open /proc/thread-self/ns/net: %s",
			 s->what, strerror(errno));
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: unable to open network namespace '%s' (%s): %s",
			 s->what, netns, path, strerror(errno));
		close(self);
		return -1;
	}
	if (setns(fd, CLONE_NEWNET) < 0) {
		snprintf(err, errlen, "%s: unable to enter network namespace '%s': %s",
			 s->what, netns, strerror(errno));
		close(fd);
		close(self);
		return -1;
	}
	close(fd);
	r = kb_nl_open(&s->nl, NULL);
	if (setns(self, CLONE_NEWNET) < 0) {
		/* Every later router would be asked in the wrong place. */
		errorf("unable to return to the original network namespace: %s",
		       strerror(errno));
		exit(EXIT_ERROR);
	}
	close(self);
	return r;
}

static int setup(void **state, const struct kb_topo_router *r,
		 const char *default_netns, char *err, size_t errlen)
{
	const char *netns = r->netns ? r->netns : default_netns;
	struct netns_state *s;
	struct kb_desc *d;

	s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(s->what, sizeof(s->what), "router %s (netns %s)", r->name,
		 netns ? netns : "-");
	if (open_in(s, netns, err, errlen)) {
		free(s);
		return -1;
	}
	d = &s->desc;
	if (kb_desc_get(&s->nl, r->filter, d)) {
		char why[1200];

		kb_nl_strerror(&s->nl, why, sizeof(why));
		snprintf(err, errlen, "%s: unable to read filter '%s': %s",
			 s->what, r->filter, why);
		netns_free(s);
		return -1;
	}
	if (kb_utype_tuples(d->p.type)) {
		snprintf(err, errlen, "%s: filter '%s' is a multi filter: trace needs single-key digests (spie)",
			 s->what, r->filter);
		netns_free(s);
		return -1;
	}
	s->mode = KBLOOM_DIGEST_SPIE;
	if (d->have & KB_HAVE_ATTACH) {
		s->mode = d->attach.digest;
		if (s->mode < 1 || s->mode > KBLOOM_DIGEST_MAX ||
		    s->mode == KBLOOM_DIGEST_MULTI) {
			snprintf(err, errlen, "%s: filter '%s' is attached with digest mode %s, which trace cannot ask",
				 s->what, r->filter, kb_digest_str(s->mode));
			netns_free(s);
			return -1;
		}
	}
	*state = s;
	return 0;
}

static int netns_ask(struct trace_backends *b, size_t ri,
		     const struct tb_item *items, size_t n,
		     struct tb_answer *a, char *err, size_t errlen)
{
	const struct kb_topo_router *r = &b->t->r[ri];
	void **state = &b->state[ri];
	char label[KB_DIGEST_STR_MAX], verb[200];
	struct kb_query_client q;
	struct netns_state *s;
	const uint64_t *ids;
	struct kb_digest d;
	uint32_t h, nids;
	size_t i, j;
	int ret = -1;

	if (!*state && setup(state, r, b->default_netns, err, errlen))
		return -1;
	s = *state;
	snprintf(verb, sizeof(verb), "ask %s about", s->what);
	kb_query_client_init(&q, &s->nl, r->filter);
	for (i = 0; i < n; i++) {
		if (kb_digest(items[i].pkt, items[i].len, s->mode, &d))
			continue;	/* no digest in this mode: held nowhere */
		kb_digest_fmt(&d, s->mode, label, sizeof(label));
		if (kb_query_client_add(&q, i, d.key, d.len, label,
					strlen(label))) {
			keybatch_perror(&q.batch, verb);
			goto out;
		}
	}
	if (kb_query_client_flush(&q)) {
		keybatch_perror(&q.batch, verb);
		goto out;
	}
	/* Nothing asked: the windows GET saw (a reply lists them again). */
	if (!q.nwin)
		for (h = 0; h < s->desc.nwin; h++)
			kb_window_note(&q.win, &q.nwin, &q.cap_win,
				       &s->desc.win[h]);
	if (trace_answer_alloc(a, q.nwin, n)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (s->desc.have & KB_HAVE_ATTACH)
		trace_bypass_bits(a, s->desc.attach.bypass);
	for (j = 0; j < q.nwin; j++) {
		struct tb_window *w = &a->win[j];

		w->id = q.win[j].id;
		w->start = q.win[j].start;
		w->end = q.win[j].end;
		w->packets = q.win[j].packets;
		w->fill = q.win[j].fill;
		w->fpr = trace_window_fpr(&s->desc.p, w->fill);
	}
	for (i = 0; i < n; i++) {
		ids = kb_query_client_hits(&q, i, &nids);
		for (h = 0; h < nids; h++)
			for (j = 0; j < q.nwin; j++)
				if (q.win[j].id == ids[h])
					a->hits[i * a->row + j / 8] |=
						1 << (j % 8);
	}
	ret = 0;
out:
	kb_query_client_free(&q);
	return ret;
}

static int netns_xlate(struct trace_backends *b, size_t ri,
		       struct kb_archive **out, char *err, size_t errlen)
{
	const struct kb_topo_router *r = &b->t->r[ri];
	void **state = &b->state[ri];
	struct netns_state *s;
	char why[1024];

	if (!*state && setup(state, r, b->default_netns, err, errlen))
		return -1;
	s = *state;
	if (kb_xlate_load(&s->nl, r->transforms, out, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", s->what, why);
		return -1;
	}
	return 0;
}

static void netns_close(struct trace_backends *b, size_t r)
{
	netns_free(b->state[r]);
}

const struct trace_backend_ops trace_netns_ops = {
	.ask = netns_ask,
	.xlate = netns_xlate,
	.close = netns_close,
};
