/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Progress of long work on a terminal: one line on stderr, rewritten in
 * place ("\r") at most PROGRESS_HZ times a second and erased at the end,
 * e.g.
 *
 *   add 'big': 1843200 keys (37%)
 *   save 'big': 12.5 MiB of 512.0 MiB (2%)
 *
 * Shown only when stderr is a terminal, bloomctl runs without -q and
 * without -j (machine output is never mixed with progress; -j: none at
 * all), and the work lasts longer than PROGRESS_DELAY_MS (for tests:
 * $KBLOOM_PROGRESS_DELAY_MS): a quick command prints nothing. stdout is never touched. One line at a time: a progress
 * started while another is shown stays silent (the outer one speaks).
 * errorf() and warnf() erase the line before they print; a command that
 * prints on stdout while a progress runs calls progress_hide() first.
 *
 * Cheap when called per key: progress_update() is an inline test of a
 * counter; the clock is read only every 'stride' calls, the stride
 * doubling while calls come faster than the clock needs reading (about
 * every 5 ms) and halving when they come slower.
 */
#ifndef BLOOMCTL_PROGRESS_H
#define BLOOMCTL_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#define PROGRESS_HZ		10
#define PROGRESS_DELAY_MS	300

struct progress {
	bool on;
	char what[96];		/* "add 'big'" */
	const char *unit;	/* "keys", "questions", ...; NULL: bytes */
	uint64_t total;		/* what 'done' goes up to; 0: unknown */
	uint64_t calls, stride;
	uint64_t last_ns;	/* the clock, last read */
	uint64_t next_ns;	/* the next draw, not before */
	int width;		/* characters of the line on screen; 0: none */
};

/*
 * Whether progress may be shown at all (main: not -q, not -j). Off until
 * set.
 */
void progress_allow(bool allow);

/*
 * Starts @p about @what (printf-style, cut to fit); @total: what 'done'
 * will reach (0: unknown); @unit: what 'n' counts (NULL: n is bytes,
 * shown as KiB, MiB ...). @beside_stdout: the command prints on stdout
 * while it works, so nothing is shown when stdout is a terminal too.
 */
void progress_start(struct progress *p, bool beside_stdout, uint64_t total,
		    const char *unit, const char *what, ...)
	__attribute__((format(printf, 5, 6)));

void progress_tick(struct progress *p, uint64_t n, uint64_t done);

/* @n items done so far; @done of the total (ignored when it is 0). */
static inline void progress_update(struct progress *p, uint64_t n,
				   uint64_t done)
{
	if (p->on && ++p->calls >= p->stride)
		progress_tick(p, n, done);
}

/* Erases the line being shown, if any (it comes back at the next draw). */
void progress_hide(void);

/* Erases the line of @p and stops it (also when it never started). */
void progress_end(struct progress *p);

#endif
