// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dcf (Aguilar-Saborit et al.): bloom's probes and rate over small
 * counters (CBFV) and an overflow vector (OFV) that widens (sizing.h).
 */
#include <stdbool.h>

#include "cardinality.h"
#include "print.h"
#include "sizing.h"
#include "types.h"

static void dcf_defaults(struct kb_shape *p)
{
	if (!p->cell_bits)
		p->cell_bits = KB_DCF_BITS_DEFAULT;
}

static uint32_t dcf_cell_bits(const struct kb_shape *p)
{
	return p->cell_bits + KB_DCF_OFV_BITS_START;
}

static void dcf_calc(const struct kb_out *o, const struct kb_shape *p,
		     uint64_t n)
{
	(void)n;
	kb_print_u64(o, KB_PRINT_JSON, "ofv_bits", NULL, KB_DCF_OFV_BITS_START);
	kb_print_u64(o, KB_PRINT_ANY, "counting16_bytes",
		     " + overflow vector of 1 bit per cell, doubled as counts grow (counting counter-bits 16: %llu bytes)",
		     sizing_vec_bytes(p->m, 16));
}

static bool dcf_params_known(const struct kb_shape *p)
{
	return p->cell_bits;
}

/* show: the counter bits are the CBFV's, the low part of a count. */
static void dcf_show_counter_bits(const struct kb_out *o, uint32_t bits)
{
	kb_print_text(o, " (CBFV; count = OFV * %u + CBFV)", 1U << bits);
}

const struct kb_utype kb_utype_dcf = {
	.defaults = dcf_defaults,
	.cell_bits = dcf_cell_bits,
	.counter_words = "a dcf has 2, 4 or 8 (its small counters)",
	.keys = card_keys_bloom,
	.basis = "n* = -(m/k) ln(1 - X/m), X non-zero counters",
	.calc_figures = dcf_calc,
	.params_known = dcf_params_known,
	.show_counter_bits = dcf_show_counter_bits,
};
