// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * stable (Deng & Rafiei): every add decrements P cells; the rate is the
 * stable point's, whatever the number of keys (sizing.h).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "cardinality.h"
#include "print.h"
#include "sizing.h"
#include "types.h"

double sizing_stable_zero(uint64_t m, uint32_t k, uint32_t counter_bits,
			  uint32_t decrement)
{
	double max = ldexp(1.0, counter_bits) - 1;
	double pk = decrement * (1.0 / k - 1.0 / (double)m);

	if (!decrement || !(pk > 0))
		return 0.0;	/* nothing decays: the filter fills up */
	return pow(1.0 / (1.0 + 1.0 / pk), max);
}

double sizing_stable_fpr(uint64_t m, uint32_t k, uint32_t counter_bits,
			 uint32_t decrement)
{
	return pow(1.0 - sizing_stable_zero(m, k, counter_bits, decrement), k);
}

double sizing_stable_decrement(uint64_t m, uint32_t k, uint32_t counter_bits,
			       double p)
{
	double max = ldexp(1.0, counter_bits) - 1;
	double zero, w, ik = 1.0 / k - 1.0 / (double)m;

	if (!(p > 0.0 && p < 1.0) || !(ik > 0))
		return NAN;
	zero = -expm1(log(p) / k);		/* 1 - p^(1/k) */
	w = expm1(-log(zero) / max);		/* zero^(-1/Max) - 1 */
	return 1.0 / (w * ik);
}

static void stable_defaults(struct kb_shape *p)
{
	if (!p->cell_bits)
		p->cell_bits = KB_STABLE_BITS_DEFAULT;
}

static uint32_t stable_cell_bits(const struct kb_shape *p)
{
	return p->cell_bits;
}

/* P for a stable point with half the cells zero: rate about 2^-k. */
static uint32_t stable_half_decrement(const struct kb_shape *p)
{
	double max = ldexp(1.0, p->cell_bits) - 1;
	double ik = 1.0 / p->k - 1.0 / (double)p->m;
	double v = 1.0 / (expm1(M_LN2 / max) * ik);

	if (!(v < (double)p->m))	/* the kernel takes P <= m */
		v = (double)p->m;
	if (v > KBLOOM_DECREMENT_MAX)
		v = KBLOOM_DECREMENT_MAX;
	return v < 1 ? 1 : (uint32_t)ceil(v);
}

static int stable_complete(struct kb_shape *p)
{
	if (kb_params_round(p))
		return -ERANGE;
	if (!p->decrement)
		p->decrement = stable_half_decrement(p);
	return 0;
}

static int stable_size(struct kb_shape *p, uint64_t n, double fpr)
{
	int r = kb_params_size_bloom(p, n, fpr);
	double d;

	if (r || p->decrement)
		return r;
	d = sizing_stable_decrement(p->m, p->k, p->cell_bits, fpr);
	if (isnan(d))
		return -EDOM;
	/* Up: more decrements, more zeros, a lower rate. */
	d = ceil(d - 1e-9);
	if (d > (double)p->m || d > KBLOOM_DECREMENT_MAX)
		return -EDOM;	/* the kernel takes P <= m */
	p->decrement = d < 1 ? 1 : (uint32_t)d;
	return 0;
}

static void stable_size_edom(char *buf, size_t len, const struct kb_shape *p,
			     const char *fpr_text)
{
	if (fpr_text)
		snprintf(buf, len,
			 "fpr %s needs more decrements per add than the %llu cells or %d",
			 fpr_text, (unsigned long long)p->m,
			 KBLOOM_DECREMENT_MAX);
	else
		snprintf(buf, len,
			 "needs more decrements per add than cells (or 65536)");
}

static double stable_fpr(const struct kb_shape *p, double n)
{
	(void)n;
	return sizing_stable_fpr(p->m, p->k, p->cell_bits, p->decrement);
}

static void stable_calc(const struct kb_out *o, const struct kb_shape *p,
			uint64_t n)
{
	double zero = sizing_stable_zero(p->m, p->k, p->cell_bits,
					 p->decrement);

	(void)n;
	kb_print_double(o, KB_PRINT_JSON, "stable_zero_fraction", NULL, zero);
	kb_print_text(o, " (stable point, %.1f%% zero)", 100 * zero);
}

static bool stable_params_known(const struct kb_shape *p)
{
	return p->cell_bits && p->decrement;
}

/* show: the stable point's rate and zero cells, for any number of keys. */
static void stable_show_limit(const struct kb_out *o, const struct kb_shape *p)
{
	double zero = sizing_stable_zero(p->m, p->k, p->cell_bits,
					 p->decrement);

	kb_print_double(o, KB_PRINT_ANY, "fpr_stable_point",
			"  fpr at the stable point: %.3g", stable_fpr(p, 0));
	kb_print_double(o, KB_PRINT_JSON, "stable_zero_fraction", NULL, zero);
	kb_print_double(o, KB_PRINT_TEXT, NULL,
			" (%.1f%% of the cells zero)\n", 100 * zero);
}

const struct kb_utype kb_utype_stable = {
	.defaults = stable_defaults,
	.cell_bits = stable_cell_bits,
	.complete = stable_complete,
	.size = stable_size,
	.size_edom = stable_size_edom,
	.fpr = stable_fpr,
	.counter_words = "a stable filter has 1, 2, 4 or 8",
	.basis = "none: a stable filter's cells decay, its fill does not count keys",
	.calc_figures = stable_calc,
	.params_known = stable_params_known,
	.show_limit = stable_show_limit,
};
