// SPDX-License-Identifier: GPL-2.0
/*
 * Growth of scalable filters (uapi/kbloom.h, KBLOOM_TYPE_SCALABLE).
 *
 * The engine calls kb_grow_kick() from the add that takes the current
 * slice past half its capacity (or finds it full) while no next slice is
 * made; that may be the packet path, in softirq context under RCU, so the
 * kick only queues a work item. The work item, like an ADD over netlink
 * that finds the current slice full, calls kb_grow(): under the filter's
 * grow lock it charges the next slice to max_memory and allocates it
 * with GFP_KERNEL_ACCOUNT inside the memory cgroup of the process that
 * created the filter (set_active_memcg), then the engine publishes it.
 * A slice that cannot be had stops growth for good (until CLEAR); the
 * engine then keeps adding into the last slice and counts the overflow.
 *
 * Lifetime: kicks come only from adders, which run under RCU or the
 * namespace lock; the filter is freed after it is unlinked and a grace
 * period has passed, and kb_grow_stop() then cancels the work item, so
 * no work runs on a freed filter. kb_grow() never takes the namespace
 * lock (destroy holds it while it waits for the work item).
 */
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/workqueue.h>

#include "grow.h"
#include "kcompat.h"
#include "registry.h"

static void kb_grow_kick(void *arg)
{
	struct kb_obj *obj = arg;

	queue_work(system_unbound_wq, &obj->grow_work);
}

static void kb_grow_work(struct work_struct *work)
{
	kb_grow(container_of(work, struct kb_obj, grow_work));
}

void kb_grow_init(struct kb_obj *obj)
{
	mutex_init(&obj->grow_lock);
	INIT_WORK(&obj->grow_work, kb_grow_work);
}

void kb_grow_start(struct kb_obj *obj)
{
	struct kb_filter *f = kb_ring_only(&obj->ring);

	if (!f || !kb_filter_is_scalable(f))
		return;
	/* Slices are charged where the filter was: its creator's cgroup. */
	obj->memcg = get_mem_cgroup_from_mm(current->mm);
	kb_scalable_set_kick(f, kb_grow_kick, obj);
}

void kb_grow_stop(struct kb_obj *obj)
{
	cancel_work_sync(&obj->grow_work);
	mem_cgroup_put(obj->memcg);
	obj->memcg = NULL;
	mutex_destroy(&obj->grow_lock);
}

u32 kb_grow(struct kb_obj *obj)
{
	struct kb_filter *f = kb_ring_only(&obj->ring);
	struct mem_cgroup *old;
	struct kb_shape s;
	u64 bytes = 0;
	u32 why;

	mutex_lock(&obj->grow_lock);
	if (!kb_scalable_wants_slice(f))
		goto out;
	why = kb_scalable_next(f, &s, &bytes);
	obj->grow_want = bytes;
	if (!why && !kb_mem_charge(bytes))
		why = KBLOOM_GROW_MEMORY_LIMIT;
	if (!why) {
		old = set_active_memcg(obj->memcg);
		if (kb_scalable_grow(f)) {
			kb_mem_uncharge(bytes);
			why = KBLOOM_GROW_NOMEM;
		} else {
			WRITE_ONCE(obj->charged, obj->charged + bytes);
			atomic64_add(bytes, &obj->kn->mem_used);
		}
		set_active_memcg(old);
	}
	if (why)
		kb_scalable_fail(f, why);
out:
	why = kb_scalable_grow_error(f);
	mutex_unlock(&obj->grow_lock);
	return why;
}

void kb_grow_explain(struct kb_obj *obj, struct netlink_ext_ack *extack)
{
	struct kb_filter *f = kb_ring_only(&obj->ring);
	struct kb_usage u;

	switch (kb_scalable_grow_error(f)) {
	case KBLOOM_GROW_MEMORY_LIMIT:
		kb_usage(obj->kn, &u);
		KB_ERR_MSG_FMT(extack,
			       "scalable filter cannot grow: its next slice would pass the module memory limit max_memory; keys were added to its last slice beyond its capacity",
			       "scalable filter cannot grow: its next slice needs %llu bytes, %llu of max_memory %llu are in use; keys were added to its last slice beyond its capacity",
			       obj->grow_want, u.mem_all, u.mem_limit);
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
