// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * kmod/engine/siphash13.c, the SipHash-1-3 of filters created with
 * KBLOOM_HASH_FN_SIPHASH13, against two independent implementations:
 *
 * - the kernel's hsiphash(), which on 64-bit machines is SipHash-1-3
 *   truncated to 32 bits: its test vectors (lib/test_siphash.c, key
 *   00 01 .. 0f, message 00 01 .. len - 1) are the low halves of the
 *   table below;
 * - CPython's hash() of bytes, which is SipHash-1-3 with the full 64-bit
 *   output since Python 3.11 (Python/pyhash.c, sys.hash_info.algorithm
 *   "siphash13"; Debian 12's python3) under a key that PYTHONHASHSEED
 *   determines: compared live, on random messages, by running python3
 *   (another algorithm there fails the test, saying so).
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "kb_test.h"

/* Key 00 01 .. 0f, message 00 01 .. (len - 1), len = 0..63. */
static const u64 ref13[64] = {
	0xabac0158050fc4dcULL, 0xc9f49bf37d57ca93ULL, 0x82cb9b024dc7d44dULL,
	0x8bf80ab8e7ddf7fbULL, 0xcf75576088d38328ULL, 0xdef9d52f49533b67ULL,
	0xc50d2b50c59f22a7ULL, 0xd3927d989bb11140ULL, 0x369095118d299a8eULL,
	0x25a48eb36c063de4ULL, 0x79de85ee92ff097fULL, 0x70c118c1f94dc352ULL,
	0x78a384b157b4d9a2ULL, 0x306f760c1229ffa7ULL, 0x605aa111c0f95d34ULL,
	0xd320d86d2a519956ULL, 0xcc4fdd1a7d908b66ULL, 0x9cf2689063dbd80cULL,
	0x8ffc389cb473e63eULL, 0xf21f9de58d297d1cULL, 0xc0dc2f46a6cce040ULL,
	0xb992abfe2b45f844ULL, 0x7ffe7b9ba320872eULL, 0x525a0e7fdae6c123ULL,
	0xf464aeb267349c8cULL, 0x45cd5928705b0979ULL, 0x3a3e35e3ca9913a5ULL,
	0xa91dc74e4ade3b35ULL, 0xfb0bed02ef6cd00dULL, 0x88d93cb44ab1e1f4ULL,
	0x540f11d643c5e663ULL, 0x2370dd1f8c21d1bcULL, 0x81157b6c16a7b60dULL,
	0x4d54b9e57a8ff9bfULL, 0x759f12781f2a753eULL, 0xcea1a3bebf186b91ULL,
	0x2cf508d3ada26206ULL, 0xb6101c2da3c33057ULL, 0xb3f47496ae3a36a1ULL,
	0x626b57547b108392ULL, 0xc1d2363299e41531ULL, 0x667cc1923f1ad944ULL,
	0x65704ffec8138825ULL, 0x24f280d1c28949a6ULL, 0xc2ca1cedfaf8876bULL,
	0xc2164bfc9f042196ULL, 0xa16e9c9368b1d623ULL, 0x49fb169c8b5114fdULL,
	0x9f3143f8df074c46ULL, 0xc6fdaf2412cc86b3ULL, 0x7eaf49d10a52098fULL,
	0x1cf313559d292f9aULL, 0xc44a30dda2f41f12ULL, 0x36fae98943a71ed0ULL,
	0x318fb34c73f0bce6ULL, 0xa27abf3670a7e980ULL, 0xb4bcc0db243c6d75ULL,
	0x23f8d852fdb71513ULL, 0x8f035f4da67d8a08ULL, 0xd89cd0e5b7e8f148ULL,
	0xf6f4e6bcf7a644eeULL, 0xaec59ad80f1837f2ULL, 0xc3b2f6154b6694e0ULL,
	0x9d199062b7bbb3a8ULL,
};

/* The kernel's 64-bit hsiphash() vectors for the same key and messages. */
static const u32 kernel_hsiphash[8] = {
	0x050fc4dcU, 0x7d57ca93U, 0x4dc7d44dU, 0xe7ddf7fbU,
	0x88d38328U, 0x49533b67U, 0xc59f22a7U, 0x9bb11140U,
};

TEST(reference_vectors)
{
	siphash_key_t key;
	u8 msg[64];
	size_t len;

	kb_ref_key(&key);
	kb_ref_msg(msg);
	for (len = 0; len < 64; len++) {
		u64 h = kb_siphash13(msg, len, &key);

		if (h != ref13[len])
			TH_LOG("len %zu: got %016llx want %016llx", len,
			       (unsigned long long)h,
			       (unsigned long long)ref13[len]);
		EXPECT_EQ(ref13[len], h);
	}
	for (len = 0; len < ARRAY_SIZE(kernel_hsiphash); len++)
		EXPECT_EQ(kernel_hsiphash[len], (u32)ref13[len]);
}

/* Another function than SipHash-2-4 under the same key. */
TEST(not_siphash24)
{
	siphash_key_t key;
	u8 msg[64];
	size_t len;

	kb_ref_key(&key);
	kb_ref_msg(msg);
	for (len = 0; len < 64; len++)
		EXPECT_NE(siphash(msg, len, &key), kb_siphash13(msg, len, &key));
}

TEST(any_alignment)
{
	u8 buf[300 + 8], ref[300];
	siphash_key_t key;
	size_t len, off;

	kb_ref_key(&key);
	for (len = 0; len < sizeof(ref); len++)
		ref[len] = (u8)(len * 7 + 3);
	for (len = 0; len <= sizeof(ref); len += 13) {
		u64 want = kb_siphash13(ref, len, &key);

		for (off = 1; off < 8; off++) {
			memcpy(buf + off, ref, len);
			EXPECT_EQ(want, kb_siphash13(buf + off, len, &key));
		}
	}
}

/* CPython's key for PYTHONHASHSEED=@seed (Python/bootstrap_hash.c). */
static void cpython_key(unsigned int seed, siphash_key_t *key)
{
	u8 kb[16];
	int i;

	for (i = 0; i < 16; i++) {
		seed = seed * 214013U + 2531011U;
		kb[i] = (seed >> 16) & 0xff;
	}
	siphash_key_from_bytes(key, kb);
}

TEST(cpython_agrees)
{
	static const unsigned int seeds[] = { 1, 4242, 3000000000U };
	char cmd[512], line[64];
	struct kb_rng rng;
	siphash_key_t key;
	u8 msg[300];
	size_t s, len, i, n;
	int fd;
	FILE *in, *out;
	char path[] = "/tmp/kb-sip13-XXXXXX";

	for (s = 0; s < ARRAY_SIZE(seeds); s++) {
		kb_rng_seed(&rng, 99 + s);
		cpython_key(seeds[s], &key);
		fd = mkstemp(path);
		ASSERT_LE(0, fd);
		in = fdopen(fd, "w");
		ASSERT_NE(NULL, in);
		/* CPython hashes b"" to 0: lengths from 1. */
		for (n = 0; n < 400; n++) {
			len = 1 + kb_rng_below(&rng, sizeof(msg));
			for (i = 0; i < len; i++)
				fprintf(in, "%02x", (u8)kb_rng_below(&rng, 256));
			fputc('\n', in);
		}
		fclose(in);
		snprintf(cmd, sizeof(cmd),
			 "PYTHONHASHSEED=%u python3 -c 'import sys\nassert sys.hash_info.algorithm == \"siphash13\", sys.hash_info\nfor l in open(sys.argv[1]): print(hash(bytes.fromhex(l.strip())))' %s",
			 seeds[s], path);
		out = popen(cmd, "r");
		ASSERT_NE(NULL, out);
		kb_rng_seed(&rng, 99 + s);
		for (n = 0; n < 400; n++) {
			long long want, got;

			len = 1 + kb_rng_below(&rng, sizeof(msg));
			for (i = 0; i < len; i++)
				msg[i] = (u8)kb_rng_below(&rng, 256);
			ASSERT_NE(NULL, fgets(line, sizeof(line), out));
			want = strtoll(line, NULL, 10);
			got = (long long)kb_siphash13(msg, len, &key);
			/* Py_hash_t: -1 is an error, so -1 hashes to -2. */
			if (got == -1)
				got = -2;
			if (got != want)
				TH_LOG("seed %u message %zu (%zu bytes): got %lld, CPython %lld",
				       seeds[s], n, len, got, want);
			ASSERT_EQ(want, got);
		}
		EXPECT_EQ(0, pclose(out));
		unlink(path);
		strcpy(path, "/tmp/kb-sip13-XXXXXX");
	}
}

/*
 * A filter made with KBLOOM_HASH_FN_SIPHASH13 sets the cells the uapi's
 * rules give for h1 = SipHash-1-3 of the key, not those of SipHash-2-4.
 */
TEST(filter_probes_by_its_hash_fn)
{
	static const u8 hkey[16] = { 0x10, 0x32, 0x54, 0x76, 0x98, 0xba,
				     0xdc, 0xfe, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct kb_shape s = { .type = KBLOOM_TYPE_BLOOM, .m = 1 << 20,
			      .k = 7 };
	struct kb_filter f13, f24;
	struct kb_probe p;
	struct kb_hash h;
	u64 key, pos;
	u32 j, differ = 0;

	s.hash_fn = KBLOOM_HASH_FN_SIPHASH13;
	ASSERT_EQ(0, kb_filter_init(&f13, &s, hkey));
	s.hash_fn = KBLOOM_HASH_FN_SIPHASH24;
	ASSERT_EQ(0, kb_filter_init(&f24, &s, hkey));
	for (key = 0; key < 200; key++) {
		kb_filter_add(&f13, &key, sizeof(key));
		h.h1 = kb_siphash13(&key, sizeof(key), &f13.hkey);
		h.h2 = kbloom_mix64(h.h1);
		kb_probe_init(&p, &h, s.m);
		for (j = 0; j < s.k; j++) {
			pos = kb_probe_next(&p);
			EXPECT_TRUE(test_bit(pos, f13.mem));
		}
		differ += !kb_filter_test(&f24, &key, sizeof(key));
		EXPECT_TRUE(kb_filter_test(&f13, &key, sizeof(key)));
	}
	/* Not the other function's cells: nearly every key is absent there. */
	EXPECT_GE(differ, 195);
	/* Filters of different functions do not merge. */
	EXPECT_FALSE(kb_filter_compatible(&f13, &f24));
	EXPECT_EQ(-EINVAL, kb_filter_merge(&f24, &f13, KBLOOM_MERGE_OR));
	kb_filter_free(&f13);
	kb_filter_free(&f24);
	KB_ASSERT_NO_LEAKS();
}

TEST(shape_check_of_hash_fn)
{
	struct kb_shape s = { .type = KBLOOM_TYPE_BLOCKED, .m = 4096, .k = 3 };

	s.hash_fn = KBLOOM_HASH_FN_SIPHASH13;
	EXPECT_EQ(KB_SHAPE_OK, kb_filter_check_shape(&s));
	s.hash_fn = KBLOOM_HASH_FN_MAX + 1;
	EXPECT_EQ(KB_SHAPE_BAD_HASH_FN, kb_filter_check_shape(&s));
	/* Records have their own hashing: transforms take none. */
	s.type = KBLOOM_TYPE_TRANSFORMS;
	s.hash_fn = KBLOOM_HASH_FN_SIPHASH13;
	EXPECT_EQ(KB_SHAPE_BAD_HASH_FN, kb_filter_check_shape(&s));
}

TEST_HARNESS_MAIN
