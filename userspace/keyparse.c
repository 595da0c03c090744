// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "keyparse.h"

/* Hex digit values plus one; 0 for every other byte. */
static const unsigned char hex_tab[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* Finds the first character of s[0..len) that is not a hex digit. */
static enum kp_error hex_check(const char *s, size_t len, size_t base,
			       size_t *bad)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (!hex_tab[(unsigned char)s[i]]) {
			if (bad)
				*bad = base + i;
			return KP_HEX_DIGIT;
		}
	}
	return KP_OK;
}

#define B8(x)	(0x0101010101010101ULL * (x))

/*
 * 8 hex digits (a little-endian word) into 4 bytes, or false. Per byte,
 * with the top bit set first so no subtraction borrows from its
 * neighbour: c >= lo is bit 7 of (c | 0x80) - lo, c < hi its complement.
 * A digit's value is its low nibble, plus 9 for a letter (bit 6 set).
 */
static bool hex_word(uint64_t w, uint8_t *out)
{
	uint64_t c = w | B8(0x80), f = c | B8(0x20), ok, v;

	ok = ((c - B8('0')) & ~(c - B8('9' + 1))) |
	     ((f - B8('a')) & ~(f - B8('f' + 1)));
	if ((ok & B8(0x80)) != B8(0x80) || (w & B8(0x80)))
		return false;
	v = (w & B8(0x0f)) + 9 * ((w >> 6) & B8(0x01));
	/* digit pairs into bytes, then the bytes together */
	v = ((v << 4) | (v >> 8)) & 0x00ff00ff00ff00ffULL;
	v = (v | (v >> 8)) & 0x0000ffff0000ffffULL;
	v = v | (v >> 16);
	out[0] = (uint8_t)v;
	out[1] = (uint8_t)(v >> 8);
	out[2] = (uint8_t)(v >> 16);
	out[3] = (uint8_t)(v >> 24);
	return true;
}

/*
 * len (even) hex digits into len / 2 bytes: false, with some of out
 * written, at the first byte that is not a hex digit. Eight digits at a
 * time where the host is little-endian, the table for the rest.
 */
static bool hex_decode_checked(const char *s, size_t len, uint8_t *out)
{
	size_t i = 0;

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, sizeof(w));
		if (!hex_word(w, out + i / 2))
			return false;
	}
#endif
	for (; i < len; i += 2) {
		unsigned int hi = hex_tab[(unsigned char)s[i]];
		unsigned int lo = hex_tab[(unsigned char)s[i + 1]];

		if (!hi || !lo)
			return false;
		out[i / 2] = (hi - 1) << 4 | (lo - 1);
	}
	return true;
}

/*
 * Errors are checked in the order: bad digit, length, parity, so that a
 * typo is named even in a key that is also too long.
 */
enum kp_error key_parse(const char *s, size_t len, uint8_t *out,
			size_t *outlen, size_t *bad)
{
	if (len >= 2 && s[0] == '0' && s[1] == 'x') {
		size_t ndig = len - 2;

		if (!ndig)
			return KP_HEX_EMPTY;
		/* The common case in one pass; errors in their order below. */
		if (ndig <= 2 * (size_t)KBLOOM_KEY_MAX && !(ndig % 2) &&
		    hex_decode_checked(s + 2, ndig, out)) {
			*outlen = ndig / 2;
			return KP_OK;
		}
		/* Not: say why, in that order. */
		if (hex_check(s + 2, ndig, 2, bad))
			return KP_HEX_DIGIT;
		return ndig > 2 * (size_t)KBLOOM_KEY_MAX ? KP_TOO_LONG :
							   KP_HEX_ODD;
	}
	if (!len)
		return KP_EMPTY;
	if (len > KBLOOM_KEY_MAX)
		return KP_TOO_LONG;
	memcpy(out, s, len);
	*outlen = len;
	return KP_OK;
}

enum kp_error hex32_parse(const char *s, uint8_t out[KBLOOM_HASH_KEY_LEN],
			  size_t *bad)
{
	size_t base = 0, len;

	if (s[0] == '0' && s[1] == 'x')
		base = 2;
	len = strlen(s + base);
	if (hex_check(s + base, len, base, bad))
		return KP_HEX_DIGIT;
	if (len != 2 * KBLOOM_HASH_KEY_LEN)
		return KP_HEX32_LEN;
	hex_decode_checked(s + base, len, out);	/* checked above */
	return KP_OK;
}

