// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A minimal JSON reader: see trace_json.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textutil.h"
#include "trace_json.h"

#define TJ_DEPTH_MAX	32

struct rd {
	const char *s;
	size_t len, pos;
	char *err;
	size_t errlen;
	int failed;
};

static void rfail(struct rd *r, const char *what)
{
	if (!r->failed)
		snprintf(r->err, r->errlen, "JSON: %s at byte %zu", what,
			 r->pos);
	r->failed = 1;
}

static void blanks(struct rd *r)
{
	while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\n' ||
				   r->s[r->pos] == '\t' || r->s[r->pos] == '\r'))
		r->pos++;
}

static void tj_clear(struct tj *v)
{
	size_t i;

	if (v->type == TJ_ARR || v->type == TJ_OBJ) {
		for (i = 0; i < v->n; i++) {
			tj_clear(&v->v[i]);
			if (v->k)
				free(v->k[i]);
		}
		free(v->v);
		free(v->k);
	}
	free(v->s);
	memset(v, 0, sizeof(*v));
}

void tj_free(struct tj *v)
{
	if (!v)
		return;
	tj_clear(v);
	free(v);
}

static char *string(struct rd *r)
{
	char *out = malloc(r->len - r->pos + 1);
	size_t n = 0;

	if (!out) {
		rfail(r, "out of memory");
		return NULL;
	}
	r->pos++;	/* " */
	while (r->pos < r->len) {
		char c = r->s[r->pos++];

		if (c == '"') {
			out[n] = 0;
			return out;
		}
		if ((unsigned char)c < 0x20)
			break;
		if (c != '\\') {
			out[n++] = c;
			continue;
		}
		if (r->pos >= r->len)
			break;
		c = r->s[r->pos++];
		switch (c) {
		case '"': case '\\': case '/':
			out[n++] = c;
			break;
		case 'b': out[n++] = '\b'; break;
		case 'f': out[n++] = '\f'; break;
		case 'n': out[n++] = '\n'; break;
		case 'r': out[n++] = '\r'; break;
		case 't': out[n++] = '\t'; break;
		case 'u': {
			int i, v = 0, h;

			if (r->pos + 4 > r->len)
				goto bad;
			for (i = 0; i < 4; i++) {
				h = kb_hexval(r->s[r->pos + i]);
				if (h < 0)
					goto bad;
				v = v * 16 + h;
			}
			r->pos += 4;
			out[n++] = v < 0x80 ? (char)v : '?';
			break;
		}
		default:
			goto bad;
		}
	}
bad:
	free(out);
	rfail(r, "a bad string");
	return NULL;
}

static int value(struct rd *r, struct tj *v, int depth);

static int push(struct rd *r, struct tj *v, size_t *cap)
{
	if (v->n == *cap) {
		size_t c = *cap ? 2 * *cap : 8;
		struct tj *nv = realloc(v->v, c * sizeof(*nv));
		char **nk;

		if (!nv) {
			rfail(r, "out of memory");
			return -1;
		}
		v->v = nv;
		if (v->type == TJ_OBJ) {
			nk = realloc(v->k, c * sizeof(*nk));
			if (!nk) {
				rfail(r, "out of memory");
				return -1;
			}
			v->k = nk;
		}
		*cap = c;
	}
	memset(&v->v[v->n], 0, sizeof(v->v[v->n]));
	if (v->k)
		v->k[v->n] = NULL;
	v->n++;
	return 0;
}

static int container(struct rd *r, struct tj *v, int depth)
{
	char close = r->s[r->pos] == '{' ? '}' : ']';
	size_t cap = 0;

	v->type = close == '}' ? TJ_OBJ : TJ_ARR;
	if (depth >= TJ_DEPTH_MAX) {
		rfail(r, "nested too deep");
		return -1;
	}
	r->pos++;
	blanks(r);
	if (r->pos < r->len && r->s[r->pos] == close) {
		r->pos++;
		return 0;
	}
	for (;;) {
		if (push(r, v, &cap))
			return -1;
		blanks(r);
		if (v->type == TJ_OBJ) {
			if (r->pos >= r->len || r->s[r->pos] != '"') {
				rfail(r, "a key expected");
				return -1;
			}
			v->k[v->n - 1] = string(r);
			if (!v->k[v->n - 1])
				return -1;
			blanks(r);
			if (r->pos >= r->len || r->s[r->pos] != ':') {
				rfail(r, "':' expected");
				return -1;
			}
			r->pos++;
		}
		if (value(r, &v->v[v->n - 1], depth + 1))
			return -1;
		blanks(r);
		if (r->pos >= r->len) {
			rfail(r, "unexpected end");
			return -1;
		}
		if (r->s[r->pos] == ',') {
			r->pos++;
			continue;
		}
		if (r->s[r->pos] == close) {
			r->pos++;
			return 0;
		}
		rfail(r, "',' or a closing bracket expected");
		return -1;
	}
}

static int word(struct rd *r, const char *w)
{
	size_t n = strlen(w);

	if (r->len - r->pos < n || memcmp(r->s + r->pos, w, n)) {
		rfail(r, "an unknown word");
		return -1;
	}
	r->pos += n;
	return 0;
}

static int value(struct rd *r, struct tj *v, int depth)
{
	size_t start;
	char c;

	blanks(r);
	if (r->pos >= r->len) {
		rfail(r, "unexpected end");
		return -1;
	}
	c = r->s[r->pos];
	switch (c) {
	case '{':
	case '[':
		return container(r, v, depth);
	case '"':
		v->type = TJ_STR;
		v->s = string(r);
		return v->s ? 0 : -1;
	case 't':
		v->type = TJ_BOOL;
		v->b = true;
		return word(r, "true");
	case 'f':
		v->type = TJ_BOOL;
		return word(r, "false");
	case 'n':
		v->type = TJ_NULL;
		return word(r, "null");
	}
	if (c != '-' && (c < '0' || c > '9')) {
		rfail(r, "a value expected");
		return -1;
	}
	start = r->pos;
	while (r->pos < r->len && strchr("+-.eE0123456789", r->s[r->pos]))
		r->pos++;
	v->type = TJ_NUM;
	v->s = strndup(r->s + start, r->pos - start);
	if (!v->s) {
		rfail(r, "out of memory");
		return -1;
	}
	return 0;
}

struct tj *tj_parse(const char *s, size_t len, size_t *pos, char *err,
		    size_t errlen)
{
	struct rd r = { .s = s, .len = len, .pos = *pos, .err = err,
			.errlen = errlen };
	struct tj *v;

	if (errlen)
		err[0] = 0;
	blanks(&r);
	if (r.pos >= len) {
		*pos = r.pos;
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (value(&r, v, 0)) {
		tj_free(v);
		return NULL;
	}
	*pos = r.pos;
	return v;
}

const struct tj *tj_get(const struct tj *o, const char *key)
{
	size_t i;

	if (!o || o->type != TJ_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->k[i], key))
			return &o->v[i];
	return NULL;
}

int tj_u64(const struct tj *v, uint64_t *out)
{
	unsigned long long x;
	char *end;

	if (!v || v->type != TJ_NUM || v->s[0] < '0' || v->s[0] > '9')
		return -1;
	errno = 0;
	x = strtoull(v->s, &end, 10);
	if (errno || *end)
		return -1;
	*out = x;
	return 0;
}

const char *tj_str(const struct tj *o, const char *key)
{
	const struct tj *v = tj_get(o, key);

	return v && v->type == TJ_STR ? v->s : NULL;
}
