// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The dynamic count filter (Aguilar-Saborit, Trancoso, Muntes-Mulero,
 * Larriba-Pey, "Dynamic Count Filters", SIGMOD Record 35(1), 2006): a
 * counting Bloom filter of small fixed counters (the CBFV, x bits each,
 * in f->mem, packed as counting.c packs its counters) plus an
 * overflow vector (the OFV, y bits per cell, 32 / y to a 32-bit word)
 * that counts how often each CBFV counter wrapped. Cell i holds
 * OFV[i] * 2^x + CBFV[i]: exact counts of any size, with wide counters
 * only as wide as the largest count needs. y starts at 1 and doubles.
 *
 * Concurrency (uapi/kbloom.h has the contract):
 *  - a CBFV counter below 2^x - 1 (increment) or above 0 (decrement)
 *    changes by compare-and-exchange of its word, no lock;
 *  - a carry or a borrow changes the CBFV counter (still by exchange:
 *    lock-free neighbours share its word) and the OFV counter together
 *    under @lock, a sequence lock; only lock holders write the OFV;
 *  - a reader of a whole count reads both halves inside a read section
 *    and retries when a writer was there, so it never sees a carry half
 *    done;
 *  - widening copies the OFV into one twice as wide under the lock and
 *    swaps the pointer; the old vector is kept until the owner retires it
 *    after a grace period (readers hold it only under RCU in the kernel).
 * A carry whose OFV counter is at its maximum cannot be stored: it is
 * dropped and counted in @lost (the CBFV counter stays at its maximum, so
 * the cell stays non-zero: no false negative).
 */
#include "dcf.h"
#include "types.h"

#ifndef __KERNEL__
#include <errno.h>
#endif

#define KB_DCF_OFV_BITS_START	1

struct kb_dcf {
	kb_seqlock_t lock;	/* carries, borrows, widening */
	u32 *ofv;		/* m counters of ofv_bits; written under lock */
	u32 ofv_bits;		/* 1, 2, 4, 8, 16, 32 */
	u32 *retired;		/* the OFV the last widening replaced */
	u64 retired_bytes;
	u32 want;		/* an OFV counter reached half its maximum */
	u32 grow_error;		/* enum kbloom_grow */
	u64 lost;		/* carries dropped: OFV counter full */
	void (*kick)(void *arg);
	void *kick_arg;
};

/* Bytes of @m counters of @bits (a power of two) in 32-bit words. */
static u64 kb_dcf_vec_bytes(u64 m, u32 bits)
{
	return BITS_TO_LONGS(m * bits) * sizeof(unsigned long);
}

/* The CBFV and the first OFV. */
static u64 kb_dcf_mem(const struct kb_shape *s)
{
	return kb_dcf_vec_bytes(s->m, s->cell_bits) +
	       kb_dcf_vec_bytes(s->m, KB_DCF_OFV_BITS_START);
}

static u32 kb_lg(u32 v)
{
	u32 l = 0;

	while (v >>= 1)
		l++;
	return l;
}

static inline u32 kb_vmax(u32 bits)
{
	return bits == 32 ? ~0U : (1U << bits) - 1;
}

/* Counter @i of a vector of @bits-bit counters: its word and shift. */
static inline u32 *kb_vat(const u32 *v, u32 bits, u64 i, u32 *shift)
{
	u32 lg = 5 - kb_lg(bits);

	*shift = (u32)(i & ((1U << lg) - 1)) * bits;
	return (u32 *)v + (i >> lg);
}

static inline u32 kb_vget(const u32 *v, u32 bits, u64 i)
{
	u32 sh, *w = kb_vat(v, bits, i, &sh);

	return (READ_ONCE(*w) >> sh) & kb_vmax(bits);
}

/* OFV only, under the lock: no one else writes it. */
static inline void kb_vset(u32 *v, u32 bits, u64 i, u32 val)
{
	u32 sh, *w = kb_vat(v, bits, i, &sh), mask = kb_vmax(bits) << sh;

	WRITE_ONCE(*w, (READ_ONCE(*w) & ~mask) | (val << sh));
}

