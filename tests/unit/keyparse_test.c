// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of bloomctl's key parsing (userspace/keyparse.c): literal and
 * 0x-hex keys, their limits and errors, HEX32 hash keys, dimension lists
 * and the DIM=VALUE tuples of multi filters.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "../../kmod/uapi/kbloom.h"
#include "../../userspace/keyparse.h"

static uint8_t out[KBLOOM_KEY_MAX + 16];
static size_t outlen, bad;

static enum kp_error parse(const char *s)
{
	outlen = 0;
	bad = (size_t)-1;
	memset(out, 0xaa, sizeof(out));
	return key_parse(s, strlen(s), out, &outlen, &bad);
}

TEST(literal)
{
	ASSERT_EQ(KP_OK, parse("hello"));
	EXPECT_EQ((size_t)5, outlen);
	EXPECT_EQ(0, memcmp(out, "hello", 5));

	/* One byte, and things that only look like hex */
	ASSERT_EQ(KP_OK, parse("x"));
	EXPECT_EQ((size_t)1, outlen);
	ASSERT_EQ(KP_OK, parse("0"));
	EXPECT_EQ((size_t)1, outlen);
	EXPECT_EQ('0', out[0]);
	ASSERT_EQ(KP_OK, parse("0X41"));	/* only lower-case 0x is hex */
	EXPECT_EQ((size_t)4, outlen);
	EXPECT_EQ(0, memcmp(out, "0X41", 4));
	ASSERT_EQ(KP_OK, parse("x0x41"));
	EXPECT_EQ((size_t)5, outlen);
	ASSERT_EQ(KP_OK, parse("10.0.0.1 -> 10.0.0.2"));
	EXPECT_EQ((size_t)20, outlen);
}

TEST(literal_binary)
{
	/* Keys from a file may hold any byte, NUL included */
	static const char k[] = { 'a', '\0', 'b', '\xff', '\r' };

	ASSERT_EQ(KP_OK, key_parse(k, sizeof(k), out, &outlen, NULL));
	EXPECT_EQ(sizeof(k), outlen);
	EXPECT_EQ(0, memcmp(out, k, sizeof(k)));
}

TEST(hex)
{
	ASSERT_EQ(KP_OK, parse("0x0102ff"));
	EXPECT_EQ((size_t)3, outlen);
	EXPECT_EQ(0x01, out[0]);
	EXPECT_EQ(0x02, out[1]);
	EXPECT_EQ(0xff, out[2]);
	EXPECT_EQ(0xaa, out[3]);	/* nothing written beyond */

	ASSERT_EQ(KP_OK, parse("0xABcd"));
	EXPECT_EQ((size_t)2, outlen);
	EXPECT_EQ(0xab, out[0]);
	EXPECT_EQ(0xcd, out[1]);

	ASSERT_EQ(KP_OK, parse("0x00"));
	EXPECT_EQ((size_t)1, outlen);
	EXPECT_EQ(0, out[0]);

	ASSERT_EQ(KP_OK, parse("0x666f6f"));
	EXPECT_EQ((size_t)3, outlen);
	EXPECT_EQ(0, memcmp(out, "foo", 3));
}

TEST(hex_errors)
{
	EXPECT_EQ(KP_HEX_EMPTY, parse("0x"));
	EXPECT_EQ(KP_HEX_ODD, parse("0x1"));
	EXPECT_EQ(KP_HEX_ODD, parse("0x123"));

	EXPECT_EQ(KP_HEX_DIGIT, parse("0xZZ"));
	EXPECT_EQ((size_t)2, bad);
	EXPECT_STREQ("'Z' is not a hex digit", kp_strerror(KP_HEX_DIGIT,
							    "0xZZ", bad));
	EXPECT_EQ(KP_HEX_DIGIT, parse("0x12g4"));
	EXPECT_EQ((size_t)4, bad);
	EXPECT_EQ(KP_HEX_DIGIT, parse("0x12 34"));
	EXPECT_EQ((size_t)4, bad);
	EXPECT_STREQ("byte 0x20 is not a hex digit",
		     kp_strerror(KP_HEX_DIGIT, "0x12 34", bad));
	/* A bad digit is named before an odd count */
	EXPECT_EQ(KP_HEX_DIGIT, parse("0x1-3"));
	EXPECT_EQ((size_t)3, bad);
	/* A second 0x is not a digit */
	EXPECT_EQ(KP_HEX_DIGIT, parse("0x0x12"));
	EXPECT_EQ((size_t)3, bad);
}

