// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The plain Bloom filter engine (kmod/engine/filter.c), compiled for the
 * host: shape checks, memory and fill accounting, no false negatives, clear,
 * keying and reproducibility, and the probe positions the ABI promises (so
 * bloomctl can compute them offline).
 */
#include <errno.h>
#include <math.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "../../kmod/engine/bloom.h"
#include "../../kmod/uapi/kbloom.h"

static const u8 key_a[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};
static const u8 key_b[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x8f,	/* one bit apart */
};

static u64 popcount_words(const struct kb_filter *f)
{
	u64 w, n = 0;

	for (w = 0; w < f->nwords; w++)
		n += __builtin_popcountl(f->mem[w]);
	return n;
}

static struct kb_shape shape(u32 type, u64 m, u32 k)
{
	struct kb_shape s = { .type = type, .m = m, .k = k };

	return s;
}

/* A bloom filter of m bits and k probes. */
static int bloom_init(struct kb_filter *f, u64 m, u32 k, const u8 hkey[16])
{
	struct kb_shape s = shape(KBLOOM_TYPE_BLOOM, m, k);

	return kb_filter_init(f, &s, hkey);
}

static u64 fill_of(const struct kb_filter *f)
{
	struct kb_fill out;

	kb_filter_fill(f, &out);
	return out.nonzero;
}

/* No bit at or past m is ever set (kb_filter_fill counts whole words). */
static bool tail_clear(const struct kb_filter *f)
{
	if (f->s.m % BITS_PER_LONG == 0)
		return true;
	return !(f->mem[f->nwords - 1] >> (f->s.m % BITS_PER_LONG));
}

TEST(init_rejects_bad_shapes)
{
	static const struct {
		u32 type;
		u64 m;
		u32 k;
		enum kb_shape_error err;
	} bad[] = {
		{ KBLOOM_TYPE_UNSPEC, 1024, 4, KB_SHAPE_BAD_TYPE },
		{ __KBLOOM_TYPE_MAX, 1024, 4, KB_SHAPE_BAD_TYPE },
		{ UINT32_MAX, 1024, 4, KB_SHAPE_BAD_TYPE },
		{ KBLOOM_TYPE_UNSPEC, 0, 0, KB_SHAPE_BAD_TYPE },
		{ KBLOOM_TYPE_BLOOM, 0, 4, KB_SHAPE_BAD_BITS },
		{ KBLOOM_TYPE_BLOOM, KBLOOM_BITS_MIN - 1, 4, KB_SHAPE_BAD_BITS },
		{ KBLOOM_TYPE_BLOOM, KBLOOM_BITS_MAX + 1, 4, KB_SHAPE_BAD_BITS },
		{ KBLOOM_TYPE_BLOOM, UINT64_MAX, 4, KB_SHAPE_BAD_BITS },
		{ KBLOOM_TYPE_BLOOM, 0, 0, KB_SHAPE_BAD_BITS },
		{ KBLOOM_TYPE_BLOOM, 1024, 0, KB_SHAPE_BAD_HASHES },
		{ KBLOOM_TYPE_BLOOM, 1024, KBLOOM_HASHES_MAX + 1,
		  KB_SHAPE_BAD_HASHES },
		{ KBLOOM_TYPE_BLOOM, 1024, UINT32_MAX, KB_SHAPE_BAD_HASHES },
	};
	struct kb_filter f;
	size_t i;

	struct kb_shape s;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		s = shape(bad[i].type, bad[i].m, bad[i].k);
		EXPECT_EQ(bad[i].err, kb_filter_check_shape(&s)) {
			TH_LOG("shape %zu", i);
		}
		EXPECT_EQ(-EINVAL, kb_filter_init(&f, &s, key_a)) {
			TH_LOG("shape %zu", i);
		}
	}
	/* The limits themselves are fine. */
	s = shape(KBLOOM_TYPE_BLOOM, KBLOOM_BITS_MIN, 1);
	EXPECT_EQ(KB_SHAPE_OK, kb_filter_check_shape(&s));
	s = shape(KBLOOM_TYPE_BLOOM, KBLOOM_BITS_MAX, KBLOOM_HASHES_MAX);
	EXPECT_EQ(KB_SHAPE_OK, kb_filter_check_shape(&s));
	ASSERT_EQ(0, bloom_init(&f, KBLOOM_BITS_MIN, 1, key_a));
	kb_filter_free(&f);
	ASSERT_EQ(0, bloom_init(&f, KBLOOM_BITS_MIN, KBLOOM_HASHES_MAX, key_a));
	kb_filter_free(&f);
	EXPECT_EQ(NULL, f.mem);
	KB_ASSERT_NO_LEAKS();
}

