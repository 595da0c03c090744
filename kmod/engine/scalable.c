// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The scalable Bloom filter (Almeida, Baquero, Preguica, Hutchison,
 * "Scalable Bloom Filters", Information Processing Letters 101(6), 2007):
 * a list of plain bloom "slices", slice i of capacity n0 s^i at a false
 * positive rate about P0 r^i, so the compound rate
 * 1 - prod(1 - P0 r^i) stays below P0 / (1 - r) however many keys come.
 * The plan (m_i, k_i, n_i) and the per-slice hashing are specified in
 * uapi/kbloom.h; this file is their reference.
 *
 * Concurrency. Adds and tests run from any number of CPUs without a lock:
 * @cur (the slice taking inserts) moves forward by compare-and-exchange,
 * slices are published with a release store of their pointer and of
 * @nslices, and readers load both with acquire. Keys are counted per slice
 * with one atomic increment per key that set a bit. Making a slice
 * (kb_scalable_grow, kb_scalable_fail) and clearing are the owner's, one
 * at a time, where it may allocate: the engine only asks for a slice
 * through the kick callback, which must not sleep. A slice, once
 * published, lives until the filter is freed, so readers need no grace
 * period for it.
 */
#include "scalable.h"
#include "types.h"

#ifndef __KERNEL__
#include <errno.h>
#endif

#define KB_INV_LN2_Q32	0x171547652ULL	/* 2^32 / ln 2, rounded */
#define KB_MILLION	1000000U

struct kb_slice {
	struct kb_filter f;	/* a bloom filter of m_i bits, k_i hashes */
	u64 capacity;		/* n_i */
	kb_atomic64_t keys;	/* keys that set a bit in it */
};

struct kb_scal {
	u64 log2_q32;		/* log2(1/r), 32.32 */
	u64 step_q32;		/* E = log2(1/r) / ln 2, 32.32 */
	u32 nslices;		/* slices made; release/acquire */
	u32 cur;		/* slice taking inserts, < nslices */
	u32 grow_error;		/* enum kbloom_grow; 0 while it grows */
	kb_atomic64_t overflow;	/* keys added beyond a full slice */
	void (*kick)(void *arg);
	void *kick_arg;
	struct kb_slice *slice[KBLOOM_SLICES_MAX];
};

/* log2(@x) in 32.32 fixed point, @x >= 1: integer part, then squarings. */
static u64 kb_log2_q32(u32 x)
{
	u64 ip = 0, frac = 0, z;
	int i;

	while (x >> (ip + 1))
		ip++;
	/* x / 2^ip in 1.31: [1, 2) */
	z = ((u64)x << 31) >> ip;
	for (i = 31; i >= 0; i--) {
		z = (z * z) >> 31;
		if (z >= 1ULL << 32) {
			z >>= 1;
			frac |= 1ULL << i;
		}
	}
	return ip << 32 | frac;
}

u64 kb_scalable_log2_inv_q32(u32 tighten)
{
	return kb_log2_q32(KB_MILLION) - kb_log2_q32(tighten);
}

u64 kb_scalable_bits_step_q32(u32 tighten)
{
	return mul_u64_u64_shr(kb_scalable_log2_inv_q32(tighten),
			       KB_INV_LN2_Q32, 32);
}

static enum kb_shape_error kb_scal_check(const struct kb_shape *s)
{
	/* At least a bit per key: keeps the plan's products in 64 bits. */
	if (!s->capacity || s->capacity > s->m)
		return KB_SHAPE_BAD_CAPACITY;
	return KB_SHAPE_OK;
}

/* A slice's bits, in whole longs. */
static u64 kb_slice_cells(u64 m)
{
	return BITS_TO_LONGS(m) * sizeof(unsigned long);
}

/* Slice 0's bits: the filter the user sized. */
static u64 kb_scal_cells(const struct kb_shape *s)
{
	return kb_slice_cells(s->m);
}

