/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * SipHash of c and d rounds (Aumasson & Bernstein, "SipHash: a fast
 * short-input PRF", INDOCRYPT 2012): four 64-bit words of state from the
 * key, c SipRounds per 8-byte message word, the length in the top byte of
 * the last (padded) word, d >= 3 finalisation rounds. engine/siphash13.c
 * makes SipHash-1-3 of it (filters of KBLOOM_HASH_FN_SIPHASH13, module
 * and tools alike), host/siphash.c SipHash-2-4 (the kernel's siphash(),
 * for the tools).
 *
 * Byte loads are explicit: the result is the same for any alignment and
 * byte order (compilers make one load of them where the machine allows).
 */
#ifndef KBLOOM_ENGINE_SIPROUND_H
#define KBLOOM_ENGINE_SIPROUND_H

#include "compat.h"

struct kb_sip {
	u64 v0, v1, v2, v3;
};

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

static inline void kb_sip_compress(struct kb_sip *s, u64 m, unsigned int c)
{
	unsigned int i;

	s->v3 ^= m;
	for (i = 0; i < c; i++)
		kb_sipround(s);
	s->v0 ^= m;
}

/* SipHash-c-d of the @len bytes at @data under the key words k0, k1. */
static inline u64 kb_siphash_cd(const void *data, size_t len, u64 k0,
				u64 k1, unsigned int c, unsigned int d)
{
	const u8 *p = data, *end = p + (len & ~(size_t)7);
	/* "somepseudorandomlygeneratedbytes" */
	struct kb_sip s = {
		.v0 = 0x736f6d6570736575ULL ^ k0,
		.v1 = 0x646f72616e646f6dULL ^ k1,
		.v2 = 0x6c7967656e657261ULL ^ k0,
		.v3 = 0x7465646279746573ULL ^ k1,
	};
	u64 last = (u64)len << 56;
	unsigned int i;

	for (; p != end; p += 8)
		kb_sip_compress(&s, kb_load_le64(p), c);
	/* The last 0..7 bytes, little-endian, under the length byte. */
	for (i = 0; i < (len & 7); i++)
		last |= (u64)p[i] << (8 * i);
	kb_sip_compress(&s, last, c);
	s.v2 ^= 0xff;
	/* d >= 3 (1-3, 2-4): three rounds straight, where GCC left a loop */
	kb_sipround(&s);
	kb_sipround(&s);
	kb_sipround(&s);
	for (i = 3; i < d; i++)
		kb_sipround(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

#endif /* KBLOOM_ENGINE_SIPROUND_H */
