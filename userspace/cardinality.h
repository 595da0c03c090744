/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * How many keys a filter holds, from its fill X (cells set or non-zero,
 * KBLOOM_A_FILL), and the union and intersection of two filters of the
 * same shape and hash key (Swamidass & Baldi, "Mathematical Correction
 * for Fingerprint Similarity Measures to Improve Chemical Retrieval",
 * J. Chem. Inf. Model. 47(3), 2007). Floating point, pure functions:
 * unit-tested on the host (estimate_test).
 *
 * Each estimate inverts the expected fill after n distinct keys:
 *   bloom, counting,  E[X] = m (1 - e^{-kn/m})   n* = -(m/k) ln(1 - X/m)
 *   dcf
 *                     (Swamidass & Baldi; counting: X = non-zero counters,
 *                     which are the bits a bloom filter of the same keys
 *                     would set; deleted keys are gone from it)
 *   partitioned       E[X] = m (1 - (1 - k/m)^n): each key sets one bit in
 *                     each slice of m/k, n* = ln(1 - X/m) / ln(1 - k/m)
 *   blocked           the same, exactly: a key sets k distinct bits of
 *                     one block, so any given bit with probability k/m;
 *                     uneven block loads change the rate, not E[X]
 *   multi             FILL sums the dimensions: X/dims per dimension, the
 *                     bloom estimate of distinct values per dimension
 *                     (averaged; at most the number of tuples)
 *   dleft             one cell per distinct key: n* = X
 *   stable            none: cells decay, the fill does not count keys
 * n* is +infinity when X = m (saturated). Union and intersection
 * (Swamidass & Baldi): n(A), n(B) and n(A u B) from X_A, X_B and
 * X_{A u B} (cells set in either, KBLOOM_A_UNION_FILL),
 * n(A n B) = n(A) + n(B) - n(A u B).
 *
 * The false positive rate now, from the fill: (X/m)^k for bloom,
 * counting and stable (a query is positive when its k cells are
 * non-zero); for partitioned the same is an upper bound (the product of
 * the slices' fills is at most (X/m)^k); per dimension for multi; blocked:
 * its model's rate (sizing.h) at n = n*; dleft: d c X / (m 2^f), the
 * expected occupied cells of the query's d buckets, each matching with
 * probability 2^-f (matches exclude each other: dleft.c).
 */
#ifndef BLOOMCTL_CARDINALITY_H
#define BLOOMCTL_CARDINALITY_H

#include <stdint.h>

#include "sizing.h"

/* Cells of the whole filter: m, times dims for multi. */
uint64_t card_cells(const struct kb_shape *p);

/* n* for fill @x; +inf when saturated; NaN when the type has none. */
double card_keys(const struct kb_shape *p, uint64_t x);

/* The false positive rate at fill @x. */
double card_fpr_now(const struct kb_shape *p, uint64_t x);

/* The types' estimates: bloom's, and that of one bit per key per slice. */
double card_keys_bloom(const struct kb_shape *p, uint64_t x);
double card_keys_slices(const struct kb_shape *p, uint64_t x);

/* The formula card_keys() uses, in words. */
const char *card_basis(uint32_t type);

struct card_sets {
	double a, b;		/* n(A), n(B) */
	double uni;		/* n(A u B) */
	double inter;		/* n(A n B), clamped to 0..min(n(A), n(B)) */
	double inter_raw;	/* n(A) + n(B) - n(A u B), unclamped */
	double jaccard;		/* n(A n B) / n(A u B) */
};

/*
 * Union and intersection from the fills of A, B and A u B; fields are
 * NaN where undefined (saturated union, a type without estimates).
 */
void card_sets(const struct kb_shape *p, uint64_t xa, uint64_t xb,
	       uint64_t xu, struct card_sets *out);

#endif
