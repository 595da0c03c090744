// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * kmod/engine/host/siphash.c against the SipHash-2-4 reference vectors (the
 * SipHash paper's appendix and its reference implementation, also used by
 * the kernel's lib/test_siphash.c) and against independently computed
 * values for longer messages; unaligned data and every length.
 */
#include "kselftest_harness.h"
#include "kb_test.h"

/*
 * Key 00 01 .. 0f, message 00 01 .. (len - 1): the 64-bit output for
 * len = 0..63 (the reference's 8 output bytes read little-endian).
 */
static const u64 ref_vectors[64] = {
	0x726fdb47dd0e0e31ULL, 0x74f839c593dc67fdULL, 0x0d6c8009d9a94f5aULL,
	0x85676696d7fb7e2dULL, 0xcf2794e0277187b7ULL, 0x18765564cd99a68dULL,
	0xcbc9466e58fee3ceULL, 0xab0200f58b01d137ULL, 0x93f5f5799a932462ULL,
	0x9e0082df0ba9e4b0ULL, 0x7a5dbbc594ddb9f3ULL, 0xf4b32f46226bada7ULL,
	0x751e8fbc860ee5fbULL, 0x14ea5627c0843d90ULL, 0xf723ca908e7af2eeULL,
	0xa129ca6149be45e5ULL, 0x3f2acc7f57c29bdbULL, 0x699ae9f52cbe4794ULL,
	0x4bc1b3f0968dd39cULL, 0xbb6dc91da77961bdULL, 0xbed65cf21aa2ee98ULL,
	0xd0f2cbb02e3b67c7ULL, 0x93536795e3a33e88ULL, 0xa80c038ccd5ccec8ULL,
	0xb8ad50c6f649af94ULL, 0xbce192de8a85b8eaULL, 0x17d835b85bbb15f3ULL,
	0x2f2e6163076bcfadULL, 0xde4daaaca71dc9a5ULL, 0xa6a2506687956571ULL,
	0xad87a3535c49ef28ULL, 0x32d892fad841c342ULL, 0x7127512f72f27cceULL,
	0xa7f32346f95978e3ULL, 0x12e0b01abb051238ULL, 0x15e034d40fa197aeULL,
	0x314dffbe0815a3b4ULL, 0x027990f029623981ULL, 0xcadcd4e59ef40c4dULL,
	0x9abfd8766a33735cULL, 0x0e3ea96b5304a7d0ULL, 0xad0c42d6fc585992ULL,
	0x187306c89bc215a9ULL, 0xd4a60abcf3792b95ULL, 0xf935451de4f21df2ULL,
	0xa9538f0419755787ULL, 0xdb9acddff56ca510ULL, 0xd06c98cd5c0975ebULL,
	0xe612a3cb9ecba951ULL, 0xc766e62cfcadaf96ULL, 0xee64435a9752fe72ULL,
	0xa192d576b245165aULL, 0x0a8787bf8ecb74b2ULL, 0x81b3e73d20b49b6fULL,
	0x7fa8220ba3b2eceaULL, 0x245731c13ca42499ULL, 0xb78dbfaf3a8d83bdULL,
	0xea1ad565322a1a0bULL, 0x60e61c23a3795013ULL, 0x6606d7e446282b93ULL,
	0x6ca4ecb15c5f91e1ULL, 0x9f626da15c9625f3ULL, 0xe51b38608ef25f57ULL,
	0x958a324ceb064572ULL,
};

/*
 * Longer messages, byte j = (7j + 3) mod 256, computed with OpenSSL's
 * SipHash (EVP_MAC "SIPHASH", size 8): an implementation independent of
 * both this one and the kernel's.
 */
static const struct {
	u8 key[16];
	struct {
		size_t len;
		u64 hash;
	} v[8];
} long_vectors[] = {
	{
		{ 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
		  0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f },
		{
			{ 64,   0x25a000cacd85c5abULL },
			{ 100,  0xfe2c7856655f7d23ULL },
			{ 255,  0x2b4c4a705f327fa3ULL },
			{ 256,  0xa535fc43f530ef43ULL },
			{ 257,  0x61d8a05fc90037c9ULL },
			{ 1000, 0x57e4508252ae40ceULL },
			{ 1024, 0x07ef7631ff8e0ca1ULL },
			{ 4093, 0x5e1726f229375bcdULL },
		},
	},
	{
		{ 0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87,
		  0x78, 0x69, 0x5a, 0x4b, 0x3c, 0x2d, 0x1e, 0x0f },
		{
			{ 64,   0x55f247bb4e04c7c3ULL },
			{ 100,  0x185cc9d4e70fd056ULL },
			{ 255,  0x4a27232355c1ad14ULL },
			{ 256,  0x6ba1d080f50d46efULL },
			{ 257,  0xbce4d7667e5b77f4ULL },
			{ 1000, 0x1b2c23bc0f3c83bfULL },
			{ 1024, 0xb19eda60d964806eULL },
			{ 4093, 0x42e40dc8009478f1ULL },
		},
	},
};