const char *kp_strerror(enum kp_error err, const char *s, size_t bad)
{
	static __thread char buf[64];
	unsigned char c;

	switch (err) {
	case KP_OK:
		return "no error";
	case KP_EMPTY:
		return "empty key";
	case KP_TOO_LONG:
		snprintf(buf, sizeof(buf), "longer than %d bytes",
			 KBLOOM_KEY_MAX);
		return buf;
	case KP_HEX_EMPTY:
		return "no hex digits after 0x";
	case KP_HEX_ODD:
		return "odd number of hex digits";
	case KP_HEX_DIGIT:
		c = s[bad];
		if (c > 0x20 && c < 0x7f && c != '\'' && c != '\\')
			snprintf(buf, sizeof(buf),
				 "'%c' is not a hex digit", c);
		else
			snprintf(buf, sizeof(buf),
				 "byte 0x%02x is not a hex digit", c);
		return buf;
	case KP_HEX32_LEN:
		snprintf(buf, sizeof(buf), "not exactly %d hex digits",
			 2 * KBLOOM_HASH_KEY_LEN);
		return buf;
	}
	return "unknown error";
}

/* User input for a message: printable ASCII as is, else \xNN; cut at 64. */
static const char *quote_key(const char *s, size_t len)
{
	static __thread char bufs[2][64 * 4 + 4];
	static __thread unsigned int next;
	char *buf = bufs[next++ % 2], *o = buf;
	size_t i, n = len > 64 ? 64 : len;

	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
			*o++ = c;
		else
			o += sprintf(o, "\\x%02x", c);
	}
	if (n < len)
		o += sprintf(o, "...");
	*o = '\0';
	return buf;
}

static bool dim_char_ok(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '-';
}

int dims_parse(const char *list, struct kb_dims *out, char *why,
	       size_t whylen)
{
	const char *p = list, *end;
	unsigned int i;
	size_t len;

	memset(out, 0, sizeof(*out));
	for (;;) {
		end = strchr(p, ',');
		len = end ? (size_t)(end - p) : strlen(p);
		if (!len) {
			snprintf(why, whylen, "empty dimension name");
			return -1;
		}
		if (out->n == KBLOOM_DIMS_MAX) {
			snprintf(why, whylen, "more than %d dimensions",
				 KBLOOM_DIMS_MAX);
			return -1;
		}
		if (len >= KBLOOM_DIM_NAME_MAX) {
			snprintf(why, whylen, "'%.*s': longer than %d bytes",
				 (int)len, p, KBLOOM_DIM_NAME_MAX - 1);
			return -1;
		}
		for (i = 0; i < len; i++) {
			if (!dim_char_ok(p[i])) {
				snprintf(why, whylen,
					 "'%.*s': dimension names use only a-z, 0-9, '_' and '-'",
					 (int)len, p);
				return -1;
			}
		}
		for (i = 0; i < out->n; i++) {
			if (strlen(out->name[i]) == len &&
			    !memcmp(out->name[i], p, len)) {
				snprintf(why, whylen, "'%.*s' given twice",
					 (int)len, p);
				return -1;
			}
		}
		memcpy(out->name[out->n], p, len);
		out->name[out->n][len] = '\0';
		out->n++;
		if (!end)
			return 0;
		p = end + 1;
	}
}

const char *dims_list(const struct kb_dims *dims)
{
	static __thread char buf[KBLOOM_DIMS_MAX * (KBLOOM_DIM_NAME_MAX + 2)];
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < dims->n; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? ", " : "",
			      dims->name[i]);
	return buf;
}

static int dim_find(const struct kb_dims *dims, const char *s, size_t len)
{
	unsigned int i;

	for (i = 0; i < dims->n; i++)
		if (strlen(dims->name[i]) == len &&
		    !memcmp(dims->name[i], s, len))
			return i;
	return -1;
}

static enum tp_error tp_fail_at(struct tp_fail *f, enum tp_error err,
				size_t off, size_t len, size_t name_len)
{
	f->err = err;
	f->off = off;
	f->len = len;
	f->name_len = name_len;
	return err;
}

enum tp_error tuple_parse(const char *s, size_t len,
			  const struct kb_dims *dims, bool all,
			  struct kp_tuple *t, struct tp_fail *fail)
{
	size_t pos = 0;

