// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The plain Bloom filter (m bits, k probes by enhanced double hashing over
 * one keyed SipHash), and what every bit-array type shares: fill counts,
 * merges and union counts work word by word over the whole array.
 */
#include "types.h"

#ifndef __KERNEL__
#include <errno.h>
#endif

static enum kb_shape_error kb_bloom_check(const struct kb_shape *s)
{
	if (s->cell_bits > 1 || s->update || s->decrement || s->subtables ||
	    s->bucket_cells || s->fp_bits)
		return KB_SHAPE_EXTRA_PARAM;
	return KB_SHAPE_OK;
}

static u64 kb_bloom_mem(const struct kb_shape *s)
{
	return BITS_TO_LONGS(s->m) * sizeof(unsigned long);
}

bool kb_bloom_add(struct kb_filter *f, const struct kb_hash *h)
{
	struct kb_probe p;
	bool fresh = false;
	u32 i;

	kb_probe_init(&p, h, f->s.m);
	for (i = 0; i < f->s.k; i++) {
		u64 pos = kb_probe_next(&p);

		/* Read first: a set bit costs no locked write or line bounce. */
		if (!test_bit(pos, f->mem)) {
			set_bit(pos, f->mem);
			fresh = true;
		}
	}
	return fresh;
}

bool kb_bloom_test(const struct kb_filter *f, const struct kb_hash *h)
{
	const unsigned long *mem = f->mem;
	struct kb_probe p;
	u32 i = f->s.k;

	kb_probe_init(&p, h, f->s.m);
	do {
		if (!test_bit(kb_probe_next(&p), mem))
			return false;
	} while (--i);
	return true;
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
	.check = kb_bloom_check,
	.mem = kb_bloom_mem,
	.add = kb_bloom_add,
	.test = kb_bloom_test,
	.prefetch_key = kb_cells_prefetch,
	.fill = kb_bits_fill,
	.merge = kb_bits_merge,
	.union_fill = kb_bits_union_fill,
	.info = { .caps = KB_CAP_WINDOWS },
};

/* DIMS bloom filters side by side in one allocation (filter.c). */
const struct kb_type_ops kb_multi_ops = {
	.check = kb_bloom_check,
	.mem = kb_bloom_mem,
	.add = kb_bloom_add,
	.test = kb_bloom_test,
	.prefetch_key = kb_cells_prefetch,
	.fill = kb_bits_fill,
	.merge = kb_bits_merge,
	.union_fill = kb_bits_union_fill,
	.info = { .params = KB_TAKES_DIMS, .caps = KB_CAP_WINDOWS },
};
