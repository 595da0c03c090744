// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of the per-type rates and sizing behind 'bloomctl calc' and
 * 'create' (userspace/sizing.c): bloom against the classical table (Fan,
 * Cao, Almeida and Broder, "Summary Cache", IEEE/ACM ToN 2000),
 * partitioned and blocked against their formulas and against Monte-Carlo
 * runs of the probe rules of uapi/kbloom.h, the counting overflow bound
 * of Fan et al. (the same paper), d-left and stable (Deng & Rafiei) rates and their sizing,
 * and the scalable plan and compound rate (the tool's real arithmetic
 * against the engine's fixed point, slice by slice).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "../../kmod/engine/filter.h"
#include "../../kmod/uapi/kbloom.h"
#include "../../userspace/sizing.h"

/* |seen - want| <= rel * |want| + abs, saying what differed when not. */
static int near_abs(double want, double seen, double rel, double abs_tol)
{
	if (fabs(seen - want) <= rel * fabs(want) + abs_tol)
		return 1;
	fprintf(stderr, "# want %.10g, got %.10g (tolerance %g + %g)\n", want,
		seen, rel, abs_tol);
	return 0;
}

#define EXPECT_NEAR(want, seen, rel) \
	EXPECT_TRUE(near_abs((want), (seen), (rel), 0))
#define EXPECT_NEAR_ABS(want, seen, rel, abs_tol) \
	EXPECT_TRUE(near_abs((want), (seen), (rel), (abs_tol)))

/* splitmix64: a fixed seed gives a fixed stream. */
static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n), as the kernel reduces hashes (h * n >> 64). */
static uint64_t below(uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rnd() * n) >> 64);
}

/* A binomial sampling error: 4.5 standard deviations of a rate over @t. */
static double slack(double p, double t)
{
	return 4.5 * sqrt(p * (1 - p) / t) + 1.0 / t;
}

/* ---- bloom, counting, multi -------------------------------------------- */

static const struct {
	int mn;
	double fpr[7];
} table_3_1[] = {
	{ 2, { 0.393, 0.400 } },
	{ 3, { 0.283, 0.237, 0.253 } },
	{ 4, { 0.221, 0.155, 0.147, 0.160 } },
	{ 5, { 0.181, 0.109, 0.0918, 0.0919, 0.101 } },
	{ 6, { 0.154, 0.080, 0.061, 0.056, 0.058, 0.064 } },
	{ 7, { 0.133, 0.0618, 0.0423, 0.0359, 0.0347, 0.0364 } },
	{ 8, { 0.118, 0.0489, 0.0306, 0.024, 0.0217, 0.0216, 0.0229 } },
	{ 9, { 0.105, 0.0397, 0.0228, 0.0166, 0.0141, 0.0133, 0.0135 } },
};

/* Seed 004 Table 3.1 through the per-type entry point: bloom's formula
 * serves bloom, counting and multi (per dimension). */
TEST(bloom_types_table_3_1)
{
	static const uint32_t types[] = {
		KBLOOM_TYPE_BLOOM, KBLOOM_TYPE_COUNTING, KBLOOM_TYPE_MULTI,
	};
	unsigned int t, row, k, checked = 0;

	for (t = 0; t < 3; t++) {
		for (row = 0; row < 8; row++) {
			for (k = 1; k <= 7; k++) {
				struct kb_shape p = {
					.type = types[t],
					.m = table_3_1[row].mn * 1000,
					.k = k, .cell_bits = 4, .dims = 3,
				};
				double want = table_3_1[row].fpr[k - 1];

				if (want == 0)
					continue;
				EXPECT_NEAR(want, kb_params_fpr(&p, 1000),
					    0.005);
				checked++;
			}
		}
	}
	EXPECT_EQ(120U, checked);
}

/* ---- partitioned ------------------------------------------------------ */

