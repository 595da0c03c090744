/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Error printing, strict number parsing and quoting of user input for
 * bloomctl. Every error is one line on stderr: "bloomctl: WHAT: WHY".
 */
#ifndef BLOOMCTL_UTIL_H
#define BLOOMCTL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROG_NAME "bloomctl"

/* Exit codes (bloomctl(8), EXIT STATUS). */
#define EXIT_OK		0
#define EXIT_NEGATIVE	1	/* test: some key absent */
#define EXIT_ERROR	2

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* "bloomctl: <formatted>\n" on stderr. */
void errorf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "bloomctl: warning: <formatted>\n" on stderr; not counted as an error. */
void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Called by errorf() and warnf() before they print (progress.h), or NULL. */
extern void (*errorf_before)(void);
/*
 * When set, errorf() prints "bloomctl: CONTEXT: ..." (batch: "FILE:LINE");
 * errorf_count counts the errors printed.
 */
extern const char *errorf_context;
extern unsigned long errorf_count;

/*
 * Quote user input for an error message: printable ASCII as is, anything
 * else as \xNN (\n, \r, \t as such), ' and \ escaped, long input cut to a
 * prefix followed by "...". Returns one of a few rotating static buffers,
 * so up to four quotes may appear in one message.
 */
const char *quote_mem(const void *s, size_t len);
const char *quote(const char *s);

/*
 * Strict decimal numbers: digits only (no sign, no blanks, no trailing
 * junk), no overflow. 0 on success, -1 otherwise (nothing printed).
 */
int parse_u64(const char *s, uint64_t *out);
int parse_u32(const char *s, uint32_t *out);
/* A finite floating point number, no trailing junk. */
int parse_double(const char *s, double *out);

/* Filter names: 1..KBLOOM_NAME_MAX-1 bytes. Prints the error. */
/* realloc() and strdup() that end bloomctl (exit 2) when memory runs out. */
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);

/*
 * A new private directory (mkdtemp, mode 0700) $TMPDIR/NAME.XXXXXX, or
 * under /tmp when TMPDIR is unset, empty or longer than @tmpmax bytes
 * (0: any length). malloc'd, or NULL with "unable to make a directory
 * WHAT in DIR: WHY" (or "out of memory") in @err.
 */
char *private_dir(const char *name, size_t tmpmax, const char *what,
		  char *err, size_t errlen);

bool check_name(const char *name);
/* check_name() and what a new filter's name may not be: "all", "-...". */
bool check_new_name(const char *name);

/* Human-readable byte count ("1.5 MiB"), static buffer. */
const char *human_bytes(uint64_t bytes);

/*
 * 10^@x in %.3g style even far below DBL_MIN ("3.52e-5433"), "0" for
 * -inf. Rotating static buffers (two per message).
 */
const char *fmt_pow10(double x);

#endif
