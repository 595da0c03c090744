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
#error "__kb_blocked_add_cached() zeroes its masks as 8 words"
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
 * One key at a time, the cache miss on the key's line costs more than all
 * the rest, and consecutive keys' misses overlap only as far as the CPU's
 * out-of-order window reaches past the miss: a few hundred instructions,
 * about two keys with SipHash. A branch on a bit mispredicts when the line
 * arrives and throws away the next key's work already in flight, so:
 *
 * The test exits at the first clear bit. For an absent key that branch
 * is the one that matters: predicted taken, the next key's hash and miss
 * start before this line arrives (a wrong guess costs a re-walk of a line
 * then in L1); for a present key every branch goes the same way.
 */
static __always_inline bool __kb_blocked_test(const struct kb_filter *f,
					      const struct kb_hash *h)
{
	const unsigned long *line = kb_blocked_line(f, h);
	u32 x = kb_blocked_x(h), y = kb_blocked_y(h), i = f->s.k;

	do {
		if (!((READ_ONCE(line[x / BITS_PER_LONG]) >>
		       (x % BITS_PER_LONG)) & 1))
			return false;
		x = (x + y) % KB_BLOCK_BITS;
	} while (--i);
	return true;
}

/*
 * The same answer without a branch on the bits: for batches, whose line
 * was prefetched and is in L1 when the key comes, so a mispredicted exit
 * costs more than the probes it saves; and for the add's read below.
 */
static __always_inline bool __kb_blocked_test_cached(const struct kb_filter *f,
						     const struct kb_hash *h)
{
	const unsigned long *line = kb_blocked_line(f, h);
	u32 x = kb_blocked_x(h), y = kb_blocked_y(h), i = f->s.k;
	unsigned long all = ~0UL;

	do {
		all &= READ_ONCE(line[x / BITS_PER_LONG]) >> (x % BITS_PER_LONG);
		x = (x + y) % KB_BLOCK_BITS;
	} while (--i);
	return all & 1;
}

/*
 * The add reads all k bits without a branch, then takes one branch: a key
 * already present costs a read and no write; a new one ORs (atomically:
 * concurrent adds lose no bit) each of its k bits, set or not, which is
 * cheaper than a branch per bit on data that arrives with the miss.
 * Returns whether a bit was new.
 */
static __always_inline bool __kb_blocked_add(struct kb_filter *f,
					     const struct kb_hash *h)
{
	unsigned long *line = kb_blocked_line(f, h);
	u32 x = kb_blocked_x(h), y = kb_blocked_y(h), k = f->s.k;

	if (__kb_blocked_test_cached(f, h))
		return false;
	do {
		atomic_long_or(1UL << (x % BITS_PER_LONG),
			       (atomic_long_t *)&line[x / BITS_PER_LONG]);
		x = (x + y) % KB_BLOCK_BITS;
	} while (--k);
	return true;
}

/*
 * For batches, whose lines were prefetched and are in L1: one mask per
 * word of the line, then one pass over the words the probes touched
 * (about 5 of 8 for k = 7): a word already complete costs a read, a word
 * missing bits one locked OR, fewer locked ORs than one per bit.
 */
static __always_inline bool __kb_blocked_add_cached(struct kb_filter *f,
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