TEST(partitioned_formula)
{
	struct kb_shape p = { .type = KBLOOM_TYPE_PARTITIONED };
	double bloom;

	/* (1 - (1 - k/m)^n)^k, straight */
	EXPECT_NEAR(pow(1 - pow(1 - 7.0 / 7000, 1000), 7),
		    sizing_fpr_partitioned(7000, 7, 1000), 1e-12);
	EXPECT_NEAR(pow(1 - pow(1 - 3.0 / 96, 40), 3),
		    sizing_fpr_partitioned(96, 3, 40), 1e-12);
	/* (1 - k/m)^n <= e^{-kn/m}: a little above bloom, converging */
	bloom = sizing_fpr(7000, 7, 1000);
	EXPECT_GT(sizing_fpr_partitioned(7000, 7, 1000), bloom);
	EXPECT_NEAR(bloom, sizing_fpr_partitioned(7000, 7, 1000), 0.01);
	EXPECT_NEAR(sizing_fpr(7000000, 7, 1000000),
		    sizing_fpr_partitioned(7000000, 7, 1000000), 1e-5);
	EXPECT_TRUE(sizing_fpr_partitioned(7000, 7, 0) == 0.0);
	/* Sizing: bloom's m, then a multiple of k */
	ASSERT_EQ(0, kb_params_size(&p, 1000000, 0.01));
	EXPECT_EQ(7U, p.k);
	EXPECT_EQ((uint64_t)9585093, p.m);	/* 9585088 up to 7 * 1369299 */
	EXPECT_EQ((uint64_t)0, p.m % p.k);
}

/* A partitioned filter with uniform slice positions, against the formula. */
TEST(partitioned_monte_carlo)
{
	enum { K = 5, SLICE = 400, N = 300, FILTERS = 40, QUERIES = 5000 };
	static uint8_t bits[K][SLICE];
	double want = sizing_fpr_partitioned(K * SLICE, K, N);
	unsigned int f, i, q, s;
	double t = (double)FILTERS * QUERIES, pos = 0;

	rng_state = 1;
	for (f = 0; f < FILTERS; f++) {
		memset(bits, 0, sizeof(bits));
		for (i = 0; i < N; i++)
			for (s = 0; s < K; s++)
				bits[s][below(SLICE)] = 1;
		for (q = 0; q < QUERIES; q++) {
			for (s = 0; s < K; s++)
				if (!bits[s][below(SLICE)])
					break;
			pos += s == K;
		}
	}
	EXPECT_NEAR_ABS(want, pos / t, 0, slack(want, t));
}

/* ---- blocked ----------------------------------------------------------- */

/* The probe set of a key in its block (uapi/kbloom.h), as a bitmap. */
static void block_probes(uint64_t h2, uint32_t k, uint64_t set[8])
{
	uint32_t x = h2 & 511, y = (h2 >> 9) | 1, i;

	memset(set, 0, 8 * sizeof(uint64_t));
	for (i = 0; i < k; i++) {
		uint32_t b = (x + i * y) & 511;

		set[b / 64] |= 1ULL << (b % 64);
	}
}

/* P(all k probes of a query set | j keys in its block), sampled. */
static double blocked_mc(uint32_t k, uint32_t j, unsigned int trials)
{
	uint64_t block[8], q[8];
	unsigned int t, i, w, hits = 0;

	for (t = 0; t < trials; t++) {
		uint64_t acc[8] = { 0 };
		int all = 1;

		for (i = 0; i < j; i++) {
			block_probes(rnd(), k, block);
			for (w = 0; w < 8; w++)
				acc[w] |= block[w];
		}
		block_probes(rnd(), k, q);
		for (w = 0; w < 8; w++)
			if ((acc[w] & q[w]) != q[w])
				all = 0;
		hits += all;
	}
	return (double)hits / trials;
}

/* 1/y mod 512 for odd y (Newton: each step doubles the bits). */
static uint32_t inv512(uint32_t y)
{
	uint32_t v = y;
	int i;

	for (i = 0; i < 3; i++)
		v *= 2 - y * v;
	return v & 511;
}

/*
 * The distinct-probes subtlety: a key sets k distinct bits of 512, so one
 * bit is set by j keys with probability exactly 1 - (1 - k/512)^j, not
 * 1 - (1 - 1/512)^(kj).
 */
