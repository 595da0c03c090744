// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The blocked Bloom filter (Putze, Sanders and Singler): m/512 blocks of
 * one 64-byte cache line; h1 picks the block, h2 the k probes inside it
 * (uapi/kbloom.h): x = h2 & 511, y = (h2 >> 9) | 1, probe i = x + i y
 * mod 512. y is odd, so the k <= 32 probes of a key are distinct.
 *
 * One cache miss per add or test, and no branch on the bits: a test checks
 * all k probes without an early exit; an add (blocked.h) builds one mask
 * per word of the line and writes (atomically) only the words that still
 * miss some of their bits.
 *
 * The false positive rate is not that of a plain filter of m bits: blocks
 * receive Binomial(n, 1/nblocks) keys, and the crowded ones dominate.
 *
 * Fill counts, merges and union counts are those of every bit array.
 */
#include "blocked.h"
#include "types.h"

static enum kb_shape_error kb_blocked_check(const struct kb_shape *s)
{
	if (s->m % KB_BLOCK_BITS)
		return KB_SHAPE_BAD_BITS;
	if (s->cell_bits > 1 || s->update || s->decrement || s->subtables ||
	    s->bucket_cells || s->fp_bits)
		return KB_SHAPE_EXTRA_PARAM;
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

/* The ops' entry; kb_filter_add*() inline __kb_blocked_add() instead. */
static bool kb_blocked_add(struct kb_filter *f, const struct kb_hash *h)
{
	return __kb_blocked_add(f, h);
}

/*
 * Every probe is checked, without an early exit: the missing bits of all
 * k probes are OR-ed together. (Masks per word first, as add builds them,
 * are slower here: their read-modify-write chains through the stack cost
 * more than k loads from a line already in L1.)
 */
static bool kb_blocked_test(const struct kb_filter *f, const struct kb_hash *h)
{
	const unsigned long *line = kb_blocked_line(f, h);
	u32 x = kb_blocked_x(h), y = kb_blocked_y(h), i;
	unsigned long miss = 0;

	for (i = 0; i < f->s.k; i++) {
		miss |= ~READ_ONCE(line[x / BITS_PER_LONG]) &
			(1UL << (x % BITS_PER_LONG));
		x = (x + y) % KB_BLOCK_BITS;
	}
	return !miss;
}

static void kb_blocked_prefetch(const struct kb_filter *f,
				const struct kb_hash *h)
{
	kb_prefetch(kb_blocked_line(f, h));
}

const struct kb_type_ops kb_blocked_ops = {
	.check = kb_blocked_check,
	.mem = kb_blocked_mem,
	.setup = kb_blocked_setup,
	.add = kb_blocked_add,
	.test = kb_blocked_test,
	.prefetch_key = kb_blocked_prefetch,
	.fill = kb_bits_fill,
	.merge = kb_bits_merge,
	.union_fill = kb_bits_union_fill,
	.info = { .caps = KB_CAP_WINDOWS },
};
