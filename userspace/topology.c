// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The topology file of 'bloomctl trace': see topology.h and docs/trace.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology.h"

#define MAX_WORDS	32
#define NAME_MAX_LEN	(KB_TOPO_NAME_MAX - 1)
#define FILTER_MAX_LEN	31	/* KBLOOM_NAME_MAX - 1 */

struct parser {
	struct kb_topo *t;
	const char *path;
	char *dirname;		/* of path, with a trailing '/', or "" */
	unsigned int line;
	char *err;
	size_t errlen;
	/* links, resolved once every router is known */
	struct plink {
		char a[KB_TOPO_NAME_MAX], b[KB_TOPO_NAME_MAX];
		unsigned int line;
	} *links;
	size_t nlinks, caplinks;
};

static int fail(struct parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(p->err, p->errlen, "%s:%u: ", p->path, p->line);
	if (n < 0 || (size_t)n >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Printable, for quoting a word in a message: cut long ones. */
static const char *shown(const char *w)
{
	static __thread char buf[4][72];
	static int i;
	char *b = buf[i++ & 3];
	size_t j;

	for (j = 0; w[j] && j < 64; j++)
		b[j] = (w[j] >= 0x20 && w[j] < 0x7f) ? w[j] : '?';
	if (w[j])
		memcpy(b + j, "...", 4);
	else
		b[j] = 0;
	return b;
}

/* The @len bytes at @s are ASCII letters, digits or bytes of @more. */
static bool ascii_of(const char *s, size_t len, const char *more)
{
	size_t i;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || (c && strchr(more, c))))
			return false;
	}
	return true;
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	return n && n <= NAME_MAX_LEN && ascii_of(s, n, "_.-");
}

/* A filter name as the kernel takes it: printable, no space or '/'. */
static bool valid_filter(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n > FILTER_MAX_LEN || s[0] == '-')
		return false;
	for (i = 0; i < n; i++)
		if (s[i] <= 0x20 || s[i] >= 0x7f || s[i] == '/')
			return false;
	return true;
}

static bool valid_netns(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..") &&
	       strlen(s) < 256;
}

/*
 * An ssh destination [USER@]HOST as kbloom takes it: USER of letters,
 * digits, '.', '_', '-'; HOST a name, an IPv4 or an IPv6 address (with a
 * %zone): letters, digits, '.', '-', ':', '%', '_'; neither part empty
 * nor starting with '-' (so never an option), and nothing else: no
 * ssh:// URI, no spaces or shell or ssh-config syntax.
 */
static bool valid_ssh_part(const char *s, size_t len, const char *more)
{
	return len && s[0] != '-' && s[0] != '.' && ascii_of(s, len, more);
}

static bool valid_ssh_dest(const char *s)
{
	const char *at = strchr(s, '@');
	const char *host = at ? at + 1 : s;

	if (strlen(s) > 255 || (at && !valid_ssh_part(s, at - s, "._-")))
		return false;
	return valid_ssh_part(host, strlen(host), ".-:%_");
}

