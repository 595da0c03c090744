// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The traceback walk: see traceback.h.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pktxform.h"
#include "traceback.h"
#include "../kmod/engine/digest.h"

#define WHY_MAX		512

/*
 * What the walk knows of (packet, router) pairs: absent when the router
 * was not asked about the packet yet, else the node index or -1. Open
 * addressing keyed by packet * routers + router + 1 (0: empty slot), so
 * memory grows with the questions, not with packets times routers.
 */
struct pmap {
	uint64_t *key;
	long *val;
	size_t cap, n;
};

struct pstate {
	size_t fstart, fend;	/* the frontier: nodes [fstart, fend) */
	size_t capnodes, capedges, capunknown;
};

/* One question of a step, and its answer. */
struct job {
	size_t r;
	int failed;
	struct tb_answer a;
	/* per packet asked (pend order): held in its unsure form (malloc) */
	uint8_t *unsure;
	char why[WHY_MAX];
};

struct walk {
	const struct kb_topo *t;
	const struct tb_packet *p;
	size_t n;
	uint64_t slack;
	const struct tb_backend *b;
	struct tb_result *res;
	struct pstate *ps;
	struct pmap map;
	struct tb_stats *st;
	char **why;		/* per router: why it is unknown, or NULL */
	uint8_t *dead;		/* per router: failed, not to be asked again */
	/* per router: the packets to ask about in this step */
	size_t **pend;
	size_t *npend, *cappend;
	size_t *touched;	/* routers with packets pending in this step */
	size_t ntouched;
	/* the questions of a step, asked by the pool */
	struct job *jobs;
	size_t njobs, next, taken;
	uint8_t *ready;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char *err;
	size_t errlen;
	/*
	 * Per packet: its forms (TB_FORMS_MAX slots each; 0 is the packet,
	 * then its alt[], then those transforms gave, which the walk owns),
	 * how many there are, and how many the questions of this step use
	 * (forms found in a step are asked about from the next one, so
	 * the pool's threads never read a slot being written).
	 */
	struct tb_form *forms;
	uint32_t *nforms, *nf_step;
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

/* A form of packet @i asked about in this step: its bytes. */
static const struct tb_form *form(const struct walk *w, size_t i, size_t f)
{
	return &w->forms[i * TB_FORMS_MAX + f];
}

/*
 * How many forms of packet @i asked about in this step may have an
 * unsure form (engine digest.h): each is asked about too, one more
 * chance of a false hit.
 */
static uint32_t unsure_forms(const struct walk *w, size_t i)
{
	uint32_t f, n = 0;

	for (f = 0; f < w->nf_step[i]; f++)
		n += kb_pkt_may_be_unsure(form(w, i, f)->pkt, form(w, i, f)->len);
	return n;
}

/*
 * What answer @a says of item @row for packet @i: the newest window of the
 * range holding it (NULL: none) and the router's rate over the range.
 * @refrag: packet @i, an IPv6 fragment, is held there only in a form
 * without its fragment header (its datagram reassembled: the router
 * tracks connections, and cut it again with an identification of its
 * own, RFC 8200 4.5).
 */
static const struct tb_window *judge(const struct walk *w, size_t i,
				     const struct tb_answer *a, size_t row,
				     double *fpr, bool *refrag)
{
	const struct tb_window *best = NULL;
	uint64_t lo = range_lo(w, i), hi = w->p[i].at;
	double log_clear = 0;	/* log of P(no window gives a false hit) */
	uint32_t j, f, nf = w->nf_step[i], nq = nf + unsure_forms(w, i);
	bool frag6 = form(w, i, 0)->len && form(w, i, 0)->pkt[0] >> 4 == 6 &&
		     pkt_is_fragment(form(w, i, 0)->pkt, form(w, i, 0)->len);
	bool as_frag = false;

	for (j = 0; j < a->nwin; j++) {
		const struct tb_window *win = &a->win[j];
		bool hit = false;

		if (!tb_window_overlaps(win, lo, hi))
			continue;
		/*
		 * log1p/expm1: rates of 1e-18 survive, 1 - (1 - p) would be
		 * 0. Each form asked is one more chance of a false hit.
		 */
		log_clear += nq * log1p(-(win->fpr > 1 ? 1 : win->fpr < 0 ? 0 :
					  win->fpr));
		for (f = 0; f < nf; f++) {
			const uint8_t *bits = a->hits + (row + f) * a->row;

			if (!(bits[j / 8] >> (j % 8) & 1))
				continue;
			hit = true;
			as_frag |= frag6 && pkt_is_fragment(form(w, i, f)->pkt,
							    form(w, i, f)->len);
		}
		if (!hit)
			continue;
		if (!best || win->start > best->start)
			best = win;
	}
	*fpr = -expm1(log_clear);
	*refrag = best && frag6 && !as_frag;
	return best;
}

static int map_grow(struct pmap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 1024, i, h;
	uint64_t *key = calloc(cap, sizeof(*key));
	long *val = malloc(cap * sizeof(*val));

	if (!key || !val) {
		free(key);
		free(val);
		return -1;
	}
	for (i = 0; i < m->cap; i++) {
		if (!m->key[i])
			continue;
		for (h = (m->key[i] * 0x9e3779b97f4a7c15ULL) >> 20 & (cap - 1);
		     key[h]; h = (h + 1) & (cap - 1))
			;
		key[h] = m->key[i];
		val[h] = m->val[i];
	}
	free(m->key);
	free(m->val);
	m->key = key;
	m->val = val;
	m->cap = cap;
	return 0;
}

/* The slot of (packet @i, router @r); NULL when not asked yet. */
static long *map_get(const struct walk *w, size_t i, size_t r)
{
	const struct pmap *m = &w->map;
	uint64_t k = (uint64_t)i * w->t->n + r + 1;
	size_t h;

	if (!m->cap)
		return NULL;
	for (h = (k * 0x9e3779b97f4a7c15ULL) >> 20 & (m->cap - 1); m->key[h];
	     h = (h + 1) & (m->cap - 1))
		if (m->key[h] == k)
			return &m->val[h];
	return NULL;
}

/* Marks (@i, @r) asked, with no node yet. 0 or -1. */
static int map_put(struct walk *w, size_t i, size_t r)
{
	struct pmap *m = &w->map;
	uint64_t k = (uint64_t)i * w->t->n + r + 1;
	size_t h;

	if (2 * (m->n + 1) > m->cap && map_grow(m))
		return oom(w);
	for (h = (k * 0x9e3779b97f4a7c15ULL) >> 20 & (m->cap - 1); m->key[h];
	     h = (h + 1) & (m->cap - 1))
		;
	m->key[h] = k;
	m->val[h] = -1;
	m->n++;
	return 0;
}

void tb_answer_free(struct tb_answer *a)
{
	uint32_t k;

	for (k = 0; k < a->nxf; k++)
		free(a->xf[k].pkt);
	free(a->xf);
	free(a->win);
	free(a->hits);
	free(a->blind);
	free(a->blind_what);
	memset(a, 0, sizeof(*a));
}

/* The forms a packet comes with: itself and its alt[] (the walk's own
 * forms, from transforms, follow them).
 */
static size_t given_forms(const struct tb_packet *p)
{
	return 1 + (p->nalt < TB_FORMS_MAX - 1 ? p->nalt : TB_FORMS_MAX - 1);
}

/* The forms each packet's questions use from now on. */
static void snapshot_forms(struct walk *w)
{
	memcpy(w->nf_step, w->nforms, w->n * sizeof(*w->nf_step));
}

/*
 * Takes the transforms of answer @a for packet @i (its rows from @row):
 * each new form is asked about from the next step on; the node @x says
 * what it undid. 0 or -1.
 */
static int adopt_forms(struct walk *w, size_t i, size_t x, size_t row,
		       struct tb_answer *a)
{
	struct tb_node *nd = &w->res[i].node[x];
	struct tb_form *fm = &w->forms[i * TB_FORMS_MAX];
	uint32_t k, f;

