// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The traceback walk: see traceback.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traceback.h"

struct pstate {
	long *node_of;		/* per router: node index, or -1 */
	uint8_t *asked;		/* per router */
	size_t fstart, fend;	/* the frontier: nodes [fstart, fend) */
	size_t capnodes, capedges;
};

struct walk {
	const struct kb_topo *t;
	const struct tb_packet *p;
	size_t n;
	uint64_t slack;
	const struct tb_backend *b;
	struct tb_result *res;
	struct pstate *ps;
	struct tb_stats *st;
	/* per router: the packets to ask about in this step */
	size_t **pend;
	size_t *npend, *cappend;
	struct tb_item *items;
	char *err;
	size_t errlen;
};

static int oom(struct walk *w)
{
	snprintf(w->err, w->errlen, "out of memory");
	return -1;
}

bool tb_window_overlaps(const struct tb_window *w, uint64_t lo, uint64_t hi)
{
	return w->start <= hi && (!w->end || w->end >= lo);
}

static uint64_t range_lo(const struct walk *w, size_t i)
{
	uint64_t at = w->p[i].at;

	return at > w->slack ? at - w->slack : 0;
}

/*
 * What answer @a says of item @row for packet @i: the newest window of the
 * range holding it (NULL: none) and the router's rate over the range.
 */
static const struct tb_window *judge(const struct walk *w, size_t i,
				     const struct tb_answer *a, size_t row,
				     double *fpr)
{
	const struct tb_window *best = NULL;
	uint64_t lo = range_lo(w, i), hi = w->p[i].at;
	const uint8_t *bits = a->hits + row * a->row;
	double log_clear = 0;	/* log of P(no window gives a false hit) */
	uint32_t j;

	for (j = 0; j < a->nwin; j++) {
		const struct tb_window *win = &a->win[j];

		if (!tb_window_overlaps(win, lo, hi))
			continue;
		/* log1p/expm1: rates of 1e-18 survive, 1 - (1 - p) would be 0 */
		log_clear += log1p(-(win->fpr > 1 ? 1 : win->fpr < 0 ? 0 : win->fpr));
		if (!(bits[j / 8] >> (j % 8) & 1))
			continue;
		if (!best || win->start > best->start)
			best = win;
	}
	*fpr = -expm1(log_clear);
	return best;
}

static int add_node(struct walk *w, size_t i, size_t r, uint32_t depth,
		    const struct tb_window *win, double fpr)
{
	struct tb_result *res = &w->res[i];
	struct pstate *ps = &w->ps[i];
	struct tb_node *nd;

	if (res->nnodes == ps->capnodes) {
		size_t cap = ps->capnodes ? 2 * ps->capnodes : 8;
		void *nn = realloc(res->node, cap * sizeof(*res->node));

		if (!nn)
			return oom(w);
		res->node = nn;
		ps->capnodes = cap;
	}
	nd = &res->node[res->nnodes];
	nd->router = r;
	nd->depth = depth;
	nd->win = *win;
	nd->fpr = fpr;
	ps->node_of[r] = (long)res->nnodes++;
	return 0;
}

static int add_edge(struct walk *w, size_t i, size_t from, size_t to)
{
	struct tb_result *res = &w->res[i];
	struct pstate *ps = &w->ps[i];

	if (res->nedges == ps->capedges) {
		size_t cap = ps->capedges ? 2 * ps->capedges : 8;
		void *ne = realloc(res->edge, cap * sizeof(*res->edge));

		if (!ne)
			return oom(w);
		res->edge = ne;
		ps->capedges = cap;
	}
	res->edge[res->nedges].from = from;
	res->edge[res->nedges].to = to;
	res->nedges++;
	return 0;
}

/* Asks router @r about the packets pending for it; 0 or -1. */
static int ask(struct walk *w, size_t r, struct tb_answer *a)
{
	size_t k, np = w->npend[r];
	char why[512];

	for (k = 0; k < np; k++) {
		const struct tb_packet *p = &w->p[w->pend[r][k]];

		w->items[k].pkt = p->pkt;
		w->items[k].len = p->len;
		w->items[k].ts = p->at;
	}
	memset(a, 0, sizeof(*a));
	why[0] = 0;
	if (w->b->ask(w->b->ctx, r, w->items, np, a, why, sizeof(why))) {
		free(a->win);
		free(a->hits);
		snprintf(w->err, w->errlen, "%s", why);
		return -1;
	}
	if (a->row != (a->nwin + 7) / 8 || (a->nwin && !a->hits)) {
		free(a->win);
		free(a->hits);
		snprintf(w->err, w->errlen,
			 "router %s: a malformed answer (%u windows, rows of %u bytes)",
			 w->t->r[r].name, a->nwin, a->row);
		return -1;
	}
	if (w->st) {
		w->st->questions++;
		if (w->st->per_router)
			w->st->per_router[r]++;
	}
	return 0;
}