TEST(blocked_bit_probability)
{
	const uint32_t k = 32, j = 40;
	const unsigned int trials = 300000;
	unsigned int t, i, hits = 0;
	double want = 1 - pow(1 - k / 512.0, j);
	double naive = 1 - pow(1 - 1 / 512.0, k * j);

	rng_state = 2;
	for (t = 0; t < trials; t++) {
		int any = 0;

		for (i = 0; i < j; i++) {
			uint64_t h2 = rnd();
			uint32_t x = h2 & 511, y = (h2 >> 9) | 1;

			/* bit 0 is probe number (-x / y) mod 512, if < k */
			any |= ((0 - x) * inv512(y) & 511) < k;
		}
		hits += any;
	}
	EXPECT_NEAR_ABS(want, (double)hits / trials, 0, slack(want, trials));
	/* the two differ by more than the sampling error here */
	EXPECT_GT(fabs(naive - want), 2 * slack(want, trials));
}

/* The shortcut above agrees with the probe walk. */
TEST(blocked_bit_shortcut)
{
	uint64_t set[8];
	unsigned int t;

	rng_state = 6;
	for (t = 0; t < 1000; t++) {
		uint64_t h2 = rnd();
		uint32_t x = h2 & 511, y = (h2 >> 9) | 1;

		block_probes(h2, 5, set);
		EXPECT_EQ((int)(set[0] & 1),
			  (int)(((0 - x) * inv512(y) & 511) < 5));
	}
}

/*
 * Known values: one key in the block covers the query only with the very
 * same probe set: 1/512 for k = 1, and for k >= 2 one (x, y) pair in
 * 65536 (the same stride or its opposite, 2 of 256, and the same run);
 * none at all with no key.
 */
TEST(blocked_known_values)
{
	EXPECT_NEAR(1.0 / 512, sizing_blocked_given_load(1, 1), 1e-12);
	EXPECT_NEAR(1.0 / 65536, sizing_blocked_given_load(2, 1), 1e-9);
	EXPECT_NEAR(1.0 / 65536, sizing_blocked_given_load(7, 1), 1e-9);
	EXPECT_TRUE(sizing_blocked_given_load(7, 0) == 0.0);
	/* k = 1 is a plain coupon: 1 - (511/512)^j */
	EXPECT_NEAR(1 - pow(511.0 / 512, 100),
		    sizing_blocked_given_load(1, 100), 1e-12);
	/* A full block is a certain false positive */
	EXPECT_NEAR(1.0, sizing_blocked_given_load(8, 5000), 1e-12);
	EXPECT_TRUE(isnan(sizing_blocked_given_load(0, 5)));
	EXPECT_TRUE(isnan(sizing_blocked_given_load(33, 5)));
}

/*
 * The model against the real probe rule, across loads: at low load the
 * equal-probe-set floor dominates and the independent-bits value
 * (1 - (1 - k/512)^j)^k is orders of magnitude too low.
 */
TEST(blocked_given_load_monte_carlo)
{
	static const struct {
		uint32_t k, j;
	} cases[] = {
		{ 8, 5 }, { 3, 20 }, { 8, 50 }, { 16, 35 }, { 6, 80 },
	};
	const unsigned int trials = 150000;
	unsigned int i;

	rng_state = 3;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t k = cases[i].k, j = cases[i].j;
		double model = sizing_blocked_given_load(k, j);
		double mc = blocked_mc(k, j, trials);

		EXPECT_NEAR_ABS(mc, model, 0.02, slack(model, trials))
			TH_LOG("k = %u, j = %u", k, j);
	}
	/* k = 8, j = 5: the floor, ~5 * 2^-16, vs ~1e-9 independent */
	EXPECT_GT(sizing_blocked_given_load(8, 5), 5e-5);
	EXPECT_LT(pow(1 - pow(1 - 8 / 512.0, 5), 8), 1e-8);
}

