/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The dynamic count filter's own interface (dcf.c): its overflow vector
 * for STATUS and tests, loading; growth goes through its kb_grow_ops.
 */
#ifndef KBLOOM_ENGINE_DCF_H
#define KBLOOM_ENGINE_DCF_H

#include "filter.h"

/*
 * Dynamic count filters (dcf.c; rules in uapi/kbloom.h). Adds, tests,
 * counts and deletes from any context (deletes: the owner's); widen and
 * retire are the owner's, one at a time, where it may allocate; retire
 * only once no reader can hold the replaced vector (a grace period).
 */
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

#endif /* KBLOOM_ENGINE_DCF_H */
