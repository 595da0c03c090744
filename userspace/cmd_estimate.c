// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * estimate NAME [with NAME2]: the cardinality of a filter from its fill,
 * or of two filters, their union and their intersection from
 * KBLOOM_CMD_ESTIMATE (FILL, SRC_FILL, UNION_FILL); the math is
 * cardinality.c.
 *
 * JSON, alone:
 *   {"filter":NAME,"type":T,"bits":m,"hashes":k,"fill":X,
 *    "fill_percent":F,"saturated":BOOL,"estimated_keys":N|null,
 *    "estimate_basis":TEXT,"fpr_now":P}
 * with NAME2:
 *   {"filter":NAME,"with":NAME2,"type":T,"bits":m,"hashes":k,
 *    "a":{"fill":X,"estimated_keys":N|null},"b":{...},
 *    "union":{"fill":X,"estimated_keys":N|null},
 *    "intersection":{"estimated_keys":N|null,"raw":N|null},
 *    "jaccard":J|null,"estimate_basis":TEXT}
 * estimated_keys is null when saturated (fill = cells) or the type has no
 * estimate (stable); "raw" is n(A) + n(B) - n(A u B) before clamping to
 * 0..min(n(A), n(B)).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "cardinality.h"
#include "commands.h"
#include "describe.h"
#include "types.h"
#include "util.h"

struct est_reply {
	uint64_t fill, src_fill, union_fill;
	int replies;
};

static int est_reply(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct est_reply *e = arg;

	if (e->replies++)
		return kb_nl_fail(nl, "more than one estimate reply");
	if (!tb[KBLOOM_A_FILL] || !tb[KBLOOM_A_SRC_FILL] ||
	    !tb[KBLOOM_A_UNION_FILL])
		return kb_nl_fail(nl, "estimate reply without %s",
				  !tb[KBLOOM_A_FILL] ? "FILL" :
				  !tb[KBLOOM_A_SRC_FILL] ? "SRC_FILL" :
				  "UNION_FILL");
	e->fill = nla_get_u64(tb[KBLOOM_A_FILL]);
	e->src_fill = nla_get_u64(tb[KBLOOM_A_SRC_FILL]);
	e->union_fill = nla_get_u64(tb[KBLOOM_A_UNION_FILL]);
	return 0;
}

/* An estimate: "123.4", "saturated" or "none"; JSON null when not finite. */
static void print_keys(const struct kb_out *o, const char *key, double n)
{
	kb_print_double(o, isfinite(n) ? KB_PRINT_ANY : KB_PRINT_JSON, key,
			"%.1f", n);
	if (!isfinite(n))
		kb_print_text(o, "%s", isnan(n) ? "none" : "saturated");
}

static void print_shape(const struct kb_out *o, const struct kb_desc *d)
{
	kb_print_str(o, KB_PRINT_ANY, "type", "  type: %s, ",
		     kb_type_str(d->p.type));
	kb_print_u64(o, KB_PRINT_ANY, "bits",
		     kb_params_cell_bits(&d->p) == 1 ? "bits (m) %llu" :
		     "cells (m) %llu", d->p.m);
	kb_print_text(o, "%s, ", kb_utype_tuples(d->p.type) ?
		      " per dimension" : "");
	kb_print_u64(o, KB_PRINT_ANY, "hashes", "hashes (k) %llu\n", d->p.k);
}

/*
 * One filter: filter, type, bits, hashes, fill, fill_percent, saturated,
 * estimated_keys, estimate_basis, fpr_now.
 */
