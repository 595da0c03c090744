// SPDX-License-Identifier: GPL-2.0 OR MIT
/* transforms: a table of records (struct kbloom_xlate), no rate. */
#include "types.h"

static uint32_t transforms_cell_bits(const struct kb_shape *p)
{
	(void)p;
	return 8 * sizeof(struct kbloom_xlate);
}

/* 75% load: a record finds a cell in its few lines. */
static uint64_t transforms_record_cells(uint64_t capacity)
{
	return capacity > KBLOOM_BITS_MAX ? KBLOOM_BITS_MAX + 1 :
	       (capacity * 4 + 2) / 3;
}

const struct kb_utype kb_utype_transforms = {
	.cell_bits = transforms_cell_bits,
	.record_cells = transforms_record_cells,
};