static size_t name_hash(const char *s)
{
	size_t h = 14695981039346656037ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Adds router @i to the name index, growing it at half full. 0 or -1. */
static int index_add(struct kb_topo *t, size_t i)
{
	size_t j, h;

	if (2 * (t->n + 1) > t->icap) {
		size_t cap = t->icap ? 2 * t->icap : 64, *ni, k;

		ni = calloc(cap, sizeof(*ni));
		if (!ni)
			return -1;
		for (k = 0; k < t->n; k++)
			if (k != i) {
				for (h = name_hash(t->r[k].name) & (cap - 1);
				     ni[h]; h = (h + 1) & (cap - 1))
					;
				ni[h] = k + 1;
			}
		free(t->index);
		t->index = ni;
		t->icap = cap;
	}
	for (j = name_hash(t->r[i].name) & (t->icap - 1); t->index[j];
	     j = (j + 1) & (t->icap - 1))
		;
	t->index[j] = i + 1;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* @w as a path: relative ones taken from the topology file's directory. */
static char *path_of(struct parser *p, const char *w)
{
	char *s;

	if (w[0] == '/' || !p->dirname[0])
		return strdup(w);
	s = malloc(strlen(p->dirname) + strlen(w) + 1);
	if (s) {
		strcpy(s, p->dirname);
		strcat(s, w);
	}
	return s;
}

static void router_free(struct kb_topo_router *r)
{
	free(r->filter);
	free(r->netns);
	free(r->dir);
	free(r->host);
	free(r->identity);
	free(r->config);
	free(r->transforms);
	free(r->bloomctl);
	free(r->nbr);
}

static int oom(struct parser *p)
{
	return fail(p, "out of memory");
}

enum { K_FILTER, K_TRANSFORMS, K_NETNS, K_PORT, K_IDENTITY, K_CONFIG,
       K_BLOOMCTL, K_NUM };
static const char *const kw_names[K_NUM] = {
	"filter", "transforms", "netns", "port", "identity", "config",
	"bloomctl",
};

static int parse_router(struct parser *p, char **w, int n)
{
	struct kb_topo *t = p->t;
	struct kb_topo_router r;
	const char *val[K_NUM] = { NULL };
	const char *kind, *where;
	int i, j;

	memset(&r, 0, sizeof(r));
	r.line = p->line;
	if (n < 2)
		return fail(p, "router: missing NAME (router NAME netns|archive|ssh WHERE filter FILTER)");
	if (!valid_name(w[1]))
		return fail(p, "invalid router name '%s': 1 to %d of A-Z a-z 0-9 _ . -",
			    shown(w[1]), NAME_MAX_LEN);
	if (kb_topo_find(t, w[1]) >= 0)
		return fail(p, "router '%s' declared twice (first on line %u)",
			    w[1], t->r[kb_topo_find(t, w[1])].line);
	if (n >= 3 && !strcmp(w[2], "none")) {
		if (n > 3)
			return fail(p, "router %s: 'none' (a router that records nothing) takes nothing after it, not '%s'",
				    w[1], shown(w[3]));
		strcpy(r.name, w[1]);
		r.kind = KB_TOPO_NONE;
		goto add;
	}
	if (n < 4)
		return fail(p, "router %s: missing %s (netns NETNS, archive DIR, ssh [USER@]HOST or none)",
			    w[1], n < 3 ? "where its tables are" : "its argument");
	kind = w[2];
	where = w[3];
	if (!strcmp(kind, "netns"))
		r.kind = KB_TOPO_NETNS;
	else if (!strcmp(kind, "archive"))
		r.kind = KB_TOPO_ARCHIVE;
	else if (!strcmp(kind, "ssh"))
		r.kind = KB_TOPO_SSH;
	else
		return fail(p, "router %s: unknown location '%s' (netns, archive, ssh or none)",
			    w[1], shown(kind));
	for (i = 4; i < n; i += 2) {
		for (j = 0; j < K_NUM; j++)
			if (!strcmp(w[i], kw_names[j]))
				break;
		if (j == K_NUM)
			return fail(p, "router %s: unknown keyword '%s'", w[1],
				    shown(w[i]));
		if (j != K_FILTER && j != K_TRANSFORMS &&
		    r.kind != KB_TOPO_SSH)
			return fail(p, "router %s: '%s' is for ssh routers only",
				    w[1], kw_names[j]);
		if (val[j])
			return fail(p, "router %s: '%s' given twice", w[1],
				    kw_names[j]);
		if (i + 1 >= n)
			return fail(p, "router %s: '%s' needs a value", w[1],
				    kw_names[j]);
		val[j] = w[i + 1];
	}
	if (!val[K_FILTER])
		return fail(p, "router %s: missing 'filter FILTER'", w[1]);
	if (!valid_filter(val[K_FILTER]))
		return fail(p, "router %s: invalid filter name '%s'", w[1],
			    shown(val[K_FILTER]));
	if (val[K_TRANSFORMS] && !valid_filter(val[K_TRANSFORMS]))
		return fail(p, "router %s: invalid transforms table name '%s'",
			    w[1], shown(val[K_TRANSFORMS]));
	strcpy(r.name, w[1]);

	switch (r.kind) {
	case KB_TOPO_NETNS:
		if (strcmp(where, "-") && !valid_netns(where))
			return fail(p, "router %s: invalid network namespace '%s'",
				    w[1], shown(where));
		r.netns = strcmp(where, "-") ? strdup(where) : NULL;
		if (strcmp(where, "-") && !r.netns)
			return oom(p);
		break;
	case KB_TOPO_ARCHIVE:
		r.dir = path_of(p, where);
		if (!r.dir)
			return oom(p);
		break;
	case KB_TOPO_SSH:
		if (!valid_ssh_dest(where))
			return fail(p, "router %s: invalid ssh destination '%s' ([USER@]HOST: letters, digits and . _ - in USER; . - : %% _ in HOST)",
				    w[1], shown(where));
		if (val[K_NETNS] && !valid_netns(val[K_NETNS]))
			return fail(p, "router %s: invalid network namespace '%s'",
				    w[1], shown(val[K_NETNS]));
		if (val[K_PORT]) {
			char *end;
			unsigned long port;

			errno = 0;
			port = strtoul(val[K_PORT], &end, 10);
			if (val[K_PORT][0] < '0' || val[K_PORT][0] > '9' ||
			    *end || errno || !port || port > 65535)
				return fail(p, "router %s: invalid port '%s' (1 to 65535)",
					    w[1], shown(val[K_PORT]));
			r.port = port;
		}
		r.host = strdup(where);
		r.netns = dup_or_null(val[K_NETNS]);
		r.identity = val[K_IDENTITY] ? path_of(p, val[K_IDENTITY]) : NULL;
		r.config = val[K_CONFIG] ? path_of(p, val[K_CONFIG]) : NULL;
		r.bloomctl = strdup(val[K_BLOOMCTL] ? val[K_BLOOMCTL] :
				    "bloomctl");
		if (!r.host || !r.bloomctl ||
		    (val[K_NETNS] && !r.netns) ||
		    (val[K_IDENTITY] && !r.identity) ||
		    (val[K_CONFIG] && !r.config)) {
			router_free(&r);
			return oom(p);
		}
		break;
	case KB_TOPO_NONE:
		break;
	}
	r.filter = strdup(val[K_FILTER]);
	r.transforms = dup_or_null(val[K_TRANSFORMS]);
	if (!r.filter || (val[K_TRANSFORMS] && !r.transforms)) {
		router_free(&r);
		return oom(p);
	}
add:
	if (!(t->n & (t->n + 1)) || !t->n) {
		/* grow at 0, 1, 3, 7, ...: capacity 2^k */
		void *nr = realloc(t->r, (2 * t->n + 1) * sizeof(*t->r));

		if (!nr) {
			router_free(&r);
			return oom(p);
		}
		t->r = nr;
	}
	t->r[t->n] = r;
	if (index_add(t, t->n)) {
		router_free(&r);
		return oom(p);
	}
	t->n++;
	return 0;
}

static int parse_link(struct parser *p, char **w, int n)
{
	struct plink *l;

	if (n != 3)
		return fail(p, "link: %s (link NAME NAME)",
			    n < 3 ? "needs two router names" :
			    "too many words");
	if (!valid_name(w[1]) || !valid_name(w[2]))
		return fail(p, "link: invalid router name '%s'",
			    shown(valid_name(w[1]) ? w[2] : w[1]));
	if (!strcmp(w[1], w[2]))
		return fail(p, "link: a router linked to itself ('%s')", w[1]);
	if (p->nlinks == p->caplinks) {
		size_t cap = p->caplinks ? 2 * p->caplinks : 16;
		void *nl = realloc(p->links, cap * sizeof(*p->links));

		if (!nl)
			return oom(p);
		p->links = nl;
		p->caplinks = cap;
	}
	l = &p->links[p->nlinks++];
	strcpy(l->a, w[1]);
	strcpy(l->b, w[2]);
	l->line = p->line;
	return 0;
}

static int add_nbr(struct kb_topo_router *r, size_t i)
{
	if (!(r->nnbr & (r->nnbr - 1))) {
		/* at 0, 1, 2, 4, ...: capacity doubles */
		size_t *n = realloc(r->nbr, (r->nnbr ? 2 * r->nnbr : 1) *
				    sizeof(*n));

		if (!n)
			return -1;
		r->nbr = n;
	}
	r->nbr[r->nnbr++] = i;
	return 0;
}

/* A link by its routers' indices, lower first, then its place. */
struct rlink {
	size_t a, b, i;
};

static int by_pair(const void *x, const void *y)
{
	const struct rlink *l = x, *m = y;

	if (l->a != m->a)
		return l->a < m->a ? -1 : 1;
	if (l->b != m->b)
		return l->b < m->b ? -1 : 1;
	return l->i < m->i ? -1 : l->i > m->i;
}

/*
 * Resolves the links: names to indices, a link given twice found by
 * sorting (the first one repeated, in file order, is the error), then the
 * neighbour lists in link order. O(L log L) for L links.
 */
static int resolve_links(struct parser *p)
{
	struct kb_topo *t = p->t;
	struct rlink *rl;
	size_t i, dup = SIZE_MAX, first = 0;
	long a, b;

	rl = calloc(p->nlinks ? p->nlinks : 1, sizeof(*rl));
	if (!rl)
		return oom(p);
	for (i = 0; i < p->nlinks; i++) {
		struct plink *l = &p->links[i];

		p->line = l->line;
		a = kb_topo_find(t, l->a);
		b = kb_topo_find(t, l->b);
		if (a < 0 || b < 0) {
			free(rl);
			return fail(p, "link: no router '%s' in this file",
				    a < 0 ? l->a : l->b);
		}
		rl[i].a = a < b ? a : b;
		rl[i].b = a < b ? b : a;
		rl[i].i = i;
	}
	qsort(rl, p->nlinks, sizeof(*rl), by_pair);
	for (i = 1; i < p->nlinks; i++)
		if (rl[i].a == rl[i - 1].a && rl[i].b == rl[i - 1].b &&
		    rl[i].i < dup) {
			size_t k = i;

			while (k > 0 && rl[k - 1].a == rl[i].a &&
			       rl[k - 1].b == rl[i].b)
				k--;
			dup = rl[i].i;
			first = rl[k].i;
		}
	free(rl);
	if (dup != SIZE_MAX) {
		struct plink *l = &p->links[dup];

		p->line = l->line;
		return fail(p, "link %s %s given twice (first on line %u)",
			    l->a, l->b, p->links[first].line);
	}
	for (i = 0; i < p->nlinks; i++) {
		struct plink *l = &p->links[i];

		a = kb_topo_find(t, l->a);
		b = kb_topo_find(t, l->b);
		if (add_nbr(&t->r[a], b) || add_nbr(&t->r[b], a))
			return oom(p);
		t->nlinks++;
	}
	return 0;
}

/* Splits @s (modified) into words; a '#' ends the line. */
static int split(char *s, char **w)
{
	int n = 0;
	char *c;

	c = strchr(s, '#');
	if (c)
		*c = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' ||
		       *s == '\f')
			s++;
		if (!*s)
			return n;
		if (n == MAX_WORDS)
			return -1;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r' &&
		       *s != '\v' && *s != '\f')
			s++;
		if (*s)
			*s++ = 0;
	}
}

