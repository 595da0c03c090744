/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The per-type keywords of create and calc (counter-bits, update,
 * decrement, subtables, bucket-cells, fp-bits, dims, growth, tighten):
 * their names, their
 * checks, and the parameters they set.
 */
#ifndef BLOOMCTL_TYPEOPTS_H
#define BLOOMCTL_TYPEOPTS_H

#include <stdbool.h>

#include "keyparse.h"
#include "sizing.h"

enum {
	TO_COUNTER_BITS,
	TO_UPDATE,
	TO_DECREMENT,
	TO_SUBTABLES,
	TO_BUCKET_CELLS,
	TO_FP_BITS,
	TO_DIMS,
	TO_GROWTH,
	TO_TIGHTEN,
	TO_NUM
};

/* Index of a type keyword, or -1. */
int typeopt_find(const char *word);
const char *typeopt_name(int i);

/*
 * Checks the keywords given (@val[i] non-NULL) against @p->type and
 * stores them in @p (and the names in @dims). @dims_count: calc also
 * takes "dims N", a number of dimensions. Prints the error, naming the
 * command @cmd, and returns -1 when a value is bad or the type does not
 * take the keyword.
 */
int typeopts_apply(const char *cmd, const char *const val[TO_NUM],
		   struct kb_params *p, struct kb_dims *dims, bool dims_count);

/*
 * 'windows W' and 'interval DURATION' of create and calc (either may be
 * NULL; they go together): *@windows 0 and *@interval_ms 0 when neither is
 * given. Prints the error; 0 or -1.
 */
int paging_parse(const char *cmd, const char *windows_s,
		 const char *interval_s, uint32_t *windows,
		 uint64_t *interval_ms);

#endif