TEST(key_bytes_are_two_le_words)
{
	siphash_key_t key;

	kb_ref_key(&key);
	EXPECT_EQ(0x0706050403020100ULL, key.key[0]);
	EXPECT_EQ(0x0f0e0d0c0b0a0908ULL, key.key[1]);
}

TEST(reference_vectors)
{
	siphash_key_t key;
	u8 msg[64];
	size_t len;

	kb_ref_key(&key);
	kb_ref_msg(msg);
	for (len = 0; len < 64; len++) {
		u64 h = siphash(msg, len, &key);

		if (h != ref_vectors[len])
			TH_LOG("len %zu: got %016llx want %016llx", len,
			       (unsigned long long)h,
			       (unsigned long long)ref_vectors[len]);
		EXPECT_EQ(ref_vectors[len], h);
	}
}

/* The paper's worked example: 15-byte message, Appendix A. */
TEST(paper_appendix_example)
{
	static const u8 msg[15] = {
		0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
		0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e,
	};
	siphash_key_t key;

	kb_ref_key(&key);
	EXPECT_EQ(0xa129ca6149be45e5ULL, siphash(msg, sizeof(msg), &key));
}

TEST(long_messages)
{
	size_t i, j, len;
	u8 *msg = malloc(4096);

	ASSERT_NE(NULL, msg);
	for (j = 0; j < 4096; j++)
		msg[j] = (u8)(7 * j + 3);
	for (i = 0; i < ARRAY_SIZE(long_vectors); i++) {
		siphash_key_t key;

		siphash_key_from_bytes(&key, long_vectors[i].key);
		for (j = 0; j < 8; j++) {
			len = long_vectors[i].v[j].len;
			EXPECT_EQ(long_vectors[i].v[j].hash,
				  siphash(msg, len, &key)) {
				TH_LOG("key %zu len %zu", i, len);
			}
		}
	}
	free(msg);
	KB_ASSERT_NO_LEAKS();
}

/*
 * Every length 0..63 at every offset 0..15 in a heap block that ends
 * exactly where the message ends: the result does not depend on
 * alignment, and ASan catches any read past the last byte.
 */
TEST(unaligned_and_exact_length)
{
	siphash_key_t key;
	size_t len, off, j;

	kb_ref_key(&key);
	for (len = 0; len < 64; len++) {
		for (off = 0; off < 16; off++) {
			u8 *blk = malloc(off + len ? off + len : 1);
			u8 *msg = blk + off;

			ASSERT_NE(NULL, blk);
			for (j = 0; j < len; j++)
				msg[j] = (u8)j;
			EXPECT_EQ(ref_vectors[len], siphash(msg, len, &key)) {
				TH_LOG("len %zu offset %zu", len, off);
			}
			free(blk);
		}
	}
	KB_ASSERT_NO_LEAKS();
}

TEST(empty_message_null_pointer)
{
	siphash_key_t key;

	kb_ref_key(&key);
	EXPECT_EQ(ref_vectors[0], siphash(NULL, 0, &key));
}

/*
 * The length is part of the input: all-zero messages of lengths 0..599
 * hash apart (lengths 256 apart share the length byte, not the words).
 */
TEST(length_is_part_of_the_input)
{
	siphash_key_t key;
	u8 msg[600] = { 0 };
	u64 seen[600];
	size_t i, j;

	kb_ref_key(&key);
	for (i = 0; i < sizeof(msg); i++) {
		seen[i] = siphash(msg, i, &key);
		for (j = 0; j < i; j++)
			ASSERT_NE(seen[j], seen[i]);
	}
}

TEST(key_changes_everything)
{
	siphash_key_t a, b;
	const u8 msg[] = "kbloom";
	int bit;

	kb_ref_key(&a);
	/* Flipping any one of the 128 key bits changes the hash. */
	for (bit = 0; bit < 128; bit++) {
		b = a;
		b.key[bit / 64] ^= 1ULL << (bit % 64);
		EXPECT_NE(siphash(msg, sizeof(msg) - 1, &a),
			  siphash(msg, sizeof(msg) - 1, &b));
	}
}

TEST_HARNESS_MAIN
