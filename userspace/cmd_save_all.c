// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * save all DIR [compress zstd]: every filter of the netns into DIR, one
 * save file NAME.kbf each (the format 'save' writes; 'restore FILE' reads
 * any one of them, 'restore all DIR' all of them).
 *
 * DIR appears, or is replaced, only whole: the files are written into a
 * new directory DIR.XXXXXX beside it (mkdtemp: mode 0700, as the files
 * hold hash keys; each file made as 'save' makes it), synced, then
 * renamed to DIR, or swapped with an existing DIR in one step
 * (renameat2 RENAME_EXCHANGE) and the old save removed. An existing DIR
 * must be a directory holding nothing but *.kbf files (an earlier save
 * all): anything else there is refused before a filter is read. A failure
 * at any point removes the new directory and leaves DIR as it was.
 *
 * A filter with windows is saved as its current window (as 'save NAME
 * FILE' does) and comes back from restore as a filter without windows
 * (documented; exit 0 prints nothing on stderr, so no warning): its closed
 * windows are what 'archive' keeps. Attachments (attach) are not saved.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "describe.h"
#include "save.h"
#include "savedir.h"
#include "util.h"

struct name_list {
	struct {
		char name[KBLOOM_NAME_MAX];
	} *f;
	size_t n, cap;
};

static void names_reset(void *arg)
{
	((struct name_list *)arg)->n = 0;
}

static int names_reply(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct name_list *l = arg;
	struct kb_desc *d;
	int r;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->f = xrealloc(l->f, l->cap * sizeof(*l->f));
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		errorf("out of memory");
		exit(EXIT_ERROR);
	}
	r = kb_desc_parse(nl, tb, d);
	if (!r) {
		snprintf(l->f[l->n].name, sizeof(l->f[l->n].name), "%s",
			 d->name);
		l->n++;
	}
	free(d);
	return r < 0 ? -EPROTO : 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);	/* the name is the entry's first member */
}

/*
 * Removes the *.kbf files of @dir and @dir. With @remove false, refuses
 * (-1, printed) a directory holding anything else, removing nothing:
 * the check on the DIR to be replaced.
 */
static int clean_dir(const char *dir, bool remove)
{
	struct dirent *e;
	char *path;
	DIR *d = opendir(dir);
	struct stat st;
	int ret = 0;

	if (!d) {
		errorf("save: unable to read directory '%s': %s", quote(dir),
		       strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0) {
			errorf("out of memory");
			exit(EXIT_ERROR);
		}
		if (!savedir_entry(e->d_name) || lstat(path, &st) ||
		    !S_ISREG(st.st_mode)) {
			if (!remove) {
				errorf("save: refusing to replace '%s': it holds '%s', not a save file of 'save all'",
				       quote(dir), quote(e->d_name));
				ret = -1;
			}
		} else if (remove && unlink(path)) {
			errorf("save: unable to remove '%s': %s", quote(path),
			       strerror(errno));
			ret = -1;
		}
		free(path);
		if (ret)
			break;
	}
	closedir(d);
	if (!ret && remove && rmdir(dir)) {
		errorf("save: unable to remove directory '%s': %s",
		       quote(dir), strerror(errno));
		ret = -1;
	}
	return ret;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = fsync(fd);
	close(fd);
	return r;
}

int kb_save_all(int argc, char **argv)
{
	struct name_list l = { 0 };
	struct kb_export x;
	char *dir, *tmp = NULL, *path;
	const char *arg;
	bool zstd = false, exists = false, made = false;
	struct kb_nl nl;
	struct stat st;
	int ret = EXIT_ERROR, r;
	size_t i, len;

	if (!savedir_args(argc, argv, "", &arg, &zstd))
		return EXIT_ERROR;
	dir = xstrdup(arg);
	len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		dir[--len] = 0;
	if (!*dir || !strcmp(dir, "-") || !strcmp(dir, "/") ||
	    !strcmp(dir, ".") || !strcmp(dir, "..")) {
		errorf("save: invalid DIR '%s': a directory to make or replace",
		       quote(arg));
		goto out;
	}

	/* 1. What is there now may only be an earlier save. */
	if (!lstat(dir, &st)) {
		if (!S_ISDIR(st.st_mode)) {
			errorf("save: refusing to replace '%s': not a directory",
			       quote(dir));
			goto out;
		}
		if (clean_dir(dir, false))
			goto out;
		exists = true;
	} else if (errno != ENOENT) {
		errorf("save: unable to read '%s': %s", quote(dir),
		       strerror(errno));
		goto out;
	}

	/* 2. The filters, then each into the new directory. */
	if (open_netlink(&nl))
		goto out;
	r = kb_nl_dump(&nl, KBLOOM_CMD_GET, names_reply, names_reset, &l);
	if (r) {
		kb_nl_perror(&nl, "unable to list filters");
		goto close;
	}
	if (l.n)
		qsort(l.f, l.n, sizeof(*l.f), by_name);
	if (asprintf(&tmp, "%s.XXXXXX", dir) < 0) {
		errorf("out of memory");
		exit(EXIT_ERROR);
	}
	if (!mkdtemp(tmp)) {
		errorf("save: unable to create '%s': %s", quote(tmp),
		       strerror(errno));
		goto close;
	}
	made = true;
	for (i = 0; i < l.n; i++) {
		if (asprintf(&path, "%s/%s" SAVE_EXT, tmp, l.f[i].name) < 0) {
			errorf("out of memory");
			exit(EXIT_ERROR);
		}
		memset(&x, 0, sizeof(x));
		x.name = l.f[i].name;
		x.path = path;
		x.zstd = zstd;
		r = kb_export_save(&nl, &x);
		if (r && x.file_error)
			errorf("unable to save filter '%s' to '%s': %s",
			       quote(x.name), quote(path), x.err);
		else if (r)
			kb_nl_perror(&nl, "unable to save filter '%s' to '%s'",
				     quote(x.name), quote(path));
		free(path);
		if (r)
			goto close;
	}

	/* 3. The new directory in place of DIR, in one step. */
	if (sync_dir(tmp)) {
		errorf("save: unable to sync '%s': %s", quote(tmp),
		       strerror(errno));
		goto close;
	}
	if (exists)
		r = renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE);
	else
		r = renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_NOREPLACE);
	if (r) {
		errorf("save: unable to rename '%s' to '%s': %s", quote(tmp),
		       quote(dir), strerror(errno));
		goto close;
	}
	/* tmp now names the old save (or nothing, when DIR was new). */
	made = exists;
	ret = EXIT_OK;
close:
	kb_nl_close(&nl);
out:
	if (made && clean_dir(tmp, true))
		ret = EXIT_ERROR;
	free(tmp);
	free(dir);
	free(l.f);
	return ret;
}