/* A whole blocked filter: keys spread over the blocks, fresh queries. */
TEST(blocked_filter_monte_carlo)
{
	enum { BLOCKS = 256, K = 6, N = 13000, QUERIES = 300000 };
	static uint64_t mem[BLOCKS][8];
	double want = sizing_fpr_blocked(BLOCKS * 512, K, N);
	uint64_t set[8];
	unsigned int i, w, pos = 0;

	rng_state = 4;
	memset(mem, 0, sizeof(mem));
	for (i = 0; i < N; i++) {
		uint64_t b = below(BLOCKS);

		block_probes(rnd(), K, set);
		for (w = 0; w < 8; w++)
			mem[b][w] |= set[w];
	}
	for (i = 0; i < QUERIES; i++) {
		uint64_t b = below(BLOCKS);
		int all = 1;

		block_probes(rnd(), K, set);
		for (w = 0; w < 8; w++)
			if ((mem[b][w] & set[w]) != set[w])
				all = 0;
		pos += all;
	}
	EXPECT_NEAR_ABS(want, (double)pos / QUERIES, 0.01,
			slack(want, QUERIES));
	/* More than bloom's rate with the same bits: uneven blocks */
	EXPECT_GT(want, sizing_fpr(BLOCKS * 512, K, N));
}

/* Sizing: the smallest multiple of 512 whose best k meets the rate. */
TEST(blocked_sizing)
{
	static const double rates[] = { 0.1, 0.01, 0.001 };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		uint64_t m = 0, bm = 0;
		uint32_t k = 0, bk = 0, kk;
		double best_below = 1;

		ASSERT_EQ(0, sizing_blocked_from_capacity(100000, rates[i],
							  &m, &k));
		ASSERT_EQ(0, sizing_from_capacity(100000, rates[i], &bm, &bk));
		EXPECT_EQ((uint64_t)0, m % 512);
		EXPECT_LE(sizing_fpr_blocked(m, k, 100000), rates[i]);
		for (kk = 1; kk <= KBLOOM_HASHES_MAX; kk++) {
			double f = sizing_fpr_blocked(m - 512, kk, 100000);

			if (f < best_below)
				best_below = f;
			/* k is the best for m */
			EXPECT_LE(sizing_fpr_blocked(m, k, 100000),
				  sizing_fpr_blocked(m, kk, 100000));
		}
		EXPECT_GT(best_below, rates[i]);	/* and m is the least */
		EXPECT_GE(m, bm);	/* never fewer bits than bloom */
	}
	/* The floor makes low rates expensive: 1e-5 at 100k keys */
	{
		uint64_t m = 0, bm = 0;
		uint32_t k = 0, bk = 0;

		ASSERT_EQ(0, sizing_blocked_from_capacity(100000, 1e-5, &m,
							  &k));
		ASSERT_EQ(0, sizing_from_capacity(100000, 1e-5, &bm, &bk));
		EXPECT_GT(m, 10 * bm);
	}
	{
		uint64_t m = 0;
		uint32_t k = 0;

		EXPECT_EQ(-ERANGE, sizing_blocked_from_capacity(1000000000ULL,
								1e-7, &m, &k));
		EXPECT_EQ(-EINVAL, sizing_blocked_from_capacity(0, 0.1, &m,
								&k));
		EXPECT_EQ(-EINVAL, sizing_blocked_from_capacity(10, 1, &m,
								&k));
	}
}

/* ---- counting ---------------------------------------------------------- */

/*
 * Seed 001: 4-bit counters overflow with probability at most
 * 1.37e-15 * m at the optimal k (k n / m = ln 2).
 */
TEST(counting_overflow_bound)
{
	const uint64_t m = 1000000;
	const uint32_t k = 7;
	double n = M_LN2 * m / k;	/* k n / m = ln 2 exactly */
	double x = sizing_overflow_log10(m, k, n, 4);

	EXPECT_NEAR(1.37e-15, pow(10, x) / m, 0.005);
	EXPECT_NEAR(log10(m) + 16 * log10(M_E * M_LN2 / 16), x, 1e-12);
	/* 8 and 16 bits: far below what a double holds, still finite */
	x = sizing_overflow_log10(m, k, n, 8);
	EXPECT_NEAR(log10(m) + 256 * log10(M_E * M_LN2 / 256), x, 1e-9);
	EXPECT_LT(x, -500);
	EXPECT_TRUE(isfinite(sizing_overflow_log10(m, k, n, 16)));
	/* Overloaded: the bound says nothing, clamped to 1 */
	EXPECT_TRUE(sizing_overflow_log10(1000, 7, 1e6, 4) == 0.0);
	EXPECT_TRUE(isinf(sizing_overflow_log10(m, k, 0, 4)));
}

