/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Reading an archive offline: the files 'bloomctl archive NAME DIR'
 * writes, DIR/NAME.<window id>.kbf, one closed window each, loaded into
 * engine filters (kmod/engine, compiled into bloomctl) so a key can be
 * tested against every archived window without the module. For 'query
 * ... archive DIR'; no netlink here.
 *
 * Also the engine's view of a save file's shape, for every reader of save
 * files (restore checks the cell size with it before anything reaches the
 * kernel).
 */
#ifndef BLOOMCTL_ARCHIVE_READ_H
#define BLOOMCTL_ARCHIVE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "../kmod/engine/filter.h"
#include "savefile.h"

/* The engine shape of a save file's header. */
void kb_save_engine_shape(const struct kb_save_header *h, struct kb_shape *s);

/*
 * The @expect of kb_save_verify() / kb_save_reader_expect(): the cell
 * bytes the engine needs for @h's shape (kb_filter_mem_for(); scalable:
 * the slices, which must be the plan's; dcf: the CBFV and the saved OFV),
 * or UINT64_MAX when kb_filter_check_shape() refuses the shape or the
 * layout. @arg unused.
 */
uint64_t kb_save_engine_cell_bytes(const struct kb_save_header *h, void *arg);

/* One archived window. */
struct kb_archive_window {
	char *path;		/* the file it came from */
	uint64_t id;		/* window ID (from the header; the name agrees) */
	uint64_t start_ns;	/* CLOCK_REALTIME ns */
	uint64_t end_ns;	/* 0 only for a window saved while open */
	uint64_t packets;	/* keys inserted into it */
	uint32_t digest;	/* enum kbloom_digest it was recorded with, 0 none */
	struct kb_save_header h;	/* the whole header */
	struct kb_filter f;	/* its cells, in an engine filter */
};

struct kb_archive {
	char name[KBLOOM_NAME_MAX];
	uint32_t type;		/* enum kbloom_type, the same for every window */
	uint32_t dims;		/* multi: dimensions, and their names */
	char dim_names[KBLOOM_DIMS_MAX][KBLOOM_DIM_NAME_MAX];
	size_t n;		/* windows, at least 1 */
	struct kb_archive_window *w;	/* newest (highest ID) first, as QUERY */
};

/*
 * Lists @dir/@name.<digits>.kbf, verifies each file completely (header,
 * cell size against the engine's shape, CRCs, end of file) while loading
 * it into an engine filter. All windows must have the same type (and for
 * multi the same dimensions). 0 and *@out, or -1 with one line in @err
 * naming the file (or @dir) and the problem; nothing is kept on error.
 * An archive with no window file is an error too.
 */
int kb_archive_open(const char *dir, const char *name, struct kb_archive **out,
		    char *err, size_t errlen);

/*
 * Which windows hold @key (every type but multi): bit j of @bitmap
 * (byte j / 8, bit j % 8; ceil(n / 8) bytes, @bitmap may be NULL) is set
 * when window a->w[j] holds it (possibly a false positive). Returns the
 * number of windows that hold it; -1 for a multi archive.
 */
int kb_archive_test(const struct kb_archive *a, const void *key, size_t len,
		    uint8_t *bitmap);

/* The same for a multi archive: a tuple of any non-empty set of dimensions. */
int kb_archive_test_tuple(const struct kb_archive *a, const struct kb_tuple *t,
			  uint8_t *bitmap);

/* Frees everything; NULL is fine. */
void kb_archive_close(struct kb_archive *a);

#endif
