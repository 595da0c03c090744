// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * archive NAME DIR [once] [compress zstd]: every closed window of a
 * time-paged filter into DIR/NAME.<window id, 10 digits>.kbf, one save
 * file each (the export→save path of 'save NAME FILE window ID': temp file
 * and rename, so a reader never sees half a file). Windows already in DIR
 * are left alone. Without 'once' it keeps polling GET every
 * min(interval / 4, 1 s) until SIGINT or SIGTERM. A window that a rotation
 * drops before it could be exported is reported as lost and counted; it
 * does not stop the archive.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "describe.h"
#include "json.h"
#include "print.h"
#include "progress.h"
#include "save.h"
#include "types.h"
#include "util.h"

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
	stop_signal = sig;
}

struct archiver {
	const char *name, *dir;
	bool zstd;
	struct kb_nl nl;
	struct kb_desc *d;
	bool started;		/* next_id is set */
	uint64_t next_id;	/* the lowest window ID not yet handled */
	uint64_t archived, lost;
};

static void report_lost(struct archiver *a, uint64_t id, const char *why)
{
	a->lost++;
	errorf("archive: window %" PRIu64 " of '%s' lost: %s", id,
	       quote(a->name), why);
	if (opts.json) {
		struct json j;

		json_init(&j, stdout);
		json_obj_begin(&j);
		json_key(&j, "filter");
		json_str(&j, a->name);
		json_key(&j, "window");
		json_u64(&j, id);
		json_key(&j, "lost");
		json_bool(&j, true);
		json_obj_end(&j);
		fflush(stdout);
	}
}

/*
 * A window archived: "window ID (SPAN, N inserts): PATH, BYTES bytes", or
 * {"filter","file","bytes","window":{...}}, one line each.
 */
static void report_archived(struct archiver *a, const struct kb_window_desc *w,
			    const char *path, uint64_t bytes)
{
	struct kb_out o;
	struct json j;

	a->archived++;
	kb_out_stdout(&o, &j, opts.json);
	/* on the same terminal: the line comes back below this one */
	if (!opts.json && isatty(STDOUT_FILENO))
		progress_hide();
	kb_print_obj_begin(&o, NULL);
	kb_print_str(&o, KB_PRINT_JSON, "filter", NULL, a->name);
	kb_print_text(&o, "window %" PRIu64 " (%s, %" PRIu64 " inserts): ",
		      w->id, kb_window_span(w), w->packets);
	kb_print_str(&o, KB_PRINT_ANY, "file", "%s, ", path);
	kb_print_u64(&o, KB_PRINT_ANY, "bytes", "%llu bytes\n", bytes);
	if (opts.json) {
		json_key(&j, "window");
		kb_window_json(&j, w);
	}
	kb_print_obj_end(&o);
	fflush(stdout);
}

/*
 * One window into its file. 0 (archived, lost or already there), or -1
 * after printing a fatal error.
 */
static int archive_window(struct archiver *a, struct kb_window_desc *w)
{
	struct kb_export x = {
		.name = a->name, .window = w->id, .zstd = a->zstd,
	};
	struct stat st;
	char *path;
	int r;

	if (asprintf(&path, "%s/%s.%010" PRIu64 ".kbf", a->dir, a->name,
		     w->id) < 0) {
		errorf("out of memory");
		return -1;
	}
	if (!stat(path, &st)) {
		free(path);
		return 0;	/* archived before (by an earlier run) */
	}
	x.path = path;
	r = kb_export_save(&a->nl, &x);
	if (r == -ESTALE || r == -ENOENT) {
		if (!x.file_error) {
			report_lost(a, w->id, r == -ESTALE ?
				    "dropped by a rotation during its export" :
				    "dropped by a rotation before its export");
			r = 0;
		}
	} else if (!r) {
		/* The export's own description of the window: its final counts. */
		w->packets = x.h.window.packets;
		report_archived(a, w, path, x.file_bytes);
	}
	if (r && x.file_error)
		errorf("archive: unable to archive window %" PRIu64 " of '%s' to '%s': %s",
		       w->id, quote(a->name), quote(path), x.err);
	else if (r)
		kb_nl_perror(&a->nl, "archive: unable to export window %" PRIu64 " of '%s'",
			     w->id, quote(a->name));
	free(path);
	return r ? -1 : 0;
}

static int by_id(const void *x, const void *y)
{
	const struct kb_window_desc *a = x, *b = y;

	return a->id < b->id ? -1 : a->id > b->id;
}

