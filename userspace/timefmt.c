// SPDX-License-Identifier: GPL-2.0 OR MIT
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "timefmt.h"

static const struct {
	const char *name;
	uint64_t ms;
} units[] = {
	{ "ms", 1 },
	{ "s", 1000 },
	{ "m", 60 * 1000 },
	{ "h", 3600 * 1000 },
	{ "d", 86400 * 1000 },
};

#define WHY(...)	snprintf(why, whylen, __VA_ARGS__)

int kb_duration_parse(const char *s, uint64_t *ms, char *why, size_t whylen)
{
	uint64_t v = 0, mult = 1000;	/* a plain number is seconds */
	const char *p = s;
	size_t i;

	if (*p < '0' || *p > '9') {
		WHY("%s", *p ? "not a number followed by ms, s, m, h or d" :
		    "empty");
		return -1;
	}
	for (; *p >= '0' && *p <= '9'; p++) {
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v)) {
			WHY("too large");
			return -1;
		}
	}
	if (*p) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(p, units[i].name))
				break;
		if (i == sizeof(units) / sizeof(units[0])) {
			WHY("unknown unit '%s': ms, s, m, h or d (none: seconds)",
			    p);
			return -1;
		}
		mult = units[i].ms;
	}
	if (__builtin_mul_overflow(v, mult, ms)) {
		WHY("too large");
		return -1;
	}
	return 0;
}

int kb_duration_ns_parse(const char *s, uint64_t *ns, char *why,
			 size_t whylen)
{
	uint64_t ms;

	if (kb_duration_parse(s, &ms, why, whylen))
		return -1;
	if (ms > UINT64_MAX / KB_NS_PER_MS) {
		WHY("too long");
		return -1;
	}
	*ns = ms * KB_NS_PER_MS;
	return 0;
}

const char *kb_duration_str(uint64_t ms, char *buf, size_t len)
{
	int i;

	if (!ms) {
		snprintf(buf, len, "0s");
		return buf;
	}
	for (i = sizeof(units) / sizeof(units[0]) - 1; i > 0; i--)
		if (ms % units[i].ms == 0)
			break;
	snprintf(buf, len, "%llu%s", (unsigned long long)(ms / units[i].ms),
		 units[i].name);
	return buf;
}

/* Exactly @n decimal digits at *@p. */
static int digits(const char **p, int n, int *out)
{
	int v = 0;

	while (n--) {
		if (**p < '0' || **p > '9')
			return -1;
		v = v * 10 + (*(*p)++ - '0');
	}
	*out = v;
	return 0;
}

/* ".f" (1 to 9 digits) at *@p, as ns; nothing there is 0. */
static int fraction(const char **p, uint64_t *ns)
{
	uint64_t scale = KB_NS_PER_SEC;
	int n = 0;

	*ns = 0;
	if (**p != '.')
		return 0;
	(*p)++;
	while (**p >= '0' && **p <= '9') {
		if (++n > 9)
			return -1;
		scale /= 10;
		*ns += (uint64_t)(*(*p)++ - '0') * scale;
	}
	return n ? 0 : -1;
}

