// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * calc capacity N fpr P [type T] [windows W interval D] [OPTION...]
 * calc bits M hashes K capacity N [type T] [windows W interval D] [OPTION...]
 * Offline: the shape create would make (or the given one), per type, with
 * its exact false positive rate (sizing.c); nothing is sent. With windows,
 * also the memory of the whole time-paged filter: W + 1 tables, as the
 * module keeps them (kb_params_ring_bytes()).
 *
 * JSON: {"capacity":N,"fpr":P,"bound_bits_per_key":B,       (sizing)
 *        "bits":M,"hashes":K,                                (given shape)
 *        "windows":W,"interval_ms":I,"tables":W+1,           (windows)
 *        "types":[ROW,...]}
 * ROW with windows also has "total_bytes" (every table's cells).
 * ROW: {"type":T,"bits":m,"hashes":k,"bytes":BYTES,"bits_per_key":X,
 *       "fpr":F,"bound_bits_per_key":log2(1/F),
 *       counting: "counter_bits","update","overflow_bound","overflow_log10",
 *       stable: "counter_bits","decrement","stable_zero_fraction",
 *       dleft: "subtables","bucket_cells","fp_bits",
 *       multi: "dims" (a number; fpr per dimension, bytes of all),
 *       dcf: "counter_bits","ofv_bits" (at first),"counting16_bytes",
 *       scalable: "growth","tighten","fpr_limit","fpr_10x","fpr_100x"
 *       (m, k, bytes: the first slice)}
 * or {"type":T,"error":TEXT} when the type cannot be sized so.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "describe.h"
#include "print.h"
#include "sizing.h"
#include "typeopts.h"
#include "types.h"
#include "util.h"

enum { C_CAPACITY, C_FPR, C_BITS, C_HASHES, C_TYPE, C_WINDOWS, C_INTERVAL,
       C_NUM };
static const char *const calc_names[C_NUM] = {
	[C_CAPACITY] = "capacity",
	[C_FPR] = "fpr",
	[C_BITS] = "bits",
	[C_HASHES] = "hashes",
	[C_TYPE] = "type",
	[C_WINDOWS] = "windows",
	[C_INTERVAL] = "interval",
};

struct calc_req {
	bool sizing;		/* capacity/fpr, else bits/hashes/capacity */
	uint64_t n, bits;
	uint32_t hashes;
	double fpr;
	const char *fpr_text;
	const char *const *tval;
	uint32_t windows;	/* 0: not time-paged */
	uint64_t interval_ms;
	const char *interval_text;
};

struct calc_row {
	struct kb_shape p;
	char error[160];	/* empty when the row is valid */
	uint64_t n;		/* capacity: the keys of the figures */
	uint64_t bytes, total;	/* one table; every table (windows) */
	double bits_per_key, fpr, bound;
};

/* Computes one type's row. */
static void calc_one(const struct calc_req *q, uint32_t type,
		     struct calc_row *row)
{
	const struct kb_utype *t = kb_utype(type);
	uint32_t caps = kb_utype_caps(type);
	struct kb_shape *p = &row->p;
	struct kb_dims dims;
	int r;

	memset(row, 0, sizeof(*row));
	p->type = type;
	row->n = q->n;
	/* Checked before: cannot fail for the type asked for. */
	if (q->tval && typeopts_apply("calc", q->tval, p, &dims, true)) {
		snprintf(row->error, sizeof(row->error), "bad option");
		return;
	}
	if (q->sizing) {
		r = kb_params_size(p, q->n, q->fpr);
		if (r == -ERANGE)
			snprintf(row->error, sizeof(row->error),
				 "needs more than %llu cells or %llu bytes",
				 KBLOOM_BITS_MAX, KBLOOM_MEM_MAX);
		else if (r == -EDOM && t->size_edom)
			t->size_edom(row->error, sizeof(row->error), p, NULL);
		else if (r)
			snprintf(row->error, sizeof(row->error), "%s",
				 strerror(-r));
		if (r)
			return;
	} else {
		p->m = q->bits;
		p->k = t->hashes ? t->hashes : q->hashes;
		p->capacity = q->n;
		if (kb_params_complete(p)) {
			snprintf(row->error, sizeof(row->error),
				 "m rounded up to a multiple of %llu exceeds %llu",
				 (unsigned long long)kb_params_multiple(p),
				 KBLOOM_BITS_MAX);
			return;
		}
	}
	row->bytes = kb_params_bytes(p);
	row->total = kb_params_ring_bytes(p, q->windows);
	row->bits_per_key = (double)p->m * kb_params_cell_bits(p) *
			    kb_params_dims(p) / (double)q->n;
	row->fpr = kb_params_fpr(p, (double)q->n);
	row->bound = sizing_bound_bits(row->fpr);
	/* Slice 0 (the plan's first) holds capacity keys in its m bits. */
	if (kb_type_takes(type, KB_TAKES_PLAN) && p->capacity > p->m)
		snprintf(row->error, sizeof(row->error),
			 "capacity %llu is more than the %llu bits of the first slice",
			 (unsigned long long)p->capacity,
			 (unsigned long long)p->m);
	if (q->windows && !(caps & KB_CAP_WINDOWS))
		snprintf(row->error, sizeof(row->error), "%s",
			 caps & KB_CAP_FORGETS ?
			 "takes no windows (it already forgets)" :
			 "takes no windows (it grows)");
	else if (row->bytes > KBLOOM_MEM_MAX)
		snprintf(row->error, sizeof(row->error),
			 "%llu bytes, more than the %llu-byte limit",
			 (unsigned long long)row->bytes, KBLOOM_MEM_MAX);
	else if (kb_type_takes(type, KB_TAKES_DECREMENT) &&
		 p->decrement > p->m)
		snprintf(row->error, sizeof(row->error),
			 "decrement %u is more than the %llu cells",
			 p->decrement, (unsigned long long)p->m);
}

/*
 * The type's parameters (the table of params.c) and the figures that go
 * with them: "  counter-bits 4, update plain, overflow <= ..." in the
 * text's last column, "counter_bits":4,"update":"plain",... in JSON.
 */
static void render_params(const struct kb_out *o, const struct calc_row *r)
{
	const struct kb_shape *p = &r->p;
	const char *sep = "  ";
	int i;

	for (i = 0; i < TO_NUM; i++) {
		const struct kb_param *t = &kb_param_table[i];
		uint32_t v = kb_param_get(p, i);

		if (!kb_param_taken(i, p->type) || t->not_sized)
			continue;
		kb_print_text(o, "%s%s ", sep, t->keyword);
		sep = ", ";
		if (t->kind == KB_PARAM_NAMED)
			kb_print_str(o, KB_PRINT_ANY, t->json, "%s",
				     kb_param_name(i, v));
		else if (t->kind == KB_PARAM_RATIO)
			kb_print_double(o, KB_PRINT_ANY, t->json, "%g",
					v / 1e6);
		else	/* a number; dims: how many */
			kb_print_u64(o, KB_PRINT_ANY, t->json, "%llu", v);
	}
	/* The type's own figures: overflow bound, stable point, ... */
	if (kb_utype(p->type)->calc_figures)
		kb_utype(p->type)->calc_figures(o, p, r->n);
}

/* One type: a line of the table, or an object of "types". */
static void render_row(const struct kb_out *o, const struct calc_req *q,
		       const struct calc_row *r)
{
	kb_print_obj_begin(o, NULL);
	kb_print_str(o, KB_PRINT_ANY, "type", "%-11s ", kb_type_str(r->p.type));
	if (r->error[0]) {
		kb_print_str(o, KB_PRINT_ANY, "error", "%s\n", r->error);
		kb_print_obj_end(o);
		return;
	}
	kb_print_u64(o, KB_PRINT_ANY, "bits", "%10llu ", r->p.m);
	kb_print_u64(o, KB_PRINT_ANY, "hashes", "%2llu ", r->p.k);
	kb_print_u64(o, KB_PRINT_ANY, "bytes", "%10llu ", r->bytes);
	if (q->windows)
		kb_print_u64(o, KB_PRINT_ANY, "total_bytes", "%12llu ",
			     r->total);
	kb_print_double(o, KB_PRINT_ANY, "bits_per_key", "%8.2f ",
			r->bits_per_key);
	kb_print_double(o, KB_PRINT_ANY, "fpr", "%9.3g ", r->fpr);
	kb_print_double(o, KB_PRINT_ANY, "bound_bits_per_key", "%6.2f",
			r->bound);
	render_params(o, r);
	kb_print_text(o, "\n");
	kb_print_obj_end(o);
}

/*
 * calc's table, or its JSON object: capacity, fpr and bound_bits_per_key
 * (or bits and hashes), windows, interval_ms and tables, then "types",
 * one object per row.
 */
static void render(const struct kb_out *o, const struct calc_req *q,
		   const struct calc_row *rows, int nrows)
{
	int i;

	kb_print_obj_begin(o, NULL);
	kb_print_u64(o, q->sizing ? KB_PRINT_ANY : KB_PRINT_JSON, "capacity",
		     "capacity %llu, ", q->n);
	if (q->sizing) {
		kb_print_double(o, KB_PRINT_JSON, "fpr", NULL, q->fpr);
		kb_print_text(o, "fpr %s: ", q->fpr_text);
		kb_print_double(o, KB_PRINT_ANY, "bound_bits_per_key",
				"at least %.2f bits per key (log2 1/fpr)\n",
				sizing_bound_bits(q->fpr));
	} else {
		kb_print_u64(o, KB_PRINT_ANY, "bits", "bits %llu, ", q->bits);
		kb_print_u64(o, KB_PRINT_ANY, "hashes", "hashes %llu, ",
			     q->hashes);
		kb_print_u64(o, KB_PRINT_TEXT, NULL, "capacity %llu\n", q->n);
	}
	if (q->windows) {
		kb_print_u64(o, KB_PRINT_ANY, "windows", "windows %llu",
			     q->windows);
		kb_print_text(o, " of %s: ", q->interval_text);
		kb_print_u64(o, KB_PRINT_JSON, "interval_ms", NULL,
			     q->interval_ms);
		kb_print_u64(o, KB_PRINT_ANY, "tables",
			     "%llu tables (the windows and a spare)",
			     q->windows + 1);
		kb_print_text(o, "; total = %u x bytes\n", q->windows + 1);
	}
	kb_print_text(o, "%-11s %10s %2s %10s ", "type", "m", "k", "bytes");
	if (q->windows)
		kb_print_text(o, "%12s ", "total");
	kb_print_text(o, "%8s %9s %6s  %s\n", "bits/key", "fpr", "bound",
		      "parameters");
	kb_print_arr_begin(o, "types");
	for (i = 0; i < nrows; i++)
		render_row(o, q, &rows[i]);
	kb_print_arr_end(o);
	if (q->windows && nrows == 1 && !rows[0].error[0])
		kb_print_text(o, "memory: %llu bytes (%s) of cells in %u tables\n",
			      (unsigned long long)rows[0].total,
			      human_bytes(rows[0].total), q->windows + 1);
	kb_print_obj_end(o);
}

int cmd_calc(int argc, char **argv)
{
	const char *val[C_NUM] = { 0 }, *tval[TO_NUM] = { 0 };
	struct calc_row rows[KBLOOM_TYPE_MAX];
	struct calc_req q = { 0 };
	bool any_opt = false;
	struct kb_out out;
	struct json j;
	int i, type = -1, nrows = 0;

	if (typeopts_args(argv[0], argc, argv, 1, calc_names, C_NUM, val,
			  tval))
		return EXIT_ERROR;
	for (i = 0; i < TO_NUM; i++) {
		if (tval[i] && kb_param_table[i].not_sized) {
			usage_errorf(argv[0],
				     "'%s' has no bearing on sizing: create takes it, calc does not",
				     kb_param_table[i].keyword);
			return EXIT_ERROR;
		}
		any_opt = any_opt || tval[i];
	}
	if (!val[C_CAPACITY]) {
		usage_errorf(argv[0], "%s",
			     argc < 2 ? "give 'capacity N fpr P' or 'bits M hashes K capacity N'" :
			     "missing 'capacity N'");
		return EXIT_ERROR;
	}
	if (parse_u64(val[C_CAPACITY], &q.n) || !q.n) {
		errorf("invalid capacity '%s': not an integer from 1 to %llu",
		       quote(val[C_CAPACITY]), (unsigned long long)UINT64_MAX);
		return EXIT_ERROR;
	}
	q.sizing = val[C_FPR] != NULL;
	if (q.sizing && (val[C_BITS] || val[C_HASHES])) {
		usage_errorf(argv[0],
			     "give either 'capacity N fpr P' or 'bits M hashes K capacity N', not both");
		return EXIT_ERROR;
	}
	if (!q.sizing && (!val[C_BITS] || !val[C_HASHES])) {
		usage_errorf(argv[0], "%s",
			     val[C_BITS] ? "missing 'hashes K'" :
			     val[C_HASHES] ? "missing 'bits M'" :
			     "missing 'fpr P' (or 'bits M hashes K')");
		return EXIT_ERROR;
	}
	if (q.sizing && (parse_double(val[C_FPR], &q.fpr) ||
			 !(q.fpr > 0 && q.fpr < 1))) {
		errorf("invalid fpr '%s': not a number between 0 and 1 (exclusive)",
		       quote(val[C_FPR]));
		return EXIT_ERROR;
	}
	q.fpr_text = val[C_FPR];
	if (val[C_BITS] && (parse_u64(val[C_BITS], &q.bits) ||
			    q.bits < KBLOOM_BITS_MIN ||
			    q.bits > KBLOOM_BITS_MAX)) {
		errorf("invalid bits '%s': not an integer from %llu to %llu",
		       quote(val[C_BITS]), KBLOOM_BITS_MIN, KBLOOM_BITS_MAX);
		return EXIT_ERROR;
	}
	if (val[C_HASHES] && (parse_u32(val[C_HASHES], &q.hashes) ||
			      q.hashes < 1 || q.hashes > KBLOOM_HASHES_MAX)) {
		errorf("invalid hashes '%s': not an integer from 1 to %d",
		       quote(val[C_HASHES]), KBLOOM_HASHES_MAX);
		return EXIT_ERROR;
	}
	if (paging_parse(argv[0], val[C_WINDOWS], val[C_INTERVAL], &q.windows,
			 &q.interval_ms))
		return EXIT_ERROR;
	q.interval_text = val[C_INTERVAL];
	if (val[C_TYPE]) {
		type = kb_type_parse(val[C_TYPE]);
		if (type < 0) {
			errorf("invalid filter type '%s': known types are %s",
			       quote(val[C_TYPE]), kb_type_list());
			return EXIT_ERROR;
		}
		if (kb_utype_records(type)) {
			errorf("invalid filter type '%s': calc sizes filters; a %s table has no false positive rate (it takes 'capacity N' records of %zu bytes)",
			       kb_type_str(type), kb_type_str(type),
			       sizeof(struct kbloom_xlate));
			return EXIT_ERROR;
		}
	}
	if (any_opt) {
		struct kb_shape p = { .type = type };
		struct kb_dims dims;

		if (type < 0) {
			usage_errorf(argv[0],
				     "type options (counter-bits, update, ...) need 'type TYPE'");
			return EXIT_ERROR;
		}
		if (typeopts_apply(argv[0], tval, &p, &dims, true))
			return EXIT_ERROR;
		q.tval = tval;
	}
	if (type >= 0 && kb_utype(type)->hashes && !q.sizing &&
	    q.hashes != kb_utype(type)->hashes) {
		errorf("invalid hashes '%s': a %s filter has %u",
		       quote(val[C_HASHES]), kb_type_str(type),
		       kb_utype(type)->hashes);
		return EXIT_ERROR;
	}

	for (i = 1; i <= KBLOOM_TYPE_MAX; i++) {
		if ((type >= 0 && i != type) || kb_utype_records(i))
			continue;
		calc_one(&q, i, &rows[nrows++]);
	}
	if (type >= 0 && rows[0].error[0]) {
		errorf("unable to size a %s filter: %s", kb_type_str(type),
		       rows[0].error);
		return EXIT_ERROR;
	}
	kb_out_stdout(&out, &j, opts.json);
	render(&out, &q, rows, nrows);
	return EXIT_OK;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_calc = {
	.name = "calc",
	.fn = cmd_calc,
	.summary = "size filters offline, with exact rates",
	.usage =
		"capacity N fpr P [type TYPE] [windows W interval D] [OPTION...]\n"
		"bits M hashes K capacity N [type TYPE] [windows W interval D] [OPTION...]\n",
	.help =
		"Computes, sending nothing, the shape that 'create' gives each filter\n"
		"type (or TYPE alone) for N keys at false positive rate P; or, for the\n"
		"given m and k (m rounded up to each type's multiple; dleft takes\n"
		"k = 1), each type's rate with N keys. OPTIONs are those of 'create'\n"
		"for TYPE (see 'bloomctl create --help'), and need 'type'; dims may\n"
		"also be a number. Prints a header (with fpr: the information-\n"
		"theoretic bound, log2(1/P) bits per key, that no structure beats),\n"
		"then per type:\n"
		"  type m k bytes bits/key fpr bound parameters\n"
		"bytes: the kernel memory of the cells; bits/key: m * cell bits (* dims)\n"
		"/ N; fpr: the type's false positive rate with N keys; bound:\n"
		"log2(1/fpr). With windows W interval D (as for 'create'), the memory\n"
		"of the time-paged filter too: a 'total' column after bytes, W + 1\n"
		"times bytes (the module keeps the W windows and a spare table, emptied\n"
		"for the next rotation), and with TYPE a last line\n"
		"  memory: TOTAL bytes (MiB) of cells in W+1 tables\n"
		"The module charges a little more than the cells ('show' counts it):\n"
		"each table's window record and per-CPU packet counter, the window\n"
		"lists and the filter object (with 2 CPUs, 920 B plus 196 B per\n"
		"table). stable, scalable and dcf take no windows. The rates:\n"
		"  bloom, counting  (1 - e^(-kN/m))^k; multi the same, per dimension\n"
		"  partitioned      (1 - (1 - k/m)^N)^k\n"
		"  blocked          sum over j of P(j keys in the query's block) *\n"
		"                   P(its k probes all set | j), j ~ Binomial(N, 512/m)\n"
		"                   (~ Poisson). A key sets k distinct bits of its block,\n"
		"                   so a bit is set with probability 1 - (1 - k/512)^j;\n"
		"                   but the probes are x + i*y mod 512 (y odd), 65536\n"
		"                   distinct sets: a key has the query's very set with\n"
		"                   probability 2^-16, a floor near (512 N/m) 2^-16\n"
		"                   that (1 - (1 - k/512)^j)^k misses. P(.. | j) is\n"
		"                   computed with that structure.\n"
		"  counting         also the overflow bound m (e k N / (m 2^c))^(2^c)\n"
		"                   for c-bit counters; at the optimal k it is\n"
		"                   m (e ln 2 / 2^c)^(2^c), 1.37e-15 m for 4 bits\n"
		"  dleft            1 - (1 - d*c/(m 2^F))^N: a query matches a key only\n"
		"                   when their whole hashes (bucket and F-bit\n"
		"                   fingerprint, one of m 2^F / (d*c)) are equal; about\n"
		"                   the d*c*N/m occupied cells of its d buckets times 2^-F\n"
		"  stable           the stable point (1 - z)^k, whatever N, where z =\n"
		"                   (1 / (1 + 1 / (D (1/k - 1/m))))^Max is the share of\n"
		"                   zero cells, D the decrement, Max = 2^c - 1\n"
		"  dcf              as bloom (its probes); bytes: the small counters and\n"
		"                   a 1-bit overflow vector, as created; the parameters\n"
		"                   give what counter-bits 16 would take\n"
		"  scalable         1 - prod_i (1 - (1 - e^(-k_i N_i/m_i))^k_i), slice i\n"
		"                   of m_i bits and k_i hashes holding N_i of the N keys\n"
		"                   (filled in order, each up to its capacity N0 s^i);\n"
		"                   with N = capacity only the first slice counts; the\n"
		"                   parameters give the bound P0/(1 - r) and the rate at\n"
		"                   10 N and 100 N keys\n"
		"A type that cannot be sized so shows why instead (with TYPE: an\n"
		"error). With -j, one JSON object:\n"
		"  {\"capacity\",\"fpr\",\"bound_bits_per_key\" (or \"bits\",\"hashes\"),\n"
		"   with windows \"windows\",\"interval_ms\",\"tables\",\n"
		"   \"types\":[{\"type\",\"bits\",\"hashes\",\"bytes\",\"total_bytes\" (with\n"
		"   windows),\"bits_per_key\",\"fpr\",\n"
		"   \"bound_bits_per_key\"; counting: \"counter_bits\",\"update\",\n"
		"   \"overflow_bound\",\"overflow_log10\"; stable: \"counter_bits\",\n"
		"   \"decrement\",\"stable_zero_fraction\"; dleft: \"subtables\",\n"
		"   \"bucket_cells\",\"fp_bits\"; multi: \"dims\"; dcf: \"counter_bits\",\n"
		"   \"ofv_bits\",\"counting16_bytes\"; scalable: \"growth\",\n"
		"   \"tighten\",\"fpr_limit\",\"fpr_10x\",\"fpr_100x\"} or\n"
		"   {\"type\",\"error\"},...]}\n",
};
