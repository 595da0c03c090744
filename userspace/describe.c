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
#include "typeopts.h"
#include "types.h"
#include "util.h"

const char *kb_type_name(uint32_t type)
{
	const struct kb_type_desc *t = kb_type_desc(type);

	return t ? t->name : NULL;
}

int kb_type_parse(const char *name)
{
	uint32_t i;

	for (i = 0; i <= KBLOOM_TYPE_MAX; i++)
		if (kb_type_name(i) && !strcmp(kb_type_name(i), name))
			return i;
	return -1;
}

const char *kb_type_list(void)
{
	static __thread char buf[256];
	size_t n = 0;
	uint32_t i;

	if (buf[0])
		return buf;
	for (i = 0; i <= KBLOOM_TYPE_MAX; i++)
		if (kb_type_name(i) && n < sizeof(buf))
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s",
				      n ? ", " : "", kb_type_name(i));
	return buf;
}

const char *kb_type_str(uint32_t type)
{
	static __thread char buf[24];
	const char *s = kb_type_name(type);

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "type-%u", type);
	return buf;
}

bool kb_type_counts(uint32_t type)
{
	const struct kb_type_desc *t = kb_type_desc(type);

	return t && t->counts;
}

bool kb_type_saturates(uint32_t type)
{
	const struct kb_type_desc *t = kb_type_desc(type);

	return t && t->saturated;
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

const char *kb_window_span(const struct kb_window_desc *w)
{
	static __thread char buf[2 * KB_TIME_STR_MAX + 8];
	char a[KB_TIME_STR_MAX], b[KB_TIME_STR_MAX];

	snprintf(buf, sizeof(buf), "%s to %s",
		 kb_time_str(w->start, false, a, sizeof(a)),
		 w->end ? kb_time_str(w->end, false, b, sizeof(b)) : "now");
	return buf;
}
/* An optional counter as text: the number, or "?" when not reported. */
static const char *opt_u64(const struct kb_desc *d, unsigned int bit,
			   uint64_t v)
{
	static __thread char bufs[8][24];
	static __thread unsigned int next;
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
 * The skip reasons an attachment of @d can give: a digest's, or a table
 * of records' (transforms).
 */
static void skip_range(const struct kb_desc *d, unsigned int *lo,
		       unsigned int *hi)
{
	bool records = kb_utype_records(d->p.type);

	*lo = records ? KBLOOM_SKIP_UNTRANSFORMED : KBLOOM_SKIP_SHORT;
	*hi = records ? KBLOOM_SKIP_FULL : KBLOOM_SKIP_GSO;
}

static uint64_t skipped_total(const struct kb_attach_desc *at)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 1; i <= KBLOOM_SKIP_MAX; i++)
		n += at->skipped[i];
	return n;
}

/* A type's text after a figure (types.h), "" when it has none. */
static const char *note(const char *s)
{
	return s ? s : "";
}

/*
 * The estimates need a type this tool knows, of keys (records: no keys
 * to estimate, no rate), and the parameters its maths reads: were they
 * all reported?
 */
static bool params_known(const struct kb_shape *p)
{
	const struct kb_utype *t = kb_utype(p->type);

	if (!kb_type_name(p->type) || kb_utype_records(p->type))
		return false;
	return !t->params_known || t->params_known(p);
}

