// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The stable Bloom filter (Deng & Rafiei, "Approximately Detecting
 * Duplicates for Streaming Data using Stable Bloom Filters", SIGMOD 2006):
 * m cells of 1, 2, 4 or 8 bits, Max = 2^bits - 1. Each add first
 * decrements P cells (DECREMENT), then sets the key's k
 * cells (probed as bloom) to Max; a key tests present when its k cells
 * are all non-zero. Old keys fade, so the filter never fills up: the
 * fraction of zero cells tends to the stable point
 *	(1 / (1 + 1 / (P (1/k - 1/m))))^Max
 * and the false positive rate to (1 - that)^k; false negatives for keys
 * added long ago are part of the design.
 *
 * The P cells are consecutive, from a start drawn uniformly in [0, m)
 * (wrapping around the end), as the paper allows: every cell is still
 * decremented with probability exactly P/m per add, and a run of cells
 * costs a few word operations instead of P random cache misses.
 *
 * Cells are packed into 32-bit words as the counting filter's counters
 * are and change only by compare-and-exchange of their word, so adds
 * from many CPUs may run at once.
 */
#include "types.h"

static enum kb_shape_error kb_stable_check(const struct kb_shape *s)
{
	/* 1..KBLOOM_DECREMENT_MAX already (kb_params[]) */
	if (s->decrement > s->m)
		return KB_SHAPE_BAD_DECREMENT;
	return KB_SHAPE_OK;
}

static u64 kb_stable_mem(const struct kb_shape *s)
{
	return BITS_TO_LONGS(s->m * s->cell_bits) * sizeof(unsigned long);
}

/* log2 of the cells per 32-bit word. */
static inline u32 kb_stable_lg(const struct kb_filter *f)
{
	switch (f->s.cell_bits) {
	case 1:
		return 5;
	case 2:
		return 4;
	case 4:
		return 3;
	}
	return 2;
}

static inline u32 kb_stable_max(const struct kb_filter *f)
{
	return (1U << f->s.cell_bits) - 1;
}

static inline u32 *kb_stable_word(const struct kb_filter *f, u64 pos,
				  u32 *shift)
{
	u32 lg = kb_stable_lg(f);

	*shift = (u32)(pos & ((1U << lg) - 1)) * f->s.cell_bits;
	return (u32 *)f->mem + (pos >> lg);
}

/*
 * Cells [from, to) of 32-bit word @w lose one each, those at zero
 * excepted: the top bit of every non-zero cell, moved down to the cell's
 * lowest bit, is what to subtract (no borrow crosses a cell).
 */
static void kb_stable_dec_word(u32 *w, u32 bits, u32 from, u32 to)
{
	u32 lo = 0xffffffffU / ((1U << bits) - 1), hi = lo << (bits - 1);
	u32 range = (to * bits == 32 ? 0xffffffffU : (1U << to * bits) - 1) &
		    ~((1U << from * bits) - 1);
	u32 old = READ_ONCE(*w);

	for (;;) {
		u32 nz = (((old & ~hi) + ~hi) | old) & hi;
		u32 sub = (nz >> (bits - 1)) & range, cur;

		if (!sub)
			return;
		cur = kb_cmpxchg32(w, old, old - sub);
		if (cur == old)
			return;
		old = cur;
	}
}

/* Decrements cells [from, to), from < to <= m. */
static void kb_stable_dec_run(struct kb_filter *f, u64 from, u64 to)
{
	u32 lg = kb_stable_lg(f), per = 1U << lg;
	u32 *words = (u32 *)f->mem;

	while (from < to) {
		u64 w = from >> lg;
		u32 a = from & (per - 1);
		u32 b = to - (w << lg) < per ? (u32)(to - (w << lg)) : per;

		kb_stable_dec_word(&words[w], f->s.cell_bits, a, b);
		from = (w << lg) + b;
	}
}

/* A start for the P decremented cells, uniform in [0, m). */
static u64 kb_stable_start(u64 m)
{
	u64 r = kb_random_u32();

	if (m <= 0x100000000ULL)
		return (r * m) >> 32;
	return kb_reduce(r << 32 | kb_random_u32(), m);
}

static void kb_stable_decrement(struct kb_filter *f)
{
	u64 m = f->s.m, from = kb_stable_start(m), to = from + f->s.decrement;

	if (to <= m) {
		kb_stable_dec_run(f, from, to);
	} else {
		kb_stable_dec_run(f, from, m);
		kb_stable_dec_run(f, 0, to - m);
	}
}

static bool kb_stable_test(const struct kb_filter *f, const struct kb_hash *h)
{
	u32 max = kb_stable_max(f), shift, i;
	struct kb_probe p;

	kb_probe_init(&p, h, f->s.m);
	for (i = 0; i < f->s.k; i++) {
		u32 *w = kb_stable_word(f, kb_probe_next(&p), &shift);

		if (!((READ_ONCE(*w) >> shift) & max))
			return false;
	}
	return true;
}

/* Returns true when a test just before would have said absent. */
static bool kb_stable_add(struct kb_filter *f, const struct kb_hash *h)
{
	u32 max = kb_stable_max(f), shift, i;
	bool fresh = !kb_stable_test(f, h);
	struct kb_probe p;

	kb_stable_decrement(f);
	kb_probe_init(&p, h, f->s.m);
	for (i = 0; i < f->s.k; i++) {
		u32 *w = kb_stable_word(f, kb_probe_next(&p), &shift);
		u32 old = READ_ONCE(*w), cur;

		while (((old >> shift) & max) != max) {
			cur = kb_cmpxchg32(w, old, old | max << shift);
			if (cur == old)
				break;
			old = cur;
		}
	}
	return fresh;
}

const struct kb_type_ops kb_stable_ops = {
	.check = kb_stable_check,
	.mem = kb_stable_mem,
	.add = kb_stable_add,
	.test = kb_stable_test,
	.prefetch_key = kb_cells_prefetch,
	.fill = kb_cells_fill,
	.info = {
		.params = KB_TAKES_COUNTER_BITS | KB_TAKES_DECREMENT |
			  KB_TAKES_HASH_FN,
		.caps = KB_CAP_FORGETS,
		.counter_widths = 1 | 2 | 4 | 8,
	},
};
