// SPDX-License-Identifier: GPL-2.0
/*
 * Growth of the filters whose memory grows after create, through their
 * type's growth protocol (struct kb_grow_ops, engine/filter.h): scalable
 * filters' slices and dcfs' overflow vectors (uapi/kbloom.h). Below,
 * "slice" is a dcf's wider OFV too; a type that retires what growth
 * replaced (a dcf's old vector) waits a grace period before it is freed
 * and its bytes given back.
 *
 * The engine calls kb_grow_kick() from the add that takes the current
 * slice past half its capacity (or finds it full) while no next slice is
 * made; that may be the packet path, in softirq context under RCU, so the
 * kick only queues a work item. The work item, like an ADD over netlink
 * that finds the current slice full, calls kb_grow(): under the filter's
 * grow lock it charges the next slice to max_memory and the owner's
 * shares (owner.h) and allocates it with GFP_KERNEL_ACCOUNT inside the
 * memory cgroup of the process that created the filter
 * (set_active_memcg), then the engine publishes it.
 * While a slice cannot be had the engine keeps adding into the last slice
 * and counts the overflow. A refusal that may pass (a memory limit reached,
 * an allocation failed) is tried again by itself, after 1, 2, 4 ... 64 s,
 * so a filter grows on once memory is freed; the others (the shape's or
 * the filter's limits) stop growth until CLEAR.
 *
 * Lifetime: kicks come only from adders, which run under RCU or the
 * namespace lock; the filter is freed after it is unlinked and a grace
 * period has passed, and kb_grow_stop() then cancels the work item, so
 * no work runs on a freed filter (the retry after the kick's work: only
 * kb_grow() queues it, and it requeues only itself). kb_grow() never takes
 * the namespace lock (destroy holds it while it waits for the work items).
 */
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/workqueue.h>

#include "grow.h"
#include "kcompat.h"
#include "registry.h"

static const struct kb_grow_ops *kb_grow_ops(const struct kb_filter *f)
{
	return kb_filter_info(f)->grow;
}

bool kb_grows(const struct kb_filter *f)
{
	return kb_grow_ops(f);
}

u32 kb_grow_kind(const struct kb_filter *f)
{
	const struct kb_grow_ops *g = kb_grow_ops(f);

	return g ? g->kind : 0;
}

u32 kb_grow_type_kind(u32 type)
{
	const struct kb_type_info *t = kb_type_info(type);

	return t && t->grow ? t->grow->kind : 0;
}

bool kb_grow_due(const struct kb_filter *f)
{
	return kb_grow_ops(f)->due(f);
}

u64 kb_grow_overflow(const struct kb_filter *f)
{
	return kb_grow_ops(f)->overflow(f);
}

u32 kb_grow_error(const struct kb_filter *f)
{
	return kb_grow_ops(f)->error(f);
}

bool kb_grow_lost(const struct kb_filter *f)
{
	return kb_grow_kind(f) == KB_GROW_WIDER && kb_grow_overflow(f);
}

u64 kb_grow_load_mem(const struct kb_shape *s, const struct kb_saved *l)
{
	const struct kb_type_info *t = kb_type_info(s->type);

	return t && t->grow ? t->grow->load_mem(s, l) : 0;
}

int kb_grow_load(struct kb_filter *f, const struct kb_saved *l)
{
	const struct kb_grow_ops *g = kb_grow_ops(f);

	return g ? g->load(f, l) : 0;
}

void kb_grow_loaded(struct kb_filter *f)
{
	const struct kb_grow_ops *g = kb_grow_ops(f);

	if (g && g->loaded)
		g->loaded(f);
}

static void kb_grow_kick(void *arg)
{
	struct kb_obj *obj = arg;

	queue_work(system_unbound_wq, &obj->grow_work);
}

static void kb_grow_work(struct work_struct *work)
{
	kb_grow(container_of(work, struct kb_obj, grow_work));
}