/* Counting filters have bloom's m and k, and cell_bits times its bytes. */
TEST(counting_sizing)
{
	struct kb_shape p = { .type = KBLOOM_TYPE_COUNTING };

	ASSERT_EQ(0, kb_params_size(&p, 1000000, 0.01));
	EXPECT_EQ(4U, p.cell_bits);		/* default */
	EXPECT_EQ((uint64_t)9585088, p.m);
	EXPECT_EQ(7U, p.k);
	EXPECT_EQ((uint64_t)9585088 / 2, kb_params_bytes(&p));
	p.cell_bits = 16;
	EXPECT_EQ((uint64_t)9585088 * 2, kb_params_bytes(&p));
}

/* ---- d-left ------------------------------------------------------------ */

TEST(dleft)
{
	struct kb_shape p = { .type = KBLOOM_TYPE_DLEFT };

	/*
	 * 4 tables of 1000 buckets of 8 cells, 12-bit fingerprints: a stored
	 * key matches with probability 1 / (1000 * 2^12); at 75% load about
	 * 24 occupied cells compared, 24 / 2^12.
	 */
	EXPECT_NEAR(-expm1(24000 * log1p(-1.0 / (1000 * 4096))),
		    sizing_fpr_dleft(4 * 8 * 1000, 4, 8, 12, 24000), 1e-12);
	EXPECT_NEAR(24.0 / 4096, sizing_fpr_dleft(32000, 4, 8, 12, 24000),
		    0.005);
	EXPECT_TRUE(sizing_fpr_dleft(32000, 4, 8, 12, 0) == 0.0);
	ASSERT_EQ(0, kb_params_size(&p, 1000000, 0.01));
	EXPECT_EQ(4U, p.subtables);
	EXPECT_EQ(8U, p.bucket_cells);
	EXPECT_EQ(1U, p.k);
	EXPECT_EQ(12U, p.fp_bits);		/* 24/2^12 = 0.0059 */
	EXPECT_EQ((uint64_t)0, p.m % 32);
	EXPECT_GE(p.m, (uint64_t)1333334);	/* n / 0.75 */
	EXPECT_LT(p.m, (uint64_t)1333334 + 32);
	EXPECT_EQ(p.m * 4, kb_params_bytes(&p));
	EXPECT_LE(kb_params_fpr(&p, 1000000), 0.01);
	/* 11 bits would not do */
	EXPECT_GT(sizing_fpr_dleft(p.m, 4, 8, 11, 1000000), 0.01);
	/* Given parameters are kept */
	memset(&p, 0, sizeof(p));
	p.type = KBLOOM_TYPE_DLEFT;
	p.subtables = 2;
	p.bucket_cells = 4;
	ASSERT_EQ(0, kb_params_size(&p, 1000, 0.0001));
	EXPECT_EQ((uint64_t)0, p.m % 8);
	EXPECT_EQ(16U, p.fp_bits);		/* 8 * 0.75 / 2^16 = 9.2e-5 */
	/* No fingerprint reaches 1e-9 */
	memset(&p, 0, sizeof(p));
	p.type = KBLOOM_TYPE_DLEFT;
	EXPECT_EQ(-EDOM, kb_params_size(&p, 1000, 1e-9));
	/* bits M: rounded to d*c, fingerprint 16 */
	memset(&p, 0, sizeof(p));
	p.type = KBLOOM_TYPE_DLEFT;
	p.m = 1000;
	ASSERT_EQ(0, kb_params_complete(&p));
	EXPECT_EQ((uint64_t)1024, p.m);
	EXPECT_EQ(16U, p.fp_bits);
}

/* ---- stable ------------------------------------------------------------ */