static int kb_dcf_init(struct kb_filter *f)
{
	struct kb_dcf *d;

	f->dim_words = kb_dcf_vec_bytes(f->s.m, f->s.cell_bits) /
		       sizeof(unsigned long);
	f->nwords = f->dim_words;
	f->mem = kb_zalloc_large(f->nwords * sizeof(unsigned long));
	d = kb_zalloc_large(sizeof(*d));
	f->dcf = d;
	if (!f->mem || !d)
		return -ENOMEM;
	kb_seqlock_init(&d->lock);
	d->ofv_bits = KB_DCF_OFV_BITS_START;
	d->ofv = kb_zalloc_large(kb_dcf_vec_bytes(f->s.m, d->ofv_bits));
	return d->ofv ? 0 : -ENOMEM;
}

static void kb_dcf_release(struct kb_filter *f)
{
	struct kb_dcf *d = f->dcf;

	if (!d)
		return;
	kb_free_large(d->ofv);
	kb_free_large(d->retired);
	kb_free_large(d);
	f->dcf = NULL;
}

static u64 kb_dcf_mem_now(const struct kb_filter *f)
{
	return kb_dcf_vec_bytes(f->s.m, f->s.cell_bits) +
	       kb_dcf_vec_bytes(f->s.m, READ_ONCE(f->dcf->ofv_bits));
}

u64 kb_dcf_cell(const struct kb_filter *f, u64 i)
{
	const struct kb_dcf *d = f->dcf;
	u32 x = f->s.cell_bits, seq, c, o;

	do {
		seq = kb_read_seqbegin(&d->lock);
		c = kb_vget((u32 *)f->mem, x, i);
		o = kb_vget(READ_ONCE(d->ofv), READ_ONCE(d->ofv_bits), i);
	} while (kb_read_seqretry(&d->lock, seq));
	return (u64)o << x | c;
}

/*
 * A carry into OFV counter @o of cell @i, under the lock; the caller saw
 * it below its maximum (no one else writes the OFV).
 */
static void kb_dcf_carry(struct kb_dcf *d, u64 i, u32 o, bool *kick)
{
	kb_vset(d->ofv, d->ofv_bits, i, o + 1);
	if (o + 1 >= 1U << (d->ofv_bits - 1) && !d->want && d->ofv_bits < 32) {
		WRITE_ONCE(d->want, 1);
		*kick = true;
	}
}

/* One more in cell @i; true when the cell was 0 before. */
static bool kb_dcf_inc(struct kb_filter *f, u64 i, bool *kick)
{
	struct kb_dcf *d = f->dcf;
	u32 x = f->s.cell_bits, max = kb_vmax(x), sh, v, o, cur;
	u32 *w = kb_vat((u32 *)f->mem, x, i, &sh);
	unsigned long flags = 0;
	u32 old = READ_ONCE(*w);

	for (;;) {
		v = (old >> sh) & max;
		if (v == max)
			break;
		cur = kb_cmpxchg32(w, old, old + (1U << sh));
		if (cur == old)
			return !v && !(kb_dcf_cell(f, i) >> x);
		old = cur;
	}
	/* The counter wraps into the OFV: with the lock, both together. */
	kb_write_seqlock(&d->lock, flags);
	old = READ_ONCE(*w);
	for (;;) {
		v = (old >> sh) & max;
		if (v < max) {
			cur = kb_cmpxchg32(w, old, old + (1U << sh));
		} else {
			o = kb_vget(d->ofv, d->ofv_bits, i);
			if (o == kb_vmax(d->ofv_bits)) {
				d->lost++;
				break;
			}
			cur = kb_cmpxchg32(w, old, old & ~(max << sh));
			if (cur == old) {
				kb_dcf_carry(d, i, o, kick);
				break;
			}
		}
		if (cur == old)
			break;
		old = cur;
	}
	kb_write_sequnlock(&d->lock, flags);
	return false;
}

/* One less in cell @i (which is not 0). */
static void kb_dcf_dec(struct kb_filter *f, u64 i)
{
	struct kb_dcf *d = f->dcf;
	u32 x = f->s.cell_bits, max = kb_vmax(x), sh, v, o, cur;
	u32 *w = kb_vat((u32 *)f->mem, x, i, &sh);
	unsigned long flags = 0;
	u32 old = READ_ONCE(*w);

	for (;;) {
		v = (old >> sh) & max;
		if (!v)
			break;
		cur = kb_cmpxchg32(w, old, old - (1U << sh));
		if (cur == old)
			return;
		old = cur;
	}
	/* A borrow from the OFV. */
	kb_write_seqlock(&d->lock, flags);
	old = READ_ONCE(*w);
	for (;;) {
		v = (old >> sh) & max;
		if (v) {
			cur = kb_cmpxchg32(w, old, old - (1U << sh));
		} else {
			o = kb_vget(d->ofv, d->ofv_bits, i);
			if (!o)
				break;
			cur = kb_cmpxchg32(w, old, old | max << sh);
			if (cur == old)
				kb_vset(d->ofv, d->ofv_bits, i, o - 1);
		}
		if (cur == old)
			break;
		old = cur;
	}
	kb_write_sequnlock(&d->lock, flags);
}

