/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The filter engine: filters as plain memory plus the operations on them.
 * It knows nothing of netlink, skbs or namespaces.
 *
 * Concurrency: add, test and count are safe against each other from any
 * number of CPUs (atomic cell updates, no locks). del, merge, clear, init
 * and free are for the owner: the caller serialises them against each
 * other (adds may still run concurrently with del, merge and clear).
 */
#ifndef KBLOOM_ENGINE_FILTER_H
#define KBLOOM_ENGINE_FILTER_H

#include "compat.h"
#include "hash.h"
#include "../uapi/kbloom.h"

/* What a filter is made of; meanings per type in uapi/kbloom.h. */
struct kb_shape {
	u32 type;		/* enum kbloom_type */
	u64 m;			/* cells (per dimension for multi) */
	u32 k;			/* probes per key */
	u32 cell_bits;		/* counting, stable; 1 for bit types */
	u32 update;		/* counting: enum kbloom_update */
	u32 decrement;		/* stable: P */
	u32 subtables;		/* dleft: d */
	u32 bucket_cells;	/* dleft */
	u32 fp_bits;		/* dleft */
	u32 dims;		/* multi */
	u64 capacity;		/* scalable: slice 0's n0 */
	u32 growth;		/* scalable: s */
	u32 tighten;		/* scalable: r in millionths */
};

struct kb_type_ops;
struct kb_scal;
struct kb_dcf;

/* kb_scalable_load_mem(), kb_dcf_load_mem(): no such layout. */
#define KB_NO_PLAN	(~0ULL)

struct kb_filter {
	struct kb_shape s;
	const struct kb_type_ops *ops;
	siphash_key_t hkey;	/* per-filter keyed PRF */
	u64 nwords;		/* unsigned longs in @mem */
	u64 dim_words;		/* multi: words per dimension */
	u64 nblocks;		/* blocked: 512-bit blocks; partitioned: bits
				 * per slice (m/k); dleft: buckets per table
				 */
	unsigned long *mem;	/* the cells */
	struct kb_scal *scal;	/* scalable: the slices (scalable.c) */
	struct kb_dcf *dcf;	/* dcf: the overflow vector (dcf.c) */
};

/* One multi-filter key: values for the dimensions set in @mask. */
struct kb_tuple {
	u32 mask;		/* bit i: dimension i (0-based) given */
	const void *val[KBLOOM_DIMS_MAX];
	u32 len[KBLOOM_DIMS_MAX];
};

struct kb_fill {
	u64 nonzero;		/* cells set / non-zero (all dimensions) */
	u64 saturated;		/* counters at their maximum */
};

/* Why a shape is refused: for the caller's error message. */
enum kb_shape_error {
	KB_SHAPE_OK,
	KB_SHAPE_BAD_TYPE,
	KB_SHAPE_BAD_BITS,	/* m out of range or not a required multiple */
	KB_SHAPE_BAD_HASHES,
	KB_SHAPE_BAD_COUNTER_BITS,
	KB_SHAPE_BAD_UPDATE,
	KB_SHAPE_BAD_DECREMENT,
	KB_SHAPE_BAD_SUBTABLES,
	KB_SHAPE_BAD_BUCKET_CELLS,
	KB_SHAPE_BAD_FP_BITS,
	KB_SHAPE_BAD_DIMS,
	KB_SHAPE_BAD_CAPACITY,	/* scalable: CAPACITY missing or too large */
	KB_SHAPE_BAD_GROWTH,
	KB_SHAPE_BAD_TIGHTEN,
	KB_SHAPE_TOO_BIG,	/* more than KBLOOM_MEM_MAX bytes */
	KB_SHAPE_EXTRA_PARAM,	/* a parameter this type does not take */
};

/*
 * Checks a shape; unused parameters must be 0 (cell_bits may also be 1
 * for bit types). Fills in defaults: none — the caller gives everything.
 */
enum kb_shape_error kb_filter_check_shape(const struct kb_shape *s);
/* Bytes of cell memory a valid shape needs. */
u64 kb_filter_mem_for(const struct kb_shape *s);

/* 0, -EINVAL for a bad shape, -ENOMEM when memory cannot be had. */
int kb_filter_init(struct kb_filter *f, const struct kb_shape *s,
		   const u8 hkey[16]);
void kb_filter_free(struct kb_filter *f);

