// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The partitioned filter (kmod/engine/partitioned.c) on the host: its
 * shape rules, and probe positions exactly as uapi/kbloom.h defines them
 * (probe i at i * (m/k) + x_i, x_i the double-hashing walk over m/k),
 * against golden values from an independent implementation and against a
 * reference computed here in 128-bit arithmetic, including slices
 * narrower than k. What it shares with the other bit types (no false
 * negatives, clear, merges) is in bitops_test.c, concurrency in
 * concurrency_contract_test.c; its false positive rate in
 * bloom_fpr_test.c.
 */
#include <errno.h>
#include <math.h>

#include "kselftest_harness.h"
#include "kb_test.h"
#include "../../kmod/uapi/kbloom.h"

static const u8 key_a[16] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};

static struct kb_shape pshape(u64 m, u32 k)
{
	struct kb_shape s = { .type = KBLOOM_TYPE_PARTITIONED, .m = m, .k = k };

	return s;
}

static int pinit(struct kb_filter *f, u64 m, u32 k, const u8 hkey[16])
{
	struct kb_shape s = pshape(m, k);

	return kb_filter_init(f, &s, hkey);
}

static u64 fill_of(const struct kb_filter *f)
{
	struct kb_fill out;

	kb_filter_fill(f, &out);
	return out.nonzero;
}

/*
 * Probe i of a key with hash h1, straight from the ABI text: the walk over
 * s = m/k (kb_ref_probe: x + i y + (i^3 - i)/6 mod s in 128 bits, with
 * x = h1 s >> 64, y = mix64(h1) s >> 64), placed in slice i.
 */
static u64 ref_pos(u64 h1, u64 m, u32 k, u32 i)
{
	u64 s = m / k;

	return i * s + kb_ref_probe(h1, kb_ref_mix64(h1), s, i) % s;
}

