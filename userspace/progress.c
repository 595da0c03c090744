// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Progress of long work on a terminal (progress.h).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "util.h"

#define NS_PER_MS	1000000ULL
/* Calls faster than this apart: the clock is read too often. */
#define TICK_MIN_NS	(5 * NS_PER_MS)
#define STRIDE_MAX	(1U << 20)

static bool allowed;
static uint64_t delay_ms = PROGRESS_DELAY_MS;	/* KBLOOM_PROGRESS_DELAY_MS */
static struct progress *shown;	/* the one progress that may draw */
/* errorf() may erase the line from another thread (trace's questions). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void hide_hook(void)
{
	progress_hide();
}

void progress_allow(bool allow)
{
	const char *e = getenv("KBLOOM_PROGRESS_DELAY_MS");
	char *end;
	unsigned long v;

	if (e && *e) {
		v = strtoul(e, &end, 10);
		if (!*end && v < 60000)
			delay_ms = v;
	}
	allowed = allow;
	errorf_before = allow ? hide_hook : NULL;
}

void progress_start(struct progress *p, bool beside_stdout, uint64_t total,
		    const char *unit, const char *what, ...)
{
	va_list ap;

	memset(p, 0, sizeof(*p));
	if (!allowed || !isatty(STDERR_FILENO) ||
	    (beside_stdout && isatty(STDOUT_FILENO)))
		return;
	va_start(ap, what);
	vsnprintf(p->what, sizeof(p->what), what, ap);
	va_end(ap);
	p->unit = unit;
	p->total = total;
	p->stride = 1;
	p->last_ns = mono_ns();
	p->next_ns = p->last_ns + delay_ms * NS_PER_MS;
	pthread_mutex_lock(&lock);
	if (!shown) {
		shown = p;
		p->on = true;
	}
	pthread_mutex_unlock(&lock);
}

/* @v bytes as "512 B", "3.4 KiB", "48.0 MiB" ... */
static const char *bytes_str(char *buf, size_t len, uint64_t v)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double x = v;
	int i = -1;

	if (v < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)v);
		return buf;
	}
	while (x >= 1024 && i < 3) {
		x /= 1024;
		i++;
	}
	snprintf(buf, len, "%.1f %s", x, units[i]);
	return buf;
}

static void tick(struct progress *p, uint64_t n, uint64_t done);

void progress_tick(struct progress *p, uint64_t n, uint64_t done)
{
	pthread_mutex_lock(&lock);
	tick(p, n, done);
	pthread_mutex_unlock(&lock);
}

static void tick(struct progress *p, uint64_t n, uint64_t done)
{
	char line[200], a[32], b[32];
	uint64_t now = mono_ns();
	int len, pct;

	p->calls = 0;
	/* Calls come faster than the clock needs reading: fewer reads. */
	if (now - p->last_ns < TICK_MIN_NS && p->stride < STRIDE_MAX)
		p->stride *= 2;
	else if (now - p->last_ns > 4 * TICK_MIN_NS && p->stride > 1)
		p->stride /= 2;
	p->last_ns = now;
	if (now < p->next_ns)
		return;
	p->next_ns = now + 1000 * NS_PER_MS / PROGRESS_HZ;
	pct = p->total ? (int)(100.0 * (done < p->total ? done : p->total) /
			       p->total) : -1;
	if (p->unit && pct < 0)
		len = snprintf(line, sizeof(line), "%s: %llu %s", p->what,
			       (unsigned long long)n, p->unit);
	else if (p->unit)
		len = snprintf(line, sizeof(line), "%s: %llu %s (%d%%)",
			       p->what, (unsigned long long)n, p->unit, pct);
	else if (pct < 0)
		len = snprintf(line, sizeof(line), "%s: %s", p->what,
			       bytes_str(a, sizeof(a), n));
	else
		len = snprintf(line, sizeof(line), "%s: %s of %s (%d%%)",
			       p->what, bytes_str(a, sizeof(a), n),
			       bytes_str(b, sizeof(b), p->total), pct);
	if (len >= (int)sizeof(line))
		len = sizeof(line) - 1;
	/* Padded over what is left of a longer line before it. */
	fprintf(stderr, "\r%s%*s", line, p->width > len ? p->width - len : 0,
		"");
	fflush(stderr);
	p->width = len;
}

static void hide(void)
{
	if (!shown || !shown->width)
		return;
	fprintf(stderr, "\r%*s\r", shown->width, "");
	fflush(stderr);
	shown->width = 0;
	shown->next_ns = 0;	/* back at the next tick */
}

void progress_hide(void)
{
	pthread_mutex_lock(&lock);
	hide();
	pthread_mutex_unlock(&lock);
}

void progress_end(struct progress *p)
{
	if (!p->on)
		return;
	pthread_mutex_lock(&lock);
	if (shown == p) {
		hide();
		shown = NULL;
	}
	pthread_mutex_unlock(&lock);
	p->on = false;
}