int kb_topo_parse(const char *text, const char *path, struct kb_topo *t,
		  char *err, size_t errlen)
{
	struct parser p = {
		.t = t, .path = path, .err = err, .errlen = errlen,
	};
	const char *s = text, *nl, *slash;
	char *line = NULL, *w[MAX_WORDS];
	int n, r = -1;

	memset(t, 0, sizeof(*t));
	t->path = strdup(path);
	slash = strrchr(path, '/');
	p.dirname = strndup(path, slash ? (size_t)(slash - path + 1) : 0);
	if (!t->path || !p.dirname) {
		fail(&p, "out of memory");
		goto out;
	}
	while (*s) {
		size_t len;

		p.line++;
		nl = strchr(s, '\n');
		len = nl ? (size_t)(nl - s) : strlen(s);
		free(line);
		line = strndup(s, len);
		if (!line) {
			oom(&p);
			goto out;
		}
		s += len + (nl ? 1 : 0);
		n = split(line, w);
		if (n < 0) {
			fail(&p, "more than %d words", MAX_WORDS);
			goto out;
		}
		if (!n)
			continue;
		if (!strcmp(w[0], "router")) {
			if (parse_router(&p, w, n))
				goto out;
		} else if (!strcmp(w[0], "link")) {
			if (parse_link(&p, w, n))
				goto out;
		} else {
			fail(&p, "unknown statement '%s' (router or link)",
			     shown(w[0]));
			goto out;
		}
	}
	if (!t->n) {
		snprintf(err, errlen, "%s: no router in the file", path);
		goto out;
	}
	if (resolve_links(&p))
		goto out;
	r = 0;
out:
	free(line);
	free(p.links);
	free(p.dirname);
	if (r)
		kb_topo_free(t);
	return r;
}

