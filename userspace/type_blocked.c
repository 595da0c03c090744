// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * blocked: a key sets k distinct bits of one 512-bit block; the exact
 * model of its rate is derived in sizing.h.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cardinality.h"
#include "print.h"
#include "sizing.h"
#include "types.h"

#define KMAX	KBLOOM_HASHES_MAX

/*
 * Exact binomial coefficient for n <= 64 (each step stays an integer
 * below 2^53).
 */
static double choose(unsigned int n, unsigned int r)
{
	double v = 1;
	unsigned int i;

	if (r > n)
		return 0;
	for (i = 1; i <= r; i++)
		v = v * (n - r + i) / i;
	return v;
}

/*
 * Per k: the query's probe set is mapped (by the bijection x -> (x - x0)
 * / y0 mod 512, y0 odd) onto {0..k-1}; keys keep odd strides, uniform.
 * Keys of stride +-1 ("aligned", 2 of the 256 strides) have contiguous
 * runs; every other key covers o query bits with probability po[o], found
 * by enumerating its 254 * 512 (x, y).
 */
struct blk_model {
	bool ready;
	/* tr[u][s]: an unaligned key covers s of u given clear query bits */
	double tr[KMAX + 1][KMAX + 1];
	/* f[p][l]: an aligned key covers at most a prefix of p bits and a
	 * suffix of l bits of the query */
	double f[KMAX + 1][KMAX];
};

static struct blk_model blk_models[KMAX + 1];

#define BLK_MASK	(KB_BLOCK_BITS - 1)
#define BLK_ALIGNED	(2.0 / 256)	/* strides +-y of the 256 odd ones */

static const struct blk_model *blk_model(uint32_t k)
{
	struct blk_model *bm = &blk_models[k];
	double po[KMAX + 1] = { 0 }, total = 0;
	unsigned int cnt[KB_BLOCK_BITS];
	unsigned int c, i, t, x, u, s, o, p, l;

	if (bm->ready)
		return bm;
	for (c = 3; c < KB_BLOCK_BITS - 1; c += 2) {
		memset(cnt, 0, sizeof(cnt));
		/* probe i of key (x, c) is t in {0..k-1} iff x = t - i c */
		for (i = 0; i < k; i++)
			for (t = 0; t < k; t++)
				cnt[(t - i * c) & BLK_MASK]++;
		for (x = 0; x < KB_BLOCK_BITS; x++)
			po[cnt[x]]++;
		total += KB_BLOCK_BITS;
	}
	for (o = 0; o <= k; o++)
		po[o] /= total;
	/*
	 * Covered bits: a uniform o-subset of the k (hypergeometric). The
	 * s = 0 entry is 1 minus the others, so that rows sum to 1 and the
	 * tables below tend to 1, not to a few ulps less.
	 */
	for (u = 0; u <= k; u++) {
		double rest = 0;

		for (s = 1; s <= u; s++) {
			double v = 0;

			for (o = s; o <= k && o - s <= k - u; o++)
				v += po[o] * choose(u, s) * choose(k - u, o - s) /
				     choose(k, o);
			bm->tr[u][s] = v;
			rest += v;
		}
		bm->tr[u][0] = 1.0 - rest;
	}
	/*
	 * An aligned key is a run of k on the 512-cycle: with start d in
	 * -(k-1)..0 it covers the prefix of k + d bits, with d in 1..k-1 the
	 * suffix of k - d bits, else nothing; each start has probability
	 * 1/512. Prefix > p: k - p starts; suffix > l: k - 1 - l starts.
	 */
	for (p = 0; p <= k; p++)
		for (l = 0; l + 1 <= k; l++)
			bm->f[p][l] = (KB_BLOCK_BITS - (double)(k - p) -
				       (double)(k - 1 - l)) / KB_BLOCK_BITS;
	bm->ready = true;
	return bm;
}

/* One evaluation: tables that grow with the block load. */
struct blk_eval {
	uint32_t k;
	const struct blk_model *bm;
	/*
	 * v[t * (k+1) + u]: t unaligned keys cover u given bits. Rows past
	 * a saturated one (every entry 1 to double precision) equal it.
	 */
	double *v;
	uint64_t rows, vcap;
	bool saturated;
	/* cov[a * (k+1) + c]: a aligned keys cover c query bits */
	double *cov;
	uint64_t ncov, covcap;
	double g[KMAX + 1][KMAX];	/* P(prefix <= p, suffix <= l), a = ncov-1 */
	bool oom;
};

static void *grow(void *p, uint64_t *cap, uint64_t need, size_t elem,
		  bool *oom)
{
	uint64_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return p;
	while (n < need)
		n *= 2;
	q = realloc(p, n * elem);
	if (!q) {
		*oom = true;
		return p;
	}
	*cap = n;
	return q;
}

static void blk_init(struct blk_eval *e, uint32_t k)
{
	memset(e, 0, sizeof(*e));
	e->k = k;
	e->bm = blk_model(k);
}

