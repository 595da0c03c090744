// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <string.h>

#include "commands.h"
#include "keyparse.h"
#include "keysrc.h"
#include "util.h"

int keysrc_init(struct keysrc *s, int argc, char **argv, const char **name)
{
	int i = 2;

	memset(s, 0, sizeof(*s));
	if (argc < 2) {
		usage_errorf(argv[0], "missing filter NAME");
		return -1;
	}
	*name = argv[1];
	if (argc > 2 && !strcmp(argv[2], "-f")) {
		if (argc < 4) {
			usage_errorf(argv[0], "-f needs a FILE ('-' for stdin)");
			return -1;
		}
		if (argc > 4) {
			usage_errorf(argv[0],
				     "unexpected argument '%s' after -f FILE",
				     quote(argv[4]));
			return -1;
		}
		s->path = argv[3];
		return 0;
	}
	if (argc > 2 && !strcmp(argv[2], "--"))
		i++;
	if (i >= argc) {
		usage_errorf(argv[0], "no keys given");
		return -1;
	}
	s->keys = argv + i;
	s->nkeys = argc - i;
	return 0;
}

bool keysrc_is_file(const struct keysrc *s)
{
	return s->path != NULL;
}

void keysrc_set_tuples(struct keysrc *s, const struct kb_dims *dims,
		       bool all)
{
	s->dims = dims;
	s->all_dims = all;
}

/*
 * Decodes @len bytes of @text into s->key or s->tuple. On error prints
 * "invalid key @where'TEXT': WHY" and returns -1.
 */
static int decode(struct keysrc *s, const char *text, size_t len,
		  const char *where)
{
	size_t bad = 0;

	if (s->dims) {
		struct tp_fail f;

		if (tuple_parse(text, len, s->dims, s->all_dims, &s->tuple,
				&f)) {
			errorf("invalid key %s'%s': %s", where,
			       quote_mem(text, len),
			       tp_strerror(&f, text, s->dims));
			return -1;
		}
	} else {
		enum kp_error e = key_parse(text, len, s->key, &s->keylen,
					    &bad);

		if (e) {
			errorf("invalid key %s'%s': %s", where,
			       quote_mem(text, len), kp_strerror(e, text, bad));
			return -1;
		}
	}
	s->text = text;
	s->textlen = len;
	return 0;
}

static const char *src_name(const struct keysrc *s)
{
	return strcmp(s->path, "-") ? quote(s->path) : "stdin";
}

int keysrc_open(struct keysrc *s)
{
	if (!s->path)
		return 0;
	if (!strcmp(s->path, "-")) {
		s->f = stdin;
		return 0;
	}
	s->f = fopen(s->path, "r");
	if (!s->f) {
		errorf("unable to open key file '%s': %s", quote(s->path),
		       strerror(errno));
		return -1;
	}
	return 0;
}

static int parse_arg(struct keysrc *s, const char *arg)
{
	return decode(s, arg, strlen(arg), "");
}

int keysrc_check_args(struct keysrc *s)
{
	int i;

	for (i = 0; i < s->nkeys; i++)
		if (parse_arg(s, s->keys[i]))
			return -1;
	return 0;
}

/* Reads one line into s->buf without its "\n"; 1, 0 at EOF, -1 error. */
static int read_line(struct keysrc *s, size_t *len)
{
	size_t n = 0, max = s->dims ? KEYSRC_TUPLE_LINE_MAX : KEYSRC_LINE_MAX;
	int c;

	while ((c = getc_unlocked(s->f)) != EOF && c != '\n') {
		if (n == max) {
			if (s->dims)
				errorf("invalid key at %s:%llu '%s': longer than %zu bytes",
				       src_name(s),
				       (unsigned long long)s->line + 1,
				       quote_mem(s->buf, n), max);
			else
				errorf("invalid key at %s:%llu '%s': longer than %d bytes",
				       src_name(s),
				       (unsigned long long)s->line + 1,
				       quote_mem(s->buf, n), KBLOOM_KEY_MAX);
			return -1;
		}
		s->buf[n++] = c;
	}
	if (ferror(s->f)) {
		errorf("unable to read key file '%s': %s", quote(s->path),
		       strerror(errno));
		return -1;
	}
	if (c == EOF && !n)
		return 0;
	s->line++;
	*len = n;
	return 1;
}

int keysrc_next(struct keysrc *s)
{
	char where[128];
	size_t len;
	int r;

	if (!s->path) {
		if (s->next >= s->nkeys)
			return 0;
		return parse_arg(s, s->keys[s->next++]) ? -1 : 1;
	}
	r = read_line(s, &len);
	if (r <= 0)
		return r;
	if (len && s->buf[len - 1] == '\r')
		len--;
	if (!len) {
		errorf("invalid key at %s:%llu: empty line", src_name(s),
		       (unsigned long long)s->line);
		return -1;
	}
	snprintf(where, sizeof(where), "at %s:%llu ", src_name(s),
		 (unsigned long long)s->line);
	return decode(s, s->buf, len, where) ? -1 : 1;
}

void keysrc_close(struct keysrc *s)
{
	if (s->f && s->f != stdin)
		fclose(s->f);
	s->f = NULL;
}
