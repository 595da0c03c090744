/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A tiny streaming JSON writer. Commas are placed automatically; a value
 * inside an object must be preceded by json_key(). Strings are byte
 * strings: valid UTF-8 is copied, ", \ and control characters are escaped,
 * and every byte that is not part of valid UTF-8 is written as \u00XX.
 * Keys (json_keytext) are exact instead: see there.
 * Non-finite doubles are written as null.
 */
#ifndef BLOOMCTL_JSON_H
#define BLOOMCTL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX 16

struct json {
	FILE *f;
	int depth;
	bool first[JSON_DEPTH_MAX];	/* no value yet at this level */
	bool after_key;
};

void json_init(struct json *j, FILE *f);
void json_obj_begin(struct json *j);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j);
void json_arr_end(struct json *j);	/* the outermost end adds "\n" */
void json_key(struct json *j, const char *key);
void json_strn(struct json *j, const void *s, size_t len);
void json_str(struct json *j, const char *s);
void json_u64(struct json *j, uint64_t v);
void json_double(struct json *j, double v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/*
 * A KEY as the user gave it (command line or file line), as a string that
 * bloomctl reads back as the same key: the text itself when it is valid
 * UTF-8; else "0x" and its bytes in hex, two lower-case digits a byte
 * (a KEY in hex: never ambiguous, since such text is ASCII). @tuple (a
 * multi filter's DIM=VALUE,...): the items are kept and only a VALUE
 * that is not valid UTF-8 is so written in hex.
 */
void json_keytext(struct json *j, const void *s, size_t len, bool tuple);

/* Escaped string body (no quotes) of @len bytes to @f. */
void json_escape(FILE *f, const void *s, size_t len);

#endif
