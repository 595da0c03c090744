// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The DOT picture of 'bloomctl trace' (trace_dot.h; docs/trace.md, "The
 * attack as a picture").
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_dot.h"

#define WINS_SHOWN	4	/* window IDs named in a label, then "..." */

/* What the results say about one router. */
struct rinfo {
	size_t seen;		/* packets whose graph holds it, seen */
	bool unknown;		/* an unknown node on some path */
	bool unknown_next;	/* unknown next to some path */
	size_t ingress;		/* packets it is an ingress of */
	uint64_t *win;		/* distinct window IDs, ascending */
	size_t nwin;
	double fpr_min, fpr_max;
	const char *xf;		/* the first transforms text met */
	size_t nxf;		/* packets with transforms undone here */
	size_t *up;		/* per neighbour k: packets that came from it
				 * (edge nbr[k] -> this router) */
};

void trace_dot_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static int add_window(struct rinfo *ri, uint64_t id)
{
	size_t i;
	uint64_t *nw;

	for (i = 0; i < ri->nwin && ri->win[i] < id; i++)
		;
	if (i < ri->nwin && ri->win[i] == id)
		return 0;
	nw = realloc(ri->win, (ri->nwin + 1) * sizeof(*nw));
	if (!nw)
		return -1;
	ri->win = nw;
	memmove(&nw[i + 1], &nw[i], (ri->nwin - i) * sizeof(*nw));
	nw[i] = id;
	ri->nwin++;
	return 0;
}

static int collect(const struct kb_topo *t, struct rinfo *ri,
		   const struct tb_result *r)
{
	size_t i, k;

	for (i = 0; i < r->nnodes; i++) {
		const struct tb_node *nd = &r->node[i];
		struct rinfo *x = &ri[nd->router];

		if (nd->unknown) {
			x->unknown = true;
			continue;
		}
		if (add_window(x, nd->win.id))
			return -1;
		if (!x->seen || nd->fpr < x->fpr_min)
			x->fpr_min = nd->fpr;
		if (!x->seen || nd->fpr > x->fpr_max)
			x->fpr_max = nd->fpr;
		x->seen++;
		if (nd->xf) {
			if (!x->xf)
				x->xf = nd->xf;
			x->nxf++;
		}
	}
	for (i = 0; i < r->nedges; i++) {
		size_t a = r->node[r->edge[i].from].router;
		size_t b = r->node[r->edge[i].to].router;

		for (k = 0; k < t->r[b].nnbr; k++)
			if (t->r[b].nbr[k] == a)
				ri[b].up[k]++;
	}
	for (i = 0; i < r->ningress; i++)
		ri[r->node[r->ingress[i]].router].ingress++;
	for (i = 0; i < r->nunknown; i++)
		ri[r->unknown[i]].unknown_next = true;
	return 0;
}

/* Hops from @from to every router (SIZE_MAX: not connected). */
static int hops(const struct kb_topo *t, size_t from, size_t *d)
{
	size_t *q, head = 0, tail = 0, i, k;

	q = malloc(t->n * sizeof(*q));
	if (!q)
		return -1;
	for (i = 0; i < t->n; i++)
		d[i] = SIZE_MAX;
	d[from] = 0;
	q[tail++] = from;
	while (head < tail) {
		i = q[head++];
		for (k = 0; k < t->r[i].nnbr; k++) {
			size_t j = t->r[i].nbr[k];

			if (d[j] == SIZE_MAX) {
				d[j] = d[i] + 1;
				q[tail++] = j;
			}
		}
	}
	free(q);
	return 0;
}

/* A label's text, grown with lines. */
struct text {
	char *s;
	size_t len;
	bool failed;
};

static void __attribute__((format(printf, 2, 3)))
line(struct text *tx, const char *fmt, ...)
{
	va_list ap;
	char *ns;
	int n;

	if (tx->failed)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	ns = n < 0 ? NULL : realloc(tx->s, tx->len + n + 2);
	if (!ns) {
		tx->failed = true;
		return;
	}
	tx->s = ns;
	if (tx->len)
		tx->s[tx->len++] = '\n';
	va_start(ap, fmt);
	vsnprintf(tx->s + tx->len, n + 1, fmt, ap);
	va_end(ap);
	tx->len += n;
}

