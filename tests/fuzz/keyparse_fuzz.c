// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: bloomctl's parsers of command-line strings (and of key
 * files' lines), one target dispatching on the first input byte (mod 9);
 * the rest of the input is the string:
 *   0  KEY          key_parse (any bytes, NULs included), kp_strerror
 *   1  HEX32        hex32_parse (a hash key)
 *   2  DIMS         dims_parse, dims_list
 *   3  TUPLE        "DIMS\nTUPLE": tuple_parse (add and test), tp_strerror
 *   4  DURATION     kb_duration_parse, kb_duration_str
 *   5  TIME         kb_time_parse, kb_time_str (TZ with DST rules)
 *   6  hex packet   kb_hex_packet_parse, then kb_pkt_describe of it
 *   7  numbers      parse_u64/u32/double, quote_mem, human_bytes, fmt_pow10
 *   8  names        kb_hook/family/digest_parse and their names
 * Invariants (a trap when broken): what is accepted is within its limits
 * and prints back to something that parses to the same value (keys as
 * hex, durations, times with their UTC offset, numbers); a refusal always
 * has a reason.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "keyparse.h"
#include "pktfmt.h"
#include "timefmt.h"
#include "util.h"
#include "fuzz_common.h"

/* A fixed "now" (2026-11-22T07:31:30.123456789Z) for relative times. */
#define NOW_NS	1795332690123456789ULL

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* Central European time with its DST rules, no tzdata needed. */
	setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
	tzset();
	return 0;
}

static void fuzz_key(const char *s, size_t len)
{
	uint8_t out[KBLOOM_KEY_MAX], back[KBLOOM_KEY_MAX];
	char hex[2 + 2 * KBLOOM_KEY_MAX + 1];
	size_t n = 0, m = 0, bad = (size_t)-1;
	enum kp_error e;

	e = key_parse(s, len, out, &n, &bad);
	FUZZ_CHECK(strlen(kp_strerror(e, s, bad)) > 0, "no reason");
	if (e == KP_HEX_DIGIT)
		FUZZ_CHECK(bad < len, "bad digit at %zu of %zu", bad, len);
	if (e)
		return;
	FUZZ_CHECK(n >= 1 && n <= KBLOOM_KEY_MAX, "key of %zu bytes", n);
	if (!(len >= 2 && s[0] == '0' && s[1] == 'x'))
		FUZZ_CHECK(n == len && !memcmp(out, s, n), "literal changed");
	kb_hex_str(out, n, hex, sizeof(hex));
	e = key_parse(hex, strlen(hex), back, &m, NULL);
	FUZZ_CHECK(e == KP_OK && m == n && !memcmp(back, out, n),
		   "hex of a key does not parse back (%d)", e);
}

static void fuzz_hex32(const char *s)
{
	uint8_t out[KBLOOM_HASH_KEY_LEN];
	size_t bad = (size_t)-1;
	enum kp_error e = hex32_parse(s, out, &bad);

	FUZZ_CHECK(strlen(kp_strerror(e, s, bad)) > 0, "no reason");
	if (e == KP_HEX_DIGIT)
		FUZZ_CHECK(bad < strlen(s), "bad digit at %zu", bad);
}

static void fuzz_dims(const char *s)
{
	struct kb_dims d, again;
	char why[256] = "", list[256], *p, *q;
	unsigned int i;

	if (dims_parse(s, &d, why, sizeof(why))) {
		FUZZ_CHECK(why[0], "refused without a reason");
		return;
	}
	FUZZ_CHECK(d.n >= 1 && d.n <= KBLOOM_DIMS_MAX, "%u dims", d.n);
	for (i = 0; i < d.n; i++)
		FUZZ_CHECK(strlen(d.name[i]) >= 1 &&
			   strlen(d.name[i]) < KBLOOM_DIM_NAME_MAX, "name %u", i);
	/* "a, b, c" without the blanks parses to the same list. */
	snprintf(list, sizeof(list), "%s", dims_list(&d));
	for (p = q = list; *p; p++)
		if (*p != ' ')
			*q++ = *p;
	*q = 0;
	FUZZ_CHECK(!dims_parse(list, &again, why, sizeof(why)) &&
		   !memcmp(&d, &again, sizeof(d)), "dims_list '%s' differs", list);
}