/* Type capabilities. */
/* Keys are added and tested (all but transforms: xlate.h). */
bool kb_filter_keyed(const struct kb_filter *f);
bool kb_filter_can_delete(const struct kb_filter *f);
bool kb_filter_can_count(const struct kb_filter *f);
/* Inline: asked once per key of every request. */
static inline bool kb_filter_is_multi(const struct kb_filter *f)
{
	return f->s.type == KBLOOM_TYPE_MULTI;
}

/*
 * Single keys (every type but multi). add returns true when the key was
 * certainly not present before. del returns 0, -ENOENT when the key is
 * certainly absent (nothing changed) or -EOPNOTSUPP. count returns the
 * key's count (0/1 for types without counters).
 */
bool kb_filter_add(struct kb_filter *f, const void *key, size_t len);
bool kb_filter_test(const struct kb_filter *f, const void *key, size_t len);
int kb_filter_del(struct kb_filter *f, const void *key, size_t len);
u32 kb_filter_count(const struct kb_filter *f, const void *key, size_t len);

/* The same for a key hashed once by the caller (batches, packet path). */
bool kb_filter_add_hash(struct kb_filter *f, const struct kb_hash *h);
bool kb_filter_test_hash(const struct kb_filter *f, const struct kb_hash *h);
int kb_filter_del_hash(struct kb_filter *f, const struct kb_hash *h);
u32 kb_filter_count_hash(const struct kb_filter *f, const struct kb_hash *h);

/*
 * Batches of pre-hashed single keys: each key's cells are prefetched a few
 * keys ahead, so the cache misses of a batch overlap instead of queueing.
 * test_many sets present[i] for key i.
 */
void kb_filter_add_many(struct kb_filter *f, const struct kb_hash *h, u32 n);
void kb_filter_test_many(const struct kb_filter *f, const struct kb_hash *h,
			 u32 n, bool *present);

/*
 * Multi filters. add needs every dimension (-EINVAL otherwise); test any
 * non-empty subset: true when each given dimension holds its value.
 */
int kb_filter_add_tuple(struct kb_filter *f, const struct kb_tuple *t);
bool kb_filter_test_tuple(const struct kb_filter *f, const struct kb_tuple *t);

void kb_filter_clear(struct kb_filter *f);
void kb_filter_fill(const struct kb_filter *f, struct kb_fill *out);
u64 kb_filter_mem(const struct kb_filter *f);	/* bytes */

/*
 * Scalable filters (scalable.c; the rules are in uapi/kbloom.h). Adds,
 * tests and the readers below run from any context; grow and fail are
 * for one caller at a time, in a context that may allocate.
 */
bool kb_filter_is_scalable(const struct kb_filter *f);

struct kb_slice_info {
	u64 m;
	u32 k;
	u64 capacity;
	u64 keys;
	u64 fill;		/* bits set */
	bool is_current;	/* taking inserts */
};

/* Slices made so far (>= 1); slice @i's state. */
u32 kb_scalable_slices(const struct kb_filter *f);
void kb_scalable_slice(const struct kb_filter *f, u32 i,
		       struct kb_slice_info *out);
u64 kb_scalable_overflow(const struct kb_filter *f);
u32 kb_scalable_grow_error(const struct kb_filter *f);	/* enum kbloom_grow */
/*
 * Called (from the adding context, maybe atomic) when the current slice
 * passed half its capacity, or is full, and no next slice is made yet:
 * the owner should make one soon, where it may sleep.
 */
void kb_scalable_set_kick(struct kb_filter *f, void (*kick)(void *arg),
			  void *arg);
/*
 * The current slice holds half its capacity or more, no next slice is
 * made and growth is not stopped: a kick that went stale (its slice was
 * made and filled meanwhile) then asks for nothing.
 */
bool kb_scalable_wants_slice(const struct kb_filter *f);
/* The current slice is full, no next one is made, growth not stopped. */
bool kb_scalable_full(const struct kb_filter *f);
/*
 * The shape of the next slice, and the bytes making it takes (cells
 * plus bookkeeping). 0, or KBLOOM_GROW_SHAPE_LIMIT / _FILTER_LIMIT
 * when the plan has no next slice.
 */
u32 kb_scalable_next(const struct kb_filter *f, struct kb_shape *s,
		     u64 *bytes);
/* Makes and publishes the next slice: 0, or -ENOMEM (nothing changed). */
int kb_scalable_grow(struct kb_filter *f);
/* Stops growth for @why (enum kbloom_grow); CLEAR restarts it. */
void kb_scalable_fail(struct kb_filter *f, u32 why);
/*
 * Slice @i of the plan of a scalable shape @s (uapi/kbloom.h): its m_i,
 * k_i and n_i; false when @s is no valid scalable shape or there is no
 * slice @i.
 */
