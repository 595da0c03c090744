// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of bloomctl's durations and times (userspace/timefmt.c):
 * create's "interval DURATION", query's "since/until TIME" in every form
 * (local and UTC ISO-8601, offsets, @epoch, -DURATION, now), their errors,
 * and the printed form parsing back to the same millisecond.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"

#include "../../userspace/timefmt.h"

#define NS(s)	((uint64_t)(s) * KB_NS_PER_SEC)

static char why[160];

static uint64_t dur(const char *s)
{
	uint64_t ms = 12345;

	why[0] = '\0';
	if (kb_duration_parse(s, &ms, why, sizeof(why)))
		return UINT64_MAX;
	return ms;
}

static uint64_t when(const char *s, uint64_t now)
{
	uint64_t ns = 12345;

	why[0] = '\0';
	if (kb_time_parse(s, now, &ns, why, sizeof(why)))
		return UINT64_MAX;
	return ns;
}

TEST(duration_units)
{
	EXPECT_EQ(500, dur("500ms"));
	EXPECT_EQ(10000, dur("10s"));
	EXPECT_EQ(300000, dur("5m"));
	EXPECT_EQ(3600000, dur("1h"));
	EXPECT_EQ(86400000, dur("1d"));
	EXPECT_EQ(7000, dur("7"));		/* plain number: seconds */
	EXPECT_EQ(0, dur("0"));
	EXPECT_EQ(0, dur("0ms"));
}

TEST(duration_errors)
{
	EXPECT_EQ(UINT64_MAX, dur(""));
	EXPECT_NE(NULL, strstr(why, "empty"));
	EXPECT_EQ(UINT64_MAX, dur("x"));
	EXPECT_NE(NULL, strstr(why, "ms, s, m, h or d"));
	EXPECT_EQ(UINT64_MAX, dur("5 m"));
	EXPECT_EQ(UINT64_MAX, dur("5M"));
	EXPECT_NE(NULL, strstr(why, "'M'"));
	EXPECT_EQ(UINT64_MAX, dur("1.5s"));
	EXPECT_EQ(UINT64_MAX, dur("-1s"));
	EXPECT_EQ(UINT64_MAX, dur("5sec"));
	EXPECT_EQ(UINT64_MAX, dur("99999999999999999999"));
	EXPECT_NE(NULL, strstr(why, "too large"));
	/* Fits as a number, overflows in ms */
	EXPECT_EQ(UINT64_MAX, dur("18446744073709551d"));
	EXPECT_NE(NULL, strstr(why, "too large"));
}

TEST(duration_str)
{
	char buf[KB_TIME_STR_MAX];

	EXPECT_STREQ("0s", kb_duration_str(0, buf, sizeof(buf)));
	EXPECT_STREQ("1500ms", kb_duration_str(1500, buf, sizeof(buf)));
	EXPECT_STREQ("10ms", kb_duration_str(10, buf, sizeof(buf)));
	EXPECT_STREQ("90s", kb_duration_str(90000, buf, sizeof(buf)));
	EXPECT_STREQ("1m", kb_duration_str(60000, buf, sizeof(buf)));
	EXPECT_STREQ("2h", kb_duration_str(7200000, buf, sizeof(buf)));
	EXPECT_STREQ("366d", kb_duration_str(366ULL * 86400000, buf,
					     sizeof(buf)));
}

TEST(time_utc_and_offsets)
{
	/* 2026-11-22T07:31:30Z = 1795332690 */
	EXPECT_EQ(NS(1795332690), when("2026-11-22T07:31:30Z", 0));
	EXPECT_EQ(NS(1795332690) + 123000000,
		  when("2026-11-22T07:31:30.123Z", 0));
	EXPECT_EQ(NS(1795332690) + 5, when("2026-11-22T07:31:30.000000005Z", 0));
	EXPECT_EQ(NS(1795332690), when("2026-11-22 07:31:30Z", 0));
	EXPECT_EQ(NS(1795332690), when("2026-11-22T08:31:30+01:00", 0));
	EXPECT_EQ(NS(1795332690), when("2026-11-22T08:31:30+0100", 0));
	EXPECT_EQ(NS(1795332690), when("2026-11-22T08:31:30+01", 0));
	EXPECT_EQ(NS(1795332690), when("2026-11-22T02:01:30-05:30", 0));
	EXPECT_EQ(0, when("1970-01-01T00:00:00Z", 0));
	/* Leap day */
	EXPECT_EQ(NS(951782400), when("2000-02-29T00:00:00Z", 0));
}