int kb_topo_load(const char *path, struct kb_topo *t, char *err,
		 size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0, cap = 0, got;
	int r;

	memset(t, 0, sizeof(*t));
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (cap - len < 4096) {
			char *nt;

			cap = cap ? 2 * cap : 8192;
			if (cap > (64 << 20)) {
				snprintf(err, errlen, "%s: larger than 64 MiB",
					 path);
				goto fail;
			}
			nt = realloc(text, cap);
			if (!nt) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			text = nt;
		}
		got = fread(text + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto fail;
	}
	fclose(f);
	text[len] = 0;
	if (strlen(text) != len) {
		/* A NUL byte: name its line. */
		unsigned int line = 1;
		size_t i;

		for (i = 0; text[i]; i++)
			line += text[i] == '\n';
		snprintf(err, errlen, "%s:%u: a NUL byte in the line", path,
			 line);
		free(text);
		return -1;
	}
	r = kb_topo_parse(text, path, t, err, errlen);
	free(text);
	return r;
fail:
	fclose(f);
	free(text);
	return -1;
}

void kb_topo_free(struct kb_topo *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		router_free(&t->r[i]);
	free(t->r);
	free(t->path);
	free(t->index);
	memset(t, 0, sizeof(*t));
}

long kb_topo_find(const struct kb_topo *t, const char *name)
{
	size_t j;

	if (!t->icap)
		return -1;
	for (j = name_hash(name) & (t->icap - 1); t->index[j];
	     j = (j + 1) & (t->icap - 1))
		if (!strcmp(t->r[t->index[j] - 1].name, name))
			return (long)(t->index[j] - 1);
	return -1;
}

const char *kb_topo_where(const struct kb_topo_router *r, char *buf,
			  size_t len)
{
	switch (r->kind) {
	case KB_TOPO_NETNS:
		snprintf(buf, len, "netns %s", r->netns ? r->netns : "-");
		break;
	case KB_TOPO_ARCHIVE:
		snprintf(buf, len, "archive %s", r->dir);
		break;
	case KB_TOPO_SSH:
		snprintf(buf, len, "ssh %s", r->host);
		break;
	case KB_TOPO_NONE:
		snprintf(buf, len, "none");
		break;
	}
	return buf;
}
