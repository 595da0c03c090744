// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The counting Bloom filter engine (kmod/engine/counting.c) on the host:
 * shape checks and memory, the counter layout, no false negatives, exact
 * add/del round trips, saturation (never a false negative), counts that
 * never underestimate (plain and conservative update, against exact
 * counts of a Zipf stream), deletes of absent keys, merges, and the false
 * positive rate (that of the plain Bloom filter with the same probes).
 * Concurrent adds (no torn or lost counters) are in
 * concurrency_contract_test.c.
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

static struct kb_shape cshape(u64 m, u32 k, u32 bits, u32 update)
{
	struct kb_shape s = {
		.type = KBLOOM_TYPE_COUNTING, .m = m, .k = k,
		.cell_bits = bits, .update = update,
	};

	return s;
}

static int cinit(struct kb_filter *f, u64 m, u32 k, u32 bits, u32 update,
		 const u8 *hkey)
{
	struct kb_shape s = cshape(m, k, bits, update);

	return kb_filter_init(f, &s, hkey);
}

/* Key i of set @set: 9 bytes, disjoint between sets. */
static void key_of(u8 key[9], u8 set, u64 i)
{
	key[0] = set;
	kb_put_le64(key + 1, i);
}

/*
 * Counter @i straight from memory, by the layout counting.c documents:
 * 32 / bits counters to a 32-bit word, counter i at bits
 * (i % per) * bits of word i / per.
 */
static u32 ctr(const struct kb_filter *f, u64 i)
{
	u32 b = f->s.cell_bits, per = 32 / b;
	const u32 *w = (const u32 *)f->mem;

	return (w[i / per] >> (i % per * b)) & ((1U << b) - 1);
}

static u64 ref_pos(const struct kb_filter *f, const u8 *key, size_t len,
		   u32 i)
{
	u64 h1 = siphash(key, len, &f->hkey);

	return kb_ref_probe(h1, kb_ref_mix64(h1), f->s.m, i);
}

static struct kb_fill fill_of(const struct kb_filter *f)
{
	struct kb_fill fl;

	kb_filter_fill(f, &fl);
	return fl;
}

