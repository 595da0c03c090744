// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The engine's hashing (kmod/engine/hash.h): h1/h2 derivation, the
 * multiply-shift range reduction and the enhanced double hashing probe
 * walk, checked against the definition in uapi/kbloom.h evaluated directly
 * in 128-bit arithmetic, and for range and uniformity.
 */
#include <math.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "../../kmod/uapi/kbloom.h"

static const u8 test_hkey[16] = {
	0x6b, 0x62, 0x6c, 0x6f, 0x6f, 0x6d, 0x2d, 0x68,
	0x61, 0x73, 0x68, 0x2d, 0x74, 0x65, 0x73, 0x74,
};

/* Filter sizes worth probing: the limits, powers of two +-1, primes. */
static const u64 sizes[] = {
	KBLOOM_BITS_MIN, KBLOOM_BITS_MIN + 1, 100, 127, 128, 129, 1000,
	1009, 4096, 65521, 65536, 1000003, (1ULL << 20) - 1, 1ULL << 20,
	(1ULL << 31) + 11, 4294967291ULL, (1ULL << 32) + 15,
	KBLOOM_BITS_MAX - 1, KBLOOM_BITS_MAX,
};
#define NSIZES ARRAY_SIZE(sizes)

/*
 * Upper 99.9% point of chi-square with @df degrees of freedom
 * (Wilson-Hilferty; z = 3.09 one-sided).
 */
static double chi2_crit(double df)
{
	double a = 2.0 / (9.0 * df);

	return df * pow(1.0 - a + 3.09 * sqrt(a), 3);
}

static double chi2(const u64 *counts, size_t cells, double expect)
{
	double x = 0;
	size_t i;

	for (i = 0; i < cells; i++)
		x += (counts[i] - expect) * (counts[i] - expect) / expect;
	return x;
}

/* splitmix64's published first outputs for seed 0 pin the mixer down. */
TEST(mix64_known_values)
{
	struct kb_rng r;
	int i;

	EXPECT_EQ(0xe220a8397b1dcdafULL, kbloom_mix64(0));
	EXPECT_EQ(0x6e789e6aa1b965f4ULL, kbloom_mix64(0x9e3779b97f4a7c15ULL));
	kb_rng_seed(&r, 1);
	for (i = 0; i < 100000; i++) {
		u64 z = kb_rng_next(&r);

		ASSERT_EQ(kb_ref_mix64(z), kbloom_mix64(z));
	}
}

TEST(hash_key_is_siphash_then_mix)
{
	siphash_key_t hk;
	struct kb_hash h;
	struct kb_rng r;
	u8 key[64];
	int i;

	siphash_key_from_bytes(&hk, test_hkey);
	kb_rng_seed(&r, 2);
	for (i = 0; i < 10000; i++) {
		size_t len = kb_rng_below(&r, sizeof(key) + 1);

		kb_rng_bytes(&r, key, len);
		kb_hash_key(&hk, key, len, &h);
		ASSERT_EQ(siphash(key, len, &hk), h.h1);
		ASSERT_EQ(kbloom_mix64(h.h1), h.h2);
	}
}

TEST(reduce_range_and_edges)
{
	struct kb_rng r;
	size_t s;
	int i;

	kb_rng_seed(&r, 3);
	for (s = 0; s < NSIZES; s++) {
		u64 m = sizes[s];

		EXPECT_EQ(0, kb_reduce(0, m));
		EXPECT_EQ(m - 1, kb_reduce(UINT64_MAX, m));
		for (i = 0; i < 10000; i++)
			ASSERT_LT(kb_reduce(kb_rng_next(&r), m), m);
	}
	EXPECT_EQ(0, kb_reduce(UINT64_MAX, 1));
}

/*
 * kb_reduce(h, r) = floor(h * r / 2^64) is monotone in h, so bucket b is
 * the interval [ceil(b 2^64 / r), ceil((b+1) 2^64 / r)): check the interval
 * ends and that all intervals have floor(2^64 / r) or one more members.
 */
