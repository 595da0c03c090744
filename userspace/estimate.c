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

/* "123.4", "saturated" or "none" */
static const char *keys_text(double n)
{
	static char bufs[4][32];
	static unsigned int next;
	char *buf = bufs[next++ % 4];

	if (isnan(n))
		return "none";
	if (isinf(n))
		return "saturated";
	snprintf(buf, sizeof(bufs[0]), "%.1f", n);
	return buf;
}

static void print_shape(const struct kb_desc *d)
{
	printf("  type: %s, %s (m) %llu%s, hashes (k) %u\n",
	       kb_type_str(d->p.type),
	       kb_params_cell_bits(&d->p) == 1 ? "bits" : "cells",
	       (unsigned long long)d->p.m,
	       d->p.type == KBLOOM_TYPE_MULTI ? " per dimension" : "",
	       d->p.k);
}

static void json_shape(struct json *j, const struct kb_desc *d)
{
	json_key(j, "type");
	json_str(j, kb_type_str(d->p.type));
	json_key(j, "bits");
	json_u64(j, d->p.m);
	json_key(j, "hashes");
	json_u64(j, d->p.k);
}

static void alone(const struct kb_desc *d)
{
	const struct kb_shape *p = &d->p;
	uint64_t cells = card_cells(p);
	double n = card_keys(p, d->fill), fpr = card_fpr_now(p, d->fill);
	double pct = 100.0 * (double)d->fill / (double)cells;
	struct json j;

	if (opts.json) {
		json_init(&j, stdout);
		json_obj_begin(&j);
		json_key(&j, "filter");
		json_str(&j, d->name);
		json_shape(&j, d);
		json_key(&j, "fill");
		json_u64(&j, d->fill);
		json_key(&j, "fill_percent");
		json_double(&j, pct);
		json_key(&j, "saturated");
		json_bool(&j, d->fill >= cells);
		json_key(&j, "estimated_keys");
		json_double(&j, n);
		json_key(&j, "estimate_basis");
		json_str(&j, card_basis(p->type));
		json_key(&j, "fpr_now");
		json_double(&j, fpr);
		json_obj_end(&j);
		return;
	}
	printf("filter: %s\n", d->name);
	print_shape(d);
	printf("  fill: %llu of %llu cells (%.2f%%)\n",
	       (unsigned long long)d->fill, (unsigned long long)cells, pct);
	printf("  estimated keys: %s\n", keys_text(n));
	printf("  basis: %s\n", card_basis(p->type));
	printf("  fpr now: %.3g\n", fpr);
}

static void json_part(struct json *j, const char *key, uint64_t fill,
		      double n)
{
	json_key(j, key);
	json_obj_begin(j);
	json_key(j, "fill");
	json_u64(j, fill);
	json_key(j, "estimated_keys");
	json_double(j, n);
	json_obj_end(j);
}

static void pair(const struct kb_desc *d, const char *b,
		 const struct est_reply *e)
{
	const struct kb_shape *p = &d->p;
	uint64_t cells = card_cells(p);
	struct card_sets s;
	struct json j;

	card_sets(p, e->fill, e->src_fill, e->union_fill, &s);
	if (opts.json) {
		json_init(&j, stdout);
		json_obj_begin(&j);
		json_key(&j, "filter");
		json_str(&j, d->name);
		json_key(&j, "with");
		json_str(&j, b);
		json_shape(&j, d);
		json_part(&j, "a", e->fill, s.a);
		json_part(&j, "b", e->src_fill, s.b);
		json_part(&j, "union", e->union_fill, s.uni);
		json_key(&j, "intersection");
		json_obj_begin(&j);
		json_key(&j, "estimated_keys");
		json_double(&j, s.inter);
		json_key(&j, "raw");
		json_double(&j, s.inter_raw);
		json_obj_end(&j);
		json_key(&j, "jaccard");
		json_double(&j, s.jaccard);
		json_key(&j, "estimate_basis");
		json_str(&j, card_basis(p->type));
		json_obj_end(&j);
		return;
	}
	printf("filters: %s with %s\n", d->name, b);
	print_shape(d);
	printf("  %s: fill %llu (%.2f%%), estimated keys %s\n", d->name,
	       (unsigned long long)e->fill,
	       100.0 * (double)e->fill / (double)cells, keys_text(s.a));
	printf("  %s: fill %llu (%.2f%%), estimated keys %s\n", b,
	       (unsigned long long)e->src_fill,
	       100.0 * (double)e->src_fill / (double)cells, keys_text(s.b));
	printf("  union: fill %llu (%.2f%%), estimated keys %s\n",
	       (unsigned long long)e->union_fill,
	       100.0 * (double)e->union_fill / (double)cells,
	       keys_text(s.uni));
	printf("  intersection: estimated keys %s (n(A) + n(B) - n(A u B) = %s)\n",
	       keys_text(s.inter), keys_text(s.inter_raw));
	if (isnan(s.jaccard))
		printf("  jaccard: none\n");
	else
		printf("  jaccard: %.4f\n", s.jaccard);
	printf("  basis: %s\n", card_basis(p->type));
}

int cmd_estimate(int argc, char **argv)
{
	struct est_reply e = { 0 };
	const char *b = NULL;
	struct kb_desc d;
	struct nl_msg *msg;
	struct kb_nl nl;
	int r;

	if (argc < 2) {
		usage_errorf(argv[0], "missing filter NAME");
		return EXIT_ERROR;
	}
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
	if (!check_name(argv[1]))
		return EXIT_ERROR;
	if (open_netlink(&nl))
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
		alone(&d);
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
	pair(&d, b, &e);
out:
	kb_nl_close(&nl);
	return r ? EXIT_ERROR : EXIT_OK;
}
