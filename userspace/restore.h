/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The steps of a restore (restore.c), shared by 'restore FILE' and
 * 'restore all DIR' (cmd_restore_all.c): verify the whole file, CREATE the
 * filter hidden (FLAGS LOAD), IMPORT its cells, then LOADED. Each step
 * prints why it failed. Until LOADED the filter is seen by no one and the
 * kernel destroys it when the socket closes.
 */
#ifndef BLOOMCTL_RESTORE_H
#define BLOOMCTL_RESTORE_H

#include <stdio.h>

#include "nl.h"
#include "savefile.h"

struct kb_restore {
	const char *path;	/* the file as given ("-": stdin) */
	const char *name;	/* the filter to make; NULL: the file's */
	/* Set by kb_restore_open(). */
	const char *label;	/* the file in savefile messages */
	FILE *f;		/* the verified file, at its start */
	struct kb_save_header h;
};

/* Reads and checks the whole file; 0, or -1 (printed, nothing open). */
int kb_restore_open(struct kb_restore *o);
void kb_restore_close(struct kb_restore *o);
/* CREATE with FLAGS LOAD; 0 or a negative errno (printed). */
int kb_restore_create(struct kb_nl *nl, struct kb_restore *o);
/* The cells, read and checked again; 0 or -1 (printed). */
int kb_restore_cells(struct kb_nl *nl, struct kb_restore *o);
/* IMPORT FLAGS LOADED: the filter appears; 0 or a negative errno. */
int kb_restore_loaded(struct kb_nl *nl, struct kb_restore *o);

/* restore all DIR (cmd_restore_all.c); argv as cmd_restore's. */
int kb_restore_all(int argc, char **argv);

#endif
