/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Shared helpers of the libFuzzer targets in tests/fuzz: invariant checks
 * that abort with a message (libFuzzer then saves the input as a crash).
 */
#ifndef KB_FUZZ_COMMON_H
#define KB_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An invariant broken: say which, then trap (a crash libFuzzer reports). */
#define FUZZ_CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "FUZZ INVARIANT %s:%d: %s: ", __FILE__, \
			__LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
		__builtin_trap(); \
	} \
} while (0)

/* A copy of @len bytes in a block of exactly that size (ASan sees overruns). */
static inline uint8_t *fuzz_dup(const uint8_t *p, size_t len)
{
	uint8_t *q = malloc(len ? len : 1);

	if (!q)
		abort();
	if (len)
		memcpy(q, p, len);
	return q;
}

static inline char *fuzz_strndup(const uint8_t *p, size_t len)
{
	char *q = malloc(len + 1);

	if (!q)
		abort();
	memcpy(q, p, len);
	q[len] = 0;
	return q;
}

static inline uint32_t fuzz_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

#endif