TEST(reduce_exact_uniformity)
{
	const unsigned __int128 two64 = (unsigned __int128)1 << 64;
	struct kb_rng r;
	size_t s;
	int i;

	kb_rng_seed(&r, 4);
	for (s = 0; s < NSIZES + 20; s++) {
		u64 range = s < NSIZES ? sizes[s] :
			    1 + kb_rng_below(&r, KBLOOM_BITS_MAX);
		u64 small = (u64)(two64 / range);

		for (i = 0; i < 2000; i++) {
			u64 b = i < 2 ? (i ? range - 1 : 0) :
				kb_rng_below(&r, range);
			unsigned __int128 lo =
				(b * two64 + range - 1) / range;
			unsigned __int128 hi =
				((b + 1) * two64 + range - 1) / range;
			u64 size = (u64)(hi - lo);

			ASSERT_EQ(b, kb_reduce((u64)lo, range));
			ASSERT_EQ(b, kb_reduce((u64)(hi - 1), range));
			if (b > 0)
				ASSERT_EQ(b - 1, kb_reduce((u64)lo - 1, range));
			if (size != small)
				ASSERT_EQ(small + 1, size);
		}
	}
	/* Monotone. */
	for (i = 0; i < 100000; i++) {
		u64 a = kb_rng_next(&r), b = kb_rng_next(&r);
		u64 m = 1 + kb_rng_below(&r, KBLOOM_BITS_MAX);

		if (a > b) {
			u64 t = a;

			a = b;
			b = t;
		}
		ASSERT_LE(kb_reduce(a, m), kb_reduce(b, m));
	}
}

/* SipHash of counter keys, reduced: chi-square over 1000 and 1024 cells. */
TEST(reduce_siphash_chi_square)
{
	static const u64 ranges[] = { 1000, 1024, 1021 };
	const u64 n = 1000000;
	siphash_key_t hk;
	size_t s;

	siphash_key_from_bytes(&hk, test_hkey);
	for (s = 0; s < ARRAY_SIZE(ranges); s++) {
		u64 *counts = calloc(ranges[s], sizeof(*counts));
		double x, crit;
		u8 key[8];
		u64 i;

		ASSERT_NE(NULL, counts);
		for (i = 0; i < n; i++) {
			kb_put_le64(key, i);
			counts[kb_reduce(siphash(key, sizeof(key), &hk),
					 ranges[s])]++;
		}
		x = chi2(counts, ranges[s], (double)n / ranges[s]);
		crit = chi2_crit(ranges[s] - 1);
		kb_diag("reduce into %llu cells: chi2 = %.1f (99.9%% point %.1f)",
			(unsigned long long)ranges[s], x, crit);
		EXPECT_LT(x, crit);
		free(counts);
	}
	KB_ASSERT_NO_LEAKS();
}

static void walk(const struct kb_hash *h, u64 m, u32 k, u64 *pos)
{
	struct kb_probe p;
	u32 i;

	kb_probe_init(&p, h, m);
	for (i = 0; i < k; i++)
		pos[i] = kb_probe_next(&p);
}

TEST(probe_matches_reference_formula)
{
	u64 pos[KBLOOM_HASHES_MAX];
	struct kb_hash h;
	struct kb_rng r;
	size_t s;
	int n;
	u32 i;

	kb_rng_seed(&r, 5);
	for (s = 0; s < NSIZES + 200; s++) {
		u64 m = s < NSIZES ? sizes[s] :
			KBLOOM_BITS_MIN +
			kb_rng_below(&r, KBLOOM_BITS_MAX - KBLOOM_BITS_MIN + 1);

		for (n = 0; n < 2000; n++) {
			switch (n) {
			case 0:	/* x = y = m - 1: largest sums */
				h.h1 = h.h2 = UINT64_MAX;
				break;
			case 1:	/* y = 0 */
				h.h1 = UINT64_MAX;
				h.h2 = 0;
				break;
			case 2:
				h.h1 = h.h2 = 0;
				break;
			default:
				h.h1 = kb_rng_next(&r);
				h.h2 = kbloom_mix64(h.h1);
				if (n & 1)	/* any h2, not only mix(h1) */
					h.h2 = kb_rng_next(&r);
			}
			walk(&h, m, KBLOOM_HASHES_MAX, pos);
			for (i = 0; i < KBLOOM_HASHES_MAX; i++) {
				ASSERT_LT(pos[i], m);
				ASSERT_EQ(kb_ref_probe(h.h1, h.h2, m, i), pos[i]) {
					TH_LOG("m=%llu h1=%016llx h2=%016llx i=%u",
					       (unsigned long long)m,
					       (unsigned long long)h.h1,
					       (unsigned long long)h.h2, i);
				}
			}
		}
	}
}