TEST(time_local)
{
	setenv("TZ", "UTC", 1);
	tzset();
	EXPECT_EQ(NS(1795332690), when("2026-11-22T07:31:30", 0));
	setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
	tzset();
	EXPECT_EQ(NS(1795332690), when("2026-11-22T08:31:30", 0));
	/* Summer time: UTC+2 */
	EXPECT_EQ(NS(1782027090), when("2026-06-21T09:31:30", 0));
	setenv("TZ", "UTC", 1);
	tzset();
}

TEST(time_epoch_relative_now)
{
	uint64_t now = NS(1795332690) + 250000000;

	EXPECT_EQ(NS(1700000000), when("@1700000000", now));
	EXPECT_EQ(NS(1700000000) + 500000000, when("@1700000000.5", now));
	EXPECT_EQ(now - 300 * KB_NS_PER_SEC, when("-5m", now));
	EXPECT_EQ(now - 500 * KB_NS_PER_MS, when("-500ms", now));
	EXPECT_EQ(now - 90 * KB_NS_PER_SEC, when("-90", now));
	EXPECT_EQ(now, when("now", now));
	EXPECT_EQ(now, when("-0s", now));
}

TEST(time_errors)
{
	static const char *const bad[] = {
		"", "yesterday", "2026-11-22", "2026-11-22T07:31", "2026-1-22T07:31:30",
		"2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
		"2026-11-31T00:00:00Z", "2026-11-22T24:00:00Z",
		"2026-11-22T07:60:00Z", "2026-11-22T07:31:60Z",
		"2026-11-22T07:31:30.Z", "2026-11-22T07:31:30.1234567890Z",
		"2026-11-22T07:31:30ZZ", "2026-11-22T07:31:30+1",
		"2026-11-22T07:31:30+01:", "2026-11-22T07:31:30+24:00",
		"2026-11-22T07:31:30 UTC", "1969-12-31T23:59:59Z",
		"@", "@-1", "@1.", "@1.5x", "@99999999999999999999",
		"-", "-5x", "--5m", "+5m",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(UINT64_MAX, when(bad[i], NS(1795332690)))
			TH_LOG("'%s' was accepted", bad[i]);
		EXPECT_NE(0, why[0]) TH_LOG("'%s': no reason", bad[i]);
	}
	/* Further back than the epoch */
	EXPECT_EQ(UINT64_MAX, when("-1d", NS(3600)));
	EXPECT_NE(NULL, strstr(why, "1970"));
	/* Past what ns in a u64 hold (year 2554) */
	EXPECT_EQ(UINT64_MAX, when("2600-01-01T00:00:00Z", 0));
	EXPECT_NE(NULL, strstr(why, "future"));
}

TEST(time_str_round_trip)
{
	char buf[KB_TIME_STR_MAX];
	uint64_t ns = NS(1795332690) + 123456789;

	setenv("TZ", "UTC", 1);
	tzset();
	EXPECT_STREQ("2026-11-22T07:31:30.123",
		     kb_time_str(ns, false, buf, sizeof(buf)));
	EXPECT_STREQ("2026-11-22T07:31:30.123+00:00",
		     kb_time_str(ns, true, buf, sizeof(buf)));
	setenv("TZ", "IST-5:30", 1);
	tzset();
	EXPECT_STREQ("2026-11-22T13:01:30.123+05:30",
		     kb_time_str(ns, true, buf, sizeof(buf)));
	/* Both forms parse back to the millisecond printed */
	EXPECT_EQ(ns - 456789, when(kb_time_str(ns, true, buf, sizeof(buf)), 0));
	EXPECT_EQ(ns - 456789, when(kb_time_str(ns, false, buf, sizeof(buf)), 0));
	setenv("TZ", "NST+3:30", 1);
	tzset();
	EXPECT_STREQ("2026-11-22T04:01:30.123-03:30",
		     kb_time_str(ns, true, buf, sizeof(buf)));
	EXPECT_EQ(ns - 456789, when(kb_time_str(ns, true, buf, sizeof(buf)), 0));
	setenv("TZ", "UTC", 1);
	tzset();
}

TEST_HARNESS_MAIN
