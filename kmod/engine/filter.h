/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The filter engine: filters as plain memory plus the operations on them.
 * It knows nothing of netlink, skbs or namespaces. Add and test are safe
 * against each other from any number of CPUs (atomic bit operations);
 * init, clear and free are for the owner, serialised by the caller.
 */
#ifndef KBLOOM_ENGINE_FILTER_H
#define KBLOOM_ENGINE_FILTER_H

#include "compat.h"
#include "hash.h"

struct kb_filter {
	u32 type;		/* enum kbloom_type */
	u32 k;			/* probes per key */
	u64 m;			/* cells */
	u64 nwords;		/* unsigned longs in @bits */
	siphash_key_t hkey;	/* per-filter keyed PRF */
	unsigned long *bits;
};

/* Why a shape is refused: for the caller's error message. */
enum kb_shape_error {
	KB_SHAPE_OK,
	KB_SHAPE_BAD_TYPE,
	KB_SHAPE_BAD_BITS,
	KB_SHAPE_BAD_HASHES,
};

enum kb_shape_error kb_filter_check_shape(u32 type, u64 m, u32 k);
/* Bytes of filter memory a shape needs (after kb_filter_check_shape). */
u64 kb_filter_mem_for(u32 type, u64 m, u32 k);

/* 0, -EINVAL for a bad shape, -ENOMEM when memory cannot be had. */
int kb_filter_init(struct kb_filter *f, u32 type, u64 m, u32 k,
		   const u8 hkey[16]);
void kb_filter_free(struct kb_filter *f);

/* Returns true when the key was certainly not present before. */
bool kb_filter_add(struct kb_filter *f, const void *key, size_t len);
bool kb_filter_test(const struct kb_filter *f, const void *key, size_t len);
/* The same, for a key hashed once by the caller (batches, packet path). */
bool kb_filter_add_hash(struct kb_filter *f, const struct kb_hash *h);
bool kb_filter_test_hash(const struct kb_filter *f, const struct kb_hash *h);

void kb_filter_clear(struct kb_filter *f);
u64 kb_filter_fill(const struct kb_filter *f);	/* cells set */
u64 kb_filter_mem(const struct kb_filter *f);	/* bytes */

#endif /* KBLOOM_ENGINE_FILTER_H */