static void kb_dcf_kick(struct kb_filter *f, bool kick)
{
	struct kb_dcf *d = f->dcf;

	if (kick && d->kick && !READ_ONCE(d->grow_error))
		d->kick(d->kick_arg);
}

static bool kb_dcf_add(struct kb_filter *f, const struct kb_hash *h)
{
	bool fresh = false, kick = false;
	struct kb_probe p;
	u32 i;

	kb_probe_init(&p, h, f->s.m);
	for (i = 0; i < f->s.k; i++)
		fresh |= kb_dcf_inc(f, kb_probe_next(&p), &kick);
	kb_dcf_kick(f, kick);
	return fresh;
}

static u32 kb_dcf_count(const struct kb_filter *f, const struct kb_hash *h)
{
	u64 min = 0xffffffffULL, v;
	struct kb_probe p;
	u32 i;

	kb_probe_init(&p, h, f->s.m);
	for (i = 0; i < f->s.k && min; i++) {
		v = kb_dcf_cell(f, kb_probe_next(&p));
		if (v < min)
			min = v;
	}
	return (u32)min;
}

/* Present when no cell is 0: the CBFV alone says it (no lock). */
static bool kb_dcf_test(const struct kb_filter *f, const struct kb_hash *h)
{
	u32 x = f->s.cell_bits;
	struct kb_probe p;
	u32 i;

	kb_probe_init(&p, h, f->s.m);
	for (i = 0; i < f->s.k; i++) {
		u64 pos = kb_probe_next(&p);

		if (!kb_vget((u32 *)f->mem, x, pos) && !(kb_dcf_cell(f, pos) >> x))
			return false;
	}
	return true;
}

/* As counting's plain delete: every probe's cell must hold its repeats. */
static int kb_dcf_del(struct kb_filter *f, const struct kb_hash *h)
{
	u64 pos[KBLOOM_HASHES_MAX];
	struct kb_probe p;
	u32 i, j, dup;

	kb_probe_init(&p, h, f->s.m);
	for (i = 0; i < f->s.k; i++) {
		pos[i] = kb_probe_next(&p);
		for (dup = 0, j = 0; j < i; j++)
			dup += pos[j] == pos[i];
		if (kb_dcf_cell(f, pos[i]) <= dup)
			return -ENOENT;
	}
	for (i = 0; i < f->s.k; i++)
		kb_dcf_dec(f, pos[i]);
	return 0;
}

/*
 * Non-zero cells: the CBFV's, plus those whose CBFV counter is 0 but
 * whose OFV counter is not (OFV words that are 0 are skipped).
 */
static void kb_dcf_fill(const struct kb_filter *f, struct kb_fill *out)
{
	const struct kb_dcf *d = f->dcf;
	u32 x = f->s.cell_bits, seq, bits, *ofv, per, j;
	u64 w, nw, extra;

	kb_cells_fill(f, out);
	out->saturated = 0;
	do {
		seq = kb_read_seqbegin(&d->lock);
		ofv = READ_ONCE(d->ofv);
		bits = READ_ONCE(d->ofv_bits);
		per = 32 / bits;
		nw = kb_dcf_vec_bytes(f->s.m, bits) / sizeof(u32);
		extra = 0;
		for (w = 0; w < nw; w++) {
			if (!READ_ONCE(ofv[w]))
				continue;
			for (j = 0; j < per && w * per + j < f->s.m; j++) {
				u64 i = w * per + j;

				extra += kb_vget(ofv, bits, i) &&
					 !kb_vget((u32 *)f->mem, x, i);
			}
		}
	} while (kb_read_seqretry(&d->lock, seq));
	out->nonzero += extra;
}

/*
 * Owner only, and not while widening (the caller excludes it). The cells
 * are emptied without the lock, in chunks: an add racing the clear may
 * survive it, or leave an overflow count behind (a false positive, never
 * a false negative), as adds racing any clear may.
 */
