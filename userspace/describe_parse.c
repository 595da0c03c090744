// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Filter descriptions from the kernel's replies (GET, and QUERY's window
 * list): parsing into struct kb_desc, fetching one, and comparing two.
 * Their rendering is describe.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "describe.h"
#include "typeopts.h"
#include "types.h"
#include "util.h"

static int parse_slices(struct kb_nl *nl, struct nlattr *list,
			struct kb_desc *d)
{
	static struct nla_policy pol[KBLOOM_SLICE_A_MAX + 1] = {
		[KBLOOM_SLICE_A_BITS] = { .type = NLA_U64, .minlen = 8 },
		[KBLOOM_SLICE_A_HASHES] = { .type = NLA_U32, .minlen = 4 },
		[KBLOOM_SLICE_A_CAPACITY] = { .type = NLA_U64, .minlen = 8 },
		[KBLOOM_SLICE_A_KEYS] = { .type = NLA_U64, .minlen = 8 },
		[KBLOOM_SLICE_A_FILL] = { .type = NLA_U64, .minlen = 8 },
		[KBLOOM_SLICE_A_CURRENT] = { .type = NLA_FLAG },
	};
	struct nlattr *tb[KBLOOM_SLICE_A_MAX + 1], *a;
	int rem;

	d->nslices = 0;
	nla_for_each_nested(a, list, rem) {
		struct kb_slice_desc *sl = &d->slice[d->nslices];

		if (nla_type(a) != KBLOOM_SLICE_LIST_A_SLICE)
			continue;
		if (d->nslices == KBLOOM_SLICES_MAX)
			return kb_nl_fail(nl, "more than %d slices in SLICE_LIST",
					  KBLOOM_SLICES_MAX);
		if (nla_parse_nested(tb, KBLOOM_SLICE_A_MAX, a, pol) < 0 ||
		    !tb[KBLOOM_SLICE_A_BITS] || !tb[KBLOOM_SLICE_A_HASHES] ||
		    !tb[KBLOOM_SLICE_A_CAPACITY] || !tb[KBLOOM_SLICE_A_KEYS] ||
		    !tb[KBLOOM_SLICE_A_FILL])
			return kb_nl_fail(nl, "bad slice in SLICE_LIST");
		sl->m = nla_get_u64(tb[KBLOOM_SLICE_A_BITS]);
		sl->k = nla_get_u32(tb[KBLOOM_SLICE_A_HASHES]);
		sl->capacity = nla_get_u64(tb[KBLOOM_SLICE_A_CAPACITY]);
		sl->keys = nla_get_u64(tb[KBLOOM_SLICE_A_KEYS]);
		sl->fill = nla_get_u64(tb[KBLOOM_SLICE_A_FILL]);
		sl->current = !!tb[KBLOOM_SLICE_A_CURRENT];
		if (!sl->m || !sl->k)
			return kb_nl_fail(nl, "slice with BITS or HASHES 0");
		d->nslices++;
	}
	if (!d->nslices)
		return kb_nl_fail(nl, "scalable filter '%s' without slices",
				  quote(d->name));
	return 0;
}

static int parse_dims(struct kb_nl *nl, struct nlattr *nest, struct kb_desc *d)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		int len = nla_len(a);

		if (nla_type(a) != KBLOOM_DIMS_A_NAME)
			continue;
		if (d->dims.n == KBLOOM_DIMS_MAX)
			return kb_nl_fail(nl, "more than %d DIMS",
					  KBLOOM_DIMS_MAX);
		if (len < 2 || len > KBLOOM_DIM_NAME_MAX ||
		    ((char *)nla_data(a))[len - 1] ||
		    strlen(nla_data(a)) != (size_t)len - 1)
			return kb_nl_fail(nl, "bad DIMS_A_NAME");
		memcpy(d->dims.name[d->dims.n++], nla_data(a), len);
	}
	return 0;
}