static u64 kb_slice_bytes(u64 m)
{
	return kb_slice_cells(m) + sizeof(struct kb_slice);
}

/* What creating the filter takes: the list and slice 0. */
static u64 kb_scal_mem(const struct kb_shape *s)
{
	return sizeof(struct kb_scal) + kb_slice_bytes(s->m);
}

/* Slice @i of the plan: its bloom shape and capacity; false: none. */
static bool kb_scal_plan_q(const struct kb_shape *s, u64 log2_q32,
			   u64 step_q32, u32 i, struct kb_shape *out, u64 *cap)
{
	u64 n = s->capacity, m = s->m, k;
	u32 j;

	if (i >= KBLOOM_SLICES_MAX)
		return false;
	for (j = 0; j < i; j++) {
		if (m > KBLOOM_BITS_MAX / s->growth)
			return false;
		m *= s->growth;
		n *= s->growth;
	}
	/* n <= m <= 2^33 and i < 32: i * n fits easily. */
	m += mul_u64_u64_shr((u64)i * n, step_q32, 32);
	m = (m + 63) & ~63ULL;
	k = s->k + (((u64)i * log2_q32 + (1ULL << 31)) >> 32);
	if (m > KBLOOM_BITS_MAX || k > KBLOOM_HASHES_MAX)
		return false;
	memset(out, 0, sizeof(*out));
	out->type = KBLOOM_TYPE_BLOOM;
	out->m = m;
	out->k = k;
	*cap = n;
	return true;
}

static bool kb_scal_plan(const struct kb_filter *f, u32 i,
			 struct kb_shape *out, u64 *cap)
{
	return kb_scal_plan_q(&f->s, f->scal->log2_q32, f->scal->step_q32, i,
			      out, cap);
}

bool kb_scalable_plan(const struct kb_shape *s, u32 i, u64 *m, u32 *k,
		      u64 *cap)
{
	struct kb_shape one;

	if (kb_filter_check_shape(s) != KB_SHAPE_OK ||
	    !kb_scal_plan_q(s, kb_scalable_log2_inv_q32(s->tighten),
			    kb_scalable_bits_step_q32(s->tighten), i, &one, cap))
		return false;
	*m = one.m;
	*k = one.k;
	return true;
}

u64 kb_scalable_load_mem(const struct kb_shape *s, u32 nslices)
{
	u64 m, cap, bytes = kb_scal_mem(s);
	u32 i, k;

	if (nslices < 1 || nslices > KBLOOM_SLICES_MAX)
		return KB_NO_PLAN;
	for (i = 1; i < nslices; i++) {
		if (!kb_scalable_plan(s, i, &m, &k, &cap))
			return KB_NO_PLAN;
		bytes += kb_slice_bytes(m);
	}
	return bytes > KBLOOM_MEM_MAX ? KB_NO_PLAN : bytes - kb_scal_mem(s);
}

static inline struct kb_slice *kb_scal_slice(const struct kb_scal *sc, u32 i)
{
	/* Pairs with kb_scalable_grow()'s release: a slice seen is made. */
	return smp_load_acquire(&sc->slice[i]);
}

static inline u32 kb_scal_made(const struct kb_scal *sc)
{
	/* Pairs with the release of nslices: slices below it are made. */
	return smp_load_acquire(&sc->nslices);
}

static inline u32 kb_scal_cur(const struct kb_scal *sc)
{
	/* Pairs with the (fully ordered) exchange that moved cur on. */
	return smp_load_acquire(&sc->cur);
}

static u64 kb_scal_mem_now(const struct kb_filter *f)
{
	const struct kb_scal *sc = f->scal;
	u32 i, n = kb_scal_made(sc);
	u64 bytes = sizeof(*sc);

	for (i = 0; i < n; i++)
		bytes += kb_slice_bytes(kb_scal_slice(sc, i)->f.s.m);
	return bytes;
}

