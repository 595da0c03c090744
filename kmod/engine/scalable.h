/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The scalable Bloom filter's own interface (scalable.c): its slices for
 * STATUS, its plan, loading; growth goes through its kb_grow_ops.
 */
#ifndef KBLOOM_ENGINE_SCALABLE_H
#define KBLOOM_ENGINE_SCALABLE_H

#include "filter.h"

/*
 * Scalable filters (scalable.c; the rules are in uapi/kbloom.h). Adds,
 * tests and the readers below run from any context; grow and fail are
 * for one caller at a time, in a context that may allocate.
 */
/* For tests and tools: the module asks kb_filter_info() instead. */
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

#endif /* KBLOOM_ENGINE_SCALABLE_H */
