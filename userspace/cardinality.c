// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The formulas are derived in cardinality.h. */
#include <math.h>

#include "cardinality.h"

uint64_t card_cells(const struct kb_shape *p)
{
	if (p->type == KBLOOM_TYPE_MULTI && p->dims)
		return p->m * p->dims;
	return p->m;
}

/* ln(1 - X/m) / ln(1 - k/m): one bit per key per slice of m/k. */
static double per_slice(uint64_t m, uint32_t k, uint64_t x)
{
	if (x >= m)
		return INFINITY;
	if (k >= m)
		return NAN;
	return log1p(-(double)x / (double)m) / log1p(-(double)k / (double)m);
}

double card_keys(const struct kb_shape *p, uint64_t x)
{
	switch (p->type) {
	case KBLOOM_TYPE_BLOOM:
	case KBLOOM_TYPE_COUNTING:
	case KBLOOM_TYPE_DCF:
		return sizing_estimate(p->m, p->k, x);
	case KBLOOM_TYPE_PARTITIONED:
	case KBLOOM_TYPE_BLOCKED:
		return per_slice(p->m, p->k, x);
	case KBLOOM_TYPE_MULTI: {
		double per = (double)x / (p->dims ? p->dims : 1);

		if (per >= (double)p->m)
			return INFINITY;
		return -((double)p->m / p->k) * log1p(-per / (double)p->m);
	}
	case KBLOOM_TYPE_DLEFT:
		return (double)x;
	}
	return NAN;
}

double card_fpr_now(const struct kb_shape *p, uint64_t x)
{
	uint64_t cells = card_cells(p);
	double n;

	if (x > cells)
		x = cells;
	switch (p->type) {
	case KBLOOM_TYPE_BLOCKED:
		n = card_keys(p, x);
		return isinf(n) ? 1.0 : sizing_fpr_blocked(p->m, p->k, n);
	case KBLOOM_TYPE_DLEFT: {
		/* the occupied cells of the query's d buckets, each 2^-f */
		double r = (double)p->subtables * p->bucket_cells * (double)x /
			   (double)p->m * ldexp(1.0, -(int)p->fp_bits);

		return r < 1 ? r : 1;
	}
	}
	return pow((double)x / (double)cells, p->k);
}

const char *card_basis(uint32_t type)
{
	switch (type) {
	case KBLOOM_TYPE_BLOOM:
		return "n* = -(m/k) ln(1 - X/m), X bits set";
	case KBLOOM_TYPE_COUNTING:
	case KBLOOM_TYPE_DCF:
		return "n* = -(m/k) ln(1 - X/m), X non-zero counters";
	case KBLOOM_TYPE_PARTITIONED:
		return "n* = ln(1 - X/m) / ln(1 - k/m): one bit per key in each slice of m/k";
	case KBLOOM_TYPE_BLOCKED:
		return "n* = ln(1 - X/m) / ln(1 - k/m): a key sets k distinct bits of one block, any bit with probability k/m";
	case KBLOOM_TYPE_MULTI:
		return "n* = -(m/k) ln(1 - X/(dims m)): distinct values per dimension, averaged";
	case KBLOOM_TYPE_DLEFT:
		return "n* = X: one cell per distinct key";
	case KBLOOM_TYPE_STABLE:
		return "none: a stable filter's cells decay, its fill does not count keys";
	}
	return "none: unknown filter type";
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
