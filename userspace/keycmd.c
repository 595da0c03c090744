// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "keycmd.h"
#include "mapview.h"
#include "progress.h"
#include "types.h"
#include "util.h"

/* Keys tested through a mapping at a time (their misses overlap). */
#define MAPPED_BATCH 64

static const char *verb_of(uint8_t cmd)
{
	switch (cmd) {
	case KBLOOM_CMD_ADD:
		return "add";
	case KBLOOM_CMD_DEL:
		return "delete";
	case KBLOOM_CMD_COUNT:
		return "count";
	}
	return "test";
}

static const char *prep_of(uint8_t cmd)
{
	return cmd == KBLOOM_CMD_ADD ? "to" : cmd == KBLOOM_CMD_DEL ? "from" :
	       "in";
}

/* del and count: only for the types with counters. */
static int check_type(const struct keycmd *kc)
{
	const struct kb_shape *p = &kc->desc.p;

	switch (kc->cmd) {
	case KBLOOM_CMD_DEL:
		/* Conservative update refuses deletes (engine: may_delete). */
		if ((kb_utype_caps(p->type) & KB_CAP_DELETE) &&
		    p->update == KBLOOM_UPDATE_PLAIN)
			return 0;
		errorf("unable to delete keys from filter '%s': del needs a counting (plain update), dleft or dcf filter, '%s' is %s%s",
		       quote(kc->name), quote(kc->name),
		       kb_type_str(p->type),
		       kb_utype_caps(p->type) & KB_CAP_DELETE ?
		       " with conservative update (a delete could create a false negative)" :
		       "");
		return -1;
	case KBLOOM_CMD_COUNT:
		if (kb_type_counts(p->type))
			return 0;
		errorf("unable to count keys in filter '%s': count needs a counting, dleft or dcf filter, '%s' is %s",
		       quote(kc->name), quote(kc->name),
		       kb_type_str(p->type));
		return -1;
	}
	return 0;
}

int keycmd_open(struct keycmd *kc, uint8_t cmd, int argc, char **argv)
{
	memset(kc, 0, sizeof(*kc));
	kc->cmd = cmd;
	if (keysrc_init(&kc->src, argc, argv, &kc->name))
		return -1;
	if (!check_name(kc->name))
		return -1;
	if (open_netlink(&kc->nl))
		return -1;
	kc->nl_open = true;
	if (kb_desc_get(&kc->nl, kc->name, &kc->desc)) {
		kb_nl_perror(&kc->nl, "unable to %s keys %s filter '%s'",
			     verb_of(cmd), prep_of(cmd), quote(kc->name));
		return -1;
	}
	if (check_type(kc))
		return -1;
	if (kb_utype_tuples(kc->desc.p.type))
		keysrc_set_tuples(&kc->src, &kc->desc.dims,
				  cmd == KBLOOM_CMD_ADD);
	if (keysrc_check_args(&kc->src) || keysrc_open(&kc->src))
		return -1;
	return 0;
}

/* The labels and hashes of a batch of keys tested through a mapping. */
struct mapped_batch {
	struct kb_hash h[MAPPED_BATCH];
	bool present[MAPPED_BATCH];
	size_t off[MAPPED_BATCH + 1];	/* into text */
	char *text;
	size_t cap;
	uint32_t n;
	uint64_t queries, positives;
};

static int mapped_flush(struct keycmd *kc, struct kb_mapview *v,
			struct mapped_batch *b, kb_result_fn fn, void *arg)
{
	uint32_t i;
	int r;

	if (!b->n)
		return 0;
	if (kb_mapview_test(v, b->h, b->n, b->present)) {
		errorf("unable to test keys in filter '%s': %s",
		       quote(kc->name), errno == ENOENT ?
		       "it was destroyed during the test" : strerror(errno));
		return -1;
	}
	for (i = 0; i < b->n; i++) {
		r = fn(arg, b->text + b->off[i], b->off[i + 1] - b->off[i],
		       b->present[i]);
		if (r) {
			errorf("unable to test keys in filter '%s': %s",
			       quote(kc->name), strerror(-r));
			return -1;
		}
		b->queries++;
		b->positives += b->present[i];
	}
	b->n = 0;
	b->off[0] = 0;
	return 0;
}

/*
 * TEST through a mapping of the filter (mapview.h): keys hashed here and
 * tested MAPPED_BATCH at a time, answers in order as over netlink, and the
 * lookups added to the filter's STATS at the end, as TEST counts them.
 */
