/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Bloom filter sizing math (DESIGN §2, seed 004 §3), floating point, pure
 * functions: unit-tested on the host.
 *
 * For capacity n and target false positive rate p:
 *	m = ceil(-n ln p / (ln 2)^2), rounded up to a multiple of 64,
 *	    at least KBLOOM_BITS_MIN
 *	k = max(1, round(ln 2 * m / n)), at most KBLOOM_HASHES_MAX
 * False positive rate with n keys in m bits and k hashes:
 *	(1 - e^{-kn/m})^k
 * False positive rate at fill X (bits set): (X/m)^k
 * Cardinality estimate from fill (Swamidass & Baldi):
 *	n* = -(m/k) ln(1 - X/m)
 */
#ifndef BLOOMCTL_SIZING_H
#define BLOOMCTL_SIZING_H

#include <stdint.h>

/* -n ln p / (ln 2)^2, unrounded; NaN for n == 0 or p outside (0, 1). */
double sizing_bits_exact(uint64_t n, double p);

/*
 * m and k for capacity @n and false positive rate @p.
 * 0; -EINVAL when n == 0 or p is not in (0, 1); -ERANGE when m would
 * exceed KBLOOM_BITS_MAX (*m then holds no value).
 */
int sizing_from_capacity(uint64_t n, double p, uint64_t *m, uint32_t *k);

/* k = max(1, round(ln 2 * m / n)) capped at KBLOOM_HASHES_MAX; n >= 1. */
uint32_t sizing_optimal_hashes(uint64_t m, uint64_t n);

/* (1 - e^{-kn/m})^k; m >= 1, k >= 1. */
double sizing_fpr(uint64_t m, uint32_t k, uint64_t n);

/* (X/m)^k, X clamped to m. */
double sizing_fpr_fill(uint64_t m, uint32_t k, uint64_t fill);

/* -(m/k) ln(1 - X/m); +infinity when X >= m (saturated). */
double sizing_estimate(uint64_t m, uint32_t k, uint64_t fill);

#endif
