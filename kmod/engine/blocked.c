// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The blocked Bloom filter (Putze, Sanders and Singler): m/512 blocks of
 * one 64-byte cache line; h1 picks the block, h2 the k probes inside it
 * (uapi/kbloom.h): x = h2 & 511, y = (h2 >> 9) | 1, probe i = x + i y
 * mod 512. y is odd, so the k <= 32 probes of a key are distinct.
 *
 * One cache miss per add or test. One key at a time the test exits at
 * the first clear bit and the add reads all k bits without a branch and,
 * for a new key, ORs them all in atomically (blocked.h says why: a branch
 * on the bits throws away the next key's work already in flight); batches,
 * their lines prefetched, test without a branch and OR per word.
 *
 * The false positive rate is not that of a plain filter of m bits: blocks
 * receive Binomial(n, 1/nblocks) keys, and the crowded ones dominate.
 *
 * Fill counts, merges and union counts are those of every bit array.
 */
#include "blocked.h"
#include "types.h"

static u64 kb_blocked_multiple(const struct kb_shape *s)
{
	(void)s;
	return KB_BLOCK_BITS;
}

static enum kb_shape_error kb_blocked_check(const struct kb_shape *s)
{
	if (s->m % kb_blocked_multiple(s))
		return KB_SHAPE_BAD_BITS;
	return KB_SHAPE_OK;
}

static u64 kb_blocked_mem(const struct kb_shape *s)
{
	return s->m / 8;
}

static void kb_blocked_setup(struct kb_filter *f)
{
	f->nblocks = f->s.m / KB_BLOCK_BITS;
}

/* The ops' entry; filter.c inlines __kb_blocked_add*() instead. */
static bool kb_blocked_add(struct kb_filter *f, const struct kb_hash *h)
{
	return __kb_blocked_add(f, h);
}

/* The ops' entry; filter.c inlines __kb_blocked_test*() instead. */
static bool kb_blocked_test(const struct kb_filter *f, const struct kb_hash *h)
{
	return __kb_blocked_test(f, h);
}

static void kb_blocked_prefetch(const struct kb_filter *f,
				const struct kb_hash *h)
{
	kb_prefetch(kb_blocked_line(f, h));
}

const struct kb_type_ops kb_blocked_ops = {
	.check = kb_blocked_check,
	.multiple = kb_blocked_multiple,
	.mem = kb_blocked_mem,
	.setup = kb_blocked_setup,
	.add = kb_blocked_add,
	.test = kb_blocked_test,
	.prefetch_key = kb_blocked_prefetch,
	.fill = kb_bits_fill,
	.merge = kb_bits_merge,
	.union_fill = kb_bits_union_fill,
	.info = {
		.params = KB_TAKES_HASH_FN | KB_TAKES_BIT_CELLS,
		.caps = KB_CAP_WINDOWS,
	},
};
