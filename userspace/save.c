// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The work of save NAME FILE (cmd_save.c) and of archive: one table of a
 * filter into a save file (savefile.h), streamed from the EXPORT dump as it arrives.
 * The file appears under its name only once complete (a new FILE.XXXXXX
 * of mode 0600, then rename); a failed save leaves nothing behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive_read.h"
#include "commands.h"
#include "describe.h"
#include "progress.h"
#include "types.h"
#include "save.h"
#include "util.h"

/* State of one export while its messages arrive. */
struct export_state {
	struct kb_export *x;
	struct kb_desc *d;
	FILE *f;
	char *tmp;		/* the temp file's path; NULL for stdout */
	bool tmp_made;		/* ... and it was created (is ours to unlink) */
	struct kb_save_writer *w;
	uint64_t got;		/* cell bytes received, in order */
	struct progress prog;
};

static int count_write(void *arg, const void *buf, size_t len)
{
	struct export_state *s = arg;

	if (kb_save_stdio_write(s->f, buf, len))
		return -1;
	s->x->file_bytes += len;
	return 0;
}

static int file_fail(struct export_state *s, const char *fmt, const char *arg)
{
	s->x->file_error = true;
	snprintf(s->x->err, sizeof(s->x->err), fmt, arg, strerror(errno));
	return -EIO;
}

/* The header from the EXPORT head: description, hash key, cell bytes. */
static int export_head(struct kb_nl *nl, struct nlattr **tb,
		       struct export_state *s)
{
	struct kb_save_header *h = &s->x->h;
	struct kb_desc *d = s->d;
	uint64_t want;
	unsigned int i;
	int fd, r;

	if (s->w)
		return kb_nl_fail(nl, "a second EXPORT head");
	r = kb_desc_parse(nl, tb, d);
	if (r)
		return r;
	if (!tb[KBLOOM_A_HASH_KEY] ||
	    nla_len(tb[KBLOOM_A_HASH_KEY]) != KBLOOM_HASH_KEY_LEN ||
	    nla_len(tb[KBLOOM_A_CELL_BYTES]) != 8)
		return kb_nl_fail(nl, "EXPORT head without HASH_KEY or CELL_BYTES");
	if (!(d->have & KB_HAVE_WINDOW_LIST) || d->nwin != 1)
		return kb_nl_fail(nl, "EXPORT head without its window");

	memset(h, 0, sizeof(*h));
	h->flags = s->x->zstd ? KB_SAVE_F_ZSTD : 0;
	snprintf(h->name, sizeof(h->name), "%s", d->name);
	h->shape = d->p;
	for (i = 0; i < d->dims.n && i < KBLOOM_DIMS_MAX; i++)
		memcpy(h->dim_names[i], d->dims.name[i], KBLOOM_DIM_NAME_MAX);
	h->digest = d->have & KB_HAVE_ATTACH ? d->attach.digest : 0;
	h->capacity = d->capacity;
	memcpy(h->hash_key, nla_data(tb[KBLOOM_A_HASH_KEY]),
	       KBLOOM_HASH_KEY_LEN);
	h->inserts = d->inserts;
	h->queries = d->queries;
	h->positives = d->positives;
	h->deletes = d->deletes;
	h->generation = d->generation;
	if (d->have & KB_HAVE_WINDOWS) {
		h->windows = d->windows;
		h->interval_ms = d->interval_ms;
		h->window.id = d->win[0].id;
		h->window.start_ns = d->win[0].start;
		h->window.end_ns = d->win[0].end;
		h->window.packets = d->win[0].packets;
	}
	/* Version 2: the layout of a scalable filter or a dcf. */
	if (kb_utype_grows(d->p.type) == KB_GROW_SLICES) {
		if (!(d->have & KB_HAVE_SLICES) || !d->nslices)
			return kb_nl_fail(nl, "EXPORT head of a scalable filter without its SLICE_LIST");
		h->nslices = d->nslices;
		h->overflow = d->overflow;
		for (i = 0; i < d->nslices; i++) {
			h->slice[i].m = d->slice[i].m;
			h->slice[i].k = d->slice[i].k;
			h->slice[i].capacity = d->slice[i].capacity;
			h->slice[i].keys = d->slice[i].keys;
			if (d->slice[i].current)
				h->current = i;
		}
	} else if (kb_utype_grows(d->p.type) == KB_GROW_WIDER) {
		if (!(d->have & KB_HAVE_OFV))
			return kb_nl_fail(nl, "EXPORT head of a dcf without OFV_BITS");
		h->ofv_bits = d->ofv_bits;
		h->overflow = d->lost;
	}
	h->cell_bytes = nla_get_u64(tb[KBLOOM_A_CELL_BYTES]);
	/* A file only the engine's own shape can read back. */
	want = kb_save_engine_cell_bytes(h, NULL);
	if (want != h->cell_bytes)
		return kb_nl_fail(nl, "CELL_BYTES %" PRIu64 " for a shape of %" PRIu64 " bytes",
				  h->cell_bytes, want);