TEST(shape_refusals)
{
	static const struct {
		u64 m;
		u32 k, bits, update, decrement, subtables, cells, fp, dims;
		enum kb_shape_error err;
	} cases[] = {
		{ 1024, 4, 0, 0, 0, 0, 0, 0, 0, KB_SHAPE_BAD_COUNTER_BITS },
		{ 1024, 4, 1, 0, 0, 0, 0, 0, 0, KB_SHAPE_BAD_COUNTER_BITS },
		{ 1024, 4, 2, 0, 0, 0, 0, 0, 0, KB_SHAPE_BAD_COUNTER_BITS },
		{ 1024, 4, 3, 0, 0, 0, 0, 0, 0, KB_SHAPE_BAD_COUNTER_BITS },
		{ 1024, 4, 5, 0, 0, 0, 0, 0, 0, KB_SHAPE_BAD_COUNTER_BITS },
		{ 1024, 4, 12, 0, 0, 0, 0, 0, 0, KB_SHAPE_BAD_COUNTER_BITS },
		{ 1024, 4, 32, 0, 0, 0, 0, 0, 0, KB_SHAPE_BAD_COUNTER_BITS },
		{ 1024, 4, UINT32_MAX, 0, 0, 0, 0, 0, 0,
		  KB_SHAPE_BAD_COUNTER_BITS },
		{ 1024, 4, 4, 2, 0, 0, 0, 0, 0, KB_SHAPE_BAD_UPDATE },
		{ 1024, 4, 8, UINT32_MAX, 0, 0, 0, 0, 0, KB_SHAPE_BAD_UPDATE },
		{ 1024, 4, 4, 0, 1, 0, 0, 0, 0, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 4, 4, 0, 0, 2, 0, 0, 0, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 4, 4, 0, 0, 0, 4, 0, 0, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 4, 4, 0, 0, 0, 0, 8, 0, KB_SHAPE_EXTRA_PARAM },
		{ 1024, 4, 4, 0, 0, 0, 0, 0, 1, KB_SHAPE_EXTRA_PARAM },
		/* A parameter it does not take beats a bad one it does. */
		{ 1024, 4, 3, 0, 5, 0, 0, 0, 0, KB_SHAPE_EXTRA_PARAM },
		{ 63, 4, 4, 0, 0, 0, 0, 0, 0, KB_SHAPE_BAD_BITS },
		{ KBLOOM_BITS_MAX + 1, 4, 4, 0, 0, 0, 0, 0, 0,
		  KB_SHAPE_BAD_BITS },
		{ 1024, 0, 4, 0, 0, 0, 0, 0, 0, KB_SHAPE_BAD_HASHES },
		{ 1024, KBLOOM_HASHES_MAX + 1, 4, 0, 0, 0, 0, 0, 0,
		  KB_SHAPE_BAD_HASHES },
		/* 2^31 4-bit counters are 1 GiB, the limit; one word more. */
		{ (1ULL << 31) + 8, 4, 4, 0, 0, 0, 0, 0, 0, KB_SHAPE_TOO_BIG },
		{ 1ULL << 30, 4, 16, 0, 0, 0, 0, 0, 0, KB_SHAPE_TOO_BIG },
		{ KBLOOM_BITS_MAX, 4, 8, 1, 0, 0, 0, 0, 0, KB_SHAPE_TOO_BIG },
	};
	static const struct {
		u64 m;
		u32 k, bits, update;
	} good[] = {
		{ KBLOOM_BITS_MIN, 1, 4, 0 }, { 1000, 7, 8, 1 },
		{ 1001, KBLOOM_HASHES_MAX, 16, 0 }, { 1ULL << 31, 3, 4, 1 },
		{ 1ULL << 29, 3, 16, 0 },
	};
	struct kb_filter f;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct kb_shape s = cshape(cases[i].m, cases[i].k,
					   cases[i].bits, cases[i].update);

		s.decrement = cases[i].decrement;
		s.subtables = cases[i].subtables;
		s.bucket_cells = cases[i].cells;
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
		struct kb_shape s = cshape(good[i].m, good[i].k, good[i].bits,
					   good[i].update);

		EXPECT_EQ(KB_SHAPE_OK, kb_filter_check_shape(&s)) {
			TH_LOG("good %zu", i);
		}
	}
	/* Delete needs plain update. */
	ASSERT_EQ(0, cinit(&f, 1024, 3, 4, KBLOOM_UPDATE_PLAIN, hkey_a));
	EXPECT_TRUE(kb_filter_can_delete(&f));
	kb_filter_free(&f);
	ASSERT_EQ(0, cinit(&f, 1024, 3, 4, KBLOOM_UPDATE_CONSERVATIVE, hkey_a));
	EXPECT_FALSE(kb_filter_can_delete(&f));
	kb_filter_add(&f, "x", 1);
	EXPECT_EQ(-EOPNOTSUPP, kb_filter_del(&f, "x", 1));
	EXPECT_EQ(1, kb_filter_count(&f, "x", 1));
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

