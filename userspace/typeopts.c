// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <math.h>
#include <stddef.h>
#include <string.h>

#include <netlink/genl/genl.h>

#include "commands.h"
#include "describe.h"
#include "kwargs.h"
#include "timefmt.h"
#include "typeopts.h"
#include "types.h"
#include "util.h"

void kb_put_params(struct nl_msg *msg, const struct kb_shape *p,
		   const char (*dim_names)[KBLOOM_DIM_NAME_MAX])
{
	struct nlattr *nest;
	uint32_t n;
	int i;

	for (i = 0; i < TO_NUM; i++) {
		const struct kb_param *t = &kb_param_table[i];

		if (!kb_param_taken(i, p->type) ||
		    (t->zero_absent && !kb_param_get(p, i)))
			continue;
		if (t->kind != KB_PARAM_DIMS) {
			kb_put_u32(msg, kb_param_attr(i), kb_param_get(p, i));
			continue;
		}
		nest = nla_nest_start(msg, kb_param_attr(i) | NLA_F_NESTED);
		if (!nest)
			kb_nl_full();
		for (n = 0; n < p->dims; n++)
			if (nla_put_string(msg, KBLOOM_DIMS_A_NAME,
					   dim_names[n]) < 0)
				kb_nl_full();
		nla_nest_end(msg, nest);
	}
}

int typeopts_args(const char *cmd, int argc, char **argv, int first,
		  const char *const *names, int n, const char **val,
		  const char *tval[TO_NUM])
{
	struct kwarg kw[16 + TO_NUM] = { 0 };
	int i;

	if (n > 16) {
		errorf("internal error: %d keywords of %s", n, cmd);
		return -1;
	}
	for (i = 0; i < n; i++)
		kw[i].name = names[i];
	for (i = 0; i < TO_NUM; i++)
		kw[n + i].name = kb_param_table[i].keyword;
	if (kwargs_parse(cmd, argc, argv, first, kw, n + TO_NUM))
		return -1;
	for (i = 0; i < n; i++)
		val[i] = kw[i].val;
	for (i = 0; i < TO_NUM; i++)
		tval[i] = kw[n + i].val;
	return 0;
}

/*
 * A u32 from @lo to @hi; when @set is not 0, also a power of two whose
 * bit is in @set (4 | 8 | 16: one of 4, 8, 16).
 */
static int get_u32(const char *name, const char *s, uint32_t lo, uint32_t hi,
		   uint32_t set, const char *what, uint32_t *out)
{
	uint32_t v;

	if (parse_u32(s, &v) || v < lo || v > hi ||
	    (set && (v & (v - 1) || !(set & v)))) {
		errorf("invalid %s '%s': %s", name, quote(s), what);
		return -1;
	}
	*out = v;
	return 0;
}

/* counter-bits: the widths the type's counters come in. */
static int apply_counter_bits(const char *s, struct kb_shape *p)
{
	const struct kb_type_info *info = kb_type_info(p->type);
	const struct kb_utype *t = kb_utype(p->type);

	/* The widths are the engine's; the words of a refusal the type's. */
	return get_u32("counter-bits", s, 1, 16,
		       info ? info->counter_widths : 0,
		       t->counter_words ? t->counter_words : "from 1 to 16",
		       &p->cell_bits);
}

/* update, hash: one of the names, "plain or conservative". */
static int apply_named(int i, const char *s, struct kb_shape *p)
{
	const struct kb_param *t = &kb_param_table[i];
	char names[128] = "";
	size_t len = 0;
	uint32_t v, n;

	if (!kb_param_value(i, s, &v)) {
		kb_param_set(p, i, v);
		return 0;
	}
	for (n = 0; t->names[n]; n++)
		len += snprintf(names + len, len < sizeof(names) ?
				sizeof(names) - len : 0, "%s%s",
				n ? " or " : "", t->names[n]);
	errorf("invalid %s '%s': %s", t->keyword, quote(s), names);
	return -1;
}

/* tighten: a ratio, kept in millionths as the kernel takes it. */
static int apply_tighten(const char *s, struct kb_shape *p)
{
	double r;

	if (parse_double(s, &r) ||
	    !(r >= KBLOOM_TIGHTEN_MIN / 1e6 - 1e-12 &&
	      r <= KBLOOM_TIGHTEN_MAX / 1e6 + 1e-12)) {
		errorf("invalid tighten '%s': a ratio from 0.01 to 0.99",
		       quote(s));
		return -1;
	}
	p->tighten = (uint32_t)llround(r * 1e6);
	return 0;
}

