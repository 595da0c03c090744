// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * SipHash-1-3 with a 64-bit output: SipHash (Aumasson & Bernstein,
 * "SipHash: a fast short-input PRF", INDOCRYPT 2012) with one SipRound per
 * 8-byte message word and three finalisation rounds. The kernel has it
 * only as hsiphash() on 64-bit machines, truncated to 32 bits; filters
 * created with KBLOOM_HASH_FN_SIPHASH13 need all 64 (h1 picks a cell of up
 * to 2^33, and h2 is derived from it), so it is written out here, the
 * same source in the module and in the tools.
 *
 * Byte loads are explicit: the result is the same for any alignment and
 * byte order (compilers make one load of them where the machine allows).
 */
#include "hash.h"

static inline u64 kb_rotl64(u64 x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

static inline u64 kb_load_le64(const u8 *p)
{
	return (u64)p[0] | (u64)p[1] << 8 | (u64)p[2] << 16 |
	       (u64)p[3] << 24 | (u64)p[4] << 32 | (u64)p[5] << 40 |
	       (u64)p[6] << 48 | (u64)p[7] << 56;
}

#define KB_SIPROUND(v0, v1, v2, v3)					\
	do {								\
		v0 += v1; v1 = kb_rotl64(v1, 13); v1 ^= v0;		\
		v0 = kb_rotl64(v0, 32);					\
		v2 += v3; v3 = kb_rotl64(v3, 16); v3 ^= v2;		\
		v0 += v3; v3 = kb_rotl64(v3, 21); v3 ^= v0;		\
		v2 += v1; v1 = kb_rotl64(v1, 17); v1 ^= v2;		\
		v2 = kb_rotl64(v2, 32);					\
	} while (0)

u64 kb_siphash13(const void *data, size_t len, const siphash_key_t *key)
{
	const u8 *p = data, *end = p + (len & ~(size_t)7);
	u64 v0 = 0x736f6d6570736575ULL ^ key->key[0];
	u64 v1 = 0x646f72616e646f6dULL ^ key->key[1];
	u64 v2 = 0x6c7967656e657261ULL ^ key->key[0];
	u64 v3 = 0x7465646279746573ULL ^ key->key[1];
	u64 m, last = (u64)len << 56;
	unsigned int i;

	for (; p != end; p += 8) {
		m = kb_load_le64(p);
		v3 ^= m;
		KB_SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	/* The last 0..7 bytes, little-endian, under the length byte. */
	for (i = 0; i < (len & 7); i++)
		last |= (u64)p[i] << (8 * i);
	v3 ^= last;
	KB_SIPROUND(v0, v1, v2, v3);
	v0 ^= last;
	v2 ^= 0xff;
	KB_SIPROUND(v0, v1, v2, v3);
	KB_SIPROUND(v0, v1, v2, v3);
	KB_SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}
