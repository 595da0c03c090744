// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The plain Bloom filter (m bits, k probes by enhanced double hashing over
 * one keyed SipHash), and what every bit-array type shares: fill counts,
 * merges and union counts work word by word over the whole array.
 */
#include "bitword.h"
#include "filter.h"
#include "hash.h"
#include "types.h"

#ifndef __KERNEL__
#include <errno.h>
#endif

static u64 kb_bloom_mem(const struct kb_shape *s)
{
	return BITS_TO_LONGS(s->m) * sizeof(unsigned long);
}

/* The general walk, for the few keys kb_probe_fits() turns away. */
static bool kb_bloom_add_walk(struct kb_filter *f, struct kb_probe *p)
{
	bool fresh = false;
	u32 i;

	for (i = 0; i < f->s.k; i++)
		fresh |= kb_bit_set_new(f->mem, kb_probe_next(p));
	return fresh;
}

bool kb_bloom_add(struct kb_filter *f, const struct kb_hash *h)
{
	struct kb_probe p;
	bool fresh = false;
	u32 i;

	kb_probe_init(&p, h, f->s.m);
	if (unlikely(!kb_probe_fits(&p, f->s.k)))
		return kb_bloom_add_walk(f, &p);
	for (i = 0; i < f->s.k; i++)
		fresh |= kb_bit_set_new(f->mem, kb_probe_next_fast(&p));
	return fresh;
}

static bool kb_bloom_test_walk(const struct kb_filter *f, struct kb_probe *p)
{
	u32 i = f->s.k;

	do {
		if (!test_bit(kb_probe_next(p), f->mem))
			return false;
	} while (--i);
	return true;
}

/*
 * All k bits are read and ANDed, without a branch: an exit at the first
 * clear bit mispredicts for about every absent key and throws away the
 * next key's work in flight, while reading on costs little where the
 * lines are near: batches asked for them, and one key at a time a filter
 * whose lines are far takes bloom.h's path instead.
 */
bool kb_bloom_test(const struct kb_filter *f, const struct kb_hash *h)
{
	const unsigned long *mem = f->mem;
	struct kb_probe p;
	unsigned long ok;
	u32 i, k = f->s.k;

	kb_probe_init(&p, h, f->s.m);
	if (unlikely(!kb_probe_fits(&p, k)))
		return kb_bloom_test_walk(f, &p);
	ok = kb_bit_word(mem, kb_probe_next_fast(&p));
	/* Two probes a turn: y's steps are half constants, half the loop's. */
	for (i = 1; i + 1 < k; i += 2) {
		ok &= kb_bit_word(mem, kb_probe_next_fast(&p));
		ok &= kb_bit_word(mem, kb_probe_next_fast(&p));
	}
	if (i < k)
		ok &= kb_bit_word(mem, kb_probe_next_fast(&p));
	return ok & 1;
}

/*
 * The lines of a key's k cells, for batches: cells of cell_bits bits never
 * straddle a long, so cell pos lies in long pos * bits / BITS_PER_LONG.
 */
void kb_cells_prefetch(const struct kb_filter *f, const struct kb_hash *h)
{
	u64 bits = f->s.cell_bits ? f->s.cell_bits : 1;
	struct kb_probe p;
	u32 i;

	kb_probe_init(&p, h, f->s.m);
	if (likely(kb_probe_fits(&p, f->s.k))) {
		for (i = 0; i < f->s.k; i++)
			kb_prefetch(&f->mem[kb_probe_next_fast(&p) * bits /
					    BITS_PER_LONG]);
		return;
	}
	for (i = 0; i < f->s.k; i++)
		kb_prefetch(&f->mem[kb_probe_next(&p) * bits / BITS_PER_LONG]);
}

/* Bits past m are never set, so whole words can be counted. */
void kb_bits_fill(const struct kb_filter *f, struct kb_fill *out)
{
	u64 w;

	memset(out, 0, sizeof(*out));
	for (w = 0; w < f->nwords; w += KB_CHUNK_WORDS) {
		u64 n = f->nwords - w;

		if (n > KB_CHUNK_WORDS)
			n = KB_CHUNK_WORDS;
		out->nonzero += bitmap_weight(&f->mem[w], n * BITS_PER_LONG);
		kb_resched();
	}
}

/*
 * Cells of cell_bits bits (counting, stable): non-zero ones and all-ones
 * (saturated) ones, a word at a time. Cells past m are never touched.
 */
void kb_cells_fill(const struct kb_filter *f, struct kb_fill *out)
{
	unsigned long lo = ~0UL / ((1UL << f->s.cell_bits) - 1);
	unsigned long hi = lo << (f->s.cell_bits - 1);
	u64 w;

	memset(out, 0, sizeof(*out));
	for (w = 0; w < f->nwords; w++) {
		unsigned long x = READ_ONCE(f->mem[w]), y = ~x;

		/* The top bit of every non-zero cell of x, then of ~x. */
		out->nonzero += hweight_long((((x & ~hi) + ~hi) | x) & hi);
		out->saturated += hweight_long(hi & ~((((y & ~hi) + ~hi) | y)));
		if (!((w + 1) % KB_CHUNK_WORDS))
			kb_resched();
	}
}

int kb_bits_merge(struct kb_filter *dst, const struct kb_filter *src, u32 op)
{
	u64 w;

	for (w = 0; w < dst->nwords; w++) {
		unsigned long v = READ_ONCE(src->mem[w]);

		/* Atomic per word: concurrent adds to dst are not lost. */
		if (op == KBLOOM_MERGE_OR)
			atomic_long_or(v, (atomic_long_t *)&dst->mem[w]);
		else
			atomic_long_and(v, (atomic_long_t *)&dst->mem[w]);
		if (!(w % KB_CHUNK_WORDS))
			kb_resched();
	}
	return 0;
}

u64 kb_bits_union_fill(const struct kb_filter *a, const struct kb_filter *b)
{
	u64 w, set = 0;

	for (w = 0; w < a->nwords; w++) {
		set += hweight_long(READ_ONCE(a->mem[w]) | READ_ONCE(b->mem[w]));
		if (!(w % KB_CHUNK_WORDS))
			kb_resched();
	}
	return set;
}

const struct kb_type_ops kb_bloom_ops = {
	.mem = kb_bloom_mem,
	.add = kb_bloom_add,
	.test = kb_bloom_test,
	.prefetch_key = kb_cells_prefetch,
	.fill = kb_bits_fill,
	.merge = kb_bits_merge,
	.union_fill = kb_bits_union_fill,
	.info = {
		.params = KB_TAKES_HASH_FN | KB_TAKES_BIT_CELLS,
		.caps = KB_CAP_WINDOWS,
	},
};

/* DIMS bloom filters side by side in one allocation (filter.c). */
const struct kb_type_ops kb_multi_ops = {
	.mem = kb_bloom_mem,
	.add = kb_bloom_add,
	.test = kb_bloom_test,
	.prefetch_key = kb_cells_prefetch,
	.fill = kb_bits_fill,
	.merge = kb_bits_merge,
	.union_fill = kb_bits_union_fill,
	.info = {
		.params = KB_TAKES_DIMS | KB_TAKES_HASH_FN | KB_TAKES_BIT_CELLS,
		.caps = KB_CAP_WINDOWS,
	},
};
