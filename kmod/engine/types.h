/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Inside the engine: what each filter type provides. filter.c dispatches;
 * one file per family of types implements these.
 */
#ifndef KBLOOM_ENGINE_TYPES_H
#define KBLOOM_ENGINE_TYPES_H

#include "filter.h"

struct kb_type_ops {
	/* Shape checks beyond the common ones (m range, k range). */
	enum kb_shape_error (*check)(const struct kb_shape *s);
	/*
	 * Optional: what m must be a multiple of for this shape (1 when
	 * NULL); check() refuses any other m, bloomctl rounds up to it.
	 */
	u64 (*multiple)(const struct kb_shape *s);
	/* Bytes of cells for a checked shape. */
	u64 (*mem)(const struct kb_shape *s);
	/*
	 * Optional: of those, the cells the user sized, when mem() also
	 * counts the type's own bookkeeping (scalable: its slice list).
	 */
	u64 (*cells)(const struct kb_shape *s);
	/* Optional: derive fields (nblocks...) after the memory exists. */
	void (*setup)(struct kb_filter *f);
	bool (*add)(struct kb_filter *f, const struct kb_hash *h);
	bool (*test)(const struct kb_filter *f, const struct kb_hash *h);
	/* NULL for types without deletion. */
	int (*del)(struct kb_filter *f, const struct kb_hash *h);
	u32 (*count)(const struct kb_filter *f, const struct kb_hash *h);
	void (*fill)(const struct kb_filter *f, struct kb_fill *out);
	/* Optional: start loading the cells of a key (batches). */
	void (*prefetch_key)(const struct kb_filter *f, const struct kb_hash *h);
	/* NULL: merge / union fill refused with -EOPNOTSUPP. */
	int (*merge)(struct kb_filter *dst, const struct kb_filter *src, u32 op);
	u64 (*union_fill)(const struct kb_filter *a, const struct kb_filter *b);
	/*
	 * Optional, for types whose cells are not one allocation of
	 * mem(s) bytes (scalable): make, free and empty them, and the
	 * bytes they use now.
	 */
	int (*init)(struct kb_filter *f);
	void (*release)(struct kb_filter *f);
	void (*clear)(struct kb_filter *f);
	u64 (*mem_now)(const struct kb_filter *f);
	/* ... and whose transfer stream is more than f->mem (filter.h). */
	void *(*xfer)(const struct kb_filter *f, u64 off, u64 *len);
	u64 (*xfer_bytes)(const struct kb_filter *f);
	u64 (*layout)(const struct kb_filter *f);
	/*
	 * Optional: whether del may run on this filter now (counting with
	 * conservative update never; a dcf not after it lost increments).
	 */
	bool (*may_delete)(const struct kb_filter *f);
	/*
	 * What the type takes and can, as data (filter.h). A type of
	 * KB_CAP_RECORDS is a table of records, not of keys (transforms):
	 * add and test answer nothing, and callers ask kb_filter_keyed()
	 * before either.
	 */
	struct kb_type_info info;
};

extern const struct kb_type_ops kb_bloom_ops;
extern const struct kb_type_ops kb_multi_ops;
extern const struct kb_type_ops kb_partitioned_ops;
extern const struct kb_type_ops kb_blocked_ops;
extern const struct kb_type_ops kb_counting_ops;
extern const struct kb_type_ops kb_dleft_ops;
extern const struct kb_type_ops kb_stable_ops;
extern const struct kb_type_ops kb_scalable_ops;
extern const struct kb_type_ops kb_dcf_ops;
extern const struct kb_type_ops kb_xlate_ops;

/* What filter.c calls directly (kb_add, kb_test); blocked's are inline. */
bool kb_bloom_add(struct kb_filter *f, const struct kb_hash *h);
bool kb_bloom_test(const struct kb_filter *f, const struct kb_hash *h);
bool kb_counting_add(struct kb_filter *f, const struct kb_hash *h);

/* Zeroes @nwords words in chunks, rescheduling between them (filter.c). */
void kb_zero_words(unsigned long *p, u64 nwords);

/* Shared by the bit-array types (bits.c). */
void kb_bits_fill(const struct kb_filter *f, struct kb_fill *out);
/* Prefetch of the k probed cells: bloom, counting, stable (bits.c). */
void kb_cells_prefetch(const struct kb_filter *f, const struct kb_hash *h);
/* Shared by the types of multi-bit cells (counting, stable). */
void kb_cells_fill(const struct kb_filter *f, struct kb_fill *out);
int kb_bits_merge(struct kb_filter *dst, const struct kb_filter *src, u32 op);
u64 kb_bits_union_fill(const struct kb_filter *a, const struct kb_filter *b);
/* Words per chunk between reschedule points in long loops (1 MiB). */
#define KB_CHUNK_WORDS	((1U << 20) / sizeof(unsigned long))

#endif /* KBLOOM_ENGINE_TYPES_H */