TEST(shapes)
{
	static const struct {
		u64 m;
		u32 k;
		enum kb_shape_error err;
	} cases[] = {
		{ 1000, 3, KB_SHAPE_BAD_BITS },		/* not a multiple */
		{ 65, 2, KB_SHAPE_BAD_BITS },
		{ 64, 3, KB_SHAPE_BAD_BITS },
		{ 64, 5, KB_SHAPE_BAD_BITS },
		{ 1 << 20, 3, KB_SHAPE_BAD_BITS },
		{ KBLOOM_BITS_MAX, 3, KB_SHAPE_BAD_BITS },
		{ KBLOOM_BITS_MAX, 31, KB_SHAPE_BAD_BITS },
		{ 62, 2, KB_SHAPE_BAD_BITS },		/* below the minimum */
		{ KBLOOM_BITS_MAX + 2, 2, KB_SHAPE_BAD_BITS },
		{ 1000, 0, KB_SHAPE_BAD_HASHES },
		{ 1056, 33, KB_SHAPE_BAD_HASHES },
		{ 64, 1, KB_SHAPE_OK },
		{ 64, 2, KB_SHAPE_OK },
		{ 64, 32, KB_SHAPE_OK },		/* slices of 2 bits */
		{ 93, 31, KB_SHAPE_OK },		/* slices of 3 bits */
		{ 1000, 8, KB_SHAPE_OK },
		{ 1000003, 1, KB_SHAPE_OK },
		{ 3000, 5, KB_SHAPE_OK },
		{ KBLOOM_BITS_MAX, 32, KB_SHAPE_OK },
		{ KBLOOM_BITS_MAX - 2, 3, KB_SHAPE_OK },
	};
	struct kb_filter f;
	struct kb_shape s;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		s = pshape(cases[i].m, cases[i].k);
		EXPECT_EQ(cases[i].err, kb_filter_check_shape(&s)) {
			TH_LOG("m=%llu k=%u", (unsigned long long)cases[i].m,
			       cases[i].k);
		}
		if (cases[i].err != KB_SHAPE_OK) {
			EXPECT_EQ(-EINVAL, kb_filter_init(&f, &s, key_a));
			EXPECT_EQ(NULL, f.mem);
			continue;
		}
		/* As many bytes as a plain filter of m bits. */
		EXPECT_EQ(BITS_TO_LONGS(cases[i].m) * sizeof(long),
			  kb_filter_mem_for(&s));
		if (cases[i].m > (1 << 20))
			continue;	/* not allocated here */
		ASSERT_EQ(0, kb_filter_init(&f, &s, key_a));
		EXPECT_EQ(BITS_TO_LONGS(cases[i].m), f.nwords);
		EXPECT_EQ(0, fill_of(&f));
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * Positions from an independent implementation of the ABI (Python:
 * SipHash-2-4, splitmix64 finaliser, multiply-shift, the walk taken
 * literally: x = (x + y) mod s, y = (y + i) mod s), hash key 00 01 .. 0f:
 * the engine must set exactly these bits, one per slice.
 */
static const struct {
	const char *key;
	size_t len;
	u64 m;
	u32 k;
	u64 h1;
	u64 pos[32];
} golden[] = {
	{ "kbloom", 6, 1000006, 7, 0x2548790dd56ee45eULL,
	  { 20805, 149882, 421818, 550898, 679981, 809068, 938160 } },
	{ "", 0, 64, 32, 0x726fdb47dd0e0e31ULL,
	  { 0, 3, 5, 7, 8, 11, 13, 15, 16, 19, 21, 23, 24, 27, 29, 31,
	    32, 35, 37, 39, 40, 43, 45, 47, 48, 51, 53, 55, 56, 59, 61, 63 } },
	{ "\x0a\x00\x00\x01", 4, 1 << 20, 4, 0x6d8a377bc13a1631ULL,
	  { 112168, 372098, 632029, 891962 } },
	{ "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 100,
	  1ULL << 33, 8, 0xb34ec2a20e21f636ULL,
	  { 752070824ULL, 1099032737ULL, 2519736475ULL, 3940440215ULL,
	    5361143958ULL, 5708105881ULL, 7128809633ULL, 8549513391ULL } },
	{ "partitioned", 11, 93, 31, 0x52701b48e5049102ULL,
	  { 0, 5, 8, 10, 12, 15, 20, 22, 25, 27, 32, 35, 37, 39, 42, 47,
	    49, 52, 54, 59, 62, 64, 66, 69, 74, 76, 79, 81, 86, 89, 91 } },
	{ "seed002", 7, 3000, 5, 0x8907c801b4a458ddULL,
	  { 321, 1187, 1454, 2323, 2595 } },
};

TEST(golden_positions)
{
	siphash_key_t hk;
	struct kb_filter f;
	struct kb_hash h;
	size_t g;
	u32 i;

	siphash_key_from_bytes(&hk, key_a);
	for (g = 0; g < ARRAY_SIZE(golden); g++) {
		kb_hash_key(&hk, golden[g].key, golden[g].len, &h);
		EXPECT_EQ(golden[g].h1, h.h1);
		for (i = 0; i < golden[g].k; i++)
			EXPECT_EQ(golden[g].pos[i],
				  ref_pos(h.h1, golden[g].m, golden[g].k, i));
		if (golden[g].m > (1 << 20))
			continue;	/* 1 GiB: positions only */

		ASSERT_EQ(0, pinit(&f, golden[g].m, golden[g].k, key_a));
		EXPECT_FALSE(kb_filter_test(&f, golden[g].key, golden[g].len));
		EXPECT_TRUE(kb_filter_add(&f, golden[g].key, golden[g].len));
		for (i = 0; i < golden[g].k; i++)
			EXPECT_TRUE(test_bit(golden[g].pos[i], f.mem)) {
				TH_LOG("golden %zu probe %u", g, i);
			}
		/* One bit per slice, so always exactly k. */
		EXPECT_EQ(golden[g].k, fill_of(&f));
		EXPECT_TRUE(kb_filter_test(&f, golden[g].key, golden[g].len));
		EXPECT_FALSE(kb_filter_add(&f, golden[g].key, golden[g].len));
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * Every key sets exactly one bit in each slice, for every k and slice
 * widths from 2 bits up (where y + i wraps around the slice more than
 * once), odd and even.
 */
TEST(one_bit_per_slice)
{
	struct kb_filter f;
	u32 k, i;
	u64 key;

	for (k = 1; k <= KBLOOM_HASHES_MAX; k++) {
		const u64 widths[] = { 2, 3, 5, 64, 1000, 4099 };
		size_t w;

		for (w = 0; w < ARRAY_SIZE(widths); w++) {
			const u64 s = widths[w], m = s * k;

			if (m < KBLOOM_BITS_MIN)
				continue;
			ASSERT_EQ(0, pinit(&f, m, k, key_a));
			for (key = 0; key < 50; key++) {
				kb_filter_clear(&f);
				ASSERT_TRUE(kb_filter_add(&f, &key, sizeof(key)));
				for (i = 0; i < k; i++) {
					u64 lo = i * s, b, n = 0;

					for (b = lo; b < lo + s; b++)
						n += test_bit(b, f.mem);
					ASSERT_EQ(1, n) {
						TH_LOG("m=%llu k=%u slice %u",
						       (unsigned long long)m, k,
						       i);
					}
				}
			}
			kb_filter_free(&f);
		}
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * The engine's bit array equals a bitmap built from the ABI definition
 * for many keys and shapes: what bloomctl needs to compute positions
 * offline.
 */
TEST(offline_positions_match)
{
	static const struct {
		u64 m;
		u32 k;
		size_t n;
	} shapes[] = {
		{ 64, 32, 3 }, { 93, 31, 3 }, { 96, 32, 2 }, { 1000, 8, 50 },
		{ 3000, 5, 1500 }, { 1000006, 7, 50000 }, { 4999 * 13, 13, 500 },
		{ 1 << 20, 1, 100000 }, { 3 << 20, 3, 100000 },
	};
	struct kb_rng r;
	size_t s;

	kb_rng_seed(&r, 31);
	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		unsigned long *ref;
		siphash_key_t hk;
		struct kb_filter f;
		u8 hkey[16], key[64];
		u64 set = 0;
		size_t i;
		u32 j;

		kb_rng_bytes(&r, hkey, sizeof(hkey));
		ASSERT_EQ(0, pinit(&f, shapes[s].m, shapes[s].k, hkey));
		ref = calloc(f.nwords, sizeof(*ref));
		ASSERT_NE(NULL, ref);
		siphash_key_from_bytes(&hk, hkey);
		for (i = 0; i < shapes[s].n; i++) {
			size_t len = 1 + kb_rng_below(&r, sizeof(key));
			u64 h1;

			kb_rng_bytes(&r, key, len);
			h1 = siphash(key, len, &hk);
			kb_filter_add(&f, key, len);
			for (j = 0; j < shapes[s].k; j++) {
				u64 pos = ref_pos(h1, shapes[s].m, shapes[s].k,
						  j);

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
		free(ref);
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * The slices fill evenly: after n keys each slice of s bits holds about
 * s (1 - (1 - 1/s)^n) set bits (+- 5 sd of the occupancy count).
 */
TEST(slices_fill_evenly)
{
	const u64 n = 20000, k = 8, s = 25000, m = s * k;
	double expect, sd, a, b;
	struct kb_filter f;
	u64 i, lo, bit;

	ASSERT_EQ(0, pinit(&f, m, k, key_a));
	for (i = 0; i < n; i++)
		kb_filter_add(&f, &i, sizeof(i));
	a = exp(n * log1p(-1.0 / s));
	b = exp(n * log1p(-2.0 / s));
	expect = s * (1 - a);
	sd = sqrt(s * a + s * (s - 1) * b - s * s * a * a);
	for (i = 0; i < k; i++) {
		u64 c = 0;

		for (lo = i * s, bit = lo; bit < lo + s; bit++)
			c += test_bit(bit, f.mem);
		EXPECT_LT(fabs(c - expect), 5 * sd) {
			TH_LOG("slice %llu: %llu bits set, expected %.0f +- %.0f",
			       (unsigned long long)i, (unsigned long long)c,
			       expect, sd);
		}
	}
	kb_filter_free(&f);
	KB_ASSERT_NO_LEAKS();
}

TEST_HARNESS_MAIN