int kb_windows_parse(struct kb_nl *nl, struct nlattr *list,
		     struct kb_window_desc *win, uint32_t *n)
{
	static struct nla_policy pol[KBLOOM_WINDOW_A_MAX + 1] = {
		[KBLOOM_WINDOW_A_ID] = { .type = NLA_U64, .minlen = 8 },
		[KBLOOM_WINDOW_A_START] = { .type = NLA_U64, .minlen = 8 },
		[KBLOOM_WINDOW_A_END] = { .type = NLA_U64, .minlen = 8 },
		[KBLOOM_WINDOW_A_PACKETS] = { .type = NLA_U64, .minlen = 8 },
		[KBLOOM_WINDOW_A_FILL] = { .type = NLA_U64, .minlen = 8 },
	};
	struct nlattr *tb[KBLOOM_WINDOW_A_MAX + 1], *a;
	int rem;

	*n = 0;
	nla_for_each_nested(a, list, rem) {
		struct kb_window_desc *w = &win[*n];

		if (nla_type(a) != KBLOOM_WINDOW_LIST_A_WINDOW)
			continue;
		if (*n == KBLOOM_WINDOWS_MAX)
			return kb_nl_fail(nl, "more than %d windows in WINDOW_LIST",
					  KBLOOM_WINDOWS_MAX);
		if (nla_parse_nested(tb, KBLOOM_WINDOW_A_MAX, a, pol) < 0)
			return kb_nl_fail(nl, "bad window in WINDOW_LIST");
		if (!tb[KBLOOM_WINDOW_A_ID] || !tb[KBLOOM_WINDOW_A_START])
			return kb_nl_fail(nl, "window without %s",
					  tb[KBLOOM_WINDOW_A_ID] ? "START" :
					  "ID");
		memset(w, 0, sizeof(*w));
		w->id = nla_get_u64(tb[KBLOOM_WINDOW_A_ID]);
		w->start = nla_get_u64(tb[KBLOOM_WINDOW_A_START]);
		if (tb[KBLOOM_WINDOW_A_END])
			w->end = nla_get_u64(tb[KBLOOM_WINDOW_A_END]);
		if (tb[KBLOOM_WINDOW_A_PACKETS])
			w->packets = nla_get_u64(tb[KBLOOM_WINDOW_A_PACKETS]);
		if (tb[KBLOOM_WINDOW_A_FILL])
			w->fill = nla_get_u64(tb[KBLOOM_WINDOW_A_FILL]);
		(*n)++;
	}
	return 0;
}

static int parse_attach(struct kb_nl *nl, struct nlattr *nest,
			struct kb_attach_desc *at)
{
	static struct nla_policy pol[KBLOOM_ATTACH_A_MAX + 1] = {
		[KBLOOM_ATTACH_A_HOOK] = { .type = NLA_U32, .minlen = 4 },
		[KBLOOM_ATTACH_A_FAMILY] = { .type = NLA_U32, .minlen = 4 },
		[KBLOOM_ATTACH_A_DIGEST] = { .type = NLA_U32, .minlen = 4 },
		[KBLOOM_ATTACH_A_IFNAME] = { .type = NLA_STRING,
					     .maxlen = KBLOOM_IFNAME_MAX },
		[KBLOOM_ATTACH_A_SEEN] = { .type = NLA_U64, .minlen = 8 },
		[KBLOOM_ATTACH_A_DIGESTED] = { .type = NLA_U64, .minlen = 8 },
		[KBLOOM_ATTACH_A_SKIPPED] = { .type = NLA_NESTED },
		[KBLOOM_ATTACH_A_BYPASS] = { .type = NLA_U32, .minlen = 4 },
	};
	struct nlattr *tb[KBLOOM_ATTACH_A_MAX + 1], *a;
	int rem;

