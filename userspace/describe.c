// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "cardinality.h"
#include "describe.h"
#include "pktfmt.h"
#include "timefmt.h"
#include "util.h"

static const char *const type_names[KBLOOM_TYPE_MAX + 1] = {
	[KBLOOM_TYPE_BLOOM] = "bloom",
	[KBLOOM_TYPE_PARTITIONED] = "partitioned",
	[KBLOOM_TYPE_BLOCKED] = "blocked",
	[KBLOOM_TYPE_COUNTING] = "counting",
	[KBLOOM_TYPE_DLEFT] = "dleft",
	[KBLOOM_TYPE_STABLE] = "stable",
	[KBLOOM_TYPE_MULTI] = "multi",
	[KBLOOM_TYPE_SCALABLE] = "scalable",
	[KBLOOM_TYPE_DCF] = "dcf",
	[KBLOOM_TYPE_TRANSFORMS] = "transforms",
};

const char *kb_type_name(uint32_t type)
{
	return type <= KBLOOM_TYPE_MAX ? type_names[type] : NULL;
}

int kb_type_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(type_names); i++)
		if (type_names[i] && !strcmp(type_names[i], name))
			return i;
	return -1;
}

const char *kb_type_list(void)
{
	static char buf[256];
	size_t n = 0;
	unsigned int i;

	if (buf[0])
		return buf;
	for (i = 0; i < ARRAY_SIZE(type_names); i++)
		if (type_names[i] && n < sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s",
				      n ? ", " : "", type_names[i]);
	return buf;
}

const char *kb_type_str(uint32_t type)
{
	static char buf[24];
	const char *s = kb_type_name(type);

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "type-%u", type);
	return buf;
}

bool kb_type_counts(uint32_t type)
{
	return type == KBLOOM_TYPE_COUNTING || type == KBLOOM_TYPE_DLEFT ||
	       type == KBLOOM_TYPE_DCF;
}

const char *kb_update_name(uint32_t update)
{
	switch (update) {
	case KBLOOM_UPDATE_PLAIN:
		return "plain";
	case KBLOOM_UPDATE_CONSERVATIVE:
		return "conservative";
	}
	return "unknown";
}

const char *kb_grow_name(uint32_t why)
{
	switch (why) {
	case KBLOOM_GROW_OK:
		return "ok";
	case KBLOOM_GROW_MEMORY_LIMIT:
		return "max_memory";
	case KBLOOM_GROW_FILTER_LIMIT:
		return "filter_limit";
	case KBLOOM_GROW_SHAPE_LIMIT:
		return "shape_limit";
	case KBLOOM_GROW_NOMEM:
		return "nomem";
	}
	return "unknown";
}

const char *kb_grow_text(uint32_t why)
{
	switch (why) {
	case KBLOOM_GROW_OK:
		return "grows as keys arrive";
	case KBLOOM_GROW_MEMORY_LIMIT:
		return "waiting: the next slice would pass a memory limit: max_memory, or its user namespace owner's share (tried again by itself)";
	case KBLOOM_GROW_FILTER_LIMIT:
		return "stopped: the slices would pass 1 GiB of cells";
	case KBLOOM_GROW_SHAPE_LIMIT:
		return "stopped: the next slice would pass 32 slices, 2^33 bits or 32 hashes";
	case KBLOOM_GROW_NOMEM:
		return "waiting: allocating the next slice failed (tried again by itself)";
	}
	return "stopped (reason unknown to this tool)";
}

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

