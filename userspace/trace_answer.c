// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What every backend of 'bloomctl trace' fills its answers with: see
 * trace_answer.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cardinality.h"
#include "pktfmt.h"
#include "trace_answer.h"

double trace_window_fpr(const struct kb_shape *p, uint64_t fill)
{
	double f = card_fpr_now(p, fill);

	if (!(f >= 0))		/* NaN */
		return 1;
	return f > 1 ? 1 : f;
}

void trace_bypass_join(struct tb_answer *a, const char *name)
{
	size_t len = strlen(a->bypass);

	snprintf(a->bypass + len, sizeof(a->bypass) - len, "%s%s",
		 len ? ", " : "", name);
}

void trace_bypass_bits(struct tb_answer *a, uint32_t bits)
{
	uint32_t i;

	for (i = 0; i < 32; i++)
		if (bits & (1u << i))
			trace_bypass_join(a, kb_bypass_str(i));
}

int trace_answer_alloc(struct tb_answer *a, uint32_t nwin, size_t n)
{
	a->nwin = nwin;
	a->row = (nwin + 7) / 8;
	a->win = calloc(nwin ? nwin : 1, sizeof(*a->win));
	a->hits = calloc(n * a->row + 1, 1);
	if (!a->win || !a->hits) {
		free(a->win);
		free(a->hits);
		a->win = NULL;
		a->hits = NULL;
		return -1;
	}
	return 0;
}