static void alone(const struct kb_out *o, const struct kb_desc *d)
{
	const struct kb_shape *p = &d->p;
	uint64_t cells = card_cells(p);
	double n = card_keys(p, d->fill);

	kb_print_obj_begin(o, NULL);
	kb_print_str(o, KB_PRINT_ANY, "filter", "filter: %s\n", d->name);
	print_shape(o, d);
	kb_print_u64(o, KB_PRINT_ANY, "fill", "  fill: %llu", d->fill);
	kb_print_text(o, " of %llu cells (", (unsigned long long)cells);
	kb_print_double(o, KB_PRINT_ANY, "fill_percent", "%.2f%%",
			100.0 * (double)d->fill / (double)cells);
	kb_print_text(o, ")\n");
	kb_print_bool(o, KB_PRINT_JSON, "saturated", NULL, d->fill >= cells);
	kb_print_text(o, "  estimated keys: ");
	print_keys(o, "estimated_keys", n);
	kb_print_text(o, "\n");
	kb_print_str(o, KB_PRINT_ANY, "estimate_basis", "  basis: %s\n",
		     card_basis(p->type));
	kb_print_double(o, KB_PRINT_ANY, "fpr_now", "  fpr now: %.3g\n",
			card_fpr_now(p, d->fill));
	kb_print_obj_end(o);
}

/* "NAME: fill F (P%), estimated keys N", or {"fill","estimated_keys"}. */
static void print_part(const struct kb_out *o, const char *key,
		       const char *label, uint64_t fill, uint64_t cells,
		       double n)
{
	kb_print_obj_begin(o, key);
	kb_print_text(o, "  %s: ", label);
	kb_print_u64(o, KB_PRINT_ANY, "fill", "fill %llu", fill);
	kb_print_text(o, " (%.2f%%), estimated keys ",
		      100.0 * (double)fill / (double)cells);
	print_keys(o, "estimated_keys", n);
	kb_print_text(o, "\n");
	kb_print_obj_end(o);
}

/*
 * Two filters: filter, with, type, bits, hashes, a, b, union ({fill,
 * estimated_keys}), intersection ({estimated_keys, raw}), jaccard,
 * estimate_basis.
 */
static void pair(const struct kb_out *o, const struct kb_desc *d,
		 const char *b, const struct est_reply *e)
{
	const struct kb_shape *p = &d->p;
	uint64_t cells = card_cells(p);
	struct card_sets s;

	card_sets(p, e->fill, e->src_fill, e->union_fill, &s);
	kb_print_obj_begin(o, NULL);
	kb_print_str(o, KB_PRINT_ANY, "filter", "filters: %s", d->name);
	kb_print_str(o, KB_PRINT_ANY, "with", " with %s\n", b);
	print_shape(o, d);
	print_part(o, "a", d->name, e->fill, cells, s.a);
	print_part(o, "b", b, e->src_fill, cells, s.b);
	print_part(o, "union", "union", e->union_fill, cells, s.uni);
	kb_print_obj_begin(o, "intersection");
	kb_print_text(o, "  intersection: estimated keys ");
	print_keys(o, "estimated_keys", s.inter);
	kb_print_text(o, " (n(A) + n(B) - n(A u B) = ");
	print_keys(o, "raw", s.inter_raw);
	kb_print_text(o, ")\n");
	kb_print_obj_end(o);
	kb_print_double(o, isnan(s.jaccard) ? KB_PRINT_JSON : KB_PRINT_ANY,
			"jaccard", "  jaccard: %.4f\n", s.jaccard);
	if (isnan(s.jaccard))
		kb_print_text(o, "  jaccard: none\n");
	kb_print_str(o, KB_PRINT_ANY, "estimate_basis", "  basis: %s\n",
		     card_basis(p->type));
	kb_print_obj_end(o);
}

