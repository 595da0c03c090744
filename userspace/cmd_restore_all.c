// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * restore all DIR: every save file DIR/NAME.kbf (as 'save all' writes
 * them) back into the kernel, all or nothing:
 *  1. every file is read and checked whole (restore.c), and the names
 *     they hold must be new names and differ from each other; one bad
 *     file and nothing reaches the kernel;
 *  2. every filter is created hidden (FLAGS LOAD) on one socket and its
 *     cells imported; any refusal (a name taken, the memory limit) ends
 *     the restore, and closing the socket makes the kernel destroy every
 *     hidden filter it made;
 *  3. only then is each one completed (LOADED); should one of these
 *     fail, the ones completed before it are destroyed again.
 * Entries of DIR not ending in ".kbf" are not read. Attachments are not
 * part of a save file: attach again after the restore.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "restore.h"
#include "savedir.h"
#include "util.h"

struct file_list {
	char **path;
	size_t n, cap;
};

static int by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR's *.kbf entries, sorted; -1 (printed) when DIR cannot be read. */
static int list_dir(const char *dir, struct file_list *l)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d) {
		errorf("restore: unable to read directory '%s': %s",
		       quote(dir), strerror(errno));
		return -1;
	}
	for (;;) {
		errno = 0;
		e = readdir(d);
		if (!e)
			break;
		if (!savedir_entry(e->d_name))
			continue;
		if (l->n == l->cap) {
			l->cap = l->cap ? 2 * l->cap : 16;
			l->path = xrealloc(l->path, l->cap * sizeof(*l->path));
		}
		if (asprintf(&l->path[l->n], "%s/%s", dir, e->d_name) < 0) {
			errorf("out of memory");
			exit(EXIT_ERROR);
		}
		l->n++;
	}
	if (errno) {
		errorf("restore: unable to read directory '%s': %s",
		       quote(dir), strerror(errno));
		closedir(d);
		return -1;
	}
	closedir(d);
	if (l->n)
		qsort(l->path, l->n, sizeof(*l->path), by_path);
	return 0;
}

/* Best effort: the filters completed before a failed LOADED. */
static void undo(struct kb_nl *nl, struct kb_restore *o, size_t n)
{
	struct nl_msg *msg;
	size_t i;

	for (i = 0; i < n; i++) {
		msg = kb_nl_msg(nl, KBLOOM_CMD_DESTROY, 0, 0);
		kb_put_name(msg, o[i].name);
		if (kb_nl_request(nl, msg, NULL, NULL))
			kb_nl_perror(nl, "unable to destroy filter '%s' again after the failed restore",
				     quote(o[i].name));
		nlmsg_free(msg);
	}
}

int kb_restore_all(int argc, char **argv)
{
	struct file_list l = { 0 };
	struct kb_restore *o = NULL;
	const char *dir;
	struct kb_nl nl;
	int ret = EXIT_ERROR, r;
	size_t i, j;

	if (!savedir_args(argc, argv, " (as 'save all' wrote it)", &dir,
			  NULL))
		return EXIT_ERROR;
	if (list_dir(dir, &l))
		return EXIT_ERROR;
	o = calloc(l.n ? l.n : 1, sizeof(*o));
	if (!o) {
		errorf("out of memory");
		exit(EXIT_ERROR);
	}

	/* 1. Every file whole, and its name, before anything is sent. */
	for (i = 0; i < l.n; i++) {
		o[i].path = l.path[i];
		if (kb_restore_open(&o[i]))
			goto out;
		if (!check_new_name(o[i].name)) {
			errorf("unable to restore from '%s': its filter name is not one 'create' takes",
			       quote(o[i].path));
			kb_restore_close(&o[i]);
			goto out;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(o[j].name, o[i].name)) {
				errorf("unable to restore all from '%s': '%s' and '%s' both hold filter '%s'",
				       quote(dir), quote(o[j].path),
				       quote(o[i].path), quote(o[i].name));
				kb_restore_close(&o[i]);
				goto out;
			}
		/* Not kept open: a namespace may hold more filters than fds. */
		kb_restore_close(&o[i]);
	}

	/* 2. Every filter hidden, with its cells; 3. all of them shown. */
	if (open_netlink(&nl))
		goto out;
	for (i = 0; i < l.n; i++) {
		if (kb_restore_create(&nl, &o[i]))
			goto close;
		o[i].f = fopen(o[i].path, "rb");
		if (!o[i].f) {
			errorf("unable to restore filter '%s' from '%s': %s",
			       quote(o[i].name), quote(o[i].path),
			       strerror(errno));
			goto close;
		}
		r = kb_restore_cells(&nl, &o[i]);
		kb_restore_close(&o[i]);
		if (r)
			goto close;
	}
	for (i = 0; i < l.n; i++)
		if (kb_restore_loaded(&nl, &o[i])) {
			undo(&nl, o, i);
			goto close;
		}
	ret = EXIT_OK;
close:
	/* Closing it destroys every filter still hidden. */
	kb_nl_close(&nl);
out:
	for (i = 0; i < l.n; i++)
		free(l.path[i]);
	free(l.path);
	free(o);
	return ret;
}