	for (k = 0; k < a->nxf; k++) {
		struct tb_xform *xf = &a->xf[k];
		size_t have = nd->xf ? strlen(nd->xf) : 0;
		char text[sizeof(xf->what) + 32];
		char *s;

		if (xf->row < row || xf->row >= row + w->nf_step[i])
			continue;
		snprintf(text, sizeof(text), "%s (window %llu)", xf->what,
			 (unsigned long long)xf->window);
		nd->guessed |= xf->guess;
		/* Two forms of a packet (a fragment, its whole) may meet one. */
		if (!nd->xf || !strstr(nd->xf, text)) {
			s = realloc(nd->xf, have + strlen(text) + 3);
			if (!s)
				return oom(w);
			nd->xf = s;
			sprintf(s + have, "%s%s", have ? "; " : "", text);
		}
		for (f = 0; f < w->nforms[i]; f++)
			if (fm[f].len == xf->len &&
			    !memcmp(fm[f].pkt, xf->pkt, xf->len))
				break;
		if (f < w->nforms[i] || w->nforms[i] == TB_FORMS_MAX)
			continue;
		/* The walk owns it now. */
		fm[w->nforms[i]].pkt = xf->pkt;
		fm[w->nforms[i]].len = xf->len;
		w->nforms[i]++;
		xf->pkt = NULL;
	}
	return 0;
}

/*
 * A form of packet @i (its rows from @row) that router @r's NAT may have
 * rewritten, with no record to undo it (enum tb_blind): the graph stops
 * short there, said so (the first such router kept).
 */
static void note_blind(struct walk *w, size_t i, size_t r, size_t row,
		       const struct tb_answer *a)
{
	struct tb_result *res = &w->res[i];
	uint32_t f;

	if (!a->blind || res->blind)
		return;
	for (f = 0; f < w->nf_step[i]; f++)
		if (a->blind[row + f]) {
			res->blind = true;
			res->blind_at = r;
			res->blind_why = a->blind[row + f];
			if (a->blind_what)
				memcpy(res->blind_what, a->blind_what[row + f],
				       sizeof(res->blind_what));
			return;
		}
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
	memset(nd, 0, sizeof(*nd));
	nd->router = r;
	nd->depth = depth;
	if (win) {
		nd->win = *win;
		nd->fpr = fpr;
	} else {
		nd->unknown = true;
	}
	*map_get(w, i, r) = (long)res->nnodes++;
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

/* Router @r is unknown: for @why (NULL: it records nothing). 0 or -1. */
static int set_unknown(struct walk *w, size_t r, const char *why)
{
	const struct kb_topo_router *rt = &w->t->r[r];
	char buf[WHY_MAX];

	if (w->why[r])
		return 0;
	if (!why)
		snprintf(buf, sizeof(buf),
			 "records nothing (declared 'none' on line %u)",
			 rt->line);
	else if (!*why)
		snprintf(buf, sizeof(buf),
			 "router %s could not be asked (the message above)",
			 rt->name);
	w->why[r] = strdup(why && *why ? why : buf);
	if (!w->why[r])
		return oom(w);
	if (why) {
		w->dead[r] = 1;
		if (w->st)
			w->st->failed++;
	}
	return 0;
}

/*
 * Router @r answered without a digest of a packet, but its attachment may
 * be passed by (@bypass): the packet may have gone through unseen. Said
 * once; the router stays askable for the other packets.
 */
static int set_bypassed(struct walk *w, size_t r, const char *bypass)
{
	char buf[WHY_MAX];

	if (w->why[r])
		return 0;
	snprintf(buf, sizeof(buf),
		 "router %s holds no digest of it, but its attachment may be passed by (%s): not seen is not 'not there'",
		 w->t->r[r].name, bypass);
	w->why[r] = strdup(buf);
	return w->why[r] ? 0 : oom(w);
}

/*
 * Folds the answer's unsure rows (from row @ni, one per form in @of, the
 * form's own row) into the forms' rows: a router that holds a form only
 * in its unsure form holds it. Marks in @j->unsure the packets (index in
 * the router's pending list: @ok) held so in their range; drops the
 * transforms found for unsure rows (no packet had that form).
 */
static void fold_unsure(struct walk *w, struct job *j, size_t ni,
			const size_t *of, const size_t *ok, size_t nu)
{
	struct tb_answer *a = &j->a;
	size_t u, k, i;
	uint32_t x, q, n = 0;

	for (u = 0; u < nu; u++) {
		const uint8_t *bits = a->hits + (ni + u) * a->row;
		uint8_t *to = a->hits + of[u] * a->row;

		k = ok[u];
		i = w->pend[j->r][k];
		for (x = 0; x < a->nwin; x++) {
			if (!(bits[x / 8] >> (x % 8) & 1))
				continue;
			to[x / 8] |= 1 << (x % 8);
			if (tb_window_overlaps(&a->win[x], range_lo(w, i),
					       w->p[i].at))
				j->unsure[k] = 1;
		}
	}
	for (q = 0; q < a->nxf; q++) {
		if (a->xf[q].row >= ni) {
			free(a->xf[q].pkt);
			continue;
		}
		a->xf[n++] = a->xf[q];
	}
	a->nxf = n;
}

/*
 * Asks job @j's router about the packets pending for it: each form, then
 * the unsure form of each that may have one.
 */
static void ask(struct walk *w, struct job *j)
{
	size_t k, r = j->r, np = w->npend[r];
	struct tb_answer *a = &j->a;
	struct tb_item *items = NULL;
	size_t ni = 0, nu = 0, f, u;
	size_t *of = NULL, *ok = NULL;

	memset(a, 0, sizeof(*a));
	j->why[0] = 0;
	for (k = 0; k < np; k++) {
		ni += w->nf_step[w->pend[r][k]];
		nu += unsure_forms(w, w->pend[r][k]);
	}
	items = calloc(ni + nu, sizeof(*items));
	of = calloc(nu + 1, sizeof(*of));
	ok = calloc(nu + 1, sizeof(*ok));
	j->unsure = calloc(np + 1, 1);
	if (!items || !of || !ok || !j->unsure) {
		snprintf(j->why, sizeof(j->why), "out of memory");
		j->failed = 1;
		goto out;
	}
	for (k = 0, ni = 0, u = 0; k < np; k++) {
		size_t i = w->pend[r][k];

		for (f = 0; f < w->nf_step[i]; f++, ni++) {
			items[ni].pkt = form(w, i, f)->pkt;
			items[ni].len = form(w, i, f)->len;
			items[ni].ts = w->p[i].at;
			items[ni].lo = range_lo(w, i);
			if (kb_pkt_may_be_unsure(items[ni].pkt, items[ni].len)) {
				of[u] = ni;
				ok[u++] = k;
			}
		}
	}
	for (u = 0; u < nu; u++) {
		uint8_t *c = malloc(items[of[u]].len);

		if (!c) {
			snprintf(j->why, sizeof(j->why), "out of memory");
			j->failed = 1;
			goto out;
		}
		items[ni + u] = items[of[u]];
		memcpy(c, items[of[u]].pkt, items[of[u]].len);
		kb_pkt_unsure(c);
		items[ni + u].pkt = c;
	}
	j->failed = w->b->ask(w->b->ctx, r, items, ni + nu, a, j->why,
			      sizeof(j->why)) != 0;
	for (k = 0; !j->failed && k < a->nxf; k++)
		if (a->xf[k].row >= ni + nu || !a->xf[k].pkt)
			break;
	if (!j->failed &&
	    (a->row != (a->nwin + 7) / 8 || (a->nwin && !a->hits) ||
	     k < a->nxf)) {
		snprintf(j->why, sizeof(j->why),
			 "router %s: a malformed answer (%u windows, rows of %u bytes)",
			 w->t->r[r].name, a->nwin, a->row);
		j->failed = 1;
	}
	if (!j->failed)
		fold_unsure(w, j, ni, of, ok, nu);
out:
	for (u = 0; items && u < nu; u++)
		free((void *)items[ni + u].pkt);
	free(items);
	free(of);
	free(ok);
	if (j->failed)
		tb_answer_free(a);
}

static unsigned int parallel(const struct walk *w)
{
	return w->b->parallel > 1 ? w->b->parallel : 1;
}

/* A worker of the pool: takes the next question within the window. */
static void *worker(void *arg)
{
	struct walk *w = arg;
	size_t k;

	for (;;) {
		pthread_mutex_lock(&w->mu);
		/* answers not yet taken stay under 2 * parallel */
		while (w->next < w->njobs &&
		       w->next >= w->taken + 2 * (size_t)parallel(w))
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->next >= w->njobs) {
			pthread_mutex_unlock(&w->mu);
			return NULL;
		}
		k = w->next++;
		pthread_mutex_unlock(&w->mu);
		ask(w, &w->jobs[k]);
		pthread_mutex_lock(&w->mu);
		w->ready[k] = 1;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
	}
}

/* Waits for job @k's answer (asked by the pool). */
static void wait_ready(struct walk *w, size_t k)
{
	pthread_mutex_lock(&w->mu);
	while (!w->ready[k])
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

/* Job @k's answer is taken: the pool may ask further. */
static void taken(struct walk *w, size_t k)
{
	pthread_mutex_lock(&w->mu);
	w->taken = k + 1;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

static void count_question(struct walk *w, size_t r)
{
	if (w->st) {
		w->st->questions++;
		if (w->st->per_router)
			w->st->per_router[r]++;
	}
}

/* Step 0: FROM about every packet. */
static int first_step(struct walk *w, size_t from)
{
	const struct tb_window *hit, *oldest = NULL;
	struct tb_answer *a;
	struct job job = { .r = from };
	size_t i;
	uint32_t j;
	double fpr;
	bool refrag;

	size_t row = 0;

	w->npend[from] = 0;
	snapshot_forms(w);
	for (i = 0; i < w->n; i++) {
		w->pend[from][w->npend[from]++] = i;
		if (map_put(w, i, from))
			return -1;
	}
	if (w->t->r[from].kind == KB_TOPO_NONE) {
		job.failed = 1;
		if (set_unknown(w, from, NULL))
			return -1;
	} else {
		ask(w, &job);
		if (job.failed && set_unknown(w, from, job.why))
			return -1;
	}
	w->npend[from] = 0;
	if (job.failed) {
		free(job.unsure);
		for (i = 0; i < w->n; i++)
			w->res[i].status = TB_UNKNOWN;
		return 0;
	}
	a = &job.a;
	count_question(w, from);
	if (w->st)
		w->st->steps++;
	for (j = 0; j < a->nwin; j++)
		if (!oldest || a->win[j].start < oldest->start)
			oldest = &a->win[j];
	for (i = 0; i < w->n; row += w->nf_step[i++]) {
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
		hit = judge(w, i, a, row, &fpr, &refrag);
		note_blind(w, i, from, row, a);
		if (!hit && a->bypass[0]) {
			if (set_bypassed(w, from, a->bypass))
				goto fail;
			res->status = TB_UNKNOWN;
			continue;
		}
		if (!hit) {
			/* Absent in a form FROM may never have seen: unsaid. */
			res->status = res->blind ? TB_NOT_TRACEABLE : TB_ABSENT;
			continue;
		}
		res->status = TB_TRACED;
		if (add_node(w, i, from, 0, hit, fpr) ||
		    adopt_forms(w, i, 0, row, a))
			goto fail;
		res->node[0].unsure = job.unsure[i];
		res->node[0].refrag = refrag;
		w->ps[i].fstart = 0;
		w->ps[i].fend = 1;
	}
	tb_answer_free(a);
	free(job.unsure);
	return 0;
fail:
	tb_answer_free(a);
	free(job.unsure);
	return -1;
}

static int pend_add(struct walk *w, size_t r, size_t i)
{
	if (!w->npend[r])
		w->touched[w->ntouched++] = r;
	if (w->npend[r] == w->cappend[r]) {
		size_t cap = w->cappend[r] ? 2 * w->cappend[r] : 16;
		size_t *np = realloc(w->pend[r], cap * sizeof(*np));

		if (!np)
			return oom(w);
		w->pend[r] = np;
		w->cappend[r] = cap;
	}
	w->pend[r][w->npend[r]++] = i;
	return 0;
}

static int by_index(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Takes router @r's answer (@jb's; NULL: it is unknown) about its pending
 * packets at depth @d. 0 or -1.
 */
static int take(struct walk *w, uint32_t d, size_t r, struct job *jb)
{
	struct tb_answer *a = jb ? &jb->a : NULL;
	const struct kb_topo_router *rt = &w->t->r[r];
	size_t i, k, j, node, row = 0;

	for (k = 0; k < w->npend[r]; k++, row += w->nf_step[i]) {
		const struct tb_window *hit = NULL;
		struct tb_result *res;
		double fpr = 0;
		bool refrag = false;

		i = w->pend[r][k];
		res = &w->res[i];
		if (a) {
			hit = judge(w, i, a, row, &fpr, &refrag);
			res->asked++;
			/* Passed by, maybe: unknown for it (a node, as such). */
			if (!hit && a->bypass[0]) {
				if (set_bypassed(w, r, a->bypass))
					return -1;
				goto add;
			}
			/*
			 * Only a router the packet did not pass can answer
			 * absent, with 1 - fpr: each absent one stands for
			 * fpr / (1 - fpr) false branches, an unbiased count
			 * of those among the routers asked, wherever the
			 * true path runs (docs/trace.md).
			 */
			if (!hit && fpr < 1)
				res->expected += fpr / (1 - fpr);
			/* Present or absent: in a form it may not have had. */
			note_blind(w, i, r, row, a);
			if (!hit)
				continue;
		}
add:
		if (add_node(w, i, r, d, hit, fpr))
			return -1;
		node = res->nnodes - 1;
		res->node[node].unsure = hit && jb->unsure[k];
		res->node[node].refrag = hit && refrag;
		if (a && hit && adopt_forms(w, i, node, row, a))
			return -1;
		for (j = 0; j < rt->nnbr; j++) {
			long *y = map_get(w, i, rt->nbr[j]);

			if (y && *y >= 0 && res->node[*y].depth + 1 == d &&
			    add_edge(w, i, node, (size_t)*y))
				return -1;
		}
	}
	return 0;
}

/* Step @d: returns 1 when something was asked, 0 when done, -1. */
static int step(struct walk *w, uint32_t d)
{
	const struct kb_topo *t = w->t;
	size_t i, x, k, nth = 0;
	pthread_t th[256];
	int ret = -1;

	w->ntouched = 0;
	snapshot_forms(w);
	for (i = 0; i < w->n; i++) {
		struct pstate *ps = &w->ps[i];

		if (w->res[i].status != TB_TRACED)
			continue;
		for (x = ps->fstart; x < ps->fend; x++) {
			const struct kb_topo_router *rt =
				&t->r[w->res[i].node[x].router];

			for (k = 0; k < rt->nnbr; k++) {
				size_t c = rt->nbr[k];

				if (map_get(w, i, c))
					continue;
				if (map_put(w, i, c) || pend_add(w, c, i))
					return -1;
			}
		}
		/* The next frontier starts after the current nodes. */
		ps->fstart = ps->fend;
	}
	if (!w->ntouched)
		return 0;
	/* in router order: the same graph however the answers arrive */
	qsort(w->touched, w->ntouched, sizeof(*w->touched), by_index);
	w->njobs = 0;
	w->jobs = calloc(w->ntouched, sizeof(*w->jobs));
	w->ready = calloc(w->ntouched, 1);
	if (!w->jobs || !w->ready) {
		oom(w);
		goto out;
	}
	for (k = 0; k < w->ntouched; k++) {
		size_t r = w->touched[k];

		if (t->r[r].kind == KB_TOPO_NONE) {
			if (set_unknown(w, r, NULL))
				goto out;
		} else if (!w->dead[r]) {
			w->jobs[w->njobs++].r = r;
		}
	}
	if (w->njobs && w->st)
		w->st->steps++;
	w->next = w->taken = 0;
	if (parallel(w) > 1 && w->njobs > 1) {
		nth = w->njobs < parallel(w) ? w->njobs : parallel(w);
		if (nth > sizeof(th) / sizeof(th[0]))
			nth = sizeof(th) / sizeof(th[0]);
		for (k = 0; k < nth; k++)
			if (pthread_create(&th[k], NULL, worker, w))
				break;
		nth = k;
	}
	for (k = 0, x = 0; k < w->ntouched; k++) {
		size_t r = w->touched[k];
		struct job *j = NULL;

		if (x < w->njobs && w->jobs[x].r == r) {
			j = &w->jobs[x];
			if (nth)
				wait_ready(w, x);
			else
				ask(w, j);
			if (j->failed) {
				if (set_unknown(w, r, j->why))
					goto out;
			} else {
				count_question(w, r);
			}
		}
		if (take(w, d, r, j && !j->failed ? j : NULL))
			goto out;
		if (j) {
			tb_answer_free(&j->a);
			free(j->unsure);
			j->unsure = NULL;
			if (nth)
				taken(w, x);
			x++;
		}
	}
	ret = 1;
out:
	if (nth) {
		/* on an error: no further questions, then wait for the pool */
		pthread_mutex_lock(&w->mu);
		w->njobs = w->next;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		for (k = 0; k < nth; k++)
			pthread_join(th[k], NULL);
	}
	for (k = 0; w->jobs && k < w->njobs; k++) {
		tb_answer_free(&w->jobs[k].a);
		free(w->jobs[k].unsure);
	}
	free(w->jobs);
	free(w->ready);
	w->jobs = NULL;
	w->ready = NULL;
	for (k = 0; k < w->ntouched; k++)
		w->npend[w->touched[k]] = 0;
	if (ret > 0)
		for (i = 0; i < w->n; i++)
			w->ps[i].fend = w->res[i].nnodes;
	return ret;
}

/*
 * Takes out the unknown nodes of packet @i with no seen node upstream
 * (res->unknown lists their routers), and the edges to them. Edges are
 * grouped by their upstream node in increasing order (a node's edges are
 * made with it), and every edge goes from depth d to d - 1: walked
 * backwards, a node's liveness is final before its own edges are seen.
 */
static int prune(struct walk *w, size_t i)
{
	struct tb_result *res = &w->res[i];
	uint8_t *live;
	size_t *to, e, x, n = 0, ne = 0;

	if (res->status != TB_TRACED)
		return 0;
	for (x = 0; x < res->nnodes && !res->node[x].unknown; x++)
		;
	if (x == res->nnodes)
		return 0;
	live = calloc(res->nnodes, 1);
	to = calloc(res->nnodes, sizeof(*to));
	res->unknown = calloc(res->nnodes, sizeof(*res->unknown));
	if (!live || !to || !res->unknown) {
		free(live);
		free(to);
		return oom(w);
	}
	for (x = 0; x < res->nnodes; x++)
		live[x] = !res->node[x].unknown;
	for (e = res->nedges; e-- > 0;)
		if (live[res->edge[e].from])
			live[res->edge[e].to] = 1;
	for (x = 0; x < res->nnodes; x++) {
		if (!live[x]) {
			res->unknown[res->nunknown++] = res->node[x].router;
			continue;
		}
		to[x] = n;
		res->node[n++] = res->node[x];
	}
	for (e = 0; e < res->nedges; e++) {
		if (!live[res->edge[e].from])
			continue;
		res->edge[ne].from = to[res->edge[e].from];
		res->edge[ne].to = to[res->edge[e].to];
		ne++;
	}
	res->nnodes = n;
	res->nedges = ne;
	free(live);
	free(to);
	return 0;
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

/*
 * An ingress that holds the packet in its unsure form merged it by GRO
 * from a tunnel's packets whose outer IDs before it are not known: the
 * routers before it were asked about another ID. Not the ingress, then,
 * but as far as the trace can see.
 */
static void unsure_ingress(struct walk *w, size_t i)
{
	struct tb_result *res = &w->res[i];
	size_t x;

	if (res->status != TB_TRACED || res->blind)
		return;
	for (x = 0; x < res->ningress; x++) {
		const struct tb_node *nd = &res->node[res->ingress[x]];

		if (!nd->unsure && !nd->refrag && !nd->guessed)
			continue;
		res->blind = true;
		res->blind_at = nd->router;
		/*
		 * Likewise an IPv6 fragment it held only reassembled: the
		 * routers before it were asked about the identification it
		 * gave the fragments it cut again, not theirs; and an ICMP
		 * error whose sender its NAT overwrote: they were asked
		 * about the likeliest one only.
		 */
		res->blind_why = nd->unsure ? TB_BLIND_MERGED :
				 nd->refrag ? TB_BLIND_REFRAG6 :
				 TB_BLIND_ICMP_SENDER;
		return;
	}
}

void tb_results_free(struct tb_result *res, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		size_t x;

		for (x = 0; x < res[i].nnodes; x++)
			free(res[i].node[x].xf);
		free(res[i].node);
		free(res[i].edge);
		free(res[i].ingress);
		free(res[i].unknown);
		memset(&res[i], 0, sizeof(res[i]));
	}
}

void tb_stats_free(struct tb_stats *st, size_t nrouters)
{
	size_t r;

	if (!st->why)
		return;
	for (r = 0; r < nrouters; r++)
		free(st->why[r]);
	free(st->why);
	st->why = NULL;
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
	pthread_mutex_init(&w.mu, NULL);
	pthread_cond_init(&w.cv, NULL);
	w.ps = calloc(n, sizeof(*w.ps));
	w.pend = calloc(t->n, sizeof(*w.pend));
	w.npend = calloc(t->n, sizeof(*w.npend));
	w.cappend = calloc(t->n, sizeof(*w.cappend));
	w.touched = calloc(t->n, sizeof(*w.touched));
	w.why = calloc(t->n, sizeof(*w.why));
	w.dead = calloc(t->n, 1);
	w.forms = calloc(n * TB_FORMS_MAX, sizeof(*w.forms));
	w.nforms = calloc(n, sizeof(*w.nforms));
	w.nf_step = calloc(n, sizeof(*w.nf_step));
	if (!w.ps || !w.pend || !w.npend || !w.cappend || !w.touched ||
	    !w.why || !w.dead || !w.forms || !w.nforms || !w.nf_step)
		goto nomem;
	for (i = 0; i < n; i++) {
		struct tb_form *fm = &w.forms[i * TB_FORMS_MAX];
		size_t k;

		fm[0].pkt = p[i].pkt;
		fm[0].len = p[i].len;
		w.nforms[i] = given_forms(&p[i]);
		for (k = 1; k < w.nforms[i]; k++)
			fm[k] = p[i].alt[k - 1];
	}
	w.cappend[from] = n;
	w.pend[from] = malloc(n * sizeof(**w.pend));
	if (!w.pend[from])
		goto nomem;
	if (first_step(&w, from))
		goto out;
	for (d = 1;; d++) {
		s = step(&w, d);
		if (s < 0)
			goto out;
		if (!s)
			break;
	}
	for (i = 0; i < n; i++) {
		if (prune(&w, i) || find_ingress(&w, i))
			goto out;
		unsure_ingress(&w, i);
		/* Its ingress is not the true one: never reported as traced. */
		if (res[i].status == TB_TRACED && res[i].blind)
			res[i].status = TB_NOT_TRACEABLE;
	}
	ret = 0;
	goto out;
nomem:
	oom(&w);
out:
	if (ret)
		tb_results_free(res, n);
	if (w.pend)
		for (r = 0; r < t->n; r++)
			free(w.pend[r]);
	if (st && w.why) {
		st->why = w.why;
		w.why = NULL;
	}
	if (w.why)
		for (r = 0; r < t->n; r++)
			free(w.why[r]);
	free(w.why);
	free(w.dead);
	/* The forms transforms gave: after the packet and its alt[]. */
	for (i = 0; w.forms && w.nforms && i < n; i++) {
		size_t f;

		for (f = given_forms(&p[i]); f < w.nforms[i]; f++)
			free((void *)w.forms[i * TB_FORMS_MAX + f].pkt);
	}
	free(w.forms);
	free(w.nforms);
	free(w.nf_step);
	free(w.ps);
	free(w.pend);
	free(w.npend);
	free(w.cappend);
	free(w.touched);
	free(w.map.key);
	free(w.map.val);
	pthread_mutex_destroy(&w.mu);
	pthread_cond_destroy(&w.cv);
	return ret;
}
