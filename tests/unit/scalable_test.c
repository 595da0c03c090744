// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The scalable Bloom filter engine (kmod/engine/scalable.c) on the host:
 * shape checks; the fixed-point plan of uapi/kbloom.h recomputed here
 * independently (exact) and against real arithmetic; growth on demand
 * (the kick), overflow when no slice is ready (nothing lost), growth
 * stopped (sticky until clear); no false negatives; the number of slices
 * (the cost of a test) as documented; and the compound false positive
 * rate at 1x, 10x and 100x the initial capacity: under the target within
 * a 99.9% binomial bound, and equal to 1 - prod(1 - (X_i/m_i)^k_i) of the
 * slices' fills. Adders and a grower on several threads are in
 * concurrency_contract_test.c.
 */
#include <errno.h>
#include <math.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "kb_scalable.h"
#include "../../kmod/uapi/kbloom.h"

#define Z999	3.29		/* 99.9% two-sided, as bloom_fpr_test */

static const u8 hkey[16] = { 's', 'c', 'a', 'l', 'a', 'b', 'l', 'e',
			     '-', 't', 'e', 's', 't', '-', '0', '1' };

static struct kb_shape sshape(u64 m, u32 k, u64 n0, u32 s, u32 r)
{
	struct kb_shape sh = {
		.type = KBLOOM_TYPE_SCALABLE, .m = m, .k = k, .capacity = n0,
		.growth = s, .tighten = r,
	};

	return sh;
}

/* Bloom sizing for n keys at rate p (sizing.h), m a multiple of 64. */
static void size_for(u64 n, double p, u64 *m, u32 *k)
{
	double bits = ceil(-(double)n * log(p) / (M_LN2 * M_LN2));

	*m = ((u64)bits + 63) / 64 * 64;
	*k = (u32)round(M_LN2 * (double)*m / (double)n);
}

static void key_of(u8 key[9], u8 set, u64 i)
{
	key[0] = set;
	kb_put_le64(key + 1, i);
}

/* The kick grows at once (the host may allocate anywhere). */
static void grow_now(void *arg)
{
	grow_at_once(arg);
}

static int kicks;

static void count_kick(void *arg)
{
	kicks++;
}

