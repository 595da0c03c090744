/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Two small text helpers the offline modules share (savefile.c,
 * archive_read.c, pcapfile.c, pktfmt.c, trace_json.c). Header-only: the
 * unit tests and fuzzers link those modules each alone.
 */
#ifndef BLOOMCTL_TEXTUTIL_H
#define BLOOMCTL_TEXTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* The value of hex digit @c (either case), or -1. */
static inline int kb_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Writes the message into @err (@errlen bytes); none when @err is NULL. */
static inline void __attribute__((format(printf, 3, 4)))
kb_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

#endif
