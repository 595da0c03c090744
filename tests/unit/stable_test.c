// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The stable Bloom filter engine (kmod/engine/stable.c) on the host:
 * shape checks and memory, the key just added is always present, the
 * decrement of P cells (wrapping at the end, never below zero), the
 * fraction of zero cells and the false positive rate at the stable point
 * of Deng & Rafiei, the fading of old keys against the per-cell Markov
 * chain. Concurrent adds that lose no set are in
 * concurrency_contract_test.c.
 *
 * Theory. One add decrements each cell with probability p = P/m (P
 * consecutive cells from a uniform start), then sets it to Max with
 * probability q = k/m (its probes, distinct but for rare repeats). So
 * every cell follows the same Markov chain: to Max with probability q,
 * else down one (not below 0) with probability p. Its stationary
 * probability of 0 is (1 / (1 + q / ((1 - q) p)))^Max
 * = (1 / (1 + 1 / (P (1/k - 1/m))))^Max, the paper's stable point, and a
 * key never added tests present with probability (1 - that)^k. A key
 * added a adds ago has each of its cells at 0 with the probability z_a
 * of the chain started at Max, so it is a false negative with
 * probability 1 - (1 - z_a)^k, rising with a towards 1 - (1 - P0)^k.
 */
#include <errno.h>
#include <math.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "../../kmod/uapi/kbloom.h"

static const u8 hkey_a[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};

#define Z999	3.29

static struct kb_shape sshape(u64 m, u32 k, u32 bits, u32 p)
{
	struct kb_shape s = {
		.type = KBLOOM_TYPE_STABLE, .m = m, .k = k, .cell_bits = bits,
		.decrement = p,
	};

	return s;
}

static int sinit(struct kb_filter *f, u64 m, u32 k, u32 bits, u32 p)
{
	struct kb_shape s = sshape(m, k, bits, p);

	return kb_filter_init(f, &s, hkey_a);
}

static void key_of(u8 key[9], u8 set, u64 i)
{
	key[0] = set;
	kb_put_le64(key + 1, i);
}

static struct kb_fill fill_of(const struct kb_filter *f)
{
	struct kb_fill fl;

	kb_filter_fill(f, &fl);
	return fl;
}

/* Cell i, by the counting filter's packing (32 / bits to a word). */
static u32 cell(const struct kb_filter *f, u64 i)
{
	u32 b = f->s.cell_bits, per = 32 / b;
	const u32 *w = (const u32 *)f->mem;

	return (w[i / per] >> (i % per * b)) & ((1U << b) - 1);
}

static void set_cell(struct kb_filter *f, u64 i, u32 v)
{
	u32 b = f->s.cell_bits, per = 32 / b, sh = i % per * b;
	u32 *w = (u32 *)f->mem + i / per;

	*w = (*w & ~(((1U << b) - 1) << sh)) | v << sh;
}

static double stable_p0(double m, double k, double p, double max)
{
	return pow(1 / (1 + 1 / (p * (1 / k - 1 / m))), max);
}

