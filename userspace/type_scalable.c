// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * scalable (Almeida et al.): slices of growing capacity and tightening
 * rate, by the plan of uapi/kbloom.h (sizing.h).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "cardinality.h"
#include "print.h"
#include "sizing.h"
#include "types.h"

int sizing_scalable_slice(const struct kb_shape *p, uint32_t i,
			  uint64_t *m, uint32_t *k, uint64_t *n)
{
	double l = -log2(p->tighten / 1e6), mm = (double)p->m;
	double nn = (double)p->capacity, kk;
	uint32_t j;

	if (i >= KBLOOM_SLICES_MAX || !p->capacity || !p->growth)
		return -ERANGE;
	for (j = 0; j < i; j++) {
		mm *= p->growth;
		nn *= p->growth;
	}
	mm += floor(i * nn * l / M_LN2);
	mm = ceil(mm / 64) * 64;
	kk = p->k + floor(i * l + 0.5);
	if (mm > (double)KBLOOM_BITS_MAX || kk > KBLOOM_HASHES_MAX)
		return -ERANGE;
	*m = (uint64_t)mm;
	*k = (uint32_t)kk;
	*n = (uint64_t)nn;
	return 0;
}

double sizing_fpr_scalable(const struct kb_shape *p, double n)
{
	double ok = 1, left = n;
	uint64_t m, cap, nm = 0, ncap = 0;
	uint32_t k, nk = 0, i;

	if (sizing_scalable_slice(p, 0, &m, &k, &cap))
		return NAN;
	for (i = 0; left > 0; i++) {
		bool last = sizing_scalable_slice(p, i + 1, &nm, &nk, &ncap) != 0;
		double here = last || left < (double)cap ? left : (double)cap;

		ok *= 1 - sizing_fpr_bloom(m, k, here);
		left -= here;
		m = nm;
		k = nk;
		cap = ncap;
	}
	return 1 - ok;
}

double sizing_scalable_limit(const struct kb_shape *p)
{
	return sizing_fpr_bloom(p->m, p->k, (double)p->capacity) /
	       (1 - p->tighten / 1e6);
}

static void scalable_defaults(struct kb_shape *p)
{
	if (!p->growth)
		p->growth = KB_SCALABLE_GROWTH_DEFAULT;
	if (!p->tighten)
		p->tighten = KB_SCALABLE_TIGHTEN_DEFAULT;
}

/* Slice 0 at P0 = P (1 - r): the compound stays below P. */
static int scalable_size(struct kb_shape *p, uint64_t n, double fpr)
{
	p->capacity = n;
	return kb_params_size_bloom(p, n, fpr * (1 - p->tighten / 1e6));
}

static void scalable_calc(const struct kb_out *o, const struct kb_shape *p,
			  uint64_t n)
{
	kb_print_text(o, ": first slice");
	kb_print_double(o, KB_PRINT_ANY, "fpr_limit",
			"; any number of keys <= %.3g",
			sizing_scalable_limit(p));
	kb_print_double(o, KB_PRINT_ANY, "fpr_10x", "; at 10x %.3g",
			sizing_fpr_scalable(p, 10.0 * n));
	kb_print_double(o, KB_PRINT_ANY, "fpr_100x", ", 100x %.3g",
			sizing_fpr_scalable(p, 100.0 * n));
}

const struct kb_utype kb_utype_scalable = {
	.defaults = scalable_defaults,
	.size = scalable_size,
	.fpr = sizing_fpr_scalable,
	.calc_figures = scalable_calc,
};