/*
 * The walk without y's wrap (kb_probe_next_fast) is taken exactly when
 * y0 + k(k-1)/2 < m, and then gives the reference formula's positions for
 * every probe of the key: at the smallest and largest m, for every k, with
 * y0 drawn over the whole range and pinned at the boundary.
 */
TEST(probe_fast_walk_matches_reference)
{
	u64 fits = 0, walks = 0, x0, y0;
	struct kb_probe p;
	struct kb_hash h;
	struct kb_rng r;
	size_t s;
	u32 k, i;
	int n;

	kb_rng_seed(&r, 9);
	for (s = 0; s < NSIZES; s++) {
		u64 m = sizes[s];

		for (k = 1; k <= KBLOOM_HASHES_MAX; k++) {
			u64 t = (u64)k * (k - 1) / 2;

			for (n = 0; n < 300; n++) {
				h.h1 = kb_rng_next(&r);
				h.h2 = kb_rng_next(&r);
				kb_probe_init(&p, &h, m);
				/* n = 0, 1: y0 just inside and at the bound */
				if (n < 2 && m > t + 1)
					p.y = m - t - 1 + n;
				ASSERT_EQ(p.y + t < m, kb_probe_fits(&p, k));
				if (!kb_probe_fits(&p, k)) {
					walks++;
					continue;
				}
				fits++;
				x0 = p.x;
				y0 = p.y;
				for (i = 0; i < k; i++) {
					unsigned __int128 ii = i;
					u64 ref = (u64)((x0 + ii * (unsigned __int128)y0 +
							 (ii * ii * ii - ii) / 6) % m);

					ASSERT_EQ(ref, kb_probe_next_fast(&p)) {
						TH_LOG("m=%llu k=%u y0=%llu i=%u",
						       (unsigned long long)m, k,
						       (unsigned long long)y0, i);
					}
				}
			}
		}
	}
	kb_diag("%llu walks took the fast path, %llu the general one",
		(unsigned long long)fits, (unsigned long long)walks);
	EXPECT_GT(fits, 0);
	EXPECT_GT(walks, 0);
}

/* The walk does not depend on k: probe i is the same for every k > i. */
TEST(probe_prefix_stable)
{
	u64 all[KBLOOM_HASHES_MAX], some[KBLOOM_HASHES_MAX];
	struct kb_hash h = { 0x0123456789abcdefULL, 0 };
	u32 k, i;

	h.h2 = kbloom_mix64(h.h1);
	walk(&h, 1000003, KBLOOM_HASHES_MAX, all);
	for (k = 1; k <= KBLOOM_HASHES_MAX; k++) {
		walk(&h, 1000003, k, some);
		for (i = 0; i < k; i++)
			ASSERT_EQ(all[i], some[i]);
	}
}

/*
 * Enhanced double hashing's point: even when y = 0 (h2 < 2^64 / m) the
 * probes do not collapse onto one cell; they are x, x, x+1, x+4, x+10, ...
 */
TEST(probe_y_zero_still_spreads)
{
	u64 pos[KBLOOM_HASHES_MAX];
	struct kb_hash h = { 12345, 0 };
	const u64 m = 1ULL << 20;
	u32 i, j, distinct = 0;

	walk(&h, m, KBLOOM_HASHES_MAX, pos);
	for (i = 0; i < KBLOOM_HASHES_MAX; i++) {
		for (j = 0; j < i; j++)
			if (pos[j] == pos[i])
				break;
		distinct += j == i;
	}
	EXPECT_EQ(KBLOOM_HASHES_MAX - 1, distinct);
}

static u32 count_distinct(u64 *pos, u32 k)
{
	u32 i, j, d = 0;

	for (i = 0; i < k; i++) {
		for (j = 0; j < i; j++)
			if (pos[j] == pos[i])
				break;
		d += j == i;
	}
	return d;
}

