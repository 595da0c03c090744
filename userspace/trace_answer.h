/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The parts of a router's answer (traceback.h's tb_answer) every backend
 * of 'bloomctl trace' fills the same way, below the backends and the
 * dispatch of trace_backend.h alike.
 *
 * Every window's false positive rate comes from its fill as 'bloomctl
 * show' computes "fpr now" (cardinality.h, card_fpr_now): (X/m)^k for
 * bloom, counting and stable; the same upper bound for partitioned; the
 * block occupancy model at the fill's key estimate for blocked; d c X /
 * (m 2^f) for dleft.
 */
#ifndef BLOOMCTL_TRACE_ANSWER_H
#define BLOOMCTL_TRACE_ANSWER_H

#include <stdint.h>

#include "sizing.h"
#include "traceback.h"

/* A window's rate from its fill (see above), at most 1. */
double trace_window_fpr(const struct kb_shape *p, uint64_t fill);
/* a->bypass from the attachment's KBLOOM_BYPASS_* @bits, or one @name. */
void trace_bypass_bits(struct tb_answer *a, uint32_t bits);
void trace_bypass_join(struct tb_answer *a, const char *name);
/* Allocates a->win (nwin) and a->hits (n rows), zeroed. 0 or -1. */
int trace_answer_alloc(struct tb_answer *a, uint32_t nwin, size_t n);

#endif