static void fuzz_tuple(const char *s, size_t len)
{
	static const char *const def = "src,dst,dport";
	const char *nl = memchr(s, '\n', len), *tuple = s;
	struct kb_dims dims;
	struct kp_tuple t;
	struct tp_fail f;
	enum tp_error e;
	char why[256], *list;
	size_t tlen = len;
	int all;

	if (nl) {
		list = fuzz_strndup((const uint8_t *)s, nl - s);
		if (dims_parse(list, &dims, why, sizeof(why)))
			dims_parse(def, &dims, why, sizeof(why));
		free(list);
		tuple = nl + 1;
		tlen = len - (nl + 1 - s);
	} else {
		dims_parse(def, &dims, why, sizeof(why));
	}
	for (all = 0; all < 2; all++) {
		memset(&t, 0xa5, sizeof(t));
		e = tuple_parse(tuple, tlen, &dims, all, &t, &f);
		FUZZ_CHECK(e == f.err || e == TP_OK, "returned %d, fail says %d",
			   e, f.err);
		if (e) {
			FUZZ_CHECK(f.off <= tlen && f.len <= tlen - f.off &&
				   f.name_len <= f.len + (e == TP_MISSING ? 0 : 0) + tlen,
				   "item %zu+%zu of %zu", f.off, f.len, tlen);
			if (e == TP_VALUE && f.value_err == KP_HEX_DIGIT)
				FUZZ_CHECK(f.bad < tlen, "bad %zu of %zu", f.bad,
					   tlen);
			FUZZ_CHECK(strlen(tp_strerror(&f, tuple, &dims)) > 0,
				   "no reason");
			continue;
		}
		FUZZ_CHECK(t.mask && !(t.mask >> dims.n), "mask %#x, %u dims",
			   t.mask, dims.n);
		if (all)
			FUZZ_CHECK(t.mask == (1u << dims.n) - 1, "add without every dimension");
	}
}

static void fuzz_duration(const char *s)
{
	char why[256] = "", buf[64];
	uint64_t ms, back;

	if (kb_duration_parse(s, &ms, why, sizeof(why))) {
		FUZZ_CHECK(why[0], "refused without a reason");
		return;
	}
	kb_duration_str(ms, buf, sizeof(buf));
	FUZZ_CHECK(!kb_duration_parse(buf, &back, why, sizeof(why)) &&
		   back == ms, "'%s' -> %llu ms -> '%s' does not parse back",
		   s, (unsigned long long)ms, buf);
}

static void fuzz_time(const char *s)
{
	char why[256] = "", buf[KB_TIME_STR_MAX], plain[KB_TIME_STR_MAX];
	uint64_t ns, back, want;

	if (kb_time_parse(s, NOW_NS, &ns, why, sizeof(why))) {
		FUZZ_CHECK(why[0], "refused without a reason");
		return;
	}
	kb_time_str(ns, false, plain, sizeof(plain));
	kb_time_str(ns, true, buf, sizeof(buf));
	FUZZ_CHECK(strlen(buf) < sizeof(buf) - 1, "time text cut: %s", buf);
	/* Years past 9999 print with more digits than a TIME takes. */
	if (ns / KB_NS_PER_SEC > 253402300799ULL)
		return;
	want = ns - ns % KB_NS_PER_MS;
	FUZZ_CHECK(!kb_time_parse(buf, NOW_NS, &back, why, sizeof(why)) &&
		   back == want,
		   "'%s' -> %llu ns -> '%s' parses back to %llu (%s)", s,
		   (unsigned long long)ns, buf, (unsigned long long)back, why);
	/* Local time without an offset: the same but in the repeated hour. */
	if (!kb_time_parse(plain, NOW_NS, &back, why, sizeof(why)) &&
	    back != want)
		FUZZ_CHECK(back + 3600 * KB_NS_PER_SEC == want ||
			   back == want + 3600 * KB_NS_PER_SEC,
			   "'%s' -> '%s' parses back %lld s off", s, plain,
			   (long long)(back - want) / (long long)KB_NS_PER_SEC);
}

