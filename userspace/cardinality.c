// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The formulas are derived in cardinality.h; each type's is its
 * type_NAME.c's (types.h).
 */
#include <math.h>

#include "cardinality.h"
#include "types.h"

uint64_t card_cells(const struct kb_shape *p)
{
	return p->m * kb_params_dims(p);
}

double card_keys_bloom(const struct kb_shape *p, uint64_t x)
{
	return sizing_estimate(p->m, p->k, x);
}

/* ln(1 - X/m) / ln(1 - k/m): one bit per key per slice of m/k. */
double card_keys_slices(const struct kb_shape *p, uint64_t x)
{
	uint64_t m = p->m;
	uint32_t k = p->k;

	if (x >= m)
		return INFINITY;
	if (k >= m)
		return NAN;
	return log1p(-(double)x / (double)m) / log1p(-(double)k / (double)m);
}

double card_keys(const struct kb_shape *p, uint64_t x)
{
	const struct kb_utype *t = kb_utype(p->type);

	return t->keys ? t->keys(p, x) : NAN;
}

double card_fpr_now(const struct kb_shape *p, uint64_t x)
{
	const struct kb_utype *t = kb_utype(p->type);
	uint64_t cells = card_cells(p);

	if (x > cells)
		x = cells;
	if (t->fpr_now)
		return t->fpr_now(p, x);
	return pow((double)x / (double)cells, p->k);
}

const char *card_basis(uint32_t type)
{
	const char *basis = kb_utype(type)->basis;

	return basis ? basis : "none: unknown filter type";
}

void card_sets(const struct kb_shape *p, uint64_t xa, uint64_t xb,
	       uint64_t xu, struct card_sets *out)
{
	double lo;

	out->a = card_keys(p, xa);
	out->b = card_keys(p, xb);
	out->uni = card_keys(p, xu);
	out->inter_raw = out->a + out->b - out->uni;
	out->inter = NAN;
	out->jaccard = NAN;
	if (!isfinite(out->inter_raw))
		return;
	/* Sampling noise can push it past its bounds. */
	lo = out->a < out->b ? out->a : out->b;
	out->inter = out->inter_raw < 0 ? 0 :
		     out->inter_raw > lo ? lo : out->inter_raw;
	out->jaccard = out->uni > 0 ? out->inter / out->uni : 0;
}
