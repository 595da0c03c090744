// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An archive directory read offline: every DIR/NAME.<id>.kbf verified and
 * loaded into an engine filter, then keys tested against all of them.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive_read.h"
#include "textutil.h"
#include "types.h"

/* The save file's cells are the engine's unsigned longs as 64-bit LE words. */
_Static_assert(sizeof(unsigned long) == 8, "64-bit unsigned long expected");

void kb_save_engine_shape(const struct kb_save_header *h, struct kb_shape *s)
{
	*s = h->shape;
	if (kb_type_takes(s->type, KB_TAKES_PLAN)) {
		s->capacity = h->capacity;
	} else {
		s->capacity = 0;
		s->growth = 0;
		s->tighten = 0;
	}
}

/* A scalable filter's slice table must be its plan's: the cells of those. */
static uint64_t scalable_cell_bytes(const struct kb_save_header *h,
				    const struct kb_shape *s)
{
	uint64_t m, cap, bytes = 0;
	uint32_t i, k;

	if (h->nslices < 1 || h->nslices > KBLOOM_SLICES_MAX ||
	    h->current >= h->nslices)
		return UINT64_MAX;
	for (i = 0; i < h->nslices; i++) {
		if (!kb_scalable_plan(s, i, &m, &k, &cap) ||
		    h->slice[i].m != m || h->slice[i].k != k ||
		    h->slice[i].capacity != cap)
			return UINT64_MAX;
		bytes += m / 8;
	}
	return bytes;
}

uint64_t kb_save_engine_cell_bytes(const struct kb_save_header *h, void *arg)
{
	struct kb_shape s;

	(void)arg;
	kb_save_engine_shape(h, &s);
	if (kb_filter_check_shape(&s) != KB_SHAPE_OK)
		return UINT64_MAX;
	/* Growing types: every slice, or the CBFV and the saved OFV. */
	if (kb_utype_grows(s.type) == KB_GROW_SLICES)
		return scalable_cell_bytes(h, &s);
	if (kb_utype_grows(s.type) == KB_GROW_WIDER)
		return kb_dcf_load_mem(&s, h->ofv_bits) == KB_NO_PLAN ?
		       UINT64_MAX : kb_save_layout_cell_bytes(h);
	return kb_filter_mem_for(&s);
}

/* "NAME.<digits>.kbf" → the digits' value; false for other names. */
static bool window_file(const char *file, const char *name, uint64_t *id)
{
	size_t nlen = strlen(name), flen = strlen(file), i;
	uint64_t v = 0;

	if (flen < nlen + 1 + 1 + 4 || strncmp(file, name, nlen) ||
	    file[nlen] != '.' || strcmp(file + flen - 4, ".kbf"))
		return false;
	for (i = nlen + 1; i < flen - 4; i++) {
		if (file[i] < '0' || file[i] > '9')
			return false;
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (file[i] - '0');
	}
	*id = v;
	return true;
}

/* Reads, verifies and loads one window file into @w. */
static int load_window(struct kb_archive_window *w, uint64_t name_id,
		       char *err, size_t errlen)
{
	struct kb_save_reader *r = NULL;
	const struct kb_save_header *h;
	struct kb_shape shape;
	uint64_t got = 0, i;
	FILE *f;
	ssize_t n;
	int ret = -1;

	f = fopen(w->path, "rb");
	if (!f) {
		kb_seterr(err, errlen, "archive file %s: %s", w->path,
			  strerror(errno));
		return -1;
	}
	r = kb_save_reader_open(kb_save_stdio_read, f, w->path, err, errlen);
	if (!r)
		goto out;
	h = kb_save_reader_header(r);
	if (kb_save_reader_expect(r, kb_save_engine_cell_bytes(h, NULL)))
		goto out;
	/*
	 * A whole filter's save file is no window, unless its name says
	 * window 0 (no archive writes that: the one table of a transforms
	 * table without windows, xlate_read.c).
	 */
	if (!h->window.id && name_id) {
		kb_seterr(err, errlen, "archive file %s: not a window (a whole filter's save file)",
			  w->path);
		goto out;
	}
	if (h->window.id != name_id) {
		kb_seterr(err, errlen, "archive file %s: holds window %" PRIu64 ", its name says %" PRIu64,
			  w->path, h->window.id, name_id);
		goto out;
	}
	kb_save_engine_shape(h, &shape);
	if (kb_filter_init(&w->f, &shape, h->hash_key)) {
		kb_seterr(err, errlen, "archive file %s: unable to load %" PRIu64 " bytes of cells: out of memory",
			  w->path, h->cell_bytes);
		goto out;
	}
	while (got < h->cell_bytes) {
		n = kb_save_read_cells(r, (uint8_t *)w->f.mem + got,
				       h->cell_bytes - got);
		if (n <= 0) {
			if (!n)
				kb_seterr(err, errlen,
					  "archive file %s: cells end early",
					  w->path);
			goto out;
		}
		got += n;
	}
	if (kb_save_reader_finish(r))
		goto out;
	/* Little-endian words in the file; a no-op on x86-64. */
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
		for (i = 0; i < w->f.nwords; i++)
			w->f.mem[i] = le64toh(w->f.mem[i]);
	w->h = *h;
	w->id = h->window.id;
	w->start_ns = h->window.start_ns;
	w->end_ns = h->window.end_ns;
	w->packets = h->window.packets;
	w->digest = h->digest;
	ret = 0;
out:
	kb_save_reader_free(r);
	fclose(f);
	return ret;
}