u32 kb_scalable_next(const struct kb_filter *f, struct kb_shape *s,
		     u64 *bytes)
{
	u64 cap;

	if (!kb_scal_plan(f, f->scal->nslices, s, &cap))
		return KBLOOM_GROW_SHAPE_LIMIT;
	*bytes = kb_slice_bytes(s->m);
	if (kb_scal_mem_now(f) + *bytes > KBLOOM_MEM_MAX)
		return KBLOOM_GROW_FILTER_LIMIT;
	return KBLOOM_GROW_OK;
}

int kb_scalable_grow(struct kb_filter *f)
{
	static const u8 nokey[16];
	struct kb_scal *sc = f->scal;
	u32 i = sc->nslices;
	struct kb_slice *sl;
	struct kb_shape s;
	u64 cap;

	if (!kb_scal_plan(f, i, &s, &cap))
		return -ENOSPC;
	sl = kb_zalloc_large(sizeof(*sl));
	if (!sl)
		return -ENOMEM;
	/* Slices hash nothing themselves: the filter's key hashes for them. */
	if (kb_filter_init(&sl->f, &s, nokey)) {
		kb_free_large(sl);
		return -ENOMEM;
	}
	sl->capacity = cap;
	kb_atomic64_set(&sl->keys, 0);
	/* The slice is made before its pointer is seen (kb_scal_slice). */
	smp_store_release(&sc->slice[i], sl);
	/* ... and before anyone counts it (kb_scal_made). */
	smp_store_release(&sc->nslices, i + 1);
	return 0;
}

void kb_scalable_fail(struct kb_filter *f, u32 why)
{
	WRITE_ONCE(f->scal->grow_error, why);
}

static int kb_scal_init(struct kb_filter *f)
{
	struct kb_scal *sc = kb_zalloc_large(sizeof(*sc));

	if (!sc)
		return -ENOMEM;
	f->scal = sc;
	sc->log2_q32 = kb_scalable_log2_inv_q32(f->s.tighten);
	sc->step_q32 = kb_scalable_bits_step_q32(f->s.tighten);
	kb_atomic64_set(&sc->overflow, 0);
	return kb_scalable_grow(f) ? -ENOMEM : 0;
}

static void kb_scal_release(struct kb_filter *f)
{
	struct kb_scal *sc = f->scal;
	u32 i;

	if (!sc)
		return;
	for (i = 0; i < sc->nslices; i++) {
		kb_filter_free(&sc->slice[i]->f);
		kb_free_large(sc->slice[i]);
	}
	kb_free_large(sc);
	f->scal = NULL;
}

/* Slice @i's hash pair, derived from the key's (uapi/kbloom.h). */
static inline void kb_scal_hash(const struct kb_hash *h, u32 i,
				struct kb_hash *out)
{
	if (!i) {
		*out = *h;
		return;
	}
	out->h1 = kbloom_mix64(h->h1 ^ ((u64)i << 48));
	out->h2 = kbloom_mix64(out->h1);
}

static inline bool kb_scal_in(const struct kb_scal *sc, u32 i,
			      const struct kb_hash *h)
{
	struct kb_hash hi;

	kb_scal_hash(h, i, &hi);
	return kb_filter_test_hash(&kb_scal_slice(sc, i)->f, &hi);
}

/* Keys in the current slice when no next slice is made, else 0. */
static u64 kb_scal_last_keys(const struct kb_scal *sc,
			     const struct kb_slice **out)
{
	u32 c = READ_ONCE(sc->cur);

	if (READ_ONCE(sc->grow_error) || kb_scal_made(sc) != c + 1)
		return 0;
	*out = kb_scal_slice(sc, c);
	return kb_atomic64_read(&(*out)->keys);
}

bool kb_scalable_wants_slice(const struct kb_filter *f)
{
	const struct kb_slice *sl;
	u64 n = kb_scal_last_keys(f->scal, &sl);

	return n && n >= (sl->capacity + 1) / 2;
}