/* ceil(m * bits / 32) 32-bit words, rounded up to whole longs. */
TEST(mem_values)
{
	static const u32 bits[] = { 4, 8, 16 };
	static const u64 ms[] = { 64, 65, 100, 127, 1000, 1001, 4097,
				  1 << 20, 1000003 };
	struct kb_filter f;
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(ms); i++) {
		for (j = 0; j < ARRAY_SIZE(bits); j++) {
			u64 words = (ms[i] * bits[j] + 31) / 32;
			u64 bytes = (words * 4 + sizeof(long) - 1) /
				    sizeof(long) * sizeof(long);
			struct kb_shape s = cshape(ms[i], 3, bits[j], 0);

			EXPECT_EQ(bytes, kb_filter_mem_for(&s));
			ASSERT_EQ(0, kb_filter_init(&f, &s, hkey_a));
			EXPECT_EQ(bytes, kb_filter_mem(&f));
			EXPECT_EQ(bytes, f.nwords * sizeof(unsigned long));
			kb_filter_free(&f);
		}
	}
	/* The examples of the spec: 64 4-bit counters are 32 bytes. */
	{
		struct kb_shape s = cshape(64, 1, 4, 0);

		EXPECT_EQ(32, kb_filter_mem_for(&s));
		s = cshape(65, 1, 4, 0);
		EXPECT_EQ(40, kb_filter_mem_for(&s));
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * The counters the engine changes are exactly those of the ABI's probe
 * positions, at the documented place in memory, once per probe (repeats
 * included: m = 64, k = 32 repeats positions for most keys).
 */
TEST(layout_and_repeats)
{
	static const struct {
		u64 m;
		u32 k, bits;
	} shapes[] = {
		{ 64, 32, 16 }, { 64, 32, 8 }, { 100, 7, 4 }, { 1001, 5, 8 },
		{ 99991, 9, 16 },
	};
	size_t s;

	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		struct kb_filter f;
		u32 *ref;
		u64 i, reps = 0;
		u32 j;

		ASSERT_EQ(0, cinit(&f, shapes[s].m, shapes[s].k, shapes[s].bits,
				   0, hkey_b));
		ref = calloc(shapes[s].m, sizeof(*ref));
		ASSERT_NE(NULL, ref);
		for (i = 0; i < 6; i++) {
			u8 key[9];

			key_of(key, 1, i);
			kb_filter_add(&f, key, sizeof(key));
			for (j = 0; j < shapes[s].k; j++) {
				u64 p = ref_pos(&f, key, sizeof(key), j);
				u32 l;

				for (l = 0; l < j; l++)
					reps += p == ref_pos(&f, key,
							     sizeof(key), l);
				ref[p]++;
			}
		}
		for (i = 0; i < shapes[s].m; i++) {
			ASSERT_EQ(ref[i], ctr(&f, i)) {
				TH_LOG("m=%llu counter %llu",
				       (unsigned long long)shapes[s].m,
				       (unsigned long long)i);
			}
		}
		if (shapes[s].m == 64)
			EXPECT_GT(reps, 0);
		/* Nothing past m. */
		for (i = shapes[s].m; i < f.nwords * BITS_PER_LONG /
					  shapes[s].bits; i++) {
			ASSERT_EQ(0, ctr(&f, i));
		}
		/* Deleting the keys again restores zero, repeats or not. */
		for (i = 0; i < 6; i++) {
			u8 key[9];

			key_of(key, 1, i);
			ASSERT_EQ(0, kb_filter_del(&f, key, sizeof(key)));
		}
		for (i = 0; i < f.nwords; i++)
			ASSERT_EQ(0, f.mem[i]);
		free(ref);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * 100k keys: every one present after the adds, its count at least 1, and
 * add says "fresh" exactly when a test just before said absent.
 */
TEST(no_false_negatives)
{
	const u64 n = 100000;
	u32 upd;

	for (upd = 0; upd <= KBLOOM_UPDATE_MAX; upd++) {
		struct kb_filter f;
		u64 i, fresh = 0;
		struct kb_fill fl;
		u8 key[9];

		ASSERT_EQ(0, cinit(&f, 10 * n, 7, 4, upd, hkey_a));
		for (i = 0; i < n; i++) {
			bool before, added;

			key_of(key, 2, i);
			before = kb_filter_test(&f, key, sizeof(key));
			added = kb_filter_add(&f, key, sizeof(key));
			ASSERT_EQ(!before, added);
			fresh += added;
			ASSERT_TRUE(kb_filter_test(&f, key, sizeof(key)));
		}
		for (i = 0; i < n; i++) {
			key_of(key, 2, i);
			ASSERT_TRUE(kb_filter_test(&f, key, sizeof(key)));
			ASSERT_LE(1, kb_filter_count(&f, key, sizeof(key)));
		}
		fl = fill_of(&f);
		kb_diag("%s: %llu of %llu adds fresh, %llu counters non-zero, %llu saturated",
			upd ? "conservative" : "plain",
			(unsigned long long)fresh, (unsigned long long)n,
			(unsigned long long)fl.nonzero,
			(unsigned long long)fl.saturated);
		EXPECT_GT(fresh, n * 98 / 100);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * Adds then deletes of a batch (some keys twice) restore the counters
 * byte for byte, for each width; deleting the preload too leaves zeros.
 */
TEST(add_del_round_trip)
{
	static const u32 bits[] = { 4, 8, 16 };
	const u64 m = 200003, pre = 10000, batch = 5000;
	size_t b;

	for (b = 0; b < ARRAY_SIZE(bits); b++) {
		struct kb_filter f;
		unsigned long *snap;
		struct kb_fill fl;
		u8 key[9];
		u64 i;

		ASSERT_EQ(0, cinit(&f, m, 5, bits[b], 0, hkey_a));
		for (i = 0; i < pre; i++) {
			key_of(key, 3, i);
			kb_filter_add(&f, key, sizeof(key));
		}
		snap = malloc(kb_filter_mem(&f));
		ASSERT_NE(NULL, snap);
		memcpy(snap, f.mem, kb_filter_mem(&f));
		for (i = 0; i < batch; i++) {
			key_of(key, 4, i);
			kb_filter_add(&f, key, sizeof(key));
			if (i % 3 == 0)
				kb_filter_add(&f, key, sizeof(key));
		}
		fl = fill_of(&f);
		ASSERT_EQ(0, fl.saturated);	/* else the trip is not exact */
		EXPECT_NE(0, memcmp(snap, f.mem, kb_filter_mem(&f)));
		for (i = batch; i-- > 0;) {
			key_of(key, 4, i);
			ASSERT_EQ(0, kb_filter_del(&f, key, sizeof(key)));
			if (i % 3 == 0)
				ASSERT_EQ(0, kb_filter_del(&f, key,
							   sizeof(key)));
		}
		EXPECT_EQ(0, memcmp(snap, f.mem, kb_filter_mem(&f))) {
			TH_LOG("%u-bit counters not restored", bits[b]);
		}
		for (i = 0; i < pre; i++) {
			key_of(key, 3, i);
			ASSERT_EQ(0, kb_filter_del(&f, key, sizeof(key)));
		}
		fl = fill_of(&f);
		EXPECT_EQ(0, fl.nonzero);
		for (i = 0; i < f.nwords; i++)
			ASSERT_EQ(0, f.mem[i]);
		free(snap);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * 4-bit counters saturate at 15 and then stick: one key added 40 times
 * among 3000 others, then deleted 40 times, then the others deleted: the
 * key and every other key stay present while they should, saturated
 * counters never move, and nothing ever tests absent that was not
 * deleted.
 */
TEST(saturation_never_false_negative)
{
	const u64 m = 4096, others = 3000;
	const u32 k = 4;
	struct kb_filter f;
	struct kb_fill fl;
	u64 pos[4], i;
	u8 key[9];
	u32 j;

	ASSERT_EQ(0, cinit(&f, m, k, 4, 0, hkey_a));
	for (i = 0; i < 40; i++) {
		EXPECT_EQ(i == 0, kb_filter_add(&f, "hot", 3));
		EXPECT_EQ(i + 1 < 15 ? i + 1 : 15, kb_filter_count(&f, "hot", 3));
	}
	for (j = 0; j < k; j++) {
		pos[j] = ref_pos(&f, (const u8 *)"hot", 3, j);
		EXPECT_EQ(15, ctr(&f, pos[j]));
	}
	for (i = 0; i < others; i++) {
		key_of(key, 5, i);
		kb_filter_add(&f, key, sizeof(key));
	}
	fl = fill_of(&f);
	kb_diag("m=%llu: %llu non-zero, %llu saturated after %llu keys",
		(unsigned long long)m, (unsigned long long)fl.nonzero,
		(unsigned long long)fl.saturated, (unsigned long long)others);
	EXPECT_LE(k, fl.saturated);
	for (i = 0; i < 40; i++) {
		ASSERT_EQ(0, kb_filter_del(&f, "hot", 3));
		ASSERT_TRUE(kb_filter_test(&f, "hot", 3));
	}
	for (j = 0; j < k; j++)
		EXPECT_EQ(15, ctr(&f, pos[j]));
	EXPECT_EQ(15, kb_filter_count(&f, "hot", 3));
	for (i = 0; i < others; i++) {
		key_of(key, 5, i);
		ASSERT_TRUE(kb_filter_test(&f, key, sizeof(key)));
	}
	/* Each other key was added once: each delete succeeds. */
	for (i = 0; i < others; i++) {
		u64 l;

		key_of(key, 5, i);
		ASSERT_EQ(0, kb_filter_del(&f, key, sizeof(key)));
		if (i % 500)
			continue;
		for (l = i + 1; l < others; l++) {
			key_of(key, 5, l);
			ASSERT_TRUE(kb_filter_test(&f, key, sizeof(key)));
		}
	}
	/* What is left: saturated counters only, "hot" among them. */
	fl = fill_of(&f);
	EXPECT_EQ(fl.saturated, fl.nonzero);
	EXPECT_TRUE(kb_filter_test(&f, "hot", 3));
	for (i = 0; i < m; i++)
		ASSERT_TRUE(ctr(&f, i) == 0 || ctr(&f, i) == 15);
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

/*
 * Zipf(s = 1.1) stream over U keys: count(x) >= min(true count, max) for
 * every key, plain and conservative; conservative's total overestimate is
 * no larger than plain's. 16-bit counters never saturate here; 8-bit ones
 * do for the heaviest keys.
 */
#define ZIPF_U	20000
#define ZIPF_N	300000

static void zipf_stream(u32 *stream, u32 *truth)
{
	double *cdf = malloc(ZIPF_U * sizeof(*cdf)), sum = 0;
	struct kb_rng r;
	u32 i;

	for (i = 0; i < ZIPF_U; i++) {
		sum += pow(i + 1, -1.1);
		cdf[i] = sum;
	}
	kb_rng_seed(&r, 1001);
	memset(truth, 0, ZIPF_U * sizeof(*truth));
	for (i = 0; i < ZIPF_N; i++) {
		double u = (double)(kb_rng_next(&r) >> 11) / (1ULL << 53) * sum;
		u32 lo = 0, hi = ZIPF_U - 1;

		while (lo < hi) {
			u32 mid = (lo + hi) / 2;

			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		stream[i] = lo;
		truth[lo]++;
	}
	free(cdf);
}

TEST(count_never_underestimates)
{
	static const u32 bits[] = { 16, 8 };
	u32 *stream = malloc(ZIPF_N * sizeof(*stream));
	u32 *truth = malloc(ZIPF_U * sizeof(*truth));
	size_t b;

	ASSERT_NE(NULL, stream);
	ASSERT_NE(NULL, truth);
	zipf_stream(stream, truth);
	kb_diag("Zipf stream: %d items over %d keys, heaviest %u", ZIPF_N,
		ZIPF_U, truth[0]);
	for (b = 0; b < ARRAY_SIZE(bits); b++) {
		u32 max = (1U << bits[b]) - 1;
		struct kb_filter f[2];
		double err[2] = { 0, 0 };
		u64 exact[2] = { 0, 0 };
		u8 key[9];
		u32 i, u;

		for (u = 0; u < 2; u++)
			ASSERT_EQ(0, cinit(&f[u], 4 * ZIPF_U, 4, bits[b], u,
					   hkey_a));
		for (i = 0; i < ZIPF_N; i++) {
			key_of(key, 6, stream[i]);
			for (u = 0; u < 2; u++)
				kb_filter_add(&f[u], key, sizeof(key));
		}
		for (i = 0; i < ZIPF_U; i++) {
			u32 want = truth[i] < max ? truth[i] : max;

			key_of(key, 6, i);
			for (u = 0; u < 2; u++) {
				u32 c = kb_filter_count(&f[u], key,
							sizeof(key));

				ASSERT_LE(want, c) {
					TH_LOG("%u-bit %s: key %u true %u count %u",
					       bits[b], u ? "conservative" :
					       "plain", i, truth[i], c);
				}
				if (bits[b] == 16) {
					ASSERT_GE(max, truth[i]);
				}
				err[u] += c - want;
				exact[u] += c == want;
			}
		}
		kb_diag("%u-bit: total overestimate plain %.0f (%llu exact), conservative %.0f (%llu exact)",
			bits[b], err[0], (unsigned long long)exact[0], err[1],
			(unsigned long long)exact[1]);
		EXPECT_LE(err[1], err[0]);
		EXPECT_GT(err[0], 0);	/* the shape does collide */
		for (u = 0; u < 2; u++)
			kb_filter_free(&f[u]);
	}
	free(stream);
	free(truth);
	KB_ASSERT_NO_LEAKS();
}

/*
 * A delete of a key that is certainly absent — some counter below the
 * number of its probes that hit it — is -ENOENT and changes nothing;
 * otherwise it decrements each probe once and an add puts it back. The
 * expected answer comes from the reference probe positions and the
 * counters read from memory; m = 64, k = 32 makes repeated probes the
 * rule, m = 100000 the exception.
 */
TEST(del_absent)
{
	static const struct {
		u64 m;
		u32 k, bits;
		u64 present;
	} shapes[] = {
		{ 64, 32, 16, 1 }, { 64, 32, 4, 2 }, { 64, 5, 8, 6 },
		{ 100000, 4, 4, 20000 },
	};
	size_t s;

	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		u64 i, enoent = 0, ok = 0, queries = 20000;
		unsigned long *snap;
		struct kb_filter f;
		u8 key[9];

		ASSERT_EQ(0, cinit(&f, shapes[s].m, shapes[s].k,
				   shapes[s].bits, 0, hkey_a));
		for (i = 0; i < shapes[s].present; i++) {
			key_of(key, 7, i);
			kb_filter_add(&f, key, sizeof(key));
		}
		snap = malloc(kb_filter_mem(&f));
		ASSERT_NE(NULL, snap);
		memcpy(snap, f.mem, kb_filter_mem(&f));
		for (i = 0; i < queries; i++) {
			u32 need[KBLOOM_HASHES_MAX], max = (1U << shapes[s].bits) - 1;
			u64 pos[KBLOOM_HASHES_MAX];
			bool absent = false;
			u32 j, l;
			int ret;

			key_of(key, 8, i);
			for (j = 0; j < shapes[s].k; j++) {
				pos[j] = ref_pos(&f, key, sizeof(key), j);
				need[j] = 1;
				for (l = 0; l < j; l++)
					need[j] += pos[l] == pos[j];
			}
			for (j = 0; j < shapes[s].k; j++) {
				u32 c = ctr(&f, pos[j]);

				if (c != max && c < need[j])
					absent = true;
			}
			ret = kb_filter_del(&f, key, sizeof(key));
			ASSERT_EQ(absent ? -ENOENT : 0, ret) {
				TH_LOG("m=%llu query %llu",
				       (unsigned long long)shapes[s].m,
				       (unsigned long long)i);
			}
			if (ret) {
				enoent++;
				ASSERT_EQ(0, memcmp(snap, f.mem,
						    kb_filter_mem(&f)));
				continue;
			}
			ok++;
			/* A false positive delete: the add undoes it. */
			for (j = 0; j < shapes[s].k; j++) {
				u32 c = ctr(&f, pos[j]);
				u32 was = ((const u32 *)snap)[pos[j] /
					(32 / shapes[s].bits)] >>
					(pos[j] % (32 / shapes[s].bits) *
					 shapes[s].bits) & max;

				ASSERT_TRUE(was == max ? c == max : c < was);
			}
			/* Counters below max come back exactly. */
			kb_filter_add(&f, key, sizeof(key));
			ASSERT_EQ(0, memcmp(snap, f.mem, kb_filter_mem(&f)));
		}
		kb_diag("m=%llu k=%u %u-bit, %llu keys: %llu deletes refused, %llu false-positive deletes",
			(unsigned long long)shapes[s].m, shapes[s].k,
			shapes[s].bits, (unsigned long long)shapes[s].present,
			(unsigned long long)enoent, (unsigned long long)ok);
		EXPECT_LT(0, enoent);
		free(snap);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * Merge: OR adds counters (saturating at max), AND keeps the smaller;
 * checked counter by counter against the two inputs, for 4-bit counters
 * where sums saturate. Without saturation, OR equals adding both key sets
 * to one filter. union_fill counts counters non-zero in either.
 */
TEST(merge_semantics)
{
	static const u32 bits[] = { 4, 8, 16 };
	const u64 m = 5003;
	size_t b;

	for (b = 0; b < ARRAY_SIZE(bits); b++) {
		u32 max = (1U << bits[b]) - 1;
		struct kb_filter x, y, o, a, both;
		u64 i, uf = 0, sat = 0, got;
		struct kb_fill fl;
		u8 key[9];

		ASSERT_EQ(0, cinit(&x, m, 3, bits[b], 0, hkey_a));
		ASSERT_EQ(0, cinit(&y, m, 3, bits[b], 0, hkey_a));
		ASSERT_EQ(0, cinit(&o, m, 3, bits[b], 0, hkey_a));
		ASSERT_EQ(0, cinit(&a, m, 3, bits[b], 0, hkey_a));
		ASSERT_EQ(0, cinit(&both, m, 3, bits[b], 0, hkey_a));
		/* x: keys 0..11999, y: 6000..17999 (half shared). */
		for (i = 0; i < 18000; i++) {
			key_of(key, 13, i);
			if (i < 12000)
				kb_filter_add(&x, key, sizeof(key));
			if (i >= 6000)
				kb_filter_add(&y, key, sizeof(key));
			kb_filter_add(&both, key, sizeof(key));
			if (i >= 6000 && i < 12000)
				kb_filter_add(&both, key, sizeof(key));
		}
		memcpy(o.mem, x.mem, kb_filter_mem(&x));
		memcpy(a.mem, x.mem, kb_filter_mem(&x));
		ASSERT_EQ(0, kb_filter_merge(&o, &y, KBLOOM_MERGE_OR));
		ASSERT_EQ(0, kb_filter_merge(&a, &y, KBLOOM_MERGE_AND));
		for (i = 0; i < m; i++) {
			u32 cx = ctr(&x, i), cy = ctr(&y, i);

			ASSERT_EQ(cx + cy > max ? max : cx + cy, ctr(&o, i));
			ASSERT_EQ(cx < cy ? cx : cy, ctr(&a, i));
			uf += cx || cy;
			sat += cx + cy >= max;
		}
		ASSERT_EQ(0, kb_filter_union_fill(&x, &y, &got));
		EXPECT_EQ(uf, got);
		fl = fill_of(&o);
		EXPECT_EQ(uf, fl.nonzero);
		EXPECT_EQ(sat, fl.saturated);
		if (!sat)
			EXPECT_EQ(0, memcmp(o.mem, both.mem, kb_filter_mem(&o)));
		/* Shared keys survive AND; the merge leaves y alone. */
		for (i = 6000; i < 12000; i++) {
			key_of(key, 13, i);
			ASSERT_TRUE(kb_filter_test(&a, key, sizeof(key)));
		}
		kb_diag("%u-bit: %llu counters non-zero in either, %llu sums saturated",
			bits[b], (unsigned long long)uf,
			(unsigned long long)sat);
		kb_filter_free(&x);
		kb_filter_free(&y);
		kb_filter_free(&o);
		kb_filter_free(&a);
		kb_filter_free(&both);
	}
	KB_ASSERT_NO_LEAKS();
}

TEST(merge_refusals)
{
	struct kb_filter x, y, z;
	u64 out;

	ASSERT_EQ(0, cinit(&x, 1024, 3, 4, 0, hkey_a));
	ASSERT_EQ(0, cinit(&y, 1024, 3, 4, 0, hkey_b));
	ASSERT_EQ(0, cinit(&z, 1024, 3, 8, 0, hkey_a));
	kb_filter_add(&y, "a", 1);
	kb_filter_add(&z, "a", 1);
	EXPECT_EQ(-EINVAL, kb_filter_merge(&x, &y, KBLOOM_MERGE_OR));
	EXPECT_EQ(-EINVAL, kb_filter_merge(&x, &z, KBLOOM_MERGE_OR));
	EXPECT_EQ(-EINVAL, kb_filter_merge(&x, &x, KBLOOM_MERGE_MAX + 1));
	EXPECT_EQ(-EINVAL, kb_filter_union_fill(&x, &z, &out));
	EXPECT_FALSE(kb_filter_test(&x, "a", 1));
	kb_filter_free(&x);
	kb_filter_free(&y);
	kb_filter_free(&z);
	KB_ASSERT_NO_LEAKS();
}

/*
 * False positive rate: the counting filter's probes are the bloom
 * filter's, so a query is positive exactly when it is positive in a
 * bloom filter of the same m, k, hash key and keys (checked query by
 * query), and the rate matches (1 - e^{-kn/m})^k within the 99.9% bound
 * of bloom_fpr_test.c (binomial sampling plus the spread of the fill).
 */
#define Z999	3.29
#define FPR_Q	400000

static double fill_var(double m, double N)
{
	double a = exp(N * log1p(-1 / m));
	double b = exp(N * log1p(-2 / m));
	double d = log1p(-2 / m) - 2 * log1p(-1 / m);
	double v = m * a + m * m * a * a * expm1(N * d) - m * b;

	return v / (m * m);
}

TEST(fpr_matches_bloom)
{
	static const struct {
		u32 ratio, k, bits, update;
	} cells[] = {
		{ 4, 3, 4, 0 }, { 8, 5, 4, 0 }, { 6, 4, 8, 1 }, { 10, 7, 16, 0 },
	};
	const u64 n = 50000;
	size_t c;

	for (c = 0; c < ARRAY_SIZE(cells); c++) {
		const u64 m = cells[c].ratio * n;
		double k = cells[c].k, t, fbar, slope, bound, meas, cond, cb;
		struct kb_shape bs = { .type = KBLOOM_TYPE_BLOOM, .m = m,
				       .k = cells[c].k };
		struct kb_filter f, g;
		struct kb_fill fl;
		struct kb_hash h;
		u64 i, pos = 0;
		u8 key[9];

		ASSERT_EQ(0, cinit(&f, m, cells[c].k, cells[c].bits,
				   cells[c].update, hkey_b));
		ASSERT_EQ(0, kb_filter_init(&g, &bs, hkey_b));
		for (i = 0; i < n; i++) {
			key_of(key, 14, i);
			kb_hash_key(&f.hkey, key, sizeof(key), &h);
			kb_filter_add_hash(&f, &h);
			kb_filter_add_hash(&g, &h);
		}
		for (i = 0; i < FPR_Q; i++) {
			bool p;

			key_of(key, 15, i);
			kb_hash_key(&f.hkey, key, sizeof(key), &h);
			p = kb_filter_test_hash(&f, &h);
			ASSERT_EQ(kb_filter_test_hash(&g, &h), p);
			pos += p;
		}
		fl = fill_of(&f);
		t = pow(-expm1(-k * n / m), k);
		fbar = -expm1(-k * n / m);
		slope = k * pow(fbar, k - 1);
		bound = Z999 * sqrt(t * (1 - t) / FPR_Q +
				    slope * slope * fill_var(m, k * n)) +
			0.5 / FPR_Q;
		cond = pow((double)fl.nonzero / m, k);
		cb = Z999 * sqrt(cond * (1 - cond) / FPR_Q) + 0.5 / FPR_Q;
		meas = (double)pos / FPR_Q;
		kb_diag("m/n=%u k=%u %u-bit %s: theory=%.5f measured=%.5f (+-%.5f) fill-conditional=%.5f (+-%.5f)",
			cells[c].ratio, cells[c].k, cells[c].bits,
			cells[c].update ? "conservative" : "plain", t, meas,
			bound, cond, cb);
		EXPECT_LE(fabs(meas - t), bound);
		EXPECT_LE(fabs(meas - cond), cb);
		kb_filter_free(&f);
		kb_filter_free(&g);
	}
	KB_ASSERT_NO_LEAKS();
}

TEST_HARNESS_MAIN
