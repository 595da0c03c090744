// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * 'bloomctl trace' backend for routers whose tables are an archive
 * directory (DIR/FILTER.<window id>.kbf, written by 'bloomctl archive'):
 * the windows are loaded once per trace into engine filters
 * (archive_read.h) and asked offline; no kernel needed. The digest mode
 * is the one the newest window was recorded with (spie when none).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive_read.h"
#include "digestfmt.h"
#include "pktfmt.h"
#include "trace_backend.h"
#include "types.h"

struct archive_state {
	struct kb_archive *a;
	uint32_t mode;
	double *fpr;		/* per window */
	uint64_t *fill;
};

static void archive_free(struct archive_state *s)
{
	if (!s)
		return;
	kb_archive_close(s->a);
	free(s->fpr);
	free(s->fill);
	free(s);
}

/* The shape sizing.c's rates take: counters of counting and stable only. */
static void params_of(const struct kb_shape *sh, struct kb_shape *p)
{
	*p = *sh;
	if (!kb_type_takes(sh->type, KB_TAKES_COUNTER_BITS))
		p->cell_bits = 0;
	p->capacity = 0;
	p->growth = 0;
	p->tighten = 0;
}

static int setup(void **state, const struct kb_topo_router *r, char *err,
		 size_t errlen)
{
	struct archive_state *s = calloc(1, sizeof(*s));
	char why[400];
	size_t j;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (kb_archive_open(r->dir, r->filter, &s->a, why, sizeof(why))) {
		snprintf(err, errlen, "router %s: %s", r->name, why);
		free(s);
		return -1;
	}
	if (kb_utype_tuples(s->a->type)) {
		snprintf(err, errlen, "router %s (archive %s): filter '%s' is a multi filter: trace needs single-key digests (spie)",
			 r->name, r->dir, r->filter);
		archive_free(s);
		return -1;
	}
	/* Its records are not digests: asked as a filter it would say absent. */
	if (kb_utype_records(s->a->type)) {
		snprintf(err, errlen, "router %s (archive %s): filter '%s' is a transforms table: name it with 'transforms %s' and give the router its digest table as 'filter'",
			 r->name, r->dir, r->filter, r->filter);
		archive_free(s);
		return -1;
	}
	s->mode = s->a->w[0].digest ? s->a->w[0].digest : KBLOOM_DIGEST_SPIE;
	if (s->mode > KBLOOM_DIGEST_MAX || s->mode == KBLOOM_DIGEST_MULTI) {
		snprintf(err, errlen, "router %s (archive %s): windows recorded with digest mode %s, which trace cannot ask",
			 r->name, r->dir, kb_digest_str(s->mode));
		archive_free(s);
		return -1;
	}
	s->fpr = calloc(s->a->n, sizeof(*s->fpr));
	s->fill = calloc(s->a->n, sizeof(*s->fill));
	if (!s->fpr || !s->fill) {
		snprintf(err, errlen, "out of memory");
		archive_free(s);
		return -1;
	}
	for (j = 0; j < s->a->n; j++) {
		struct kb_shape p;
		struct kb_fill f;

		kb_filter_fill(&s->a->w[j].f, &f);
		params_of(&s->a->w[j].f.s, &p);
		s->fill[j] = f.nonzero;
		s->fpr[j] = trace_window_fpr(&p, f.nonzero);
	}
	*state = s;
	return 0;
}

static int archive_ask(struct trace_backends *b, size_t ri,
		       const struct tb_item *items, size_t n,
		       struct tb_answer *a, char *err, size_t errlen)
{
	const struct kb_topo_router *r = &b->t->r[ri];
	void **state = &b->state[ri];
	struct archive_state *s;
	struct kb_digest d;
	size_t i, j;

	if (!*state && setup(state, r, err, errlen))
		return -1;
	s = *state;
	if (s->a->n > UINT32_MAX || trace_answer_alloc(a, s->a->n, n)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (j = 0; j < s->a->n; j++) {
		const struct kb_archive_window *aw = &s->a->w[j];
		struct tb_window *w = &a->win[j];

		w->id = aw->id;
		w->start = aw->start_ns;
		w->end = aw->end_ns;
		w->packets = aw->packets;
		w->fill = s->fill[j];
		w->fpr = s->fpr[j];
	}
	for (i = 0; i < n; i++) {
		if (kb_digest(items[i].pkt, items[i].len, s->mode, &d))
			continue;
		kb_archive_test(s->a, d.key, d.len, a->hits + i * a->row);
	}
	return 0;
}

/* The transforms table of the archive's directory (its own file set). */
static int archive_xlate(struct trace_backends *b, size_t ri,
			 struct kb_archive **out, char *err, size_t errlen)
{
	const struct kb_topo_router *r = &b->t->r[ri];
	char why[1024];

	if (kb_archive_open(r->dir, r->transforms, out, why, sizeof(why))) {
		snprintf(err, errlen, "router %s (archive %s): transforms table '%s': %s",
			 r->name, r->dir, r->transforms, why);
		return -1;
	}
	if (!kb_utype_records((*out)->type)) {
		snprintf(err, errlen, "router %s (archive %s): '%s' holds no transforms table",
			 r->name, r->dir, r->transforms);
		kb_archive_close(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

static void archive_close(struct trace_backends *b, size_t r)
{
	archive_free(b->state[r]);
}

const struct trace_backend_ops trace_archive_ops = {
	.ask = archive_ask,
	.xlate = archive_xlate,
	.close = archive_close,
};
