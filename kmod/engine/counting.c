// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The counting Bloom filter (Fan, Cao, Almeida, Broder, "Summary Cache: A
 * Scalable Wide-Area Web Cache Sharing Protocol", IEEE/ACM ToN 8(3), 2000):
 * m saturating counters of 4, 8 or 16 bits, probed exactly as the plain
 * Bloom filter. A key's count is the minimum of its k counters (min
 * selection); with conservative update ("minimal increase") an add raises
 * only the counters that hold that minimum (both from Cohen and Matias,
 * "Spectral Bloom Filters", SIGMOD 2003).
 *
 * Counters are packed into 32-bit words, 32 / cell_bits to a word, so a
 * counter never straddles two words: counter i is bits
 * (i % per_word) * cell_bits.. of 32-bit word i / per_word. Every change
 * is a compare-and-exchange of its whole word, so concurrent adds from
 * many CPUs never lose or tear a neighbouring counter.
 *
 * A counter at its maximum (15, 255, 65535) is saturated: it is never
 * incremented nor decremented again, so saturation can make a count too
 * high but never makes a key look absent. A probe position that repeats
 * among one key's k probes counts once per probe, in add and del alike,
 * so deleting what was added restores the counters exactly (unless a
 * counter saturated in between).
 */
#include "types.h"

#ifndef __KERNEL__
#include <errno.h>
#endif

/* ceil(m * cell_bits / 32) words, rounded up to whole longs. */
static u64 kb_counting_mem(const struct kb_shape *s)
{
	return BITS_TO_LONGS(s->m * s->cell_bits) * sizeof(unsigned long);
}

/* Where counter @pos lives: its 32-bit word and the shift inside it. */
struct kb_ctr {
	u32 *word;
	u32 shift;
};

static inline u32 kb_ctr_max(const struct kb_filter *f)
{
	return (1U << f->s.cell_bits) - 1;
}

static inline void kb_ctr_at(const struct kb_filter *f, u64 pos,
			     struct kb_ctr *c)
{
	/* log2 of the counters per word: 3, 2 or 1 for 4, 8 or 16 bits. */
	u32 lg = f->s.cell_bits == 4 ? 3 : f->s.cell_bits == 8 ? 2 : 1;

	c->word = (u32 *)f->mem + (pos >> lg);
	c->shift = (u32)(pos & ((1U << lg) - 1)) * f->s.cell_bits;
}

static inline u32 kb_ctr_get(const struct kb_ctr *c, u32 max)
{
	return (READ_ONCE(*c->word) >> c->shift) & max;
}

/* Adds one unless saturated; returns the value found before. */
static u32 kb_ctr_inc(const struct kb_ctr *c, u32 max)
{
	u32 old = READ_ONCE(*c->word);

	for (;;) {
		u32 v = (old >> c->shift) & max;
		u32 cur;

		if (v == max)
			return v;
		cur = kb_cmpxchg32(c->word, old, old + (1U << c->shift));
		if (cur == old)
			return v;
		old = cur;
	}
}

/* Takes one away unless zero or saturated. */
static void kb_ctr_dec(const struct kb_ctr *c, u32 max)
{
	u32 old = READ_ONCE(*c->word);

	for (;;) {
		u32 v = (old >> c->shift) & max;
		u32 cur;

		if (v == max || !v)
			return;
		cur = kb_cmpxchg32(c->word, old, old - (1U << c->shift));
		if (cur == old)
			return;
		old = cur;
	}
}

/*
 * Moves the counter from @seen to @to; false when it no longer holds
 * @seen (another CPU changed it). Changes elsewhere in the word only make
 * the exchange try again.
 */
static bool kb_ctr_move(const struct kb_ctr *c, u32 max, u32 seen, u32 to)
{
	u32 old = READ_ONCE(*c->word);

	for (;;) {
		u32 cur;

		if (((old >> c->shift) & max) != seen)
			return false;
		cur = kb_cmpxchg32(c->word, old, (old & ~(max << c->shift)) |
				   (to << c->shift));
		if (cur == old)
			return true;
		old = cur;
	}
}

/*
 * One key's counters, for the operations that look at all of them before
 * changing any. @dup[i]: how many earlier probes hit the same counter.
 */