TEST(shape_refusals)
{
	static const struct {
		u64 m;
		u32 k, bits, p, update, d, c, fp, dims;
		enum kb_shape_error err;
	} cases[] = {
		{ 1024, 3, 0, 10, 0, 0, 0, 0, 0, KB_SHAPE_BAD_COUNTER_BITS },
		{ 1024, 3, 3, 10, 0, 0, 0, 0, 0, KB_SHAPE_BAD_COUNTER_BITS },
		{ 1024, 3, 16, 10, 0, 0, 0, 0, 0, KB_SHAPE_BAD_COUNTER_BITS },
		{ 1024, 3, 32, 10, 0, 0, 0, 0, 0, KB_SHAPE_BAD_COUNTER_BITS },
		{ 1024, 3, 2, 0, 0, 0, 0, 0, 0, KB_SHAPE_BAD_DECREMENT },
		{ 1024, 3, 2, 1025, 0, 0, 0, 0, 0, KB_SHAPE_BAD_DECREMENT },
		{ 1024, 3, 2, UINT32_MAX, 0, 0, 0, 0, 0,
		  KB_SHAPE_BAD_DECREMENT },
		{ 1024, 3, 2, 10, 1, 0, 0, 0, 0, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 3, 2, 10, 0, 2, 0, 0, 0, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 3, 2, 10, 0, 0, 4, 0, 0, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 3, 2, 10, 0, 0, 0, 8, 0, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 3, 2, 10, 0, 0, 0, 0, 1, KB_SHAPE_EXTRA_PARAM },
		{ 63, 3, 2, 10, 0, 0, 0, 0, 0, KB_SHAPE_BAD_BITS },
		{ 1024, 0, 2, 10, 0, 0, 0, 0, 0, KB_SHAPE_BAD_HASHES },
		/* 2^30 8-bit cells are 1 GiB, the limit. */
		{ (1ULL << 30) + 4, 3, 8, 10, 0, 0, 0, 0, 0, KB_SHAPE_TOO_BIG },
	};
	static const struct {
		u64 m;
		u32 k, bits, p;
	} good[] = {
		{ 64, 1, 1, 1 }, { 64, 32, 8, 64 }, { 1000, 3, 2, 1000 },
		{ 1ULL << 30, 3, 8, 10 }, { KBLOOM_BITS_MAX, 3, 1, 100 },
	};
	struct kb_filter f;
	u64 out;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kb_shape s = sshape(cases[i].m, cases[i].k,
					   cases[i].bits, cases[i].p);

		s.update = cases[i].update;
		s.subtables = cases[i].d;
		s.bucket_cells = cases[i].c;
		s.fp_bits = cases[i].fp;
		s.dims = cases[i].dims;
		EXPECT_EQ(cases[i].err, kb_filter_check_shape(&s)) {
			TH_LOG("case %zu", i);
		}
		EXPECT_EQ(-EINVAL, kb_filter_init(&f, &s, hkey_a)) {
			TH_LOG("case %zu", i);
		}
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		struct kb_shape s = sshape(good[i].m, good[i].k, good[i].bits,
					   good[i].p);

		EXPECT_EQ(KB_SHAPE_OK, kb_filter_check_shape(&s)) {
			TH_LOG("good %zu", i);
		}
	}
	/* No delete, count is 0/1, no merge or union fill. */
	ASSERT_EQ(0, sinit(&f, 1024, 3, 2, 4));
	EXPECT_FALSE(kb_filter_can_delete(&f));
	kb_filter_add(&f, "x", 1);
	EXPECT_EQ(-EOPNOTSUPP, kb_filter_del(&f, "x", 1));
	EXPECT_EQ(1, kb_filter_count(&f, "x", 1));
	EXPECT_EQ(0, kb_filter_count(&f, "y", 1));
	EXPECT_EQ(-EOPNOTSUPP, kb_filter_merge(&f, &f, KBLOOM_MERGE_OR));
	EXPECT_EQ(-EOPNOTSUPP, kb_filter_union_fill(&f, &f, &out));
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

