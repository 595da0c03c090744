// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "keyparse.h"
#include "keysrc.h"
#include "util.h"

_Static_assert(KEYSRC_TUPLE_LINE_MAX + 1 <= KEYSRC_READ_BUF,
	       "a longest line and its newline fit the read buffer");

int keysrc_init(struct keysrc *s, int argc, char **argv, const char **name)
{
	int i = 2;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
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
	if (argc > 2 && !strcmp(argv[2], "--")) {
		i++;
	} else {
		/*
		 * A mistyped option (--file, -F) must not become a key: a
		 * bloom filter cannot take it back. Keys that start with
		 * '-' come after '--', or in hex.
		 */
		int j = i;

		while (j < argc && argv[j][0] != '-')
			j++;
		if (j < argc) {
			usage_errorf(argv[0],
				     "'%s' looks like an option, not a key (keys starting with '-' go after '--', or in hex: 0x2d...)",
				     quote(argv[j]));
			return -1;
		}
	}
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

static const char *src_name(const struct keysrc *s)
{
	return strcmp(s->path, "-") ? quote(s->path) : "stdin";
}

/* "at FILE:LINE " for a key read from a file, else "". */
static const char *where(const struct keysrc *s)
{
	static __thread char buf[128];

	if (!s->path)
		return "";
	snprintf(buf, sizeof(buf), "at %s:%llu ", src_name(s),
		 (unsigned long long)s->line);
	return buf;
}

/*
 * Decodes @len bytes of @text into s->key or s->tuple. On error prints
 * "invalid key [at FILE:LINE ]'TEXT': WHY" (the place when the key came
 * from a file; formatted only then, as it costs more than the decode)
 * and returns -1.
 */
static int decode(struct keysrc *s, const char *text, size_t len)
{
	size_t bad = 0;

	if (s->dims) {
		struct tp_fail f;

		if (tuple_parse(text, len, s->dims, s->all_dims, &s->tuple,
				&f)) {
			errorf("invalid key %s'%s': %s", where(s),
			       quote_mem(text, len),
			       tp_strerror(&f, text, s->dims));
			return -1;
		}
	} else {
		enum kp_error e = key_parse(text, len, s->key, &s->keylen,
					    &bad);

		if (e) {
			errorf("invalid key %s'%s': %s", where(s),
			       quote_mem(text, len), kp_strerror(e, text, bad));
			return -1;
		}
	}
	s->text = text;
	s->textlen = len;
	return 0;
}

int keysrc_open(struct keysrc *s)
{
	if (!s->path)
		return 0;
	if (!strcmp(s->path, "-")) {
		s->fd = STDIN_FILENO;
	} else {
		s->fd = open(s->path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0) {
			errorf("unable to open key file '%s': %s",
			       quote(s->path), strerror(errno));
			return -1;
		}
	}
	s->rbuf = xrealloc(NULL, KEYSRC_READ_BUF);
	return 0;
}

static int parse_arg(struct keysrc *s, const char *arg)
{
	return decode(s, arg, strlen(arg));
}

int keysrc_check_args(struct keysrc *s)
{
	int i;

	for (i = 0; i < s->nkeys; i++)
		if (parse_arg(s, s->keys[i]))
			return -1;
	return 0;
}

/*
 * The next line, without its "\n", in place in s->rbuf: 1 with *line and
 * *len set, 0 at end of file, -1 on error (printed). read(2) returns what
 * a pipe has, so keys stream through as they come.
 */
static int read_line(struct keysrc *s, char **line, size_t *len)
{
	size_t max = s->dims ? KEYSRC_TUPLE_LINE_MAX : KEYSRC_LINE_MAX;
	size_t avail;
	char *start, *nl;
	ssize_t got;

	for (;;) {
		start = s->rbuf + s->rpos;
		avail = s->rlen - s->rpos;
		nl = memchr(start, '\n', avail > max ? max + 1 : avail);
		if (nl) {
			*len = nl - start;
			s->rpos += *len + 1;
			break;
		}
		if (avail > max) {
			if (s->dims)
				errorf("invalid key at %s:%llu '%s': longer than %zu bytes",
				       src_name(s),
				       (unsigned long long)s->line + 1,
				       quote_mem(start, max), max);
			else
				errorf("invalid key at %s:%llu '%s': longer than %d bytes",
				       src_name(s),
				       (unsigned long long)s->line + 1,
				       quote_mem(start, max), KBLOOM_KEY_MAX);
			return -1;
		}
		if (s->eof) {
			if (!avail)
				return 0;
			*len = avail;	/* the last line has no "\n" */
			s->rpos = s->rlen;
			break;
		}
		memmove(s->rbuf, start, avail);
		s->rpos = 0;
		s->rlen = avail;
		do {
			got = read(s->fd, s->rbuf + avail,
				   KEYSRC_READ_BUF - avail);
		} while (got < 0 && errno == EINTR);
		if (got < 0) {
			errorf("unable to read key file '%s': %s",
			       quote(s->path), strerror(errno));
			return -1;
		}
		if (!got)
			s->eof = true;
		s->rlen += got;
		s->bytes += got;
	}
	s->line++;
	*line = start;
	return 1;
}

int keysrc_next(struct keysrc *s)
{
	char *line;
	size_t len;
	int r;

	if (!s->path) {
		if (s->next >= s->nkeys)
			return 0;
		return parse_arg(s, s->keys[s->next++]) ? -1 : 1;
	}
	r = read_line(s, &line, &len);
	if (r <= 0)
		return r;
	if (len && line[len - 1] == '\r')
		len--;
	if (!len) {
		errorf("invalid key at %s:%llu: empty line", src_name(s),
		       (unsigned long long)s->line);
		return -1;
	}
	return decode(s, line, len) ? -1 : 1;
}

void keysrc_close(struct keysrc *s)
{
	if (s->fd > STDIN_FILENO)
		close(s->fd);
	s->fd = -1;
	free(s->rbuf);
	s->rbuf = NULL;
}