static void blk_free(struct blk_eval *e)
{
	free(e->v);
	free(e->cov);
}

/* Row t of v (computed on demand), or NULL when out of memory. */
static const double *blk_row(struct blk_eval *e, uint64_t t)
{
	const uint32_t k = e->k, w = k + 1;
	uint64_t r;
	uint32_t u, s;

	if (e->saturated && t >= e->rows)
		return e->v + (e->rows - 1) * w;
	if (t < e->rows)
		return e->v + t * w;
	if (!e->rows) {
		e->v = grow(e->v, &e->vcap, w, sizeof(double), &e->oom);
		if (e->oom)
			return NULL;
		for (u = 0; u <= k; u++)
			e->v[u] = u == 0;
		e->rows = 1;
	}
	for (r = e->rows; r <= t; r++) {
		const double *prev;
		double *row;

		/* Row by row: saturation may come long before t. */
		e->v = grow(e->v, &e->vcap, (r + 1) * w, sizeof(double),
			    &e->oom);
		if (e->oom)
			return NULL;
		prev = e->v + (r - 1) * w;
		row = e->v + r * w;
		for (u = 0; u <= k; u++) {
			double x = 0;

			for (s = 0; s <= u; s++)
				x += e->bm->tr[u][s] * prev[u - s];
			row[u] = x;
		}
		e->rows = r + 1;
		/* Rounding keeps sums a few ulps below 1: 1e-14 is "1". */
		if (row[k] >= 1.0 - 1e-14) {
			e->saturated = true;
			return row;
		}
	}
	return e->v + t * w;
}

/* cov row for a aligned keys, computed on demand, or NULL. */
static const double *blk_cov(struct blk_eval *e, uint64_t a)
{
	const uint32_t k = e->k, w = k + 1;
	uint32_t p, l;

	if (a < e->ncov)
		return e->cov + a * w;
	e->cov = grow(e->cov, &e->covcap, (a + 1) * w, sizeof(double),
		      &e->oom);
	if (e->oom)
		return NULL;
	while (e->ncov <= a) {
		double *c = e->cov + e->ncov * w;

		/* G_a = G_{a-1} * F (the maxima of independent keys) */
		for (p = 0; p <= k; p++)
			for (l = 0; l + 1 <= k; l++)
				e->g[p][l] = e->ncov ? e->g[p][l] * e->bm->f[p][l]
						     : 1.0;
		memset(c, 0, w * sizeof(double));
		for (p = 0; p <= k; p++) {
			for (l = 0; l + 1 <= k; l++) {
				double pm = e->g[p][l];

				if (p)
					pm -= e->g[p - 1][l];
				if (l)
					pm -= e->g[p][l - 1];
				if (p && l)
					pm += e->g[p - 1][l - 1];
				c[p + l < k ? p + l : k] += pm;
			}
		}
		e->ncov++;
	}
	return e->cov + a * w;
}

/* P(all k query bits set | j keys in the block); NaN when out of memory. */
static double blk_cover(struct blk_eval *e, uint64_t j)
{
	const uint32_t k = e->k;
	double mu = j * BLK_ALIGNED;
	double sd = sqrt(j * BLK_ALIGNED * (1 - BLK_ALIGNED));
	double lo = floor(mu - 12 * sd - 10), hi = ceil(mu + 12 * sd + 10);
	uint64_t a, alo = lo > 0 ? (uint64_t)lo : 0;
	uint64_t ahi = hi < (double)j ? (uint64_t)hi : j;
	double sum = 0, wsum = 0, lw;
	uint32_t c;

	/* Past saturation even the fewest unaligned keys cover everything. */
	if (blk_row(e, j - ahi) && e->saturated && j - ahi >= e->rows - 1)
		return 1.0;
	lw = lgamma(j + 1.0) - lgamma(alo + 1.0) - lgamma(j - alo + 1.0) +
	     alo * log(BLK_ALIGNED) + (j - alo) * log1p(-BLK_ALIGNED);
	for (a = alo; a <= ahi; a++) {
		const double *cov = blk_cov(e, a), *row = blk_row(e, j - a);
		double x = 0;

		if (!cov || !row)
			return NAN;
		for (c = 0; c <= k; c++)
			x += cov[c] * row[k - c];
		sum += exp(lw) * x;
		wsum += exp(lw);
		lw += log((double)(j - a) / (a + 1.0)) + log(BLK_ALIGNED) -
		      log1p(-BLK_ALIGNED);
	}
	/* lgamma's rounding leaves the weights' sum 1 +- 1e-10: rescale. */
	sum /= wsum;
	return sum > 1 ? 1 : sum;
}

double sizing_blocked_given_load(uint32_t k, uint64_t j)
{
	struct blk_eval e;
	double r;

	if (k < 1 || k > KMAX)
		return NAN;
	blk_init(&e, k);
	r = blk_cover(&e, j);
	blk_free(&e);
	return r;
}

