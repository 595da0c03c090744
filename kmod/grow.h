/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Growth of scalable filters: the engine asks for the next slice from
 * wherever keys are added, the packet path included; slices are made
 * here, where allocating may sleep (uapi/kbloom.h, KBLOOM_TYPE_SCALABLE).
 */
#ifndef KBLOOM_GROW_H
#define KBLOOM_GROW_H

#include <net/netlink.h>

struct kb_obj;

/* Before the filter is reachable: the lock, the work, the memcg. */
void kb_grow_init(struct kb_obj *obj);
/* A scalable filter's table exists: hook the engine's requests up. */
void kb_grow_start(struct kb_obj *obj);
/* No add can run any more (after a grace period): stop for good. */
void kb_grow_stop(struct kb_obj *obj);
/*
 * Makes the next slice now if the filter wants one (process context).
 * Returns the filter's enum kbloom_grow afterwards.
 */
u32 kb_grow(struct kb_obj *obj);
/* Why the filter cannot grow, in @extack; namespace lock held. */
void kb_grow_explain(struct kb_obj *obj, struct netlink_ext_ack *extack);

#endif /* KBLOOM_GROW_H */
