// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <stdio.h>
#include <string.h>

#include "keyparse.h"

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Finds the first character of s[0..len) that is not a hex digit. */
static enum kp_error hex_check(const char *s, size_t len, size_t base,
			       size_t *bad)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (hexval(s[i]) < 0) {
			if (bad)
				*bad = base + i;
			return KP_HEX_DIGIT;
		}
	}
	return KP_OK;
}

/* len valid hex digits, len even, into len / 2 bytes. */
static void hex_decode(const char *s, size_t len, uint8_t *out)
{
	size_t i;

	for (i = 0; i < len / 2; i++)
		out[i] = hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1]);
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
		if (hex_check(s + 2, ndig, 2, bad))
			return KP_HEX_DIGIT;
		if (ndig > 2 * (size_t)KBLOOM_KEY_MAX)
			return KP_TOO_LONG;
		if (ndig % 2)
			return KP_HEX_ODD;
		hex_decode(s + 2, ndig, out);
		*outlen = ndig / 2;
		return KP_OK;
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
	hex_decode(s + base, len, out);
	return KP_OK;
}

const char *kp_strerror(enum kp_error err, const char *s, size_t bad)
{
	static char buf[64];
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