	memset(at, 0, sizeof(*at));
	if (nla_parse_nested(tb, KBLOOM_ATTACH_A_MAX, nest, pol) < 0)
		return kb_nl_fail(nl, "bad ATTACH nest");
	if (!tb[KBLOOM_ATTACH_A_HOOK] || !tb[KBLOOM_ATTACH_A_DIGEST])
		return kb_nl_fail(nl, "ATTACH without %s",
				  tb[KBLOOM_ATTACH_A_HOOK] ? "DIGEST" : "HOOK");
	at->hook = nla_get_u32(tb[KBLOOM_ATTACH_A_HOOK]);
	at->digest = nla_get_u32(tb[KBLOOM_ATTACH_A_DIGEST]);
	if (tb[KBLOOM_ATTACH_A_FAMILY])
		at->family = nla_get_u32(tb[KBLOOM_ATTACH_A_FAMILY]);
	if (tb[KBLOOM_ATTACH_A_IFNAME])
		snprintf(at->ifname, sizeof(at->ifname), "%.*s",
			 nla_len(tb[KBLOOM_ATTACH_A_IFNAME]),
			 (char *)nla_data(tb[KBLOOM_ATTACH_A_IFNAME]));
	if (tb[KBLOOM_ATTACH_A_SEEN])
		at->seen = nla_get_u64(tb[KBLOOM_ATTACH_A_SEEN]);
	if (tb[KBLOOM_ATTACH_A_DIGESTED])
		at->digested = nla_get_u64(tb[KBLOOM_ATTACH_A_DIGESTED]);
	if (tb[KBLOOM_ATTACH_A_BYPASS])
		at->bypass = nla_get_u32(tb[KBLOOM_ATTACH_A_BYPASS]);
	if (tb[KBLOOM_ATTACH_A_SKIPPED]) {
		nla_for_each_nested(a, tb[KBLOOM_ATTACH_A_SKIPPED], rem) {
			int t = nla_type(a);

			/* Reasons newer than this tool are not shown. */
			if (t < 1 || t > KBLOOM_SKIP_MAX)
				continue;
			if (nla_len(a) < 8)
				return kb_nl_fail(nl, "bad SKIPPED counter");
			at->skipped[t] = nla_get_u64(a);
		}
	}
	return 0;
}

