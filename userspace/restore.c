// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The steps of restore FILE [as NAME] (cmd_restore.c): a save file back
 * into the kernel as a new, plain filter (a saved window becomes a filter without windows holding
 * that table; a scalable filter or dcf comes back with its saved layout:
 * the same slices, the same overflow vector width). The whole file is
 * verified first (CRCs, header, the cell size the engine computes for
 * its shape), so nothing of a bad file reaches the kernel; then CREATE
 * with FLAGS LOAD (the filter stays hidden and reserved for this socket),
 * IMPORT of the cells in order, and IMPORT FLAGS LOADED once the file
 * has been read again to its verified end. The steps are restore.h's,
 * which 'restore all DIR' (cmd_restore_all.c) runs for every file of DIR.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive_read.h"
#include "commands.h"
#include "limit_figures.h"
#include "progress.h"
#include "restore.h"
#include "savefile.h"
#include "typeopts.h"
#include "types.h"
#include "util.h"

/* Cells per IMPORT message: well inside one attribute (u16 length). */
#define RESTORE_CHUNK	(60 * 1024)

/* A scalable filter's saved slices (its layout, kernel-checked). */
static void put_slices(struct nl_msg *msg, const struct kb_save_header *h)
{
	struct nlattr *list, *one;
	uint32_t i;

	list = nla_nest_start(msg, KBLOOM_A_SLICE_LIST | NLA_F_NESTED);
	if (!list)
		kb_nl_full();
	for (i = 0; i < h->nslices; i++) {
		one = nla_nest_start(msg, KBLOOM_SLICE_LIST_A_SLICE |
				     NLA_F_NESTED);
		if (!one ||
		    nla_put_u64(msg, KBLOOM_SLICE_A_BITS, h->slice[i].m) < 0 ||
		    nla_put_u32(msg, KBLOOM_SLICE_A_HASHES, h->slice[i].k) < 0 ||
		    nla_put_u64(msg, KBLOOM_SLICE_A_CAPACITY,
				h->slice[i].capacity) < 0 ||
		    nla_put_u64(msg, KBLOOM_SLICE_A_KEYS, h->slice[i].keys) < 0 ||
		    (i == h->current &&
		     nla_put_flag(msg, KBLOOM_SLICE_A_CURRENT) < 0))
			kb_nl_full();
		nla_nest_end(msg, one);
	}
	nla_nest_end(msg, list);
}

static struct nl_msg *create_msg(struct kb_nl *nl, const char *name,
				 const struct kb_save_header *h)
{
	const struct kb_shape *s = &h->shape;
	struct nl_msg *msg = kb_nl_msg(nl, KBLOOM_CMD_CREATE, 0, 0);

	kb_put_name(msg, name);
	kb_put_u32(msg, KBLOOM_A_FLAGS, KBLOOM_F_LOAD);
	kb_put_u32(msg, KBLOOM_A_TYPE, s->type);
	kb_put_u64(msg, KBLOOM_A_BITS, s->m);
	kb_put_u32(msg, KBLOOM_A_HASHES, s->k);
	kb_put(msg, KBLOOM_A_HASH_KEY, h->hash_key, KBLOOM_HASH_KEY_LEN);
	if (h->capacity)
		kb_put_u64(msg, KBLOOM_A_CAPACITY, h->capacity);
	/* Not WINDOWS: a restored filter is a plain filter of one table. */
	kb_put_params(msg, s, h->dim_names);
	/* The layout of a scalable filter or a dcf (version 2). */
	if (kb_utype_grows(s->type) == KB_GROW_SLICES) {
		kb_put_u64(msg, KBLOOM_A_OVERFLOW, h->overflow);
		put_slices(msg, h);
	} else if (kb_utype_grows(s->type) == KB_GROW_WIDER) {
		kb_put_u32(msg, KBLOOM_A_OFV_BITS, h->ofv_bits);
		kb_put_u64(msg, KBLOOM_A_LOST, h->overflow);
	}
	return msg;
}

/* Standard input copied into an unnamed temp file: it is read twice. */
static FILE *spool_stdin(void)
{
	char buf[65536];
	FILE *t = tmpfile();
	size_t n;

	if (!t) {
		errorf("restore: unable to create a temp file for stdin: %s",
		       strerror(errno));
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) {
		if (fwrite(buf, 1, n, t) != n) {
			errorf("restore: unable to spool stdin to a temp file: %s",
			       strerror(errno));
			fclose(t);
			return NULL;
		}
	}
	if (ferror(stdin)) {
		errorf("restore: unable to read stdin: %s", strerror(errno));
		fclose(t);
		return NULL;
	}
	if (fflush(t) || fseek(t, 0, SEEK_SET)) {
		errorf("restore: unable to spool stdin to a temp file: %s",
		       strerror(errno));
		fclose(t);
		return NULL;
	}
	return t;
}

