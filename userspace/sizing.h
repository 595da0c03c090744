/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Filter sizing and false positive rates, per filter type (sources in
 * docs/design.md, "Filter types"), floating point, pure functions:
 * unit-tested on the host (sizing_test, calc_test). Each type's maths is
 * its type_NAME.c (types.h); sizing.c holds bloom's and the entry points.
 *
 * Bloom (Bloom, CACM 13(7), 1970; the optimum k as derived in Broder and
 * Mitzenmacher, Internet Mathematics 1(4), 2004). For capacity n and
 * target rate p:
 *	m = ceil(-n ln p / (ln 2)^2), rounded up to a multiple of 64,
 *	    at least KBLOOM_BITS_MIN
 *	k = max(1, round(ln 2 * m / n)), at most KBLOOM_HASHES_MAX
 * and the false positive rate with n keys is (1 - e^{-kn/m})^k. The same
 * for counting filters, for the stable filter's m and k, and per
 * dimension for multi filters.
 *
 * Partitioned: k slices of m/k bits, one probe in each, so a bit of a
 * slice stays clear after n keys with probability exactly (1 - k/m)^n:
 *	fpr = (1 - (1 - k/m)^n)^k
 *
 * Blocked: B = m/512 blocks; a key picks one block and sets k distinct
 * bits of it, x + i*y mod 512 (x 9 bits, y odd: uapi/kbloom.h). A bit is
 * set by one key with probability exactly k/512 (not 1 - (1-1/512)^k:
 * the probes are distinct), so P(bit set | j keys in the block) =
 * 1 - (1 - k/512)^j. The query's block holds J ~ Binomial(n, 1/B)
 * (~ Poisson(n/B)) keys and
 *	fpr = sum_j P(J = j) * P(all k probes of the query set | j)
 * The independent-bits value (1 - (1 - k/512)^j)^k is wrong for this
 * probe rule, by orders of magnitude at low load: probe sets are
 * arithmetic progressions with 512 * 256 choices of (x, y), 65536 distinct
 * sets, so a stored key has exactly the query's probe set with
 * probability 2^-16, a floor of about (n/B) * 2^-16 on the rate whatever
 * k. The model computes P(all set | j) exactly for the keys whose stride
 * is +-y of the query (their probes are contiguous runs on the query's
 * cycle: 1/128 of the keys) and, for the other keys, from the exact
 * distribution of how many query bits one of them covers, taking the
 * covered ones as a uniform subset of the query's bits. It agrees with a
 * Monte-Carlo of the real probe rule within sampling error (calc_test).
 * Sizing searches the smallest m (a multiple of 512) whose best k meets p.
 *
 * Counting: m counters of c bits; the rate is bloom's. A counter overflows
 * (reaches 2^c) with probability at most (union bound over the counters,
 * P(count >= j) <= C(nk, j) m^-j <= (e n k / (m j))^j):
 *	m * (e k n / (m 2^c))^(2^c),
 * which at the optimal k = ln 2 * m/n is m (e ln 2 / 2^c)^(2^c), 1.37e-15 m
 * for 4-bit counters (Fan, Cao, Almeida, Broder, "Summary Cache",
 * IEEE/ACM ToN 8(3), 2000).
 *
 * d-left: d subtables of B = m/(d c) buckets of c cells, each cell an
 * f-bit fingerprint and an 8-bit counter (4 bytes). n distinct keys fill n
 * cells; a query compares its fingerprint with the occupied cells of its d
 * buckets, d*c*n/m of them on average, so fpr ~ (d c n / m) 2^-f. With the
 * engine's construction (a key's hash H = (bucket, remainder) is stored
 * through a permutation per subtable: dleft.c), a query is a false
 * positive exactly when its H equals a stored key's, one of B 2^f values:
 *	fpr = 1 - (1 - d c / (m 2^f))^n
 * Sizing: m = ceil(n / 0.75) rounded up to a multiple of d*c (75% load),
 * k = 1, f the smallest of 4..24 that meets p.
 *
 * Stable (Deng & Rafiei, 2006): cells of c bits, Max = 2^c - 1, each insert
 * decrements P cells (the kernel: a run of P from a uniform start, so each
 * cell still with probability P/m) then sets its k cells to Max. The fraction of
 * zero cells tends to z = (1 / (1 + 1 / (P (1/k - 1/m))))^Max, and the
 * rate to the stable point (1 - z)^k, whatever the number of inserts. For
 * a target rate p: P = 1 / ((1 / (1 - p^(1/k))^(1/Max) - 1) (1/k - 1/m)),
 * rounded up (more decrements, lower rate); the kernel takes
 * 1 <= P <= min(m, KBLOOM_DECREMENT_MAX).
 *
 * Scalable (Almeida, Baquero, Preguica, Hutchison 2007): slice i holds
 * n_i = n0 s^i keys in m_i bits with k_i hashes, by the plan of
 * uapi/kbloom.h (here in real arithmetic, L = log2(1/r)):
 *	m_i = s^i m0 + floor(i n_i L / ln 2), rounded up to a multiple of 64
 *	k_i = k0 + floor(i L + 1/2)
 * (the kernel's 32.32 fixed point gives the same figures but at exact
 * rounding ties; 'show' prints the kernel's). N keys fill the slices in
 * order, slice i taking N_i = min(n_i, what is left) (the last slice of
 * the plan takes the rest), and a query is positive when any slice says
 * so; slices hash independently, so
 *	fpr = 1 - prod_i (1 - (1 - e^{-k_i N_i / m_i})^{k_i})
 * Slice i's rate at capacity is about P0 r^i, so the compound rate stays
 * below P0 / (1 - r) for any N. Sizing for a target P: slice 0 as bloom
 * for n0 = N keys at P0 = P (1 - r). Defaults s = 2, r = 0.9.
 *
 * Dynamic count filter (Aguilar-Saborit et al. 2006): probes and rate as
 * bloom's; m cells of a c-bit counter (CBFV) plus an overflow counter
 * (OFV) of 1 bit at first, doubled as counts grow (uapi/kbloom.h): bytes
 * at create are those of m (c + 1) bits, in whole 64-bit words of each
 * vector; a counting filter of 16-bit counters takes m 16 bits.
 *
 * Information-theoretic bound: a structure with false positive rate p
 * needs at least log2(1/p) bits per key.
 *
 * Cardinality estimates from the fill live in cardinality.h.
 */
#ifndef BLOOMCTL_SIZING_H
#define BLOOMCTL_SIZING_H

#include <stdint.h>

#include "../kmod/engine/filter.h"
#include "../kmod/uapi/kbloom.h"

/*
 * Bytes of @m cells of @bits each in whole 64-bit words, as the engine
 * lays out every cell array.
 */
static inline uint64_t sizing_vec_bytes(uint64_t m, uint32_t bits)
{
	return (m * bits + 63) / 64 * 8;
}

/* Type parameters' defaults (create and calc). */
#define KB_COUNTING_BITS_DEFAULT	4
#define KB_STABLE_BITS_DEFAULT		1
#define KB_DLEFT_SUBTABLES_DEFAULT	4
#define KB_DLEFT_CELLS_DEFAULT		8
#define KB_DLEFT_FP_DEFAULT		16	/* without a target rate */
#define KB_DLEFT_FP_MIN			4
#define KB_DLEFT_FP_MAX			24
#define KB_DLEFT_LOAD			0.75	/* cells used at capacity */
#define KB_BLOCK_BITS			512
#define KB_DCF_BITS_DEFAULT		4	/* the CBFV's counters */
#define KB_DCF_OFV_BITS_START		1	/* the OFV's, at first */
#define KB_SCALABLE_GROWTH_DEFAULT	2
#define KB_SCALABLE_TIGHTEN_DEFAULT	900000	/* r = 0.9, in millionths */

/* -n ln p / (ln 2)^2, unrounded; NaN for n == 0 or p outside (0, 1). */
double sizing_bits_exact(uint64_t n, double p);

/*
 * Bloom m and k for capacity @n and false positive rate @p.
 * 0; -EINVAL when n == 0 or p is not in (0, 1); -ERANGE when m would
 * exceed KBLOOM_BITS_MAX (*m then holds no value).
 */
int sizing_from_capacity(uint64_t n, double p, uint64_t *m, uint32_t *k);

/* k = max(1, round(ln 2 * m / n)) capped at KBLOOM_HASHES_MAX; n >= 1. */
uint32_t sizing_optimal_hashes(uint64_t m, uint64_t n);

/* Bloom: (1 - e^{-kn/m})^k; m >= 1, k >= 1. */
double sizing_fpr(uint64_t m, uint32_t k, uint64_t n);
double sizing_fpr_bloom(uint64_t m, uint32_t k, double n);

/* (X/m)^k, X clamped to m. */
double sizing_fpr_fill(uint64_t m, uint32_t k, uint64_t fill);

/* -(m/k) ln(1 - X/m); +infinity when X >= m (saturated). */
double sizing_estimate(uint64_t m, uint32_t k, uint64_t fill);

/* Partitioned: (1 - (1 - k/m)^n)^k; k <= m. */
double sizing_fpr_partitioned(uint64_t m, uint32_t k, double n);

/*
 * Blocked: P(all k probes of a query set | j keys in its block), and the
 * rate for n keys in m bits (m a multiple of 512). NaN when out of
 * memory. Not thread-safe (a per-k table is cached).
 */
double sizing_blocked_given_load(uint32_t k, uint64_t j);
double sizing_fpr_blocked(uint64_t m, uint32_t k, double n);

/*
 * Blocked sizing: the smallest m (multiple of 512) and, for it, the k with
 * the lowest rate, that give at most @p for @n keys. 0, -EINVAL, or
 * -ERANGE when no m up to KBLOOM_BITS_MAX does.
 */
int sizing_blocked_from_capacity(uint64_t n, double p, uint64_t *m,
				 uint32_t *k);

/* Counting overflow bound, as log10 (<= 0; -inf for n == 0). */
double sizing_overflow_log10(uint64_t m, uint32_t k, double n,
			     uint32_t counter_bits);

/* d-left: 1 - (1 - d c / (m 2^f))^n. */
double sizing_fpr_dleft(uint64_t m, uint32_t d, uint32_t c, uint32_t f,
			double n);

/* Stable point: the rate, the fraction of zero cells, and P for a rate. */
double sizing_stable_fpr(uint64_t m, uint32_t k, uint32_t counter_bits,
			 uint32_t decrement);
double sizing_stable_zero(uint64_t m, uint32_t k, uint32_t counter_bits,
			  uint32_t decrement);
/* Unrounded P for stable rate @p; NaN when none (p not in (0,1), k >= m). */
double sizing_stable_decrement(uint64_t m, uint32_t k, uint32_t counter_bits,
			       double p);

/* log2(1/p): the fewest bits per key any structure needs for rate p. */
double sizing_bound_bits(double p);

/*
 * A filter's parameters are the engine's struct kb_shape
 * (kmod/engine/filter.h), as the ABI has them: CREATE sends them, GET
 * reports them. Fields a type does not take are 0 (cell_bits too, for the
 * types of one-bit cells: kb_params_cell_bits() gives the width).
 */

/*
 * Scalable: slice @i of the plan (m_i, k_i, n_i); 0, or -ERANGE when the
 * plan has no slice @i (KBLOOM_SLICES_MAX, KBLOOM_BITS_MAX, hashes).
 */
int sizing_scalable_slice(const struct kb_shape *p, uint32_t i,
			  uint64_t *m, uint32_t *k, uint64_t *n);
/* Scalable: the compound rate with @n keys (above). */
double sizing_fpr_scalable(const struct kb_shape *p, double n);
/* Scalable: the bound P0 / (1 - r), P0 slice 0's rate at capacity. */
double sizing_scalable_limit(const struct kb_shape *p);

/*
 * Fills the type's defaults for parameters left 0 that do not depend on
 * the target rate: counter bits, d, c, k = 1 for dleft, dims = 1, s and r
 * for scalable.
 */
void kb_params_defaults(struct kb_shape *p);

/* m must be a multiple of this: k, 512, d*c, or 1. */
uint64_t kb_params_multiple(const struct kb_shape *p);

/*
 * Rounds m up to the type's multiple, and up to KBLOOM_BITS_MIN. 0 or
 * -ERANGE when that exceeds KBLOOM_BITS_MAX.
 */
int kb_params_round(struct kb_shape *p);

/* Bits of one cell: 1, the counter bits, 32 (dleft), c + 1 (dcf at first). */
uint32_t kb_params_cell_bits(const struct kb_shape *p);

/* Dimensions: dims for the types whose keys are tuples, else 1. */
uint32_t kb_params_dims(const struct kb_shape *p);

/* Bytes of cells at create: the engine's kb_filter_cells_for(). */
uint64_t kb_params_bytes(const struct kb_shape *p);

/*
 * Bytes of the cells of every table of a filter of @windows windows (0 or
 * 1: not time-paged, one table). A time-paged filter keeps windows + 1
 * tables, as the module does (kmod/window.c, kb_ring_mem_for): the
 * retained windows and the spare that the next rotation opens, emptied in
 * advance. The module charges a little more (each table's window record
 * and per-CPU packet counter, the window lists, the filter object and its
 * per-CPU counters; with 2 CPUs 920 B plus 196 B per table), which 'show'
 * includes.
 */
uint64_t kb_params_ring_bytes(const struct kb_shape *p, uint32_t windows);

/*
 * Completes a shape given as m and k (create bits M hashes K, calc bits
 * M hashes K): defaults, then the parameters that would come from a
 * target rate: dleft fp bits KB_DLEFT_FP_DEFAULT, stable P for a stable
 * point with half the cells zero (rate 2^-k). Then rounds m.
 * 0 or -ERANGE.
 */
int kb_params_complete(struct kb_shape *p);

/*
 * Sizes the filter for @n keys at rate @fpr (defaults first; parameters
 * already set are kept, e.g. counter bits, d, c, f, P, dims).
 * 0; -EINVAL for n == 0 or fpr not in (0, 1); -ERANGE when m would exceed
 * KBLOOM_BITS_MAX or the cells KBLOOM_MEM_MAX bytes; -EDOM for a dleft
 * filter that no fingerprint of 4..24 bits brings to the rate.
 */
int kb_params_size(struct kb_shape *p, uint64_t n, double fpr);

/* Bloom's sizing (sizing_from_capacity(), then m rounded): 0 or -ERANGE. */
int kb_params_size_bloom(struct kb_shape *p, uint64_t n, double fpr);

/*
 * The type's false positive rate with @n keys (stable: the stable point,
 * whatever n; multi: per dimension, a query naming one dimension).
 */
double kb_params_fpr(const struct kb_shape *p, double n);

#endif