	if (s->tmp) {
		/*
		 * The file holds the filter's hash key: mode 0600, and a new
		 * file under a name nobody could guess to plant a link at
		 * (mkostemp: O_CREAT | O_EXCL, random suffix).
		 */
		fd = mkostemp(s->tmp, O_CLOEXEC);
		if (fd < 0)
			return file_fail(s, "unable to create '%s': %s",
					 s->tmp);
		s->tmp_made = true;
		s->f = fdopen(fd, "wb");
		if (!s->f) {
			close(fd);
			return file_fail(s, "unable to create '%s': %s",
					 s->tmp);
		}
	}
	s->w = kb_save_writer_begin(h, count_write, s, s->x->path, s->x->err,
				    sizeof(s->x->err));
	if (!s->w) {
		s->x->file_error = true;
		return -EIO;
	}
	if (!s->x->quiet)
		progress_start(&s->prog, false, h->cell_bytes, NULL,
			       "save '%s'", d->name);
	return 0;
}

static int export_cb(struct kb_nl *nl, struct nlattr **tb, void *arg)
{
	struct export_state *s = arg;
	struct nlattr *off = tb[KBLOOM_A_OFFSET], *cells = tb[KBLOOM_A_CELLS];
	uint64_t o;
	size_t len;

	if (tb[KBLOOM_A_CELL_BYTES])
		return export_head(nl, tb, s);
	if (!off || !cells || nla_len(off) != 8)
		return kb_nl_fail(nl, "EXPORT message without OFFSET and CELLS");
	if (!s->w)
		return kb_nl_fail(nl, "EXPORT cells before the head");
	o = nla_get_u64(off);
	len = nla_len(cells);
	if (o != s->got || len > s->x->h.cell_bytes - s->got)
		return kb_nl_fail(nl, "EXPORT cells at offset %" PRIu64 " (%zu bytes), expected %" PRIu64 " of %" PRIu64,
				  o, len, s->got, s->x->h.cell_bytes);
	if (kb_save_write_cells(s->w, nla_data(cells), len)) {
		s->x->file_error = true;
		return -EIO;
	}
	s->got += len;
	progress_update(&s->prog, s->got, s->got);
	return 0;
}

/* Flush, sync and close the temp file (or flush stdout). */
static int export_close(struct export_state *s)
{
	FILE *f = s->f;

	s->f = NULL;
	if (!s->tmp)
		return fflush(f) ? file_fail(s, "unable to write '%s': %s",
					     "-") : 0;
	if (fflush(f) || fsync(fileno(f))) {
		fclose(f);
		return file_fail(s, "unable to write '%s': %s", s->tmp);
	}
	if (fclose(f))
		return file_fail(s, "unable to write '%s': %s", s->tmp);
	return 0;
}

/* One EXPORT into the file; kb_export_save() retries it. */
static int export_once(struct kb_nl *nl, struct kb_export *x)
{
	struct export_state s = { .x = x };
	struct nl_msg *msg;
	int r;

	x->file_bytes = 0;
	x->file_error = false;
	x->err[0] = 0;
	s.d = calloc(1, sizeof(*s.d));
	if (!s.d) {
		errorf("out of memory");
		exit(EXIT_ERROR);
	}
	if (!strcmp(x->path, "-")) {
		s.f = stdout;
	} else if (asprintf(&s.tmp, "%s.XXXXXX", x->path) < 0) {
		errorf("out of memory");
		exit(EXIT_ERROR);
	}

	msg = kb_nl_msg(nl, KBLOOM_CMD_EXPORT, NLM_F_DUMP, 0);
	kb_put_name(msg, x->name);
	if (x->window)
		kb_put_u64(msg, KBLOOM_A_WINDOW, x->window);
	r = kb_nl_request(nl, msg, export_cb, &s);
	nlmsg_free(msg);
	progress_end(&s.prog);
	if (!r && !s.w)
		r = kb_nl_fail(nl, "EXPORT without its head");
	if (!r && s.got != x->h.cell_bytes)
		r = kb_nl_fail(nl, "EXPORT ended after %" PRIu64 " of %" PRIu64 " cell bytes",
			       s.got, x->h.cell_bytes);
	if (!r && kb_save_writer_finish(s.w)) {
		x->file_error = true;
		r = -EIO;
	}
	if (s.f && (!r || !s.tmp)) {
		if (export_close(&s) && !r)
			r = -EIO;
	} else if (s.f) {
		fclose(s.f);
	}
	if (!r && s.tmp && rename(s.tmp, x->path)) {
		file_fail(&s, "unable to rename the temp file to '%s': %s",
			  x->path);
		r = -EIO;
	}
	if (r && s.tmp_made)
		unlink(s.tmp);	/* a half file, or a whole one not renamed */
	kb_save_writer_free(s.w);
	free(s.tmp);
	free(s.d);
	return r;
}

/* Times a growing filter's export is tried (EAGAIN: it grew meanwhile). */
#define EXPORT_TRIES	5

int kb_export_save(struct kb_nl *nl, struct kb_export *x)
{
	int r, i;

	for (i = 0;; i++) {
		r = export_once(nl, x);
		/* To a file only: bytes already on stdout cannot be taken back. */
		if (r != -EAGAIN || x->file_error || !strcmp(x->path, "-") ||
		    i + 1 >= EXPORT_TRIES)
			return r;
	}
}

bool parse_compress(const char *cmd, int argc, char **argv, int i,
		    bool *zstd)
{
	if (i + 1 >= argc) {
		usage_errorf(argv[0], "'compress' needs 'zstd'");
		return false;
	}
	if (strcmp(argv[i + 1], "zstd")) {
		errorf("%s: invalid compression '%s': only 'zstd'", cmd,
		       quote(argv[i + 1]));
		return false;
	}
	*zstd = true;
	return true;
}
