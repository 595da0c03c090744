/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An attachment's per-CPU digest queues (digest_queue.c): the packet path
 * hashes each digest and prefetches its cells on arrival, and adds it
 * KB_BATCH packets later, so the cache misses of consecutive packets
 * overlap. Readers drain the queues first and see every packet that
 * passed the hook before they began.
 */
#ifndef KBLOOM_DIGEST_QUEUE_H
#define KBLOOM_DIGEST_QUEUE_H

#include <linux/types.h>

struct kb_ring;
struct kb_dq;

/* Queues for adds into @r's current window. NULL: no memory. */
struct kb_dq *kb_dq_new(struct kb_ring *r);
/* The packet path, under rcu_read_lock(): queues one digest. */
void kb_dq_put(struct kb_dq *dq, const void *key, u32 len);
/*
 * Adds every queued digest to the current window; may sleep. Returns
 * after each CPU's queue, as it was when the call began, is added.
 */
void kb_dq_drain(struct kb_dq *dq);
/* When no hook can put and no one drains any more: adds, frees. */
void kb_dq_free(struct kb_dq *dq);

#endif /* KBLOOM_DIGEST_QUEUE_H */
