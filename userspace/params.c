// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <string.h>

#include "params.h"

#define SHAPE(f)	offsetof(struct kb_shape, f)
#define T(t)		(1U << KBLOOM_TYPE_##t)

static const char *const hash_fn_names[] = {
	[KBLOOM_HASH_FN_SIPHASH24] = "siphash-2-4",
	[KBLOOM_HASH_FN_SIPHASH13] = "siphash-1-3",
	NULL
};

static const char *const update_names[] = {
	[KBLOOM_UPDATE_PLAIN] = "plain",
	[KBLOOM_UPDATE_CONSERVATIVE] = "conservative",
	NULL
};

const struct kb_param kb_param_table[TO_NUM] = {
	[TO_HASH_FN] = {
		.keyword = "hash", .attr = KBLOOM_A_HASH_FN,
		.field = SHAPE(hash_fn), .json = "hash",
		.text = "  hash function: ", .diff = "hash functions",
		.types = T(BLOOM) | T(PARTITIONED) | T(BLOCKED) | T(COUNTING) |
			 T(DLEFT) | T(STABLE) | T(MULTI) | T(SCALABLE) | T(DCF),
		.types_text = "filters of keys, not transforms",
		.kind = KB_PARAM_NAMED, .names = hash_fn_names,
		.zero_absent = true, .not_sized = true,
	},
	[TO_COUNTER_BITS] = {
		.keyword = "counter-bits", .attr = KBLOOM_A_COUNTER_BITS,
		.field = SHAPE(cell_bits), .json = "counter_bits",
		.text = "  counter bits: ", .diff = "counter bits",
		.types = T(COUNTING) | T(STABLE) | T(DCF),
		.types_text = "counting, stable and dcf filters",
	},
	[TO_UPDATE] = {
		.keyword = "update", .attr = KBLOOM_A_UPDATE,
		.field = SHAPE(update), .json = "update",
		.text = "  update: ", .diff = "update rules",
		.types = T(COUNTING), .types_text = "counting filters",
		.kind = KB_PARAM_NAMED, .names = update_names,
	},
	[TO_DECREMENT] = {
		.keyword = "decrement", .attr = KBLOOM_A_DECREMENT,
		.field = SHAPE(decrement), .json = "decrement",
		.text = "  decrement (P): ", .diff = "decrements",
		.types = T(STABLE), .types_text = "stable filters",
		.lo = 1, .hi = KBLOOM_DECREMENT_MAX,
	},
	[TO_SUBTABLES] = {
		.keyword = "subtables", .attr = KBLOOM_A_SUBTABLES,
		.field = SHAPE(subtables), .json = "subtables",
		.text = "  subtables (d): ", .diff = "subtables",
		.types = T(DLEFT), .types_text = "dleft filters",
		.lo = 2, .hi = 8,
	},
	[TO_BUCKET_CELLS] = {
		.keyword = "bucket-cells", .attr = KBLOOM_A_BUCKET_CELLS,
		.field = SHAPE(bucket_cells), .json = "bucket_cells",
		.text = "  bucket cells (c): ", .diff = "bucket cells",
		.types = T(DLEFT), .types_text = "dleft filters",
		.lo = 1, .hi = 16,
	},
	[TO_FP_BITS] = {
		.keyword = "fp-bits", .attr = KBLOOM_A_FP_BITS,
		.field = SHAPE(fp_bits), .json = "fp_bits",
		.text = "  fingerprint bits: ", .diff = "fingerprint bits",
		.types = T(DLEFT), .types_text = "dleft filters",
		.lo = KB_DLEFT_FP_MIN, .hi = KB_DLEFT_FP_MAX,
	},
	[TO_DIMS] = {
		.keyword = "dims", .attr = KBLOOM_A_DIMS,
		.field = SHAPE(dims), .json = "dims",
		.text = "  dimensions: ", .diff = "dimensions",
		.types = T(MULTI), .types_text = "multi filters",
		.kind = KB_PARAM_DIMS,
	},
	[TO_GROWTH] = {
		.keyword = "growth", .attr = KBLOOM_A_GROWTH,
		.field = SHAPE(growth), .json = "growth",
		.text = "  growth (s): ",
		.types = T(SCALABLE), .types_text = "scalable filters",
		.lo = KBLOOM_GROWTH_MIN, .hi = KBLOOM_GROWTH_MAX,
	},
	[TO_TIGHTEN] = {
		.keyword = "tighten", .attr = KBLOOM_A_TIGHTEN,
		.field = SHAPE(tighten), .json = "tighten",
		.text = "  tighten (r): ",
		.types = T(SCALABLE), .types_text = "scalable filters",
		.kind = KB_PARAM_RATIO,
	},
};

#undef T
#undef SHAPE

static const struct kb_type_desc types[KBLOOM_TYPE_MAX + 1] = {
	[KBLOOM_TYPE_BLOOM] = { "bloom", "bits set" },
	[KBLOOM_TYPE_PARTITIONED] = { "partitioned", "bits set" },
	[KBLOOM_TYPE_BLOCKED] = { "blocked", "bits set" },
	[KBLOOM_TYPE_COUNTING] = { "counting", "counters non-zero",
				   "saturated counters", true },
	[KBLOOM_TYPE_DLEFT] = { "dleft", "cells occupied", "saturated counters",
				true },
	[KBLOOM_TYPE_STABLE] = { "stable", "cells non-zero", "cells at maximum" },
	[KBLOOM_TYPE_MULTI] = { "multi", "bits set" },
	[KBLOOM_TYPE_SCALABLE] = { "scalable", "bits set" },
	[KBLOOM_TYPE_DCF] = { "dcf", "counters non-zero", NULL, true },
	[KBLOOM_TYPE_TRANSFORMS] = { "transforms", "records" },
};

const struct kb_type_desc *kb_type_desc(uint32_t type)
{
	return type <= KBLOOM_TYPE_MAX && types[type].name ? &types[type] :
	       NULL;
}

const char *kb_param_name(int i, uint32_t v)
{
	const char *const *n = kb_param_table[i].names;
	uint32_t j;

	for (j = 0; n && n[j]; j++)
		if (j == v)
			return n[j];
	return "unknown";
}

int kb_param_value(int i, const char *s, uint32_t *v)
{
	const char *const *n = kb_param_table[i].names;
	uint32_t j;

	for (j = 0; n && n[j]; j++) {
		if (!strcmp(n[j], s)) {
			*v = j;
			return 0;
		}
	}
	return -1;
}

bool kb_param_taken(int i, uint32_t type)
{
	return type <= KBLOOM_TYPE_MAX && (kb_param_table[i].types & 1U << type);
}

uint32_t kb_param_get(const struct kb_shape *p, int i)
{
	return *(const uint32_t *)((const char *)p + kb_param_table[i].field);
}

void kb_param_set(struct kb_shape *p, int i, uint32_t v)
{
	*(uint32_t *)((char *)p + kb_param_table[i].field) = v;
}