static bool leap(int y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int days_in(int y, int m)
{
	static const int d[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30,
				 31 };

	return d[m - 1] + (m == 2 && leap(y));
}

static int to_ns(int64_t secs, uint64_t frac, uint64_t *ns, char *why,
		 size_t whylen)
{
	if (secs < 0) {
		WHY("before 1970-01-01T00:00:00Z");
		return -1;
	}
	if ((uint64_t)secs > (UINT64_MAX - frac) / KB_NS_PER_SEC) {
		WHY("too far in the future");
		return -1;
	}
	*ns = (uint64_t)secs * KB_NS_PER_SEC + frac;
	return 0;
}

static int iso_parse(const char *s, uint64_t *ns, char *why, size_t whylen)
{
	const char *p = s;
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	uint64_t frac;
	struct tm tm;
	int64_t secs;
	time_t t;

	if (digits(&p, 4, &y) || *p++ != '-' || digits(&p, 2, &mo) ||
	    *p++ != '-' || digits(&p, 2, &d) || (*p != 'T' && *p != ' ')) {
		WHY("not a time: YYYY-MM-DDTHH:MM:SS[.mmm][Z], @UNIXSECONDS, -DURATION or now");
		return -1;
	}
	p++;
	if (digits(&p, 2, &h) || *p++ != ':' || digits(&p, 2, &mi) ||
	    *p++ != ':' || digits(&p, 2, &sec)) {
		WHY("not a time of day: HH:MM:SS after the date");
		return -1;
	}
	if (fraction(&p, &frac)) {
		WHY("bad fraction of a second: 1 to 9 digits after '.'");
		return -1;
	}
	if (*p == 'Z' && !p[1]) {
		sign = 1;
	} else if (*p == '+' || *p == '-') {
		sign = *p++ == '+' ? 1 : -1;
		oh = -1;
		if (!digits(&p, 2, &oh) && *p) {
			if (*p == ':')
				p++;
			if (digits(&p, 2, &om))
				oh = -1;
		}
		if (oh < 0 || *p || oh > 23 || om > 59) {
			WHY("bad UTC offset: +HH:MM, +HHMM or +HH");
			return -1;
		}
		p = "";
	} else if (*p) {
		WHY("unexpected '%s' after the time", p);
		return -1;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > days_in(y, mo)) {
		WHY("no such date");
		return -1;
	}
	if (h > 23 || mi > 59 || sec > 59) {
		WHY("no such time of day");
		return -1;
	}
	if (y < 1970) {
		WHY("before 1970-01-01T00:00:00Z");
		return -1;
	}
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	if (sign) {
		t = timegm(&tm);
		secs = (int64_t)t - sign * (oh * 3600 + om * 60);
	} else {
		tm.tm_isdst = -1;
		t = mktime(&tm);
		if (t == (time_t)-1) {
			WHY("not a valid local time");
			return -1;
		}
		secs = t;
	}
	return to_ns(secs, frac, ns, why, whylen);
}

int kb_time_parse(const char *s, uint64_t now_ns, uint64_t *ns, char *why,
		  size_t whylen)
{
	uint64_t v = 0, frac, ms;
	const char *p;

	if (!strcmp(s, "now")) {
		*ns = now_ns;
		return 0;
	}
	if (s[0] == '@') {
		p = s + 1;
		if (*p < '0' || *p > '9') {
			WHY("not @SECONDS since the epoch");
			return -1;
		}
		for (; *p >= '0' && *p <= '9'; p++)
			if (__builtin_mul_overflow(v, 10, &v) ||
			    __builtin_add_overflow(v, (uint64_t)(*p - '0'),
						   &v) ||
			    v > INT64_MAX) {
				WHY("too far in the future");
				return -1;
			}
		if (fraction(&p, &frac) || *p) {
			WHY("not @SECONDS[.FRACTION] since the epoch");
			return -1;
		}
		return to_ns((int64_t)v, frac, ns, why, whylen);
	}
	if (s[0] == '-') {
		if (kb_duration_parse(s + 1, &ms, why, whylen))
			return -1;
		if (ms > now_ns / KB_NS_PER_MS) {
			WHY("before 1970-01-01T00:00:00Z");
			return -1;
		}
		*ns = now_ns - ms * KB_NS_PER_MS;
		return 0;
	}
	return iso_parse(s, ns, why, whylen);
}

const char *kb_time_str(uint64_t ns, bool offset, char *buf, size_t len)
{
	time_t t = ns / KB_NS_PER_SEC;
	unsigned int ms = ns % KB_NS_PER_SEC / KB_NS_PER_MS;
	char date[32];
	struct tm tm;
	long off;

	if (!localtime_r(&t, &tm) ||
	    !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, len, "@%llu.%03u", (unsigned long long)t, ms);
		return buf;
	}
	if (!offset) {
		snprintf(buf, len, "%s.%03u", date, ms);
		return buf;
	}
	off = tm.tm_gmtoff;
	snprintf(buf, len, "%s.%03u%c%02ld:%02ld", date, ms,
		 off < 0 ? '-' : '+', (off < 0 ? -off : off) / 3600,
		 (off < 0 ? -off : off) / 60 % 60);
	return buf;
}

uint64_t kb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * KB_NS_PER_SEC + ts.tv_nsec;
}
