/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The filter types (kb_type_desc) and their own parameters (hash,
 * counter-bits, update, decrement, subtables, bucket-cells, fp-bits, dims, growth, tighten), described
 * once, as ipset describes its arguments once (lib/args.c): per
 * parameter its keyword (create, calc), its netlink attribute (create,
 * restore, the GET reply), its field of the engine's struct kb_shape, its
 * JSON key and text label (show), and which types take it. create,
 * restore, the reply parser and both renderings of show loop over this
 * table (typeopts.c, describe_parse.c, describe.c); the checks of a
 * value given on the command line are typeopts.c's. In the order show
 * prints them.
 */
#ifndef BLOOMCTL_PARAMS_H
#define BLOOMCTL_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sizing.h"

enum {
	TO_HASH_FN,
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
	KB_PARAM_U32 = 0,	/* a number (the default) */
	KB_PARAM_NAMED,		/* an enum, by name: names[value] */
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
	/* A whole number from lo to hi (hi 0: checked by typeopts.c). */
	uint32_t lo, hi;
	/* KB_PARAM_NAMED: the name of each value, NULL after the last. */
	const char *const *names;
	/*
	 * 0 is sent as no attribute, which every module takes as 0: a
	 * module older than the parameter still creates default filters.
	 */
	bool zero_absent;
	/* No bearing on size or false positives: calc leaves it out. */
	bool not_sized;
	/*
	 * merge, estimate: "counter bits" differ (kb_desc_diff); NULL: not
	 * compared here (the kernel's refusal says why).
	 */
	const char *diff;
};

extern const struct kb_param kb_param_table[TO_NUM];

/*
 * A filter type, described once: its name and what its cells are, as
 * show, list, metrics and the key commands say. Its sizing and estimates
 * stay per type in sizing.c and cardinality.c.
 */
struct kb_type_desc {
	const char *name;	/* "counting" */
	const char *fill_what;	/* what FILL counts: "counters non-zero" */
	const char *saturated;	/* SATURATED's label; NULL: not reported */
	bool counts;		/* counters that del lowers and count reads */
};

/* The type's description; NULL for a type newer than this tool. */
const struct kb_type_desc *kb_type_desc(uint32_t type);

/* KB_PARAM_NAMED: the name of value @v of parameter @i, or "unknown". */
const char *kb_param_name(int i, uint32_t v);
/* KB_PARAM_NAMED: the value named @s, 0; -1 when none is. */
int kb_param_value(int i, const char *s, uint32_t *v);

/* Does filter type @type take parameter @i? */
bool kb_param_taken(int i, uint32_t type);
uint32_t kb_param_get(const struct kb_shape *p, int i);
void kb_param_set(struct kb_shape *p, int i, uint32_t v);

#endif
