// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The partitioned Bloom filter (Broder and Mitzenmacher, "Network
 * Applications of Bloom Filters: A Survey", Internet Mathematics 1(4),
 * 2004): the m bits are k slices of m/k bits and probe i always lands in
 * slice i, so the probes of one key never collide with each other.
 * Probe i is i * (m/k) + x_i, with x_i the
 * enhanced double hashing walk of uapi/kbloom.h taken over m/k instead of
 * m. Exact false positive rate: (1 - (1 - k/m)^n)^k.
 *
 * Fill counts, merges and union counts are those of every bit array.
 */
#include "types.h"

static u64 kb_part_multiple(const struct kb_shape *s)
{
	return s->k ? s->k : 1;
}

static enum kb_shape_error kb_part_check(const struct kb_shape *s)
{
	if (s->m % kb_part_multiple(s))
		return KB_SHAPE_BAD_BITS;
	return KB_SHAPE_OK;
}

static u64 kb_part_mem(const struct kb_shape *s)
{
	return BITS_TO_LONGS(s->m) * sizeof(unsigned long);
}

/* f->nblocks holds the slice width m/k: no division on the hot path. */
static void kb_part_setup(struct kb_filter *f)
{
	f->nblocks = f->s.m / f->s.k;
}

/*
 * The walk over one slice of @w bits. Slices can be narrower than k (m =
 * 64, k = 32 gives w = 2), so y + i may exceed the slice more than once:
 * reduce it with a loop that runs at most once when w >= 32.
 */
struct kb_part_walk {
	u64 x;
	u64 y;
	u64 w;
	u32 i;
};

static inline void kb_part_walk_init(struct kb_part_walk *p,
				     const struct kb_hash *h, u64 w)
{
	p->x = kb_reduce(h->h1, w);
	p->y = kb_reduce(h->h2, w);
	p->w = w;
	p->i = 0;
}

/* Returns the offset inside the current slice, then advances. */
static inline u64 kb_part_walk_next(struct kb_part_walk *p)
{
	u64 pos = p->x;

	p->i++;
	p->x += p->y;
	if (p->x >= p->w)
		p->x -= p->w;
	p->y += p->i;
	while (p->y >= p->w)
		p->y -= p->w;
	return pos;
}

static bool kb_part_add(struct kb_filter *f, const struct kb_hash *h)
{
	struct kb_part_walk p;
	bool fresh = false;
	u64 base = 0;
	u32 i;

	kb_part_walk_init(&p, h, f->nblocks);
	for (i = 0; i < f->s.k; i++, base += f->nblocks) {
		u64 pos = base + kb_part_walk_next(&p);

		/* Read first: a set bit costs no locked write or line bounce. */
		if (!test_bit(pos, f->mem)) {
			set_bit(pos, f->mem);
			fresh = true;
		}
	}
	return fresh;
}

static bool kb_part_test(const struct kb_filter *f, const struct kb_hash *h)
{
	struct kb_part_walk p;
	u64 base = 0;
	u32 i;

	kb_part_walk_init(&p, h, f->nblocks);
	for (i = 0; i < f->s.k; i++, base += f->nblocks)
		if (!test_bit(base + kb_part_walk_next(&p), f->mem))
			return false;
	return true;
}

const struct kb_type_ops kb_partitioned_ops = {
	.check = kb_part_check,
	.multiple = kb_part_multiple,
	.mem = kb_part_mem,
	.setup = kb_part_setup,
	.add = kb_part_add,
	.test = kb_part_test,
	.fill = kb_bits_fill,
	.merge = kb_bits_merge,
	.union_fill = kb_bits_union_fill,
	.info = {
		.params = KB_TAKES_HASH_FN | KB_TAKES_BIT_CELLS,
		.caps = KB_CAP_WINDOWS,
	},
};