int kb_desc_parse(struct kb_nl *nl, struct nlattr **tb, struct kb_desc *d)
{
	static struct nla_policy stats_pol[KBLOOM_STATS_A_MAX + 1] = {
		[KBLOOM_STATS_A_INSERTS] = { .type = NLA_U64, .maxlen = 8 },
		[KBLOOM_STATS_A_QUERIES] = { .type = NLA_U64, .maxlen = 8 },
		[KBLOOM_STATS_A_POSITIVES] = { .type = NLA_U64, .maxlen = 8 },
		[KBLOOM_STATS_A_DELETES] = { .type = NLA_U64, .maxlen = 8 },
	};
	static const int required[] = {
		KBLOOM_A_NAME, KBLOOM_A_TYPE, KBLOOM_A_BITS, KBLOOM_A_HASHES,
	};
	struct nlattr *st[KBLOOM_STATS_A_MAX + 1];
	unsigned int i;
	int r;

	memset(d, 0, sizeof(*d));
	for (i = 0; i < ARRAY_SIZE(required); i++)
		if (!tb[required[i]])
			return kb_nl_fail(nl, "filter description without %s",
					  kb_attr_name(required[i]));
	/* The policy checked the NUL and the length (< KBLOOM_NAME_MAX). */
	snprintf(d->name, sizeof(d->name), "%s",
		 (char *)nla_data(tb[KBLOOM_A_NAME]));
	d->p.type = nla_get_u32(tb[KBLOOM_A_TYPE]);
	d->p.m = nla_get_u64(tb[KBLOOM_A_BITS]);
	d->p.k = nla_get_u32(tb[KBLOOM_A_HASHES]);
	if (!d->p.m || !d->p.k)
		return kb_nl_fail(nl, "filter '%s' with %s 0", quote(d->name),
				  d->p.m ? "HASHES" : "BITS");
	for (i = 0; i < TO_NUM; i++) {
		const struct kb_param *t = &kb_param_table[i];

		if (t->kind != KB_PARAM_DIMS && tb[kb_param_attr(i)])
			kb_param_set(&d->p, i,
				     nla_get_u32(tb[kb_param_attr(i)]));
	}
	if (tb[KBLOOM_A_DIMS]) {
		r = parse_dims(nl, tb[KBLOOM_A_DIMS], d);
		if (r)
			return r;
		d->p.dims = d->dims.n;
	}
	if (kb_utype_tuples(d->p.type) && !d->dims.n)
		return kb_nl_fail(nl, "multi filter '%s' without DIMS",
				  quote(d->name));
	if (d->p.cell_bits > 16)
		return kb_nl_fail(nl, "COUNTER_BITS %u", d->p.cell_bits);
#define OPT(t, attr, field, bit)				\
	do {							\
		if (t[attr]) {					\
			d->field = nla_get_u64(t[attr]);	\
			d->have |= bit;				\
		}						\
	} while (0)
	OPT(tb, KBLOOM_A_CAPACITY, capacity, KB_HAVE_CAPACITY);
	OPT(tb, KBLOOM_A_MEMORY, memory, KB_HAVE_MEMORY);
	OPT(tb, KBLOOM_A_FILL, fill, KB_HAVE_FILL);
	OPT(tb, KBLOOM_A_SATURATED, saturated, KB_HAVE_SATURATED);
	OPT(tb, KBLOOM_A_GENERATION, generation, KB_HAVE_GENERATION);
	if (tb[KBLOOM_A_STATS]) {
		if (nla_parse_nested(st, KBLOOM_STATS_A_MAX, tb[KBLOOM_A_STATS],
				     stats_pol) < 0)
			return kb_nl_fail(nl, "bad STATS nest");
		OPT(st, KBLOOM_STATS_A_INSERTS, inserts, KB_HAVE_INSERTS);
		OPT(st, KBLOOM_STATS_A_QUERIES, queries, KB_HAVE_QUERIES);
		OPT(st, KBLOOM_STATS_A_POSITIVES, positives,
		    KB_HAVE_POSITIVES);
		OPT(st, KBLOOM_STATS_A_DELETES, deletes, KB_HAVE_DELETES);
	}
#undef OPT
	/* The policy of nl.c does not know these: check lengths here. */
	if (tb[KBLOOM_A_WINDOWS] || tb[KBLOOM_A_INTERVAL]) {
		if (!tb[KBLOOM_A_WINDOWS] || !tb[KBLOOM_A_INTERVAL] ||
		    nla_len(tb[KBLOOM_A_WINDOWS]) != 4 ||
		    nla_len(tb[KBLOOM_A_INTERVAL]) != 8)
			return kb_nl_fail(nl, "bad WINDOWS or INTERVAL");
		d->windows = nla_get_u32(tb[KBLOOM_A_WINDOWS]);
		d->interval_ms = nla_get_u64(tb[KBLOOM_A_INTERVAL]);
		d->have |= KB_HAVE_WINDOWS;
	}
	if (tb[KBLOOM_A_WINDOW_LIST]) {
		r = kb_windows_parse(nl, tb[KBLOOM_A_WINDOW_LIST], d->win,
				     &d->nwin);
		if (r)
			return r;
		d->have |= KB_HAVE_WINDOW_LIST;
	}
	if (tb[KBLOOM_A_ATTACH]) {
		r = parse_attach(nl, tb[KBLOOM_A_ATTACH], &d->attach);
		if (r)
			return r;
		d->have |= KB_HAVE_ATTACH;
	}
	if (kb_utype_grows(d->p.type) == KB_GROW_SLICES) {
		d->p.capacity = d->capacity;
		if (!tb[KBLOOM_A_SLICE_LIST] || !tb[KBLOOM_A_OVERFLOW] ||
		    !tb[KBLOOM_A_GROW_ERROR])
			return kb_nl_fail(nl, "scalable filter '%s' without SLICE_LIST, OVERFLOW or GROW_ERROR",
					  quote(d->name));
		r = parse_slices(nl, tb[KBLOOM_A_SLICE_LIST], d);
		if (r)
			return r;
		d->overflow = nla_get_u64(tb[KBLOOM_A_OVERFLOW]);
		d->grow_error = nla_get_u32(tb[KBLOOM_A_GROW_ERROR]);
		d->have |= KB_HAVE_SLICES;
	}
	if (kb_utype_grows(d->p.type) == KB_GROW_WIDER) {
		if (!tb[KBLOOM_A_OFV_BITS] || !tb[KBLOOM_A_LOST] ||
		    !tb[KBLOOM_A_GROW_ERROR])
			return kb_nl_fail(nl, "dcf '%s' without OFV_BITS, LOST or GROW_ERROR",
					  quote(d->name));
		d->ofv_bits = nla_get_u32(tb[KBLOOM_A_OFV_BITS]);
		d->lost = nla_get_u64(tb[KBLOOM_A_LOST]);
		d->grow_error = nla_get_u32(tb[KBLOOM_A_GROW_ERROR]);
		if (!d->ofv_bits || d->ofv_bits > 32)
			return kb_nl_fail(nl, "OFV_BITS %u", d->ofv_bits);
		d->have |= KB_HAVE_OFV;
	}
	return 0;
}