static const char *reason(char *const *why, size_t r)
{
	return why && why[r] ? why[r] : "not asked";
}

/* The label of router @r: 0, or -1 when out of memory. */
static int node_label(FILE *f, const struct kb_topo *t, size_t r,
		      size_t from, const struct rinfo *x, size_t ntraced,
		      char *const *why)
{
	struct text tx = { 0 };
	char wins[128];
	size_t i, o;

	line(&tx, "%s", t->r[r].name);
	if (r == from)
		line(&tx, "from (next to the victim)");
	if (x->seen) {
		o = 0;
		for (i = 0; i < x->nwin && i < WINS_SHOWN; i++)
			o += snprintf(wins + o, sizeof(wins) - o, "%s%llu",
				      i ? ", " : "",
				      (unsigned long long)x->win[i]);
		if (x->nwin > WINS_SHOWN)
			snprintf(wins + o, sizeof(wins) - o, ", ...");
		if (x->fpr_min == x->fpr_max)
			line(&tx, "window%s %s, fpr %.3g",
			     x->nwin > 1 ? "s" : "", wins, x->fpr_max);
		else
			line(&tx, "windows %s, fpr up to %.3g", wins,
			     x->fpr_max);
		if (ntraced > 1)
			line(&tx, "%zu of %zu packets", x->seen, ntraced);
		if (x->xf && ntraced == 1) {
			const char *p = x->xf, *e;

			/* one transform a line ("; "-joined) */
			for (; (e = strstr(p, "; ")); p = e + 2)
				line(&tx, "%.*s", (int)(e - p), p);
			line(&tx, "%s", p);
		} else if (x->nxf) {
			line(&tx, "transforms undone: %zu packet%s", x->nxf,
			     x->nxf == 1 ? "" : "s");
		}
		if (x->ingress)
			line(&tx, ntraced > 1 ? "ingress of %zu" : "ingress",
			     x->ingress);
	} else if (x->unknown) {
		line(&tx, "unknown: %s", reason(why, r));
	} else if (x->unknown_next) {
		line(&tx, "unknown next to the path: %s", reason(why, r));
	}
	if (tx.failed) {
		free(tx.s);
		return -1;
	}
	fputs(" [label=", f);
	trace_dot_quote(f, tx.s);
	free(tx.s);
	return 0;
}

/*
 * The routers the walk asked about some packet, the only ones drawn: FROM,
 * every router of a graph (seen or unknown), and their neighbours (the
 * walk asks each neighbour of a node; an unknown one's are asked in its
 * place). A trace over thousands of routers asks few of them.
 */
static size_t asked_routers(const struct kb_topo *t, size_t from,
			    const struct rinfo *ri, bool *drawn)
{
	size_t i, k, left = t->n;

	drawn[from] = true;
	for (i = 0; i < t->n; i++) {
		if (!ri[i].seen && !ri[i].unknown && !ri[i].unknown_next)
			continue;
		drawn[i] = true;
		for (k = 0; k < t->r[i].nnbr; k++)
			drawn[t->r[i].nbr[k]] = true;
	}
	for (i = 0; i < t->n; i++)
		left -= drawn[i];
	return left;
}

static void edge(FILE *f, const struct kb_topo *t, size_t a, size_t b)
{
	fputs("  ", f);
	trace_dot_quote(f, t->r[a].name);
	fputs(" -> ", f);
	trace_dot_quote(f, t->r[b].name);
}

