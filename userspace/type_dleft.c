// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dleft: d subtables of buckets of c cells, each a fingerprint and a
 * counter; k = 1, 75% load at capacity (sizing.h).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "cardinality.h"
#include "print.h"
#include "sizing.h"
#include "types.h"

double sizing_fpr_dleft(uint64_t m, uint32_t d, uint32_t c, uint32_t f,
			double n)
{
	/* 1 / (B 2^f), B = m / (d c) buckets per subtable */
	double one = (double)d * c / (double)m * ldexp(1.0, -(int)f);

	if (!(one < 1))
		return n > 0 ? 1.0 : 0.0;
	return -expm1(n * log1p(-one));
}

static void dleft_defaults(struct kb_shape *p)
{
	if (!p->subtables)
		p->subtables = KB_DLEFT_SUBTABLES_DEFAULT;
	if (!p->bucket_cells)
		p->bucket_cells = KB_DLEFT_CELLS_DEFAULT;
	if (!p->k)
		p->k = 1;
}

static uint32_t dleft_cell_bits(const struct kb_shape *p)
{
	(void)p;
	return 32;
}

/* Without a target rate: KB_DLEFT_FP_DEFAULT fingerprint bits. */
static int dleft_complete(struct kb_shape *p)
{
	if (!p->fp_bits)
		p->fp_bits = KB_DLEFT_FP_DEFAULT;
	return kb_params_round(p) ? -ERANGE : 0;
}

static int dleft_size(struct kb_shape *p, uint64_t n, double fpr)
{
	double cells = ceil((double)n / KB_DLEFT_LOAD);
	uint32_t f;

	if (cells > (double)KBLOOM_BITS_MAX)
		return -ERANGE;
	p->m = (uint64_t)cells;
	p->k = 1;
	if (kb_params_round(p))
		return -ERANGE;
	if (p->fp_bits)
		return 0;
	for (f = KB_DLEFT_FP_MIN; f <= KB_DLEFT_FP_MAX; f++) {
		if (sizing_fpr_dleft(p->m, p->subtables, p->bucket_cells, f,
				     (double)n) <= fpr) {
			p->fp_bits = f;
			return 0;
		}
	}
	return -EDOM;
}

static void dleft_size_edom(char *buf, size_t len, const struct kb_shape *p,
			    const char *fpr_text)
{
	if (fpr_text)
		snprintf(buf, len,
			 "fpr %s needs more than %d fingerprint bits with %u subtables of %u-cell buckets at 75%% load",
			 fpr_text, KB_DLEFT_FP_MAX, p->subtables,
			 p->bucket_cells);
	else
		snprintf(buf, len, "needs more than 24 fingerprint bits");
}

static double dleft_fpr(const struct kb_shape *p, double n)
{
	return sizing_fpr_dleft(p->m, p->subtables, p->bucket_cells,
				p->fp_bits, n);
}

/* One cell per distinct key. */
static double dleft_keys(const struct kb_shape *p, uint64_t x)
{
	(void)p;
	return (double)x;
}

/* The occupied cells of the query's d buckets, each 2^-f. */
static double dleft_fpr_now(const struct kb_shape *p, uint64_t x)
{
	double r = (double)p->subtables * p->bucket_cells * (double)x /
		   (double)p->m * ldexp(1.0, -(int)p->fp_bits);

	return r < 1 ? r : 1;
}

/* Its rate reads d, c and f. */
static bool dleft_params_known(const struct kb_shape *p)
{
	return p->subtables && p->bucket_cells && p->fp_bits;
}

const struct kb_utype kb_utype_dleft = {
	.hashes = 1,
	.hashes_why = "one hash gives the buckets and the fingerprint",
	.defaults = dleft_defaults,
	.cell_bits = dleft_cell_bits,
	.complete = dleft_complete,
	.size = dleft_size,
	.size_edom = dleft_size_edom,
	.fpr = dleft_fpr,
	.keys = dleft_keys,
	.fpr_now = dleft_fpr_now,
	.basis = "n* = X: one cell per distinct key",
	.params_known = dleft_params_known,
};