/* log C(n, j), accurate for any n (lgamma(n) alone is not, for n ~ 1e15) */
static double lchoose_big(uint64_t n, uint64_t j)
{
	double s = 0;
	uint64_t i;

	if (n < (1ULL << 40))
		return lgamma(n + 1.0) - lgamma(j + 1.0) - lgamma(n - j + 1.0);
	for (i = 0; i < j; i++)
		s += log1p(-(double)i / (double)n);
	return s + j * log((double)n) - lgamma(j + 1.0);
}

double sizing_fpr_blocked(uint64_t m, uint32_t k, double n_keys)
{
	uint64_t blocks = m / KB_BLOCK_BITS, n, j, jlo, jhi;
	double q, mu, sd, lo, hi, lw, sum = 0, wsum = 0;
	struct blk_eval e;

	if (k < 1 || k > KMAX || !(n_keys >= 0))
		return NAN;
	if (isinf(n_keys))
		return 1.0;
	n = (uint64_t)llround(n_keys);
	if (!n)
		return 0.0;
	if (!blocks)
		blocks = 1;
	blk_init(&e, k);
	if (blocks == 1) {
		sum = blk_cover(&e, n);
		goto out;
	}
	q = 1.0 / (double)blocks;
	mu = n * q;
	sd = sqrt(n * q * (1 - q));
	lo = floor(mu - 12 * sd - 10);
	hi = ceil(mu + 12 * sd + 10);
	jlo = lo > 0 ? (uint64_t)lo : 0;
	jhi = hi < (double)n ? (uint64_t)hi : n;
	/* Saturated blocks from jlo on: every query is a false positive. */
	if (jlo > 1000 && blk_cover(&e, jlo / 2) >= 1.0) {
		sum = 1.0;
		goto out;
	}
	lw = lchoose_big(n, jlo) + jlo * log(q) + (n - jlo) * log1p(-q);
	for (j = jlo; j <= jhi; j++) {
		double c = blk_cover(&e, j);

		if (isnan(c)) {
			sum = NAN;
			break;
		}
		sum += exp(lw) * c;
		wsum += exp(lw);
		lw += log((double)(n - j) / (j + 1.0)) + log(q) - log1p(-q);
	}
	if (wsum > 0)
		sum /= wsum;
out:
	blk_free(&e);
	if (e.oom)
		return NAN;
	return sum > 1 ? 1 : sum;
}

/* The k with the lowest blocked rate for m, scanning up from 1. */
static double blocked_best(uint64_t m, uint64_t n, uint32_t *kbest)
{
	double best = INFINITY;
	uint32_t k, bk = 1, worse = 0;

	for (k = 1; k <= KMAX; k++) {
		double f = sizing_fpr_blocked(m, k, n);

		if (isnan(f))
			return NAN;
		if (f < best) {
			best = f;
			bk = k;
			worse = 0;
		} else if (++worse == 4) {
			break;	/* past the minimum */
		}
	}
	*kbest = bk;
	return best;
}

int sizing_blocked_from_capacity(uint64_t n, double p, uint64_t *m,
				 uint32_t *k)
{
	uint64_t lo = 1, hi = KBLOOM_BITS_MAX / KB_BLOCK_BITS, mid;
	uint32_t kk;
	double f;

	if (!n || !(p > 0.0 && p < 1.0))
		return -EINVAL;
	f = blocked_best(hi * KB_BLOCK_BITS, n, &kk);
	if (isnan(f) || f > p)
		return -ERANGE;
	/* The best rate falls as blocks are added: bisect on the blocks. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		f = blocked_best(mid * KB_BLOCK_BITS, n, &kk);
		if (isnan(f))
			return -ERANGE;
		if (f <= p)
			hi = mid;
		else
			lo = mid + 1;
	}
	*m = lo * KB_BLOCK_BITS;
	blocked_best(*m, n, k);
	return 0;
}

static int blocked_size(struct kb_shape *p, uint64_t n, double fpr)
{
	return sizing_blocked_from_capacity(n, fpr, &p->m, &p->k);
}

static double blocked_fpr(const struct kb_shape *p, double n)
{
	return sizing_fpr_blocked(p->m, p->k, n);
}

/* Its model's rate at n = n*. */
static double blocked_fpr_now(const struct kb_shape *p, uint64_t x)
{
	double n = card_keys(p, x);

	return isinf(n) ? 1.0 : sizing_fpr_blocked(p->m, p->k, n);
}

static void blocked_calc(const struct kb_out *o, const struct kb_shape *p,
			 uint64_t n)
{
	(void)n;
	kb_print_text(o, "  %llu blocks of 512 bits",
		      (unsigned long long)(p->m / KB_BLOCK_BITS));
}

const struct kb_utype kb_utype_blocked = {
	.size = blocked_size,
	.fpr = blocked_fpr,
	.keys = card_keys_slices,
	.fpr_now = blocked_fpr_now,
	.basis = "n* = ln(1 - X/m) / ln(1 - k/m): a key sets k distinct bits of one block, any bit with probability k/m",
	.calc_figures = blocked_calc,
};
