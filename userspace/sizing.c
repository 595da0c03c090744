// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <math.h>

#include "../kmod/uapi/kbloom.h"
#include "sizing.h"

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

double sizing_fpr(uint64_t m, uint32_t k, uint64_t n)
{
	/* 1 - e^{-x} as -expm1(-x): exact for small fills. */
	return pow(-expm1(-(double)k * (double)n / (double)m), k);
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