static void fuzz_hexpacket(const char *s)
{
	uint8_t small[20], big[4096];
	char why[256] = "", desc[256];
	size_t n = 0, m = 0;
	int r1, r2;

	r1 = kb_hex_packet_parse(s, small, sizeof(small), &n, why, sizeof(why));
	FUZZ_CHECK(!r1 || why[0], "refused without a reason");
	if (!r1)
		FUZZ_CHECK(n >= 1 && n <= sizeof(small), "%zu bytes", n);
	why[0] = 0;
	r2 = kb_hex_packet_parse(s, big, sizeof(big), &m, why, sizeof(why));
	FUZZ_CHECK(!r2 || why[0], "refused without a reason");
	if (!r1)
		FUZZ_CHECK(!r2 && m == n && !memcmp(small, big, n),
			   "a larger buffer changes the result");
	if (!r2) {
		uint8_t *pkt = fuzz_dup(big, m);

		kb_pkt_describe(pkt, m, desc, sizeof(desc));
		free(pkt);
	}
}

static void fuzz_numbers(const char *s)
{
	char buf[64];
	uint64_t u, u2;
	uint32_t w;
	double d;

	quote_mem(s, strlen(s));
	quote(s);
	if (!parse_u64(s, &u)) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)u);
		FUZZ_CHECK(!parse_u64(buf, &u2) && u2 == u, "u64 round trip");
		human_bytes(u);
		if (!parse_u32(s, &w))
			FUZZ_CHECK(w == u, "u32 %u != u64 %llu", w,
				   (unsigned long long)u);
		else
			FUZZ_CHECK(u > UINT32_MAX, "u32 refused %llu",
				   (unsigned long long)u);
	}
	if (!parse_double(s, &d)) {
		FUZZ_CHECK(isfinite(d) && d >= 0, "parsed %g", d);
		fmt_pow10(-d);
		fmt_pow10(-d * 1000);
		fmt_pow10(d > 400 ? 400 : d);
	}
}

static void fuzz_names(const char *s)
{
	int v;

	v = kb_hook_parse(s);
	if (v >= 0)
		FUZZ_CHECK(!strcmp(kb_hook_name(v), s), "hook %d", v);
	v = kb_family_parse(s);
	if (v >= 0)
		FUZZ_CHECK(!strcmp(kb_family_name(v), s), "family %d", v);
	v = kb_digest_parse(s);
	if (v >= 0)
		FUZZ_CHECK(!strcmp(kb_digest_name(v), s), "digest %d", v);
	if (strlen(s) >= 1) {
		kb_hook_str((uint8_t)s[0]);
		kb_family_str((uint8_t)s[0]);
		kb_digest_str((uint8_t)s[0]);
		kb_skip_str((uint8_t)s[0]);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	size_t len;

	if (!size)
		return 0;
	len = size - 1;
	/* Command-line strings are NUL-terminated copies, sized exactly. */
	s = fuzz_strndup(data + 1, len);
	switch (data[0] % 9) {
	case 0: {
		char *raw = (char *)fuzz_dup(data + 1, len);

		fuzz_key(raw, len);
		free(raw);
		break;
	}
	case 1: fuzz_hex32(s); break;
	case 2: fuzz_dims(s); break;
	case 3: {
		char *raw = (char *)fuzz_dup(data + 1, len);

		fuzz_tuple(raw, len);
		free(raw);
		break;
	}
	case 4: fuzz_duration(s); break;
	case 5: fuzz_time(s); break;
	case 6: fuzz_hexpacket(s); break;
	case 7: fuzz_numbers(s); break;
	case 8: fuzz_names(s); break;
	}
	free(s);
	return 0;
}
