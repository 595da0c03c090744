// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of the cardinality, union and intersection estimates of
 * 'bloomctl estimate' and 'show' (userspace/cardinality.c; Swamidass and
 * Baldi, J. Chem. Inf. Model. 47(3), 2007): exact inversion of synthetic fills per type, the union /
 * intersection algebra, and simulated filters of the bloom, partitioned
 * and blocked probe rules.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "../../kmod/uapi/kbloom.h"
#include "../../userspace/cardinality.h"

static int near(double want, double seen, double rel)
{
	if (fabs(seen - want) <= rel * fabs(want))
		return 1;
	fprintf(stderr, "# want %.10g, got %.10g (tolerance %g)\n", want, seen,
		rel);
	return 0;
}

#define EXPECT_NEAR(want, seen, rel) EXPECT_TRUE(near((want), (seen), (rel)))

/*
 * Within one key: a fill is an integer, and rounding the expected fill
 * moves the estimate by up to 1 / (2 k (1 - X/m)) keys.
 */
static int near_key(double want, double seen)
{
	if (fabs(seen - want) <= 1)
		return 1;
	fprintf(stderr, "# want %.10g, got %.10g (tolerance 1 key)\n", want,
		seen);
	return 0;
}

#define EXPECT_NEAR_KEY(want, seen) EXPECT_TRUE(near_key((want), (seen)))

static uint64_t rng_state;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rnd() * n) >> 64);
}

/* The expected fill after n keys, per type (cardinality.h), rounded. */
static uint64_t fill_bloom(uint64_t m, uint32_t k, double n)
{
	return (uint64_t)llround(m * -expm1(-(double)k * n / m));
}

static uint64_t fill_slices(uint64_t m, uint32_t k, double n)
{
	return (uint64_t)llround(m * -expm1(n * log1p(-(double)k / m)));
}

/* n* = -(m/k) ln(1 - X/m) gives n back from its expected fill. */
TEST(bloom_exact)
{
	const uint64_t m = 1ULL << 32;
	struct kb_shape p = { .type = KBLOOM_TYPE_BLOOM, .m = m, .k = 7 };
	double n;

	for (n = 10; n <= 1e9; n *= 10)
		EXPECT_NEAR_KEY(n, card_keys(&p, fill_bloom(m, 7, n)))
			TH_LOG("n = %g", n);
	/* n* = -(m/k) ln(1 - X/m), literally */
	EXPECT_NEAR(-(1000.0 / 3) * log(1 - 500.0 / 1000),
		    card_keys(&(struct kb_shape){ .type = KBLOOM_TYPE_BLOOM,
						   .m = 1000, .k = 3 }, 500),
		    1e-12);
	EXPECT_TRUE(card_keys(&p, 0) == 0.0);
	EXPECT_TRUE(isinf(card_keys(&p, m)));
	/* counting: non-zero counters, the same formula */
	p.type = KBLOOM_TYPE_COUNTING;
	EXPECT_NEAR_KEY(1e6, card_keys(&p, fill_bloom(m, 7, 1e6)));
}

/* Partitioned and blocked: ln(1 - X/m) / ln(1 - k/m), exact for E[X]. */
TEST(slices_exact)
{
	static const uint32_t types[] = {
		KBLOOM_TYPE_PARTITIONED, KBLOOM_TYPE_BLOCKED,
	};
	unsigned int t;
	double n;

	for (t = 0; t < 2; t++) {
		/* a multiple of 7 and of 512 */
		struct kb_shape p = { .type = types[t], .m = 7ULL << 29,
				       .k = 7 };

		for (n = 10; n <= 1e8; n *= 10)
			EXPECT_NEAR_KEY(n, card_keys(&p, fill_slices(p.m, 7, n)));
		EXPECT_TRUE(isinf(card_keys(&p, p.m)));
	}
	/* Small m: the bloom approximation would be off by ~k/2m per key */
	{
		struct kb_shape p = { .type = KBLOOM_TYPE_PARTITIONED,
				       .m = 70, .k = 7 };
		double x = 70 * (1 - pow(1 - 0.1, 20));	/* n = 20 */

		EXPECT_NEAR(20, card_keys(&p, (uint64_t)llround(x)), 0.03);
	}
}

