/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * One call per field for both outputs, after iproute2's print_uint() and
 * friends (lib/json_print.c, Julien Fortin): a renderer names each field
 * once, with its JSON key and its text format, and the output it was given
 * decides which form is written. A field meant for one form only says so
 * (KB_PRINT_TEXT, KB_PRINT_JSON), as iproute2's PRINT_FP and PRINT_JSON.
 *
 * Text goes through the format (printf, one conversion for the value:
 * %llu for kb_print_u64, a double one for kb_print_double, %s for
 * kb_print_str); JSON is written by json.c under the key, the value as it
 * is (the text's rounding and units are the text's).
 */
#ifndef BLOOMCTL_PRINT_H
#define BLOOMCTL_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"

/* Which output a field is for. */
enum kb_print_where {
	KB_PRINT_TEXT = 1,
	KB_PRINT_JSON = 2,
	KB_PRINT_ANY = KB_PRINT_TEXT | KB_PRINT_JSON,
};

/*
 * An output: JSON through @j, or text on @f when @j is NULL. @hide: the
 * forms left out (kb_out_only), 0 for none.
 */
struct kb_out {
	struct json *j;
	FILE *f;
	unsigned int hide;
};

/* Text output on @f, or JSON through @j (then written on j->f). */
void kb_out_text(struct kb_out *o, FILE *f);
void kb_out_json(struct kb_out *o, struct json *j);
/* A command's output on stdout: JSON through @j when @json, else text. */
void kb_out_stdout(struct kb_out *o, struct json *j, bool json);

/*
 * @dst: @o writing only the fields of form @w. For a block the two forms
 * place apart (the JSON object keeps the order scripts have read since its
 * first version): the block is written once, and called through the text
 * view where the text has it and through the JSON view where JSON has it.
 */
void kb_out_only(struct kb_out *dst, const struct kb_out *o,
		 enum kb_print_where w);

/* JSON, and not hidden. */
static inline bool kb_out_is_json(const struct kb_out *o)
{
	return o->j != NULL && !(o->hide & KB_PRINT_JSON);
}

void kb_print_u64(const struct kb_out *o, enum kb_print_where w,
		  const char *key, const char *fmt, uint64_t v);
void kb_print_double(const struct kb_out *o, enum kb_print_where w,
		     const char *key, const char *fmt, double v);
/* @s NULL: JSON null, and the text is not written. */
void kb_print_str(const struct kb_out *o, enum kb_print_where w,
		  const char *key, const char *fmt, const char *s);
/* Text: @fmt with "true" or "false" for %s. */
void kb_print_bool(const struct kb_out *o, enum kb_print_where w,
		   const char *key, const char *fmt, bool v);

/*
 * A key as given (@len bytes): text its bytes as they are; JSON a string,
 * in hex when not UTF-8 (json_keytext(); @tuple: a multi filter's tuple).
 */
void kb_print_key(const struct kb_out *o, enum kb_print_where w,
		  const char *key, const void *s, size_t len, bool tuple);
/*
 * A time, CLOCK_REALTIME ns: text @fmt with it local to the millisecond
 * (kb_time_str(), %s); JSON "KEY":"ISO with offset" (null for 0) and
 * "KEY_ns":NS.
 */
void kb_print_time(const struct kb_out *o, enum kb_print_where w,
		   const char *key, const char *fmt, uint64_t ns);

/* Text only (JSON: nothing), printf-like. */
void kb_print_text(const struct kb_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * JSON only: an object or an array under @key (NULL: inside an array, or
 * the outermost value), and its end. Text: nothing.
 */
void kb_print_obj_begin(const struct kb_out *o, const char *key);
void kb_print_obj_end(const struct kb_out *o);
void kb_print_arr_begin(const struct kb_out *o, const char *key);
void kb_print_arr_end(const struct kb_out *o);

#endif
