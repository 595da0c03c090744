/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The filter types' own parameters (counter-bits, update, decrement,
 * subtables, bucket-cells, fp-bits, dims, growth, tighten), described
 * once: per parameter its keyword (create, calc), its netlink attribute
 * (create, restore, the GET reply), its field of struct kb_shape, its
 * JSON key and text label (show), and which types take it. create,
 * restore, the reply parser and both renderings of show loop over this
 * table; the checks of a value given on the command line are here too.
 * In the order show prints them.
 */
#ifndef BLOOMCTL_TYPEOPTS_H
#define BLOOMCTL_TYPEOPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* How a value is written out (show) and sent. */
enum kb_param_kind {
	KB_PARAM_U32,		/* a number */
	KB_PARAM_UPDATE,	/* enum kbloom_update, by name */
	KB_PARAM_RATIO,		/* millionths, shown as a ratio */
	KB_PARAM_DIMS,		/* the dimension names (a nest) */
};

struct kb_param {
	const char *keyword;	/* create, calc: "counter-bits" */
	int attr;		/* KBLOOM_A_COUNTER_BITS */
	size_t field;		/* offsetof(struct kb_shape, ...), a u32 */
	const char *json;	/* show -j: "counter_bits" */
	const char *text;	/* show: "  counter bits: " */
	uint32_t types;		/* bits of enum kbloom_type */
	const char *types_text;	/* "counting, stable and dcf filters" */
	enum kb_param_kind kind;
};

extern const struct kb_param kb_param_table[TO_NUM];

/* Does filter type @type take parameter @i? */
bool kb_param_taken(int i, uint32_t type);
uint32_t kb_param_get(const struct kb_shape *p, int i);
void kb_param_set(struct kb_shape *p, int i, uint32_t v);

/*
 * The attributes of the parameters @p's type takes, for CREATE (create,
 * restore); a multi filter's p->dims names from @dim_names.
 */
struct nl_msg;
void kb_put_params(struct nl_msg *msg, const struct kb_shape *p,
		   const char (*dim_names)[KBLOOM_DIM_NAME_MAX]);

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
		   struct kb_shape *p, struct kb_dims *dims, bool dims_count);

/*
 * 'windows W' and 'interval DURATION' of create and calc (either may be
 * NULL; they go together): *@windows 0 and *@interval_ms 0 when neither is
 * given. Prints the error; 0 or -1.
 */
int paging_parse(const char *cmd, const char *windows_s,
		 const char *interval_s, uint32_t *windows,
		 uint64_t *interval_ms);

#endif
