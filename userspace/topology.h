/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The topology file of 'bloomctl trace' (docs/trace.md): routers, where
 * each one's digest tables are, and who is next to whom.
 *
 *   router NAME netns NETNS filter FILTER [transforms TABLE]
 *   router NAME archive DIR filter FILTER [transforms TABLE]
 *   router NAME ssh [USER@]HOST filter FILTER [netns NETNS] [port N]
 *               [identity FILE] [config FILE] [bloomctl PATH]
 *   router NAME none              a router that records nothing (no kbloom):
 *                                 the walk steps over it to its neighbours
 *   link NAME NAME
 *
 * One statement a line, '#' to the end of the line is a comment, words are
 * separated by blanks. Router names are [A-Za-z0-9_.-]{1,31}; the keywords
 * after the location come in any order, each at most once. Relative
 * paths (archive DIR, identity FILE, config FILE) are taken relative to
 * the topology file's directory. Links are undirected; a link may name a
 * router declared further down.
 *
 * Pure parsing, no output: errors are one line "FILE:LINE: WHY" in the
 * caller's buffer. Unit-tested on the host (topology_test).
 */
#ifndef BLOOMCTL_TOPOLOGY_H
#define BLOOMCTL_TOPOLOGY_H

#include <stddef.h>

#define KB_TOPO_NAME_MAX	32	/* bytes of a router name, NUL included */

enum kb_topo_kind {
	KB_TOPO_NETNS,		/* tables in a network namespace here */
	KB_TOPO_ARCHIVE,	/* windows written by 'bloomctl archive' */
	KB_TOPO_SSH,		/* a remote router, bloomctl run over ssh */
	KB_TOPO_NONE,		/* records nothing: never asked */
};

struct kb_topo_router {
	char name[KB_TOPO_NAME_MAX];
	enum kb_topo_kind kind;
	char *filter;		/* NULL for KB_TOPO_NONE */
	char *transforms;	/* its transforms table, or NULL */
	char *netns;		/* netns (NULL for '-'); ssh: its netns option */
	char *dir;		/* archive */
	char *host;		/* ssh: [USER@]HOST */
	char *identity;		/* ssh: -i FILE, or NULL */
	char *config;		/* ssh: -F FILE, or NULL */
	char *bloomctl;		/* ssh: the remote bloomctl, default "bloomctl" */
	unsigned int port;	/* ssh: -p N, 0 when not given */
	unsigned int line;	/* where it was declared */
	size_t *nbr;		/* neighbours (indices), in link order */
	size_t nnbr;
};

struct kb_topo {
	char *path;		/* as given, for messages */
	struct kb_topo_router *r;
	size_t n;
	size_t nlinks;
	size_t *index;		/* open addressing on the names: router + 1 */
	size_t icap;		/* slots of index, a power of 2 (0: none) */
};

/*
 * Parses @text (the contents of @path; @path is used for messages and to
 * resolve relative paths). 0, or -1 with "PATH:LINE: WHY" in @err and
 * nothing allocated.
 */
int kb_topo_parse(const char *text, const char *path, struct kb_topo *t,
		  char *err, size_t errlen);

/* Reads and parses file @path. 0, or -1 with one line in @err. */
int kb_topo_load(const char *path, struct kb_topo *t, char *err,
		 size_t errlen);

void kb_topo_free(struct kb_topo *t);

/* The index of router @name, or -1 (a hash lookup). */
long kb_topo_find(const struct kb_topo *t, const char *name);

/*
 * "netns NS", "archive DIR", "ssh HOST", "none": where a router's tables
 * are.
 */
const char *kb_topo_where(const struct kb_topo_router *r, char *buf,
			  size_t len);

#endif
