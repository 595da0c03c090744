// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of bloomctl's sizing math (userspace/sizing.c): known sizes,
 * the classical false positive rate table (m/n = 2..9, k = 1..7; Fan,
 * Cao, Almeida and Broder, "Summary Cache", IEEE/ACM ToN 2000), the fill-based
 * estimates and the refusals.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "kselftest_harness.h"

#include "../../kmod/uapi/kbloom.h"
#include "../../userspace/sizing.h"

/* |seen - want| <= rel * |want|, saying what differed when not. */
static int near(double want, double seen, double rel)
{
	if (fabs(seen - want) <= rel * fabs(want))
		return 1;
	fprintf(stderr, "# want %.10g, got %.10g (tolerance %g)\n", want, seen,
		rel);
	return 0;
}

#define EXPECT_NEAR(want, seen, rel) EXPECT_TRUE(near((want), (seen), (rel)))

TEST(million_at_one_percent)
{
	uint64_t m = 0;
	uint32_t k = 0;

	/* -1e6 ln 0.01 / (ln 2)^2 = 9585058.4 */
	EXPECT_EQ((uint64_t)9585059,
		  (uint64_t)ceil(sizing_bits_exact(1000000, 0.01)));
	ASSERT_EQ(0, sizing_from_capacity(1000000, 0.01, &m, &k));
	EXPECT_EQ((uint64_t)9585088, m);		/* next multiple of 64 */
	EXPECT_EQ((uint64_t)0, m % 64);
	EXPECT_EQ(7U, k);
	/* The shape delivers the rate it was sized for. */
	EXPECT_NEAR(0.01, sizing_fpr(m, k, 1000000), 0.01);
}

TEST(small_filters)
{
	uint64_t m = 0;
	uint32_t k = 0;

	/* 1500 keys at 1%: 14377.6 bits -> 14378 -> 14400, k = 6.65 -> 7 */
	EXPECT_EQ((uint64_t)14378,
		  (uint64_t)ceil(sizing_bits_exact(1500, 0.01)));
	ASSERT_EQ(0, sizing_from_capacity(1500, 0.01, &m, &k));
	EXPECT_EQ((uint64_t)14400, m);
	EXPECT_EQ(7U, k);

	/* 1000 keys at 0.1%: 14377.6 -> 14400, k = 9.98 -> 10 */
	ASSERT_EQ(0, sizing_from_capacity(1000, 0.001, &m, &k));
	EXPECT_EQ((uint64_t)14400, m);
	EXPECT_EQ(10U, k);

	/* 1 key at 50%: 1.44 bits -> KBLOOM_BITS_MIN, k = 44.4 -> capped */
	ASSERT_EQ(0, sizing_from_capacity(1, 0.5, &m, &k));
	EXPECT_EQ(KBLOOM_BITS_MIN, m);
	EXPECT_EQ((uint32_t)KBLOOM_HASHES_MAX, k);

	/* A very loose filter still gets one hash: k = round(0.35) -> 1 */
	ASSERT_EQ(0, sizing_from_capacity(1000000, 0.99, &m, &k));
	EXPECT_EQ(1U, k);
}

TEST(hashes_capped)
{
	uint64_t m = 0;
	uint32_t k = 0;

	/* p = 1e-12 wants k = 40: capped at KBLOOM_HASHES_MAX */
	ASSERT_EQ(0, sizing_from_capacity(1000, 1e-12, &m, &k));
	EXPECT_EQ((uint32_t)KBLOOM_HASHES_MAX, k);
	EXPECT_EQ(1U, sizing_optimal_hashes(64, 1000000));
	EXPECT_EQ((uint32_t)KBLOOM_HASHES_MAX,
		  sizing_optimal_hashes(1 << 20, 1));
	EXPECT_EQ(7U, sizing_optimal_hashes(10000, 1000));	/* 6.93 */
}

TEST(too_large)
{
	uint64_t m = 0;
	uint32_t k = 0;

	/* 1e9 keys at 1e-6 need 28755175168 bits, beyond KBLOOM_BITS_MAX */
	EXPECT_EQ(-ERANGE, sizing_from_capacity(1000000000, 1e-6, &m, &k));
	EXPECT_EQ(-ERANGE, sizing_from_capacity(UINT64_MAX, 0.5, &m, &k));
	EXPECT_EQ(-ERANGE, sizing_from_capacity(10000000, 1e-300, &m, &k));
	/* The largest capacity that fits at 50%: m = BITS_MAX exactly */
	ASSERT_EQ(0, sizing_from_capacity(KBLOOM_BITS_MAX / 2, 0.5, &m, &k));
	EXPECT_LE(m, (uint64_t)KBLOOM_BITS_MAX);
}

