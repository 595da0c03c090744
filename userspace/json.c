// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <math.h>
#include <string.h>

#include "json.h"

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
}

/* Separator before a value (or a key). */
static void json_sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
}

static void json_open(struct json *j, char c)
{
	json_sep(j);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_DEPTH_MAX)
		j->depth++;
	j->first[j->depth] = true;
}

static void json_close(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
	if (!j->depth)
		fputc('\n', j->f);
}

void json_obj_begin(struct json *j) { json_open(j, '{'); }
void json_obj_end(struct json *j) { json_close(j, '}'); }
void json_arr_begin(struct json *j) { json_open(j, '['); }
void json_arr_end(struct json *j) { json_close(j, ']'); }

/*
 * Length of the valid UTF-8 sequence at p (n bytes available), or 0.
 * Refuses overlong forms, surrogates and code points above U+10FFFF.
 */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t len, i;
	uint32_t cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

void json_escape(FILE *f, const void *s, size_t len)
{
	const unsigned char *p = s;
	size_t i = 0, n;

	while (i < len) {
		unsigned char c = p[i];

		switch (c) {
		case '"': fputs("\\\"", f); i++; continue;
		case '\\': fputs("\\\\", f); i++; continue;
		case '\b': fputs("\\b", f); i++; continue;
		case '\f': fputs("\\f", f); i++; continue;
		case '\n': fputs("\\n", f); i++; continue;
		case '\r': fputs("\\r", f); i++; continue;
		case '\t': fputs("\\t", f); i++; continue;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		n = utf8_len(p + i, len - i);
		if (!n) {
			/* Not UTF-8: the byte as the code point U+00XX. */
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		fwrite(p + i, 1, n, f);
		i += n;
	}
}

static bool utf8_valid(const unsigned char *p, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		n = utf8_len(p + i, len - i);
		if (!n)
			return false;
		i += n;
	}
	return true;
}

static void hex_bytes(FILE *f, const unsigned char *p, size_t len)
{
	size_t i;

	fputs("0x", f);
	for (i = 0; i < len; i++)
		fprintf(f, "%02x", p[i]);
}

void json_keytext(struct json *j, const void *s, size_t len, bool tuple)
{
	const unsigned char *p = s, *end = p + len, *item, *comma, *eq;

	if (utf8_valid(p, len)) {
		json_strn(j, s, len);
		return;
	}
	json_sep(j);
	fputc('"', j->f);
	if (!tuple) {
		hex_bytes(j->f, p, len);
		fputc('"', j->f);
		return;
	}
	/* DIM names are ASCII: the bytes that are not UTF-8 are in values. */
	for (item = p;; item = comma + 1) {
		comma = memchr(item, ',', end - item);
		if (!comma)
			comma = end;
		eq = memchr(item, '=', comma - item);
		if (item != p)
			fputc(',', j->f);
		if (eq && !utf8_valid(eq + 1, comma - eq - 1)) {
			json_escape(j->f, item, eq + 1 - item);
			hex_bytes(j->f, eq + 1, comma - eq - 1);
		} else {
			json_escape(j->f, item, comma - item);
		}
		if (comma == end)
			break;
	}
	fputc('"', j->f);
}

void json_key(struct json *j, const char *key)
{
	json_sep(j);
	fputc('"', j->f);
	json_escape(j->f, key, strlen(key));
	fputs("\":", j->f);
	j->after_key = true;
}

void json_strn(struct json *j, const void *s, size_t len)
{
	json_sep(j);
	fputc('"', j->f);
	json_escape(j->f, s, len);
	fputc('"', j->f);
}

void json_str(struct json *j, const char *s)
{
	json_strn(j, s, strlen(s));
}

void json_u64(struct json *j, uint64_t v)
{
	json_sep(j);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_double(struct json *j, double v)
{
	json_sep(j);
	if (isfinite(v))
		fprintf(j->f, "%.10g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, bool v)
{
	json_sep(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	json_sep(j);
	fputs("null", j->f);
}