TEST(empty)
{
	EXPECT_EQ(KP_EMPTY, parse(""));
	EXPECT_STREQ("empty key", kp_strerror(KP_EMPTY, "", 0));
}

TEST(lengths)
{
	char *s = malloc(2 + 2 * (KBLOOM_KEY_MAX + 1) + 1);
	size_t i;

	ASSERT_NE(NULL, s);
	/* Literal: KBLOOM_KEY_MAX bytes fit, one more does not */
	memset(s, 'k', KBLOOM_KEY_MAX + 1);
	s[KBLOOM_KEY_MAX] = '\0';
	ASSERT_EQ(KP_OK, parse(s));
	EXPECT_EQ((size_t)KBLOOM_KEY_MAX, outlen);
	s[KBLOOM_KEY_MAX] = 'k';
	s[KBLOOM_KEY_MAX + 1] = '\0';
	EXPECT_EQ(KP_TOO_LONG, parse(s));
	EXPECT_EQ(0xaa, out[0]);		/* nothing written */

	/* Hex: 2 * KBLOOM_KEY_MAX digits fit, two more do not */
	s[0] = '0';
	s[1] = 'x';
	for (i = 0; i < 2 * KBLOOM_KEY_MAX; i++)
		s[2 + i] = "0123456789abcdef"[i % 16];
	s[2 + 2 * KBLOOM_KEY_MAX] = '\0';
	ASSERT_EQ(KP_OK, parse(s));
	EXPECT_EQ((size_t)KBLOOM_KEY_MAX, outlen);
	EXPECT_EQ(0x01, out[0]);
	EXPECT_EQ(0xef, out[KBLOOM_KEY_MAX - 1]);
	EXPECT_EQ(0xaa, out[KBLOOM_KEY_MAX]);
	s[2 + 2 * KBLOOM_KEY_MAX] = '0';
	s[2 + 2 * KBLOOM_KEY_MAX + 1] = '0';
	s[2 + 2 * KBLOOM_KEY_MAX + 2] = '\0';
	EXPECT_EQ(KP_TOO_LONG, parse(s));
	/* Too long and odd: too long */
	s[2 + 2 * KBLOOM_KEY_MAX + 1] = '\0';
	EXPECT_EQ(KP_TOO_LONG, parse(s));
	/* Too long with a typo: the typo */
	s[2 + 2 * KBLOOM_KEY_MAX] = 'q';
	EXPECT_EQ(KP_HEX_DIGIT, parse(s));
	EXPECT_EQ((size_t)(2 + 2 * KBLOOM_KEY_MAX), bad);
	free(s);
}

static const uint8_t hk[KBLOOM_HASH_KEY_LEN] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
};

TEST(hex32_good)
{
	uint8_t key[KBLOOM_HASH_KEY_LEN];

	ASSERT_EQ(KP_OK, hex32_parse("000102030405060708090a0b0c0d0e0f",
				     key, NULL));
	EXPECT_EQ(0, memcmp(key, hk, sizeof(key)));
	memset(key, 0, sizeof(key));
	ASSERT_EQ(KP_OK, hex32_parse("0x000102030405060708090A0B0C0D0E0F",
				     key, NULL));
	EXPECT_EQ(0, memcmp(key, hk, sizeof(key)));
	ASSERT_EQ(KP_OK, hex32_parse("ffffffffffffffffffffffffffffffff",
				     key, NULL));
	EXPECT_EQ(0xff, key[0]);
	EXPECT_EQ(0xff, key[15]);
}

