// SPDX-License-Identifier: GPL-2.0 OR MIT
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kmod/uapi/kbloom.h"
#include "util.h"

const char *errorf_context;
unsigned long errorf_count;
void (*errorf_before)(void);

void errorf(const char *fmt, ...)
{
	va_list ap;

	errorf_count++;
	if (errorf_before)
		errorf_before();
	fflush(stdout);
	fputs(PROG_NAME ": ", stderr);
	if (errorf_context)
		fprintf(stderr, "%s: ", errorf_context);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void warnf(const char *fmt, ...)
{
	va_list ap;

	if (errorf_before)
		errorf_before();
	fflush(stdout);
	fputs(PROG_NAME ": warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define QUOTE_MAX	64	/* input bytes shown before "..." */
#define QUOTE_BUFS	4

const char *quote_mem(const void *s, size_t len)
{
	static __thread char bufs[QUOTE_BUFS][QUOTE_MAX * 4 + 8];
	static __thread unsigned int next;
	const unsigned char *p = s;
	char *buf = bufs[next++ % QUOTE_BUFS];
	char *o = buf;
	size_t i, n = len > QUOTE_MAX ? QUOTE_MAX : len;

	for (i = 0; i < n; i++) {
		unsigned char c = p[i];

		switch (c) {
		case '\n': *o++ = '\\'; *o++ = 'n'; break;
		case '\r': *o++ = '\\'; *o++ = 'r'; break;
		case '\t': *o++ = '\\'; *o++ = 't'; break;
		case '\\': *o++ = '\\'; *o++ = '\\'; break;
		case '\'': *o++ = '\\'; *o++ = '\''; break;
		default:
			if (c >= 0x20 && c < 0x7f)
				*o++ = c;
			else
				o += sprintf(o, "\\x%02x", c);
		}
	}
	if (n < len) {
		memcpy(o, "...", 3);
		o += 3;
	}
	*o = '\0';
	return buf;
}

const char *quote(const char *s)
{
	return quote_mem(s, strlen(s));
}

int parse_u64(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_u32(const char *s, uint32_t *out)
{
	uint64_t v;

	if (parse_u64(s, &v) || v > UINT32_MAX)
		return -1;
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	/* strtod also takes blanks, "inf", "nan" and hex floats: refuse. */
	if (!((s[0] >= '0' && s[0] <= '9') || s[0] == '.') ||
	    strpbrk(s, "xX"))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		errorf("out of memory");
		exit(EXIT_ERROR);
	}
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		errorf("out of memory");
		exit(EXIT_ERROR);
	}
	return d;
}

bool check_name(const char *name)
{
	size_t len = strlen(name);

	if (!len) {
		errorf("invalid filter name '': empty");
		return false;
	}
	if (len >= KBLOOM_NAME_MAX) {
		errorf("invalid filter name '%s': longer than %d bytes",
		       quote(name), KBLOOM_NAME_MAX - 1);
		return false;
	}
	return true;
}

bool check_new_name(const char *name)
{
	if (!check_name(name))
		return false;
	if (name[0] == '-' || !strcmp(name, "all")) {
		errorf("invalid filter name '%s': %s", quote(name),
		       name[0] == '-' ? "must not start with '-'" :
		       "'all' is reserved (destroy all)");
		return false;
	}
	return true;
}

const char *human_bytes(uint64_t bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	static __thread char buf[32];
	double v = bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, sizeof(buf), "%llu B", (unsigned long long)bytes);
		return buf;
	}
	while (v >= 1024 && u + 1 < (int)ARRAY_SIZE(unit)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, sizeof(buf), "%.1f %s", v, unit[u]);
	return buf;
}

const char *fmt_pow10(double x)
{
	static __thread char bufs[2][40];
	static __thread unsigned int next;
	char *buf = bufs[next++ % 2];
	double e, mant;

	if (isinf(x) && x < 0)
		return "0";
	if (x > -300) {
		snprintf(buf, sizeof(bufs[0]), "%.3g", pow(10, x));
		return buf;
	}
	e = floor(x);
	mant = pow(10, x - e);
	if (mant >= 9.995) {	/* %.3g would print 10 */
		mant /= 10;
		e += 1;
	}
	snprintf(buf, sizeof(bufs[0]), "%.3ge%.0f", mant, e);
	return buf;
}

char *private_dir(const char *name, size_t tmpmax, const char *what,
		  char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char *d;

	if (!tmp || !*tmp || (tmpmax && strlen(tmp) > tmpmax))
		tmp = "/tmp";
	if (asprintf(&d, "%s/%s.XXXXXX", tmp, name) < 0) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!mkdtemp(d)) {	/* mode 0700 */
		snprintf(err, errlen, "unable to make a directory%s in %s: %s",
			 what, tmp, strerror(errno));
		free(d);
		return NULL;
	}
	return d;
}