TEST(init_state)
{
	struct kb_filter f;

	memset(&f, 0xa5, sizeof(f));
	ASSERT_EQ(0, bloom_init(&f, 1000, 7, key_a));
	EXPECT_EQ(KBLOOM_TYPE_BLOOM, f.s.type);
	EXPECT_EQ(1000, f.s.m);
	EXPECT_EQ(7, f.s.k);
	EXPECT_EQ(16, f.nwords);
	/* Key bytes are two little-endian words, as the ABI says. */
	EXPECT_EQ(0x0706050403020100ULL, f.hkey.key[0]);
	EXPECT_EQ(0x0f0e0d0c0b0a0908ULL, f.hkey.key[1]);
	EXPECT_EQ(0, popcount_words(&f));
	EXPECT_EQ(0, fill_of(&f));
	EXPECT_FALSE(kb_filter_test(&f, "x", 1));
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

TEST(mem_values)
{
	static const struct {
		u64 m;
		u64 bytes;
	} cases[] = {
		{ 64, 8 }, { 65, 16 }, { 127, 16 }, { 128, 16 }, { 129, 24 },
		{ 1000, 128 }, { 1 << 20, 1 << 17 }, { 1000003, 125008 },
		{ KBLOOM_BITS_MAX, KBLOOM_BITS_MAX / 8 },
	};
	struct kb_filter f;
	size_t i;
	u32 k;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (k = 1; k <= KBLOOM_HASHES_MAX; k += 7) {
			struct kb_shape s = shape(KBLOOM_TYPE_BLOOM, cases[i].m,
						  k);

			EXPECT_EQ(cases[i].bytes, kb_filter_mem_for(&s));
		}
		if (cases[i].m > (1 << 20))
			continue;	/* not allocated here */
		ASSERT_EQ(0, bloom_init(&f, cases[i].m, 3, key_a));
		EXPECT_EQ(cases[i].bytes, kb_filter_mem(&f));
		EXPECT_EQ(cases[i].bytes, f.nwords * sizeof(unsigned long));
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * kb_filter_fill counts every set cell, including the first and last and
 * those at the engine's 1 MiB (2^23-bit) step boundaries: set bits by hand
 * (never past m, as the engine guarantees), then clear a few.
 */
TEST(fill_counts_every_cell)
{
	const u64 step = 1ULL << 23;
	const u64 sizes[] = { 64, 100, 128, 1000, step, step + 69,
			      3 * step };
	struct kb_filter f;
	size_t s, j;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		const u64 m = sizes[s];
		const u64 holes[] = { 0, 1, 63, 64, m / 2, step - 1, step,
				      2 * step - 1, 2 * step, m - 2, m - 1 };
		u64 cleared = 0, b;

		ASSERT_EQ(0, bloom_init(&f, m, 1, key_a));
		for (b = 0; b < m; b++)
			set_bit(b, f.mem);
		EXPECT_TRUE(tail_clear(&f));
		EXPECT_EQ(m, fill_of(&f));
		for (j = 0; j < ARRAY_SIZE(holes); j++) {
			if (holes[j] >= m || !test_bit(holes[j], f.mem))
				continue;
			f.mem[holes[j] / 64] &= ~(1UL << (holes[j] % 64));
			cleared++;
		}
		EXPECT_EQ(m - cleared, fill_of(&f)) {
			TH_LOG("m=%llu", (unsigned long long)m);
		}
		kb_filter_clear(&f);
		EXPECT_EQ(0, fill_of(&f));
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * Positions from an independent implementation of the ABI (Python:
 * SipHash-2-4, splitmix64 finaliser, multiply-shift, x + i y + (i^3-i)/6),
 * hash key 00 01 .. 0f: the engine must set exactly these bits.
 */
static const struct {
	const char *key;
	size_t len;
	u64 m;
	u32 k;
	u64 h1;
	u64 pos[10];
} golden[] = {
	{ "kbloom", 6, 1000003, 7, 0x2548790dd56ee45eULL,
	  { 145637, 49176, 952719, 856261, 759806, 663355, 566909 } },
	{ "", 0, 64, 5, 0x726fdb47dd0e0e31ULL, { 28, 8, 53, 36, 22 } },
	{ "\x0a\x00\x00\x01", 4, 1 << 20, 4, 0x6d8a377bc13a1631ULL,
	  { 448675, 439820, 430966, 422114 } },
	{ "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 100,
	  1ULL << 33, 10, 0xb34ec2a20e21f636ULL,
	  { 6016566596ULL, 202327310ULL, 2978022617ULL, 5753717926ULL,
	    8529413238ULL, 2715173962ULL, 5490869283ULL, 8266564610ULL,
	    2452325352ULL, 5228020694ULL } },
};

TEST(golden_positions)
{
	siphash_key_t hk;
	struct kb_filter f;
	struct kb_probe p;
	struct kb_hash h;
	size_t g;
	u32 i;

	siphash_key_from_bytes(&hk, key_a);
	for (g = 0; g < ARRAY_SIZE(golden); g++) {
		kb_hash_key(&hk, golden[g].key, golden[g].len, &h);
		EXPECT_EQ(golden[g].h1, h.h1);
		kb_probe_init(&p, &h, golden[g].m);
		for (i = 0; i < golden[g].k; i++)
			EXPECT_EQ(golden[g].pos[i], kb_probe_next(&p));
		if (golden[g].m > (1 << 20))
			continue;	/* 1 GiB: positions only */

		ASSERT_EQ(0, bloom_init(&f, golden[g].m, golden[g].k, key_a));
		EXPECT_TRUE(kb_filter_add(&f, golden[g].key, golden[g].len));
		for (i = 0; i < golden[g].k; i++)
			EXPECT_TRUE(test_bit(golden[g].pos[i], f.mem));
		EXPECT_EQ(golden[g].k, fill_of(&f));	/* distinct */
		EXPECT_EQ(golden[g].k, popcount_words(&f));
		EXPECT_TRUE(kb_filter_test(&f, golden[g].key, golden[g].len));
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * The engine's bit array equals a bitmap built independently from the ABI
 * definition (userspace SipHash + the 128-bit reference formula), for many
 * keys and sizes that are not multiples of 64: what bloomctl relies on to
 * compute positions offline.
 */
TEST(offline_positions_match)
{
	static const struct {
		u64 m;
		u32 k;
		size_t n;
	} shapes[] = {
		{ 64, 3, 5 }, { 1000, 7, 100 }, { 1000003, 7, 50000 },
		{ 4999, KBLOOM_HASHES_MAX, 100 }, { 1 << 20, 1, 200000 },
	};
	struct keyset ks;
	size_t s;

	ASSERT_EQ(0, keyset_make(&ks, 200000, 11));
	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		unsigned long *ref;
		siphash_key_t hk;
		struct kb_filter f;
		u64 set = 0;
		size_t i;
		u32 j;

		ASSERT_EQ(0, bloom_init(&f, shapes[s].m, shapes[s].k, key_b));
		ref = calloc(f.nwords, sizeof(*ref));
		ASSERT_NE(NULL, ref);
		siphash_key_from_bytes(&hk, key_b);
		for (i = 0; i < shapes[s].n; i++) {
			size_t len;
			const u8 *key = keyset_key(&ks, i, &len);
			u64 h1 = siphash(key, len, &hk);

			kb_filter_add(&f, key, len);
			for (j = 0; j < shapes[s].k; j++) {
				u64 pos = kb_ref_probe(h1, kb_ref_mix64(h1),
						       shapes[s].m, j);

				ref[pos / 64] |= 1UL << (pos % 64);
			}
		}
		for (i = 0; i < f.nwords; i++)
			set += __builtin_popcountl(ref[i]);
		EXPECT_EQ(0, memcmp(ref, f.mem, f.nwords * sizeof(*ref))) {
			TH_LOG("m=%llu k=%u: bit arrays differ",
			       (unsigned long long)shapes[s].m, shapes[s].k);
		}
		EXPECT_EQ(set, fill_of(&f));
		EXPECT_TRUE(tail_clear(&f));
		free(ref);
		kb_filter_free(&f);
	}
	keyset_free(&ks);
	KB_ASSERT_NO_LEAKS();
}

/*
 * A filter larger than the caches (more than 16 MiB: kb_filter_add() and
 * kb_filter_test() ask for a key's lines before reading them) sets the
 * bits of the uapi's rule and answers as the batches' path does, for keys
 * that take the fast walk and, with hashes made for it (y0 = m - 1), for
 * keys that take the general one.
 */
TEST(far_filter_paths_agree)
{
	static const u32 ks[] = { 1, 7, KBLOOM_HASHES_MAX };
	const u64 m = (1ULL << 28) + 192;	/* 32 MiB and 3 words */
	const size_t n = 20000;
	struct keyset ks_present, ks_other;	/* may share short keys */
	size_t s;

	ASSERT_EQ(0, keyset_make(&ks_present, n, 21));
	ASSERT_EQ(0, keyset_make(&ks_other, n, 22));
	for (s = 0; s < ARRAY_SIZE(ks); s++) {
		struct kb_filter f;
		unsigned long *ref;
		siphash_key_t hk;
		struct kb_hash h;
		u64 hits = 0;
		size_t i;
		u32 j;

		ASSERT_EQ(0, bloom_init(&f, m, ks[s], key_a));
		ASSERT_GT(f.nwords * sizeof(long), 16ULL << 20);
		ref = calloc(f.nwords, sizeof(*ref));
		ASSERT_NE(NULL, ref);
		siphash_key_from_bytes(&hk, key_a);
		for (i = 0; i < n; i++) {
			size_t len;
			const u8 *key = keyset_key(&ks_present, i, &len);
			u64 h1 = siphash(key, len, &hk);
			bool before = kb_filter_test(&f, key, len);

			ASSERT_EQ(!before, kb_filter_add(&f, key, len));
			for (j = 0; j < ks[s]; j++) {
				u64 pos = kb_ref_probe(h1, kb_ref_mix64(h1), m, j);

				ref[pos / 64] |= 1UL << (pos % 64);
			}
		}
		/* y0 = m - 1: the general walk, through the far entries */
		for (i = 0; i < 64; i++) {
			h.h1 = (u64)i * 0x9e3779b97f4a7c15ULL;
			h.h2 = UINT64_MAX;
			ASSERT_EQ(!__kb_bloom_test_far(&f, &h),
				  __kb_bloom_add_far(&f, &h));
			ASSERT_TRUE(__kb_bloom_test_far(&f, &h));
			for (j = 0; j < ks[s]; j++) {
				u64 pos = kb_ref_probe(h.h1, h.h2, m, j);

				ref[pos / 64] |= 1UL << (pos % 64);
			}
		}
		EXPECT_EQ(0, memcmp(ref, f.mem, f.nwords * sizeof(*ref))) {
			TH_LOG("k=%u: bit arrays differ", ks[s]);
		}
		/* Other keys: the answer of the reference bits, on both paths. */
		for (i = 0; i < n; i++) {
			size_t len;
			const u8 *key = keyset_key(&ks_present, i, &len);
			bool want = true;
			u64 h1;

			ASSERT_TRUE(kb_filter_test(&f, key, len));
			key = keyset_key(&ks_other, i, &len);
			h1 = siphash(key, len, &hk);
			for (j = 0; j < ks[s]; j++) {
				u64 pos = kb_ref_probe(h1, kb_ref_mix64(h1), m, j);

				want &= (ref[pos / 64] >> (pos % 64)) & 1;
			}
			kb_filter_hash(&f, key, len, &h);
			ASSERT_EQ(want, kb_filter_test(&f, key, len));
			ASSERT_EQ(want, kb_filter_test_hash(&f, &h));
			ASSERT_EQ(want, __kb_bloom_test_far(&f, &h));
			hits += want;
		}
		kb_diag("k=%u: %llu of %zu other keys test present", ks[s],
			(unsigned long long)hits, n);
		free(ref);
		kb_filter_free(&f);
	}
	keyset_free(&ks_present);
	keyset_free(&ks_other);
	KB_ASSERT_NO_LEAKS();
}

/*
 * 100k random keys of 1..64 bytes: every one tests present after the
 * adds; add reports "fresh" exactly when a test just before would have
 * said absent, and never for a key already added.
 */
TEST(no_false_negatives)
{
	const size_t n = 100000;
	struct kb_filter f, g;
	struct keyset ks;
	u64 fresh = 0;
	size_t i;

	ASSERT_EQ(0, keyset_make(&ks, n, 12));
	ASSERT_EQ(0, bloom_init(&f, 10 * n, 7, key_a));
	ASSERT_EQ(0, bloom_init(&g, 10 * n, 7, key_a));
	for (i = 0; i < n; i++) {
		size_t len;
		const u8 *key = keyset_key(&ks, i, &len);
		bool before = kb_filter_test(&f, key, len);
		bool added = kb_filter_add(&f, key, len);
		struct kb_hash h;

		ASSERT_EQ(!before, added);
		fresh += added;
		ASSERT_TRUE(kb_filter_test(&f, key, len));
		/* The pre-hashed entry points do the same. */
		kb_hash_key(&g.hkey, key, len, &h);
		ASSERT_EQ(added, kb_filter_add_hash(&g, &h));
		ASSERT_TRUE(kb_filter_test_hash(&g, &h));
	}
	for (i = 0; i < n; i++) {
		size_t len;
		const u8 *key = keyset_key(&ks, i, &len);

		ASSERT_TRUE(kb_filter_test(&f, key, len));
		ASSERT_FALSE(kb_filter_add(&f, key, len));
	}
	EXPECT_EQ(0, memcmp(f.mem, g.mem, kb_filter_mem(&f)));
	/* At m/n = 10, k = 7 about 0.8% of adds find all bits already set. */
	kb_diag("%llu of %zu adds were fresh, fill %llu of %llu",
		(unsigned long long)fresh, n,
		(unsigned long long)fill_of(&f),
		(unsigned long long)f.s.m);
	EXPECT_GT(fresh, n * 98 / 100);
	EXPECT_TRUE(tail_clear(&f));
	kb_filter_free(&f);
	kb_filter_free(&g);
	keyset_free(&ks);
	KB_ASSERT_NO_LEAKS();
}

TEST(key_lengths_zero_to_max)
{
	static u8 big[KBLOOM_KEY_MAX + 1];
	struct kb_filter f;
	size_t len;

	ASSERT_EQ(0, bloom_init(&f, 1 << 16, 5, key_a));
	for (len = 0; len < sizeof(big); len++)
		big[len] = (u8)(len * 31);
	/* Every prefix of a 1 KiB key is a different key. */
	for (len = 0; len <= KBLOOM_KEY_MAX; len++)
		kb_filter_add(&f, big, len);
	for (len = 0; len <= KBLOOM_KEY_MAX; len++) {
		ASSERT_TRUE(kb_filter_test(&f, big, len));
		ASSERT_FALSE(kb_filter_add(&f, big, len));
	}
	/* 1025 keys, k = 5, m = 2^16: the fill is 1025 * 5 less collisions. */
	EXPECT_GT(fill_of(&f), 1025 * 5 * 95 / 100);
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

/*
 * Clear empties the filter, including a last partial chunk (the engine
 * works in 1 MiB steps) and keeps shape and hash key: the same adds then
 * give the same bits again.
 */
TEST(clear_empties)
{
	const u64 m = 3 * (8ULL << 20) + 12345;	/* 3 MiB and a bit */
	const size_t n = 300000;
	struct kb_filter f;
	unsigned long *copy;
	struct keyset ks;
	u64 fill;
	size_t i;

	ASSERT_EQ(0, keyset_make(&ks, n, 13));
	ASSERT_EQ(0, bloom_init(&f, m, 4, key_a));
	for (i = 0; i < n; i++) {
		size_t len;
		const u8 *key = keyset_key(&ks, i, &len);

		kb_filter_add(&f, key, len);
	}
	fill = fill_of(&f);
	EXPECT_EQ(popcount_words(&f), fill);
	/* Bits in the last (partial) 1 MiB chunk were counted. */
	EXPECT_NE(0, f.mem[f.nwords - 1] | f.mem[f.nwords - 2]);
	copy = malloc(kb_filter_mem(&f));
	ASSERT_NE(NULL, copy);
	memcpy(copy, f.mem, kb_filter_mem(&f));

	kb_filter_clear(&f);
	EXPECT_EQ(0, fill_of(&f));
	EXPECT_EQ(0, popcount_words(&f));
	EXPECT_EQ(m, f.s.m);
	EXPECT_EQ(4, f.s.k);
	for (i = 0; i < n; i++) {
		size_t len;
		const u8 *key = keyset_key(&ks, i, &len);

		ASSERT_FALSE(kb_filter_test(&f, key, len));
	}
	for (i = 0; i < n; i++) {
		size_t len;
		const u8 *key = keyset_key(&ks, i, &len);

		kb_filter_add(&f, key, len);
	}
	EXPECT_EQ(fill, fill_of(&f));
	EXPECT_EQ(0, memcmp(copy, f.mem, kb_filter_mem(&f)));
	free(copy);
	kb_filter_free(&f);
	keyset_free(&ks);
	KB_ASSERT_NO_LEAKS();
}

/*
 * Same hash key: identical bit arrays (reproducible, mergeable filters).
 * Hash keys one bit apart: different bit patterns, and each filter's set
 * bits are near-independent of the other's.
 */
TEST(keyed_reproducible)
{
	const u64 m = 1 << 20;
	const size_t n = 20000;
	struct kb_filter f1, f2, g;
	struct keyset ks;
	u64 both = 0, w;
	double fa, expect;
	size_t i;

	ASSERT_EQ(0, keyset_make(&ks, n, 14));
	ASSERT_EQ(0, bloom_init(&f1, m, 5, key_a));
	ASSERT_EQ(0, bloom_init(&f2, m, 5, key_a));
	ASSERT_EQ(0, bloom_init(&g, m, 5, key_b));
	for (i = 0; i < n; i++) {
		size_t len;
		const u8 *key = keyset_key(&ks, i, &len);

		kb_filter_add(&f1, key, len);
		kb_filter_add(&g, key, len);
	}
	/* f2 gets the same keys in reverse order. */
	for (i = n; i-- > 0;) {
		size_t len;
		const u8 *key = keyset_key(&ks, i, &len);

		kb_filter_add(&f2, key, len);
	}
	EXPECT_EQ(0, memcmp(f1.mem, f2.mem, kb_filter_mem(&f1)));
	EXPECT_NE(0, memcmp(f1.mem, g.mem, kb_filter_mem(&f1)));
	for (w = 0; w < f1.nwords; w++)
		both += __builtin_popcountl(f1.mem[w] & g.mem[w]);
	fa = (double)fill_of(&f1) / m;
	expect = fa * ((double)fill_of(&g) / m) * m;
	kb_diag("fill %llu / %llu, bits set under both keys %llu (independent: %.0f)",
		(unsigned long long)fill_of(&f1),
		(unsigned long long)fill_of(&g),
		(unsigned long long)both, expect);
	/* Independent keys overlap like independent arrays (+- 6 sigma). */
	EXPECT_LT(fabs(both - expect), 6 * sqrt(expect));
	kb_filter_free(&f1);
	kb_filter_free(&f2);
	kb_filter_free(&g);
	keyset_free(&ks);
	KB_ASSERT_NO_LEAKS();
}

/* Concurrent adds, for bloom as for every bit type: bitops_test.c. */

TEST_HARNESS_MAIN