struct kb_ctr_key {
	u64 pos[KBLOOM_HASHES_MAX];
	u8 dup[KBLOOM_HASHES_MAX];
};

static void kb_ctr_key_init(const struct kb_filter *f, const struct kb_hash *h,
			    struct kb_ctr_key *key)
{
	struct kb_probe p;
	u32 i, j;

	kb_probe_init(&p, h, f->s.m);
	for (i = 0; i < f->s.k; i++) {
		key->pos[i] = kb_probe_next(&p);
		key->dup[i] = 0;
		for (j = 0; j < i; j++)
			key->dup[i] += key->pos[j] == key->pos[i];
	}
}

static inline u32 kb_ctr_key_get(const struct kb_filter *f,
				 const struct kb_ctr_key *key, u32 i, u32 max)
{
	struct kb_ctr c;

	kb_ctr_at(f, key->pos[i], &c);
	return kb_ctr_get(&c, max);
}

/*
 * Conservative update, made safe against concurrent adds: read the k
 * counters, then move each one below min + 1 from the value read to
 * min + 1; if any of them changed meanwhile, read again and redo (the
 * counters already raised stay raised: an overestimate at worst). Two
 * adds of one key can never both complete a round from the same minimum
 * (the second's exchange on a counter the first raised fails), so every
 * completed add raises the key's minimum: counts never fall below the
 * number of adds.
 */
static bool kb_counting_add_min(struct kb_filter *f, const struct kb_hash *h)
{
	u32 max = kb_ctr_max(f), seen[KBLOOM_HASHES_MAX];
	struct kb_ctr_key key;
	bool first = true, fresh = false;
	struct kb_ctr c;
	u32 i, min;

	kb_ctr_key_init(f, h, &key);
	for (;;) {
		min = max;
		for (i = 0; i < f->s.k; i++) {
			seen[i] = kb_ctr_key_get(f, &key, i, max);
			if (seen[i] < min)
				min = seen[i];
		}
		if (first)
			fresh = !min;
		first = false;
		if (min == max)
			return fresh;
		for (i = 0; i < f->s.k; i++) {
			if (key.dup[i] || seen[i] > min)
				continue;
			kb_ctr_at(f, key.pos[i], &c);
			if (!kb_ctr_move(&c, max, min, min + 1))
				break;
		}
		if (i == f->s.k)
			return fresh;
	}
}

bool kb_counting_add(struct kb_filter *f, const struct kb_hash *h)
{
	u32 max = kb_ctr_max(f);
	struct kb_probe p;
	bool fresh = false;
	struct kb_ctr c;
	u32 i;

	if (f->s.update == KBLOOM_UPDATE_CONSERVATIVE)
		return kb_counting_add_min(f, h);
	kb_probe_init(&p, h, f->s.m);
	for (i = 0; i < f->s.k; i++) {
		kb_ctr_at(f, kb_probe_next(&p), &c);
		if (!kb_ctr_inc(&c, max))
			fresh = true;
	}
	return fresh;
}

static u32 kb_counting_count(const struct kb_filter *f,
			     const struct kb_hash *h)
{
	u32 max = kb_ctr_max(f), min = max;
	struct kb_probe p;
	struct kb_ctr c;
	u32 i;

	kb_probe_init(&p, h, f->s.m);
	for (i = 0; i < f->s.k && min; i++) {
		u32 v;

		kb_ctr_at(f, kb_probe_next(&p), &c);
		v = kb_ctr_get(&c, max);
		if (v < min)
			min = v;
	}
	return min;
}

static bool kb_counting_test(const struct kb_filter *f,
			     const struct kb_hash *h)
{
	return kb_counting_count(f, h) != 0;
}

/*
 * Conservative update may leave a key's counters below its count, so a
 * delete could take another key's increments: refused.
 */
static bool kb_counting_may_delete(const struct kb_filter *f)
{
	return f->s.update != KBLOOM_UPDATE_CONSERVATIVE;
}

/*
 * Plain update only (kb_counting_may_delete). A counter
 * that k probes hit r times must hold at least r, unless saturated, for
 * the key to be possibly present; only then is anything decremented.
 * Concurrent adds only raise counters, so the check stays true.
 */
