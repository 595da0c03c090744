// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The backends of 'bloomctl trace' behind one tb_backend: see
 * trace_backend.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cardinality.h"
#include "trace_backend.h"

double trace_window_fpr(const struct kb_params *p, uint64_t fill)
{
	double f = card_fpr_now(p, fill);

	if (!(f >= 0))		/* NaN */
		return 1;
	return f > 1 ? 1 : f;
}

int trace_answer_alloc(struct tb_answer *a, uint32_t nwin, size_t n)
{
	a->nwin = nwin;
	a->row = (nwin + 7) / 8;
	a->win = calloc(nwin ? nwin : 1, sizeof(*a->win));
	a->hits = calloc(n * a->row + 1, 1);
	if (!a->win || !a->hits) {
		free(a->win);
		free(a->hits);
		a->win = NULL;
		a->hits = NULL;
		return -1;
	}
	return 0;
}

int trace_backends_init(struct trace_backends *b, const struct kb_topo *t,
			const char *default_netns)
{
	memset(b, 0, sizeof(*b));
	b->t = t;
	b->default_netns = default_netns;
	b->state = calloc(t->n, sizeof(*b->state));
	b->ssh_calls = calloc(t->n, sizeof(*b->ssh_calls));
	if (!b->state || !b->ssh_calls) {
		free(b->state);
		free(b->ssh_calls);
		return -1;
	}
	return 0;
}

void trace_backends_free(struct trace_backends *b)
{
	size_t i;

	if (!b->state)
		return;
	for (i = 0; i < b->t->n; i++) {
		if (!b->state[i])
			continue;
		if (b->t->r[i].kind == KB_TOPO_NETNS)
			trace_netns_free(b->state[i]);
		else if (b->t->r[i].kind == KB_TOPO_ARCHIVE)
			trace_archive_free(b->state[i]);
	}
	free(b->state);
	free(b->ssh_calls);
	memset(b, 0, sizeof(*b));
}

int trace_backends_ask(void *ctx, size_t r, const struct tb_item *items,
		       size_t n, struct tb_answer *a, char *err,
		       size_t errlen)
{
	struct trace_backends *b = ctx;
	const struct kb_topo_router *rt = &b->t->r[r];

	switch (rt->kind) {
	case KB_TOPO_NETNS:
		return trace_netns_ask(&b->state[r], rt, b->default_netns,
				       items, n, a, err, errlen);
	case KB_TOPO_ARCHIVE:
		return trace_archive_ask(&b->state[r], rt, items, n, a, err,
					 errlen);
	case KB_TOPO_SSH:
		b->ssh_calls[r]++;
		return trace_ssh_ask(rt, items, n, a, err, errlen);
	}
	snprintf(err, errlen, "router %s: unknown kind", rt->name);
	return -1;
}
