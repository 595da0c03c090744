// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The blocked filter (kmod/engine/blocked.c) on the host: its shape rules,
 * cache-line layout, and probe positions exactly as uapi/kbloom.h defines
 * them (block h1 * (m/512) >> 64; inside it x = h2 & 511, y = (h2 >> 9) |
 * 1, probe i = (x + i y) & 511), against golden values from an independent
 * implementation and a reference computed here. What it shares with the
 * other bit types (no false negatives, clear, merges) is in bitops_test.c,
 * concurrency in concurrency_contract_test.c; its false positive rate in
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

static struct kb_shape bshape(u64 m, u32 k)
{
	struct kb_shape s = { .type = KBLOOM_TYPE_BLOCKED, .m = m, .k = k };

	return s;
}

static int binit(struct kb_filter *f, u64 m, u32 k, const u8 hkey[16])
{
	struct kb_shape s = bshape(m, k);

	return kb_filter_init(f, &s, hkey);
}

static u64 fill_of(const struct kb_filter *f)
{
	struct kb_fill out;

	kb_filter_fill(f, &out);
	return out.nonzero;
}

/* Probe i of a key with hash h1, straight from the ABI text. */
static u64 ref_pos(u64 h1, u64 m, u32 i)
{
	u64 h2 = kb_ref_mix64(h1);
	u64 block = ((unsigned __int128)h1 * (m / 512)) >> 64;
	u64 x = h2 & 511, y = (h2 >> 9) | 1;

	return block * 512 + ((x + (unsigned __int128)i * y) & 511);
}