static int kb_counting_del(struct kb_filter *f, const struct kb_hash *h)
{
	u32 max = kb_ctr_max(f);
	struct kb_ctr_key key;
	struct kb_ctr c;
	u32 i;

	kb_ctr_key_init(f, h, &key);
	for (i = 0; i < f->s.k; i++) {
		u32 v = kb_ctr_key_get(f, &key, i, max);

		if (v != max && v <= key.dup[i])
			return -ENOENT;
	}
	for (i = 0; i < f->s.k; i++) {
		kb_ctr_at(f, key.pos[i], &c);
		kb_ctr_dec(&c, max);
	}
	return 0;
}

/*
 * Whole-array scans work on longs: 0x11..1 times the counter maximum, so
 * the lowest bit of every counter (@lo) and the highest (@hi), whatever
 * the width of a long.
 */
struct kb_lanes {
	unsigned long lo;
	unsigned long hi;
};

static inline void kb_lanes_init(struct kb_lanes *l, u32 bits)
{
	l->lo = ~0UL / ((1UL << bits) - 1);
	l->hi = l->lo << (bits - 1);
}

/* The top bit of every non-zero counter of @x. */
static inline unsigned long kb_lanes_nonzero(const struct kb_lanes *l,
					     unsigned long x)
{
	return (((x & ~l->hi) + ~l->hi) | x) & l->hi;
}

/* One word of dst op src, counter by counter. */
static u32 kb_counting_merge_word(u32 d, u32 s, u32 bits, u32 op)
{
	u32 max = (1U << bits) - 1, out = 0, sh;

	for (sh = 0; sh < 32; sh += bits) {
		u32 a = (d >> sh) & max, b = (s >> sh) & max, v;

		if (op == KBLOOM_MERGE_OR)
			v = a + b > max ? max : a + b;
		else
			v = a < b ? a : b;
		out |= v << sh;
	}
	return out;
}

/*
 * OR adds counters (saturating), AND keeps the smaller. Word by word with
 * compare-and-exchange: adds running on dst meanwhile are not lost.
 */
static int kb_counting_merge(struct kb_filter *dst, const struct kb_filter *src,
			     u32 op)
{
	u64 w, nw = dst->nwords * (sizeof(unsigned long) / sizeof(u32));
	const u32 *s = (const u32 *)src->mem;
	u32 *d = (u32 *)dst->mem;

	for (w = 0; w < nw; w++) {
		u32 sv = READ_ONCE(s[w]), old = READ_ONCE(d[w]), cur;

		for (;;) {
			cur = kb_cmpxchg32(&d[w], old,
					   kb_counting_merge_word(old, sv,
								  dst->s.cell_bits,
								  op));
			if (cur == old)
				break;
			old = cur;
		}
		if (!((w + 1) % KB_CHUNK_WORDS))
			kb_resched();
	}
	return 0;
}

static u64 kb_counting_union_fill(const struct kb_filter *a,
				  const struct kb_filter *b)
{
	struct kb_lanes l;
	u64 w, n = 0;

	kb_lanes_init(&l, a->s.cell_bits);
	for (w = 0; w < a->nwords; w++) {
		n += hweight_long(kb_lanes_nonzero(&l, READ_ONCE(a->mem[w])) |
				  kb_lanes_nonzero(&l, READ_ONCE(b->mem[w])));
		if (!((w + 1) % KB_CHUNK_WORDS))
			kb_resched();
	}
	return n;
}

const struct kb_type_ops kb_counting_ops = {
	.mem = kb_counting_mem,
	.add = kb_counting_add,
	.test = kb_counting_test,
	.del = kb_counting_del,
	.count = kb_counting_count,
	.prefetch_key = kb_cells_prefetch,
	.fill = kb_cells_fill,
	.merge = kb_counting_merge,
	.union_fill = kb_counting_union_fill,
	.may_delete = kb_counting_may_delete,
	.info = {
		.params = KB_TAKES_COUNTER_BITS | KB_TAKES_UPDATE |
			  KB_TAKES_HASH_FN,
		.caps = KB_CAP_WINDOWS | KB_CAP_DELETE,
		.counter_widths = 4 | 8 | 16,
	},
};