TEST(shape_refusals)
{
	static const struct {
		u64 m, n0;
		u32 k, s, r, cell_bits, dims;
		enum kb_shape_error err;
	} cases[] = {
		{ 1024, 0, 4, 2, 900000, 0, 0, KB_SHAPE_BAD_CAPACITY },
		{ 1024, 1025, 4, 2, 900000, 0, 0, KB_SHAPE_BAD_CAPACITY },
		{ 1024, 100, 4, 1, 900000, 0, 0, KB_SHAPE_BAD_GROWTH },
		{ 1024, 100, 4, 17, 900000, 0, 0, KB_SHAPE_BAD_GROWTH },
		{ 1024, 100, 4, 0, 900000, 0, 0, KB_SHAPE_BAD_GROWTH },
		{ 1024, 100, 4, 2, 9999, 0, 0, KB_SHAPE_BAD_TIGHTEN },
		{ 1024, 100, 4, 2, 990001, 0, 0, KB_SHAPE_BAD_TIGHTEN },
		{ 1024, 100, 4, 2, 0, 0, 0, KB_SHAPE_BAD_TIGHTEN },
		{ 1024, 100, 4, 2, 900000, 4, 0, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 100, 4, 2, 900000, 0, 2, KB_SHAPE_EXTRA_PARAM },
		{ 63, 10, 4, 2, 900000, 0, 0, KB_SHAPE_BAD_BITS },
		{ 1024, 100, 33, 2, 900000, 0, 0, KB_SHAPE_BAD_HASHES },
	};
	struct kb_filter f;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kb_shape s = sshape(cases[i].m, cases[i].k, cases[i].n0,
					   cases[i].s, cases[i].r);

		s.cell_bits = cases[i].cell_bits;
		s.dims = cases[i].dims;
		EXPECT_EQ(cases[i].err, kb_filter_check_shape(&s)) {
			TH_LOG("case %zu", i);
		}
		EXPECT_EQ(-EINVAL, kb_filter_init(&f, &s, hkey));
	}
	/* The other types take none of the three. */
	{
		struct kb_shape s = { .type = KBLOOM_TYPE_BLOOM, .m = 1024,
				      .k = 3 };

		s.growth = 2;
		EXPECT_EQ(KB_SHAPE_EXTRA_PARAM, kb_filter_check_shape(&s));
		s.growth = 0;
		s.tighten = 500000;
		EXPECT_EQ(KB_SHAPE_EXTRA_PARAM, kb_filter_check_shape(&s));
		s.tighten = 0;
		s.capacity = 10;
		EXPECT_EQ(KB_SHAPE_EXTRA_PARAM, kb_filter_check_shape(&s));
	}
	{
		struct kb_shape s = sshape(1024, 3, 1024, 16, 10000);

		EXPECT_EQ(KB_SHAPE_OK, kb_filter_check_shape(&s));
		ASSERT_EQ(0, kb_filter_init(&f, &s, hkey));
		EXPECT_FALSE(kb_filter_can_delete(&f));
		EXPECT_FALSE(kb_filter_can_count(&f));
		EXPECT_TRUE(kb_filter_is_scalable(&f));
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/* log2(1/r) and E = log2(1/r)/ln 2 in 32.32, against real arithmetic. */
TEST(fixed_point)
{
	static const u32 rs[] = { 10000, 100000, 250000, 500000, 700000,
				  800000, 850000, 900000, 950000, 990000,
				  123457 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rs); i++) {
		double l = -log2(rs[i] / 1e6);
		double lq = kb_scalable_log2_inv_q32(rs[i]) / 4294967296.0;
		double eq = kb_scalable_bits_step_q32(rs[i]) / 4294967296.0;

		EXPECT_LE(fabs(lq - l), 1e-8) {
			TH_LOG("r=%u: %.12f vs %.12f", rs[i], lq, l);
		}
		EXPECT_LE(fabs(eq - l / M_LN2), 1e-8) {
			TH_LOG("r=%u: %.12f vs %.12f", rs[i], eq, l / M_LN2);
		}
	}
	/* r = 1/2: exactly one bit of log2, so k grows by one per slice. */
	EXPECT_EQ(1ULL << 32, kb_scalable_log2_inv_q32(500000));
	KB_ASSERT_NO_LEAKS();
}

/*
 * Every slice of the plan, until it ends, exactly as uapi/kbloom.h says
 * (recomputed here with 128-bit integers from the fixed-point figures),
 * and within 64 bits / a hash of the same rule in real arithmetic.
 */
