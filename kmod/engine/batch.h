/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A batch of keys on their way into a filter: each key is hashed and its
 * cells prefetched when it arrives, and the batch is added when it is
 * full, KB_BATCH keys later. One key at a time a large filter costs a
 * cache miss per key, paid in turn; through a batch the misses of
 * consecutive keys (packets) overlap. The packet path keeps one batch per
 * CPU (kmod/digest_queue.c); the caller serialises a batch's use.
 */
#ifndef KBLOOM_ENGINE_BATCH_H
#define KBLOOM_ENGINE_BATCH_H

#include "filter.h"

/* Enough misses in flight to cover a random line's latency. */
#define KB_BATCH	16

struct kb_batch {
	u32 n;
	struct kb_hash h[KB_BATCH];
};

/*
 * Hashes @key with @f's key and prefetches its cells in @f; true when the
 * batch is full (kb_batch_add() it before the next put).
 */
static inline bool kb_batch_put(struct kb_batch *b, const struct kb_filter *f,
				const void *key, size_t len)
{
	struct kb_hash *h = &b->h[b->n];

	kb_filter_hash(f, key, len, h);
	kb_filter_prefetch(f, h);
	WRITE_ONCE(b->n, b->n + 1);
	return b->n == KB_BATCH;
}

/*
 * Adds the batch's keys to @f (which has the hash key they were hashed
 * with: any table of the same ring) and empties it; returns how many.
 * Their cells were prefetched as they came: in cache by now, or on the
 * way, when @f is the table they were prefetched in.
 */
static inline u32 kb_batch_add(struct kb_batch *b, struct kb_filter *f)
{
	u32 n = b->n;

	kb_filter_add_prefetched(f, b->h, n);
	WRITE_ONCE(b->n, 0);
	return n;
}

#endif /* KBLOOM_ENGINE_BATCH_H */
