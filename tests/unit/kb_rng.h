/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The seeded PRNG of the host unit tests (kb_test.h) and of
 * bench/trace_gen.c: xoshiro256** (Blackman and Vigna, "Scrambled linear
 * pseudorandom number generators", ACM Trans. Math. Softw. 47(4), 2021)
 * seeded by splitmix64 (Steele, Lea and Flood, "Fast splittable
 * pseudorandom number generators", OOPSLA 2014). A fixed seed gives a
 * fixed stream, the same in both: the tests' data and trace_gen's files
 * depend on every bit of it.
 */
#ifndef KBLOOM_TESTS_UNIT_KB_RNG_H
#define KBLOOM_TESTS_UNIT_KB_RNG_H

#include <stddef.h>
#include <stdint.h>

struct kb_rng {
	uint64_t s[4];
};

static inline uint64_t kb_rotl(uint64_t x, int b)
{
	return (x << b) | (x >> (64 - b));
}

static inline void kb_rng_seed(struct kb_rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++) {
		uint64_t z = (seed += 0x9e3779b97f4a7c15ULL);

		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		r->s[i] = z ^ (z >> 31);
	}
}

static inline uint64_t kb_rng_next(struct kb_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = kb_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = kb_rotl(s[3], 45);
	return out;
}

/* Uniform in [0, n), n > 0 (the bias of a 64-bit multiply is negligible). */
static inline uint64_t kb_rng_below(struct kb_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)kb_rng_next(r) * n) >> 64);
}

static inline void kb_rng_bytes(struct kb_rng *r, void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(kb_rng_next(r) >> 56);
}

#endif