struct get_state {
	struct kb_desc *d;
	int replies;
};

static int get_reply(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct get_state *s = arg;

	if (s->replies++)
		return kb_nl_fail(nl, "more than one description");
	return kb_desc_parse(nl, tb, s->d);
}

int kb_desc_get(struct kb_nl *nl, const char *name, struct kb_desc *d)
{
	struct get_state s = { .d = d };
	struct nl_msg *msg;
	int r;

	msg = kb_nl_msg(nl, KBLOOM_CMD_GET, 0, 0);
	kb_put_name(msg, name);
	r = kb_nl_request(nl, msg, get_reply, &s);
	nlmsg_free(msg);
	if (!r && !s.replies)
		r = kb_nl_fail(nl, "no description");
	return r;
}

void kb_desc_diff(const struct kb_desc *a, const struct kb_desc *b,
		  char *buf, size_t len)
{
	const struct kb_shape *x = &a->p, *y = &b->p;
	int i;

	buf[0] = '\0';
#define DIFF(cond, fmt, ...)					\
	do {							\
		if (cond) {					\
			snprintf(buf, len, fmt, __VA_ARGS__);	\
			return;					\
		}						\
	} while (0)
	DIFF(x->type != y->type, "types differ (%s vs %s)",
	     kb_type_str(x->type), kb_type_str(y->type));
	DIFF(x->m != y->m, "bits differ (%llu vs %llu)",
	     (unsigned long long)x->m, (unsigned long long)y->m);
	DIFF(x->k != y->k, "hashes differ (%u vs %u)", x->k, y->k);
	for (i = 0; i < TO_NUM; i++) {
		const struct kb_param *t = &kb_param_table[i];
		uint32_t u = kb_param_get(x, i), v = kb_param_get(y, i);

		if (!t->diff)
			continue;
		DIFF(u != v && t->kind == KB_PARAM_NAMED,
		     "%s differ (%s vs %s)", t->diff, kb_param_name(i, u),
		     kb_param_name(i, v));
		DIFF(u != v, "%s differ (%u vs %u)", t->diff, u, v);
	}
#undef DIFF
}

void kb_explain_mismatch(struct kb_nl *nl, const char *a, const char *src)
{
	struct kb_nl_error saved = nl->error;
	struct kb_desc da, db;
	char why[sizeof(saved.why)];

	if (saved.err != EINVAL || saved.attr != KBLOOM_A_SRC)
		return;
	if (kb_desc_get(nl, a, &da) || kb_desc_get(nl, src, &db)) {
		nl->error = saved;
		return;
	}
	kb_desc_diff(&da, &db, why, sizeof(why));
	nl->error = saved;
	if (why[0])
		snprintf(nl->error.why, sizeof(nl->error.why), "%s", why);
	else if (!memcmp(&da.p, &db.p, sizeof(da.p)))
		snprintf(nl->error.why, sizeof(nl->error.why),
			 "same type and shape, so the hash keys differ: create both with the same 'key HEX32'");
}