static int keycmd_run_mapped(struct keycmd *kc, struct kb_mapview *v,
			     kb_result_fn fn, void *arg, struct progress *prog)
{
	const struct kb_filter *f = kb_mapview_shape(v);
	struct mapped_batch b = { 0 };
	struct keysrc *src = &kc->src;
	uint64_t n = 0;
	int r, ret = -1;

	while ((r = keysrc_next(src)) > 0) {
		size_t end = b.off[b.n] + src->textlen;

		if (end > b.cap) {
			char *t = realloc(b.text, end * 2);

			if (!t) {
				errorf("out of memory");
				goto out;
			}
			b.text = t;
			b.cap = end * 2;
		}
		memcpy(b.text + b.off[b.n], src->text, src->textlen);
		kb_filter_hash(f, src->key, src->keylen, &b.h[b.n]);
		b.off[++b.n] = end;
		if (b.n == MAPPED_BATCH && mapped_flush(kc, v, &b, fn, arg))
			goto out;
		progress_update(prog, ++n, src->bytes);
	}
	/* A bad line (printed): the keys before it are answered, as batches are. */
	if (mapped_flush(kc, v, &b, fn, arg) || r < 0)
		goto out;
	ret = 0;
out:
	/* A filter destroyed since has no STATS left to count into. */
	if (b.queries && kb_mapview_count(v, b.queries, b.positives) &&
	    errno != ENOENT && !ret) {
		errorf("unable to count the lookups in filter '%s': %s",
		       quote(kc->name), strerror(errno));
		ret = -1;
	}
	free(b.text);
	return ret;
}

/*
 * TEST of a file of single keys reads a mapping of the filter where it
 * can. Not for keys on the command line: a mapping inserts every page of
 * every window, which a few keys do not repay.
 */
static bool keycmd_map(struct keycmd *kc, struct kb_mapview *v)
{
	const char *no = getenv("KBLOOM_NO_MAP");

	if (kc->cmd != KBLOOM_CMD_TEST || !keysrc_is_file(&kc->src) ||
	    kb_utype_tuples(kc->desc.p.type) ||
	    (no && *no && strcmp(no, "0")))
		return false;
	return !kb_mapview_open(v, kc->name);
}

int keycmd_run(struct keycmd *kc, kb_result_fn fn, void *arg)
{
	struct keybatch *b = &kc->batch;
	bool multi = kb_utype_tuples(kc->desc.p.type);
	struct keysrc *src = &kc->src;
	struct progress prog = { 0 };
	uint64_t total = 0, n = 0;
	struct kb_mapview v;
	struct stat st;
	int r, ret = -1;
	bool mapped = keycmd_map(kc, &v);

	keybatch_init(b, &kc->nl, kc->cmd, kc->name, fn, arg);
	kc->batch_init = true;
	if (keysrc_is_file(src)) {
		if (!mapped)
			keybatch_pipeline(b);
		if (!fstat(src->fd, &st) && S_ISREG(st.st_mode))
			total = st.st_size;
		/* test and count print per key: not beside that on a tty */
		progress_start(&prog, fn != NULL, total, "keys", "%s '%s'",
			       verb_of(kc->cmd), kc->name);
	}
	if (mapped) {
		ret = keycmd_run_mapped(kc, &v, fn, arg, &prog);
		kb_mapview_close(&v);
		goto out;
	}
	while ((r = keysrc_next(src)) > 0) {
		if (multi)
			r = keybatch_add_tuple(b, &src->tuple, src->text,
					       src->textlen);
		else
			r = keybatch_add(b, src->key, src->keylen, src->text,
					 src->textlen);
		if (r) {
			keybatch_perror(b, verb_of(kc->cmd));
			goto out;
		}
		progress_update(&prog, ++n, src->bytes);
	}
	if (r < 0) {
		/*
		 * Printed. The keys before the bad line are sent too, so a
		 * file stops at one place: every key before it done, none
		 * after (or the failed message's error says which was not).
		 */
		if (keybatch_flush(b))
			keybatch_perror(b, verb_of(kc->cmd));
		goto out;
	}
	if (keybatch_flush(b)) {
		keybatch_perror(b, verb_of(kc->cmd));
		goto out;
	}
	if (b->over) {
		kc->nl.error = b->over_err;
		kb_nl_perror(&kc->nl,
			     "filter '%s' is full: every key was added, some beyond its capacity",
			     quote(kc->name));
		goto out;
	}
	ret = 0;
out:
	progress_end(&prog);
	return ret;
}

void keycmd_close(struct keycmd *kc)
{
	if (kc->batch_init)
		keybatch_free(&kc->batch);
	keysrc_close(&kc->src);
	if (kc->nl_open)
		kb_nl_close(&kc->nl);
	kc->batch_init = false;
	kc->nl_open = false;
}
