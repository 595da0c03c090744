// SPDX-License-Identifier: GPL-2.0 OR MIT
/* multi: DIMS bloom filters side by side; m, k and rate per dimension. */
#include <math.h>

#include "cardinality.h"
#include "print.h"
#include "sizing.h"
#include "types.h"

static void multi_defaults(struct kb_shape *p)
{
	if (!p->dims)
		p->dims = 1;
}

/* FILL sums the dimensions: the bloom estimate of one, averaged. */
static double multi_keys(const struct kb_shape *p, uint64_t x)
{
	double per = (double)x / (p->dims ? p->dims : 1);

	if (per >= (double)p->m)
		return INFINITY;
	return -((double)p->m / p->k) * log1p(-per / (double)p->m);
}

static void multi_calc(const struct kb_out *o, const struct kb_shape *p,
		       uint64_t n)
{
	(void)p;
	(void)n;
	kb_print_text(o, " (m, k and fpr per dimension)");
}

const struct kb_utype kb_utype_multi = {
	.defaults = multi_defaults,
	.keys = multi_keys,
	.basis = "n* = -(m/k) ln(1 - X/(dims m)): distinct values per dimension, averaged",
	.calc_figures = multi_calc,
	.m_note = " per dimension",
	.fill_note = ", all dimensions",
	.keys_note = " (distinct values per dimension)",
	.fpr_now_note = " per dimension",
	.capacity_note = " per dimension",
};
