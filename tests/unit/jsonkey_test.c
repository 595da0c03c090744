// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of how test -j and count -j write keys (json_keytext in
 * userspace/json.c): valid UTF-8 as itself, any other key as 0x hex, and
 * in a multi filter's tuple only the value that is not UTF-8. Each output
 * string, read back as bloomctl reads a KEY (userspace/keyparse.c), is
 * the key that was given: the round trip is exact.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "../../kmod/uapi/kbloom.h"
#include "../../userspace/json.h"
#include "../../userspace/keyparse.h"

static char buf[8192];

/* The JSON of one key, written alone. */
static const char *keytext(const void *s, size_t len, bool tuple)
{
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	struct json j;

	json_init(&j, f);
	json_arr_begin(&j);
	json_keytext(&j, s, len, tuple);
	json_arr_end(&j);
	fclose(f);
	return buf;
}

TEST(utf8_key_is_itself)
{
	EXPECT_STREQ("[\"alpha\"]\n", keytext("alpha", 5, false));
	/* é, €, U+1F600: valid UTF-8, copied */
	EXPECT_STREQ("[\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"]\n",
		     keytext("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, false));
	/* control characters are JSON escapes, still exact */
	EXPECT_STREQ("[\"a\\u0001\\n\"]\n", keytext("a\x01\n", 3, false));
}

TEST(non_utf8_key_is_hex)
{
	/* Latin-1 é alone: not UTF-8; it used to come out as \u00e9 (é) */
	EXPECT_STREQ("[\"0xe9\"]\n", keytext("\xe9", 1, false));
	EXPECT_STREQ("[\"0x636166e9\"]\n", keytext("caf\xe9", 4, false));
	/* overlong '/', a surrogate, a NUL among them */
	EXPECT_STREQ("[\"0xc0af\"]\n", keytext("\xc0\xaf", 2, false));
	EXPECT_STREQ("[\"0xeda080\"]\n", keytext("\xed\xa0\x80", 3, false));
	EXPECT_STREQ("[\"0x00ff\"]\n", keytext("\x00\xff", 2, false));
}

TEST(tuple_value_is_hex)
{
	const char t[] = "src=10.0.0.1,dst=\xff\xfe,dport=80";

	EXPECT_STREQ("[\"src=10.0.0.1,dst=0xfffe,dport=80\"]\n",
		     keytext(t, sizeof(t) - 1, true));
	EXPECT_STREQ("[\"src=0xe9\"]\n", keytext("src=\xe9", 5, true));
	EXPECT_STREQ("[\"src=a,dst=b\"]\n", keytext("src=a,dst=b", 11, true));
}

/* Every byte string of these, through JSON and back, is the same key. */
TEST(round_trip)
{
	static const char *const keys[] = {
		"\xe9", "caf\xe9", "\xff\xfe\xfd", "a\x80z", "\xc0\xaf",
		"\xf5\x80\x80\x80", "plain", "caf\xc3\xa9",
	};
	uint8_t back[KBLOOM_KEY_MAX];
	size_t i, n, bad;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const char *k = keys[i], *s;
		char text[256];

		s = keytext(k, strlen(k), false);
		/* the string between ["  and  "]\n; no escapes in these */
		ASSERT_EQ(0, strncmp(s, "[\"", 2));
		n = strlen(s) - 5;
		ASSERT_LT(n, sizeof(text));
		memcpy(text, s + 2, n);
		text[n] = '\0';
		ASSERT_EQ(KP_OK, key_parse(text, n, back, &n, &bad)) {
			TH_LOG("key %zu: '%s'", i, text);
		}
		EXPECT_EQ(strlen(k), n);
		EXPECT_EQ(0, memcmp(back, k, n)) {
			TH_LOG("key %zu: '%s' is not the key given", i, text);
		}
	}
}

TEST(tuple_round_trip)
{
	const char t[] = "src=\xe9\xe9,dst=ok";
	struct kb_dims dims = { .n = 2, .name = { "src", "dst" } };
	struct kp_tuple want, got;
	struct tp_fail fail;
	const char *s = keytext(t, sizeof(t) - 1, true);
	char text[256];
	size_t n = strlen(s) - 5;

	memcpy(text, s + 2, n);
	text[n] = '\0';
	EXPECT_STREQ("src=0xe9e9,dst=ok", text);
	ASSERT_EQ(TP_OK, tuple_parse(t, sizeof(t) - 1, &dims, true, &want, &fail));
	ASSERT_EQ(TP_OK, tuple_parse(text, n, &dims, true, &got, &fail));
	EXPECT_EQ(want.mask, got.mask);
	EXPECT_EQ(want.len[0], got.len[0]);
	EXPECT_EQ(0, memcmp(want.val[0], got.val[0], want.len[0]));
	EXPECT_EQ(want.len[1], got.len[1]);
	EXPECT_EQ(0, memcmp(want.val[1], got.val[1], want.len[1]));
}

TEST_HARNESS_MAIN
