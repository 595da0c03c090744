// SPDX-License-Identifier: GPL-2.0 OR MIT
/* partitioned: k slices of m/k bits, one probe in each (sizing.h). */
#include <math.h>

#include "cardinality.h"
#include "print.h"
#include "sizing.h"
#include "types.h"

double sizing_fpr_partitioned(uint64_t m, uint32_t k, double n)
{
	if (k >= m)
		return n > 0 ? 1.0 : 0.0;
	/* (1 - k/m)^n = e^{n ln(1 - k/m)} */
	return pow(-expm1(n * log1p(-(double)k / (double)m)), k);
}

static double partitioned_fpr(const struct kb_shape *p, double n)
{
	return sizing_fpr_partitioned(p->m, p->k, n);
}

static void partitioned_calc(const struct kb_out *o, const struct kb_shape *p,
			     uint64_t n)
{
	(void)n;
	kb_print_text(o, "  %u slices of %llu bits", p->k,
		      (unsigned long long)(p->m / p->k));
}

const struct kb_utype kb_utype_partitioned = {
	.fpr = partitioned_fpr,
	.keys = card_keys_slices,
	.basis = "n* = ln(1 - X/m) / ln(1 - k/m): one bit per key in each slice of m/k",
	.calc_figures = partitioned_calc,
	/* (X/m)^k: at least the product of the slices' fills (AM-GM) */
	.fpr_now_note = " (at most)",
};