	memset(fail, 0, sizeof(*fail));
	t->mask = 0;
	if (!len)
		return tp_fail_at(fail, TP_EMPTY, 0, 0, 0);
	for (;;) {
		const char *item = s + pos, *comma, *eq;
		size_t ilen, nlen, vlen, bad = 0, vout;
		enum kp_error e;
		int d;

		comma = memchr(item, ',', len - pos);
		ilen = comma ? (size_t)(comma - item) : len - pos;
		if (!ilen)
			return tp_fail_at(fail, TP_EMPTY_ITEM, pos, 0, 0);
		eq = memchr(item, '=', ilen);
		if (!eq)
			return tp_fail_at(fail, TP_NO_EQ, pos, ilen, ilen);
		nlen = eq - item;
		vlen = ilen - nlen - 1;
		d = dim_find(dims, item, nlen);
		if (d < 0)
			return tp_fail_at(fail, TP_DIM_UNKNOWN, pos, ilen, nlen);
		if (t->mask & (1U << d))
			return tp_fail_at(fail, TP_DIM_TWICE, pos, ilen, nlen);
		if (memchr(eq + 1, '=', vlen) &&
		    !(vlen >= 2 && eq[1] == '0' && eq[2] == 'x'))
			return tp_fail_at(fail, TP_VALUE_EQ, pos, ilen, nlen);
		e = key_parse(eq + 1, vlen, t->val[d], &vout, &bad);
		if (e) {
			tp_fail_at(fail, TP_VALUE, pos, ilen, nlen);
			fail->value_err = e;
			fail->bad = pos + nlen + 1 + bad;
			return TP_VALUE;
		}
		t->len[d] = vout;
		t->mask |= 1U << d;
		if (!comma)
			break;
		pos += ilen + 1;
		if (pos == len)
			return tp_fail_at(fail, TP_EMPTY_ITEM, pos, 0, 0);
	}
	if (all && t->mask != (1U << dims->n) - 1) {
		fail->err = TP_MISSING;
		fail->missing = ((1U << dims->n) - 1) & ~t->mask;
		return TP_MISSING;
	}
	return TP_OK;
}

const char *tp_strerror(const struct tp_fail *f, const char *s,
			const struct kb_dims *dims)
{
	static __thread char buf[512];
	const char *item = s + f->off;
	size_t n = 0;
	unsigned int i;

	switch (f->err) {
	case TP_OK:
		return "no error";
	case TP_EMPTY:
		snprintf(buf, sizeof(buf),
			 "empty tuple: give DIM=VALUE,... with dimensions %s",
			 dims_list(dims));
		return buf;
	case TP_EMPTY_ITEM:
		return "empty item (a stray ',')";
	case TP_NO_EQ:
		snprintf(buf, sizeof(buf),
			 "'%s' is not DIM=VALUE (dimensions %s; a value holding ',' or '=' must be given in hex, 0x...)",
			 quote_key(item, f->len), dims_list(dims));
		return buf;
	case TP_VALUE_EQ:
		snprintf(buf, sizeof(buf),
			 "the value of %.*s holds '=': give it in hex (0x...)",
			 (int)f->name_len, item);
		return buf;
	case TP_DIM_UNKNOWN:
		snprintf(buf, sizeof(buf),
			 "unknown dimension '%s' (the dimensions are %s)",
			 quote_key(item, f->name_len), dims_list(dims));
		return buf;
	case TP_DIM_TWICE:
		snprintf(buf, sizeof(buf), "dimension %.*s given twice",
			 (int)f->name_len, item);
		return buf;
	case TP_VALUE:
		snprintf(buf, sizeof(buf), "the value of %.*s: %s",
			 (int)f->name_len, item,
			 kp_strerror(f->value_err, s, f->bad));
		return buf;
	case TP_MISSING:
		n = snprintf(buf, sizeof(buf), "no value for");
		for (i = 0; i < dims->n; i++)
			if (f->missing & (1U << i))
				n += snprintf(buf + n, sizeof(buf) - n, " %s",
					      dims->name[i]);
		snprintf(buf + n, sizeof(buf) - n,
			 ": add needs every dimension (%s)", dims_list(dims));
		return buf;
	}
	return "unknown error";
}
