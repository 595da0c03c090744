// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "params.h"

#define SHAPE(f)	offsetof(struct kb_shape, f)
#define T(t)		(1U << KBLOOM_TYPE_##t)

const struct kb_param kb_param_table[TO_NUM] = {
	[TO_COUNTER_BITS] = { "counter-bits", KBLOOM_A_COUNTER_BITS,
		SHAPE(cell_bits), "counter_bits", "  counter bits: ",
		T(COUNTING) | T(STABLE) | T(DCF),
		"counting, stable and dcf filters", KB_PARAM_U32 },
	[TO_UPDATE] = { "update", KBLOOM_A_UPDATE, SHAPE(update), "update",
		"  update: ", T(COUNTING), "counting filters",
		KB_PARAM_UPDATE },
	[TO_DECREMENT] = { "decrement", KBLOOM_A_DECREMENT, SHAPE(decrement),
		"decrement", "  decrement (P): ", T(STABLE), "stable filters",
		KB_PARAM_U32 },
	[TO_SUBTABLES] = { "subtables", KBLOOM_A_SUBTABLES, SHAPE(subtables),
		"subtables", "  subtables (d): ", T(DLEFT), "dleft filters",
		KB_PARAM_U32 },
	[TO_BUCKET_CELLS] = { "bucket-cells", KBLOOM_A_BUCKET_CELLS,
		SHAPE(bucket_cells), "bucket_cells", "  bucket cells (c): ",
		T(DLEFT), "dleft filters", KB_PARAM_U32 },
	[TO_FP_BITS] = { "fp-bits", KBLOOM_A_FP_BITS, SHAPE(fp_bits),
		"fp_bits", "  fingerprint bits: ", T(DLEFT), "dleft filters",
		KB_PARAM_U32 },
	[TO_DIMS] = { "dims", KBLOOM_A_DIMS, SHAPE(dims), "dims",
		"  dimensions: ", T(MULTI), "multi filters", KB_PARAM_DIMS },
	[TO_GROWTH] = { "growth", KBLOOM_A_GROWTH, SHAPE(growth), "growth",
		"  growth (s): ", T(SCALABLE), "scalable filters",
		KB_PARAM_U32 },
	[TO_TIGHTEN] = { "tighten", KBLOOM_A_TIGHTEN, SHAPE(tighten),
		"tighten", "  tighten (r): ", T(SCALABLE), "scalable filters",
		KB_PARAM_RATIO },
};

#undef T
#undef SHAPE

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
