/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * One table of a filter, from the kernel into a save file: an EXPORT dump
 * streamed into the savefile writer as its messages arrive (no copy of
 * the whole filter is ever held). Used by 'save' and by 'archive' (one
 * file per closed window).
 */
#ifndef BLOOMCTL_SAVE_H
#define BLOOMCTL_SAVE_H

#include <stdbool.h>
#include <stdint.h>

#include "nl.h"
#include "savefile.h"

struct kb_export {
	/* In. */
	const char *name;	/* the filter */
	uint64_t window;	/* a window ID; 0: the current (or only) table */
	bool zstd;		/* compress (KB_SAVE_F_ZSTD) */
	const char *path;	/* the file; "-" = stdout */
	bool quiet;		/* no progress line (progress.h): an export
				 * inside other work, maybe in a thread */
	/* Out. */
	struct kb_save_header h;	/* as written (valid after the head) */
	uint64_t file_bytes;	/* bytes written to the file */
	bool file_error;	/* the failure was the file's: see @err */
	char err[512];		/* one line, when @file_error */
};

/*
 * Exports @x->window of @x->name into @x->path: written to "PATH.tmp",
 * flushed to disk and renamed to PATH only when every cell arrived and the
 * file is complete; on any failure the temp file is removed (with "-" the
 * bytes already written to stdout stay written). 0, or a negative errno:
 * when @x->file_error is false, nl->error says why (-ENOENT: no such
 * filter or window; -ESTALE: a rotation dropped the window during the
 * export; -EAGAIN: a scalable filter or dcf kept growing during each of
 * a few tries, or once when writing to stdout). Scalable filters and
 * dcfs are written as format version 2, with their layout.
 */
int kb_export_save(struct kb_nl *nl, struct kb_export *x);

/*
 * 'compress zstd' at argv[@i] (which is "compress"), of command @cmd
 * ("save", "archive"): sets *@zstd; false when argv[@i + 1] is missing or
 * not "zstd" (printed).
 */
bool parse_compress(const char *cmd, int argc, char **argv, int i,
		    bool *zstd);

/* save all DIR [compress zstd] (cmd_save_all.c); argv as cmd_save's. */
int kb_save_all(int argc, char **argv);

#endif