TEST(stable_formulas)
{
	/* Max = 1, P (1/k - 1/m) = 1: half the cells zero, rate 2^-k */
	EXPECT_NEAR(0.5, sizing_stable_zero(20, 4, 1, 5), 1e-12);
	EXPECT_NEAR(1.0 / 16, sizing_stable_fpr(20, 4, 1, 5), 1e-12);
	/* Max = 3: z = (1 / (1 + 1/(P (1/k - 1/m))))^3 */
	EXPECT_NEAR(pow(1 / (1 + 1 / (10 * (1 / 4.0 - 1 / 2000.0))), 3),
		    sizing_stable_zero(2000, 4, 2, 10), 1e-12);
	/* No decrement: the filter fills up */
	EXPECT_TRUE(sizing_stable_fpr(2000, 4, 2, 0) == 1.0);
	EXPECT_TRUE(isnan(sizing_stable_decrement(1000, 4, 1, 0)));
	EXPECT_TRUE(isnan(sizing_stable_decrement(4, 4, 1, 0.1)));
}

/* P is capped at m and KBLOOM_DECREMENT_MAX (8-bit cells need many). */
TEST(stable_decrement_limits)
{
	struct kb_shape p = { .type = KBLOOM_TYPE_STABLE, .cell_bits = 8 };

	EXPECT_EQ(-EDOM, kb_params_size(&p, 100, 1e-7));
	memset(&p, 0, sizeof(p));
	p.type = KBLOOM_TYPE_STABLE;
	p.cell_bits = 8;
	p.m = 1 << 30;
	p.k = 1;
	ASSERT_EQ(0, kb_params_complete(&p));
	EXPECT_LE(p.decrement, (uint32_t)KBLOOM_DECREMENT_MAX);
	/* half zero with Max = 255 and k = 1 wants ~368 decrements */
	EXPECT_GT(p.decrement, 300U);
}

/* P for a rate inverts the rate; bits M hashes K keep half the cells zero */
TEST(stable_decrement)
{
	static const struct {
		uint64_t m;
		uint32_t k, c;
		double p;
	} cases[] = {
		{ 100000, 7, 1, 0.01 }, { 100000, 7, 2, 0.01 },
		{ 1 << 20, 10, 4, 0.001 }, { 5000, 3, 8, 0.1 },
	};
	unsigned int i;

	for (i = 0; i < 4; i++) {
		double d = sizing_stable_decrement(cases[i].m, cases[i].k,
						   cases[i].c, cases[i].p);
		uint32_t up = (uint32_t)ceil(d);
		struct kb_shape p = {
			.type = KBLOOM_TYPE_STABLE, .m = cases[i].m,
			.k = cases[i].k, .cell_bits = cases[i].c,
		};

		EXPECT_LE(sizing_stable_fpr(cases[i].m, cases[i].k, cases[i].c,
					    up), cases[i].p);
		if (up > 1)
			EXPECT_GT(sizing_stable_fpr(cases[i].m, cases[i].k,
						    cases[i].c, up - 1),
				  cases[i].p);
		/* the default of bits M hashes K: half zero */
		ASSERT_EQ(0, kb_params_complete(&p));
		EXPECT_NEAR(0.5, sizing_stable_zero(p.m, p.k, p.cell_bits,
						    p.decrement), 0.1);
	}
}

/*
 * A stable filter run long enough reaches the stable point: the zero
 * fraction of Deng & Rafiei's Theorem, within sampling error. Decrements
 * are a run of P cells from a uniform start, as the kernel does them.
 */
TEST(stable_monte_carlo)
{
	enum { M = 4000, K = 4, MAX = 3, P = 12, STEPS = 60000 };
	static uint8_t cell[M];
	double want = sizing_stable_zero(M, K, 2, P), zeros = 0;
	unsigned int s, i, samples = 0;

	rng_state = 5;
	memset(cell, 0, sizeof(cell));
	for (s = 0; s < STEPS; s++) {
		uint64_t from = below(M);

		for (i = 0; i < P; i++) {
			uint64_t c = (from + i) % M;

			if (cell[c])
				cell[c]--;
		}
		for (i = 0; i < K; i++)
			cell[below(M)] = MAX;
		if (s >= STEPS / 2 && !(s % 100)) {
			for (i = 0; i < M; i++)
				zeros += !cell[i];
			samples++;
		}
	}
	EXPECT_NEAR(want, zeros / ((double)samples * M), 0.03);
}

