/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Durations and points in time as bloomctl reads and prints them.
 *
 * DURATION: a positive integer followed by a unit, ms, s, m, h or d
 * ("500ms", "10s", "5m", "1h", "1d"); a plain integer is seconds.
 *
 * TIME, in nanoseconds since the epoch (CLOCK_REALTIME):
 *   2026-11-22T07:31:30[.fff]      local time ('T' or one space between
 *                                   date and time; up to 9 fraction digits)
 *   2026-11-22T07:31:30[.fff]Z     UTC; or an offset: +01:00, -0530, +01
 *   @1700000000[.5]                seconds since the epoch
 *   -DURATION                      now minus DURATION ("-5m")
 *   now
 *
 * Times are printed as local ISO-8601 with milliseconds,
 * "2026-11-22T07:31:30.123", optionally followed by the UTC offset
 * ("+01:00"); both forms parse back.
 *
 * Pure functions, no output: unit-tested on the host.
 */
#ifndef BLOOMCTL_TIMEFMT_H
#define BLOOMCTL_TIMEFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KB_NS_PER_MS	1000000ULL
#define KB_NS_PER_SEC	1000000000ULL

/* Room for kb_time_str() and kb_duration_str() output. */
#define KB_TIME_STR_MAX	40

/*
 * DURATION into milliseconds. 0, or -1 with the reason in @why ("a number
 * followed by ms, s, m, h or d"). 0 itself is accepted; callers check
 * their own range.
 */
int kb_duration_parse(const char *s, uint64_t *ms, char *why, size_t whylen);
/* The same in nanoseconds ("too long" past UINT64_MAX ns). */
int kb_duration_ns_parse(const char *s, uint64_t *ns, char *why,
			 size_t whylen);

/* The largest exact unit: 1500 -> "1500ms", 60000 -> "1m", 0 -> "0s". */
const char *kb_duration_str(uint64_t ms, char *buf, size_t len);

/*
 * TIME into ns since the epoch; @now_ns is "now" for relative times. 0, or
 * -1 with the reason in @why.
 */
int kb_time_parse(const char *s, uint64_t now_ns, uint64_t *ns, char *why,
		  size_t whylen);

/*
 * @ns as local ISO-8601 with milliseconds (truncated), plus the UTC offset
 * when @offset. Returns @buf (at least KB_TIME_STR_MAX bytes).
 */
const char *kb_time_str(uint64_t ns, bool offset, char *buf, size_t len);

/* CLOCK_REALTIME now, in ns. */
uint64_t kb_now_ns(void);

#endif
