/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The blocked Bloom filter's line layout and its add, inline: filter.c
 * records a packet's key without a call (blocked.c holds the rest).
 */
#ifndef KBLOOM_ENGINE_BLOCKED_H
#define KBLOOM_ENGINE_BLOCKED_H

#include "filter.h"
#include "hash.h"

#define KB_BLOCK_BITS	512
#define KB_BLOCK_WORDS	(KB_BLOCK_BITS / BITS_PER_LONG)
#if KB_BLOCK_WORDS != 8
#error "__kb_blocked_add() zeroes its masks as 8 words"
#endif

/* The key's line: block h1 * nblocks >> 64 (cache-line aligned memory). */
static inline unsigned long *kb_blocked_line(const struct kb_filter *f,
					     const struct kb_hash *h)
{
	return f->mem + kb_reduce(h->h1, f->nblocks) * KB_BLOCK_WORDS;
}

/* First probe and (odd) step inside the line. */
static inline u32 kb_blocked_x(const struct kb_hash *h)
{
	return h->h2 % KB_BLOCK_BITS;
}

static inline u32 kb_blocked_y(const struct kb_hash *h)
{
	return ((u32)(h->h2 >> 9) | 1) % KB_BLOCK_BITS;
}

/*
 * One mask per word of the line, then one pass over the words the probes
 * touched (about 5 of 8 for k = 7): a word already complete costs a read,
 * no locked write. Returns whether a bit was new.
 */
static __always_inline bool __kb_blocked_add(struct kb_filter *f,
					     const struct kb_hash *h)
{
	unsigned long *line = kb_blocked_line(f, h);
	unsigned long mask[KB_BLOCK_WORDS];
	u32 x = kb_blocked_x(h), y = kb_blocked_y(h), i, w;
	unsigned long touched = 0, miss;
	bool fresh = false;

	/* Plain stores: compilers turn a zeroing loop into a slow rep stos. */
	mask[0] = 0;
	mask[1] = 0;
	mask[2] = 0;
	mask[3] = 0;
	mask[4] = 0;
	mask[5] = 0;
	mask[6] = 0;
	mask[7] = 0;
	for (i = 0; i < f->s.k; i++) {
		w = x / BITS_PER_LONG;
		touched |= 1UL << w;
		mask[w] |= 1UL << (x % BITS_PER_LONG);
		x = (x + y) % KB_BLOCK_BITS;
	}
	while (touched) {
		w = __ffs(touched);
		touched &= touched - 1;
		miss = mask[w] & ~READ_ONCE(line[w]);
		if (miss) {
			atomic_long_or(miss, (atomic_long_t *)&line[w]);
			fresh = true;
		}
	}
	return fresh;
}

#endif /* KBLOOM_ENGINE_BLOCKED_H */