int kb_query_reply_parse(struct kb_nl *nl, struct nlattr **tb, uint32_t nkeys,
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
#define U32(attr, field)					\
	do {							\
		if (tb[attr])					\
			d->p.field = nla_get_u32(tb[attr]);	\
	} while (0)
	U32(KBLOOM_A_COUNTER_BITS, counter_bits);
	U32(KBLOOM_A_UPDATE, update);
	U32(KBLOOM_A_DECREMENT, decrement);
	U32(KBLOOM_A_SUBTABLES, subtables);
	U32(KBLOOM_A_BUCKET_CELLS, bucket_cells);
	U32(KBLOOM_A_FP_BITS, fp_bits);
	U32(KBLOOM_A_GROWTH, growth);
	U32(KBLOOM_A_TIGHTEN, tighten);
#undef U32
	if (tb[KBLOOM_A_DIMS]) {
		r = parse_dims(nl, tb[KBLOOM_A_DIMS], d);
		if (r)
			return r;
		d->p.dims = d->dims.n;
	}
	if (d->p.type == KBLOOM_TYPE_MULTI && !d->dims.n)
		return kb_nl_fail(nl, "multi filter '%s' without DIMS",
				  quote(d->name));
	if (d->p.counter_bits > 16)
		return kb_nl_fail(nl, "COUNTER_BITS %u", d->p.counter_bits);
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
	if (d->p.type == KBLOOM_TYPE_SCALABLE) {
		d->p.n0 = d->capacity;
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
	if (d->p.type == KBLOOM_TYPE_DCF) {
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

const char *kb_window_span(const struct kb_window_desc *w)
{
	static char buf[2 * KB_TIME_STR_MAX + 8];
	char a[KB_TIME_STR_MAX], b[KB_TIME_STR_MAX];

	snprintf(buf, sizeof(buf), "%s to %s",
		 kb_time_str(w->start, false, a, sizeof(a)),
		 w->end ? kb_time_str(w->end, false, b, sizeof(b)) : "now");
	return buf;
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
	const struct kb_params *x = &a->p, *y = &b->p;

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
	DIFF(x->counter_bits != y->counter_bits,
	     "counter bits differ (%u vs %u)", x->counter_bits,
	     y->counter_bits);
	DIFF(x->update != y->update, "update rules differ (%s vs %s)",
	     kb_update_name(x->update), kb_update_name(y->update));
	DIFF(x->decrement != y->decrement, "decrements differ (%u vs %u)",
	     x->decrement, y->decrement);
	DIFF(x->subtables != y->subtables, "subtables differ (%u vs %u)",
	     x->subtables, y->subtables);
	DIFF(x->bucket_cells != y->bucket_cells,
	     "bucket cells differ (%u vs %u)", x->bucket_cells,
	     y->bucket_cells);
	DIFF(x->fp_bits != y->fp_bits, "fingerprint bits differ (%u vs %u)",
	     x->fp_bits, y->fp_bits);
	DIFF(x->dims != y->dims, "dimensions differ (%u vs %u)", x->dims,
	     y->dims);
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

/* An optional counter as text: the number, or "?" when not reported. */
static const char *opt_u64(const struct kb_desc *d, unsigned int bit,
			   uint64_t v)
{
	static char bufs[8][24];
	static unsigned int next;
	char *buf = bufs[next++ % ARRAY_SIZE(bufs)];

	if (!(d->have & bit))
		return "?";
	snprintf(buf, sizeof(bufs[0]), "%llu", (unsigned long long)v);
	return buf;
}

void kb_desc_print_line(const struct kb_desc *d)
{
	char iv[KB_TIME_STR_MAX];

	printf("%s %s bits %llu hashes %u memory %s fill %s inserts %s",
	       d->name, kb_type_str(d->p.type), (unsigned long long)d->p.m,
	       d->p.k, opt_u64(d, KB_HAVE_MEMORY, d->memory),
	       opt_u64(d, KB_HAVE_FILL, d->fill),
	       opt_u64(d, KB_HAVE_INSERTS, d->inserts));
	if (d->have & KB_HAVE_WINDOWS)
		printf(" windows %u interval %s", d->windows,
		       kb_duration_str(d->interval_ms, iv, sizeof(iv)));
	if (d->have & KB_HAVE_ATTACH) {
		printf(" hook %s", kb_hook_str(d->attach.hook));
		if (d->attach.ifname[0])
			printf(" dev %s", d->attach.ifname);
		printf(" family %s", kb_family_str(d->attach.family));
		if (d->attach.digest)
			printf(" digest %s", kb_digest_str(d->attach.digest));
	}
	putchar('\n');
}

/*
 * The skip reasons an attachment of @d can give: a digest's, or a
 * transforms table's.
 */
static void skip_range(const struct kb_desc *d, unsigned int *lo,
		       unsigned int *hi)
{
	bool xlate = d->p.type == KBLOOM_TYPE_TRANSFORMS;

	*lo = xlate ? KBLOOM_SKIP_UNTRANSFORMED : KBLOOM_SKIP_SHORT;
	*hi = xlate ? KBLOOM_SKIP_FULL : KBLOOM_SKIP_GSO;
}

static uint64_t skipped_total(const struct kb_attach_desc *at)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 1; i <= KBLOOM_SKIP_MAX; i++)
		n += at->skipped[i];
	return n;
}

/* The windows and the attachment, at the end of show. */
static void print_paging(const struct kb_desc *d)
{
	const struct kb_attach_desc *at = &d->attach;
	char iv[KB_TIME_STR_MAX];
	unsigned int i, lo, hi;

	if (d->have & KB_HAVE_WINDOWS) {
		printf("  windows: %u of %s\n", d->windows,
		       kb_duration_str(d->interval_ms, iv, sizeof(iv)));
		for (i = 0; i < d->nwin; i++)
			printf("  window %llu: %s, inserts %llu, fill %llu%s\n",
			       (unsigned long long)d->win[i].id,
			       kb_window_span(&d->win[i]),
			       (unsigned long long)d->win[i].packets,
			       (unsigned long long)d->win[i].fill,
			       d->win[i].end ? "" : " (current)");
	}
	if (!(d->have & KB_HAVE_ATTACH)) {
		printf("  attached: no\n");
		return;
	}
	printf("  attached: hook %s", kb_hook_str(at->hook));
	if (at->ifname[0])
		printf(" dev %s", at->ifname);
	printf(" family %s", kb_family_str(at->family));
	if (at->digest)
		printf(" digest %s", kb_digest_str(at->digest));
	printf("\n  packets seen: %llu\n", (unsigned long long)at->seen);
	printf("  packets %s: %llu\n", at->digest ? "digested" : "recorded",
	       (unsigned long long)at->digested);
	printf("  packets skipped: %llu (", (unsigned long long)skipped_total(at));
	skip_range(d, &lo, &hi);
	for (i = lo; i <= hi; i++)
		printf("%s%s %llu", i > lo ? ", " : "", kb_skip_str(i),
		       (unsigned long long)at->skipped[i]);
	printf(")\n");
}

/* What FILL counts, for the show text. */
static const char *fill_what(uint32_t type)
{
	switch (type) {
	case KBLOOM_TYPE_COUNTING:
	case KBLOOM_TYPE_DCF:
		return "counters non-zero";
	case KBLOOM_TYPE_STABLE:
		return "cells non-zero";
	case KBLOOM_TYPE_DLEFT:
		return "cells occupied";
	case KBLOOM_TYPE_TRANSFORMS:
		return "records";
	}
	return "bits set";
}

/* The estimates need the type's parameters: were they all reported? */
static bool params_known(const struct kb_params *p)
{
	switch (p->type) {
	case KBLOOM_TYPE_DLEFT:
		return p->subtables && p->bucket_cells && p->fp_bits;
	case KBLOOM_TYPE_STABLE:
		return p->counter_bits && p->decrement;
	case KBLOOM_TYPE_COUNTING:
	case KBLOOM_TYPE_DCF:
		return p->counter_bits;
	case KBLOOM_TYPE_TRANSFORMS:
		return false;	/* records: no keys to estimate, no rate */
	}
	return kb_type_name(p->type) != NULL;
}

static bool has_counters(uint32_t type)
{
	return type == KBLOOM_TYPE_COUNTING || type == KBLOOM_TYPE_STABLE ||
	       type == KBLOOM_TYPE_DLEFT;
}

static void print_full(const struct kb_desc *d);
static void print_scalable(const struct kb_desc *d);

/* A dcf's cells now: the CBFV and the OFV, each in whole words. */
static uint64_t dcf_cell_bytes(const struct kb_desc *d)
{
	return sizing_vec_bytes(d->p.m, d->p.counter_bits) +
	       sizing_vec_bytes(d->p.m, d->ofv_bits);
}

void kb_desc_print_full(const struct kb_desc *d)
{
	if (d->have & KB_HAVE_SLICES)
		print_scalable(d);
	else
		print_full(d);
	print_paging(d);
}

/* Scalable: bits of every slice made, and the compound rate from fills. */
static uint64_t slices_bits(const struct kb_desc *d)
{
	uint64_t bits = 0;
	uint32_t i;

	for (i = 0; i < d->nslices; i++)
		bits += d->slice[i].m;
	return bits;
}

static double slices_fpr_now(const struct kb_desc *d)
{
	double ok = 1;
	uint32_t i;

	for (i = 0; i < d->nslices; i++) {
		const struct kb_slice_desc *s = &d->slice[i];

		ok *= 1 - pow((double)s->fill / (double)s->m, s->k);
		if (s->current)
			break;
	}
	return 1 - ok;
}

static uint64_t slices_keys(const struct kb_desc *d)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < d->nslices; i++)
		n += d->slice[i].keys;
	return n;
}