/* Refusals that more memory later may lift. */
static bool kb_grow_may_pass(u32 why)
{
	return why == KBLOOM_GROW_MEMORY_LIMIT || why == KBLOOM_GROW_NOMEM;
}

#define KB_GROW_RETRY_MAX_SHIFT	6	/* back-off: at most 64 s */

static u32 kb_grow_locked(struct kb_obj *obj, struct kb_filter *f);

static void kb_grow_retry_work(struct work_struct *work)
{
	struct kb_obj *obj = container_of(to_delayed_work(work), struct kb_obj,
					  grow_retry);
	struct kb_filter *f = kb_ring_only(&obj->ring);

	mutex_lock(&obj->grow_lock);
	/* CLEAR may have lifted it meanwhile. */
	if (kb_grow_may_pass(kb_grow_error(f))) {
		kb_grow_ops(f)->fail(f, KBLOOM_GROW_OK);
		kb_grow_locked(obj, f);
	}
	mutex_unlock(&obj->grow_lock);
}

void kb_grow_init(struct kb_obj *obj)
{
	mutex_init(&obj->grow_lock);
	INIT_WORK(&obj->grow_work, kb_grow_work);
	INIT_DELAYED_WORK(&obj->grow_retry, kb_grow_retry_work);
}

void kb_grow_start(struct kb_obj *obj)
{
	struct kb_filter *f = kb_ring_only(&obj->ring);

	if (!f || !kb_grows(f))
		return;
	/* Growth is charged where the filter was: its creator's cgroup. */
	obj->memcg = get_mem_cgroup_from_mm(current->mm);
	kb_grow_ops(f)->set_kick(f, kb_grow_kick, obj);
}

void kb_grow_stop(struct kb_obj *obj)
{
	/* The kick's work first: it may queue the retry, never the reverse. */
	cancel_work_sync(&obj->grow_work);
	cancel_delayed_work_sync(&obj->grow_retry);
	mem_cgroup_put(obj->memcg);
	obj->memcg = NULL;
	mutex_destroy(&obj->grow_lock);
}

/* @bytes more (negative: fewer) charged to @obj. */
static void kb_grow_account(struct kb_obj *obj, s64 bytes)
{
	WRITE_ONCE(obj->charged, obj->charged + bytes);
}

/*
 * Charges @bytes to max_memory and has @make allocate them in the
 * creator's memcg: KBLOOM_GROW_OK with the bytes accounted, or why not
 * (nothing charged then).
 */
static u32 kb_grow_make(struct kb_obj *obj, struct kb_filter *f, u64 bytes,
			int (*make)(struct kb_filter *f))
{
	struct mem_cgroup *old;
	int err;

	if (kb_mem_charge(obj->kn, bytes))
		return KBLOOM_GROW_MEMORY_LIMIT;
	old = set_active_memcg(obj->memcg);
	err = make(f);
	set_active_memcg(old);
	if (err) {
		kb_mem_uncharge(obj->kn, bytes);
		return KBLOOM_GROW_NOMEM;
	}
	kb_grow_account(obj, bytes);
	return KBLOOM_GROW_OK;
}

/*
 * The next slice (a wider OFV); what it replaced, if anything, goes after
 * a grace period.
 */
static u32 kb_grow_one(struct kb_obj *obj, struct kb_filter *f,
		       const struct kb_grow_ops *g)
{
	u64 bytes = 0, freed;
	u32 why;

	why = g->next(f, &bytes);
	obj->grow_want = bytes;
	if (!why)
		why = kb_grow_make(obj, f, bytes, g->make);
	if (why || !g->retire)
		return why;
	/* Readers of the replaced memory run under RCU. */
	synchronize_rcu();
	freed = g->retire(f);
	kb_mem_uncharge(obj->kn, freed);
	kb_grow_account(obj, -(s64)freed);
	return KBLOOM_GROW_OK;
}

void kb_grow_settle(struct kb_obj *obj)
{
	if (kb_grow_due(kb_ring_only(&obj->ring)))
		kb_grow(obj);
	flush_work(&obj->grow_work);
}

