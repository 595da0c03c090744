// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <string.h>

#include "params.h"

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
		.keyword = "hash", .json = "hash",
		.text = "  hash function: ", .diff = "hash functions",
		.types_text = "filters of keys, not transforms",
		.kind = KB_PARAM_NAMED, .names = hash_fn_names,
		.zero_absent = true, .not_sized = true,
	},
	[TO_COUNTER_BITS] = {
		.keyword = "counter-bits", .json = "counter_bits",
		.text = "  counter bits: ", .diff = "counter bits",
		.types_text = "counting, stable and dcf filters",
	},
	[TO_UPDATE] = {
		.keyword = "update", .json = "update",
		.text = "  update: ", .diff = "update rules",
		.types_text = "counting filters",
		.kind = KB_PARAM_NAMED, .names = update_names,
	},
	[TO_DECREMENT] = {
		.keyword = "decrement", .json = "decrement",
		.text = "  decrement (P): ", .diff = "decrements",
		.types_text = "stable filters",
	},
	[TO_SUBTABLES] = {
		.keyword = "subtables", .json = "subtables",
		.text = "  subtables (d): ", .diff = "subtables",
		.types_text = "dleft filters",
	},
	[TO_BUCKET_CELLS] = {
		.keyword = "bucket-cells", .json = "bucket_cells",
		.text = "  bucket cells (c): ", .diff = "bucket cells",
		.types_text = "dleft filters",
	},
	[TO_FP_BITS] = {
		.keyword = "fp-bits", .json = "fp_bits",
		.text = "  fingerprint bits: ", .diff = "fingerprint bits",
		.types_text = "dleft filters",
	},
	[TO_DIMS] = {
		.keyword = "dims", .json = "dims",
		.text = "  dimensions: ", .diff = "dimensions",
		.types_text = "multi filters",
		.kind = KB_PARAM_DIMS,
	},
	[TO_GROWTH] = {
		.keyword = "growth", .json = "growth",
		.text = "  growth (s): ",
		.types_text = "scalable filters",
	},
	[TO_TIGHTEN] = {
		.keyword = "tighten", .json = "tighten",
		.text = "  tighten (r): ",
		.types_text = "scalable filters",
		.kind = KB_PARAM_RATIO,
	},
};

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
	return kb_type_takes(type, kb_params[i].takes);
}

int kb_param_attr(int i)
{
	return kb_params[i].attr;
}

bool kb_param_bounds(int i, uint32_t *lo, uint32_t *hi)
{
	if (kb_param_table[i].kind != KB_PARAM_U32 || !kb_params[i].max)
		return false;
	*lo = kb_params[i].min;
	*hi = kb_params[i].max;
	return true;
}

uint32_t kb_param_get(const struct kb_shape *p, int i)
{
	return kb_shape_get(p, &kb_params[i]);
}

void kb_param_set(struct kb_shape *p, int i, uint32_t v)
{
	kb_shape_set(p, &kb_params[i], v);
}