static void print_scalable(const struct kb_desc *d)
{
	const struct kb_params *p = &d->p;
	uint64_t bits = slices_bits(d);
	bool past = false;
	uint32_t i;

	printf("filter: %s\n", d->name);
	printf("  type: scalable\n");
	printf("  bits (m): %llu (first slice)\n", (unsigned long long)p->m);
	printf("  hashes (k): %u (first slice)\n", p->k);
	printf("  capacity: %llu (first slice)\n",
	       (unsigned long long)d->capacity);
	printf("  growth (s): %u\n", p->growth);
	printf("  tighten (r): %g\n", p->tighten / 1e6);
	if (d->have & KB_HAVE_MEMORY)
		printf("  memory: %llu bytes (%s)\n",
		       (unsigned long long)d->memory, human_bytes(d->memory));
	printf("  fill: %llu bits set (%.2f%% of the slices' %llu bits)\n",
	       (unsigned long long)d->fill,
	       100.0 * (double)d->fill / (double)bits, (unsigned long long)bits);
	printf("  slices: %u\n", d->nslices);
	for (i = 0; i < d->nslices; i++) {
		const struct kb_slice_desc *s = &d->slice[i];

		printf("  slice %u: capacity %llu, bits %llu, hashes %u, keys %llu, fill %llu (%.1f%%)%s\n",
		       i, (unsigned long long)s->capacity,
		       (unsigned long long)s->m, s->k,
		       (unsigned long long)s->keys,
		       (unsigned long long)s->fill,
		       100.0 * (double)s->fill / (double)s->m,
		       s->current ? " (current)" : past ? " (made ahead)" : "");
		past = past || s->current;
	}
	printf("  keys: %llu (that set a bit; a key already present is not added again)\n",
	       (unsigned long long)slices_keys(d));
	printf("  overflow: %llu keys beyond a full slice\n",
	       (unsigned long long)d->overflow);
	printf("  growth: %s\n", kb_grow_text(d->grow_error));
	printf("  inserts: %s\n", opt_u64(d, KB_HAVE_INSERTS, d->inserts));
	printf("  queries: %s\n", opt_u64(d, KB_HAVE_QUERIES, d->queries));
	printf("  positives: %s\n",
	       opt_u64(d, KB_HAVE_POSITIVES, d->positives));
	printf("  generation: %s\n",
	       opt_u64(d, KB_HAVE_GENERATION, d->generation));
	printf("  fpr now: %.3g (1 - prod(1 - (fill_i/m_i)^k_i) over the slices)\n",
	       slices_fpr_now(d));
	printf("  fpr limit: %.3g (P0/(1-r), P0 the first slice's rate at capacity: any number of keys)\n",
	       sizing_scalable_limit(p));
}