TEST(stable_sizing)
{
	struct kb_shape p = { .type = KBLOOM_TYPE_STABLE };

	ASSERT_EQ(0, kb_params_size(&p, 1000000, 0.01));
	EXPECT_EQ(1U, p.cell_bits);		/* default */
	EXPECT_EQ((uint64_t)9585088, p.m);	/* m and k as bloom */
	EXPECT_EQ(7U, p.k);
	EXPECT_LE(kb_params_fpr(&p, 0), 0.01);
	EXPECT_GE(p.decrement, 1U);
	/* A given P is kept */
	memset(&p, 0, sizeof(p));
	p.type = KBLOOM_TYPE_STABLE;
	p.decrement = 3;
	p.cell_bits = 4;
	ASSERT_EQ(0, kb_params_size(&p, 1000, 0.01));
	EXPECT_EQ(3U, p.decrement);
	EXPECT_EQ(p.m / 2, kb_params_bytes(&p));
}

/* ---- shapes ------------------------------------------------------------ */

TEST(round_to_multiples)
{
	struct kb_shape p = { .type = KBLOOM_TYPE_BLOCKED, .m = 1000, .k = 3 };

	ASSERT_EQ(0, kb_params_round(&p));
	EXPECT_EQ((uint64_t)1024, p.m);
	p.type = KBLOOM_TYPE_PARTITIONED;
	p.m = 100;
	ASSERT_EQ(0, kb_params_round(&p));
	EXPECT_EQ((uint64_t)102, p.m);
	p.m = 10;				/* up to the minimum first */
	ASSERT_EQ(0, kb_params_round(&p));
	EXPECT_EQ((uint64_t)66, p.m);
	p.type = KBLOOM_TYPE_BLOOM;
	p.m = 65;
	ASSERT_EQ(0, kb_params_round(&p));
	EXPECT_EQ((uint64_t)65, p.m);
	p.type = KBLOOM_TYPE_PARTITIONED;
	p.k = 7;
	p.m = KBLOOM_BITS_MAX;			/* 2^33 is no multiple of 7 */
	EXPECT_EQ(-ERANGE, kb_params_round(&p));
	/* multi: bytes of every dimension */
	memset(&p, 0, sizeof(p));
	p.type = KBLOOM_TYPE_MULTI;
	p.m = 1024;
	p.k = 3;
	p.dims = 3;
	EXPECT_EQ((uint64_t)3 * 128, kb_params_bytes(&p));
	EXPECT_EQ((uint64_t)16, kb_params_bytes(&(struct kb_shape){
		.type = KBLOOM_TYPE_BLOOM, .m = 65, .k = 1 }));
}

TEST(sizing_refusals)
{
	static const uint32_t types[] = {
		KBLOOM_TYPE_BLOOM, KBLOOM_TYPE_PARTITIONED, KBLOOM_TYPE_BLOCKED,
		KBLOOM_TYPE_COUNTING, KBLOOM_TYPE_DLEFT, KBLOOM_TYPE_STABLE,
		KBLOOM_TYPE_MULTI,
	};
	unsigned int i;

	for (i = 0; i < 7; i++) {
		struct kb_shape p = { .type = types[i] };

		EXPECT_EQ(-EINVAL, kb_params_size(&p, 0, 0.01));
		EXPECT_EQ(-EINVAL, kb_params_size(&p, 1000, 1));
		EXPECT_EQ(-ERANGE, kb_params_size(&p, 10000000000ULL, 1e-6))
			TH_LOG("type %u", types[i]);
	}
	/* 16-bit counters: bloom's m fits, its bytes do not */
	{
		struct kb_shape p = { .type = KBLOOM_TYPE_COUNTING,
				       .cell_bits = 16 };

		EXPECT_EQ(-ERANGE, kb_params_size(&p, 600000000, 0.01));
	}
}

