// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <stdarg.h>

#include "print.h"
#include "timefmt.h"

void kb_out_text(struct kb_out *o, FILE *f)
{
	o->j = NULL;
	o->f = f;
	o->hide = 0;
}

void kb_out_json(struct kb_out *o, struct json *j)
{
	o->j = j;
	o->f = j->f;
	o->hide = 0;
}

void kb_out_only(struct kb_out *dst, const struct kb_out *o,
		 enum kb_print_where w)
{
	*dst = *o;
	dst->hide |= KB_PRINT_ANY & ~w;
}

void kb_out_stdout(struct kb_out *o, struct json *j, bool json)
{
	json_init(j, stdout);
	if (json)
		kb_out_json(o, j);
	else
		kb_out_text(o, stdout);
}

/* JSON: is the field for it (and writes the key)? */
static bool json_field(const struct kb_out *o, enum kb_print_where w,
		       const char *key)
{
	if (!o->j || !(w & KB_PRINT_JSON & ~o->hide))
		return false;
	if (key)
		json_key(o->j, key);
	return true;
}

static bool text_field(const struct kb_out *o, enum kb_print_where w)
{
	return !o->j && (w & KB_PRINT_TEXT & ~o->hide);
}

/*
 * The formats are the callers' literals with one conversion for the
 * value; -Wformat-nonliteral is not asked for, and they are checked by
 * the unit test and the golden files.
 */
void kb_print_u64(const struct kb_out *o, enum kb_print_where w,
		  const char *key, const char *fmt, uint64_t v)
{
	if (json_field(o, w, key))
		json_u64(o->j, v);
	else if (text_field(o, w))
		fprintf(o->f, fmt, (unsigned long long)v);
}

void kb_print_double(const struct kb_out *o, enum kb_print_where w,
		     const char *key, const char *fmt, double v)
{
	if (json_field(o, w, key))
		json_double(o->j, v);
	else if (text_field(o, w))
		fprintf(o->f, fmt, v);
}

void kb_print_str(const struct kb_out *o, enum kb_print_where w,
		  const char *key, const char *fmt, const char *s)
{
	if (json_field(o, w, key)) {
		if (s)
			json_str(o->j, s);
		else
			json_null(o->j);
	} else if (text_field(o, w) && s) {
		fprintf(o->f, fmt, s);
	}
}

void kb_print_bool(const struct kb_out *o, enum kb_print_where w,
		   const char *key, const char *fmt, bool v)
{
	if (json_field(o, w, key))
		json_bool(o->j, v);
	else if (text_field(o, w))
		fprintf(o->f, fmt, v ? "true" : "false");
}

void kb_print_key(const struct kb_out *o, enum kb_print_where w,
		  const char *key, const void *s, size_t len, bool tuple)
{
	if (json_field(o, w, key))
		json_keytext(o->j, s, len, tuple);
	else if (text_field(o, w))
		fwrite(s, 1, len, o->f);
}

void kb_print_time(const struct kb_out *o, enum kb_print_where w,
		   const char *key, const char *fmt, uint64_t ns)
{
	char buf[KB_TIME_STR_MAX], nskey[32];

	if (json_field(o, w, key)) {
		if (ns)
			json_str(o->j, kb_time_str(ns, true, buf, sizeof(buf)));
		else
			json_null(o->j);
		snprintf(nskey, sizeof(nskey), "%s_ns", key);
		json_key(o->j, nskey);
		json_u64(o->j, ns);
	} else if (text_field(o, w)) {
		fprintf(o->f, fmt, kb_time_str(ns, false, buf, sizeof(buf)));
	}
}

void kb_print_text(const struct kb_out *o, const char *fmt, ...)
{
	va_list ap;

	if (!text_field(o, KB_PRINT_TEXT))
		return;
	va_start(ap, fmt);
	vfprintf(o->f, fmt, ap);
	va_end(ap);
}

/* An object or an array under @key, and its end: JSON only. */
static void nest_begin(const struct kb_out *o, const char *key, bool arr)
{
	if (!json_field(o, KB_PRINT_JSON, key))
		return;
	if (arr)
		json_arr_begin(o->j);
	else
		json_obj_begin(o->j);
}

static void nest_end(const struct kb_out *o, bool arr)
{
	if (!kb_out_is_json(o))
		return;
	if (arr)
		json_arr_end(o->j);
	else
		json_obj_end(o->j);
}

void kb_print_obj_begin(const struct kb_out *o, const char *key)
{
	nest_begin(o, key, false);
}

void kb_print_obj_end(const struct kb_out *o)
{
	nest_end(o, false);
}

void kb_print_arr_begin(const struct kb_out *o, const char *key)
{
	nest_begin(o, key, true);
}

void kb_print_arr_end(const struct kb_out *o)
{
	nest_end(o, true);
}