static void print_full(const struct kb_desc *d)
{
	const struct kb_params *p = &d->p;
	uint64_t cells = card_cells(p);
	bool bits = kb_params_cell_bits(p) == 1;
	bool known = params_known(p);

	printf("filter: %s\n", d->name);
	printf("  type: %s\n", kb_type_str(p->type));
	printf("  %s (m): %llu%s\n", bits ? "bits" : "cells",
	       (unsigned long long)p->m,
	       p->type == KBLOOM_TYPE_MULTI ? " per dimension" : "");
	printf("  hashes (k): %u\n", p->k);
	switch (p->type) {
	case KBLOOM_TYPE_COUNTING:
		printf("  counter bits: %u\n", p->counter_bits);
		printf("  update: %s\n", kb_update_name(p->update));
		break;
	case KBLOOM_TYPE_STABLE:
		printf("  counter bits: %u\n", p->counter_bits);
		printf("  decrement (P): %u\n", p->decrement);
		break;
	case KBLOOM_TYPE_DLEFT:
		printf("  subtables (d): %u\n", p->subtables);
		printf("  bucket cells (c): %u\n", p->bucket_cells);
		printf("  fingerprint bits: %u\n", p->fp_bits);
		break;
	case KBLOOM_TYPE_MULTI:
		printf("  dimensions: %s\n", dims_list(&d->dims));
		break;
	case KBLOOM_TYPE_DCF:
		printf("  counter bits: %u (CBFV; count = OFV * %u + CBFV)\n",
		       p->counter_bits, 1U << p->counter_bits);
		if (d->have & KB_HAVE_OFV)
			printf("  overflow vector: %u bits per cell (OFV; doubles as counts grow)\n",
			       d->ofv_bits);
		break;
	}
	if (!(d->have & KB_HAVE_CAPACITY))
		printf("  capacity: ?\n");
	else if (!d->capacity)
		printf("  capacity: not set\n");
	else
		printf("  capacity: %llu\n", (unsigned long long)d->capacity);
	if (d->have & KB_HAVE_MEMORY)
		printf("  memory: %llu bytes (%s)\n",
		       (unsigned long long)d->memory, human_bytes(d->memory));
	else
		printf("  memory: ?\n");
	if (d->have & KB_HAVE_OFV) {
		printf("  memory of the cells: %llu bytes; counting counter-bits 16: %llu bytes (%.2f of it)\n",
		       (unsigned long long)dcf_cell_bytes(d),
		       (unsigned long long)sizing_vec_bytes(p->m, 16),
		       (double)dcf_cell_bytes(d) / sizing_vec_bytes(p->m, 16));
		printf("  increments lost: %llu%s\n", (unsigned long long)d->lost,
		       d->lost ? " (counts may be low; del refused until clear)" : "");
		printf("  overflow vector growth: %s\n",
		       d->grow_error ? kb_grow_text(d->grow_error) :
		       "widens as counts grow");
	}
	if (d->have & KB_HAVE_FILL)
		printf("  fill: %llu %s (%.2f%%)%s\n",
		       (unsigned long long)d->fill, fill_what(p->type),
		       100.0 * (double)d->fill / (double)cells,
		       p->type == KBLOOM_TYPE_MULTI ? ", all dimensions" : "");
	else
		printf("  fill: ?\n");
	if (has_counters(p->type) && p->type != KBLOOM_TYPE_DCF)
		printf("  %s: %s\n",
		       p->type == KBLOOM_TYPE_STABLE ? "cells at maximum" :
		       "saturated counters",
		       opt_u64(d, KB_HAVE_SATURATED, d->saturated));
	printf("  inserts: %s\n", opt_u64(d, KB_HAVE_INSERTS, d->inserts));
	if (kb_type_counts(p->type))
		printf("  deletes: %s\n",
		       opt_u64(d, KB_HAVE_DELETES, d->deletes));
	printf("  queries: %s\n", opt_u64(d, KB_HAVE_QUERIES, d->queries));
	printf("  positives: %s\n",
	       opt_u64(d, KB_HAVE_POSITIVES, d->positives));
	printf("  generation: %s\n",
	       opt_u64(d, KB_HAVE_GENERATION, d->generation));
	if (!known)
		return;
	if (d->have & KB_HAVE_FILL) {
		double n = card_keys(p, d->fill);

		if (isnan(n))
			printf("  estimated keys: none\n");
		else if (isinf(n))
			printf("  estimated keys: saturated\n");
		else
			printf("  estimated keys: %.1f%s\n", n,
			       p->type == KBLOOM_TYPE_MULTI ?
			       " (distinct values per dimension)" : "");
		printf("  estimate basis: %s\n", card_basis(p->type));
		printf("  fpr now: %.3g%s\n", card_fpr_now(p, d->fill),
		       p->type == KBLOOM_TYPE_MULTI ? " per dimension" :
		       p->type == KBLOOM_TYPE_PARTITIONED ? " (at most)" : "");
	}
	if (p->type == KBLOOM_TYPE_STABLE) {
		printf("  fpr at the stable point: %.3g (%.1f%% of the cells zero)\n",
		       kb_params_fpr(p, 0),
		       100 * sizing_stable_zero(p->m, p->k, p->counter_bits,
						p->decrement));
		return;
	}
	if (!(d->have & KB_HAVE_CAPACITY) || !d->capacity)
		return;
	printf("  fpr at capacity: %.3g%s\n",
	       kb_params_fpr(p, (double)d->capacity),
	       p->type == KBLOOM_TYPE_MULTI ? " per dimension" : "");
	if (p->type == KBLOOM_TYPE_COUNTING)
		printf("  overflow at capacity: at most %s\n",
		       fmt_pow10(sizing_overflow_log10(p->m, p->k,
						       (double)d->capacity,
						       p->counter_bits)));
}

