// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * SipHash-2-4, 64-bit output (Aumasson & Bernstein, "SipHash: a fast
 * short-input PRF", 2012): four 64-bit words of state initialised from the
 * key, two SipRounds per 8-byte message word, the length in the top byte of
 * the last (padded) word, four finalisation rounds.
 *
 * Written from the paper's description; byte loads are explicit, so the
 * result is the same on any alignment and byte order.
 */
#include "siphash.h"

static inline u64 rotl64(u64 x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

static inline u64 load_le64(const u8 *p)
{
	return (u64)p[0] | (u64)p[1] << 8 | (u64)p[2] << 16 |
	       (u64)p[3] << 24 | (u64)p[4] << 32 | (u64)p[5] << 40 |
	       (u64)p[6] << 48 | (u64)p[7] << 56;
}

struct sip_state {
	u64 v0, v1, v2, v3;
};

static inline void sip_round(struct sip_state *s)
{
	s->v0 += s->v1;
	s->v1 = rotl64(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl64(s->v0, 32);

	s->v2 += s->v3;
	s->v3 = rotl64(s->v3, 16);
	s->v3 ^= s->v2;

	s->v0 += s->v3;
	s->v3 = rotl64(s->v3, 21);
	s->v3 ^= s->v0;

	s->v2 += s->v1;
	s->v1 = rotl64(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl64(s->v2, 32);
}

/* c = 2 compression rounds per message word. */
static inline void sip_compress(struct sip_state *s, u64 m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

u64 siphash(const void *data, size_t len, const siphash_key_t *key)
{
	const u8 *p = data;
	const u64 k0 = key->key[0];
	const u64 k1 = key->key[1];
	/* "somepseudorandomlygeneratedbytes" */
	struct sip_state s = {
		.v0 = k0 ^ 0x736f6d6570736575ULL,
		.v1 = k1 ^ 0x646f72616e646f6dULL,
		.v2 = k0 ^ 0x6c7967656e657261ULL,
		.v3 = k1 ^ 0x7465646279746573ULL,
	};
	size_t left = len;
	u64 last;
	unsigned int i;

	for (; left >= 8; left -= 8, p += 8)
		sip_compress(&s, load_le64(p));

	/* The 0..7 trailing bytes, little-endian, and len mod 256 on top. */
	last = (u64)(len & 0xff) << 56;
	for (i = 0; i < left; i++)
		last |= (u64)p[i] << (8 * i);
	sip_compress(&s, last);

	/* d = 4 finalisation rounds. */
	s.v2 ^= 0xff;
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

void siphash_key_from_bytes(siphash_key_t *key,
			    const u8 bytes[SIPHASH_KEY_LEN])
{
	key->key[0] = load_le64(bytes);
	key->key[1] = load_le64(bytes + 8);
}
