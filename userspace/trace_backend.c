// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The backends of 'bloomctl trace' behind one tb_backend: see
 * trace_backend.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cardinality.h"
#include "trace_backend.h"
#include "util.h"

double trace_window_fpr(const struct kb_params *p, uint64_t fill)
{
	double f = card_fpr_now(p, fill);

	if (!(f >= 0))		/* NaN */
		return 1;
	return f > 1 ? 1 : f;
}

int trace_answer_alloc(struct tb_answer *a, uint32_t nwin, size_t n)
{
	a->nwin = nwin;
	a->row = (nwin + 7) / 8;
	a->win = calloc(nwin ? nwin : 1, sizeof(*a->win));
	a->hits = calloc(n * a->row + 1, 1);
	if (!a->win || !a->hits) {
		free(a->win);
		free(a->hits);
		a->win = NULL;
		a->hits = NULL;
		return -1;
	}
	return 0;
}

/*
 * A private directory for the control sockets: under $TMPDIR when its
 * name is short enough for a socket path (108 bytes with the 40 of %C),
 * else under /tmp.
 */
static char *make_ctl_dir(char *err, size_t errlen)
{
	const char *tmp = getenv("TMPDIR");
	char *d;

	if (!tmp || !*tmp || strlen(tmp) > 40)
		tmp = "/tmp";
	if (asprintf(&d, "%s/bloomctl-ssh.XXXXXX", tmp) < 0) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!mkdtemp(d)) {	/* mode 0700 */
		snprintf(err, errlen, "unable to make a directory for the ssh connections in %s: %s",
			 tmp, strerror(errno));
		free(d);
		return NULL;
	}
	return d;
}

int trace_backends_init(struct trace_backends *b, const struct kb_topo *t,
			const char *default_netns, bool reuse, char *err,
			size_t errlen)
{
	size_t i;

	memset(b, 0, sizeof(*b));
	b->t = t;
	b->default_netns = default_netns;
	b->state = calloc(t->n, sizeof(*b->state));
	b->ssh_calls = calloc(t->n, sizeof(*b->ssh_calls));
	if (!b->state || !b->ssh_calls) {
		free(b->state);
		free(b->ssh_calls);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (i = 0; reuse && i < t->n; i++)
		if (t->r[i].kind == KB_TOPO_SSH)
			break;
	if (reuse && i < t->n) {
		b->ctl_dir = make_ctl_dir(err, errlen);
		if (!b->ctl_dir) {
			free(b->state);
			free(b->ssh_calls);
			return -1;
		}
	}
	return 0;
}

/* Ends the masters and removes the directory (and what is left in it). */
static void remove_ctl_dir(struct trace_backends *b)
{
	struct dirent *e;
	size_t i;
	DIR *d;

	for (i = 0; i < b->t->n; i++)
		if (b->t->r[i].kind == KB_TOPO_SSH && b->ssh_calls[i])
			trace_ssh_close(&b->t->r[i], b->ctl_dir);
	d = opendir(b->ctl_dir);
	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	if (rmdir(b->ctl_dir))
		errorf("unable to remove %s: %s", b->ctl_dir,
		       strerror(errno));
	free(b->ctl_dir);
}

void trace_backends_free(struct trace_backends *b)
{
	size_t i;

	if (!b->state)
		return;
	if (b->ctl_dir)
		remove_ctl_dir(b);
	for (i = 0; i < b->t->n; i++) {
		if (!b->state[i])
			continue;
		if (b->t->r[i].kind == KB_TOPO_NETNS)
			trace_netns_free(b->state[i]);
		else if (b->t->r[i].kind == KB_TOPO_ARCHIVE)
			trace_archive_free(b->state[i]);
	}
	free(b->state);
	free(b->ssh_calls);
	memset(b, 0, sizeof(*b));
}

int trace_backends_ask(void *ctx, size_t r, const struct tb_item *items,
		       size_t n, struct tb_answer *a, char *err,
		       size_t errlen)
{
	struct trace_backends *b = ctx;
	const struct kb_topo_router *rt = &b->t->r[r];

	switch (rt->kind) {
	case KB_TOPO_NETNS:
		return trace_netns_ask(&b->state[r], rt, b->default_netns,
				       items, n, a, err, errlen);
	case KB_TOPO_ARCHIVE:
		return trace_archive_ask(&b->state[r], rt, items, n, a, err,
					 errlen);
	case KB_TOPO_SSH:
		b->ssh_calls[r]++;
		return trace_ssh_ask(rt, b->ctl_dir, b->timeout_ms, items, n, a,
				     err, errlen);
	case KB_TOPO_NONE:
		snprintf(err, errlen, "router %s records nothing", rt->name);
		return -1;
	}
	snprintf(err, errlen, "router %s: unknown kind", rt->name);
	return -1;
}
