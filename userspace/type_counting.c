// SPDX-License-Identifier: GPL-2.0 OR MIT
/* counting: m counters of c bits; bloom's rate, and its overflow bound. */
#include <math.h>
#include <stdbool.h>

#include "cardinality.h"
#include "print.h"
#include "sizing.h"
#include "types.h"
#include "util.h"

double sizing_overflow_log10(uint64_t m, uint32_t k, double n,
			     uint32_t counter_bits)
{
	double j = ldexp(1.0, counter_bits), x;

	if (!(n > 0))
		return -INFINITY;
	x = log10((double)m) + j * log10(M_E * k * n / ((double)m * j));
	return x < 0 ? x : 0;
}

static void counting_defaults(struct kb_shape *p)
{
	if (!p->cell_bits)
		p->cell_bits = KB_COUNTING_BITS_DEFAULT;
}

static uint32_t counting_cell_bits(const struct kb_shape *p)
{
	return p->cell_bits;
}

static void counting_calc(const struct kb_out *o, const struct kb_shape *p,
			  uint64_t n)
{
	double x = sizing_overflow_log10(p->m, p->k, (double)n, p->cell_bits);

	kb_print_double(o, KB_PRINT_JSON, "overflow_bound", NULL, pow(10, x));
	kb_print_double(o, KB_PRINT_JSON, "overflow_log10", NULL, x);
	kb_print_text(o, ", overflow <= %s", fmt_pow10(x));
}

static bool counting_params_known(const struct kb_shape *p)
{
	return p->cell_bits;
}

/* show: the bound on a counter overflowing with @capacity keys. */
static void counting_show_at_capacity(const struct kb_out *o,
				      const struct kb_shape *p,
				      uint64_t capacity)
{
	double x = sizing_overflow_log10(p->m, p->k, (double)capacity,
					 p->cell_bits);

	kb_print_double(o, KB_PRINT_JSON, "overflow_at_capacity", NULL,
			pow(10, x));
	kb_print_double(o, KB_PRINT_JSON, "overflow_log10_at_capacity", NULL,
			x);
	kb_print_text(o, "  overflow at capacity: at most %s\n", fmt_pow10(x));
}

const struct kb_utype kb_utype_counting = {
	.defaults = counting_defaults,
	.cell_bits = counting_cell_bits,
	.counter_words = "a counting filter has 4, 8 or 16",
	.keys = card_keys_bloom,
	.basis = "n* = -(m/k) ln(1 - X/m), X non-zero counters",
	.calc_figures = counting_calc,
	.params_known = counting_params_known,
	.show_at_capacity = counting_show_at_capacity,
};
