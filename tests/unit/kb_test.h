/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Helpers shared by the host unit tests. Include after kselftest_harness.h.
 */
#ifndef KBLOOM_TESTS_UNIT_KB_TEST_H
#define KBLOOM_TESTS_UNIT_KB_TEST_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/lsan_interface.h>
#endif

#include "kb_rng.h"
#include "../../kmod/engine/filter.h"
#include "../../kmod/engine/host/siphash.h"

/*
 * Every test runs in a forked child that leaves with _exit(), which drops
 * buffered stdout: line-buffer it so diagnostics reach the TAP stream.
 */
static void __attribute__((constructor)) kb_test_line_buffer(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* A TAP diagnostic line ("# ...") on stdout. */
static inline void __attribute__((format(printf, 1, 2)))
kb_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/*
 * The child's _exit() also skips LeakSanitizer's exit-time check: tests
 * ask for it explicitly once they have freed everything (a no-op in a
 * build without ASan).
 */
#ifdef __SANITIZE_ADDRESS__
#define KB_ASSERT_NO_LEAKS() \
	ASSERT_EQ(0, __lsan_do_recoverable_leak_check())
#else
#define KB_ASSERT_NO_LEAKS() do { } while (0)
#endif

static inline void kb_put_le64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * Reference probe positions, straight from the definition in
 * uapi/kbloom.h and docs/design.md: h1 = SipHash(key), h2 = mix64(h1),
 * x = h1 * m >> 64, y = h2 * m >> 64, probe i = x + i*y + (i^3 - i)/6 mod m,
 * computed in 128-bit arithmetic, without the engine's incremental walk.
 */
static inline uint64_t kb_ref_probe(uint64_t h1, uint64_t h2, uint64_t m,
				    uint32_t i)
{
	unsigned __int128 x = ((unsigned __int128)h1 * m) >> 64;
	unsigned __int128 y = ((unsigned __int128)h2 * m) >> 64;
	unsigned __int128 ii = i;

	return (uint64_t)((x + ii * y + (ii * ii * ii - ii) / 6) % m);
}

/* The splitmix64 finaliser, as specified for h2 (independent of hash.h). */
static inline uint64_t kb_ref_mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Random keys of 1..64 bytes, packed back to back in one buffer (so most
 * start unaligned). Keys are numbered; key i starts at off[i].
 */
struct keyset {
	u8 *buf;
	size_t *off;
	size_t n;
};

static inline int keyset_make(struct keyset *ks, size_t n, u64 seed)
{
	struct kb_rng r;
	size_t i, total = 0;

	kb_rng_seed(&r, seed);
	ks->n = n;
	ks->off = malloc((n + 1) * sizeof(*ks->off));
	ks->buf = malloc(n * 64);
	if (!ks->off || !ks->buf)
		return -1;
	for (i = 0; i < n; i++) {
		size_t len = 1 + kb_rng_below(&r, 64);

		ks->off[i] = total;
		kb_rng_bytes(&r, ks->buf + total, len);
		total += len;
	}
	ks->off[n] = total;
	return 0;
}

static inline const u8 *keyset_key(const struct keyset *ks, size_t i, size_t *len)
{
	*len = ks->off[i + 1] - ks->off[i];
	return ks->buf + ks->off[i];
}

static inline void keyset_free(struct keyset *ks)
{
	free(ks->buf);
	free(ks->off);
}

/* The SipHash papers' test messages: message len is bytes 00 .. len - 1. */
static inline void kb_ref_msg(u8 msg[64])
{
	int i;

	for (i = 0; i < 64; i++)
		msg[i] = (u8)i;
}

/* The SipHash papers' test key: bytes 00 01 .. 0f. */
static inline void kb_ref_key(siphash_key_t *key)
{
	u8 kb[16];
	int i;

	for (i = 0; i < 16; i++)
		kb[i] = (u8)i;
	siphash_key_from_bytes(key, kb);
}

#endif /* KBLOOM_TESTS_UNIT_KB_TEST_H */