int cmd_estimate(int argc, char **argv)
{
	struct est_reply e = { 0 };
	const char *b = NULL;
	struct kb_desc d;
	struct nl_msg *msg;
	struct kb_out o;
	struct json j;
	struct kb_nl nl;
	int r;

	if (argc > 2) {
		if (strcmp(argv[2], "with")) {
			unexpected_argument(argv[0], argv[2]);
			return EXIT_ERROR;
		}
		if (argc < 4) {
			usage_errorf(argv[0], "'with' needs a filter NAME2");
			return EXIT_ERROR;
		}
		if (argc > 4) {
			unexpected_argument(argv[0], argv[4]);
			return EXIT_ERROR;
		}
		b = argv[3];
		if (!check_name(b))
			return EXIT_ERROR;
	}
	/* The words after NAME were estimate's own, checked above. */
	if (filter_cmd_open(argc > 2 ? 2 : argc, argv, false, &nl))
		return EXIT_ERROR;
	r = kb_desc_get(&nl, argv[1], &d);
	if (r) {
		kb_nl_perror(&nl, "unable to estimate filter '%s'",
			     quote(argv[1]));
		goto out;
	}
	if (!b) {
		if (!(d.have & KB_HAVE_FILL)) {
			r = kb_nl_fail(&nl, "filter description without FILL");
			kb_nl_perror(&nl, "unable to estimate filter '%s'",
				     quote(argv[1]));
			goto out;
		}
		kb_out_stdout(&o, &j, opts.json);
		alone(&o, &d);
		goto out;
	}
	msg = kb_nl_msg(&nl, KBLOOM_CMD_ESTIMATE, 0, 0);
	kb_put_name(msg, argv[1]);
	if (nla_put_string(msg, KBLOOM_A_SRC, b) < 0) {
		errorf("internal error: netlink message full");
		exit(EXIT_ERROR);
	}
	r = kb_nl_request(&nl, msg, est_reply, &e);
	nlmsg_free(msg);
	if (!r && !e.replies)
		r = kb_nl_fail(&nl, "no estimate reply");
	if (r) {
		kb_explain_mismatch(&nl, argv[1], b);
		kb_nl_perror(&nl, "unable to estimate filter '%s' with '%s'",
			     quote(argv[1]), quote(b));
		goto out;
	}
	kb_out_stdout(&o, &j, opts.json);
	pair(&o, &d, b, &e);
out:
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_estimate = {
	.name = "estimate",
	.fn = cmd_estimate,
	.summary = "estimate keys, union and intersection",
	.usage =
		"NAME\n"
		"NAME with NAME2\n",
	.help =
		"Estimates from its fill X (cells set or non-zero) how many distinct\n"
		"keys filter NAME holds, and its false positive rate now:\n"
		"  bloom, counting   n* = -(m/k) ln(1 - X/m) (Swamidass and Baldi,\n"
		"                    J. Chem. Inf. Model. 47(3), 2007; counting: X\n"
		"                    non-zero counters)\n"
		"  partitioned,      n* = ln(1 - X/m) / ln(1 - k/m): a key sets one bit\n"
		"  blocked           in each slice of m/k (partitioned) or k distinct\n"
		"                    bits of one block (blocked), any given bit with\n"
		"                    probability exactly k/m\n"
		"  multi             as bloom with X/dims: the distinct values per\n"
		"                    dimension, averaged (the fill sums the dimensions)\n"
		"  dleft             n* = X, one cell per distinct key\n"
		"  stable            none: its cells decay\n"
		"The rate now is (X/m)^k (partitioned: at most that; multi: per\n"
		"dimension); blocked: its model's rate for n* keys; dleft:\n"
		"d*c*X / (m 2^F), the occupied cells of a query's d buckets, each\n"
		"matching with probability 2^-F.\n"
		"With NAME2, a filter of the same type, shape and hash key (create both\n"
		"with the same 'key HEX32'), the kernel also counts the cells set in\n"
		"either, X(A u B), and (Swamidass and Baldi 2007):\n"
		"  n(A), n(B), n(A u B)  as above, from X(A), X(B) and X(A u B)\n"
		"  n(A n B)              n(A) + n(B) - n(A u B), clamped to\n"
		"                        0..min(n(A), n(B)) (the raw value is shown)\n"
		"  jaccard               n(A n B) / n(A u B)\n"
		"'saturated' means X = m: no estimate. With -j, one JSON object:\n"
		"  {\"filter\",\"type\",\"bits\",\"hashes\",\"fill\",\"fill_percent\",\"saturated\",\n"
		"   \"estimated_keys\",\"estimate_basis\",\"fpr_now\"}\n"
		"or with NAME2\n"
		"  {\"filter\",\"with\",\"type\",\"bits\",\"hashes\",\n"
		"   \"a\":{\"fill\",\"estimated_keys\"},\"b\":{...},\"union\":{...},\n"
		"   \"intersection\":{\"estimated_keys\",\"raw\"},\"jaccard\",\"estimate_basis\"}\n"
		"where an estimate that does not exist is null.\n",
};
