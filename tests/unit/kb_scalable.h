/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the scalable filter's tests ask of its slices (scalable_test.c and
 * the concurrency contract). Include after kb_test.h.
 */
#ifndef KBLOOM_TESTS_UNIT_KB_SCALABLE_H
#define KBLOOM_TESTS_UNIT_KB_SCALABLE_H

#include "../../kmod/engine/scalable.h"

/* The slice the adds go to: number active() (1 is the first). */
static inline u32 active(const struct kb_filter *f)
{
	struct kb_slice_info si;
	u32 i, n = kb_scalable_slices(f);

	for (i = 0; i < n; i++) {
		kb_scalable_slice(f, i, &si);
		if (si.is_current)
			return i + 1;
	}
	return 0;
}

/* Slices of capacity n0, n0 s, n0 s^2 ... that n keys fill. */
static inline u32 slices_for(u64 n0, u32 s, u64 n)
{
	u64 cum = 0, cap = n0;
	u32 j = 0;

	while (cum < n) {
		cum += cap;
		cap *= s;
		j++;
	}
	return j;
}

/* The kick's work, as the module's work item does it: grow at once (the
 * host may allocate anywhere). */
static inline void grow_at_once(struct kb_filter *f)
{
	struct kb_shape s;
	u64 bytes;
	u32 why = kb_scalable_next(f, &s, &bytes);

	if (why)
		kb_scalable_fail(f, why);
	else if (kb_scalable_grow(f))
		kb_scalable_fail(f, KBLOOM_GROW_NOMEM);
}

#endif