static void kb_dcf_clear(struct kb_filter *f)
{
	struct kb_dcf *d = f->dcf;
	unsigned long flags = 0;

	kb_zero_words(f->mem, f->nwords);
	kb_zero_words((unsigned long *)d->ofv,
		      kb_dcf_vec_bytes(f->s.m, d->ofv_bits) /
		      sizeof(unsigned long));
	kb_write_seqlock(&d->lock, flags);
	d->lost = 0;
	WRITE_ONCE(d->want, 0);
	WRITE_ONCE(d->grow_error, KBLOOM_GROW_OK);
	kb_write_sequnlock(&d->lock, flags);
}

u32 kb_dcf_ofv_bits(const struct kb_filter *f)
{
	return READ_ONCE(f->dcf->ofv_bits);
}

u64 kb_dcf_lost(const struct kb_filter *f)
{
	return READ_ONCE(f->dcf->lost);
}

u32 kb_dcf_grow_error(const struct kb_filter *f)
{
	return READ_ONCE(f->dcf->grow_error);
}

void kb_dcf_set_kick(struct kb_filter *f, void (*kick)(void *arg), void *arg)
{
	f->dcf->kick_arg = arg;
	WRITE_ONCE(f->dcf->kick, kick);
}

bool kb_dcf_wants_widen(const struct kb_filter *f)
{
	return READ_ONCE(f->dcf->want) && !READ_ONCE(f->dcf->grow_error);
}

u32 kb_dcf_next(const struct kb_filter *f, u64 *bytes)
{
	u32 bits = f->dcf->ofv_bits;

	if (bits == 32)
		return KBLOOM_GROW_SHAPE_LIMIT;
	*bytes = kb_dcf_vec_bytes(f->s.m, 2 * bits);
	if (kb_dcf_vec_bytes(f->s.m, f->s.cell_bits) + *bytes > KBLOOM_MEM_MAX)
		return KBLOOM_GROW_FILTER_LIMIT;
	return KBLOOM_GROW_OK;
}

int kb_dcf_widen(struct kb_filter *f)
{
	struct kb_dcf *d = f->dcf;
	u32 bits = d->ofv_bits, nb = 2 * bits, per = 32 / bits, j;
	u64 w, nw = kb_dcf_vec_bytes(f->s.m, bits) / sizeof(u32);
	unsigned long flags = 0;
	u32 *nv, *ov;

	if (bits == 32 || d->retired)
		return -ENOSPC;
	nv = kb_zalloc_large(kb_dcf_vec_bytes(f->s.m, nb));
	if (!nv)
		return -ENOMEM;
	kb_write_seqlock(&d->lock, flags);
	ov = d->ofv;
	for (w = 0; w < nw; w++) {
		if (!ov[w])
			continue;
		for (j = 0; j < per && w * per + j < f->s.m; j++)
			kb_vset(nv, nb, w * per + j,
				kb_vget(ov, bits, w * per + j));
	}
	WRITE_ONCE(d->ofv, nv);
	WRITE_ONCE(d->ofv_bits, nb);
	WRITE_ONCE(d->want, 0);
	kb_write_sequnlock(&d->lock, flags);
	d->retired = ov;
	d->retired_bytes = kb_dcf_vec_bytes(f->s.m, bits);
	return 0;
}

u64 kb_dcf_retire(struct kb_filter *f)
{
	struct kb_dcf *d = f->dcf;
	u64 bytes = d->retired_bytes;

	kb_free_large(d->retired);
	d->retired = NULL;
	d->retired_bytes = 0;
	return bytes;
}

void kb_dcf_fail(struct kb_filter *f, u32 why)
{
	WRITE_ONCE(f->dcf->grow_error, why);
}

u64 kb_dcf_load_mem(const struct kb_shape *s, u32 ofv_bits)
{
	if (ofv_bits < 1 || ofv_bits > 32 || (ofv_bits & (ofv_bits - 1)) ||
	    kb_dcf_vec_bytes(s->m, s->cell_bits) +
	    kb_dcf_vec_bytes(s->m, ofv_bits) > KBLOOM_MEM_MAX)
		return KB_NO_PLAN;
	return kb_dcf_vec_bytes(s->m, ofv_bits) -
	       kb_dcf_vec_bytes(s->m, KB_DCF_OFV_BITS_START);
}