/* A dcf's cells now: the CBFV and the OFV, each in whole words. */
static uint64_t dcf_cell_bytes(const struct kb_desc *d)
{
	return sizing_vec_bytes(d->p.m, d->p.cell_bits) +
	       sizing_vec_bytes(d->p.m, d->ofv_bits);
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

/*
 * show and show -j, one renderer (print.h): each field is named once with
 * its JSON key and its text; the two forms differ in order in places (the
 * JSON object keeps the order scripts have read since its first version),
 * and there a block is written once and called through each form's view
 * (kb_out_only) where that form has it.
 */

/* The part of a window whose text format is @fmt: JSON only when NULL. */
static enum kb_print_where window_part(const char *fmt)
{
	return fmt ? KB_PRINT_ANY : KB_PRINT_JSON;
}

void kb_print_window(const struct kb_out *o, const char *key,
		     const struct kb_window_fmt *f,
		     const struct kb_window_desc *w)
{
	kb_print_obj_begin(o, key);
	kb_print_u64(o, window_part(f->id), "id", f->id, w->id);
	if (f->span)
		kb_print_str(o, KB_PRINT_TEXT, NULL, f->span,
			     kb_window_span(w));
	kb_print_time(o, KB_PRINT_JSON, "start", NULL, w->start);
	kb_print_time(o, KB_PRINT_JSON, "end", NULL, w->end);
	kb_print_u64(o, window_part(f->packets), "packets", f->packets,
		     w->packets);
	kb_print_u64(o, window_part(f->fill), "fill", f->fill, w->fill);
	kb_print_obj_end(o);
}

/* show's window line. */
static const struct kb_window_fmt show_window = {
	.id = "  window %llu: ", .span = "%s", .packets = ", inserts %llu",
	.fill = ", fill %llu",
};

static void render_window(const struct kb_out *o,
			  const struct kb_window_desc *w)
{
	kb_print_window(o, NULL, &show_window, w);
	kb_print_text(o, "%s\n", w->end ? "" : " (current)");
}

void kb_window_json(struct json *j, const struct kb_window_desc *w)
{
	struct kb_out o;

	kb_out_json(&o, j);
	kb_print_window(&o, NULL, &show_window, w);
}

/*
 * What may carry packets past the attachment now (KBLOOM_BYPASS_*, from
 * the kernel): text only when something may, JSON always (an array, empty
 * when nothing). Bits newer than this tool show as their number.
 */
static void render_bypass(const struct kb_out *o, uint32_t bypass)
{
	bool first = true;
	unsigned int i;

	kb_print_arr_begin(o, "bypass");
	for (i = 0; i < 32; i++) {
		if (!(bypass & (1u << i)))
			continue;
		kb_print_text(o, first ? "  bypass: " : ", ");
		kb_print_str(o, KB_PRINT_ANY, NULL, "%s", kb_bypass_str(i));
		first = false;
	}
	if (!first)
		kb_print_text(o, " (packets these carry do not reach this hook)\n");
	kb_print_arr_end(o);
}

/* The windows and the attachment. */
static void render_paging(const struct kb_out *o, const struct kb_desc *d)
{
	const struct kb_attach_desc *at = &d->attach;
	char iv[KB_TIME_STR_MAX];
	unsigned int i, lo, hi;

	if (d->have & KB_HAVE_WINDOWS) {
		kb_print_u64(o, KB_PRINT_ANY, "windows", "  windows: %llu",
			     d->windows);
		kb_print_text(o, " of %s\n",
			      kb_duration_str(d->interval_ms, iv, sizeof(iv)));
		kb_print_u64(o, KB_PRINT_JSON, "interval_ms", NULL,
			     d->interval_ms);
		if (d->have & KB_HAVE_WINDOW_LIST) {
			kb_print_arr_begin(o, "window_list");
			for (i = 0; i < d->nwin; i++)
				render_window(o, &d->win[i]);
			kb_print_arr_end(o);
		}
	}
	if (!(d->have & KB_HAVE_ATTACH)) {
		kb_print_text(o, "  attached: no\n");
		return;
	}
	kb_print_obj_begin(o, "attach");
	kb_print_str(o, KB_PRINT_ANY, "hook", "  attached: hook %s",
		     kb_hook_str(at->hook));
	if (at->ifname[0])
		kb_print_text(o, " dev %s", at->ifname);
	kb_print_str(o, KB_PRINT_ANY, "family", " family %s",
		     kb_family_str(at->family));
	kb_print_str(o, KB_PRINT_ANY, "digest", " digest %s",
		     at->digest ? kb_digest_str(at->digest) : NULL);
	kb_print_str(o, KB_PRINT_JSON, "dev", NULL,
		     at->ifname[0] ? at->ifname : NULL);
	kb_print_u64(o, KB_PRINT_ANY, "seen", "\n  packets seen: %llu\n",
		     at->seen);
	kb_print_u64(o, KB_PRINT_ANY, "digested",
		     at->digest ? "  packets digested: %llu\n" :
		     "  packets recorded: %llu\n", at->digested);
	kb_print_u64(o, KB_PRINT_ANY, "skipped", "  packets skipped: %llu (",
		     skipped_total(at));
	kb_print_obj_begin(o, "skipped_by_reason");
	skip_range(d, &lo, &hi);
	for (i = lo; i <= hi; i++) {
		kb_print_text(o, "%s%s ", i > lo ? ", " : "", kb_skip_str(i));
		kb_print_u64(o, KB_PRINT_ANY, kb_skip_str(i), "%llu",
			     at->skipped[i]);
	}
	kb_print_obj_end(o);
	kb_print_text(o, ")\n");
	render_bypass(o, at->bypass);
	kb_print_obj_end(o);
}

/*
 * The type's parameters, from the table of typeopts.c: those the type
 * takes (of a type newer than this tool, JSON shows the numbers the
 * kernel sent). JSON leaves out a number 0 (not reported).
 */
static void render_params(const struct kb_out *o, const struct kb_desc *d)
{
	const struct kb_shape *p = &d->p;
	const struct kb_utype *ut = kb_utype(p->type);
	bool known = kb_type_name(p->type) != NULL;
	unsigned int n;
	int i;

	for (i = 0; i < TO_NUM; i++) {
		const struct kb_param *t = &kb_param_table[i];
		uint32_t v = kb_param_get(p, i);

		if (known ? !kb_param_taken(i, p->type) :
		    !kb_out_is_json(o) || t->kind != KB_PARAM_U32)
			continue;
		switch (t->kind) {
		case KB_PARAM_U32:
			if (kb_out_is_json(o) && !v)
				continue;
			kb_print_text(o, "%s", t->text);
			kb_print_u64(o, KB_PRINT_ANY, t->json, "%llu", v);
			if (i == TO_COUNTER_BITS && ut->show_counter_bits)
				ut->show_counter_bits(o, v);
			break;
		case KB_PARAM_NAMED:
			kb_print_text(o, "%s", t->text);
			kb_print_str(o, KB_PRINT_ANY, t->json, "%s",
				     kb_param_name(i, v));
			break;
		case KB_PARAM_RATIO:
			kb_print_text(o, "%s", t->text);
			kb_print_double(o, KB_PRINT_ANY, t->json, "%g",
					v / 1e6);
			break;
		case KB_PARAM_DIMS:
			kb_print_text(o, "%s%s", t->text, dims_list(&d->dims));
			kb_print_arr_begin(o, t->json);
			for (n = 0; n < d->dims.n; n++)
				kb_print_str(o, KB_PRINT_JSON, NULL, NULL,
					     d->dims.name[n]);
			kb_print_arr_end(o);
			break;
		}
		kb_print_text(o, "\n");
	}
}

/* name, type, bits and hashes (a scalable filter's: its first slice's). */
static void render_head(const struct kb_out *o, const struct kb_desc *d)
{
	const struct kb_shape *p = &d->p;
	const char *m_note = kb_utype(p->type)->m_note;
	bool slices = d->have & KB_HAVE_SLICES;
	const char *first = slices ? " (first slice)" : "";

	kb_print_str(o, KB_PRINT_ANY, "name", "filter: %s\n", d->name);
	kb_print_str(o, KB_PRINT_ANY, "type", "  type: %s\n",
		     kb_type_str(p->type));
	kb_print_u64(o, KB_PRINT_ANY, "bits",
		     slices || kb_params_cell_bits(p) == 1 ?
		     "  bits (m): %llu" : "  cells (m): %llu", p->m);
	kb_print_text(o, "%s\n", m_note ? m_note : first);
	kb_print_u64(o, KB_PRINT_ANY, "hashes", "  hashes (k): %llu", p->k);
	kb_print_text(o, "%s\n", first);
}

/* memory: N bytes (human); "memory: ?" when not reported and @unknown. */
static void render_memory(const struct kb_out *o, const struct kb_desc *d,
			  bool unknown)
{
	if (d->have & KB_HAVE_MEMORY) {
		kb_print_u64(o, KB_PRINT_ANY, "memory", "  memory: %llu bytes",
			     d->memory);
		kb_print_text(o, " (%s)\n", human_bytes(d->memory));
	} else if (unknown) {
		kb_print_text(o, "  memory: ?\n");
	}
}

/* A counter the kernel may leave out: "?" in the text, absent in JSON. */
static void render_opt(const struct kb_out *o, const struct kb_desc *d,
		       unsigned int bit, const char *key, const char *label,
		       uint64_t v)
{
	kb_print_text(o, "  %s: ", label);
	if (d->have & bit)
		kb_print_u64(o, KB_PRINT_ANY, key, "%llu\n", v);
	else
		kb_print_text(o, "?\n");
}

/* saturated ... generation. */
static void render_counters(const struct kb_out *o, const struct kb_desc *d)
{
	uint32_t type = d->p.type;

	if (kb_type_saturates(type))
		render_opt(o, d, KB_HAVE_SATURATED, "saturated_counters",
			   kb_type_desc(type)->saturated, d->saturated);
	render_opt(o, d, KB_HAVE_INSERTS, "inserts", "inserts", d->inserts);
	if (kb_type_counts(type))
		render_opt(o, d, KB_HAVE_DELETES, "deletes", "deletes",
			   d->deletes);
	render_opt(o, d, KB_HAVE_QUERIES, "queries", "queries", d->queries);
	render_opt(o, d, KB_HAVE_POSITIVES, "positives", "positives",
		   d->positives);
	render_opt(o, d, KB_HAVE_GENERATION, "generation", "generation",
		   d->generation);
}

/* One slice of a scalable filter. */
static void render_slice(const struct kb_out *o, uint32_t i,
			 const struct kb_slice_desc *s, bool past)
{
	kb_print_obj_begin(o, NULL);
	kb_print_text(o, "  slice %u: ", i);
	kb_print_u64(o, KB_PRINT_ANY, "capacity", "capacity %llu", s->capacity);
	kb_print_u64(o, KB_PRINT_ANY, "bits", ", bits %llu", s->m);
	kb_print_u64(o, KB_PRINT_ANY, "hashes", ", hashes %llu", s->k);
	kb_print_u64(o, KB_PRINT_ANY, "keys", ", keys %llu", s->keys);
	kb_print_u64(o, KB_PRINT_ANY, "fill", ", fill %llu", s->fill);
	kb_print_text(o, " (%.1f%%)%s\n",
		      100.0 * (double)s->fill / (double)s->m,
		      s->current ? " (current)" : past ? " (made ahead)" : "");
	kb_print_bool(o, KB_PRINT_JSON, "current", NULL, s->current);
	kb_print_obj_end(o);
}

static void render_slices(const struct kb_out *o, const struct kb_desc *d)
{
	bool past = false;
	uint32_t i;

	kb_print_text(o, "  slices: %u\n", d->nslices);
	kb_print_arr_begin(o, "slices");
	for (i = 0; i < d->nslices; i++) {
		render_slice(o, i, &d->slice[i], past);
		past = past || d->slice[i].current;
	}
	kb_print_arr_end(o);
}

/*
 * A scalable filter's growth. The two forms write it in other places and
 * orders (text: keys, overflow, growth; JSON: overflow, grow_error, keys),
 * hence keys for each form apart.
 */
static void render_growth(const struct kb_out *o, const struct kb_desc *d)
{
	kb_print_u64(o, KB_PRINT_TEXT, NULL,
		     "  keys: %llu (that set a bit; a key already present is not added again)\n",
		     slices_keys(d));
	kb_print_u64(o, KB_PRINT_ANY, "overflow",
		     "  overflow: %llu keys beyond a full slice\n", d->overflow);
	kb_print_str(o, KB_PRINT_JSON, "grow_error", NULL,
		     d->grow_error ? kb_grow_name(d->grow_error) : NULL);
	kb_print_str(o, KB_PRINT_TEXT, NULL, "  growth: %s\n",
		     kb_grow_text(d->grow_error));
	kb_print_u64(o, KB_PRINT_JSON, "keys", NULL, slices_keys(d));
}

/*
 * A scalable filter: the text follows the slices' plan; JSON has the
 * common fields first, then growth ... fpr_limit. A block the two place
 * apart is written through each form's view (kb_out_only) where it has it.
 */
static void render_scalable(const struct kb_out *o, const struct kb_desc *d)
{
	enum kb_print_where fill = d->have & KB_HAVE_FILL ? KB_PRINT_ANY :
				   KB_PRINT_TEXT;
	uint64_t bits = slices_bits(d);
	struct kb_out text, json;

	kb_out_only(&text, o, KB_PRINT_TEXT);
	kb_out_only(&json, o, KB_PRINT_JSON);
	render_head(o, d);
	kb_print_u64(o, d->have & KB_HAVE_CAPACITY ? KB_PRINT_ANY :
		     KB_PRINT_TEXT, "capacity",
		     "  capacity: %llu (first slice)\n", d->capacity);
	render_params(&text, d);
	render_memory(o, d, false);
	kb_print_u64(o, fill, "fill", "  fill: %llu bits set (", d->fill);
	kb_print_double(o, fill, "fill_percent", "%.2f%%",
			100.0 * (double)d->fill / (double)bits);
	kb_print_u64(o, KB_PRINT_TEXT, NULL, " of the slices' %llu bits)\n",
		     bits);
	render_slices(&text, d);
	render_growth(&text, d);
	render_counters(o, d);
	render_paging(&json, d);
	render_params(&json, d);
	render_growth(&json, d);
	render_slices(&json, d);
	kb_print_double(o, KB_PRINT_ANY, "fpr_now",
			"  fpr now: %.3g (1 - prod(1 - (fill_i/m_i)^k_i) over the slices)\n",
			slices_fpr_now(d));
	kb_print_double(o, KB_PRINT_ANY, "fpr_limit",
			"  fpr limit: %.3g (P0/(1-r), P0 the first slice's rate at capacity: any number of keys)\n",
			sizing_scalable_limit(&d->p));
	render_paging(&text, d);
}

/*
 * A dcf's overflow vector, lost increments and growth. The text has it
 * after the memory, JSON after the attachment, in another order: the
 * sizes for each form apart. (The text's overflow vector line is above,
 * by the parameters.)
 */
static void render_dcf(const struct kb_out *o, const struct kb_desc *d)
{
	uint64_t cells = dcf_cell_bytes(d), c16 = sizing_vec_bytes(d->p.m, 16);

	kb_print_u64(o, KB_PRINT_TEXT, NULL,
		     "  memory of the cells: %llu bytes; ", cells);
	kb_print_u64(o, KB_PRINT_TEXT, NULL,
		     "counting counter-bits 16: %llu bytes ", c16);
	kb_print_double(o, KB_PRINT_TEXT, NULL, "(%.2f of it)\n",
			(double)cells / c16);
	kb_print_u64(o, KB_PRINT_JSON, "ofv_bits", NULL, d->ofv_bits);
	kb_print_u64(o, KB_PRINT_ANY, "lost", "  increments lost: %llu",
		     d->lost);
	kb_print_text(o, "%s\n", d->lost ?
		      " (counts may be low; del refused until clear)" : "");
	kb_print_str(o, KB_PRINT_JSON, "grow_error", NULL,
		     d->grow_error ? kb_grow_name(d->grow_error) : NULL);
	kb_print_str(o, KB_PRINT_TEXT, NULL, "  overflow vector growth: %s\n",
		     d->grow_error ? kb_grow_text(d->grow_error) :
		     "widens as counts grow");
	kb_print_u64(o, KB_PRINT_JSON, "cell_bytes", NULL, cells);
	kb_print_u64(o, KB_PRINT_JSON, "counting16_bytes", NULL, c16);
}

/* Estimated keys and rates, when the type's parameters are known. */
static void render_estimates(const struct kb_out *o, const struct kb_desc *d)
{
	const struct kb_shape *p = &d->p;
	const struct kb_utype *t = kb_utype(p->type);
	uint64_t cells = card_cells(p);

	if (!params_known(p))
		return;
	if (d->have & KB_HAVE_FILL) {
		double n = card_keys(p, d->fill);

		kb_print_bool(o, KB_PRINT_JSON, "saturated", NULL,
			      d->fill >= cells);
		/* JSON: null when not finite */
		kb_print_double(o, isfinite(n) ? KB_PRINT_ANY : KB_PRINT_JSON,
				"estimated_keys", "  estimated keys: %.1f", n);
		if (!isfinite(n))
			kb_print_text(o, "  estimated keys: %s",
				      isnan(n) ? "none" : "saturated");
		kb_print_text(o, "%s\n", isfinite(n) ? note(t->keys_note) : "");
		kb_print_str(o, KB_PRINT_ANY, "estimate_basis",
			     "  estimate basis: %s\n", card_basis(p->type));
		kb_print_double(o, KB_PRINT_ANY, "fpr_now", "  fpr now: %.3g",
				card_fpr_now(p, d->fill));
		kb_print_text(o, "%s\n", note(t->fpr_now_note));
	}
	if (kb_utype_caps(p->type) & KB_CAP_FORGETS) {
		if (t->show_limit)
			t->show_limit(o, p);
		return;
	}
	if (!(d->have & KB_HAVE_CAPACITY) || !d->capacity)
		return;
	kb_print_double(o, KB_PRINT_ANY, "fpr_at_capacity",
			"  fpr at capacity: %.3g",
			kb_params_fpr(p, (double)d->capacity));
	kb_print_text(o, "%s\n", note(t->capacity_note));
	if (t->show_at_capacity)
		t->show_at_capacity(o, p, d->capacity);
}

static void render_filter(const struct kb_out *o, const struct kb_desc *d)
{
	const struct kb_shape *p = &d->p;
	bool dcf = d->have & KB_HAVE_OFV;
	struct kb_out text, json;

	kb_out_only(&text, o, KB_PRINT_TEXT);
	kb_out_only(&json, o, KB_PRINT_JSON);
	render_head(o, d);
	render_params(o, d);
	if (dcf)
		kb_print_u64(o, KB_PRINT_TEXT, NULL,
			     "  overflow vector: %llu bits per cell (OFV; doubles as counts grow)\n",
			     d->ofv_bits);
	if (!(d->have & KB_HAVE_CAPACITY)) {
		kb_print_text(o, "  capacity: ?\n");
	} else if (!d->capacity) {
		kb_print_u64(o, KB_PRINT_JSON, "capacity", NULL, 0);
		kb_print_text(o, "  capacity: not set\n");
	} else {
		kb_print_u64(o, KB_PRINT_ANY, "capacity", "  capacity: %llu\n",
			     d->capacity);
	}
	render_memory(o, d, true);
	if (dcf)
		render_dcf(&text, d);
	if (d->have & KB_HAVE_FILL) {
		kb_print_u64(o, KB_PRINT_ANY, "fill", "  fill: %llu", d->fill);
		kb_print_text(o, " %s (", kb_type_desc(p->type) ?
			      kb_type_desc(p->type)->fill_what : "bits set");
		kb_print_double(o, KB_PRINT_ANY, "fill_percent", "%.2f%%",
				100.0 * (double)d->fill /
				(double)card_cells(p));
		kb_print_text(o, ")%s\n", note(kb_utype(p->type)->fill_note));
	} else {
		kb_print_text(o, "  fill: ?\n");
	}
	render_counters(o, d);
	render_paging(&json, d);
	if (dcf)
		render_dcf(&json, d);
	render_estimates(o, d);
	render_paging(&text, d);
}

/*
 * show / show -j and list -j. JSON fields (absent when the kernel did not
 * report them or the type has none):
 *   name, type, bits (m, cells), hashes (k),
 *   the type's parameters (typeopts.c): counter_bits, update
 *   ("plain"|"conservative") (counting), counter_bits, decrement
 *   (stable), subtables, bucket_cells, fp_bits (dleft), dims (array of
 *   names, multi), counter_bits (dcf),
 *   capacity, memory, fill, fill_percent, saturated_counters (counting,
 *   stable, dleft), inserts, deletes (counting, dleft), queries,
 *   positives, generation,
 *   windows, interval_ms and window_list ([{id, start, start_ns, end,
 *   end_ns, packets, fill}], show only) (time-paged filters),
 *   attach ({hook, family, digest, dev, seen, digested, skipped,
 *   skipped_by_reason: {short, malformed, fragment, gso}}) when attached,
 *   saturated (fill = cells), estimated_keys (null when saturated or for
 *   stable), estimate_basis, fpr_now, fpr_at_capacity,
 *   overflow_at_capacity and overflow_log10_at_capacity (counting),
 *   fpr_stable_point and stable_zero_fraction (stable),
 *   scalable: growth, tighten (the ratio), overflow, grow_error (null or
 *   "max_memory", "filter_limit", "shape_limit", "nomem"), keys, slices
 *   ([{capacity, bits, hashes, keys, fill, current}]), fpr_now (from the
 *   slices' fills), fpr_limit (P0/(1-r)); bits, hashes and capacity are
 *   the first slice's, fill and fill_percent over every slice;
 *   dcf: ofv_bits, lost, grow_error, cell_bytes (CBFV + OFV now) and
 *   counting16_bytes (m 16-bit counters).
 */
void kb_desc_render(const struct kb_out *o, const struct kb_desc *d)
{
	kb_print_obj_begin(o, NULL);
	if (d->have & KB_HAVE_SLICES)
		render_scalable(o, d);
	else
		render_filter(o, d);
	kb_print_obj_end(o);
}

void kb_json_time(struct json *j, const char *key, uint64_t ns)
{
	struct kb_out o;

	kb_out_json(&o, j);
	kb_print_time(&o, KB_PRINT_JSON, key, NULL, ns);
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

void kb_desc_figures(const struct kb_desc *d, struct kb_desc_figures *f)
{
	const struct kb_shape *p = &d->p;
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
	if (kb_utype_caps(p->type) & KB_CAP_FORGETS)
		f->fpr_limit = kb_params_fpr(p, 0);
	else if ((d->have & KB_HAVE_CAPACITY) && d->capacity)
		f->fpr_at_capacity = kb_params_fpr(p, (double)d->capacity);
}