int trace_dot_write(FILE *f, const struct kb_topo *t, size_t from,
		    const struct tb_result *const *res, size_t n,
		    char *const *why, const char *title)
{
	struct text label = { 0 };
	size_t *d = NULL, i, k, ntraced = 0, left, left_links = 0;
	bool *drawn = NULL;
	struct rinfo *ri;
	int ret = -1;

	ri = calloc(t->n ? t->n : 1, sizeof(*ri));
	if (!ri)
		return -1;
	for (i = 0; i < t->n; i++) {
		ri[i].up = calloc(t->r[i].nnbr ? t->r[i].nnbr : 1,
				  sizeof(*ri[i].up));
		if (!ri[i].up)
			goto out;
	}
	d = malloc((t->n ? t->n : 1) * sizeof(*d));
	if (!d || hops(t, from, d))
		goto out;
	for (i = 0; i < n; i++) {
		if (res[i]->status == TB_TRACED)
			ntraced++;
		if (collect(t, ri, res[i]))
			goto out;
	}
	drawn = calloc(t->n ? t->n : 1, sizeof(*drawn));
	if (!drawn)
		goto out;
	left = asked_routers(t, from, ri, drawn);
	for (i = 0; i < t->n; i++)
		for (k = 0; k < t->r[i].nnbr; k++)
			left_links += t->r[i].nbr[k] > i &&
				      (!drawn[i] || !drawn[t->r[i].nbr[k]]);
	if (title)
		line(&label, "%s", title);
	if (left)
		line(&label, "%zu of %zu routers and %zu links not drawn: not asked",
		     left, t->n, left_links);
	if (label.failed)
		goto out;

	fputs("digraph trace {\n"
	      "  rankdir=BT;\n"
	      "  nodesep=0.35;\n"
	      "  ranksep=0.45;\n", f);
	if (label.s) {
		fputs("  labelloc=t;\n  fontname=\"Helvetica\";\n"
		      "  fontsize=14;\n  label=", f);
		trace_dot_quote(f, label.s);
		fputs(";\n", f);
	}
	fputs("  node [shape=box, style=rounded, fontname=\"Helvetica\", fontsize=11, color=grey70, fontcolor=grey55];\n"
	      "  edge [dir=none, color=grey80, fontname=\"Helvetica\", fontsize=10];\n",
	      f);
	for (i = 0; i < t->n; i++) {
		const struct rinfo *x = &ri[i];

		if (!drawn[i])
			continue;
		fputs("  ", f);
		trace_dot_quote(f, t->r[i].name);
		if (node_label(f, t, i, from, x, ntraced, why))
			goto out;
		if (x->seen && x->ingress)
			fputs(", style=\"rounded,filled\", fillcolor=\"#f4cccc\", color=\"#cc0000\", fontcolor=black, peripheries=2, group=path",
			      f);
		else if (x->seen)
			fputs(", color=black, fontcolor=black, group=path", f);
		else if (x->unknown || x->unknown_next)
			fputs(", style=\"rounded,dashed\", color=\"#e69138\", fontcolor=\"#b45f06\"",
			      f);
		if (i == from)
			fputs(", penwidth=2.5", f);
		fputs("];\n", f);
	}
	/* Each link once (i < j), as the routers list their neighbours. */
	for (i = 0; i < t->n; i++) {
		for (k = 0; k < t->r[i].nnbr; k++) {
			size_t j = t->r[i].nbr[k], kj, a, b, dir;
			size_t cnt[2];

			if (j <= i || !drawn[i] || !drawn[j])
				continue;
			for (kj = 0; t->r[j].nbr[kj] != i; kj++)
				;
			cnt[0] = ri[i].up[k];	/* j -> i */
			cnt[1] = ri[j].up[kj];	/* i -> j */
			if (!cnt[0] && !cnt[1]) {
				/* grey: from the farther router to the nearer */
				a = d[i] > d[j] ? i : j;
				b = a == i ? j : i;
				edge(f, t, a, b);
				fputs(d[i] == d[j] ? " [constraint=false];\n" :
				      ";\n", f);
				continue;
			}
			for (dir = 0; dir < 2; dir++) {
				if (!cnt[dir])
					continue;
				a = dir ? i : j;
				b = dir ? j : i;
				edge(f, t, a, b);
				fputs(" [dir=forward, color=\"#cc0000\", penwidth=2.5", f);
				if (ntraced > 1)
					fprintf(f, ", label=\" %zu\", fontcolor=\"#cc0000\"",
						cnt[dir]);
				fputs("];\n", f);
			}
		}
	}
	fputs("}\n", f);
	ret = fflush(f) || ferror(f) ? -1 : 0;
	if (ret && !errno)
		errno = EIO;
out:
	for (i = 0; i < t->n; i++) {
		free(ri[i].win);
		free(ri[i].up);
	}
	free(label.s);
	free(drawn);
	free(ri);
	free(d);
	return ret;
}
