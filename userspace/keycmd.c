// SPDX-License-Identifier: GPL-2.0 OR MIT
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "keycmd.h"
#include "progress.h"
#include "util.h"

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
		if (p->type == KBLOOM_TYPE_DLEFT || p->type == KBLOOM_TYPE_DCF ||
		    (p->type == KBLOOM_TYPE_COUNTING &&
		     p->update == KBLOOM_UPDATE_PLAIN))
			return 0;
		errorf("unable to delete keys from filter '%s': del needs a counting (plain update), dleft or dcf filter, '%s' is %s%s",
		       quote(kc->name), quote(kc->name),
		       kb_type_str(p->type),
		       p->type == KBLOOM_TYPE_COUNTING ?
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
	if (kc->desc.p.type == KBLOOM_TYPE_MULTI)
		keysrc_set_tuples(&kc->src, &kc->desc.dims,
				  cmd == KBLOOM_CMD_ADD);
	if (keysrc_check_args(&kc->src) || keysrc_open(&kc->src))
		return -1;
	return 0;
}

int keycmd_run(struct keycmd *kc, kb_result_fn fn, void *arg)
{
	struct keybatch *b = &kc->batch;
	bool multi = kc->desc.p.type == KBLOOM_TYPE_MULTI;
	struct keysrc *src = &kc->src;
	struct progress prog = { 0 };
	uint64_t total = 0, n = 0;
	struct stat st;
	int r, ret = -1;

	keybatch_init(b, &kc->nl, kc->cmd, kc->name, fn, arg);
	kc->batch_init = true;
	if (keysrc_is_file(src)) {
		keybatch_pipeline(b);
		if (!fstat(src->fd, &st) && S_ISREG(st.st_mode))
			total = st.st_size;
		/* test and count print per key: not beside that on a tty */
		progress_start(&prog, fn != NULL, total, "keys", "%s '%s'",
			       verb_of(kc->cmd), kc->name);
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