TEST(other_types)
{
	struct kb_shape multi = { .type = KBLOOM_TYPE_MULTI, .m = 1 << 24,
				   .k = 5, .dims = 3 };
	struct kb_shape dleft = { .type = KBLOOM_TYPE_DLEFT, .m = 3200,
				   .k = 1, .subtables = 4, .bucket_cells = 8,
				   .fp_bits = 12 };
	struct kb_shape stable = { .type = KBLOOM_TYPE_STABLE, .m = 1000,
				    .k = 3, .cell_bits = 2, .decrement = 10 };

	/* multi: the fill of 3 dimensions, each with the same n values */
	EXPECT_NEAR_KEY(50000,
			card_keys(&multi, 3 * fill_bloom(1 << 24, 5, 50000)));
	EXPECT_EQ((uint64_t)3 << 24, card_cells(&multi));
	EXPECT_TRUE(isinf(card_keys(&multi, 3ULL << 24)));
	/* per-dimension rate */
	EXPECT_NEAR(pow(0.5, 5), card_fpr_now(&multi, 3ULL << 23), 1e-12);
	/* dleft: one cell per key; 24 occupied cells met, each 2^-12 */
	EXPECT_TRUE(card_keys(&dleft, 1234) == 1234.0);
	EXPECT_NEAR(24.0 / 4096, card_fpr_now(&dleft, 2400), 1e-12);
	EXPECT_NEAR(sizing_fpr_dleft(3200, 4, 8, 12, 2400),
		    card_fpr_now(&dleft, 2400), 0.01);
	/* stable: none, but a rate */
	EXPECT_TRUE(isnan(card_keys(&stable, 500)));
	EXPECT_NEAR(0.125, card_fpr_now(&stable, 500), 1e-12);
	EXPECT_TRUE(strstr(card_basis(KBLOOM_TYPE_STABLE), "none") != NULL);
	EXPECT_TRUE(strstr(card_basis(KBLOOM_TYPE_BLOCKED), "k/m") != NULL);
}

TEST(fpr_now)
{
	struct kb_shape p = { .type = KBLOOM_TYPE_BLOOM, .m = 1024, .k = 7 };

	EXPECT_TRUE(card_fpr_now(&p, 512) == 1.0 / 128);
	EXPECT_TRUE(card_fpr_now(&p, 0) == 0.0);
	EXPECT_TRUE(card_fpr_now(&p, 5000) == 1.0);	/* clamped */
	/* blocked: its model at n*, above (X/m)^k */
	p.type = KBLOOM_TYPE_BLOCKED;
	p.m = 512 * 64;
	p.k = 6;
	{
		uint64_t x = fill_slices(p.m, 6, 3000);

		EXPECT_NEAR(sizing_fpr_blocked(p.m, 6, card_keys(&p, x)),
			    card_fpr_now(&p, x), 1e-12);
		EXPECT_GT(card_fpr_now(&p, x), pow((double)x / p.m, 6));
		EXPECT_TRUE(card_fpr_now(&p, p.m) == 1.0);
	}
}

/*
 * Seed 004 eqs 3.15-3.18 on synthetic fills: A with a keys, B with b,
 * i of them shared; the union holds a + b - i.
 */
TEST(union_intersection_exact)
{
	static const struct {
		double a, b, i;
	} cases[] = {
		{ 3000, 2000, 1000 }, { 5000, 5000, 5000 }, { 100, 4000, 0 },
		{ 1e6, 1e6, 250000 },
	};
	const uint64_t m = 1ULL << 33;
	struct kb_shape p = { .type = KBLOOM_TYPE_BLOOM, .m = m, .k = 5 };
	struct card_sets s;
	unsigned int c;

	for (c = 0; c < 4; c++) {
		double a = cases[c].a, b = cases[c].b, i = cases[c].i;

		card_sets(&p, fill_bloom(m, 5, a), fill_bloom(m, 5, b),
			  fill_bloom(m, 5, a + b - i), &s);
		EXPECT_NEAR(a, s.a, 1e-5);
		EXPECT_NEAR(b, s.b, 1e-5);
		EXPECT_NEAR(a + b - i, s.uni, 1e-5);
		EXPECT_TRUE(fabs(s.inter - i) <= 1e-5 * (a + b))
			TH_LOG("case %u: intersection %g, want %g", c, s.inter,
			       i);
		EXPECT_TRUE(fabs(s.jaccard - i / (a + b - i)) < 1e-5);
	}
	/* partitioned, its own formula */
	p.type = KBLOOM_TYPE_PARTITIONED;
	p.m = 5ULL << 30;
	card_sets(&p, fill_slices(p.m, 5, 3000), fill_slices(p.m, 5, 2000),
		  fill_slices(p.m, 5, 4000), &s);
	EXPECT_NEAR(1000, s.inter, 1e-3);
}