TEST(hex32_bad)
{
	uint8_t key[KBLOOM_HASH_KEY_LEN];

	memset(key, 0x5a, sizeof(key));
	EXPECT_EQ(KP_HEX32_LEN, hex32_parse("", key, &bad));
	EXPECT_EQ(KP_HEX32_LEN, hex32_parse("0x", key, &bad));
	EXPECT_EQ(KP_HEX32_LEN, hex32_parse("000102030405060708090a0b0c0d0e0",
					    key, &bad));	/* 31 */
	EXPECT_EQ(KP_HEX32_LEN, hex32_parse("000102030405060708090a0b0c0d0e0f0",
					    key, &bad));	/* 33 */
	EXPECT_EQ(KP_HEX32_LEN, hex32_parse("000102030405060708090a0b0c0d0e0f00",
					    key, &bad));	/* 17 bytes */
	EXPECT_EQ(KP_HEX_DIGIT, hex32_parse("000102030405060708090a0b0c0d0e0g",
					    key, &bad));
	EXPECT_EQ((size_t)31, bad);
	EXPECT_EQ(KP_HEX_DIGIT, hex32_parse("0x00010203040506070809 a0b0c0d0e0f",
					    key, &bad));
	EXPECT_EQ((size_t)22, bad);
	/* 0X is not a prefix */
	EXPECT_EQ(KP_HEX_DIGIT, hex32_parse("0X000102030405060708090a0b0c0d0e",
					    key, &bad));
	EXPECT_EQ((size_t)1, bad);
	/* Nothing written on failure */
	EXPECT_EQ(0x5a, key[0]);
	EXPECT_EQ(0x5a, key[15]);
}

/* ---- dimension lists ------------------------------------------------ */

TEST(dims_good)
{
	struct kb_dims d;
	char why[128];

	ASSERT_EQ(0, dims_parse("src,dst,dport", &d, why, sizeof(why)));
	EXPECT_EQ(3U, d.n);
	EXPECT_STREQ("src", d.name[0]);
	EXPECT_STREQ("dst", d.name[1]);
	EXPECT_STREQ("dport", d.name[2]);
	EXPECT_STREQ("src, dst, dport", dims_list(&d));
	ASSERT_EQ(0, dims_parse("a", &d, why, sizeof(why)));
	EXPECT_EQ(1U, d.n);
	/* 15 bytes of every allowed kind; 8 dimensions */
	ASSERT_EQ(0, dims_parse("abc-def_0123456", &d, why, sizeof(why)));
	EXPECT_STREQ("abc-def_0123456", d.name[0]);
	ASSERT_EQ(0, dims_parse("a,b,c,d,e,f,g,h", &d, why, sizeof(why)));
	EXPECT_EQ((unsigned int)KBLOOM_DIMS_MAX, d.n);
}

TEST(dims_bad)
{
	static const struct {
		const char *list, *why;
	} bad[] = {
		{ "", "empty dimension name" },
		{ "a,,b", "empty dimension name" },
		{ "a,", "empty dimension name" },
		{ ",a", "empty dimension name" },
		{ "Src", "'Src': dimension names use only a-z, 0-9, '_' and '-'" },
		{ "a b", "'a b': dimension names use only a-z, 0-9, '_' and '-'" },
		{ "a=b", "'a=b': dimension names use only a-z, 0-9, '_' and '-'" },
		{ "abcdefghijklmnop", "'abcdefghijklmnop': longer than 15 bytes" },
		{ "a,b,c,d,e,f,g,h,i", "more than 8 dimensions" },
		{ "src,dst,src", "'src' given twice" },
	};
	struct kb_dims d;
	char why[128];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-1, dims_parse(bad[i].list, &d, why, sizeof(why)))
			TH_LOG("'%s'", bad[i].list);
		EXPECT_STREQ(bad[i].why, why);
	}
}

/* ---- tuples ---------------------------------------------------------- */

static struct kb_dims dims3;
static struct kp_tuple tup;
static struct tp_fail fail;

static enum tp_error tparse(const char *s, bool all)
{
	char why[64];