/*
 * The k probes of a key are distinct about as often as k independent
 * uniform cells would be: the mean number of cells lost to repeats is
 * close to k - m (1 - (1-1/m)^k). Probes i and j collide when
 * (i-j) y = -((i^3-i) - (j^3-j))/6 mod m, which has gcd(i-j, m) solutions
 * y or none: for prime m the loss is the independent one, for small m with
 * many small factors (64, 1000) it is up to ~2.5 times higher, for the
 * sizes filters have (m >= 2^16) the difference is in the noise.
 */
TEST(probe_distinct_like_random)
{
	static const struct {
		u64 m;
		u32 k;
		double slack;	/* allowed loss / independent loss */
	} shapes[] = {
		{ 64, 7, 3 }, { 64, 32, 3 }, { 1000, 7, 3 }, { 1000, 32, 3 },
		{ 1009, 7, 1.2 }, { 1009, 32, 1.2 }, { 1 << 16, 10, 1.5 },
		{ 1 << 20, 32, 1.5 }, { 1000003, 32, 1.5 },
	};
	const int keys = 200000;
	u64 pos[KBLOOM_HASHES_MAX];
	siphash_key_t hk;
	struct kb_hash h;
	size_t s;
	u8 key[8];
	int n;

	siphash_key_from_bytes(&hk, test_hkey);
	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		double m = shapes[s].m, k = shapes[s].k, sum = 0, ideal, loss;

		for (n = 0; n < keys; n++) {
			kb_put_le64(key, n);
			kb_hash_key(&hk, key, sizeof(key), &h);
			walk(&h, shapes[s].m, shapes[s].k, pos);
			sum += count_distinct(pos, shapes[s].k);
		}
		ideal = k - m * -expm1(k * log1p(-1 / m));
		loss = k - sum / keys;
		kb_diag("m=%.0f k=%.0f: cells lost to repeated probes %.5f per key, independent cells %.5f (x%.2f)",
			m, k, loss, ideal, loss / ideal);
		/* Sampling slack: a few standard errors of the mean loss. */
		EXPECT_LE(loss, shapes[s].slack * ideal +
				4 * sqrt(ideal / keys) + 1e-4) {
			TH_LOG("m=%.0f k=%.0f: loss %.5f", m, k, loss);
		}
	}
}

/*
 * Each probe index lands uniformly, and the first two probes (x and
 * x + y) are independent: chi-square over m and over m x m cells.
 */
TEST(probe_uniform_and_pairwise_independent)
{
	static const u64 ms[] = { 64, 67, 1009 };
	const u32 k = 8;
	siphash_key_t hk;
	size_t s;

	siphash_key_from_bytes(&hk, test_hkey);
	for (s = 0; s < ARRAY_SIZE(ms); s++) {
		const u64 m = ms[s];
		const u64 keys = m < 100 ? 1000000 : 2000000;
		u64 *single = calloc(k * m, sizeof(u64));
		u64 *pair = m < 100 ? calloc(m * m, sizeof(u64)) : NULL;
		u64 pos[8];
		struct kb_hash h;
		u8 key[8];
		double x, crit;
		u64 n;
		u32 i;

		ASSERT_NE(NULL, single);
		for (n = 0; n < keys; n++) {
			kb_put_le64(key, n);
			kb_hash_key(&hk, key, sizeof(key), &h);
			walk(&h, m, k, pos);
			for (i = 0; i < k; i++)
				single[i * m + pos[i]]++;
			if (pair)
				pair[pos[0] * m + pos[1]]++;
		}
		crit = chi2_crit(m - 1);
		for (i = 0; i < k; i++) {
			x = chi2(single + i * m, m, (double)keys / m);
			EXPECT_LT(x, crit) {
				TH_LOG("m=%llu probe %u: chi2 %.1f >= %.1f",
				       (unsigned long long)m, i, x, crit);
			}
		}
		if (pair) {
			x = chi2(pair, m * m, (double)keys / (m * m));
			crit = chi2_crit(m * m - 1);
			kb_diag("m=%llu (probe 0, probe 1) pairs: chi2 = %.1f (99.9%% point %.1f)",
				(unsigned long long)m, x, crit);
			EXPECT_LT(x, crit);
		}
		free(single);
		free(pair);
	}
	KB_ASSERT_NO_LEAKS();
}

TEST_HARNESS_MAIN
