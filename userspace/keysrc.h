/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Where add, test, del and count take their keys from: the command line
 * (NAME [--] KEY...) or a file (NAME -f FILE, '-' for stdin), read one
 * line at a time so that a file of any size streams through a bounded
 * buffer. Lines lose their trailing "\n" and then one trailing "\r"; an
 * empty line is an error naming the line.
 *
 * Keys are KEYs (keyparse.h), or for a multi filter (keysrc_set_tuples)
 * TUPLEs, "dim=value,...", one per argument or line.
 */
#ifndef BLOOMCTL_KEYSRC_H
#define BLOOMCTL_KEYSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../kmod/uapi/kbloom.h"
#include "keyparse.h"

/* Longest line: "0x" and two hex digits a byte, then "\r". */
#define KEYSRC_LINE_MAX (2 + 2 * KBLOOM_KEY_MAX + 1)
/* Bytes read at a time: lines are found with memchr() in this buffer. */
#define KEYSRC_READ_BUF (64 * 1024)
/* Longest tuple line: every dimension, "name=0x..." and a comma each. */
#define KEYSRC_TUPLE_LINE_MAX \
	(KBLOOM_DIMS_MAX * (KBLOOM_DIM_NAME_MAX + 2 + 2 * KBLOOM_KEY_MAX + 1) + 1)

struct keysrc {
	/* command line */
	char **keys;
	int nkeys, next;
	/* file */
	int fd;			/* -1 when not open */
	const char *path;	/* as given; "-" is stdin */
	uint64_t line;
	char *rbuf;		/* KEYSRC_READ_BUF bytes read ahead */
	size_t rpos, rlen;	/* next line starts at rpos; rlen bytes in */
	bool eof;
	uint64_t bytes;		/* read from the file so far */
	/* tuples: the filter's dimensions, and whether all are needed */
	const struct kb_dims *dims;
	bool all_dims;
	/* the key being returned: key/keylen, or tuple for a multi filter */
	uint8_t key[KBLOOM_KEY_MAX];
	size_t keylen;
	struct kp_tuple tuple;
	const char *text;	/* as the user wrote it */
	size_t textlen;
};

/*
 * Parses "NAME -f FILE" or "NAME [--] KEY..." (argv[0] is the command).
 * Sets *name. Prints a usage error and returns -1 when malformed.
 */
int keysrc_init(struct keysrc *s, int argc, char **argv, const char **name);
bool keysrc_is_file(const struct keysrc *s);
/*
 * Keys are TUPLEs of these dimensions (@dims must outlive @s); @all: each
 * needs every dimension (add). Before keysrc_check_args().
 */
void keysrc_set_tuples(struct keysrc *s, const struct kb_dims *dims,
		       bool all);
/* Opens the file (no-op for the command line). Prints errors. */
int keysrc_open(struct keysrc *s);
/* Checks every command-line key before anything is sent. Prints errors. */
int keysrc_check_args(struct keysrc *s);
/*
 * 1: next key in s->key/keylen (or s->tuple), s->text/textlen; 0: end;
 * -1: error (printed).
 */
int keysrc_next(struct keysrc *s);
void keysrc_close(struct keysrc *s);

#endif