bool kb_scalable_full(const struct kb_filter *f)
{
	const struct kb_slice *sl;
	u64 n = kb_scal_last_keys(f->scal, &sl);

	return n && n >= sl->capacity;
}

static bool kb_scal_add(struct kb_filter *f, const struct kb_hash *h)
{
	struct kb_scal *sc = f->scal;
	struct kb_slice *sl;
	struct kb_hash hc;
	u64 n;
	u32 c, i;

	for (;;) {
		c = kb_scal_cur(sc);
		sl = kb_scal_slice(sc, c);
		if ((u64)kb_atomic64_read(&sl->keys) < sl->capacity ||
		    c + 1 >= kb_scal_made(sc))
			break;
		/* Full, and the next slice is made: one CPU moves on. */
		kb_cmpxchg32(&sc->cur, c, c + 1);
	}
	for (i = 0; i < c; i++)
		if (kb_scal_in(sc, i, h))
			return false;
	kb_scal_hash(h, c, &hc);
	if (!kb_filter_add_hash(&sl->f, &hc))
		return false;
	n = kb_atomic64_inc_return(&sl->keys);
	if (n > sl->capacity)
		kb_atomic64_inc(&sc->overflow);
	if ((n == (sl->capacity + 1) / 2 || n >= sl->capacity) && sc->kick &&
	    kb_scalable_wants_slice(f))
		sc->kick(sc->kick_arg);
	return true;
}

/* Newest first: the largest slices hold most keys. */
static bool kb_scal_test(const struct kb_filter *f, const struct kb_hash *h)
{
	const struct kb_scal *sc = f->scal;
	u32 i = kb_scal_cur(sc) + 1;

	while (i--)
		if (kb_scal_in(sc, i, h))
			return true;
	return false;
}

static void kb_scal_fill(const struct kb_filter *f, struct kb_fill *out)
{
	const struct kb_scal *sc = f->scal;
	u32 i, n = kb_scal_made(sc);
	struct kb_fill one;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		kb_bits_fill(&kb_scal_slice(sc, i)->f, &one);
		out->nonzero += one.nonzero;
	}
}

/* Owner only. Concurrent adds may land in a slice being emptied. */
static void kb_scal_clear(struct kb_filter *f)
{
	struct kb_scal *sc = f->scal;
	u32 i;

	/* Adders see slice 0 current before its emptied cells. */
	smp_store_release(&sc->cur, 0);
	for (i = 0; i < sc->nslices; i++) {
		kb_filter_clear(&sc->slice[i]->f);
		kb_atomic64_set(&sc->slice[i]->keys, 0);
	}
	kb_atomic64_set(&sc->overflow, 0);
	WRITE_ONCE(sc->grow_error, KBLOOM_GROW_OK);
}

bool kb_filter_is_scalable(const struct kb_filter *f)
{
	return f->ops == &kb_scalable_ops;
}

u32 kb_scalable_slices(const struct kb_filter *f)
{
	return kb_scal_made(f->scal);
}

void kb_scalable_slice(const struct kb_filter *f, u32 i,
		       struct kb_slice_info *out)
{
	const struct kb_slice *sl = kb_scal_slice(f->scal, i);
	struct kb_fill fill;

	kb_bits_fill(&sl->f, &fill);
	out->m = sl->f.s.m;
	out->k = sl->f.s.k;
	out->capacity = sl->capacity;
	out->keys = kb_atomic64_read(&sl->keys);
	out->fill = fill.nonzero;
	out->is_current = i == READ_ONCE(f->scal->cur);
}

u64 kb_scalable_overflow(const struct kb_filter *f)
{
	return kb_atomic64_read(&f->scal->overflow);
}

u32 kb_scalable_grow_error(const struct kb_filter *f)
{
	return READ_ONCE(f->scal->grow_error);
}

