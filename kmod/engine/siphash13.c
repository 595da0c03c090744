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

struct kb_sip {
	u64 v0, v1, v2, v3;
};

static inline void kb_sipround(struct kb_sip *s)
{
	s->v0 += s->v1;
	s->v1 = kb_rotl64(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = kb_rotl64(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = kb_rotl64(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = kb_rotl64(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = kb_rotl64(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = kb_rotl64(s->v2, 32);
}

/* c = 1 compression round per message word. */
static inline void kb_sip_compress(struct kb_sip *s, u64 m)
{
	s->v3 ^= m;
	kb_sipround(s);
	s->v0 ^= m;
}

u64 kb_siphash13(const void *data, size_t len, const siphash_key_t *key)
{
	const u8 *p = data, *end = p + (len & ~(size_t)7);
	struct kb_sip s = {
		.v0 = 0x736f6d6570736575ULL ^ key->key[0],
		.v1 = 0x646f72616e646f6dULL ^ key->key[1],
		.v2 = 0x6c7967656e657261ULL ^ key->key[0],
		.v3 = 0x7465646279746573ULL ^ key->key[1],
	};
	u64 last = (u64)len << 56;
	unsigned int i;

	for (; p != end; p += 8)
		kb_sip_compress(&s, kb_load_le64(p));
	/* The last 0..7 bytes, little-endian, under the length byte. */
	for (i = 0; i < (len & 7); i++)
		last |= (u64)p[i] << (8 * i);
	kb_sip_compress(&s, last);
	/* d = 3 finalisation rounds. */
	s.v2 ^= 0xff;
	kb_sipround(&s);
	kb_sipround(&s);
	kb_sipround(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}
