// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The d-left counting filter engine (kmod/engine/dleft.c) on the host:
 * shape checks and memory, counting and saturation, deletes that never
 * take another key's cell (even with 4-bit fingerprints, where a naive
 * d-left filter loses keys), overflow into sticky cells without ever
 * losing a key, the false positive rate against its exact expression,
 * and bucket loads and overflows against the d-left fluid limit.
 * Concurrent adds (and deletes) are in concurrency_contract_test.c.
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
static const u8 hkey_b[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x8f,
};

#define STICKY	0x00ffffffU	/* dleft.c's overflow cell */

static struct kb_shape dshape(u64 m, u32 d, u32 c, u32 fp)
{
	struct kb_shape s = {
		.type = KBLOOM_TYPE_DLEFT, .m = m, .k = 1, .subtables = d,
		.bucket_cells = c, .fp_bits = fp,
	};

	return s;
}

static int dinit(struct kb_filter *f, u64 m, u32 d, u32 c, u32 fp,
		 const u8 *hkey)
{
	struct kb_shape s = dshape(m, d, c, fp);

	return kb_filter_init(f, &s, hkey);
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

/* Cell j of bucket b of subtable t, by the layout dleft.c documents. */
static u32 cell(const struct kb_filter *f, u32 t, u64 b, u32 j)
{
	const u32 *cells = (const u32 *)f->mem;

	return cells[(t * f->nblocks + b) * f->s.bucket_cells + j];
}

static u32 bucket_load(const struct kb_filter *f, u32 t, u64 b)
{
	u32 j, n = 0;

	for (j = 0; j < f->s.bucket_cells; j++)
		n += cell(f, t, b, j) != 0;
	return n;
}

static u64 count_sticky(const struct kb_filter *f)
{
	const u32 *cells = (const u32 *)f->mem;
	u64 i, n = 0;

	for (i = 0; i < f->s.m; i++)
		n += cells[i] == STICKY;
	return n;
}

TEST(shape_refusals)
{
	static const struct {
		u64 m;
		u32 k, d, c, fp, bits, update, decrement, dims;
		enum kb_shape_error err;
	} cases[] = {
		{ 1024, 0, 4, 4, 8, 0, 0, 0, 0, KB_SHAPE_BAD_HASHES },
		{ 1024, 2, 4, 4, 8, 0, 0, 0, 0, KB_SHAPE_BAD_HASHES },
		{ 1024, 32, 4, 4, 8, 0, 0, 0, 0, KB_SHAPE_BAD_HASHES },
		{ 1024, 1, 4, 4, 8, 1, 0, 0, 0, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 1, 4, 4, 8, 8, 0, 0, 0, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 1, 4, 4, 8, 0, 1, 0, 0, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 1, 4, 4, 8, 0, 0, 3, 0, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 1, 4, 4, 8, 0, 0, 0, 2, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 1, 0, 4, 8, 0, 0, 0, 0, KB_SHAPE_BAD_SUBTABLES },
		{ 1024, 1, 1, 4, 8, 0, 0, 0, 0, KB_SHAPE_BAD_SUBTABLES },
		{ 1152, 1, 9, 4, 8, 0, 0, 0, 0, KB_SHAPE_BAD_SUBTABLES },
		{ 1024, 1, UINT32_MAX, 4, 8, 0, 0, 0, 0,
		  KB_SHAPE_BAD_SUBTABLES },
		{ 1024, 1, 4, 0, 8, 0, 0, 0, 0, KB_SHAPE_BAD_BUCKET_CELLS },
		{ 1088, 1, 4, 17, 8, 0, 0, 0, 0, KB_SHAPE_BAD_BUCKET_CELLS },
		{ 1024, 1, 4, UINT32_MAX, 8, 0, 0, 0, 0,
		  KB_SHAPE_BAD_BUCKET_CELLS },
		{ 1024, 1, 4, 4, 0, 0, 0, 0, 0, KB_SHAPE_BAD_FP_BITS },
		{ 1024, 1, 4, 4, 3, 0, 0, 0, 0, KB_SHAPE_BAD_FP_BITS },
		{ 1024, 1, 4, 4, 25, 0, 0, 0, 0, KB_SHAPE_BAD_FP_BITS },
		{ 1024, 1, 4, 4, 32, 0, 0, 0, 0, KB_SHAPE_BAD_FP_BITS },
		/* m a multiple of d * c. */
		{ 1000, 1, 4, 4, 8, 0, 0, 0, 0, KB_SHAPE_BAD_BITS },
		{ 64, 1, 8, 16, 8, 0, 0, 0, 0, KB_SHAPE_BAD_BITS },
		{ 100, 1, 3, 1, 8, 0, 0, 0, 0, KB_SHAPE_BAD_BITS },
		{ 63, 1, 3, 1, 8, 0, 0, 0, 0, KB_SHAPE_BAD_BITS },
		/* 2^28 cells of 4 bytes are 1 GiB, the limit. */
		{ (1ULL << 28) + 16, 1, 2, 8, 8, 0, 0, 0, 0, KB_SHAPE_TOO_BIG },
		{ KBLOOM_BITS_MAX, 1, 8, 16, 24, 0, 0, 0, 0, KB_SHAPE_TOO_BIG },
	};
	static const struct {
		u64 m;
		u32 d, c, fp;
	} good[] = {
		{ 64, 2, 1, 4 }, { 64, 2, 16, 24 }, { 128, 8, 16, 12 },
		{ 69, 3, 1, 8 }, { 1ULL << 28, 4, 4, 24 }, { 1000, 2, 4, 16 },
	};
	struct kb_filter f;
	u64 out;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kb_shape s = dshape(cases[i].m, cases[i].d, cases[i].c,
					   cases[i].fp);

		s.k = cases[i].k;
		s.cell_bits = cases[i].bits;
		s.update = cases[i].update;
		s.decrement = cases[i].decrement;
		s.dims = cases[i].dims;
		EXPECT_EQ(cases[i].err, kb_filter_check_shape(&s)) {
			TH_LOG("case %zu", i);
		}
		EXPECT_EQ(-EINVAL, kb_filter_init(&f, &s, hkey_a)) {
			TH_LOG("case %zu", i);
		}
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		struct kb_shape s = dshape(good[i].m, good[i].d, good[i].c,
					   good[i].fp);

		EXPECT_EQ(KB_SHAPE_OK, kb_filter_check_shape(&s)) {
			TH_LOG("good %zu", i);
		}
	}
	/* Delete and count yes; merge and union fill no. */
	ASSERT_EQ(0, dinit(&f, 1024, 4, 4, 8, hkey_a));
	EXPECT_TRUE(kb_filter_can_delete(&f));
	EXPECT_FALSE(kb_filter_is_multi(&f));
	EXPECT_EQ(64, f.nblocks);
	EXPECT_EQ(-EOPNOTSUPP, kb_filter_merge(&f, &f, KBLOOM_MERGE_OR));
	EXPECT_EQ(-EOPNOTSUPP, kb_filter_union_fill(&f, &f, &out));
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

/* Four bytes a cell, rounded up to whole longs. */
TEST(mem_values)
{
	static const struct {
		u64 m;
		u32 d, c;
		u64 bytes;
	} cases[] = {
		{ 64, 2, 2, 256 }, { 66, 2, 3, 264 }, { 69, 3, 1, 280 },
		{ 1024, 4, 4, 4096 }, { 1000008, 8, 3, 4000032 },
	};
	struct kb_filter f;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kb_shape s = dshape(cases[i].m, cases[i].d, cases[i].c,
					   8);

		EXPECT_EQ(cases[i].bytes, kb_filter_mem_for(&s));
		ASSERT_EQ(0, kb_filter_init(&f, &s, hkey_a));
		EXPECT_EQ(cases[i].bytes, kb_filter_mem(&f));
		EXPECT_EQ(cases[i].m / (cases[i].d * cases[i].c), f.nblocks);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * One key: add says fresh once, count follows the adds, the counter
 * saturates at 255 (then neither add nor delete moves it), the last
 * delete frees the cell, one more is -ENOENT.
 */
TEST(counting_basics)
{
	struct kb_filter f;
	struct kb_fill fl;
	u32 i;

	ASSERT_EQ(0, dinit(&f, 1024, 4, 4, 12, hkey_a));
	EXPECT_FALSE(kb_filter_test(&f, "k", 1));
	EXPECT_EQ(0, kb_filter_count(&f, "k", 1));
	EXPECT_EQ(-ENOENT, kb_filter_del(&f, "k", 1));
	for (i = 1; i <= 10; i++) {
		EXPECT_EQ(i == 1, kb_filter_add(&f, "k", 1));
		EXPECT_EQ(i, kb_filter_count(&f, "k", 1));
	}
	fl = fill_of(&f);
	EXPECT_EQ(1, fl.nonzero);
	EXPECT_EQ(0, fl.saturated);
	for (i = 10; i > 0; i--) {
		EXPECT_TRUE(kb_filter_test(&f, "k", 1));
		EXPECT_EQ(0, kb_filter_del(&f, "k", 1));
		EXPECT_EQ(i - 1, kb_filter_count(&f, "k", 1));
	}
	EXPECT_FALSE(kb_filter_test(&f, "k", 1));
	EXPECT_EQ(-ENOENT, kb_filter_del(&f, "k", 1));
	fl = fill_of(&f);
	EXPECT_EQ(0, fl.nonzero);
	for (i = 0; i < f.nwords; i++)
		ASSERT_EQ(0, f.mem[i]);
	/* Saturation. */
	for (i = 0; i < 300; i++)
		kb_filter_add(&f, "k", 1);
	EXPECT_EQ(255, kb_filter_count(&f, "k", 1));
	fl = fill_of(&f);
	EXPECT_EQ(1, fl.saturated);
	for (i = 0; i < 300; i++)
		EXPECT_EQ(0, kb_filter_del(&f, "k", 1));
	EXPECT_EQ(255, kb_filter_count(&f, "k", 1));
	EXPECT_TRUE(kb_filter_test(&f, "k", 1));
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

/*
 * 50k keys, key i added 1 + i % 3 times; then the odd keys deleted once
 * each. With 24-bit fingerprints (true-fingerprint collisions have
 * probability ~1e-2 here) every count is exact: even keys keep theirs,
 * odd keys lose exactly one; deleting everything left empties the
 * filter. With 8- and 4-bit fingerprints, where many keys share a
 * fingerprint and a bucket in some subtable, no key still added is ever
 * lost and no count falls below the adds left: the permutation makes a
 * shared cell a shared true fingerprint.
 */
TEST(delete_never_takes_another_key)
{
	static const struct {
		u32 d, c, fp;
		double load;
	} shapes[] = {
		{ 4, 4, 24, 0.75 }, { 4, 4, 8, 0.75 }, { 2, 4, 4, 0.45 },
		{ 3, 2, 4, 0.4 }, { 8, 1, 4, 0.5 },
	};
	const u64 n = 50000;
	size_t s;

	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		u32 dc = shapes[s].d * shapes[s].c;
		u64 m = ((u64)(n / shapes[s].load) + dc - 1) / dc * dc;
		bool exact = shapes[s].fp == 24;
		u32 *before = malloc(n * sizeof(*before));
		struct kb_filter f;
		struct kb_fill fl;
		u64 i, merged = 0;
		u8 key[9];

		ASSERT_NE(NULL, before);
		ASSERT_EQ(0, dinit(&f, m, shapes[s].d, shapes[s].c,
				   shapes[s].fp, hkey_a));
		for (i = 0; i < n; i++) {
			u32 r;

			key_of(key, 1, i);
			for (r = 0; r <= i % 3; r++)
				kb_filter_add(&f, key, sizeof(key));
		}
		fl = fill_of(&f);
		ASSERT_EQ(0, fl.saturated);	/* no overflow at this load */
		merged = n - fl.nonzero;	/* keys sharing a cell */
		for (i = 0; i < n; i++) {
			key_of(key, 1, i);
			before[i] = kb_filter_count(&f, key, sizeof(key));
			ASSERT_LE(1 + i % 3, before[i]);
			if (exact)
				ASSERT_EQ(1 + i % 3, before[i]);
		}
		for (i = 1; i < n; i += 2) {
			key_of(key, 1, i);
			ASSERT_EQ(0, kb_filter_del(&f, key, sizeof(key)));
		}
		for (i = 0; i < n; i++) {
			u32 left = 1 + i % 3 - (i & 1), now;

			key_of(key, 1, i);
			now = kb_filter_count(&f, key, sizeof(key));
			ASSERT_LE(left, now) {
				TH_LOG("fp=%u key %llu: %u adds left, count %u",
				       shapes[s].fp, (unsigned long long)i,
				       left, now);
			}
			if (left)
				ASSERT_TRUE(kb_filter_test(&f, key,
							   sizeof(key)));
			if (exact)
				ASSERT_EQ(before[i] - (i & 1), now);
		}
		kb_diag("d=%u c=%u fp=%u load %.2f: %llu keys in %llu cells (%llu share a true fingerprint)",
			shapes[s].d, shapes[s].c, shapes[s].fp, shapes[s].load,
			(unsigned long long)n, (unsigned long long)fl.nonzero,
			(unsigned long long)merged);
		/* Deleting every add left empties it. */
		for (i = 0; i < n; i++) {
			u32 r;

			key_of(key, 1, i);
			for (r = 0; r < 1 + i % 3 - (i & 1); r++)
				ASSERT_EQ(0, kb_filter_del(&f, key,
							   sizeof(key)));
		}
		fl = fill_of(&f);
		EXPECT_EQ(0, fl.nonzero);
		free(before);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * Overflow: a tiny filter (d = 2, one cell a bucket, 32 buckets a
 * subtable) gets far more keys than cells. Every key ever added stays
 * present, deletes of added keys never fail, counts never fall below the
 * adds, sticky cells show in fill.saturated, and after every add is
 * deleted again only sticky cells are left.
 */
TEST(overflow_never_loses_keys)
{
	static const struct {
		u64 m;
		u32 d, c;
		u64 n;
	} shapes[] = {
		{ 64, 2, 1, 200 }, { 256, 4, 4, 400 }, { 1024, 8, 2, 2000 },
	};
	size_t s;

	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		struct kb_filter f;
		struct kb_fill fl;
		u64 i, fresh = 0, sticky;
		u8 key[9];

		ASSERT_EQ(0, dinit(&f, shapes[s].m, shapes[s].d, shapes[s].c,
				   24, hkey_b));
		for (i = 0; i < shapes[s].n; i++) {
			u64 l;

			key_of(key, 2, i);
			fresh += kb_filter_add(&f, key, sizeof(key));
			if (i % 2)
				kb_filter_add(&f, key, sizeof(key));
			if (i % 8 && i + 1 < shapes[s].n)
				continue;
			for (l = 0; l <= i; l++) {
				key_of(key, 2, l);
				ASSERT_TRUE(kb_filter_test(&f, key,
							   sizeof(key)));
				ASSERT_LE(1 + l % 2, kb_filter_count(&f, key,
								     sizeof(key)));
			}
		}
		fl = fill_of(&f);
		sticky = count_sticky(&f);
		EXPECT_LT(0, sticky);
		EXPECT_EQ(sticky, fl.saturated);
		kb_diag("m=%llu d=%u c=%u, %llu keys: %llu fresh adds, %llu cells used, %llu sticky",
			(unsigned long long)shapes[s].m, shapes[s].d,
			shapes[s].c, (unsigned long long)shapes[s].n,
			(unsigned long long)fresh,
			(unsigned long long)fl.nonzero,
			(unsigned long long)sticky);
		for (i = 0; i < shapes[s].n; i++) {
			u32 r;

			key_of(key, 2, i);
			for (r = 0; r <= i % 2; r++)
				ASSERT_EQ(0, kb_filter_del(&f, key,
							   sizeof(key)));
		}
		fl = fill_of(&f);
		EXPECT_EQ(sticky, fl.nonzero);
		EXPECT_EQ(sticky, count_sticky(&f));
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * False positives. A query's true fingerprint H is uniform over
 * N = B * 2^fp values; by the permutation its cell in a subtable can
 * match only a key of the same H, so the query is positive exactly when
 * H is one of the stored true fingerprints:
 *	FPR = 1 - (1 - 1/N)^n
 * for n distinct keys (that is also E[distinct stored H] / N, so shared
 * fingerprints among the stored keys are accounted for). The same value
 * read per cell: the d buckets hold n / B occupied cells on average, each
 * matching with probability 2^-fp. Those matches exclude each other (each
 * stored H is in one cell), so given the filter the rate is exactly
 * (occupied cells examined) / 2^fp, linear, not 1 - (1 - 2^-fp)^cells as
 * for independent cells. Both checked within a 99.9% binomial bound over
 * Q absent queries.
 */
#define Z999	3.29
#define FPR_Q	400000

TEST(fpr)
{
	static const struct {
		u32 d, c, fp;
		double load;
	} shapes[] = {
		{ 4, 4, 8, 0.75 }, { 4, 8, 12, 0.75 }, { 2, 4, 4, 0.5 },
		{ 3, 4, 6, 0.6 }, { 4, 4, 16, 0.75 },
	};
	const u64 B = 4096;
	size_t s;

	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		u32 d = shapes[s].d, c = shapes[s].c;
		u64 m = B * d * c, n = (u64)(shapes[s].load * m), i, pos = 0;
		double N = (double)B * (1U << shapes[s].fp), t, cells, cond,
		       indep, bound, cbound, meas;
		struct kb_filter f;
		struct kb_fill fl;
		u8 key[9];

		ASSERT_EQ(0, dinit(&f, m, d, c, shapes[s].fp, hkey_a));
		for (i = 0; i < n; i++) {
			key_of(key, 3, i);
			kb_filter_add(&f, key, sizeof(key));
		}
		fl = fill_of(&f);
		ASSERT_EQ(0, fl.saturated);
		for (i = 0; i < FPR_Q; i++) {
			key_of(key, 4, i);
			pos += kb_filter_test(&f, key, sizeof(key));
		}
		t = -expm1(n * log1p(-1 / N));
		cells = (double)d * c * fl.nonzero / m;
		cond = cells / (1U << shapes[s].fp);
		indep = -expm1(cells * log1p(-1.0 / (1U << shapes[s].fp)));
		meas = (double)pos / FPR_Q;
		bound = Z999 * sqrt(t * (1 - t) / FPR_Q) + 0.5 / FPR_Q;
		cbound = Z999 * sqrt(cond * (1 - cond) / FPR_Q) + 0.5 / FPR_Q;
		kb_diag("d=%u c=%u fp=%u load %.2f: theory %.5f, measured %.5f (+-%.5f); %.2f occupied cells a query: %.5f (+-%.5f), as if independent %.5f",
			d, c, shapes[s].fp, shapes[s].load, t, meas, bound,
			cells, cond, cbound, indep);
		EXPECT_LE(fabs(meas - t), bound);
		EXPECT_LE(fabs(meas - cond), cbound);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * The d-left fluid limit (Vöcking; Mitzenmacher & Vöcking): y[t][i] the
 * fraction of subtable t's buckets holding at least i keys, time
 * tau = keys / B. A new key goes to subtable t's bucket of load i - 1
 * when the buckets of the subtables left of t hold at least i and those
 * right of t at least i - 1 (least loaded, leftmost on ties):
 *	dy[t][i]/dtau = (1 - s) (y[t][i-1] - y[t][i])
 *			prod_{u<t} y[u][i] prod_{u>t} y[u][i-1],
 * and it overflows when all d buckets hold c: rate (1 - s) prod y[u][c].
 * s, the sticky cells per bucket of subtable 0 (where overflows go),
 * is the share of new keys a sticky cell absorbs. Midpoint steps.
 */
#define ODE_LMAX	17

struct dl_ode {
	double y[8][ODE_LMAX + 1];
	double sticky;		/* overflows per bucket */
};

static void ode_deriv(u32 d, u32 c, const struct dl_ode *x,
		      struct dl_ode *dx)
{
	double go = 1 - x->sticky, ovf = go;
	u32 t, i, u;

	memset(dx, 0, sizeof(*dx));
	for (t = 0; t < d; t++) {
		for (i = 1; i <= c; i++) {
			double p = go * (x->y[t][i - 1] - x->y[t][i]);

			for (u = 0; u < t; u++)
				p *= x->y[u][i];
			for (u = t + 1; u < d; u++)
				p *= x->y[u][i - 1];
			dx->y[t][i] = p;
		}
		ovf *= x->y[t][c];
	}
	dx->sticky = ovf;
}

static void ode_run(u32 d, u32 c, double tau, struct dl_ode *x)
{
	const u32 steps = 4000;
	double h = tau / steps;
	struct dl_ode k1, mid, k2;
	u32 n, t, i;

	memset(x, 0, sizeof(*x));
	for (t = 0; t < d; t++)
		x->y[t][0] = 1;
	for (n = 0; n < steps; n++) {
		ode_deriv(d, c, x, &k1);
		mid = *x;
		for (t = 0; t < d; t++)
			for (i = 1; i <= c; i++)
				mid.y[t][i] += h / 2 * k1.y[t][i];
		mid.sticky += h / 2 * k1.sticky;
		ode_deriv(d, c, &mid, &k2);
		for (t = 0; t < d; t++)
			for (i = 1; i <= c; i++)
				x->y[t][i] += h * k2.y[t][i];
		x->sticky += h * k2.sticky;
	}
}

/*
 * Loads: B = 2^14 buckets a subtable, distinct keys, 24-bit
 * fingerprints. For each shape, the measured fraction of buckets of
 * each subtable with load >= i matches the fluid limit within 5 standard
 * errors (plus 1e-3 for the finite-B error of the limit), and the sticky
 * cells (overflows) match B * s within a Poisson 99.9% band. c = 16 at
 * 3.2 keys a bucket shows the load an uncapped d = 4 table reaches at
 * 80% of c = 4: the maximum bucket load against the theory.
 */
TEST(bucket_loads_match_theory)
{
	static const struct {
		u32 d, c;
		double keys_per_bucket;	/* n / (d B) */
	} shapes[] = {
		{ 4, 16, 3.2 }, { 4, 4, 3.2 }, { 4, 4, 3.6 }, { 2, 4, 3.0 },
		{ 3, 2, 1.6 },
	};
	const u64 B = 1 << 14;
	size_t s;

	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		u32 d = shapes[s].d, c = shapes[s].c, t, i, maxload = 0;
		u64 n = (u64)(shapes[s].keys_per_bucket * d * B), k, b;
		u64 hist[8][ODE_LMAX + 1] = { { 0 } };
		double worst = 0, expect_sticky, over_c = 0;
		struct kb_filter f;
		struct dl_ode x;
		u64 sticky;
		u8 key[9];
		char line[160];
		int len = 0;

		ASSERT_EQ(0, dinit(&f, B * d * c, d, c, 24, hkey_b));
		for (k = 0; k < n; k++) {
			key_of(key, 5, k);
			kb_filter_add(&f, key, sizeof(key));
		}
		for (t = 0; t < d; t++) {
			for (b = 0; b < B; b++) {
				u32 l = bucket_load(&f, t, b);

				hist[t][l]++;
				if (l > maxload)
					maxload = l;
			}
		}
		sticky = count_sticky(&f);
		ode_run(d, c, (double)n / B, &x);
		for (t = 0; t < d; t++) {
			u64 ge = 0;

			for (i = c; i >= 1; i--) {
				double y = x.y[t][i], meas, tol;

				ge += hist[t][i];
				meas = (double)ge / B;
				tol = 5 * sqrt(y * (1 - y) / B) + 1e-3;
				if (fabs(meas - y) > worst)
					worst = fabs(meas - y);
				EXPECT_LE(fabs(meas - y), tol) {
					TH_LOG("d=%u c=%u subtable %u load>=%u: measured %.5f, theory %.5f",
					       d, c, t, i, meas, y);
				}
			}
			if (c > 4)
				over_c += x.y[t][5] * B;
			len += snprintf(line + len, sizeof(line) - len,
					" %.4f", x.y[t][c > 4 ? 4 : c]);
		}
		expect_sticky = x.sticky * B;
		kb_diag("d=%u c=%u %.1f keys/bucket: max load %u, sticky %llu (theory %.2f), largest |measured - theory| %.5f; y[load>=%u] per subtable:%s",
			d, c, shapes[s].keys_per_bucket, maxload,
			(unsigned long long)sticky, expect_sticky, worst,
			c > 4 ? 4 : c, line);
		if (c > 4)
			kb_diag("  uncapped: buckets with load > 4: %llu, theory %.3f",
				(unsigned long long)(hist[0][5] + hist[1][5] +
						     hist[2][5] + hist[3][5]),
				over_c);
		/* Poisson 99.9%: 3.29 sd plus 3 for small means. */
		EXPECT_LE(fabs(sticky - expect_sticky),
			  Z999 * sqrt(expect_sticky) + 3 +
			  0.02 * expect_sticky);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

TEST_HARNESS_MAIN