TEST(bad_input)
{
	uint64_t m = 0;
	uint32_t k = 0;

	EXPECT_EQ(-EINVAL, sizing_from_capacity(0, 0.01, &m, &k));
	EXPECT_EQ(-EINVAL, sizing_from_capacity(1000, 0, &m, &k));
	EXPECT_EQ(-EINVAL, sizing_from_capacity(1000, 1, &m, &k));
	EXPECT_EQ(-EINVAL, sizing_from_capacity(1000, -0.5, &m, &k));
	EXPECT_EQ(-EINVAL, sizing_from_capacity(1000, NAN, &m, &k));
	EXPECT_EQ(-EINVAL, sizing_from_capacity(1000, INFINITY, &m, &k));
	EXPECT_TRUE(isnan(sizing_bits_exact(0, 0.1)));
}

/*
 * Seed 004, Table 3.1: false positive rate (1 - e^{-k/(m/n)})^k for
 * m/n = 2..9 and k = 1..7, printed to 3 significant digits (some to 2).
 */
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

TEST(seed_table_3_1)
{
	const uint64_t n = 1000;
	unsigned int row, k, checked = 0;

	for (row = 0; row < sizeof(table_3_1) / sizeof(table_3_1[0]); row++) {
		for (k = 1; k <= 7; k++) {
			double want = table_3_1[row].fpr[k - 1];

			if (want == 0)
				continue;
			EXPECT_NEAR(want, sizing_fpr(table_3_1[row].mn * n, k, n),
				    0.005)
				TH_LOG("m/n = %d, k = %u", table_3_1[row].mn, k);
			checked++;
		}
	}
	EXPECT_EQ(40U, checked);
	/* The example of the brief: m/n = 8, k = 5 */
	EXPECT_NEAR(0.0217, sizing_fpr(8000, 5, 1000), 0.005);
}

TEST(fpr_edges)
{
	EXPECT_TRUE(sizing_fpr(1024, 7, 0) == 0.0);
	/* Tiny fills: 1 - e^{-x} = x - x^2/2..., no cancellation to 0 */
	EXPECT_NEAR(1.0 / (1ULL << 33), sizing_fpr(1ULL << 33, 1, 1), 1e-9);
	EXPECT_NEAR(pow(3.0 / (1ULL << 33), 3),
		    sizing_fpr(1ULL << 33, 3, 1), 1e-6);
	EXPECT_NEAR(1.0, sizing_fpr(64, 1, 100000), 1e-12);
}

TEST(fpr_at_fill)
{
	EXPECT_TRUE(sizing_fpr_fill(1024, 3, 0) == 0.0);
	EXPECT_TRUE(sizing_fpr_fill(1024, 3, 1024) == 1.0);
	EXPECT_TRUE(sizing_fpr_fill(1024, 7, 512) == 1.0 / 128);
	EXPECT_TRUE(sizing_fpr_fill(1024, 3, 5000) == 1.0);	/* clamped */
}

TEST(cardinality_estimate)
{
	const uint64_t m = 9585088;
	const uint32_t k = 7;
	uint64_t n;

	EXPECT_TRUE(sizing_estimate(m, k, 0) == 0.0);
	EXPECT_TRUE(isinf(sizing_estimate(m, k, m)));
	EXPECT_TRUE(isinf(sizing_estimate(m, k, m + 1)));
	/* One bit set: one key */
	EXPECT_NEAR(1.0 / k, sizing_estimate(m, k, 1), 1e-6);
	/* The expected fill after n keys, m (1 - e^{-kn/m}), gives n back. */
	for (n = 10; n <= 10000000; n *= 10) {
		double fill = m * -expm1(-(double)k * n / m);

		EXPECT_NEAR((double)n,
			    sizing_estimate(m, k, (uint64_t)llround(fill)),
			    n < 100 ? 0.05 : 0.001)
			TH_LOG("n = %llu", (unsigned long long)n);
	}
	/* Half the bits set at the optimal k: about the capacity */
	EXPECT_NEAR(m * M_LN2 / k, sizing_estimate(m, k, m / 2), 1e-6);
}

/* The per-type entry point sizes bloom filters exactly as before. */
TEST(per_type_bloom)
{
	static const struct {
		uint64_t n;
		double p;
	} cases[] = {
		{ 1000000, 0.01 }, { 1500, 0.01 }, { 1000, 0.001 }, { 1, 0.5 },
		{ 10000, 0.01 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct kb_shape p = { .type = KBLOOM_TYPE_BLOOM };
		uint64_t m = 0;
		uint32_t k = 0;

		ASSERT_EQ(0, sizing_from_capacity(cases[i].n, cases[i].p, &m,
						  &k));
		ASSERT_EQ(0, kb_params_size(&p, cases[i].n, cases[i].p));
		EXPECT_EQ(m, p.m);
		EXPECT_EQ(k, p.k);
		EXPECT_TRUE(kb_params_fpr(&p, (double)cases[i].n) ==
			    sizing_fpr(m, k, cases[i].n));
		EXPECT_EQ((m + 63) / 64 * 8, kb_params_bytes(&p));
	}
	/* the VM suite's filter: capacity 10000 at 1% */
	{
		struct kb_shape p = { .type = KBLOOM_TYPE_BLOOM };

		ASSERT_EQ(0, kb_params_size(&p, 10000, 0.01));
		EXPECT_EQ((uint64_t)95872, p.m);
		EXPECT_EQ(7U, p.k);
	}
}

TEST_HARNESS_MAIN