TEST(shapes)
{
	static const struct {
		u64 m;
		u32 k;
		enum kb_shape_error err;
	} cases[] = {
		{ 64, 4, KB_SHAPE_BAD_BITS },		/* not a multiple */
		{ 511, 4, KB_SHAPE_BAD_BITS },
		{ 513, 4, KB_SHAPE_BAD_BITS },
		{ 1000, 4, KB_SHAPE_BAD_BITS },
		{ 1024 + 64, 4, KB_SHAPE_BAD_BITS },
		{ (1 << 20) + 256, 4, KB_SHAPE_BAD_BITS },
		{ KBLOOM_BITS_MAX - 64, 4, KB_SHAPE_BAD_BITS },
		{ KBLOOM_BITS_MAX + 512, 4, KB_SHAPE_BAD_BITS },
		{ 0, 4, KB_SHAPE_BAD_BITS },
		{ 512, 0, KB_SHAPE_BAD_HASHES },
		{ 512, 33, KB_SHAPE_BAD_HASHES },
		{ 512, 1, KB_SHAPE_OK },		/* one block */
		{ 512, 32, KB_SHAPE_OK },
		{ 1536, 7, KB_SHAPE_OK },
		{ 512 * 1954, 7, KB_SHAPE_OK },
		{ 1 << 20, 8, KB_SHAPE_OK },
		{ KBLOOM_BITS_MAX, 32, KB_SHAPE_OK },
		{ KBLOOM_BITS_MAX - 512, 3, KB_SHAPE_OK },
	};
	struct kb_filter f;
	struct kb_shape s;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		s = bshape(cases[i].m, cases[i].k);
		EXPECT_EQ(cases[i].err, kb_filter_check_shape(&s)) {
			TH_LOG("m=%llu k=%u", (unsigned long long)cases[i].m,
			       cases[i].k);
		}
		if (cases[i].err != KB_SHAPE_OK) {
			EXPECT_EQ(-EINVAL, kb_filter_init(&f, &s, key_a));
			EXPECT_EQ(NULL, f.mem);
			continue;
		}
		EXPECT_EQ(cases[i].m / 8, kb_filter_mem_for(&s));
		if (cases[i].m > (1 << 20))
			continue;	/* not allocated here */
		ASSERT_EQ(0, kb_filter_init(&f, &s, key_a));
		EXPECT_EQ(cases[i].m / 512, f.nblocks);
		EXPECT_EQ(cases[i].m / 64, f.nwords);
		/* Every block is one cache line. */
		EXPECT_EQ(0, (uintptr_t)f.mem % 64);
		EXPECT_EQ(0, fill_of(&f));
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * Positions from an independent implementation of the ABI (Python:
 * SipHash-2-4, splitmix64 finaliser, the block and in-block rules taken
 * literally), hash key 00 01 .. 0f: the engine must set exactly these
 * bits.
 */
static const struct {
	const char *key;
	size_t len;
	u64 m;
	u32 k;
	u64 h1;
	u64 pos[32];
} golden[] = {
	{ "kbloom", 6, 1 << 20, 7, 0x2548790dd56ee45eULL,
	  { 152777, 153032, 152775, 153030, 152773, 153028, 152771 } },
	{ "", 0, 512, 32, 0x726fdb47dd0e0e31ULL,
	  { 77, 424, 259, 94, 441, 276, 111, 458, 293, 128, 475, 310, 145,
	    492, 327, 162, 509, 344, 179, 14, 361, 196, 31, 378, 213, 48,
	    395, 230, 65, 412, 247, 82 } },
	{ "\x0a\x00\x00\x01", 4, 512 * 1000, 4, 0x6d8a377bc13a1631ULL,
	  { 218628, 218895, 218650, 218917 } },
	{ "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", 100,
	  1ULL << 33, 10, 0xb34ec2a20e21f636ULL,
	  { 6016566753ULL, 6016566464ULL, 6016566687ULL, 6016566398ULL,
	    6016566621ULL, 6016566332ULL, 6016566555ULL, 6016566778ULL,
	    6016566489ULL, 6016566712ULL } },
	{ "blocked", 7, 3072, 5, 0xe266c9611811c991ULL,
	  { 2945, 2758, 2571, 2896, 2709 } },
	{ "seed002", 7, 1536, 1, 0x8907c801b4a458ddULL, { 753 } },
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
				  ref_pos(h.h1, golden[g].m, i));
		if (golden[g].m > (1 << 20))
			continue;	/* 1 GiB: positions only */

		ASSERT_EQ(0, binit(&f, golden[g].m, golden[g].k, key_a));
		EXPECT_FALSE(kb_filter_test(&f, golden[g].key, golden[g].len));
		EXPECT_TRUE(kb_filter_add(&f, golden[g].key, golden[g].len));
		for (i = 0; i < golden[g].k; i++)
			EXPECT_TRUE(test_bit(golden[g].pos[i], f.mem)) {
				TH_LOG("golden %zu probe %u", g, i);
			}
		/* Distinct probes: exactly k bits. */
		EXPECT_EQ(golden[g].k, fill_of(&f));
		EXPECT_TRUE(kb_filter_test(&f, golden[g].key, golden[g].len));
		EXPECT_FALSE(kb_filter_add(&f, golden[g].key, golden[g].len));
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * A key's k probes are distinct (y is odd) and all in one 512-bit line,
 * for every k; a test needs every one of them: clearing any single probe
 * bit makes the key absent.
 */
TEST(probes_in_one_line)
{
	struct kb_filter f;
	u64 key, w, b;
	u32 k;

	for (k = 1; k <= KBLOOM_HASHES_MAX; k++) {
		ASSERT_EQ(0, binit(&f, 512 * 64, k, key_a));
		for (key = 0; key < 40; key++) {
			u64 line = UINT64_MAX, n = 0;

			kb_filter_clear(&f);
			ASSERT_TRUE(kb_filter_add(&f, &key, sizeof(key)));
			ASSERT_EQ(k, fill_of(&f));
			for (w = 0; w < f.nwords; w++) {
				if (!f.mem[w])
					continue;
				if (line == UINT64_MAX)
					line = w / 8;
				ASSERT_EQ(line, w / 8);
			}
			for (b = line * 512; b < line * 512 + 512; b++) {
				if (!test_bit(b, f.mem))
					continue;
				n++;
				f.mem[b / 64] &= ~(1UL << (b % 64));
				ASSERT_FALSE(kb_filter_test(&f, &key, sizeof(key)));
				f.mem[b / 64] |= 1UL << (b % 64);
				ASSERT_TRUE(kb_filter_test(&f, &key, sizeof(key)));
			}
			ASSERT_EQ(k, n);
		}
		kb_filter_free(&f);
	}
	KB_ASSERT_NO_LEAKS();
}

/*
 * An add writes the probes a key still misses and nothing else, and says
 * so: with all of its probes but one set, it sets exactly that one and
 * returns true, whichever word of the line the missing one is in; with all
 * set it returns false and changes nothing.
 */
TEST(add_sets_only_missing_probes)
{
	static const u32 ks[] = { 1, 2, 7, 8, 9, 32 };
	u64 pos[KBLOOM_HASHES_MAX], key, other[8];
	struct kb_filter f;
	struct kb_hash h;
	size_t ki;
	u32 i;

	for (ki = 0; ki < ARRAY_SIZE(ks); ki++) {
		u32 k = ks[ki];

		ASSERT_EQ(0, binit(&f, 512 * 64, k, key_a));
		for (key = 0; key < 50; key++) {
			kb_hash_key(&f.hkey, &key, sizeof(key), &h);
			for (i = 0; i < k; i++)
				pos[i] = ref_pos(h.h1, f.s.m, i);
			for (i = 0; i <= k; i++) {
				u64 line = pos[0] / 512;

				/* The line's other bits set, so none is taken for a probe. */
				kb_filter_clear(&f);
				memset(&f.mem[line * 8], 0xff, 64);
				if (i < k)
					f.mem[pos[i] / 64] &= ~(1UL << (pos[i] % 64));
				memcpy(other, &f.mem[line * 8], sizeof(other));
				EXPECT_EQ(i < k, kb_filter_add(&f, &key, sizeof(key))) {
					TH_LOG("k=%u key %llu probe %u missing", k,
					       (unsigned long long)key, i);
				}
				if (i < k)
					other[pos[i] / 64 % 8] |= 1UL << (pos[i] % 64);
				ASSERT_EQ(0, memcmp(other, &f.mem[line * 8],
						    sizeof(other)));
				ASSERT_EQ(512, fill_of(&f));
			}
		}
		kb_filter_free(&f);
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
		{ 512, 32, 5 }, { 512, 3, 60 }, { 1536, 7, 100 },
		{ 512 * 1954, 7, 100000 }, { 512 * 4099, 16, 20000 },
		{ 1 << 20, 1, 100000 }, { 3 << 20, 4, 200000 },
	};
	struct kb_rng r;
	size_t s;

	kb_rng_seed(&r, 41);
	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		unsigned long *ref;
		siphash_key_t hk;
		struct kb_filter f;
		u8 hkey[16], key[64];
		u64 set = 0;
		size_t i;
		u32 j;

		kb_rng_bytes(&r, hkey, sizeof(hkey));
		ASSERT_EQ(0, binit(&f, shapes[s].m, shapes[s].k, hkey));
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
				u64 pos = ref_pos(h1, shapes[s].m, j);

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
 * Keys spread evenly over the blocks (chi-square over 256 blocks at the
 * 99.9% point) and over the bits inside them.
 */
TEST(blocks_uniform)
{
	const u64 nb = 256, n = 256 * 200;
	u64 *per_block, i, w;
	double x2 = 0, df = nb - 1, a = 2.0 / (9.0 * df), crit;
	struct kb_filter f;

	per_block = calloc(nb, sizeof(*per_block));
	ASSERT_NE(NULL, per_block);
	ASSERT_EQ(0, binit(&f, 512 * nb, 1, key_a));
	for (i = 0; i < n; i++) {
		siphash_key_t hk = f.hkey;
		u64 h1 = siphash(&i, sizeof(i), &hk);

		per_block[ref_pos(h1, f.s.m, 0) / 512]++;
		kb_filter_add(&f, &i, sizeof(i));
	}
	for (i = 0; i < nb; i++)
		x2 += (per_block[i] - 200.0) * (per_block[i] - 200.0) / 200.0;
	/* Wilson-Hilferty, z = 3.09 one-sided. */
	crit = df * pow(1.0 - a + 3.09 * sqrt(a), 3);
	kb_diag("chi-square %.1f over %llu blocks (99.9%% point %.1f)", x2,
		(unsigned long long)nb, crit);
	EXPECT_LT(x2, crit);
	/* j single probes in a line set 512 (1 - (1 - 1/512)^j) bits. */
	for (w = 0; w < nb; w++) {
		double j = per_block[w], c = 0;

		for (i = 0; i < 8; i++)
			c += __builtin_popcountl(f.mem[w * 8 + i]);
		EXPECT_LT(fabs(c - 512 * -expm1(j * log1p(-1.0 / 512))), 40);
	}
	kb_filter_free(&f);
	free(per_block);
	KB_ASSERT_NO_LEAKS();
}

TEST_HARNESS_MAIN
