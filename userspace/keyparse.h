/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Keys as given by the user, and hash keys.
 *
 * KEY: literal bytes, unless it starts with "0x" (lower-case x): then the
 * rest is hex, an even number of hex digits (either case), at least one
 * byte. A key is 1..KBLOOM_KEY_MAX bytes. "0X..." is a literal key.
 *
 * HEX32: exactly 32 hex digits, optionally prefixed by "0x", giving the
 * KBLOOM_HASH_KEY_LEN bytes of a hash key in order.
 *
 * Pure functions, no output: unit-tested on the host.
 */
#ifndef BLOOMCTL_KEYPARSE_H
#define BLOOMCTL_KEYPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "../kmod/uapi/kbloom.h"

enum kp_error {
	KP_OK,
	KP_EMPTY,		/* no bytes at all */
	KP_TOO_LONG,		/* more than KBLOOM_KEY_MAX bytes */
	KP_HEX_EMPTY,		/* "0x" and nothing after it */
	KP_HEX_ODD,		/* odd number of hex digits */
	KP_HEX_DIGIT,		/* a character that is not a hex digit */
	KP_HEX32_LEN,		/* HEX32: not exactly 32 hex digits */
};

/*
 * Parses the @len bytes at @s (which need not be NUL-terminated and may
 * hold NUL bytes when literal) into @out, which has room for
 * KBLOOM_KEY_MAX bytes; sets *@outlen. On KP_HEX_DIGIT, *@bad is the offset
 * in @s of the offending character (@bad may be NULL).
 */
enum kp_error key_parse(const char *s, size_t len, uint8_t *out,
			size_t *outlen, size_t *bad);

/* HEX32 from a NUL-terminated string; *@bad as above. */
enum kp_error hex32_parse(const char *s, uint8_t out[KBLOOM_HASH_KEY_LEN],
			  size_t *bad);

/*
 * Why, in words, for "invalid key 'K': WHY". @s/@bad locate the bad digit
 * for KP_HEX_DIGIT. Returns a static buffer.
 */
const char *kp_strerror(enum kp_error err, const char *s, size_t bad);

#endif
