// SPDX-License-Identifier: GPL-2.0 OR MIT
/* bloom: the maths most types share (sizing.c), its estimate. */
#include "cardinality.h"
#include "print.h"
#include "sizing.h"
#include "types.h"

const struct kb_utype kb_utype_bloom = {
	.keys = card_keys_bloom,
	.basis = "n* = -(m/k) ln(1 - X/m), X bits set",
};
