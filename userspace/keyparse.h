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
 * DIMS (create ... dims LIST): 1..KBLOOM_DIMS_MAX comma-separated names,
 * each 1..KBLOOM_DIM_NAME_MAX-1 bytes of [a-z0-9_-], no name twice.
 *
 * TUPLE (a key of a multi filter): DIM=VALUE items separated by commas,
 * "src=10.0.0.1,dst=10.0.0.2,dport=80". DIM is one of the filter's
 * dimensions, at most once; VALUE is a KEY as above (literal, or 0x hex),
 * and a value holding ',' or '=' must be given in hex. add needs every
 * dimension, test any non-empty subset.
 *
 * Pure functions, no output: unit-tested on the host.
 */
#ifndef BLOOMCTL_KEYPARSE_H
#define BLOOMCTL_KEYPARSE_H

#include <stdbool.h>
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

/* The dimension names of a multi filter, in their order (1-based on the wire). */
struct kb_dims {
	unsigned int n;
	char name[KBLOOM_DIMS_MAX][KBLOOM_DIM_NAME_MAX];
};

/*
 * Parses a DIMS list into @out. 0, or -1 with the reason in @why (e.g.
 * "'Src': dimension names use only a-z, 0-9, '_' and '-'").
 */
int dims_parse(const char *list, struct kb_dims *out, char *why,
	       size_t whylen);

/* "src, dst, dport" (static buffer). */
const char *dims_list(const struct kb_dims *dims);

/* A parsed TUPLE: the values of the dimensions whose bit is in @mask. */
struct kp_tuple {
	uint32_t mask;			/* bit i: dimension i (0-based) */
	uint32_t len[KBLOOM_DIMS_MAX];
	uint8_t val[KBLOOM_DIMS_MAX][KBLOOM_KEY_MAX];
};

enum tp_error {
	TP_OK,
	TP_EMPTY,		/* no item at all */
	TP_EMPTY_ITEM,		/* ",," or a leading or trailing comma */
	TP_NO_EQ,		/* an item without '=' */
	TP_VALUE_EQ,		/* a literal value holding '=' */
	TP_DIM_UNKNOWN,		/* not a dimension of the filter */
	TP_DIM_TWICE,		/* the same dimension twice */
	TP_VALUE,		/* the value is not a valid KEY */
	TP_MISSING,		/* add: some dimension has no value */
};

/* Where and why a TUPLE was refused. */
struct tp_fail {
	enum tp_error err;
	size_t off, len;	/* the offending item in the input */
	size_t name_len;	/* bytes of its DIM */
	enum kp_error value_err;	/* TP_VALUE */
	size_t bad;		/* TP_VALUE, KP_HEX_DIGIT: offset in the input */
	uint32_t missing;	/* TP_MISSING: dimensions without a value */
};

/*
 * Parses the @len bytes at @s (not NUL-terminated) as a TUPLE of the
 * filter with dimensions @dims; @all: every dimension is required.
 */
enum tp_error tuple_parse(const char *s, size_t len,
			  const struct kb_dims *dims, bool all,
			  struct kp_tuple *t, struct tp_fail *fail);

/*
 * Why, in words, for "invalid key 'K': WHY" (static buffer), naming the
 * offending item and, for an unknown dimension, the valid ones.
 */
const char *tp_strerror(const struct tp_fail *f, const char *s,
			const struct kb_dims *dims);

#endif