void kb_json_time(struct json *j, const char *key, uint64_t ns)
{
	char buf[KB_TIME_STR_MAX], nskey[32];

	json_key(j, key);
	if (ns)
		json_str(j, kb_time_str(ns, true, buf, sizeof(buf)));
	else
		json_null(j);
	snprintf(nskey, sizeof(nskey), "%s_ns", key);
	json_key(j, nskey);
	json_u64(j, ns);
}

void kb_window_note(struct kb_window_desc **win, size_t *n, size_t *cap,
		    const struct kb_window_desc *w)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if ((*win)[i].id == w->id) {
			if (w->end || !(*win)[i].end)
				(*win)[i] = *w;
			return;
		}
	}
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*win = xrealloc(*win, *cap * sizeof(**win));
	}
	(*win)[(*n)++] = *w;
}

void kb_window_json(struct json *j, const struct kb_window_desc *w)
{
	json_obj_begin(j);
	json_key(j, "id");
	json_u64(j, w->id);
	kb_json_time(j, "start", w->start);
	kb_json_time(j, "end", w->end);
	json_key(j, "packets");
	json_u64(j, w->packets);
	json_key(j, "fill");
	json_u64(j, w->fill);
	json_obj_end(j);
}

/* windows, interval_ms, window_list and attach of show -j / list -j. */
static void json_paging(struct json *j, const struct kb_desc *d)
{
	const struct kb_attach_desc *at = &d->attach;
	unsigned int i, lo, hi;

	if (d->have & KB_HAVE_WINDOWS) {
		json_key(j, "windows");
		json_u64(j, d->windows);
		json_key(j, "interval_ms");
		json_u64(j, d->interval_ms);
		if (d->have & KB_HAVE_WINDOW_LIST) {
			json_key(j, "window_list");
			json_arr_begin(j);
			for (i = 0; i < d->nwin; i++)
				kb_window_json(j, &d->win[i]);
			json_arr_end(j);
		}
	}
	if (!(d->have & KB_HAVE_ATTACH))
		return;
	json_key(j, "attach");
	json_obj_begin(j);
	json_key(j, "hook");
	json_str(j, kb_hook_str(at->hook));
	json_key(j, "family");
	json_str(j, kb_family_str(at->family));
	json_key(j, "digest");
	if (at->digest)
		json_str(j, kb_digest_str(at->digest));
	else
		json_null(j);
	json_key(j, "dev");
	if (at->ifname[0])
		json_str(j, at->ifname);
	else
		json_null(j);
	json_key(j, "seen");
	json_u64(j, at->seen);
	json_key(j, "digested");
	json_u64(j, at->digested);
	json_key(j, "skipped");
	json_u64(j, skipped_total(at));
	json_key(j, "skipped_by_reason");
	json_obj_begin(j);
	skip_range(d, &lo, &hi);
	for (i = lo; i <= hi; i++) {
		json_key(j, kb_skip_str(i));
		json_u64(j, at->skipped[i]);
	}
	json_obj_end(j);
	json_obj_end(j);
}