/* Compared as encoded: the structs may differ in their padding. */
static bool header_differs(const struct kb_save_header *a,
			   const struct kb_save_header *b)
{
	uint8_t ra[KB_SAVE_HEADER_MAX], rb[KB_SAVE_HEADER_MAX];

	kb_save_encode_header(a, ra);
	kb_save_encode_header(b, rb);
	return kb_save_header_len(a) != kb_save_header_len(b) ||
	       memcmp(ra, rb, kb_save_header_len(a)) || a->flags != b->flags;
}

/* IMPORT of @len cells at @off, then (or only, with @len 0) LOADED. */
static int import(struct kb_nl *nl, const char *name, uint64_t off,
		  const void *cells, size_t len, bool loaded)
{
	struct nl_msg *msg;
	int r;

	msg = kb_nl_msg(nl, KBLOOM_CMD_IMPORT, 0,
			len + 256 + KBLOOM_NAME_MAX);
	kb_put_name(msg, name);
	if (len) {
		kb_put_u64(msg, KBLOOM_A_OFFSET, off);
		kb_put(msg, KBLOOM_A_CELLS, cells, len);
	}
	if (loaded)
		kb_put_u32(msg, KBLOOM_A_FLAGS, KBLOOM_F_LOADED);
	r = kb_nl_request(nl, msg, NULL, NULL);
	nlmsg_free(msg);
	return r;
}

int kb_restore_open(struct kb_restore *o)
{
	char err[512];
	int r;

	o->f = NULL;
	if (!strcmp(o->path, "-")) {
		o->label = "stdin";
		o->f = spool_stdin();
		if (!o->f)
			return -1;
		r = kb_save_verify(kb_save_stdio_read, o->f, o->label,
				   kb_save_engine_cell_bytes, NULL, &o->h, err,
				   sizeof(err));
		if (!r && fseek(o->f, 0, SEEK_SET)) {
			snprintf(err, sizeof(err), "savefile %s: %s", o->label,
				 strerror(errno));
			r = -1;
		}
	} else {
		o->label = o->path;
		r = kb_save_verify_file(o->path, kb_save_engine_cell_bytes,
					NULL, &o->h, err, sizeof(err));
		if (!r && !(o->f = fopen(o->path, "rb"))) {
			snprintf(err, sizeof(err), "savefile %s: %s", o->path,
				 strerror(errno));
			r = -1;
		}
	}
	if (r) {
		errorf("unable to restore from '%s': %s", quote(o->path), err);
		kb_restore_close(o);
		return -1;
	}
	if (!o->name)
		o->name = o->h.name;
	return 0;
}

void kb_restore_close(struct kb_restore *o)
{
	if (o->f)
		fclose(o->f);
	o->f = NULL;
}

int kb_restore_create(struct kb_nl *nl, struct kb_restore *o)
{
	struct nl_msg *msg = create_msg(nl, o->name, &o->h);
	int r;

	r = kb_nl_request(nl, msg, NULL, NULL);
	nlmsg_free(msg);
	if (r) {
		kb_nl_limit_figures(nl);
		kb_nl_perror(nl, "unable to restore filter '%s' from '%s'",
			     quote(o->name), quote(o->path));
	}
	return r;
}

int kb_restore_cells(struct kb_nl *nl, struct kb_restore *o)
{
	struct kb_save_reader *rd;
	struct progress prog = { 0 };
	uint8_t *buf = NULL;
	uint64_t off = 0;
	char err[512];
	int ret = -1;
	ssize_t n;

	/*
	 * Read again (and checked again: the file may have changed since it
	 * was verified).
	 */
	rd = kb_save_reader_open(kb_save_stdio_read, o->f, o->label, err,
				 sizeof(err));
	if (!rd || kb_save_reader_expect(rd, o->h.cell_bytes))
		goto file_error;
	if (header_differs(kb_save_reader_header(rd), &o->h)) {
		snprintf(err, sizeof(err), "savefile %s: changed while being restored",
			 o->label);
		goto file_error;
	}
	buf = malloc(RESTORE_CHUNK);
	if (!buf) {
		errorf("out of memory");
		goto out;
	}
	progress_start(&prog, false, o->h.cell_bytes, NULL, "restore '%s'",
		       o->name);
	for (;;) {
		n = kb_save_read_cells(rd, buf, RESTORE_CHUNK);
		if (n < 0)
			goto file_error;
		if (!n)
			break;
		if (import(nl, o->name, off, buf, n, false)) {
			kb_nl_perror(nl, "unable to restore filter '%s' from '%s': import at byte %" PRIu64,
				     quote(o->name), quote(o->path), off);
			goto out;
		}
		off += n;
		progress_update(&prog, off, off);
	}
	if (kb_save_reader_finish(rd))
		goto file_error;
	ret = 0;
	goto out;

file_error:
	errorf("unable to restore filter '%s' from '%s': %s", quote(o->name),
	       quote(o->path), err);
out:
	progress_end(&prog);
	free(buf);
	kb_save_reader_free(rd);
	return ret;
}

int kb_restore_loaded(struct kb_nl *nl, struct kb_restore *o)
{
	int r = import(nl, o->name, 0, NULL, 0, true);

	if (r)
		kb_nl_perror(nl, "unable to restore filter '%s' from '%s'",
			     quote(o->name), quote(o->path));
	return r;
}
