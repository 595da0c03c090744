/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Key hashing and probe positions, shared by every filter type and by the
 * tools that compute positions offline (the rules are in uapi/kbloom.h).
 */
#ifndef KBLOOM_ENGINE_HASH_H
#define KBLOOM_ENGINE_HASH_H

#include "compat.h"
#include "../uapi/kbloom.h"

struct kb_hash {
	u64 h1;
	u64 h2;
};

/*
 * A cheap bijective 64-bit mixer (the splitmix64 finaliser). It only has to
 * make h2 look independent of h1; the keyed PRF is SipHash.
 */
static inline u64 kbloom_mix64(u64 z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* SipHash-1-3, 64-bit output (siphash13.c). */
u64 kb_siphash13(const void *data, size_t len, const siphash_key_t *key);

/* h1 and h2 of a key under @hkey, by @fn (enum kbloom_hash_fn). */
static inline void kb_hash_key_fn(u32 fn, const siphash_key_t *hkey,
				  const void *key, size_t len,
				  struct kb_hash *h)
{
	if (fn == KBLOOM_HASH_FN_SIPHASH13)
		h->h1 = kb_siphash13(key, len, hkey);
	else
		h->h1 = siphash(key, len, hkey);
	h->h2 = kbloom_mix64(h->h1);
}

/* SipHash-2-4: the records of transforms (xlate.c), whatever the filter. */
static inline void kb_hash_key(const siphash_key_t *hkey, const void *key,
			       size_t len, struct kb_hash *h)
{
	kb_hash_key_fn(KBLOOM_HASH_FN_SIPHASH24, hkey, key, len, h);
}

/* Uniform map of a 64-bit hash onto [0, range) without a division. */
static inline u64 kb_reduce(u64 h, u64 range)
{
	return mul_u64_u64_shr(h, range, 64);
}

/*
 * Enhanced double hashing (Dillinger & Manolios): probe i is
 * x + i*y + (i^3 - i)/6 mod m, walked with additions only.
 */
struct kb_probe {
	u64 x;
	u64 y;
	u64 m;
	u64 i;
};

static inline void kb_probe_init(struct kb_probe *p, const struct kb_hash *h,
				 u64 m)
{
	p->x = kb_reduce(h->h1, m);
	p->y = kb_reduce(h->h2, m);
	p->m = m;
	p->i = 0;
}

/* Returns the current position, then advances. */
static inline u64 kb_probe_next(struct kb_probe *p)
{
	u64 pos = p->x;

	p->i++;
	p->x += p->y;
	if (p->x >= p->m)
		p->x -= p->m;
	p->y += p->i;
	if (p->y >= p->m)
		p->y -= p->m;
	return pos;
}

/*
 * The same walk with fewer instructions, for the keys it fits: after j
 * steps y is y0 + j(j+1)/2, and a key takes k - 1 steps, so when
 * y0 + k(k-1)/2 < m (all but about k^2/2m of the keys) y never reaches m
 * and only x wraps, once at most (x + y < 2m). kb_probe_next_fast() is
 * then kb_probe_next(), position for position.
 */
static inline bool kb_probe_fits(const struct kb_probe *p, u32 k)
{
	return p->y + (u64)k * (k - 1) / 2 < p->m;
}

/* x mod m for x < 2m: m <= KBLOOM_BITS_MAX, so x - m fits a signed word. */
static inline u64 kb_wrap_once(u64 x, u64 m)
{
	s64 d = x - m;

	return d < 0 ? x : (u64)d;
}

static inline u64 kb_probe_next_fast(struct kb_probe *p)
{
	u64 pos = p->x;

	p->i++;
	p->x = kb_wrap_once(p->x + p->y, p->m);
	p->y += p->i;
	return pos;
}

#endif /* KBLOOM_ENGINE_HASH_H */
