// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The backends of 'bloomctl trace' behind one tb_backend: see
 * trace_backend.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pktfmt.h"
#include "pktxform.h"
#include "trace_backend.h"
#include "util.h"
#include "xlate_read.h"
#include "../kmod/engine/xlate.h"

/* Records one item may have in the windows of its range, at most. */
#define XLATE_HITS_MAX	16

/*
 * A private directory for the control sockets: under $TMPDIR when its
 * name is short enough for a socket path (108 bytes with the 40 of %C),
 * else under /tmp.
 */
static char *make_ctl_dir(char *err, size_t errlen)
{
	return private_dir("bloomctl-ssh", 40, " for the ssh connections", err,
			   errlen);
}

int trace_backends_init(struct trace_backends *b, const struct kb_topo *t,
			const char *default_netns, bool reuse, char *err,
			size_t errlen)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	b->t = t;
	b->default_netns = default_netns;
	b->state = calloc(t->n, sizeof(*b->state));
	b->ssh_calls = calloc(t->n, sizeof(*b->ssh_calls));
	b->xlate = calloc(t->n, sizeof(*b->xlate));
	if (!b->state || !b->ssh_calls || !b->xlate) {
		free(b->state);
		free(b->ssh_calls);
		free(b->xlate);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; reuse && i < t->n; i++)
		if (t->r[i].kind == KB_TOPO_SSH)
			break;
	if (reuse && i < t->n) {
		b->ctl_dir = make_ctl_dir(err, errlen);
		if (!b->ctl_dir) {
			free(b->state);
			free(b->ssh_calls);
			free(b->xlate);
			return -1;
		}
	}
	return 0;
}

/* Removes the ssh control directory (and what is left in it). */
static void remove_ctl_dir(struct trace_backends *b)
{
	struct dirent *e;
	DIR *d;

	d = opendir(b->ctl_dir);
	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	if (rmdir(b->ctl_dir))
		errorf("unable to remove %s: %s", b->ctl_dir,
		       strerror(errno));
	free(b->ctl_dir);
}

/* The backend of each kind of router; none for KB_TOPO_NONE. */
static const struct trace_backend_ops *backend_of(const struct kb_topo_router *rt)
{
	switch (rt->kind) {
	case KB_TOPO_NETNS:
		return &trace_netns_ops;
	case KB_TOPO_ARCHIVE:
		return &trace_archive_ops;
	case KB_TOPO_SSH:
		return &trace_ssh_ops;
	case KB_TOPO_NONE:
		break;
	}
	return NULL;
}

void trace_backends_free(struct trace_backends *b)
{
	const struct trace_backend_ops *ops;
	size_t i;

	if (!b->state)
		return;
	/* first: the ssh masters end before their directory goes */
	for (i = 0; i < b->t->n; i++) {
		kb_archive_close(b->xlate[i]);
		ops = backend_of(&b->t->r[i]);
		if (ops && ops->close)
			ops->close(b, i);
	}
	if (b->ctl_dir)
		remove_ctl_dir(b);
	free(b->state);
	free(b->ssh_calls);
	free(b->xlate);
	memset(b, 0, sizeof(*b));
}

/* Router @r's backend, or NULL with why in @err (it records nothing). */
static const struct trace_backend_ops *ops_of(struct trace_backends *b,
					      size_t r, char *err,
					      size_t errlen)
{
	const struct kb_topo_router *rt = &b->t->r[r];
	const struct trace_backend_ops *ops = backend_of(rt);

	if (!ops)
		snprintf(err, errlen, rt->kind == KB_TOPO_NONE ?
			 "router %s records nothing" : "router %s: unknown kind",
			 rt->name);
	return ops;
}

/* Asks router @r's digest table, by the router's kind. */
static int ask_kind(struct trace_backends *b, size_t r,
		    const struct tb_item *items, size_t n, struct tb_answer *a,
		    char *err, size_t errlen)
{
	const struct trace_backend_ops *ops = ops_of(b, r, err, errlen);

	return ops ? ops->ask(b, r, items, n, a, err, errlen) : -1;
}