TEST(mem_values)
{
	static const u32 bits[] = { 1, 2, 4, 8 };
	static const u64 ms[] = { 64, 65, 100, 1000, 1001, 40009 };
	struct kb_filter f;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(ms); i++) {
		for (j = 0; j < ARRAY_SIZE(bits); j++) {
			u64 words = (ms[i] * bits[j] + 31) / 32;
			u64 bytes = (words * 4 + sizeof(long) - 1) /
				    sizeof(long) * sizeof(long);
			struct kb_shape s = sshape(ms[i], 3, bits[j], 1);

			EXPECT_EQ(bytes, kb_filter_mem_for(&s));
			ASSERT_EQ(0, kb_filter_init(&f, &s, hkey_a));
			EXPECT_EQ(bytes, kb_filter_mem(&f));
			kb_filter_free(&f);
		}
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * The key just added is always present, add says fresh exactly when a
 * test just before said absent, and the key's k cells hold Max; even
 * with P = m (every cell decremented by every add).
 */
TEST(just_added_is_present)
{
	static const struct {
		u64 m;
		u32 k, bits, p;
	} shapes[] = {
		{ 4096, 4, 1, 100 }, { 1000, 3, 2, 1000 }, { 64, 32, 1, 64 },
		{ 100003, 7, 4, 333 }, { 777, 2, 8, 5 },
	};
	size_t s;

	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		u32 max = (1U << shapes[s].bits) - 1;
		struct kb_filter f;
		u64 i, fresh = 0;
		u8 key[9];

		ASSERT_EQ(0, sinit(&f, shapes[s].m, shapes[s].k, shapes[s].bits,
				   shapes[s].p));
		for (i = 0; i < 20000; i++) {
			struct kb_probe p;
			struct kb_hash h;
			bool before;
			u32 j;

			key_of(key, 1, i % 15000);
			before = kb_filter_test(&f, key, sizeof(key));
			ASSERT_EQ(!before, kb_filter_add(&f, key, sizeof(key)));
			fresh += !before;
			ASSERT_TRUE(kb_filter_test(&f, key, sizeof(key)));
			kb_hash_key(&f.hkey, key, sizeof(key), &h);
			kb_probe_init(&p, &h, f.s.m);
			for (j = 0; j < shapes[s].k; j++)
				ASSERT_EQ(max, cell(&f, kb_probe_next(&p)));
		}
		kb_diag("m=%llu k=%u %u-bit P=%u: %llu of 20000 adds fresh",
			(unsigned long long)shapes[s].m, shapes[s].k,
			shapes[s].bits, shapes[s].p, (unsigned long long)fresh);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * The decrement, seen from memory: fill every cell with a known non-zero
 * pattern, add one key (k = 1, its cell pos), and compare: the cells that
 * lost one, with pos, are exactly one run of P cells (wrapping around the
 * end), and pos holds Max. Then from all zeros: an add leaves zeros alone
 * and sets only the key's cell. m not a multiple of the cells per word,
 * P from 1 to m.
 */
TEST(decrement_run)
{
	static const struct {
		u64 m;
		u32 bits, p;
	} shapes[] = {
		{ 1001, 1, 1 }, { 1001, 2, 37 }, { 1001, 4, 500 },
		{ 1001, 8, 1001 }, { 64, 4, 63 }, { 100003, 2, 4000 },
		{ 1001, 1, 999 },
	};
	size_t s;

	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		const u64 m = shapes[s].m, P = shapes[s].p;
		u32 max = (1U << shapes[s].bits) - 1, *pat;
		u64 i, r, wraps = 0, inrun = 0;
		struct kb_filter f;
		u8 *run;

		pat = malloc(m * sizeof(*pat));
		run = malloc(m);
		ASSERT_NE(NULL, pat);
		ASSERT_NE(NULL, run);
		ASSERT_EQ(0, sinit(&f, m, 1, shapes[s].bits, P));
		for (r = 0; r < 100; r++) {
			u64 pos, starts = 0, start = 0, len = 0;
			struct kb_probe p;
			struct kb_hash h;
			u8 key[9];

			for (i = 0; i < m; i++) {
				pat[i] = 1 + (u32)((i * 7 + r) % max);
				set_cell(&f, i, pat[i]);
			}
			key_of(key, 2, r);
			kb_filter_add(&f, key, sizeof(key));
			kb_hash_key(&f.hkey, key, sizeof(key), &h);
			kb_probe_init(&p, &h, m);
			pos = kb_probe_next(&p);
			ASSERT_EQ(max, cell(&f, pos));
			for (i = 0; i < m; i++) {
				u32 v = cell(&f, i);

				if (i != pos && v != pat[i])
					ASSERT_EQ(pat[i] - 1, v) {
						TH_LOG("m=%llu cell %llu",
						       (unsigned long long)m,
						       (unsigned long long)i);
					}
				run[i] = i == pos || v != pat[i];
			}
			for (i = 0; i < m; i++) {
				len += run[i];
				if (run[i] && !run[(i + m - 1) % m]) {
					starts++;
					start = i;
				}
			}
			if (P == m) {
				ASSERT_EQ(m, len);
				continue;
			}
			/* A run of m - 1 that ends beside pos covers everything. */
			if (len == m && P == m - 1)
				continue;
			/* One run of P, or of P + 1 when pos adjoins it. */
			ASSERT_TRUE(starts == 1 || starts == 2) {
				TH_LOG("m=%llu P=%llu: %llu runs",
				       (unsigned long long)m,
				       (unsigned long long)P,
				       (unsigned long long)starts);
			}
			if (starts == 2) {
				ASSERT_EQ(P + 1, len);
				continue;
			}
			ASSERT_TRUE(len == P || len == P + 1);
			if (len == P + 1)
				continue;	/* pos at one end: ambiguous */
			inrun += pos >= start ? pos - start < P :
				 pos + m - start < P;
			wraps += start + P > m;
		}
		if (P > m / 4 && P < m)
			EXPECT_LT(0, wraps);
		kb_diag("m=%llu %u-bit P=%llu: 100 adds, %llu runs wrapped, %llu covered the key's cell",
			(unsigned long long)m, shapes[s].bits,
			(unsigned long long)P, (unsigned long long)wraps,
			(unsigned long long)inrun);
		/* Zeros stay zero. */
		kb_filter_clear(&f);
		kb_filter_add(&f, "z", 1);
		for (i = 0, r = 0; i < m; i++)
			r += cell(&f, i) != 0;
		EXPECT_EQ(1, r);
		free(pat);
		free(run);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * The stable point: after warming up for 12 times the chain's time
 * scale, the fraction of zero cells (averaged over 10 snapshots half a
 * time scale apart) is the paper's P0 within 6 binomial standard errors
 * of that average; absent keys test
 * positive at (1 - P0)^k within a 99.9% binomial bound plus the effect of
 * the fill's spread, and at (fill/m)^k given the filter. fill.saturated
 * counts cells at Max.
 */
#define FPR_Q	200000

static const struct {
	u32 k, bits, p;
} stable_shapes[] = {
	{ 3, 1, 5 }, { 4, 2, 10 }, { 3, 4, 30 }, { 2, 8, 700 },
	{ 6, 2, 40 },
};

TEST(stable_point_and_fpr)
{
	const u64 m = 40009;
	size_t s;

	for (s = 0; s < ARRAY_SIZE(stable_shapes); s++) {
		double k = stable_shapes[s].k, P = stable_shapes[s].p;
		double max = (1U << stable_shapes[s].bits) - 1;
		double p0 = stable_p0(m, k, P, max), fpr = pow(1 - p0, k);
		double scale = fmax(m / k, max * m / P), zsum = 0, zsd;
		double fbound, cond, cbound, meas, zmean, slope;
		u64 i, n = 0, pos = 0, snap, sat = 0;
		struct kb_filter f;
		u8 key[9];

		ASSERT_EQ(0, sinit(&f, m, stable_shapes[s].k,
				   stable_shapes[s].bits, stable_shapes[s].p));
		for (; n < 12 * scale; n++) {
			key_of(key, 3, n);
			kb_filter_add(&f, key, sizeof(key));
		}
		for (snap = 0; snap < 10; snap++) {
			struct kb_fill fl;
			u64 z = 0, atmax = 0;

			for (i = 0; i < scale / 2; i++, n++) {
				key_of(key, 3, n);
				kb_filter_add(&f, key, sizeof(key));
			}
			fl = fill_of(&f);
			for (i = 0; i < m; i++) {
				z += !cell(&f, i);
				atmax += cell(&f, i) == max;
			}
			ASSERT_EQ(m - z, fl.nonzero);
			ASSERT_EQ(atmax, fl.saturated);
			zsum += (double)z / m;
			sat += atmax;
		}
		zmean = zsum / 10;
		zsd = sqrt(p0 * (1 - p0) / m);
		for (i = 0; i < FPR_Q; i++) {
			key_of(key, 4, i);
			pos += kb_filter_test(&f, key, sizeof(key));
		}
		meas = (double)pos / FPR_Q;
		cond = pow((double)fill_of(&f).nonzero / m, k);
		slope = k * pow(1 - p0, k - 1);
		fbound = Z999 * sqrt(fpr * (1 - fpr) / FPR_Q +
				     slope * slope * 9 * zsd * zsd) + 0.5 / FPR_Q;
		cbound = Z999 * sqrt(cond * (1 - cond) / FPR_Q) + 0.5 / FPR_Q;
		kb_diag("k=%u %u-bit P=%u m=%llu after %llu adds: zero cells %.4f, theory %.4f (+-%.4f); FPR %.4f, theory %.4f (+-%.4f), fill-conditional %.4f; at Max %.4f",
			stable_shapes[s].k, stable_shapes[s].bits,
			stable_shapes[s].p, (unsigned long long)m,
			(unsigned long long)n, zmean, p0, 6 * zsd / sqrt(10), meas, fpr,
			fbound, cond, (double)sat / 10 / m);
		EXPECT_LE(fabs(zmean - p0), 6 * zsd / sqrt(10));
		EXPECT_LE(fabs(meas - fpr), fbound);
		EXPECT_LE(fabs(meas - cond), cbound);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * Old keys fade. In the stable state, L more keys are added, then each
 * is tested: the share of false negatives among keys of age a (adds
 * since its own) follows 1 - (1 - z_a)^k, z_a the chain's probability of
 * 0 after a steps from Max, within a 99.9% binomial bound per age band
 * plus 0.01 for the correlation of cells; and it rises with age.
 */
#define NBANDS	8

TEST(old_keys_fade)
{
	const u64 m = 40009;
	size_t s;

	for (s = 0; s < ARRAY_SIZE(stable_shapes); s++) {
		u32 k = stable_shapes[s].k, P = stable_shapes[s].p;
		u32 max = (1U << stable_shapes[s].bits) - 1, j;
		double q = (double)k / m, pd = (double)P / m;
		double scale = fmax(m / (double)k, max * (double)m / P);
		u64 L = (u64)(3 * scale), warm = (u64)(8 * scale), i, a;
		double theory[NBANDS] = { 0 }, fn[NBANDS], *v, *w;
		u64 miss[NBANDS] = { 0 }, band = L / NBANDS;
		char line[256];
		int len = 0;
		struct kb_filter f;
		u8 key[9];

		ASSERT_EQ(0, sinit(&f, m, k, stable_shapes[s].bits, P));
		for (i = 0; i < warm; i++) {
			key_of(key, 5, i);
			kb_filter_add(&f, key, sizeof(key));
		}
		for (i = 0; i < L; i++) {
			key_of(key, 6, i);
			kb_filter_add(&f, key, sizeof(key));
		}
		for (i = 0; i < L; i++) {
			a = L - 1 - i;
			key_of(key, 6, i);
			if (a / band < NBANDS)
				miss[a / band] += !kb_filter_test(&f, key,
								  sizeof(key));
		}
		/* The chain from Max, a steps: v[x] = P(cell == x). */
		v = calloc(max + 1, sizeof(*v));
		w = calloc(max + 1, sizeof(*w));
		ASSERT_NE(NULL, v);
		ASSERT_NE(NULL, w);
		v[max] = 1;
		for (a = 0; a < NBANDS * band; a++) {
			theory[a / band] += (1 - pow(1 - v[0], k)) / band;
			for (j = 0; j <= max; j++)
				w[j] = (1 - q) * ((1 - pd) * v[j] +
						  (j < max ? pd * v[j + 1] : 0) +
						  (j == 0 ? pd * v[0] : 0));
			w[max] += q;
			memcpy(v, w, (max + 1) * sizeof(*v));
		}
		for (j = 0; j < NBANDS; j++) {
			double t = theory[j];
			double bound = Z999 * sqrt(t * (1 - t) / band) +
				       0.5 / band + 0.01;

			fn[j] = (double)miss[j] / band;
			len += snprintf(line + len, sizeof(line) - len,
					" %.3f/%.3f", fn[j], t);
			EXPECT_LE(fabs(fn[j] - t), bound) {
				TH_LOG("k=%u %u-bit P=%u band %u: FN %.4f, theory %.4f",
				       k, stable_shapes[s].bits, P, j, fn[j], t);
			}
		}
		kb_diag("k=%u %u-bit P=%u: FN rate by age band of %llu adds (measured/theory):%s",
			k, stable_shapes[s].bits, P, (unsigned long long)band,
			line);
		EXPECT_GT(fn[NBANDS - 1], fn[0] + 0.1);
		for (j = 1; j < NBANDS; j++)
			EXPECT_GE(fn[j] + 0.03, fn[j - 1]);
		free(v);
		free(w);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

TEST_HARNESS_MAIN