/* growth ... fpr_limit of a scalable filter's JSON object. */
static void json_scalable(struct json *j, const struct kb_desc *d)
{
	uint32_t i;

	json_key(j, "growth");
	json_u64(j, d->p.growth);
	json_key(j, "tighten");
	json_double(j, d->p.tighten / 1e6);
	json_key(j, "overflow");
	json_u64(j, d->overflow);
	json_key(j, "grow_error");
	if (d->grow_error)
		json_str(j, kb_grow_name(d->grow_error));
	else
		json_null(j);
	json_key(j, "keys");
	json_u64(j, slices_keys(d));
	json_key(j, "slices");
	json_arr_begin(j);
	for (i = 0; i < d->nslices; i++) {
		const struct kb_slice_desc *s = &d->slice[i];

		json_obj_begin(j);
		json_key(j, "capacity");
		json_u64(j, s->capacity);
		json_key(j, "bits");
		json_u64(j, s->m);
		json_key(j, "hashes");
		json_u64(j, s->k);
		json_key(j, "keys");
		json_u64(j, s->keys);
		json_key(j, "fill");
		json_u64(j, s->fill);
		json_key(j, "current");
		json_bool(j, s->current);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "fpr_now");
	json_double(j, slices_fpr_now(d));
	json_key(j, "fpr_limit");
	json_double(j, sizing_scalable_limit(&d->p));
}