/* Router @r's transforms table, read once per trace. 0 or -1. */
static int load_xlate(struct trace_backends *b, size_t r, char *err,
		      size_t errlen)
{
	const struct trace_backend_ops *ops;

	if (b->xlate[r])
		return 0;
	ops = ops_of(b, r, err, errlen);
	return ops ? ops->xlate(b, r, &b->xlate[r], err, errlen) : -1;
}

/* Adds the form @buf of item @row (taken over), unless it is there. */
static int add_xform(struct tb_answer *a, uint32_t *cap, size_t row,
		     uint8_t *buf, uint32_t blen, const struct kb_xlate_hit *hit)
{
	struct tb_xform *xf;
	uint32_t q;

	/* Two CPUs may have recorded one flow twice. */
	for (q = 0; q < a->nxf; q++)
		if (a->xf[q].row == row && a->xf[q].len == blen &&
		    !memcmp(a->xf[q].pkt, buf, blen)) {
			free(buf);
			return 0;
		}
	if (a->nxf == *cap) {
		void *nx = realloc(a->xf, (*cap ? 2 * *cap : 8) * sizeof(*a->xf));

		if (!nx) {
			free(buf);
			return -1;
		}
		a->xf = nx;
		*cap = *cap ? 2 * *cap : 8;
	}
	xf = &a->xf[a->nxf++];
	memset(xf, 0, sizeof(*xf));
	xf->row = row;
	xf->pkt = buf;
	xf->len = blen;
	xf->window = hit->window;
	xf->guess = hit->guess;
	kb_xlate_hit_str(hit, xf->what, sizeof(xf->what));
	return 0;
}

/* An item's datagram: source, destination, IP ID and protocol. */
struct dgram {
	uint8_t key[PKT_DATAGRAM_KEY];
	size_t item;
};

static void dgram_of(const struct tb_item *it, size_t k, struct dgram *d)
{
	pkt_datagram_key(it->pkt, d->key);
	d->item = k;
}

static int by_dgram(const void *a, const void *b)
{
	const struct dgram *x = a, *y = b;
	int c = memcmp(x->key, y->key, sizeof(x->key));

	return c ? c : (x->item > y->item) - (x->item < y->item);
}

/* Item @k of @n: the NAT may have rewritten it, no record to undo it. 0 or -1. */
static int mark_blind(struct tb_answer *a, size_t n, size_t k,
		      enum tb_blind why)
{
	if (!a->blind)
		a->blind = calloc(n, 1);
	if (!a->blind)
		return -1;
	a->blind[k] = why;
	return 0;
}

/*
 * Item @k came out of @what (an arrival record's words, or a tunnel
 * record's whose rest is lost): one of them, when records of several
 * devices hold it ("A or B": identical packets came out of both in the
 * window). 0 or -1.
 */
static int mark_opaque(struct tb_answer *a, size_t n, size_t k,
		       const char *what)
{
	char *at;
	size_t len;

	if (mark_blind(a, n, k, TB_BLIND_OPAQUE))
		return -1;
	if (!a->blind_what)
		a->blind_what = calloc(n, sizeof(*a->blind_what));
	if (!a->blind_what)
		return -1;
	at = a->blind_what[k];
	len = strlen(at);
	snprintf(at + len, TB_WHAT_MAX - len, "%s%s", len ? " or " : "", what);
	return 0;
}

/* The arrival records an item may have: identical packets, devices. */
#define ARRIVALS_PER_ITEM	4

/* @rec into @arr (ARRIVALS_PER_ITEM, STATE 0: free), once. */
static void add_arrival(struct kbloom_xlate *arr,
			const struct kbloom_xlate *rec)
{
	size_t i;

	for (i = 0; i < ARRIVALS_PER_ITEM && arr[i].state; i++)
		if (!memcmp(&arr[i], rec, sizeof(*rec)))
			return;
	if (i < ARRIVALS_PER_ITEM)
		arr[i] = *rec;
}