static int by_id_newest_first(const void *a, const void *b)
{
	const struct kb_archive_window *x = a, *y = b;

	return x->id < y->id ? 1 : x->id > y->id ? -1 : 0;
}

int kb_archive_open(const char *dir, const char *name, struct kb_archive **out,
		    char *err, size_t errlen)
{
	struct kb_archive *a;
	struct dirent *de;
	size_t cap = 0, i;
	uint64_t *ids = NULL, id;
	DIR *d;

	*out = NULL;
	if (!*name || strlen(name) >= KBLOOM_NAME_MAX || strchr(name, '/')) {
		kb_seterr(err, errlen, "archive %s: invalid filter name '%s'", dir,
			  name);
		return -1;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		goto oom;
	snprintf(a->name, sizeof(a->name), "%s", name);
	d = opendir(dir);
	if (!d) {
		kb_seterr(err, errlen, "archive %s: %s", dir, strerror(errno));
		free(a);
		return -1;
	}
	while ((errno = 0, de = readdir(d))) {
		if (!window_file(de->d_name, name, &id))
			continue;
		if (a->n == cap) {
			struct kb_archive_window *nw;
			uint64_t *ni;

			cap = cap ? cap * 2 : 16;
			nw = realloc(a->w, cap * sizeof(*nw));
			if (nw)
				a->w = nw;
			ni = realloc(ids, cap * sizeof(*ni));
			if (ni)
				ids = ni;
			if (!nw || !ni) {
				closedir(d);
				goto oom;
			}
		}
		memset(&a->w[a->n], 0, sizeof(a->w[a->n]));
		if (asprintf(&a->w[a->n].path, "%s/%s", dir, de->d_name) < 0) {
			closedir(d);
			goto oom;
		}
		ids[a->n++] = id;
	}
	if (errno) {
		kb_seterr(err, errlen, "archive %s: %s", dir, strerror(errno));
		closedir(d);
		goto fail;
	}
	closedir(d);
	if (!a->n) {
		kb_seterr(err, errlen, "archive %s: no window files of filter '%s' (%s.*.kbf)",
			  dir, name, name);
		goto fail;
	}
	for (i = 0; i < a->n; i++) {
		struct kb_archive_window *w = &a->w[i];

		if (load_window(w, ids[i], err, errlen))
			goto fail;
		if (!i) {
			a->type = w->h.shape.type;
			a->dims = w->h.shape.dims;
			memcpy(a->dim_names, w->h.dim_names,
			       sizeof(a->dim_names));
		} else if (w->h.shape.type != a->type ||
			   w->h.shape.dims != a->dims ||
			   memcmp(w->h.dim_names, a->dim_names,
				  sizeof(a->dim_names))) {
			kb_seterr(err, errlen, "archive file %s: another type or dimensions than %s",
				  w->path, a->w[0].path);
			goto fail;
		}
	}
	qsort(a->w, a->n, sizeof(*a->w), by_id_newest_first);
	for (i = 1; i < a->n; i++) {
		if (a->w[i].id == a->w[i - 1].id) {
			kb_seterr(err, errlen, "archive file %s: window %" PRIu64 " also in %s",
				  a->w[i].path, a->w[i].id, a->w[i - 1].path);
			goto fail;
		}
	}
	free(ids);
	*out = a;
	return 0;
oom:
	kb_seterr(err, errlen, "archive %s: out of memory", dir);
fail:
	free(ids);
	kb_archive_close(a);
	return -1;
}

int kb_archive_test(const struct kb_archive *a, const void *key, size_t len,
		    uint8_t *bitmap)
{
	int hits = 0;
	size_t j;

	if (kb_utype_tuples(a->type))
		return -1;
	if (bitmap)
		memset(bitmap, 0, (a->n + 7) / 8);
	for (j = 0; j < a->n; j++) {
		if (!kb_filter_test(&a->w[j].f, key, len))
			continue;
		hits++;
		if (bitmap)
			bitmap[j / 8] |= 1u << (j % 8);
	}
	return hits;
}

int kb_archive_test_tuple(const struct kb_archive *a, const struct kb_tuple *t,
			  uint8_t *bitmap)
{
	int hits = 0;
	size_t j;

	if (!kb_utype_tuples(a->type) || !t->mask ||
	    t->mask >> a->dims)
		return -1;
	if (bitmap)
		memset(bitmap, 0, (a->n + 7) / 8);
	for (j = 0; j < a->n; j++) {
		if (!kb_filter_test_tuple(&a->w[j].f, t))
			continue;
		hits++;
		if (bitmap)
			bitmap[j / 8] |= 1u << (j % 8);
	}
	return hits;
}

void kb_archive_close(struct kb_archive *a)
{
	size_t i;

	if (!a)
		return;
	for (i = 0; i < a->n; i++) {
		kb_filter_free(&a->w[i].f);
		free(a->w[i].path);
	}
	free(a->w);
	free(a);
}