TEST(plan)
{
	static const struct {
		u64 m, n0;
		u32 k, s, r;
	} cases[] = {
		{ 9600, 1000, 7, 2, 900000 }, { 14400, 1000, 10, 2, 500000 },
		{ 4096, 512, 3, 4, 800000 }, { 1 << 20, 100000, 7, 16, 990000 },
		{ 64, 1, 1, 3, 10000 },
	};
	size_t c;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		struct kb_shape s = sshape(cases[c].m, cases[c].k, cases[c].n0,
					   cases[c].s, cases[c].r);
		u64 lq = kb_scalable_log2_inv_q32(cases[c].r);
		u64 eq = kb_scalable_bits_step_q32(cases[c].r);
		double l = -log2(cases[c].r / 1e6), e = l / M_LN2;
		struct kb_filter f;
		struct kb_slice_info si;
		u64 n = cases[c].n0, m = cases[c].m, mem;
		struct kb_shape next;
		u32 i, why = 0;

		ASSERT_EQ(0, kb_filter_init(&f, &s, hkey));
		mem = kb_filter_mem(&f);
		EXPECT_EQ(kb_filter_mem_for(&s), mem);
		for (i = 0; !why; i++) {
			u64 want_m, bytes;
			u32 want_k;
			double rm;

			if (i) {
				why = kb_scalable_next(&f, &next, &bytes);
				if (why)
					break;
				ASSERT_EQ(0, kb_scalable_grow(&f));
				mem += bytes;
				EXPECT_EQ(mem, kb_filter_mem(&f));
				m *= cases[c].s;
				n *= cases[c].s;
			}
			ASSERT_EQ(i + 1, kb_scalable_slices(&f));
			kb_scalable_slice(&f, i, &si);
			want_m = m + (u64)(((unsigned __int128)i * n * eq) >> 32);
			want_m = (want_m + 63) / 64 * 64;
			want_k = cases[c].k + (u32)(((u64)i * lq + (1ULL << 31)) >> 32);
			EXPECT_EQ(want_m, si.m);
			EXPECT_EQ(want_k, si.k);
			EXPECT_EQ(n, si.capacity);
			EXPECT_EQ(0, si.keys);
			EXPECT_EQ(!i, si.is_current);
			rm = (double)m + floor((double)i * n * e);
			EXPECT_LE(fabs(ceil(rm / 64) * 64 - (double)si.m), 64);
			EXPECT_LE(fabs(cases[c].k + floor(i * l + 0.5) - si.k), 1);
		}
		kb_diag("n0=%llu m0=%llu k0=%u s=%u r=%.2f: %u slices, then %s; last m=%llu k=%u, %llu bytes",
			(unsigned long long)cases[c].n0,
			(unsigned long long)cases[c].m, cases[c].k, cases[c].s,
			cases[c].r / 1e6, i,
			why == KBLOOM_GROW_SHAPE_LIMIT ? "shape limit" :
			why == KBLOOM_GROW_FILTER_LIMIT ? "1 GiB limit" : "?",
			(unsigned long long)si.m, si.k,
			(unsigned long long)kb_filter_mem(&f));
		EXPECT_NE(KBLOOM_GROW_OK, why);
		/* Every slice but the last kept the limits of its own. */
		EXPECT_LE(kb_filter_mem(&f), KBLOOM_MEM_MAX);
		EXPECT_LE(i, KBLOOM_SLICES_MAX);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * The kick comes at half the current slice's capacity; a full slice with
 * no next one keeps taking keys (overflow, none lost); once the next one
 * is made the first add moves on to it; a stopped filter overflows and
 * says why until clear, which restarts from slice 0 with the slices kept.
 */
TEST(growth_overflow_and_stop)
{
	const u64 n0 = 1000;
	struct kb_shape s = sshape(9600, 7, n0, 2, 900000);
	struct kb_slice_info si;
	struct kb_filter f;
	struct kb_fill fl;
	u64 i, fresh = 0, keys;
	u8 key[9];

	ASSERT_EQ(0, kb_filter_init(&f, &s, hkey));
	kb_scalable_set_kick(&f, count_kick, NULL);
	kicks = 0;
	for (i = 0; fresh < n0 / 2 - 1; i++) {
		key_of(key, 1, i);
		fresh += kb_filter_add(&f, key, sizeof(key));
	}
	EXPECT_EQ(0, kicks);
	for (; fresh < n0 / 2; i++) {
		key_of(key, 1, i);
		fresh += kb_filter_add(&f, key, sizeof(key));
	}
	EXPECT_EQ(1, kicks);
	EXPECT_TRUE(kb_scalable_wants_slice(&f));
	EXPECT_FALSE(kb_scalable_full(&f));
	/* Twice the capacity, and no slice made: all in slice 0. */
	for (; fresh < 2 * n0; i++) {
		key_of(key, 1, i);
		fresh += kb_filter_add(&f, key, sizeof(key));
	}
	kb_scalable_slice(&f, 0, &si);
	EXPECT_EQ(2 * n0, si.keys);
	EXPECT_EQ(n0, kb_scalable_overflow(&f));
	EXPECT_EQ(1, kb_scalable_slices(&f));
	EXPECT_TRUE(kb_scalable_full(&f));
	/* One kick at half, then one per add at or past capacity. */
	EXPECT_EQ(1 + n0 + 1, kicks);
	keys = i;
	for (i = 0; i < keys; i++) {
		key_of(key, 1, i);
		ASSERT_TRUE(kb_filter_test(&f, key, sizeof(key)));
	}
	/* A slice made: the next fresh key goes there. */
	grow_now(&f);
	EXPECT_EQ(2, kb_scalable_slices(&f));
	EXPECT_FALSE(kb_scalable_wants_slice(&f));
	EXPECT_EQ(1, active(&f));
	for (i = keys; ; i++) {
		key_of(key, 1, i);
		if (kb_filter_add(&f, key, sizeof(key)))
			break;
	}
	EXPECT_EQ(2, active(&f));
	kb_scalable_slice(&f, 1, &si);
	EXPECT_EQ(1, si.keys);
	EXPECT_EQ(n0, kb_scalable_overflow(&f));
	/* Re-adding an old key changes nothing: it is in slice 0. */
	key_of(key, 1, 3);
	EXPECT_FALSE(kb_filter_add(&f, key, sizeof(key)));
	kb_scalable_slice(&f, 1, &si);
	EXPECT_EQ(1, si.keys);

	/* Stopped: no kick, no slice wanted; overflow keeps counting. */
	kb_scalable_fail(&f, KBLOOM_GROW_MEMORY_LIMIT);
	EXPECT_EQ(KBLOOM_GROW_MEMORY_LIMIT, kb_scalable_grow_error(&f));
	EXPECT_FALSE(kb_scalable_wants_slice(&f));
	kicks = 0;
	fresh = 1;
	for (i = keys + 1000000; fresh < 2 * n0 + 10; i++) {
		key_of(key, 1, i);
		fresh += kb_filter_add(&f, key, sizeof(key));
	}
	EXPECT_EQ(0, kicks);
	EXPECT_EQ(n0 + 10, kb_scalable_overflow(&f));
	EXPECT_FALSE(kb_scalable_full(&f));

	kb_filter_clear(&f);
	EXPECT_EQ(KBLOOM_GROW_OK, kb_scalable_grow_error(&f));
	EXPECT_EQ(0, kb_scalable_overflow(&f));
	EXPECT_EQ(2, kb_scalable_slices(&f));
	EXPECT_EQ(1, active(&f));
	kb_filter_fill(&f, &fl);
	EXPECT_EQ(0, fl.nonzero);
	key_of(key, 1, 3);
	EXPECT_FALSE(kb_filter_test(&f, key, sizeof(key)));
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

/*
 * A kick queued while slice 0 was full and alone may run after the slice
 * it asked for was made and took its first key (an ADD over netlink makes
 * it at once). No slice is wanted until the current one is half full, so
 * that stale kick makes nothing ahead of the plan.
 */
TEST(stale_kick_makes_no_slice_ahead)
{
	const u64 n0 = 1000;
	struct kb_shape s = sshape(9600, 7, n0, 2, 900000);
	struct kb_slice_info si;
	struct kb_filter f;
	u64 i, fresh = 0;
	u8 key[9];

	ASSERT_EQ(0, kb_filter_init(&f, &s, hkey));
	for (i = 0; fresh < n0; i++) {
		key_of(key, 1, i);
		fresh += kb_filter_add(&f, key, sizeof(key));
	}
	EXPECT_TRUE(kb_scalable_full(&f));
	grow_now(&f);
	for (fresh = 0; !fresh; i++) {
		key_of(key, 1, i);
		fresh = kb_filter_add(&f, key, sizeof(key));
	}
	EXPECT_EQ(2, active(&f));
	EXPECT_FALSE(kb_scalable_wants_slice(&f));
	/* Half of slice 1 (capacity 2 n0): now the next one is due. */
	kb_scalable_slice(&f, 1, &si);
	for (fresh = 1; fresh < si.capacity / 2 - 1; i++) {
		key_of(key, 1, i);
		fresh += kb_filter_add(&f, key, sizeof(key));
	}
	EXPECT_FALSE(kb_scalable_wants_slice(&f));
	for (; fresh < si.capacity / 2; i++) {
		key_of(key, 1, i);
		fresh += kb_filter_add(&f, key, sizeof(key));
	}
	EXPECT_TRUE(kb_scalable_wants_slice(&f));
	kb_filter_free(&f);
}

/*
 * Slices needed for N fresh keys: the smallest j with
 * n0 (s^j - 1) / (s - 1) >= N, i.e. about log_s(N (s-1)/n0 + 1): the
 * number of bloom tests an absent key costs.
 */
struct fpr_case {
	u32 s, r;
	double p;	/* target */
};

/*
 * The compound rate at 1x, 10x and 100x the initial capacity n0, with
 * slice 0 sized for P0 = P (1 - r) as a tool does. Checks, per point:
 *  - measured <= P + z sqrt(P (1 - P) / Q) + 0.5/Q: under the target;
 *  - |measured - c| <= z sqrt(c (1 - c) / Q) + 0.5/Q with c the
 *    filter's own rate 1 - prod_i (1 - (X_i/m_i)^k_i) from the slices'
 *    fills (slices hash independently: uapi/kbloom.h);
 *  - the slices made, and the keys in each, as documented.
 */
TEST(fpr_1x_10x_100x)
{
	static const struct fpr_case cases[] = {
		{ 2, 900000, 0.01 }, { 4, 800000, 0.01 }, { 2, 500000, 0.02 },
	};
	static const u32 mult[] = { 1, 10, 100 };
	const u64 n0 = 1000, Q = 400000;
	size_t c, x;

	for (c = 0; c < ARRAY_SIZE(cases); c++) {
		double p0 = cases[c].p * (1 - cases[c].r / 1e6);
		struct kb_shape s;
		struct kb_filter f;
		u64 m0, added = 0, fresh = 0, i;
		u32 k0;
		u8 key[9];

		size_for(n0, p0, &m0, &k0);
		s = sshape(m0, k0, n0, cases[c].s, cases[c].r);
		ASSERT_EQ(0, kb_filter_init(&f, &s, hkey));
		kb_scalable_set_kick(&f, grow_now, &f);
		for (x = 0; x < ARRAY_SIZE(mult); x++) {
			double cond = 1, bound, cb, meas, lim;
			struct kb_slice_info si;
			u64 pos = 0, sum = 0;
			u32 j, n;

			for (; added < mult[x] * n0; added++) {
				key_of(key, 7, added);
				fresh += kb_filter_add(&f, key, sizeof(key));
			}
			n = active(&f);
			for (j = 0; j < n; j++) {
				kb_scalable_slice(&f, j, &si);
				cond *= 1 - pow((double)si.fill / si.m, si.k);
				sum += si.keys;
			}
			cond = 1 - cond;
			EXPECT_EQ(fresh, sum);
			EXPECT_EQ(0, kb_scalable_overflow(&f));
			EXPECT_EQ(slices_for(n0, cases[c].s, fresh), n);
			for (i = 0; i < Q; i++) {
				key_of(key, 8, (u64)x << 32 | i);
				pos += kb_filter_test(&f, key, sizeof(key));
			}
			meas = (double)pos / Q;
			bound = cases[c].p +
				Z999 * sqrt(cases[c].p * (1 - cases[c].p) / Q) +
				0.5 / Q;
			cb = Z999 * sqrt(cond * (1 - cond) / Q) + 0.5 / Q;
			lim = p0 / (1 - cases[c].r / 1e6);
			kb_diag("s=%u r=%.1f P=%.3f (P0=%.4f): %3ux n0 = %llu keys (%llu fresh) in %u slices (log_s: %.2f): fpr measured %.5f, from fills %.5f (+-%.5f), target %.3f, limit P0/(1-r) %.4f, %llu bytes",
				cases[c].s, cases[c].r / 1e6, cases[c].p, p0,
				mult[x], (unsigned long long)added,
				(unsigned long long)fresh, n,
				log((double)fresh * (cases[c].s - 1) / n0 + 1) /
				log(cases[c].s), meas, cond, cb, cases[c].p,
				lim, (unsigned long long)kb_filter_mem(&f));
			EXPECT_LE(meas, bound);
			EXPECT_LE(fabs(meas - cond), cb);
			EXPECT_LE(cond, lim * 1.05);
		}
		/* No false negatives among everything added. */
		for (i = 0; i < added; i++) {
			key_of(key, 7, i);
			ASSERT_TRUE(kb_filter_test(&f, key, sizeof(key)));
		}
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

TEST_HARNESS_MAIN