/* One pass: every closed window not handled yet. 0 or -1 (printed). */
static int archive_pass(struct archiver *a)
{
	struct kb_desc *d = a->d;
	struct progress prog = { 0 };
	uint64_t oldest, todo = 0, done = 0;
	uint32_t i;
	int r;

	r = kb_desc_get(&a->nl, a->name, d);
	if (r) {
		kb_nl_perror(&a->nl, "archive: unable to get filter '%s'",
			     quote(a->name));
		return -1;
	}
	if (kb_utype_grows(d->p.type)) {
		errorf("archive: filter '%s' is a %s filter, which grows and has no windows to archive (use 'bloomctl save')",
		       quote(a->name), kb_type_str(d->p.type));
		return -1;
	}
	if (!(d->have & KB_HAVE_WINDOWS)) {
		errorf("archive: filter '%s' is not time-paged (create it with windows W interval DURATION)",
		       quote(a->name));
		return -1;
	}
	if (!(d->have & KB_HAVE_WINDOW_LIST) || !d->nwin) {
		errorf("archive: filter '%s': no window list in the kernel's reply",
		       quote(a->name));
		return -1;
	}
	qsort(d->win, d->nwin, sizeof(d->win[0]), by_id);
	oldest = d->win[0].id;
	if (!a->started) {
		a->started = true;
		a->next_id = oldest;
	}
	/* Closed and dropped between two polls: never seen, lost. */
	for (; a->next_id < oldest; a->next_id++)
		report_lost(a, a->next_id,
			    "dropped by a rotation before it was seen (poll too slow)");
	/* Catching up on several closed windows: a progress line. */
	for (i = 0; i < d->nwin; i++)
		todo += d->win[i].id >= a->next_id && d->win[i].end;
	if (todo > 1)
		progress_start(&prog, false, todo, "windows", "archive '%s'",
			       a->name);
	for (i = 0; i < d->nwin; i++) {
		struct kb_window_desc *w = &d->win[i];

		if (w->id < a->next_id)
			continue;
		if (!w->end)
			break;	/* the current window: not closed yet */
		if (archive_window(a, w)) {
			progress_end(&prog);
			return -1;
		}
		a->next_id = w->id + 1;
		done++;
		progress_update(&prog, done, done);
		if (stop_signal)
			break;
	}
	progress_end(&prog);
	return 0;
}

static void sleep_ms(uint64_t ms)
{
	struct timespec ts = {
		.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000,
	};

	/* A signal ends the sleep early (no SA_RESTART): stop_signal is set. */
	nanosleep(&ts, NULL);
}

int cmd_archive(int argc, char **argv)
{
	struct archiver a = { 0 };
	bool once = false, have_compress = false;
	struct sigaction sa;
	struct stat st;
	uint64_t poll_ms;
	int i, ret = EXIT_ERROR;

	if (argc < 3) {
		usage_errorf(argv[0], argc < 2 ? "missing filter NAME" :
			     "missing directory DIR");
		return EXIT_ERROR;
	}
	a.name = argv[1];
	a.dir = argv[2];
	for (i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "once") && !once) {
			once = true;
		} else if (!strcmp(argv[i], "compress") && !have_compress) {
			have_compress = true;
			if (!parse_compress("archive", argc, argv, i++,
					    &a.zstd))
				return EXIT_ERROR;
		} else if (!strcmp(argv[i], "once") ||
			   !strcmp(argv[i], "compress")) {
			usage_errorf(argv[0], "'%s' given twice", argv[i]);
			return EXIT_ERROR;
		} else {
			unexpected_argument(argv[0], argv[i]);
			return EXIT_ERROR;
		}
	}
	if (!check_name(a.name))
		return EXIT_ERROR;
	if (stat(a.dir, &st)) {
		errorf("archive: invalid directory '%s': %s", quote(a.dir),
		       strerror(errno));
		return EXIT_ERROR;
	}
	if (!S_ISDIR(st.st_mode)) {
		errorf("archive: invalid directory '%s': not a directory",
		       quote(a.dir));
		return EXIT_ERROR;
	}
	a.d = calloc(1, sizeof(*a.d));
	if (!a.d) {
		errorf("out of memory");
		return EXIT_ERROR;
	}
	if (open_netlink(&a.nl)) {
		free(a.d);
		return EXIT_ERROR;
	}

	if (!once) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_stop;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
	}
	for (;;) {
		if (archive_pass(&a))
			goto out;
		if (once || stop_signal)
			break;
		poll_ms = a.d->interval_ms / 4;
		if (poll_ms > 1000)
			poll_ms = 1000;
		if (!poll_ms)
			poll_ms = 1;
		sleep_ms(poll_ms);
		if (stop_signal)
			break;
	}
	if (a.lost)
		errorf("archive: %" PRIu64 " window%s of '%s' lost, %" PRIu64 " archived",
		       a.lost, a.lost == 1 ? "" : "s", quote(a.name),
		       a.archived);
	ret = EXIT_OK;
out:
	kb_nl_close(&a.nl);
	free(a.d);
	return ret;
}

/* Its entry in the command table of bloomctl.c. */
const struct kb_command kb_cmd_archive = {
	.name = "archive",
	.fn = cmd_archive,
	.summary = "save every closed window of a filter",
	.usage = "NAME DIR [once] [compress zstd]\n",
	.help =
		"For time-paged filter NAME (create ... windows W interval D), saves\n"
		"every closed window not yet in directory DIR as\n"
		"  DIR/NAME.<window ID, 10 digits>.kbf\n"
		"a save file each (see 'save': mode 0600, as they hold the hash key;\n"
		"written under a temp name and renamed, so a reader never sees half a\n"
		"file). Without 'once' it keeps going,\n"
		"looking every interval/4 (at most 1 s), until SIGINT or SIGTERM (exit\n"
		"status 0); with 'once' it archives the windows closed now and exits.\n"
		"A window dropped by a rotation before it could be saved (W too\n"
		"small for the interval) is reported on stderr as lost and counted,\n"
		"and archiving goes on. compress zstd as for 'save'. Prints a line\n"
		"per window archived:\n"
		"  window ID (START to END, N inserts): FILE, BYTES bytes\n"
		"With -j, one JSON object per line: {\"filter\",\"file\",\"bytes\",\n"
		"\"window\":{\"id\",\"start\",\"start_ns\",\"end\",\"end_ns\",\"packets\",\n"
		"\"fill\"}}, or {\"filter\",\"window\",\"lost\":true}. 'restore' loads a\n"
		"window back into the kernel.\n",
};
