// SPDX-License-Identifier: GPL-2.0
/*
 * Time-paged filters: the ring of windows and its rotation.
 *
 * Rotation (a delayed work item, so it may sleep):
 *   0. the digests the packet path queued are added (digest_queue.c);
 *   1. the spare table, emptied at the previous rotation, opens as the
 *      current window and heads a new set; the oldest window drops out;
 *   2. a grace period: every reader of the old set and every insert into
 *      the old current window is done. Waited for by an rcu_work, not
 *      synchronize_rcu(): a kworker sleeping through each rotation's
 *      grace period let one owner's thousand 1 s rings hold hundreds;
 *   3. (the rcu_work) the rotation is announced, the dropped table is
 *      emptied, off the packet path, and becomes the spare for the next
 *      rotation, which is armed only then.
 */
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>

#include "window.h"

u64 kb_ring_mem_for(const struct kb_shape *s, u32 windows)
{
	u32 tables = windows > 1 ? windows + 1 : 1;

	return tables * (kb_filter_mem_for(s) + sizeof(struct kb_window) +
			 num_possible_cpus() * sizeof(unsigned long)) +
	       2 * struct_size((struct kb_winset *)NULL, w, windows);
}

u64 kb_window_packets(const struct kb_window *w)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(w->packets, cpu);
	return sum;
}

static void kb_window_reset(struct kb_window *w)
{
	int cpu;

	kb_filter_clear(&w->filter);
	for_each_possible_cpu(cpu) {
		unsigned long *n = per_cpu_ptr(w->packets, cpu);

		*n = 0;
	}
	atomic_set(&w->tunnels, 0);
}

static void kb_ring_rotate(struct work_struct *work);
static void kb_ring_rotated(struct work_struct *work);

int kb_ring_init(struct kb_ring *r, const struct kb_shape *s, const u8 hkey[16],
		 u32 windows, u64 interval_ms)
{
	struct kb_window *first;
	u32 i, n;
	int err;

	r->nwindows = windows;
	r->interval_ms = interval_ms;
	mutex_init(&r->lock);
	INIT_DELAYED_WORK(&r->rotate, kb_ring_rotate);
	INIT_RCU_WORK(&r->rotated_work, kb_ring_rotated);
	n = kb_ring_ntables(r);
	r->tables = kcalloc(n, sizeof(*r->tables), GFP_KERNEL_ACCOUNT);
	for (i = 0; i < 2; i++)
		r->sets[i] = kzalloc(struct_size(r->sets[i], w, windows),
				     GFP_KERNEL_ACCOUNT);
	if (!r->tables || !r->sets[0] || !r->sets[1])
		goto err_nomem;
	for (i = 0; i < n; i++) {
		struct kb_window *w = &r->tables[i];

		w->packets = alloc_percpu_gfp(unsigned long, GFP_KERNEL_ACCOUNT);
		if (!w->packets)
			goto err_nomem;
		err = kb_filter_init(&w->filter, s, hkey);
		if (err)
			goto err_free;
	}

	first = &r->tables[0];
	first->id = 1;
	first->start_ns = ktime_get_real_ns();
	r->next_id = 2;
	r->sets[0]->n = 1;
	r->sets[0]->w[0] = first;
	r->spare = kb_ring_paged(r) ? &r->tables[1] : NULL;
	RCU_INIT_POINTER(r->cur, first);
	RCU_INIT_POINTER(r->set, r->sets[0]);
	return 0;

err_nomem:
	err = -ENOMEM;
err_free:
	kb_ring_free(r);
	return err;
}

void kb_ring_start(struct kb_ring *r)
{
	if (!kb_ring_paged(r))
		return;
	r->due = jiffies + msecs_to_jiffies(r->interval_ms);
	queue_delayed_work(system_unbound_wq, &r->rotate,
			   msecs_to_jiffies(r->interval_ms));
}

void kb_ring_stop(struct kb_ring *r)
{
	/* A second half under way announces nothing and arms nothing. */
	mutex_lock(&r->lock);
	r->stopping = true;
	mutex_unlock(&r->lock);
	cancel_delayed_work_sync(&r->rotate);
}

void kb_ring_quiesce(struct kb_ring *r)
{
	kb_ring_stop(r);
	/* Its grace period, then the second half itself, if it is due. */
	flush_rcu_work(&r->rotated_work);
}

void kb_map_write_begin(struct kb_ring *r)
{
	struct kbloom_map_header *h = r->map;

	if (!h)
		return;
	WRITE_ONCE(h->seq, h->seq + 1);
	/* Odd before any change is seen; pairs with the reader's barrier. */
	smp_wmb();
}

void kb_map_write_end(struct kb_ring *r)
{
	const struct kb_winset *set;
	struct kbloom_map_header *h = r->map;
	u32 i;

	if (!h)
		return;
	set = kb_window_set(r);
	for (i = 0; i < set->n; i++) {
		const struct kb_window *w = set->w[i];
		struct kbloom_map_window *e = &h->window[i];

		e->table = w - r->tables;
		e->id = w->id;
		e->start_ns = w->start_ns;
		e->end_ns = READ_ONCE(w->end_ns);
	}
	h->nwindows = set->n;
	/* Every change seen before seq is even again. */
	smp_wmb();
	WRITE_ONCE(h->seq, h->seq + 1);
}