	if (!dims3.n && dims_parse("src,dst,dport", &dims3, why, sizeof(why)))
		return -1;
	memset(&tup, 0xaa, sizeof(tup));
	return tuple_parse(s, strlen(s), &dims3, all, &tup, &fail);
}

TEST(tuple_good)
{
	ASSERT_EQ(TP_OK, tparse("src=10.0.0.1,dst=10.0.0.2,dport=80", true));
	EXPECT_EQ(7U, tup.mask);
	EXPECT_EQ(8U, tup.len[0]);
	EXPECT_EQ(0, memcmp(tup.val[0], "10.0.0.1", 8));
	EXPECT_EQ(8U, tup.len[1]);
	EXPECT_EQ(0, memcmp(tup.val[1], "10.0.0.2", 8));
	EXPECT_EQ(2U, tup.len[2]);
	EXPECT_EQ(0, memcmp(tup.val[2], "80", 2));

	/* any order; hex values, which may hold ',' and '=' */
	ASSERT_EQ(TP_OK, tparse("dport=0x0050,dst=0x2c3d,src=a", true));
	EXPECT_EQ(7U, tup.mask);
	EXPECT_EQ(2U, tup.len[2]);
	EXPECT_EQ(0x00, tup.val[2][0]);
	EXPECT_EQ(0x50, tup.val[2][1]);
	EXPECT_EQ(2U, tup.len[1]);
	EXPECT_EQ(',', tup.val[1][0]);
	EXPECT_EQ('=', tup.val[1][1]);

	/* test: any non-empty subset */
	ASSERT_EQ(TP_OK, tparse("dport=80", false));
	EXPECT_EQ(4U, tup.mask);
	ASSERT_EQ(TP_OK, tparse("src=10.0.0.1,dport=80", false));
	EXPECT_EQ(5U, tup.mask);
	/* values keep spaces and other bytes literally */
	ASSERT_EQ(TP_OK, tparse("src=a b:c", false));
	EXPECT_EQ(5U, tup.len[0]);
	EXPECT_EQ(0, memcmp(tup.val[0], "a b:c", 5));
}

TEST(tuple_bad)
{
	EXPECT_EQ(TP_EMPTY, tparse("", false));
	EXPECT_STREQ("empty tuple: give DIM=VALUE,... with dimensions src, dst, dport",
		     tp_strerror(&fail, "", &dims3));
	EXPECT_EQ(TP_EMPTY_ITEM, tparse(",", false));
	EXPECT_EQ(TP_EMPTY_ITEM, tparse("src=1,", false));
	EXPECT_EQ(TP_EMPTY_ITEM, tparse(",src=1", false));
	EXPECT_EQ(TP_EMPTY_ITEM, tparse("src=1,,dst=2", false));
	EXPECT_EQ((size_t)6, fail.off);

	EXPECT_EQ(TP_NO_EQ, tparse("src", false));
	EXPECT_STREQ("'src' is not DIM=VALUE (dimensions src, dst, dport; a value holding ',' or '=' must be given in hex, 0x...)",
		     tp_strerror(&fail, "src", &dims3));
	/* a literal ',' splits the value: the rest is no item */
	EXPECT_EQ(TP_NO_EQ, tparse("src=a,b", false));

	EXPECT_EQ(TP_DIM_UNKNOWN, tparse("src=1,proto=6", false));
	EXPECT_EQ((size_t)6, fail.off);
	EXPECT_STREQ("unknown dimension 'proto' (the dimensions are src, dst, dport)",
		     tp_strerror(&fail, "src=1,proto=6", &dims3));
	EXPECT_EQ(TP_DIM_UNKNOWN, tparse("=1", false));
	EXPECT_EQ(TP_DIM_UNKNOWN, tparse("SRC=1", false));	/* exact names */

	EXPECT_EQ(TP_DIM_TWICE, tparse("src=1,src=2", false));
	EXPECT_STREQ("dimension src given twice",
		     tp_strerror(&fail, "src=1,src=2", &dims3));

	EXPECT_EQ(TP_VALUE_EQ, tparse("src=a=b", false));
	EXPECT_STREQ("the value of src holds '=': give it in hex (0x...)",
		     tp_strerror(&fail, "src=a=b", &dims3));

	EXPECT_EQ(TP_VALUE, tparse("dst=", false));
	EXPECT_EQ(KP_EMPTY, fail.value_err);
	EXPECT_STREQ("the value of dst: empty key",
		     tp_strerror(&fail, "dst=", &dims3));
	EXPECT_EQ(TP_VALUE, tparse("src=1,dst=0xZZ", false));
	EXPECT_EQ(KP_HEX_DIGIT, fail.value_err);
	EXPECT_EQ((size_t)12, fail.bad);
	EXPECT_STREQ("the value of dst: 'Z' is not a hex digit",
		     tp_strerror(&fail, "src=1,dst=0xZZ", &dims3));
	EXPECT_EQ(TP_VALUE, tparse("src=0x1", false));
	EXPECT_EQ(KP_HEX_ODD, fail.value_err);
	/* a hex value with '=' is a bad digit, not VALUE_EQ */
	EXPECT_EQ(TP_VALUE, tparse("src=0x3d=", false));
	EXPECT_EQ(KP_HEX_DIGIT, fail.value_err);

	/* add: every dimension */
	EXPECT_EQ(TP_MISSING, tparse("src=1", true));
	EXPECT_EQ(6U, fail.missing);
	EXPECT_STREQ("no value for dst dport: add needs every dimension (src, dst, dport)",
		     tp_strerror(&fail, "src=1", &dims3));
}

