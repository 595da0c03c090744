/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The plain Bloom filter's bit reads and its one-key path for filters far
 * larger than the caches, inline: filter.c takes that path without a call
 * (bits.c holds the rest; both use bitword.h, below them).
 */
#ifndef KBLOOM_ENGINE_BLOOM_H
#define KBLOOM_ENGINE_BLOOM_H

#include "bitword.h"
#include "filter.h"
#include "hash.h"
#include "types.h"

/*
 * One key at a time, a bloom filter past this size has its k lines asked
 * for before any is read: most of them come from memory, not from a
 * cache. Batches and the packet path prefetch their own way.
 */
#define KB_FAR_WORDS	((16ULL << 20) / sizeof(unsigned long))

/*
 * The k positions are worked out and their lines asked for first, then
 * read. A prefetch retires at once, so the CPU's window moves on to the
 * next key's lines while these are on their way, where a load that misses
 * would hold it. Returns k, or 0 for a key the fast walk does not fit
 * (kb_probe_fits()), which the callers hand to the general one.
 */
static __always_inline u32 kb_bloom_ask(const struct kb_filter *f,
					const struct kb_hash *h, u64 *pos,
					bool write)
{
	const unsigned long *mem = f->mem;
	struct kb_probe p;
	u32 i, k = f->s.k;

	kb_probe_init(&p, h, f->s.m);
	if (unlikely(!kb_probe_fits(&p, k)))
		return 0;
	for (i = 0; i < k; i++) {
		pos[i] = kb_probe_next_fast(&p);
		if (write)
			kb_prefetchw(&mem[BIT_WORD(pos[i])]);
		else
			kb_prefetch(&mem[BIT_WORD(pos[i])]);
	}
	return k;
}

static inline bool __kb_bloom_add_far(struct kb_filter *f,
				      const struct kb_hash *h)
{
	u64 pos[KBLOOM_HASHES_MAX];
	unsigned long *mem = f->mem;
	bool fresh = false;
	u32 i, k;

	k = kb_bloom_ask(f, h, pos, true);
	if (!k)
		return kb_bloom_add(f, h);
	for (i = 0; i < k; i++)
		fresh |= kb_bit_set_new(mem, pos[i]);
	return fresh;
}

/*
 * The read exits at the first clear bit: every line is asked for already,
 * and a branch that waits on memory here costs less than an AND of all k
 * (bench/README.md).
 */
static inline bool __kb_bloom_test_far(const struct kb_filter *f,
				       const struct kb_hash *h)
{
	u64 pos[KBLOOM_HASHES_MAX];
	const unsigned long *mem = f->mem;
	u32 i, k;

	k = kb_bloom_ask(f, h, pos, false);
	if (!k)
		return kb_bloom_test(f, h);
	for (i = 0; i < k; i++)
		if (!(kb_bit_word(mem, pos[i]) & 1))
			return false;
	return true;
}

/* A bloom filter (not multi's whole) that one key at a time reads far. */
static inline bool kb_bloom_far(const struct kb_filter *f)
{
	return f->ops == &kb_bloom_ops && f->nwords > KB_FAR_WORDS;
}

#endif /* KBLOOM_ENGINE_BLOOM_H */