/* The filter is gone: says so in the header and lets it go. */
static void kb_map_release(struct kb_ring *r)
{
	struct kbloom_map_header *h = r->map;

	if (!h)
		return;
	WRITE_ONCE(h->seq, h->seq + 1);
	/* As in write_begin and write_end. */
	smp_wmb();
	h->flags |= KBLOOM_MAP_F_DESTROYED;
	/* As in write_end. */
	smp_wmb();
	WRITE_ONCE(h->seq, h->seq + 1);
	r->map = NULL;
	/* Pages still mapped are freed when their last mapping goes. */
	vfree(h);
}

void kb_ring_free(struct kb_ring *r)
{
	u32 i;

	/* Mappers see the filter go before its cells do. */
	kb_map_release(r);
	if (r->tables) {
		for (i = 0; i < kb_ring_ntables(r); i++) {
			kb_filter_free(&r->tables[i].filter);
			free_percpu(r->tables[i].packets);
		}
	}
	kfree(r->tables);
	kfree(r->sets[0]);
	kfree(r->sets[1]);
	mutex_destroy(&r->lock);
	memset(r, 0, sizeof(*r));
}

/* Schedules the next rotation on the interval grid, not after this one. */
static void kb_ring_rearm(struct kb_ring *r)
{
	unsigned long step = msecs_to_jiffies(r->interval_ms);

	r->due += step;
	/* Far behind (a stalled VM): restart the grid rather than catch up. */
	if (time_before(r->due, jiffies))
		r->due = jiffies + step;
	queue_delayed_work(system_unbound_wq, &r->rotate, r->due - jiffies);
}

static void kb_ring_rotate(struct work_struct *work)
{
	struct kb_ring *r = container_of(to_delayed_work(work), struct kb_ring,
					 rotate);
	struct kb_winset *old, *next;
	struct kb_window *open, *dropped = NULL;
	u64 now = ktime_get_real_ns();
	u32 i;

	mutex_lock(&r->lock);
	if (r->stopping) {
		mutex_unlock(&r->lock);
		return;
	}
	/* What passed the hook before the rotation is in the window it closes. */
	kb_ring_settle(r);
	old = rcu_dereference_protected(r->set, lockdep_is_held(&r->lock));
	next = old == r->sets[0] ? r->sets[1] : r->sets[0];
	open = r->spare;

	open->id = r->next_id++;
	open->start_ns = now;
	open->end_ns = 0;
	WRITE_ONCE(old->w[0]->end_ns, now);

	next->w[0] = open;
	next->n = 1;
	for (i = 0; i < old->n; i++) {
		if (next->n < r->nwindows)
			next->w[next->n++] = old->w[i];
		else
			dropped = old->w[i];
	}
	/* Until it is emptied, the dropped table is no one's. */
	r->spare = NULL;
	kb_map_write_begin(r);
	rcu_assign_pointer(r->set, next);
	rcu_assign_pointer(r->cur, open);
	/*
	 * A lookup through a mapping that began before this retries; one
	 * that begins after never reads the dropped table, emptied below.
	 */
	kb_map_write_end(r);
	r->closed = old->w[0];
	r->dropped = dropped;
	queue_rcu_work(system_unbound_wq, &r->rotated_work);
	mutex_unlock(&r->lock);
}

/* After the rotation's grace period: no reader or insert of then is left. */
static void kb_ring_rotated(struct work_struct *work)
{
	struct kb_ring *r = container_of(to_rcu_work(work), struct kb_ring,
					 rotated_work);
	struct kb_window *dropped;
	u32 i;

	mutex_lock(&r->lock);
	dropped = r->dropped;
	if (r->rotated && !r->stopping)
		r->rotated(r, r->closed, kb_window_cur(r));

	if (!dropped) {
		/* The ring is still filling: take an unused table. */
		for (i = 0; i < r->nwindows + 1; i++) {
			struct kb_window *w = &r->tables[i];

			if (!w->id) {
				dropped = w;
				break;
			}
		}
	}
	kb_window_reset(dropped);
	dropped->id = 0;
	dropped->start_ns = 0;
	dropped->end_ns = 0;
	r->spare = dropped;
	r->closed = NULL;
	r->dropped = NULL;
	if (!r->stopping)
		kb_ring_rearm(r);
	mutex_unlock(&r->lock);
}

void kb_ring_settle(struct kb_ring *r)
{
	if (r->dq)
		r->drain(r->dq);
}

void kb_ring_clear(struct kb_ring *r)
{
	const struct kb_winset *set;
	u64 now = ktime_get_real_ns();
	u32 i;

	mutex_lock(&r->lock);
	kb_map_write_begin(r);
	for (i = 0; i < kb_ring_ntables(r); i++)
		kb_window_reset(&r->tables[i]);
	/*
	 * What they held is gone: no window covers a time before now (a
	 * packet of then is "not recorded", not absent). The closed ones
	 * cover nothing; the open one starts now.
	 */
	set = kb_window_set(r);
	for (i = 0; i < set->n; i++) {
		WRITE_ONCE(set->w[i]->start_ns, now);
		if (set->w[i]->end_ns)
			WRITE_ONCE(set->w[i]->end_ns, now);
	}
	kb_map_write_end(r);
	mutex_unlock(&r->lock);
}