/* kb_grow() under the grow lock; queues the retry of a refusal that may pass. */
static u32 kb_grow_locked(struct kb_obj *obj, struct kb_filter *f)
{
	const struct kb_grow_ops *g = kb_grow_ops(f);
	u32 why;

	lockdep_assert_held(&obj->grow_lock);
	if (g->wanted(f)) {
		why = kb_grow_one(obj, f, g);
		if (why)
			g->fail(f, why);
	}
	why = g->error(f);
	if (!kb_grow_may_pass(why)) {
		obj->grow_retries = 0;
	} else if (!delayed_work_pending(&obj->grow_retry)) {
		queue_delayed_work(system_unbound_wq, &obj->grow_retry,
				   HZ << min_t(unsigned int, obj->grow_retries,
					       KB_GROW_RETRY_MAX_SHIFT));
		obj->grow_retries++;
	}
	return why;
}

u32 kb_grow(struct kb_obj *obj)
{
	u32 why;

	mutex_lock(&obj->grow_lock);
	why = kb_grow_locked(obj, kb_ring_only(&obj->ring));
	mutex_unlock(&obj->grow_lock);
	return why;
}

/* A dcf dropped increments: why, in @extack. */
static void kb_grow_explain_dcf(struct kb_obj *obj, struct kb_filter *f,
				struct netlink_ext_ack *extack)
{
	switch (kb_grow_error(f)) {
	case KBLOOM_GROW_MEMORY_LIMIT:
		KB_ERR_MSG_FMT(extack,
			       "dcf cannot widen its overflow vector: max_memory or the user namespace owner's share would be passed; increments were dropped (LOST), counts may be low, DEL is refused until CLEAR",
			       "max_memory %llu: no OFV of %llu B; increments dropped (LOST)",
			       kb_max_memory(), obj->grow_want);
		break;
	case KBLOOM_GROW_OK:
	case KBLOOM_GROW_SHAPE_LIMIT:
		NL_SET_ERR_MSG(extack,
			       "dcf counts passed what 32-bit overflow counters hold; increments were dropped (LOST), DEL is refused until CLEAR");
		break;
	default:
		NL_SET_ERR_MSG(extack,
			       "dcf cannot widen its overflow vector (allocation or 1 GiB limit); increments were dropped (LOST), counts may be low, DEL is refused until CLEAR");
		break;
	}
}

/*
 * Formatted messages (6.2+) hold 80 bytes: the figures and the gist;
 * 6.1 gets the fixed text, which says more.
 */
void kb_grow_explain(struct kb_obj *obj, struct netlink_ext_ack *extack)
{
	struct kb_filter *f = kb_ring_only(&obj->ring);

	if (kb_grow_kind(f) == KB_GROW_WIDER) {
		kb_grow_explain_dcf(obj, f, extack);
		return;
	}
	switch (kb_grow_error(f)) {
	case KBLOOM_GROW_MEMORY_LIMIT:
		KB_ERR_MSG_FMT(extack,
			       "scalable filter cannot grow: its next slice would pass max_memory or the user namespace owner's share; keys were added to its last slice beyond its capacity",
			       "max_memory %llu: no slice of %llu B; keys were added anyway",
			       kb_max_memory(), obj->grow_want);
		break;
	case KBLOOM_GROW_FILTER_LIMIT:
		NL_SET_ERR_MSG(extack,
			       "scalable filter cannot grow: its slices would pass 1 GiB of cells; keys were added to its last slice beyond its capacity");
		break;
	case KBLOOM_GROW_SHAPE_LIMIT:
		NL_SET_ERR_MSG(extack,
			       "scalable filter cannot grow: its next slice would pass 32 slices, 2^33 bits or 32 hashes; keys were added to its last slice beyond its capacity");
		break;
	default:
		NL_SET_ERR_MSG(extack,
			       "scalable filter cannot grow: allocating its next slice failed; keys were added to its last slice beyond its capacity");
		break;
	}
}
