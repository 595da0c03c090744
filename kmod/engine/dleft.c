// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The d-left counting filter (Bonomi, Mitzenmacher, Panigrahy,
 * Singh, Varghese, "An Improved Construction for Counting Bloom Filters",
 * ESA 2006): d subtables of B = m / (d * c) buckets of c cells. A cell is
 * one 32-bit word: an 8-bit counter in bits 24..31 and a fingerprint of
 * fp_bits bits in bits 0..23. Cell (t, b, j) is word (t * B + b) * c + j.
 *
 * Hashing: the key's hash gives one "true fingerprint" H = (b, r), a
 * bucket b in [0, B) (h1, multiply-shift) and a remainder r in
 * [0, 2^fp_bits) (low bits of h2). Subtable t stores H as (b_t, r_t) =
 * P_t(H), where P_t is a two-round Feistel permutation of
 * [0, B) x [0, 2^fp_bits):
 *	r_t = r + F_t(b) mod 2^fp_bits,  b_t = b + G_t(r_t) mod B,
 * inverted by b = b_t - G_t(r_t), r = r_t - F_t(b). So (t, b_t, r_t)
 * names exactly one H: two keys that meet in one subtable have the same H
 * and meet in every subtable, a key's cell can only ever be shared with
 * keys of the same H, and a delete never takes another key's cell. A
 * false positive is a query whose H equals a stored one: probability
 * 1 - (1 - 1/(B * 2^fp_bits))^n for n distinct stored keys. Given the
 * filter it is exactly (occupied cells in the query's d buckets) /
 * 2^fp_bits: each stored H sits in one cell, so the matches exclude each
 * other.
 *
 * An empty cell is 0; an occupied one has a counter of 1..255, so every
 * fingerprint value, 0 included, is usable. The counter saturates at 255
 * and is then never decremented.
 *
 * Overflow: when all d buckets of a new key are full, the cell with the
 * smallest counter in its leftmost bucket becomes a sticky overflow cell,
 * the value KB_DLEFT_STICKY (counter 0, fingerprint field all ones: never
 * an empty or occupied cell). A sticky cell matches every key that hashes
 * to its bucket and acts as a saturated counter for the keys that have no
 * cell of their own: they test present, count 255, and deleting or adding
 * them changes nothing. So no key is ever lost (the key that overflowed
 * and the one whose cell was taken both stay present), at the price of
 * false positives for 1/B of all keys per sticky cell. Sticky cells are
 * counted in kb_fill.saturated and only a clear removes them.
 *
 * Concurrency: every change is a compare-and-exchange of one cell; an
 * insert claims an empty cell by exchanging it from 0. When an exchange
 * fails the whole scan starts again. Two concurrent first adds of one key
 * may claim two cells: both hold the same H, so counts add them up and a
 * delete takes from either.
 */
#include "types.h"

#ifndef __KERNEL__
#include <errno.h>
#endif

#define KB_DLEFT_D_MAX		KBLOOM_SUBTABLES_MAX

#define KB_DLEFT_CTR_SHIFT	24
#define KB_DLEFT_ONE		0x01000000U	/* 1 << KB_DLEFT_CTR_SHIFT */
#define KB_DLEFT_CTR_MAX	255U
#define KB_DLEFT_FP_MASK	(KB_DLEFT_ONE - 1)
#define KB_DLEFT_STICKY		KB_DLEFT_FP_MASK

static u64 kb_dleft_multiple(const struct kb_shape *s)
{
	return s->subtables && s->bucket_cells ?
	       (u64)s->subtables * s->bucket_cells : 1;
}

static enum kb_shape_error kb_dleft_check(const struct kb_shape *s)
{
	if (s->k != 1)
		return KB_SHAPE_BAD_HASHES;
	/* subtables and bucket cells are in bounds (kb_params[]) */
	if (s->m % kb_dleft_multiple(s))
		return KB_SHAPE_BAD_BITS;
	return KB_SHAPE_OK;
}

static u64 kb_dleft_mem(const struct kb_shape *s)
{
	return BITS_TO_LONGS(s->m * 32) * sizeof(unsigned long);
}

/* f->nblocks: buckets per subtable, B. */
static void kb_dleft_setup(struct kb_filter *f)
{
	f->nblocks = f->s.m / (f->s.subtables * f->s.bucket_cells);
}

/* A key's d buckets (index of their first cell) and fingerprints. */
struct kb_dleft_key {
	u64 cell[KB_DLEFT_D_MAX];
	u32 fp[KB_DLEFT_D_MAX];
};

static void kb_dleft_key_init(const struct kb_filter *f,
			      const struct kb_hash *h, struct kb_dleft_key *key)
{
	u32 mask = (1U << f->s.fp_bits) - 1;
	u64 nb = f->nblocks, b = kb_reduce(h->h1, nb);
	u32 r = (u32)h->h2 & mask, t;

	for (t = 0; t < f->s.subtables; t++) {
		/* Round functions keyed by subtable (tag bits above b, r). */
		u32 rt = (r + (u32)kbloom_mix64(b ^ ((u64)(t + 1) << 56))) &
			 mask;
		u64 bt = b + kb_reduce(kbloom_mix64(rt ^ ((u64)(t + 1) << 48)),
				       nb);

		if (bt >= nb)
			bt -= nb;
		key->cell[t] = (t * nb + bt) * f->s.bucket_cells;
		key->fp[t] = rt;
	}
}

static inline u32 *kb_dleft_cells(const struct kb_filter *f)
{
	return (u32 *)f->mem;
}

/* An occupied cell holding fingerprint @fp. */
static inline bool kb_dleft_match(u32 v, u32 fp)
{
	return v >= KB_DLEFT_ONE && (v & KB_DLEFT_FP_MASK) == fp;
}

/*
 * One attempt at an add: 1 inserted (the key was absent), 0 counted in a
 * cell that was there already, -EAGAIN when another CPU changed a cell
 * under us.
 */
static int kb_dleft_try_add(struct kb_filter *f, const struct kb_dleft_key *key)
{
	u32 *cells = kb_dleft_cells(f), c = f->s.bucket_cells;
	u32 best_load = c, best_t = 0, *slot = NULL, *victim;
	bool sticky = false;
	u32 t, j, v;

	for (t = 0; t < f->s.subtables; t++) {
		u32 *bkt = cells + key->cell[t], load = 0, *empty = NULL;

		for (j = 0; j < c; j++) {
			v = READ_ONCE(bkt[j]);
			if (!v) {
				if (!empty)
					empty = &bkt[j];
				continue;
			}
			load++;
			if (v == KB_DLEFT_STICKY) {
				sticky = true;
			} else if (kb_dleft_match(v, key->fp[t])) {
				if (v >> KB_DLEFT_CTR_SHIFT == KB_DLEFT_CTR_MAX)
					return 0;
				if (kb_cmpxchg32(&bkt[j], v, v + KB_DLEFT_ONE) != v)
					return -EAGAIN;
				return 0;
			}
		}
		/* Least loaded, leftmost on ties. */
		if (load < best_load) {
			best_load = load;
			best_t = t;
			slot = empty;
		}
	}
	if (sticky)
		return 0;	/* counted by a saturated overflow cell */
	if (slot) {
		v = KB_DLEFT_ONE | key->fp[best_t];
		return kb_cmpxchg32(slot, 0, v) ? -EAGAIN : 1;
	}
	/* Overflow: the smallest counter of the leftmost bucket goes sticky. */
	victim = cells + key->cell[0];
	for (j = 1; j < c; j++)
		if (READ_ONCE(cells[key->cell[0] + j]) < READ_ONCE(*victim))
			victim = cells + key->cell[0] + j;
	v = READ_ONCE(*victim);
	if (!v || kb_cmpxchg32(victim, v, KB_DLEFT_STICKY) != v)
		return -EAGAIN;
	return 1;
}

static bool kb_dleft_add(struct kb_filter *f, const struct kb_hash *h)
{
	struct kb_dleft_key key;
	int ret;

	kb_dleft_key_init(f, h, &key);
	do {
		ret = kb_dleft_try_add(f, &key);
	} while (ret < 0);
	return ret;
}

static bool kb_dleft_test(const struct kb_filter *f, const struct kb_hash *h)
{
	const u32 *cells = kb_dleft_cells(f);
	struct kb_dleft_key key;
	u32 t, j;

	kb_dleft_key_init(f, h, &key);
	for (t = 0; t < f->s.subtables; t++) {
		for (j = 0; j < f->s.bucket_cells; j++) {
			u32 v = READ_ONCE(cells[key.cell[t] + j]);

			if (v == KB_DLEFT_STICKY || kb_dleft_match(v, key.fp[t]))
				return true;
		}
	}
	return false;
}

/*
 * The counters of the key's own cells (more than one only after racing
 * first adds); 255 when it has none but a sticky overflow cell covers it.
 */
static u32 kb_dleft_count(const struct kb_filter *f, const struct kb_hash *h)
{
	const u32 *cells = kb_dleft_cells(f);
	struct kb_dleft_key key;
	bool own = false, sticky = false;
	u32 t, j, n = 0;

	kb_dleft_key_init(f, h, &key);
	for (t = 0; t < f->s.subtables; t++) {
		for (j = 0; j < f->s.bucket_cells; j++) {
			u32 v = READ_ONCE(cells[key.cell[t] + j]);

			if (v == KB_DLEFT_STICKY) {
				sticky = true;
			} else if (kb_dleft_match(v, key.fp[t])) {
				n += v >> KB_DLEFT_CTR_SHIFT;
				own = true;
			}
		}
	}
	if (!own && sticky)
		return KB_DLEFT_CTR_MAX;
	return n;
}

/* 0 done (or saturated), -ENOENT absent, -EAGAIN raced: scan again. */
static int kb_dleft_try_del(struct kb_filter *f, const struct kb_dleft_key *key)
{
	u32 *cells = kb_dleft_cells(f);
	bool sticky = false;
	u32 t, j;

	for (t = 0; t < f->s.subtables; t++) {
		for (j = 0; j < f->s.bucket_cells; j++) {
			u32 *cell = cells + key->cell[t] + j;
			u32 v = READ_ONCE(*cell), to;

			if (v == KB_DLEFT_STICKY) {
				sticky = true;
				continue;
			}
			if (!kb_dleft_match(v, key->fp[t]))
				continue;
			if (v >> KB_DLEFT_CTR_SHIFT == KB_DLEFT_CTR_MAX)
				return 0;
			/* The last count frees the cell. */
			to = v < 2 * KB_DLEFT_ONE ? 0 : v - KB_DLEFT_ONE;
			return kb_cmpxchg32(cell, v, to) == v ? 0 : -EAGAIN;
		}
	}
	return sticky ? 0 : -ENOENT;
}

static int kb_dleft_del(struct kb_filter *f, const struct kb_hash *h)
{
	struct kb_dleft_key key;
	int ret;

	kb_dleft_key_init(f, h, &key);
	do {
		ret = kb_dleft_try_del(f, &key);
	} while (ret == -EAGAIN);
	return ret;
}

/* Non-empty cells; saturated: counters at 255 and sticky overflow cells. */
static void kb_dleft_fill(const struct kb_filter *f, struct kb_fill *out)
{
	const u32 *cells = kb_dleft_cells(f);
	u64 i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < f->s.m; i++) {
		u32 v = READ_ONCE(cells[i]);

		out->nonzero += v != 0;
		out->saturated += v == KB_DLEFT_STICKY ||
				  v >> KB_DLEFT_CTR_SHIFT == KB_DLEFT_CTR_MAX;
		if (!((i + 1) % (KB_CHUNK_WORDS * 2)))
			kb_resched();
	}
}

const struct kb_type_ops kb_dleft_ops = {
	.check = kb_dleft_check,
	.multiple = kb_dleft_multiple,
	.mem = kb_dleft_mem,
	.setup = kb_dleft_setup,
	.add = kb_dleft_add,
	.test = kb_dleft_test,
	.del = kb_dleft_del,
	.count = kb_dleft_count,
	.fill = kb_dleft_fill,
	.info = {
		.params = KB_TAKES_DLEFT | KB_TAKES_HASH_FN,
		.caps = KB_CAP_WINDOWS | KB_CAP_DELETE,
	},
};