void kb_scalable_set_kick(struct kb_filter *f, void (*kick)(void *arg),
			  void *arg)
{
	f->scal->kick_arg = arg;
	WRITE_ONCE(f->scal->kick, kick);
}

int kb_scalable_load(struct kb_filter *f, u32 nslices, u32 cur,
		     const u64 *keys, u64 overflow)
{
	struct kb_scal *sc = f->scal;
	u32 i;
	int err;

	if (cur >= nslices || nslices > KBLOOM_SLICES_MAX)
		return -EINVAL;
	while (sc->nslices < nslices) {
		err = kb_scalable_grow(f);
		if (err)
			return err;
	}
	for (i = 0; i < nslices; i++)
		kb_atomic64_set(&sc->slice[i]->keys, keys[i]);
	kb_atomic64_set(&sc->overflow, overflow);
	WRITE_ONCE(sc->cur, cur);
	return 0;
}

/* Changes whenever a slice is made or the current one moves on. */
static u64 kb_scal_layout(const struct kb_filter *f)
{
	return kb_scal_made(f->scal) << 16 | kb_scal_cur(f->scal);
}

/* The transfer stream: every slice's cells in slice order. */
static void *kb_scal_xfer(const struct kb_filter *f, u64 off, u64 *len)
{
	const struct kb_scal *sc = f->scal;
	u32 i, n = kb_scal_made(sc);

	for (i = 0; i < n; i++) {
		struct kb_slice *sl = kb_scal_slice(sc, i);
		u64 bytes = sl->f.nwords * sizeof(unsigned long);

		if (off < bytes) {
			*len = bytes - off;
			return (u8 *)sl->f.mem + off;
		}
		off -= bytes;
	}
	*len = 0;
	return NULL;
}

static u64 kb_scal_xfer_bytes(const struct kb_filter *f)
{
	const struct kb_scal *sc = f->scal;
	u32 i, n = kb_scal_made(sc);
	u64 bytes = 0;

	for (i = 0; i < n; i++)
		bytes += kb_scal_slice(sc, i)->f.nwords * sizeof(unsigned long);
	return bytes;
}

static u32 kb_scal_grow_next(const struct kb_filter *f, u64 *bytes)
{
	struct kb_shape s;

	return kb_scalable_next(f, &s, bytes);
}

static u64 kb_scal_load_mem(const struct kb_shape *s,
			    const struct kb_saved *l)
{
	return kb_scalable_load_mem(s, l->nslices);
}

static int kb_scal_load(struct kb_filter *f, const struct kb_saved *l)
{
	return kb_scalable_load(f, l->nslices, l->cur, l->keys, l->overflow);
}

/* A slice is wanted at half the current one's capacity, due when full. */
static const struct kb_grow_ops kb_scal_grow = {
	.kind = KB_GROW_SLICES,
	.set_kick = kb_scalable_set_kick,
	.wanted = kb_scalable_wants_slice,
	.due = kb_scalable_full,
	.next = kb_scal_grow_next,
	.make = kb_scalable_grow,
	.fail = kb_scalable_fail,
	.error = kb_scalable_grow_error,
	.overflow = kb_scalable_overflow,
	.load_mem = kb_scal_load_mem,
	.load = kb_scal_load,
};

const struct kb_type_ops kb_scalable_ops = {
	.check = kb_scal_check,
	.mem = kb_scal_mem,
	.cells = kb_scal_cells,
	.add = kb_scal_add,
	.test = kb_scal_test,
	.fill = kb_scal_fill,
	.init = kb_scal_init,
	.release = kb_scal_release,
	.clear = kb_scal_clear,
	.mem_now = kb_scal_mem_now,
	.xfer = kb_scal_xfer,
	.xfer_bytes = kb_scal_xfer_bytes,
	.layout = kb_scal_layout,
	.info = {
		.params = KB_TAKES_PLAN | KB_TAKES_HASH_FN | KB_TAKES_BIT_CELLS,
		.grow = &kb_scal_grow,
	},
};