int kb_dcf_load(struct kb_filter *f, u32 ofv_bits, u64 lost)
{
	struct kb_dcf *d = f->dcf;
	u32 *nv;

	if (kb_dcf_load_mem(&f->s, ofv_bits) == KB_NO_PLAN)
		return -EINVAL;
	if (ofv_bits != d->ofv_bits) {
		nv = kb_zalloc_large(kb_dcf_vec_bytes(f->s.m, ofv_bits));
		if (!nv)
			return -ENOMEM;
		kb_free_large(d->ofv);
		d->ofv = nv;
		d->ofv_bits = ofv_bits;
	}
	d->lost = lost;
	return 0;
}

void kb_dcf_loaded(struct kb_filter *f)
{
	struct kb_dcf *d = f->dcf;
	u32 half = 1U << (d->ofv_bits - 1);
	u64 i;

	if (d->ofv_bits == 32)
		return;
	/* As a carry would have: a counter at half its maximum asks to widen. */
	for (i = 0; i < f->s.m; i++) {
		if (kb_vget(d->ofv, d->ofv_bits, i) >= half) {
			d->want = 1;
			return;
		}
		if (!(i & 0xffff))
			kb_resched();
	}
}

/* Changes whenever the OFV is widened (replaced). */
static u64 kb_dcf_layout(const struct kb_filter *f)
{
	return READ_ONCE(f->dcf->ofv_bits);
}

/* The transfer stream: the CBFV (f->mem) then the OFV. */
static void *kb_dcf_xfer(const struct kb_filter *f, u64 off, u64 *len)
{
	u64 cbfv = f->nwords * sizeof(unsigned long);
	u64 ofv = kb_dcf_vec_bytes(f->s.m, f->dcf->ofv_bits);

	if (off < cbfv) {
		*len = cbfv - off;
		return (u8 *)f->mem + off;
	}
	off -= cbfv;
	if (off < ofv) {
		*len = ofv - off;
		return (u8 *)f->dcf->ofv + off;
	}
	*len = 0;
	return NULL;
}

static u64 kb_dcf_xfer_bytes(const struct kb_filter *f)
{
	return f->nwords * sizeof(unsigned long) +
	       kb_dcf_vec_bytes(f->s.m, READ_ONCE(f->dcf->ofv_bits));
}

/* A dcf that dropped increments may count low: a delete could lie. */
static bool kb_dcf_may_delete(const struct kb_filter *f)
{
	return !kb_dcf_lost(f);
}

static u64 kb_dcf_saved_mem(const struct kb_shape *s,
			    const struct kb_saved *l)
{
	return kb_dcf_load_mem(s, l->ofv_bits);
}

static int kb_dcf_saved_load(struct kb_filter *f, const struct kb_saved *l)
{
	return kb_dcf_load(f, l->ofv_bits, l->overflow);
}

/* Wanted and due alike: a counter reached half its OFV maximum. */
static const struct kb_grow_ops kb_dcf_grow = {
	.kind = KB_GROW_WIDER,
	.set_kick = kb_dcf_set_kick,
	.wanted = kb_dcf_wants_widen,
	.due = kb_dcf_wants_widen,
	.next = kb_dcf_next,
	.make = kb_dcf_widen,
	.retire = kb_dcf_retire,
	.fail = kb_dcf_fail,
	.error = kb_dcf_grow_error,
	.overflow = kb_dcf_lost,
	.load_mem = kb_dcf_saved_mem,
	.load = kb_dcf_saved_load,
	.loaded = kb_dcf_loaded,
};

const struct kb_type_ops kb_dcf_ops = {
	.mem = kb_dcf_mem,
	.add = kb_dcf_add,
	.test = kb_dcf_test,
	.del = kb_dcf_del,
	.count = kb_dcf_count,
	.prefetch_key = kb_cells_prefetch,
	.fill = kb_dcf_fill,
	.init = kb_dcf_init,
	.release = kb_dcf_release,
	.clear = kb_dcf_clear,
	.mem_now = kb_dcf_mem_now,
	.xfer = kb_dcf_xfer,
	.xfer_bytes = kb_dcf_xfer_bytes,
	.layout = kb_dcf_layout,
	.may_delete = kb_dcf_may_delete,
	.info = {
		.params = KB_TAKES_COUNTER_BITS | KB_TAKES_HASH_FN,
		.caps = KB_CAP_DELETE,
		.grow = &kb_dcf_grow,
		.counter_widths = 2 | 4 | 8,
	},
};