/*
 * show -j / list -j object. Fields (absent when the kernel did not report
 * them or the type has none):
 *   name, type, bits (m, cells), hashes (k),
 *   counter_bits, update ("plain"|"conservative") (counting),
 *   counter_bits, decrement (stable), subtables, bucket_cells, fp_bits
 *   (dleft), dims (array of names, multi),
 *   capacity, memory, fill, fill_percent, saturated_counters (counting,
 *   stable, dleft), inserts, deletes (counting, dleft), queries,
 *   positives, generation,
 *   saturated (fill = cells), estimated_keys (null when saturated or for
 *   stable), estimate_basis, fpr_now, fpr_at_capacity,
 *   overflow_at_capacity and overflow_log10_at_capacity (counting),
 *   fpr_stable_point and stable_zero_fraction (stable),
 *   windows, interval_ms and window_list ([{id, start, start_ns, end,
 *   end_ns, packets, fill}], show only) (time-paged filters),
 *   attach ({hook, family, digest, dev, seen, digested, skipped,
 *   skipped_by_reason: {short, malformed, fragment, gso}}) when attached,
 *   scalable: growth, tighten (the ratio), overflow, grow_error (null or
 *   "max_memory", "filter_limit", "shape_limit", "nomem"), keys, slices
 *   ([{capacity, bits, hashes, keys, fill, current}]), fpr_now (from the
 *   slices' fills), fpr_limit (P0/(1-r)); bits, hashes and capacity are
 *   the first slice's, fill and fill_percent over every slice;
 *   dcf: counter_bits (the CBFV's), ofv_bits, lost, grow_error,
 *   cell_bytes (CBFV + OFV now) and counting16_bytes (m 16-bit counters).
 */