/* Step 0: FROM about every packet. */
static int first_step(struct walk *w, size_t from)
{
	const struct tb_window *hit, *oldest = NULL;
	struct tb_answer a;
	size_t i;
	uint32_t j;
	double fpr;

	w->npend[from] = 0;
	for (i = 0; i < w->n; i++) {
		w->pend[from][w->npend[from]++] = i;
		w->ps[i].asked[from] = 1;
	}
	if (ask(w, from, &a))
		return -1;
	if (w->st)
		w->st->steps++;
	for (j = 0; j < a.nwin; j++)
		if (!oldest || a.win[j].start < oldest->start)
			oldest = &a.win[j];
	for (i = 0; i < w->n; i++) {
		struct tb_result *res = &w->res[i];
		uint64_t lo = range_lo(w, i);

		if (oldest) {
			res->oldest = oldest->start;
			res->oldest_id = oldest->id;
		}
		if (oldest && lo < oldest->start &&
		    (oldest->id > 1 || w->p[i].at < oldest->start)) {
			res->status = TB_NOT_TRACEABLE;
			continue;
		}
		hit = judge(w, i, &a, i, &fpr);
		if (!hit) {
			res->status = TB_ABSENT;
			continue;
		}
		res->status = TB_TRACED;
		if (add_node(w, i, from, 0, hit, fpr))
			goto fail;
		w->ps[i].fstart = 0;
		w->ps[i].fend = 1;
	}
	free(a.win);
	free(a.hits);
	return 0;
fail:
	free(a.win);
	free(a.hits);
	return -1;
}

static int pend_add(struct walk *w, size_t r, size_t i)
{
	if (w->npend[r] == w->cappend[r]) {
		size_t cap = 2 * w->cappend[r];
		size_t *np = realloc(w->pend[r], cap * sizeof(*np));

		if (!np)
			return oom(w);
		w->pend[r] = np;
		w->cappend[r] = cap;
	}
	w->pend[r][w->npend[r]++] = i;
	return 0;
}

/* Step @d: returns 1 when something was asked, 0 when done, -1. */
static int step(struct walk *w, uint32_t d)
{
	const struct kb_topo *t = w->t;
	size_t i, r, x, k, any = 0;
	struct tb_answer a;

	for (r = 0; r < t->n; r++)
		w->npend[r] = 0;
	for (i = 0; i < w->n; i++) {
		struct pstate *ps = &w->ps[i];

		if (w->res[i].status != TB_TRACED)
			continue;
		for (x = ps->fstart; x < ps->fend; x++) {
			const struct kb_topo_router *rt =
				&t->r[w->res[i].node[x].router];

			for (k = 0; k < rt->nnbr; k++) {
				size_t c = rt->nbr[k];

				if (ps->asked[c])
					continue;
				ps->asked[c] = 1;
				if (pend_add(w, c, i))
					return -1;
				any++;
			}
		}
		/* The next frontier starts after the current nodes. */
		ps->fstart = ps->fend;
	}
	if (!any)
		return 0;
	if (w->st)
		w->st->steps++;
	for (r = 0; r < t->n; r++) {
		const struct kb_topo_router *rt = &t->r[r];

		if (!w->npend[r])
			continue;
		if (ask(w, r, &a))
			return -1;
		for (k = 0; k < w->npend[r]; k++) {
			const struct tb_window *hit;
			struct tb_result *res;
			size_t node, j;
			double fpr;

			i = w->pend[r][k];
			res = &w->res[i];
			hit = judge(w, i, &a, k, &fpr);
			res->asked++;
			res->expected += fpr;
			if (!hit)
				continue;
			if (add_node(w, i, r, d, hit, fpr))
				goto fail;
			node = res->nnodes - 1;
			for (j = 0; j < rt->nnbr; j++) {
				long y = w->ps[i].node_of[rt->nbr[j]];

				if (y >= 0 && res->node[y].depth + 1 == d &&
				    add_edge(w, i, node, (size_t)y))
					goto fail;
			}
		}
		free(a.win);
		free(a.hits);
	}
	for (i = 0; i < w->n; i++)
		w->ps[i].fend = w->res[i].nnodes;
	return 1;
fail:
	free(a.win);
	free(a.hits);
	return -1;
}