TEST(tuple_value_lengths)
{
	size_t n = 4 + KBLOOM_KEY_MAX + 1;
	char *s = malloc(n + 1);

	ASSERT_NE(NULL, s);
	memcpy(s, "src=", 4);
	memset(s + 4, 'v', KBLOOM_KEY_MAX + 1);
	s[4 + KBLOOM_KEY_MAX] = '\0';
	ASSERT_EQ(TP_OK, tparse(s, false));
	EXPECT_EQ((uint32_t)KBLOOM_KEY_MAX, tup.len[0]);
	s[4 + KBLOOM_KEY_MAX] = 'v';
	s[n] = '\0';
	EXPECT_EQ(TP_VALUE, tparse(s, false));
	EXPECT_EQ(KP_TOO_LONG, fail.value_err);
	free(s);
}

/*
 * Every byte value at every position of a 26-digit key (three 8-digit
 * words of the fast decoder and a 2-digit tail): hex digits in either
 * case decode to their value, anything else is refused and named.
 */
TEST(hex_every_byte_everywhere)
{
	static const char base[] = "0x0123456789abcdefABCDEF0011";
	size_t outlen, bad, pos, n = strlen(base);
	uint8_t out[KBLOOM_KEY_MAX], want[KBLOOM_KEY_MAX];
	char s[sizeof(base)];
	unsigned int c, i, v;

	for (pos = 2; pos < n; pos++) {
		for (c = 0; c < 256; c++) {
			bool hex = (c >= '0' && c <= '9') ||
				   (c >= 'a' && c <= 'f') ||
				   (c >= 'A' && c <= 'F');

			memcpy(s, base, sizeof(base));
			s[pos] = (char)c;
			bad = 0;
			if (!hex) {
				ASSERT_EQ(KP_HEX_DIGIT,
					  key_parse(s, n, out, &outlen, &bad));
				ASSERT_EQ(pos, bad);
				continue;
			}
			ASSERT_EQ(KP_OK, key_parse(s, n, out, &outlen, &bad));
			ASSERT_EQ((n - 2) / 2, outlen);
			for (i = 0; i < outlen; i++) {
				char pair[3] = { s[2 + 2 * i], s[3 + 2 * i] };

				ASSERT_EQ(1, sscanf(pair, "%2x", &v));
				want[i] = (uint8_t)v;
			}
			ASSERT_EQ(0, memcmp(want, out, outlen));
		}
	}
}

TEST_HARNESS_MAIN