void kb_desc_json(struct json *j, const struct kb_desc *d)
{
	const struct kb_params *p = &d->p;
	uint64_t cells = d->have & KB_HAVE_SLICES ? slices_bits(d) :
			 card_cells(p);
	unsigned int i;

	json_obj_begin(j);
	json_key(j, "name");
	json_str(j, d->name);
	json_key(j, "type");
	json_str(j, kb_type_str(p->type));
	json_key(j, "bits");
	json_u64(j, p->m);
	json_key(j, "hashes");
	json_u64(j, p->k);
#define PARAM(key, field)			\
	do {					\
		if (p->field) {			\
			json_key(j, key);	\
			json_u64(j, p->field);	\
		}				\
	} while (0)
	PARAM("counter_bits", counter_bits);
	if (p->type == KBLOOM_TYPE_COUNTING) {
		json_key(j, "update");
		json_str(j, kb_update_name(p->update));
	}
	PARAM("decrement", decrement);
	PARAM("subtables", subtables);
	PARAM("bucket_cells", bucket_cells);
	PARAM("fp_bits", fp_bits);
#undef PARAM
	if (p->type == KBLOOM_TYPE_MULTI) {
		json_key(j, "dims");
		json_arr_begin(j);
		for (i = 0; i < d->dims.n; i++)
			json_str(j, d->dims.name[i]);
		json_arr_end(j);
	}
#define OPT(key, field, bit)			\
	do {					\
		if (d->have & (bit)) {		\
			json_key(j, key);	\
			json_u64(j, d->field);	\
		}				\
	} while (0)
	OPT("capacity", capacity, KB_HAVE_CAPACITY);
	OPT("memory", memory, KB_HAVE_MEMORY);
	OPT("fill", fill, KB_HAVE_FILL);
	if (d->have & KB_HAVE_FILL) {
		json_key(j, "fill_percent");
		json_double(j, 100.0 * (double)d->fill / (double)cells);
	}
	if (has_counters(p->type))
		OPT("saturated_counters", saturated, KB_HAVE_SATURATED);
	OPT("inserts", inserts, KB_HAVE_INSERTS);
	if (kb_type_counts(p->type))
		OPT("deletes", deletes, KB_HAVE_DELETES);
	OPT("queries", queries, KB_HAVE_QUERIES);
	OPT("positives", positives, KB_HAVE_POSITIVES);
	OPT("generation", generation, KB_HAVE_GENERATION);
#undef OPT
	json_paging(j, d);
	if (d->have & KB_HAVE_OFV) {
		json_key(j, "ofv_bits");
		json_u64(j, d->ofv_bits);
		json_key(j, "lost");
		json_u64(j, d->lost);
		json_key(j, "grow_error");
		if (d->grow_error)
			json_str(j, kb_grow_name(d->grow_error));
		else
			json_null(j);
		json_key(j, "cell_bytes");
		json_u64(j, dcf_cell_bytes(d));
		json_key(j, "counting16_bytes");
		json_u64(j, sizing_vec_bytes(p->m, 16));
	}
	if (d->have & KB_HAVE_SLICES) {
		json_scalable(j, d);
		goto out;
	}
	if (!params_known(p))
		goto out;
	if (d->have & KB_HAVE_FILL) {
		double n = card_keys(p, d->fill);

		json_key(j, "saturated");
		json_bool(j, d->fill >= cells);
		json_key(j, "estimated_keys");
		json_double(j, n);	/* null when not finite */
		json_key(j, "estimate_basis");
		json_str(j, card_basis(p->type));
		json_key(j, "fpr_now");
		json_double(j, card_fpr_now(p, d->fill));
	}
	if (p->type == KBLOOM_TYPE_STABLE) {
		json_key(j, "fpr_stable_point");
		json_double(j, kb_params_fpr(p, 0));
		json_key(j, "stable_zero_fraction");
		json_double(j, sizing_stable_zero(p->m, p->k, p->counter_bits,
						  p->decrement));
	} else if ((d->have & KB_HAVE_CAPACITY) && d->capacity) {
		json_key(j, "fpr_at_capacity");
		json_double(j, kb_params_fpr(p, (double)d->capacity));
		if (p->type == KBLOOM_TYPE_COUNTING) {
			double x = sizing_overflow_log10(p->m, p->k,
							 (double)d->capacity,
							 p->counter_bits);

			json_key(j, "overflow_at_capacity");
			json_double(j, pow(10, x));
			json_key(j, "overflow_log10_at_capacity");
			json_double(j, x);
		}
	}
out:
	json_obj_end(j);
}

void kb_desc_figures(const struct kb_desc *d, struct kb_desc_figures *f)
{
	const struct kb_params *p = &d->p;
	uint64_t cells = d->have & KB_HAVE_SLICES ? slices_bits(d) :
			 card_cells(p);

	f->fill_ratio = f->estimated_keys = f->fpr_now = NAN;
	f->fpr_at_capacity = f->fpr_limit = f->slice_keys = NAN;
	if (d->have & KB_HAVE_FILL)
		f->fill_ratio = (double)d->fill / (double)cells;
	if (d->have & KB_HAVE_SLICES) {
		f->slice_keys = (double)slices_keys(d);
		f->fpr_now = slices_fpr_now(d);
		f->fpr_limit = sizing_scalable_limit(&d->p);
		return;
	}
	if (!params_known(p))
		return;
	if (d->have & KB_HAVE_FILL) {
		f->estimated_keys = card_keys(p, d->fill);
		f->fpr_now = card_fpr_now(p, d->fill);
	}
	if (p->type == KBLOOM_TYPE_STABLE)
		f->fpr_limit = kb_params_fpr(p, 0);
	else if ((d->have & KB_HAVE_CAPACITY) && d->capacity)
		f->fpr_at_capacity = kb_params_fpr(p, (double)d->capacity);
}
