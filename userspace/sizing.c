// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The formulas are derived in sizing.h. The bloom filter's maths, which
 * most types share, and the per-type entry points, which ask the type's
 * ops (types.h, type_NAME.c).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sizing.h"
#include "types.h"

double sizing_bits_exact(uint64_t n, double p)
{
	if (!n || !(p > 0.0 && p < 1.0))
		return NAN;
	return -(double)n * log(p) / (M_LN2 * M_LN2);
}

uint32_t sizing_optimal_hashes(uint64_t m, uint64_t n)
{
	double k = round(M_LN2 * (double)m / (double)n);

	if (k < 1)
		return 1;
	if (k > KBLOOM_HASHES_MAX)
		return KBLOOM_HASHES_MAX;
	return (uint32_t)k;
}

int sizing_from_capacity(uint64_t n, double p, uint64_t *m, uint32_t *k)
{
	double bits = sizing_bits_exact(n, p);
	uint64_t mm;

	if (isnan(bits))
		return -EINVAL;
	bits = ceil(bits);
	/* Compare as doubles first: the cast would overflow. */
	if (bits > (double)KBLOOM_BITS_MAX)
		return -ERANGE;
	mm = (uint64_t)bits;
	mm = (mm + 63) / 64 * 64;
	if (mm < KBLOOM_BITS_MIN)
		mm = KBLOOM_BITS_MIN;
	if (mm > KBLOOM_BITS_MAX)
		return -ERANGE;
	*m = mm;
	*k = sizing_optimal_hashes(mm, n);
	return 0;
}

double sizing_fpr_bloom(uint64_t m, uint32_t k, double n)
{
	/* 1 - e^{-x} as -expm1(-x): exact for small fills. */
	return pow(-expm1(-(double)k * n / (double)m), k);
}

double sizing_fpr(uint64_t m, uint32_t k, uint64_t n)
{
	return sizing_fpr_bloom(m, k, (double)n);
}

double sizing_fpr_fill(uint64_t m, uint32_t k, uint64_t fill)
{
	if (fill > m)
		fill = m;
	return pow((double)fill / (double)m, k);
}

double sizing_estimate(uint64_t m, uint32_t k, uint64_t fill)
{
	if (fill >= m)
		return INFINITY;
	return -((double)m / k) * log1p(-(double)fill / (double)m);
}


double sizing_bound_bits(double p)
{
	return -log2(p);
}

/* ---- per type: the type's ops, bloom's where it has none ---------------- */

void kb_params_defaults(struct kb_shape *p)
{
	const struct kb_utype *t = kb_utype(p->type);

	if (t->defaults)
		t->defaults(p);
}

uint64_t kb_params_multiple(const struct kb_shape *p)
{
	return kb_type_multiple(p);	/* the engine's rule */
}

int kb_params_round(struct kb_shape *p)
{
	uint64_t mult = kb_params_multiple(p), m = p->m;

	if (m < KBLOOM_BITS_MIN)
		m = KBLOOM_BITS_MIN;
	if (m > KBLOOM_BITS_MAX)
		return -ERANGE;
	m = (m + mult - 1) / mult * mult;
	if (m > KBLOOM_BITS_MAX)
		return -ERANGE;
	p->m = m;
	return 0;
}

uint32_t kb_params_cell_bits(const struct kb_shape *p)
{
	const struct kb_utype *t = kb_utype(p->type);

	return t->cell_bits ? t->cell_bits(p) : 1;
}

uint32_t kb_params_dims(const struct kb_shape *p)
{
	return kb_utype_tuples(p->type) && p->dims ? p->dims : 1;
}

uint64_t kb_params_bytes(const struct kb_shape *p)
{
	struct kb_shape s = *p;

	/* The engine's figure; a dims of 0 not given yet counts as one. */
	s.dims = kb_params_dims(p);
	return kb_filter_cells_for(&s);
}

uint64_t kb_params_ring_bytes(const struct kb_shape *p, uint32_t windows)
{
	return kb_params_bytes(p) * (windows > 1 ? windows + 1ULL : 1);
}

int kb_params_complete(struct kb_shape *p)
{
	const struct kb_utype *t = kb_utype(p->type);

	kb_params_defaults(p);
	if (t->complete)
		return t->complete(p);
	return kb_params_round(p) ? -ERANGE : 0;
}

int kb_params_size_bloom(struct kb_shape *p, uint64_t n, double fpr)
{
	int r = sizing_from_capacity(n, fpr, &p->m, &p->k);

	return r ? r : kb_params_round(p);
}

int kb_params_size(struct kb_shape *p, uint64_t n, double fpr)
{
	const struct kb_utype *t = kb_utype(p->type);
	int r;

	if (!n || !(fpr > 0.0 && fpr < 1.0))
		return -EINVAL;
	kb_params_defaults(p);
	r = t->size ? t->size(p, n, fpr) : kb_params_size_bloom(p, n, fpr);
	if (r)
		return r;
	if (kb_params_bytes(p) > KBLOOM_MEM_MAX)
		return -ERANGE;
	return 0;
}

double kb_params_fpr(const struct kb_shape *p, double n)
{
	const struct kb_utype *t = kb_utype(p->type);

	return t->fpr ? t->fpr(p, n) : sizing_fpr_bloom(p->m, p->k, n);
}
