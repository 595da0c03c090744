/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A minimal JSON reader for what 'bloomctl -j show' and 'bloomctl -j
 * query' print on a remote router (trace_ssh.c): values into a small tree.
 * Numbers keep their text, so 64-bit integers (nanosecond times) are read
 * exactly; strings are unescaped (\uXXXX below 0x80 only, others kept as
 * '?'). Depth is limited.
 */
#ifndef BLOOMCTL_TRACE_JSON_H
#define BLOOMCTL_TRACE_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tj_type { TJ_NULL, TJ_BOOL, TJ_NUM, TJ_STR, TJ_ARR, TJ_OBJ };

struct tj {
	enum tj_type type;
	bool b;			/* TJ_BOOL */
	char *s;		/* TJ_STR: the string; TJ_NUM: its text */
	size_t n;		/* TJ_ARR, TJ_OBJ: members */
	struct tj *v;		/* members' values */
	char **k;		/* TJ_OBJ: members' keys */
};

/*
 * Parses one value at *@pos of @s (@len bytes), skipping blanks before
 * it; advances *@pos past it. NULL with a reason in @err (and its byte
 * offset) on a syntax error, or when nothing but blanks is left (@err
 * then empty).
 */
struct tj *tj_parse(const char *s, size_t len, size_t *pos, char *err,
		    size_t errlen);
void tj_free(struct tj *v);

/* Member @key of object @o, or NULL (also when @o is not an object). */
const struct tj *tj_get(const struct tj *o, const char *key);
/* An unsigned integer value: 0, or -1 when @v is not one. */
int tj_u64(const struct tj *v, uint64_t *out);
/* A string member's value, or NULL. */
const char *tj_str(const struct tj *o, const char *key);

#endif
