/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time-paged filters: a ring of W tables of one shape and hash key, the
 * newest taking inserts, rotated by a timer (uapi/kbloom.h, "Time-paged
 * filters"). A filter without windows is a ring of one table that never
 * rotates, so every filter is read and written the same way.
 *
 * Readers: the packet path and ADD use kb_window_cur(); TEST and COUNT
 * walk kb_window_set(); both under rcu_read_lock(). A table leaves the
 * set, then a grace period passes, and only then is it emptied and reused,
 * so no reader ever sees a table being cleared. Readers that may sleep
 * (GET, QUERY and EXPORT count a table's cells, giving the CPU back on big
 * ones) hold the ring's lock instead (kb_ring_lock()): no rotation runs
 * meanwhile.
 */
#ifndef KBLOOM_WINDOW_H
#define KBLOOM_WINDOW_H

#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "engine/filter.h"

struct kb_dq;
struct kb_map_pin;

struct kb_window {
	struct kb_filter filter;
	u64 id;			/* 1 for the first window, +1 per rotation */
	u64 start_ns;		/* CLOCK_REALTIME */
	u64 end_ns;		/* 0 while open */
	unsigned long __percpu *packets;	/* keys inserted */
	atomic_t tunnels;	/* transforms: its tunnel records (attach.c) */
};

/* The retained windows, newest first. */
struct kb_winset {
	u32 n;
	struct kb_window *w[];
};

struct kb_ring {
	u32 nwindows;		/* W; 1 when not time-paged */
	u64 interval_ms;	/* 0 when not time-paged */
	struct kb_window *tables;	/* W, plus one spare when time-paged */
	struct kb_window __rcu *cur;
	struct kb_winset __rcu *set;
	struct kb_winset *sets[2];	/* set and the next one, alternating */
	struct kb_window *spare;	/* empty, opens at the next rotation */
	u64 next_id;
	struct mutex lock;		/* rotation against clear */
	struct delayed_work rotate;
	/*
	 * A rotation's second half, after its grace period (window.c): a
	 * kworker never sleeps through one, so a namespace's many rings
	 * rotating at once do not each hold a kworker.
	 */
	struct rcu_work rotated_work;
	struct kb_window *closed, *dropped;	/* for the second half */
	bool stopping;			/* under lock: no rotation after */
	unsigned long due;		/* jiffies of the next rotation */
	/*
	 * The packet path's queued digests (digest_queue.h), added before
	 * each rotation and each read; NULL when not attached. Set and
	 * cleared holding both the ring's lock and the namespace's.
	 */
	struct kb_dq *dq;
	/*
	 * Adds what dq holds (kb_dq_drain()), set with it: through a
	 * pointer, as the queues are a floor above the ring
	 * (docs/design.md, "Floors").
	 */
	void (*drain)(struct kb_dq *dq);
	/*
	 * The header of the mappings of the ring's tables (mapping.c), from
	 * the first MAP on; written under the ring's lock (below).
	 */
	struct kbloom_map_header *map;
	struct kb_map_pin *pin;	/* its charge, set with map (mapping.c) */
	/* Told of each rotation, under the ring's lock; may sleep. */
	void (*rotated)(struct kb_ring *r, const struct kb_window *closed,
			const struct kb_window *opened);
};

/* Bytes a ring of @windows tables of @s needs (W + 1 when W > 1). */
u64 kb_ring_mem_for(const struct kb_shape *s, u32 windows);

/* @windows 1 and @interval_ms 0: not time-paged. 0 or -ENOMEM. */
int kb_ring_init(struct kb_ring *r, const struct kb_shape *s, const u8 hkey[16],
		 u32 windows, u64 interval_ms);
/* Starts the rotation timer (nothing for a ring of one table). */
void kb_ring_start(struct kb_ring *r);
/*
 * Stops rotation: when it returns no rotation runs or will start, and
 * none is announced; the second half of one under way may still empty
 * its dropped table (kb_ring_quiesce() waits for that too).
 */
void kb_ring_stop(struct kb_ring *r);
/*
 * kb_ring_stop(), then waits for a rotation's second half under way (a
 * grace period and a work item): before the ring is freed.
 */
void kb_ring_quiesce(struct kb_ring *r);
void kb_ring_free(struct kb_ring *r);
/* Empties every table; windows keep their ids and times. */
void kb_ring_clear(struct kb_ring *r);

/*
 * Adds the digests the packet path still holds (nothing when it holds
 * none): a reader calls it first, under the ring's lock or its
 * namespace's, and then sees every packet that passed the hook before.
 * May sleep.
 */
void kb_ring_settle(struct kb_ring *r);

/*
 * Around a change of what a lookup through a mapping reads (a rotation's
 * new set, CLEAR), under the ring's lock: the header's seq is odd in
 * between, and end writes the ring's set into the header. Nothing for a
 * ring never mapped.
 */
void kb_map_write_begin(struct kb_ring *r);
void kb_map_write_end(struct kb_ring *r);

/* A table with the ring's shape and hash key, for reading those. */
static inline const struct kb_filter *kb_ring_shape(const struct kb_ring *r)
{
	return &r->tables[0].filter;
}

static inline bool kb_ring_paged(const struct kb_ring *r)
{
	return r->nwindows > 1;
}

/* Its tables: W + 1 (the spare) when time-paged, else 1. */
static inline u32 kb_ring_ntables(const struct kb_ring *r)
{
	return kb_ring_paged(r) ? r->nwindows + 1 : 1;
}

/* Readers that may sleep: no rotation until kb_ring_unlock(). */
static inline void kb_ring_lock(struct kb_ring *r)
{
	mutex_lock(&r->lock);
}

static inline void kb_ring_unlock(struct kb_ring *r)
{
	mutex_unlock(&r->lock);
}

/* Caller holds rcu_read_lock() or the ring's lock. */
static inline struct kb_window *kb_window_cur(const struct kb_ring *r)
{
	return rcu_dereference_check(r->cur, lockdep_is_held(&r->lock));
}

static inline const struct kb_winset *kb_window_set(const struct kb_ring *r)
{
	return rcu_dereference_check(r->set, lockdep_is_held(&r->lock));
}

/* The one table of a ring that is not time-paged (DEL, MERGE, ...). */
static inline struct kb_filter *kb_ring_only(struct kb_ring *r)
{
	return kb_ring_paged(r) ? NULL : &r->tables[0].filter;
}

static inline void kb_window_count(struct kb_window *w, unsigned long n)
{
	this_cpu_add(*w->packets, n);
}

u64 kb_window_packets(const struct kb_window *w);

#endif /* KBLOOM_WINDOW_H */