TEST(union_intersection_edges)
{
	struct kb_shape p = { .type = KBLOOM_TYPE_BLOOM, .m = 1000, .k = 3 };
	struct card_sets s;

	/* noise: the union estimate above n(A) + n(B) */
	card_sets(&p, 100, 100, 250, &s);
	EXPECT_LT(s.inter_raw, 0);
	EXPECT_TRUE(s.inter == 0.0);
	/* above min(n(A), n(B)) */
	card_sets(&p, 100, 300, 290, &s);
	EXPECT_GT(s.inter_raw, s.a);
	EXPECT_TRUE(s.inter == s.a);
	/* saturated union: no intersection */
	card_sets(&p, 500, 500, 1000, &s);
	EXPECT_TRUE(isinf(s.uni));
	EXPECT_TRUE(isnan(s.inter));
	EXPECT_TRUE(isnan(s.jaccard));
	/* two empty filters */
	card_sets(&p, 0, 0, 0, &s);
	EXPECT_TRUE(s.inter == 0.0);
	EXPECT_TRUE(s.jaccard == 0.0);
	/* stable has none */
	p.type = KBLOOM_TYPE_STABLE;
	card_sets(&p, 10, 10, 15, &s);
	EXPECT_TRUE(isnan(s.a));
	EXPECT_TRUE(isnan(s.inter));
}

/*
 * Simulated filters of each probe rule: A has 3000 keys, B 2000, 1000 in
 * both; the estimates land within a few percent.
 */
enum { SIM_A = 3000, SIM_B = 2000, SIM_SHARED = 1000, SIM_M = 1 << 16 };

static uint8_t sim_a[SIM_M], sim_b[SIM_M];

/* Sets key @key's cells (its hash drawn from the key number) in @bits. */
static void sim_add(uint32_t type, uint32_t k, uint64_t key, uint8_t *bits)
{
	uint64_t saved = rng_state, h;
	uint32_t i, x, y, base;

	rng_state = key * 0x2545f4914f6cdd1dULL;	/* the key's hash */
	switch (type) {
	case KBLOOM_TYPE_PARTITIONED:
		for (i = 0; i < k; i++)
			bits[i * (SIM_M / k) + below(SIM_M / k)] = 1;
		break;
	case KBLOOM_TYPE_BLOCKED:
		base = below(SIM_M / 512) * 512;
		h = rnd();
		x = h & 511;
		y = (h >> 9) | 1;
		for (i = 0; i < k; i++)
			bits[base + ((x + i * y) & 511)] = 1;
		break;
	default:
		for (i = 0; i < k; i++)
			bits[below(SIM_M)] = 1;
	}
	rng_state = saved;
}

static uint64_t count(const uint8_t *a, const uint8_t *b)
{
	uint64_t i, n = 0;

	for (i = 0; i < SIM_M; i++)
		n += a[i] | (b ? b[i] : 0);
	return n;
}

TEST(simulated_filters)
{
	static const struct {
		uint32_t type, k, m;
	} types[] = {
		{ KBLOOM_TYPE_BLOOM, 5, SIM_M },
		/* 65536 is no multiple of 5: use 4 slices */
		{ KBLOOM_TYPE_PARTITIONED, 4, SIM_M },
		{ KBLOOM_TYPE_BLOCKED, 5, SIM_M },
	};
	unsigned int t;
	uint64_t key;

	for (t = 0; t < 3; t++) {
		struct kb_shape p = { .type = types[t].type, .m = types[t].m,
				       .k = types[t].k };
		struct card_sets s;

		memset(sim_a, 0, sizeof(sim_a));
		memset(sim_b, 0, sizeof(sim_b));
		/* keys 0..2999 in A, 2000..3999 in B */
		for (key = 0; key < SIM_A; key++)
			sim_add(p.type, p.k, key, sim_a);
		for (key = SIM_A - SIM_SHARED; key < SIM_A + SIM_B - SIM_SHARED;
		     key++)
			sim_add(p.type, p.k, key, sim_b);
		card_sets(&p, count(sim_a, NULL), count(sim_b, NULL),
			  count(sim_a, sim_b), &s);
		EXPECT_NEAR(SIM_A, s.a, 0.03) TH_LOG("type %u", p.type);
		EXPECT_NEAR(SIM_B, s.b, 0.03) TH_LOG("type %u", p.type);
		EXPECT_NEAR(SIM_A + SIM_B - SIM_SHARED, s.uni, 0.03)
			TH_LOG("type %u", p.type);
		EXPECT_NEAR(SIM_SHARED, s.inter, 0.15)
			TH_LOG("type %u", p.type);
	}
}

TEST_HARNESS_MAIN