/*
 * Later fragments have no key of their own: the records their datagram's
 * head (its first fragment, or the head rebuilt from the capture) finds
 * among the same items undo their NAT too. 0 or -1 (out of memory).
 */
static int follow_heads(const struct kb_archive *x, const struct tb_item *items,
			size_t n, struct tb_answer *a, uint32_t *cap)
{
	struct kb_xlate_hit hit[XLATE_HITS_MAX];
	struct kbloom_xlate want;
	struct dgram *heads, d;
	size_t k, nh = 0, lo, hi, mid, h, m;
	int ret = 0;

	for (k = 0; k < n; k++)
		if (pkt_is_later_fragment(items[k].pkt, items[k].len))
			break;
	if (k == n)
		return 0;
	heads = malloc(n * sizeof(*heads));
	if (!heads)
		return -1;
	for (k = 0; k < n; k++)
		if (items[k].len && items[k].pkt[0] >> 4 == 4 &&
		    !pkt_xlate_want(items[k].pkt, items[k].len, &want))
			dgram_of(&items[k], k, &heads[nh++]);
	qsort(heads, nh, sizeof(*heads), by_dgram);
	for (k = 0; k < n && !ret; k++) {
		switch (pkt_is_later_fragment(items[k].pkt, items[k].len)) {
		case 0:
			continue;
		case 6:
			/* No head looked for (see pkt_is_later_fragment()). */
			if (kb_xlate_nat_of_addrs(x, items[k].pkt,
						  items[k].len, items[k].lo,
						  items[k].ts))
				ret = mark_blind(a, n, k, TB_BLIND_FRAGMENT6);
			continue;
		}
		dgram_of(&items[k], 0, &d);
		for (lo = 0, hi = nh; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (memcmp(heads[mid].key, d.key, sizeof(d.key)) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if ((lo == nh || memcmp(heads[lo].key, d.key, sizeof(d.key))) &&
		    kb_xlate_nat_of_addrs(x, items[k].pkt, items[k].len,
					  items[k].lo, items[k].ts)) {
			/* No head to find its record by, and one may apply. */
			ret = mark_blind(a, n, k, TB_BLIND_FRAGMENT);
			continue;
		}
		for (; lo < nh && !memcmp(heads[lo].key, d.key, sizeof(d.key)) &&
		       !ret; lo++) {
			const struct tb_item *hd = &items[heads[lo].item];

			m = kb_xlate_lookup(x, hd->pkt, hd->len, items[k].lo,
					    items[k].ts, hit, XLATE_HITS_MAX);
			for (h = 0; h < m && h < XLATE_HITS_MAX && !ret; h++) {
				uint8_t *buf = malloc(items[k].len);

				if (!buf) {
					ret = -1;
					break;
				}
				if (pkt_xlate_invert_later(hd->pkt, hd->len,
							   items[k].pkt,
							   items[k].len,
							   &hit[h].rec, buf)) {
					free(buf);
					continue;
				}
				ret = add_xform(a, cap, k, buf, items[k].len,
						&hit[h]);
			}
		}
	}
	free(heads);
	return ret;
}

/* Transforms undone one after another at one router, at most. */
#define XLATE_CHAIN	3

/*
 * A router that decapsulates a packet and then NATs it (DS-Lite's AFTR,
 * RFC 6333, a carrier NAT behind a tunnel's end), or NATs a tunnel's
 * outer packet: the forms its records gave, looked up again in its
 * table, give the forms before those, up to XLATE_CHAIN records in a
 * row; the hop names each, in the order undone ("SNAT ...; 4in6 ...").
 * Arrival records are the packet's as it left: found on the items
 * themselves. @tunneled[row]: a tunnel record was found so. 0 or -1 (out
 * of memory).
 */
static int chain_xforms(const struct kb_archive *x,
			const struct tb_item *items, struct tb_answer *a,
			uint32_t *cap, uint8_t *tunneled)
{
	struct kb_xlate_hit hit[XLATE_HITS_MAX];
	size_t q, h, m, from = 0, end;
	enum kb_xlate_class class;
	uint32_t blen, row, len;
	const uint8_t *pkt;
	uint8_t *buf;
	int depth, r;

	for (depth = 1; depth < XLATE_CHAIN && from < a->nxf; depth++) {
		for (q = from, end = a->nxf; q < end; q++) {
			row = a->xf[q].row;
			pkt = a->xf[q].pkt;
			len = a->xf[q].len;
			m = kb_xlate_lookup(x, pkt, len, items[row].lo,
					    items[row].ts, hit, XLATE_HITS_MAX);
			for (h = 0; h < m && h < XLATE_HITS_MAX; h++) {
				class = kb_xlate_class(hit[h].rec.kind);
				if ((class != KB_XREC_NAT &&
				     class != KB_XREC_TUNNEL) ||
				    kb_xlate_hit_lost(&hit[h]))
					continue;
				r = kb_xlate_before(&hit[h], pkt, len, &buf,
						    &blen);
				if (r == -ENOMEM)
					return -1;
				if (r)
					continue;
				if (add_xform(a, cap, row, buf, blen, &hit[h]))
					return -1;
				tunneled[row] |= class == KB_XREC_TUNNEL;
			}
		}
		from = end;
	}
	return 0;
}

/*
 * The forms items took before router @r's transforms: in @a->xf (rows
 * of @items). 0 or -1 (out of memory).
 */
static int find_xforms(const struct kb_archive *x, const struct tb_item *items,
		       size_t n, struct tb_answer *a)
{
	struct kb_xlate_hit hit[XLATE_HITS_MAX];
	uint32_t cap = 0, blen;
	char what[TB_WHAT_MAX];
	struct kbloom_xlate *arr;
	uint8_t *buf, *tunneled;
	size_t k, h, m;
	int r = 0;

	/*
	 * Items a tunnel record was found for after a NAT record's form, and
	 * the arrival records no record of the item's own undid (STATE 0:
	 * none), ARRIVALS_PER_ITEM an item.
	 */
	tunneled = calloc(n ? n : 1, 1);
	arr = calloc(n ? n * ARRIVALS_PER_ITEM : 1, sizeof(*arr));
	if (!tunneled || !arr) {
		free(tunneled);
		free(arr);
		return -1;
	}
	for (k = 0; k < n && !r; k++) {
		m = kb_xlate_lookup(x, items[k].pkt, items[k].len, items[k].lo,
				    items[k].ts, hit, XLATE_HITS_MAX);
		if (!m && kb_xlate_nat_of_icmp_error(x, items[k].pkt,
						     items[k].len, items[k].lo,
						     items[k].ts))
			r = mark_blind(a, n, k, TB_BLIND_ICMP_ERROR);
		for (h = 0; h < m && h < XLATE_HITS_MAX && !r; h++) {
			/* Arrivals below, once every form is known. */
			if (hit[h].rec.kind & KBLOOM_XLATE_OPAQUE) {
				if (!kb_xlate_arrival_undone(hit,
							     m < XLATE_HITS_MAX ?
							     m : XLATE_HITS_MAX,
							     &hit[h].rec, false))
					add_arrival(&arr[k * ARRIVALS_PER_ITEM],
						    &hit[h].rec);
				continue;
			}
			/*
			 * Over IPv6, its outer addresses or its more record
			 * lost: said so (an ICMP error's, below: it does not
			 * invert).
			 */
			if (kb_xlate_hit_lost(&hit[h]) && !hit[h].icmp_error) {
				kb_xlate_hit_str(&hit[h], what, sizeof(what));
				r = mark_opaque(a, n, k, what);
				continue;
			}
			r = kb_xlate_before(&hit[h], items[k].pkt,
					    items[k].len, &buf, &blen);
			/* An error the record should undo: never "absent". */
			if (r == -EINVAL)
				r = hit[h].icmp_error ?
				    mark_blind(a, n, k, TB_BLIND_ICMP_ERROR) : 0;
			else if (!r)
				r = add_xform(a, &cap, k, buf, blen, &hit[h]);
		}
	}
	if (!r)
		r = follow_heads(x, items, n, a, &cap);
	if (!r)
		r = chain_xforms(x, items, a, &cap, tunneled);
	for (k = 0; k < n * ARRIVALS_PER_ITEM && !r; k++)
		if (arr[k].state &&
		    !kb_xlate_arrival_undone(NULL, 0, &arr[k],
					     tunneled[k / ARRIVALS_PER_ITEM])) {
			kb_xlate_str(&arr[k], what, sizeof(what));
			r = mark_opaque(a, n, k / ARRIVALS_PER_ITEM, what);
		}
	free(tunneled);
	free(arr);
	return r ? -1 : 0;
}

/* Whether row @k of answer @a holds in any window. */
static bool row_held(const struct tb_answer *a, size_t k)
{
	uint32_t c;

	for (c = 0; c < a->row; c++)
		if (a->hits[k * a->row + c])
			return true;
	return false;
}

/*
 * The forms with a guess (an ICMP error's sender put back as the flow's
 * other end) among @a's transforms, asked as rows @n on: one this router
 * holds is no guess any more; an item it holds in no form is not
 * traceable past it, never absent there (its digest holds the error as
 * it came, from whoever sent it, if the hook saw it before the NAT set
 * the source). 0 or -1 (out of memory).
 */
static int judge_guesses(struct tb_answer *a, size_t n)
{
	uint32_t q;

	for (q = 0; q < a->nxf; q++) {
		struct tb_xform *xf = &a->xf[q];

		if (!xf->guess)
			continue;
		if (row_held(a, n + q))
			xf->guess = false;
		else if (!row_held(a, xf->row) &&
			 mark_blind(a, n, xf->row, TB_BLIND_ICMP_SENDER))
			return -1;
	}
	return 0;
}

/*
 * A router with a transforms table: its digest table is asked about each
 * item and about the forms its transforms give it (the router's hook may
 * have seen either), an item holding where either does.
 */
static int ask_with_xlate(struct trace_backends *b, size_t r,
			  const struct tb_item *items, size_t n,
			  struct tb_answer *a, char *err, size_t errlen)
{
	struct tb_answer all = { 0 };
	struct tb_item *more;
	uint32_t q, c;
	int ret;

	memset(a, 0, sizeof(*a));
	if (load_xlate(b, r, err, errlen))
		return -1;
	if (find_xforms(b->xlate[r], items, n, a))
		goto nomem;
	if (!a->nxf) {
		uint8_t *blind = a->blind;
		char (*what)[TB_WHAT_MAX] = a->blind_what;

		ret = ask_kind(b, r, items, n, a, err, errlen);
		if (ret) {
			free(blind);
			free(what);
		} else {
			a->blind = blind;
			a->blind_what = what;
		}
		return ret;
	}
	more = calloc(n + a->nxf, sizeof(*more));
	if (!more)
		goto nomem;
	memcpy(more, items, n * sizeof(*more));
	for (q = 0; q < a->nxf; q++) {
		more[n + q] = items[a->xf[q].row];
		more[n + q].pkt = a->xf[q].pkt;
	}
	ret = ask_kind(b, r, more, n + a->nxf, &all, err, errlen);
	free(more);
	if (ret) {
		tb_answer_free(a);
		return ret;
	}
	for (q = 0; q < a->nxf; q++)
		for (c = 0; c < all.row; c++)
			all.hits[a->xf[q].row * all.row + c] |=
				all.hits[(n + q) * all.row + c];
	a->nwin = all.nwin;
	a->row = all.row;
	a->win = all.win;
	a->hits = all.hits;
	if (judge_guesses(a, n))
		goto nomem;
	return 0;
nomem:
	tb_answer_free(a);
	snprintf(err, errlen, "out of memory");
	return -1;
}

int trace_backends_ask(void *ctx, size_t r, const struct tb_item *items,
		       size_t n, struct tb_answer *a, char *err,
		       size_t errlen)
{
	struct trace_backends *b = ctx;

	if (b->t->r[r].transforms)
		return ask_with_xlate(b, r, items, n, a, err, errlen);
	return ask_kind(b, r, items, n, a, err, errlen);
}