static const struct tb_result *sort_res;

static int by_depth(const void *a, const void *b)
{
	const struct tb_node *x = &sort_res->node[*(const size_t *)a];
	const struct tb_node *y = &sort_res->node[*(const size_t *)b];

	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	if (x->fpr != y->fpr)
		return x->fpr < y->fpr ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int find_ingress(struct walk *w, size_t i)
{
	struct tb_result *res = &w->res[i];
	uint8_t *up;
	size_t e, x;

	if (res->status != TB_TRACED)
		return 0;
	up = calloc(res->nnodes, 1);
	res->ingress = calloc(res->nnodes, sizeof(*res->ingress));
	if (!up || !res->ingress) {
		free(up);
		return oom(w);
	}
	for (e = 0; e < res->nedges; e++)
		up[res->edge[e].to] = 1;
	for (x = 0; x < res->nnodes; x++)
		if (!up[x])
			res->ingress[res->ningress++] = x;
	free(up);
	sort_res = res;
	qsort(res->ingress, res->ningress, sizeof(*res->ingress), by_depth);
	return 0;
}

void tb_results_free(struct tb_result *res, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(res[i].node);
		free(res[i].edge);
		free(res[i].ingress);
		memset(&res[i], 0, sizeof(res[i]));
	}
}

int tb_trace(const struct kb_topo *t, size_t from, const struct tb_packet *p,
	     size_t n, uint64_t slack_ns, const struct tb_backend *b,
	     struct tb_result *res, struct tb_stats *st, char *err,
	     size_t errlen)
{
	struct walk w = {
		.t = t, .p = p, .n = n, .slack = slack_ns, .b = b, .res = res,
		.st = st, .err = err, .errlen = errlen,
	};
	size_t i, r;
	uint32_t d;
	int ret = -1, s;

	memset(res, 0, n * sizeof(*res));
	if (!n)
		return 0;
	if (from >= t->n) {
		snprintf(err, errlen, "no router %zu", from);
		return -1;
	}
	w.ps = calloc(n, sizeof(*w.ps));
	w.pend = calloc(t->n, sizeof(*w.pend));
	w.npend = calloc(t->n, sizeof(*w.npend));
	w.cappend = calloc(t->n, sizeof(*w.cappend));
	w.items = calloc(n, sizeof(*w.items));
	if (!w.ps || !w.pend || !w.npend || !w.cappend || !w.items)
		goto nomem;
	for (r = 0; r < t->n; r++) {
		w.cappend[r] = r == from ? n : 16;
		w.pend[r] = malloc(w.cappend[r] * sizeof(**w.pend));
		if (!w.pend[r])
			goto nomem;
	}
	for (i = 0; i < n; i++) {
		w.ps[i].node_of = malloc(t->n * sizeof(long));
		w.ps[i].asked = calloc(t->n, 1);
		if (!w.ps[i].node_of || !w.ps[i].asked)
			goto nomem;
		for (r = 0; r < t->n; r++)
			w.ps[i].node_of[r] = -1;
	}
	if (first_step(&w, from))
		goto out;
	for (d = 1;; d++) {
		s = step(&w, d);
		if (s < 0)
			goto out;
		if (!s)
			break;
	}
	for (i = 0; i < n; i++)
		if (find_ingress(&w, i))
			goto out;
	ret = 0;
	goto out;
nomem:
	oom(&w);
out:
	if (ret)
		tb_results_free(res, n);
	if (w.ps)
		for (i = 0; i < n; i++) {
			free(w.ps[i].node_of);
			free(w.ps[i].asked);
		}
	if (w.pend)
		for (r = 0; r < t->n; r++)
			free(w.pend[r]);
	free(w.ps);
	free(w.pend);
	free(w.npend);
	free(w.cappend);
	free(w.items);
	return ret;
}
