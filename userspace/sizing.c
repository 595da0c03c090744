// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The formulas are derived in sizing.h. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sizing.h"

#define KMAX	KBLOOM_HASHES_MAX

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

static double fpr_bloom(uint64_t m, uint32_t k, double n)
{
	/* 1 - e^{-x} as -expm1(-x): exact for small fills. */
	return pow(-expm1(-(double)k * n / (double)m), k);
}

double sizing_fpr(uint64_t m, uint32_t k, uint64_t n)
{
	return fpr_bloom(m, k, (double)n);
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

double sizing_fpr_partitioned(uint64_t m, uint32_t k, double n)
{
	if (k >= m)
		return n > 0 ? 1.0 : 0.0;
	/* (1 - k/m)^n = e^{n ln(1 - k/m)} */
	return pow(-expm1(n * log1p(-(double)k / (double)m)), k);
}

/* ---- blocked ---------------------------------------------------------- */

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

/* ---- counting, d-left, stable ------------------------------------------ */

double sizing_overflow_log10(uint64_t m, uint32_t k, double n,
			     uint32_t counter_bits)
{
	double j = ldexp(1.0, counter_bits), x;

	if (!(n > 0))
		return -INFINITY;
	x = log10((double)m) + j * log10(M_E * k * n / ((double)m * j));
	return x < 0 ? x : 0;
}

double sizing_fpr_dleft(uint64_t m, uint32_t d, uint32_t c, uint32_t f,
			double n)
{
	/* 1 / (B 2^f), B = m / (d c) buckets per subtable */
	double one = (double)d * c / (double)m * ldexp(1.0, -(int)f);

	if (!(one < 1))
		return n > 0 ? 1.0 : 0.0;
	return -expm1(n * log1p(-one));
}

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

double sizing_bound_bits(double p)
{
	return -log2(p);
}

/* ---- per type ----------------------------------------------------------- */

void kb_params_defaults(struct kb_shape *p)
{
	switch (p->type) {
	case KBLOOM_TYPE_COUNTING:
		if (!p->cell_bits)
			p->cell_bits = KB_COUNTING_BITS_DEFAULT;
		break;
	case KBLOOM_TYPE_STABLE:
		if (!p->cell_bits)
			p->cell_bits = KB_STABLE_BITS_DEFAULT;
		break;
	case KBLOOM_TYPE_DLEFT:
		if (!p->subtables)
			p->subtables = KB_DLEFT_SUBTABLES_DEFAULT;
		if (!p->bucket_cells)
			p->bucket_cells = KB_DLEFT_CELLS_DEFAULT;
		if (!p->k)
			p->k = 1;
		break;
	case KBLOOM_TYPE_MULTI:
		if (!p->dims)
			p->dims = 1;
		break;
	case KBLOOM_TYPE_DCF:
		if (!p->cell_bits)
			p->cell_bits = KB_DCF_BITS_DEFAULT;
		break;
	case KBLOOM_TYPE_SCALABLE:
		if (!p->growth)
			p->growth = KB_SCALABLE_GROWTH_DEFAULT;
		if (!p->tighten)
			p->tighten = KB_SCALABLE_TIGHTEN_DEFAULT;
		break;
	}
}

uint64_t kb_params_multiple(const struct kb_shape *p)
{
	switch (p->type) {
	case KBLOOM_TYPE_PARTITIONED:
		return p->k ? p->k : 1;
	case KBLOOM_TYPE_BLOCKED:
		return KB_BLOCK_BITS;
	case KBLOOM_TYPE_DLEFT:
		return p->subtables && p->bucket_cells ?
		       (uint64_t)p->subtables * p->bucket_cells : 1;
	case KBLOOM_TYPE_TRANSFORMS:
		return KBLOOM_XLATE_LINE;
	}
	return 1;
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
	switch (p->type) {
	case KBLOOM_TYPE_COUNTING:
	case KBLOOM_TYPE_STABLE:
		return p->cell_bits;
	case KBLOOM_TYPE_DLEFT:
		return 32;
	case KBLOOM_TYPE_DCF:
		return p->cell_bits + KB_DCF_OFV_BITS_START;
	case KBLOOM_TYPE_TRANSFORMS:
		return 8 * sizeof(struct kbloom_xlate);
	}
	return 1;
}

uint64_t kb_params_bytes(const struct kb_shape *p)
{
	/* m <= 2^33 and cells <= 32 bits: no overflow */
	uint64_t bits = p->m * kb_params_cell_bits(p);
	uint64_t dims = p->type == KBLOOM_TYPE_MULTI && p->dims ? p->dims : 1;

	/* Two vectors, each in whole words. */
	if (p->type == KBLOOM_TYPE_DCF)
		return sizing_vec_bytes(p->m, p->cell_bits) +
		       sizing_vec_bytes(p->m, KB_DCF_OFV_BITS_START);
	return sizing_vec_bytes(bits, 1) * dims;
}

uint64_t kb_params_ring_bytes(const struct kb_shape *p, uint32_t windows)
{
	return kb_params_bytes(p) * (windows > 1 ? windows + 1ULL : 1);
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

int kb_params_complete(struct kb_shape *p)
{
	kb_params_defaults(p);
	if (p->type == KBLOOM_TYPE_DLEFT && !p->fp_bits)
		p->fp_bits = KB_DLEFT_FP_DEFAULT;
	if (kb_params_round(p))
		return -ERANGE;
	if (p->type == KBLOOM_TYPE_STABLE && !p->decrement)
		p->decrement = stable_half_decrement(p);
	return 0;
}

static int size_dleft(struct kb_shape *p, uint64_t n, double fpr)
{
	double cells = ceil((double)n / KB_DLEFT_LOAD);
	uint32_t f;

	if (cells > (double)KBLOOM_BITS_MAX)
		return -ERANGE;
	p->m = (uint64_t)cells;
	p->k = 1;
	if (kb_params_round(p))
		return -ERANGE;
	if (p->fp_bits)
		return 0;
	for (f = KB_DLEFT_FP_MIN; f <= KB_DLEFT_FP_MAX; f++) {
		if (sizing_fpr_dleft(p->m, p->subtables, p->bucket_cells, f,
				     (double)n) <= fpr) {
			p->fp_bits = f;
			return 0;
		}
	}
	return -EDOM;
}

int kb_params_size(struct kb_shape *p, uint64_t n, double fpr)
{
	int r;

	if (!n || !(fpr > 0.0 && fpr < 1.0))
		return -EINVAL;
	kb_params_defaults(p);
	switch (p->type) {
	case KBLOOM_TYPE_BLOCKED:
		r = sizing_blocked_from_capacity(n, fpr, &p->m, &p->k);
		break;
	case KBLOOM_TYPE_DLEFT:
		r = size_dleft(p, n, fpr);
		break;
	case KBLOOM_TYPE_SCALABLE:
		/* Slice 0 at P0 = P (1 - r): the compound stays below P. */
		p->capacity = n;
		r = sizing_from_capacity(n, fpr * (1 - p->tighten / 1e6),
					 &p->m, &p->k);
		if (!r)
			r = kb_params_round(p);
		break;
	default:
		r = sizing_from_capacity(n, fpr, &p->m, &p->k);
		if (!r)
			r = kb_params_round(p);
		break;
	}
	if (r)
		return r;
	if (p->type == KBLOOM_TYPE_STABLE && !p->decrement) {
		double d = sizing_stable_decrement(p->m, p->k, p->cell_bits,
						   fpr);

		if (isnan(d))
			return -EDOM;
		/* Up: more decrements, more zeros, a lower rate. */
		d = ceil(d - 1e-9);
		if (d > (double)p->m || d > KBLOOM_DECREMENT_MAX)
			return -EDOM;	/* the kernel takes P <= m */
		p->decrement = d < 1 ? 1 : (uint32_t)d;
	}
	if (kb_params_bytes(p) > KBLOOM_MEM_MAX)
		return -ERANGE;
	return 0;
}

double kb_params_fpr(const struct kb_shape *p, double n)
{
	switch (p->type) {
	case KBLOOM_TYPE_PARTITIONED:
		return sizing_fpr_partitioned(p->m, p->k, n);
	case KBLOOM_TYPE_BLOCKED:
		return sizing_fpr_blocked(p->m, p->k, n);
	case KBLOOM_TYPE_DLEFT:
		return sizing_fpr_dleft(p->m, p->subtables, p->bucket_cells,
					p->fp_bits, n);
	case KBLOOM_TYPE_STABLE:
		return sizing_stable_fpr(p->m, p->k, p->cell_bits,
					 p->decrement);
	case KBLOOM_TYPE_SCALABLE:
		return sizing_fpr_scalable(p, n);
	}
	return fpr_bloom(p->m, p->k, n);
}

/* ---- scalable ---------------------------------------------------------- */

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

		ok *= 1 - fpr_bloom(m, k, here);
		left -= here;
		m = nm;
		k = nk;
		cap = ncap;
	}
	return 1 - ok;
}

double sizing_scalable_limit(const struct kb_shape *p)
{
	return fpr_bloom(p->m, p->k, (double)p->capacity) /
	       (1 - p->tighten / 1e6);
}
