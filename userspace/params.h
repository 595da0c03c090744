/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The filter types (kb_type_desc) and the user's words for their own
 * parameters (hash, counter-bits, update, decrement, subtables,
 * bucket-cells, fp-bits, dims, growth, tighten), as ipset describes its
 * arguments once (lib/args.c): per parameter its keyword (create, calc),
 * its JSON key and text label (show) and help. What the engine knows of
 * each (netlink attribute, struct kb_shape field, the types that take it,
 * bounds, default) is the engine's table, kb_params[] (filter.h), which
 * bloomctl links: one row here per row there, same index. create,
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

/* The engine's rows (enum kb_param_id), by bloomctl's names. */
enum {
	TO_HASH_FN = KB_P_HASH_FN,
	TO_COUNTER_BITS = KB_P_COUNTER_BITS,
	TO_UPDATE = KB_P_UPDATE,
	TO_DECREMENT = KB_P_DECREMENT,
	TO_SUBTABLES = KB_P_SUBTABLES,
	TO_BUCKET_CELLS = KB_P_BUCKET_CELLS,
	TO_FP_BITS = KB_P_FP_BITS,
	TO_DIMS = KB_P_DIMS,
	TO_GROWTH = KB_P_GROWTH,
	TO_TIGHTEN = KB_P_TIGHTEN,
	TO_NUM = KB_P_NUM
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
	const char *json;	/* show -j: "counter_bits" */
	const char *text;	/* show: "  counter bits: " */
	const char *types_text;	/* "counting, stable and dcf filters" */
	enum kb_param_kind kind;
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

/* Does filter type @type take parameter @i? (the engine's table) */
bool kb_param_taken(int i, uint32_t type);
/* Its netlink attribute (KBLOOM_A_COUNTER_BITS). */
int kb_param_attr(int i);
/*
 * A whole number from @lo to @hi, the engine's bounds; false when
 * typeopts.c checks it by its own rules (names, ratio, sets of widths).
 */
bool kb_param_bounds(int i, uint32_t *lo, uint32_t *hi);
uint32_t kb_param_get(const struct kb_shape *p, int i);
void kb_param_set(struct kb_shape *p, int i, uint32_t v);

#endif
