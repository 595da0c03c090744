/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growth of scalable filters and of dcfs' overflow vectors: the engine
 * asks for the next slice or a wider vector from wherever keys are
 * added, the packet path included; they are made here, where allocating
 * may sleep (uapi/kbloom.h, KBLOOM_TYPE_SCALABLE and KBLOOM_TYPE_DCF).
 */
#ifndef KBLOOM_GROW_H
#define KBLOOM_GROW_H

#include <net/netlink.h>

struct kb_obj;
struct kb_filter;

struct kb_shape;
struct kb_saved;

/*
 * The types whose memory grows after create (scalable and dcf): those
 * whose type has a growth protocol (struct kb_grow_ops). The rest below
 * is for them only, but for the kinds and the loading calls, which
 * answer 0 and do nothing for the others.
 */
bool kb_grows(const struct kb_filter *f);
/* enum kb_grow_kind, or 0: of a filter, of a type id. */
u32 kb_grow_kind(const struct kb_filter *f);
u32 kb_grow_type_kind(u32 type);
/* Growth is due now: a scalable's slice is full, a dcf's OFV half so. */
bool kb_grow_due(const struct kb_filter *f);
/* What grows when growth lags: scalable OVERFLOW, dcf LOST. */
u64 kb_grow_overflow(const struct kb_filter *f);
/* enum kbloom_grow. */
u32 kb_grow_error(const struct kb_filter *f);
/* Growth lagged and lost updates (dcf LOST): counts may be low. */
bool kb_grow_lost(const struct kb_filter *f);
/*
 * A saved layout (KBLOOM_F_LOAD): its bytes beyond the shape's
 * (KB_NO_PLAN: none such), made before the filter is seen, and
 * settled after its cells are loaded.
 */
u64 kb_grow_load_mem(const struct kb_shape *s, const struct kb_saved *l);
int kb_grow_load(struct kb_filter *f, const struct kb_saved *l);
void kb_grow_loaded(struct kb_filter *f);

/* Before the filter is reachable: the lock, the work, the memcg. */
void kb_grow_init(struct kb_obj *obj);
/* A growing filter's table exists: hook the engine's requests up. */
void kb_grow_start(struct kb_obj *obj);
/* No add can run any more (after a grace period): stop for good. */
void kb_grow_stop(struct kb_obj *obj);
/*
 * Makes the next slice, or the wider OFV, now if the filter wants one
 * (process context; may wait for a grace period). Returns the filter's
 * enum kbloom_grow afterwards.
 */
u32 kb_grow(struct kb_obj *obj);
/*
 * Waits until the growth the adds so far asked for is made (a work item
 * kicked by the last key may still be making it): an ADD over netlink
 * returns with its filter's memory and layout settled.
 */
void kb_grow_settle(struct kb_obj *obj);
/* Why the filter cannot grow, in @extack; namespace lock held. */
void kb_grow_explain(struct kb_obj *obj, struct netlink_ext_ack *extack);

#endif /* KBLOOM_GROW_H */