bool kb_scalable_plan(const struct kb_shape *s, u32 i, u64 *m, u32 *k,
		      u64 *cap);
/*
 * Loading a saved scalable filter (before anyone else sees it): the bytes
 * slices 1..@nslices-1 take on top of what creating it took (KB_NO_PLAN
 * when the plan has no such slices or they pass KBLOOM_MEM_MAX), then
 * make them and set each slice's keys, the current slice and OVERFLOW.
 */
u64 kb_scalable_load_mem(const struct kb_shape *s, u32 nslices);
int kb_scalable_load(struct kb_filter *f, u32 nslices, u32 cur,
		     const u64 *keys, u64 overflow);
/*
 * The plan's arithmetic, for tools and tests: log2(10^6 / tighten) and
 * log2(10^6 / tighten) / ln 2 in 32.32 fixed point.
 */
u64 kb_scalable_log2_inv_q32(u32 tighten);
u64 kb_scalable_bits_step_q32(u32 tighten);

/*
 * Dynamic count filters (dcf.c; rules in uapi/kbloom.h). Adds, tests,
 * counts and deletes from any context (deletes: the owner's); widen and
 * retire are the owner's, one at a time, where it may allocate; retire
 * only once no reader can hold the replaced vector (a grace period).
 */
bool kb_filter_is_dcf(const struct kb_filter *f);
u32 kb_dcf_ofv_bits(const struct kb_filter *f);
u64 kb_dcf_lost(const struct kb_filter *f);
u32 kb_dcf_grow_error(const struct kb_filter *f);
/* Cell @i's count, OFV and CBFV together. */
u64 kb_dcf_cell(const struct kb_filter *f, u64 i);
void kb_dcf_set_kick(struct kb_filter *f, void (*kick)(void *arg), void *arg);
/* A counter reached half its OFV maximum and growth is not stopped. */
bool kb_dcf_wants_widen(const struct kb_filter *f);
/* Bytes of the wider OFV, or KBLOOM_GROW_SHAPE_LIMIT / _FILTER_LIMIT. */
u32 kb_dcf_next(const struct kb_filter *f, u64 *bytes);
/* Doubles the OFV's counters: 0 or -ENOMEM (nothing changed). */
int kb_dcf_widen(struct kb_filter *f);
/* Frees the OFV replaced by the last widening; returns its bytes. */
u64 kb_dcf_retire(struct kb_filter *f);
void kb_dcf_fail(struct kb_filter *f, u32 why);
/*
 * Loading a saved dcf (before anyone else sees it): the bytes an OFV of
 * @ofv_bits takes beyond the first one's (KB_NO_PLAN: no such width, or
 * past KBLOOM_MEM_MAX); then that OFV (empty) and LOST; after the cells,
 * kb_dcf_loaded() asks to widen if a counter is at half its maximum.
 */
u64 kb_dcf_load_mem(const struct kb_shape *s, u32 ofv_bits);
int kb_dcf_load(struct kb_filter *f, u32 ofv_bits, u64 lost);
void kb_dcf_loaded(struct kb_filter *f);

/*
 * The transfer stream of a table (EXPORT, IMPORT; uapi/kbloom.h): its
 * cell memory; a scalable filter's slices one after another; a dcf's
 * CBFV then OFV. Its bytes; the contiguous part holding byte @off and
 * its length (NULL past the end); and a value that changes whenever the
 * stream's layout does (a slice made, an OFV widened; 0 for the others).
 */
u64 kb_filter_xfer_bytes(const struct kb_filter *f);
void *kb_filter_xfer(const struct kb_filter *f, u64 off, u64 *len);
u64 kb_filter_layout(const struct kb_filter *f);

/* Same type, shape and hash key: the condition for merge and estimate. */
bool kb_filter_compatible(const struct kb_filter *a, const struct kb_filter *b);
/* dst = dst op src. -EINVAL when not compatible, -EOPNOTSUPP by type. */
int kb_filter_merge(struct kb_filter *dst, const struct kb_filter *src,
		    u32 op);
/* Cells non-zero in a or b. -EINVAL when not compatible, -EOPNOTSUPP by type. */
int kb_filter_union_fill(const struct kb_filter *a, const struct kb_filter *b,
			 u64 *out);

#endif /* KBLOOM_ENGINE_FILTER_H */