TEST(bound)
{
	EXPECT_NEAR(6.643856, sizing_bound_bits(0.01), 1e-6);
	EXPECT_NEAR(1.0, sizing_bound_bits(0.5), 1e-12);
	/* Bloom at the optimum spends 1/ln 2 = 1.44 times the bound */
	EXPECT_NEAR(1 / M_LN2,
		    sizing_bits_exact(1, 1e-6) / sizing_bound_bits(1e-6), 1e-9);
}

/*
 * Scalable: calc's plan is the kernel's (the engine made here) slice by
 * slice wherever the fixed point does not sit on a rounding tie; sizing
 * puts slice 0 at P (1 - r); the compound rate is slice 0's at capacity,
 * grows with the keys and stays below P0 / (1 - r).
 */
TEST(scalable_plan_and_rate)
{
	static const struct {
		uint64_t n;
		double p;
		uint32_t s, r;
	} cases[] = {
		{ 1000, 0.01, 2, 900000 }, { 100000, 0.001, 4, 800000 },
		{ 5000, 0.05, 2, 500000 }, { 777, 0.02, 3, 850000 },
	};
	static const uint8_t hk[16];
	size_t c;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct kb_shape p = { .type = KBLOOM_TYPE_SCALABLE,
				       .growth = cases[c].s,
				       .tighten = cases[c].r };
		struct kb_shape sh = { .type = KBLOOM_TYPE_SCALABLE };
		double p0, prev = 0, f;
		struct kb_filter eng;
		uint32_t i, same = 0, k;
		uint64_t m, n;

		ASSERT_EQ(0, kb_params_size(&p, cases[c].n, cases[c].p));
		EXPECT_EQ(cases[c].n, p.capacity);
		p0 = sizing_fpr(p.m, p.k, cases[c].n);
		/* bloom's sizing: within rounding of k (calc prints it). */
		EXPECT_LE(p0, 1.02 * cases[c].p * (1 - cases[c].r / 1e6));
		EXPECT_NEAR(p0, kb_params_fpr(&p, (double)cases[c].n), 1e-12);
		EXPECT_NEAR(p0 / (1 - cases[c].r / 1e6),
			    sizing_scalable_limit(&p), 1e-12);
		sh.m = p.m;
		sh.k = p.k;
		sh.capacity = p.capacity;
		sh.growth = p.growth;
		sh.tighten = p.tighten;
		ASSERT_EQ(0, kb_filter_init(&eng, &sh, hk));
		for (i = 0; !sizing_scalable_slice(&p, i, &m, &k, &n); i++) {
			struct kb_slice_info si;
			struct kb_shape next;
			uint64_t bytes;

			if (i) {
				if (kb_scalable_next(&eng, &next, &bytes) ||
				    kb_scalable_grow(&eng))
					break;
			}
			kb_scalable_slice(&eng, i, &si);
			EXPECT_EQ(n, si.capacity);
			EXPECT_LE(llabs((long long)m - (long long)si.m), 64);
			EXPECT_EQ(k, si.k);
			same += m == si.m;
		}
		EXPECT_LE(4, i);
		EXPECT_LE(i - 1, same);
		for (n = 1; n <= 1000; n *= 10) {
			f = kb_params_fpr(&p, (double)n * cases[c].n);
			EXPECT_LT(prev, f);
			EXPECT_LT(f, sizing_scalable_limit(&p));
			prev = f;
		}
		printf("# n0=%llu P=%g s=%u r=%.2f: m0=%llu k0=%u, %u slices as the engine's (%u bit for bit), fpr 1x %.4g 10x %.4g 100x %.4g 1000x %.4g limit %.4g\n",
		       (unsigned long long)cases[c].n, cases[c].p, cases[c].s,
		       cases[c].r / 1e6, (unsigned long long)p.m, p.k, i, same,
		       kb_params_fpr(&p, (double)cases[c].n),
		       kb_params_fpr(&p, 10.0 * cases[c].n),
		       kb_params_fpr(&p, 100.0 * cases[c].n),
		       kb_params_fpr(&p, 1000.0 * cases[c].n),
		       sizing_scalable_limit(&p));
		fflush(stdout);
		kb_filter_free(&eng);
	}
}

TEST_HARNESS_MAIN