/* dims: the names; for calc (@dims_count) also a number of dimensions. */
static int apply_dims(const char *s, struct kb_shape *p, struct kb_dims *dims,
		      bool dims_count)
{
	char why[128];
	uint32_t n;

	memset(dims, 0, sizeof(*dims));
	if (dims_count && !parse_u32(s, &n)) {
		if (n < 1 || n > KBLOOM_DIMS_MAX) {
			errorf("invalid dims '%s': 1 to %d dimensions",
			       quote(s), KBLOOM_DIMS_MAX);
			return -1;
		}
		p->dims = n;
	} else if (dims_parse(s, dims, why, sizeof(why))) {
		errorf("invalid dims '%s': %s", quote(s), why);
		return -1;
	} else {
		p->dims = dims->n;
	}
	return 0;
}

int typeopts_apply(const char *cmd, const char *const val[TO_NUM],
		   struct kb_shape *p, struct kb_dims *dims, bool dims_count)
{
	char what[64];
	uint32_t v, lo, hi;
	int i, r;

	for (i = 0; i < TO_NUM; i++) {
		const struct kb_param *t = &kb_param_table[i];

		if (val[i] && !kb_param_taken(i, p->type)) {
			usage_errorf(cmd, "'%s' is for %s, not %s", t->keyword,
				     t->types_text, kb_type_str(p->type));
			return -1;
		}
	}
	/* In the table's order: the first bad value is the one named. */
	for (i = 0; i < TO_NUM; i++) {
		const struct kb_param *t = &kb_param_table[i];

		if (!val[i])
			continue;
		if (kb_param_bounds(i, &lo, &hi)) {
			snprintf(what, sizeof(what),
				 "not an integer from %u to %u", lo, hi);
			r = get_u32(t->keyword, val[i], lo, hi, 0, what, &v);
			if (!r)
				kb_param_set(p, i, v);
		} else if (i == TO_COUNTER_BITS) {
			r = apply_counter_bits(val[i], p);
		} else if (t->kind == KB_PARAM_NAMED) {
			r = apply_named(i, val[i], p);
		} else if (i == TO_TIGHTEN) {
			r = apply_tighten(val[i], p);
		} else if (i == TO_DIMS) {
			r = apply_dims(val[i], p, dims, dims_count);
		} else {
			errorf("internal error: no check for '%s'", t->keyword);
			r = -1;
		}
		if (r)
			return -1;
	}
	return 0;
}

int paging_parse(const char *cmd, const char *windows_s,
		 const char *interval_s, uint32_t *windows,
		 uint64_t *interval_ms)
{
	char why[128], lo[KB_TIME_STR_MAX], hi[KB_TIME_STR_MAX];

	*windows = 0;
	*interval_ms = 0;
	if (windows_s && (parse_u32(windows_s, windows) || *windows < 2 ||
			  *windows > KBLOOM_WINDOWS_MAX)) {
		errorf("invalid windows '%s': not an integer from 2 to %d",
		       quote(windows_s), KBLOOM_WINDOWS_MAX);
		return -1;
	}
	if (interval_s) {
		if (kb_duration_parse(interval_s, interval_ms, why,
				      sizeof(why))) {
			errorf("invalid interval '%s': %s (e.g. 500ms, 10s, 5m, 1h, 1d; a plain number is seconds)",
			       quote(interval_s), why);
			return -1;
		}
		if (*interval_ms < KBLOOM_INTERVAL_MIN ||
		    *interval_ms > KBLOOM_INTERVAL_MAX) {
			errorf("invalid interval '%s': a window lasts %s to %s",
			       quote(interval_s),
			       kb_duration_str(KBLOOM_INTERVAL_MIN, lo,
					       sizeof(lo)),
			       kb_duration_str(KBLOOM_INTERVAL_MAX, hi,
					       sizeof(hi)));
			return -1;
		}
	}
	if (!windows_s != !interval_s) {
		usage_errorf(cmd, "'%s' needs '%s'",
			     windows_s ? "windows" : "interval",
			     windows_s ? "interval DURATION" : "windows W");
		return -1;
	}
	return 0;
}
