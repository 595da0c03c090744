/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bloomctl's per-type maths, one file per filter type (type_NAME.c), each
 * an ops struct that types.c registers by type id, as iproute2's
 * tc/q_NAME.c register queueing disciplines. What a type is (the
 * parameters it takes, its capabilities, whether it grows) is the
 * engine's, asked through kb_type_info(); the ops hold only what
 * bloomctl computes offline: sizing, rates, estimates from the fill,
 * calc's figures and show's (formulas: sizing.h, cardinality.h).
 *
 * Callers ask capabilities (kb_utype_caps() and friends, or the ops),
 * never a type id. A hook left NULL means the bloom filter's maths (or,
 * for estimates, none).
 */
#ifndef BLOOMCTL_TYPES_H
#define BLOOMCTL_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../kmod/engine/filter.h"

struct kb_out;

struct kb_utype {
	/* The hashes the type always has (dleft: 1), and why; 0: K given. */
	uint32_t hashes;
	const char *hashes_why;
	/* Parameters left 0 that do not depend on the target rate. */
	void (*defaults)(struct kb_shape *p);
	/* Bits of one cell; NULL: 1. */
	uint32_t (*cell_bits)(const struct kb_shape *p);
	/* kb_params_complete(); NULL: defaults, then m rounded. */
	int (*complete)(struct kb_shape *p);
	/* kb_params_size() after the defaults; NULL: bloom's. */
	int (*size)(struct kb_shape *p, uint64_t n, double fpr);
	/*
	 * Why size() said -EDOM: create's words when @fpr_text is given,
	 * else calc's.
	 */
	void (*size_edom)(char *buf, size_t len, const struct kb_shape *p,
			  const char *fpr_text);
	/* The cells that hold @capacity records (KB_CAP_RECORDS types). */
	uint64_t (*record_cells)(uint64_t capacity);
	/* The false positive rate with @n keys; NULL: bloom's. */
	double (*fpr)(const struct kb_shape *p, double n);
	/* counter-bits: the widths the engine takes, in words. */
	const char *counter_words;
	/* Estimates from the fill @x (cardinality.h); NULL keys: none. */
	double (*keys)(const struct kb_shape *p, uint64_t x);
	double (*fpr_now)(const struct kb_shape *p, uint64_t x);
	const char *basis;
	/* calc: the type's figures after its parameters, text and JSON. */
	void (*calc_figures)(const struct kb_out *o, const struct kb_shape *p,
			     uint64_t n);
	/*
	 * show (describe.c). The parameters its estimates read were all
	 * reported; NULL: they need only m and k.
	 */
	bool (*params_known)(const struct kb_shape *p);
	/*
	 * Text after a figure (NULL: none): the cells (m), the fill's
	 * percentage, a finite estimate of the keys, fpr now, fpr at
	 * capacity.
	 */
	const char *m_note, *fill_note, *keys_note, *fpr_now_note;
	const char *capacity_note;
	/* Text after the counter bits @bits (dcf: what they count). */
	void (*show_counter_bits)(const struct kb_out *o, uint32_t bits);
	/*
	 * A KB_CAP_FORGETS type's rate, whatever the number of keys, in
	 * place of the rate at capacity (stable: at its stable point).
	 */
	void (*show_limit)(const struct kb_out *o, const struct kb_shape *p);
	/* After the rate at @capacity (counting: the overflow bound). */
	void (*show_at_capacity)(const struct kb_out *o,
				 const struct kb_shape *p, uint64_t capacity);
};

/* The ops of @type; for an unknown type, ops with every hook NULL. */
const struct kb_utype *kb_utype(uint32_t type);

/*
 * The engine's answers about a type id (kb_type_info()), for callers
 * that test a capability: inline, so that a file needing only these does
 * not link the per-type ops.
 */
/* Its capabilities (enum kb_cap); 0 for no such type. */
static inline uint32_t kb_utype_caps(uint32_t type)
{
	const struct kb_type_info *info = kb_type_info(type);

	return info ? info->caps : 0;
}

/* Keys are tuples of DIMS values (multi). */
static inline bool kb_utype_tuples(uint32_t type)
{
	return kb_type_takes(type, KB_TAKES_DIMS);
}

/* A table of records, not of keys (transforms). */
static inline bool kb_utype_records(uint32_t type)
{
	return kb_utype_caps(type) & KB_CAP_RECORDS;
}

/* How its memory grows after create (enum kb_grow_kind); 0: fixed. */
static inline uint32_t kb_utype_grows(uint32_t type)
{
	const struct kb_type_info *info = kb_type_info(type);

	return info && info->grow ? info->grow->kind : 0;
}

#endif
