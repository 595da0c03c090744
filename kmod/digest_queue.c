// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU digest queues: a struct kb_batch (engine/batch.h) per CPU.
 *
 * A CPU's queue is used only on that CPU with bottom halves disabled:
 * hooks run in softirq, or in process context where kb_dq_put() disables
 * them, so a hook never interrupts another's use of it. Others reach it
 * through the CPU itself: kb_dq_drain() queues a work item on each online
 * CPU holding digests and waits for it, with CPU hotplug held off; the
 * queue of an offline CPU, where nothing runs, it adds itself. A CPU that
 * goes idle or offline keeps its digests queued until the next drain,
 * which every reader, rotation and detach makes first.
 */
#include <linux/bottom_half.h>
#include <linux/cpu.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "digest_queue.h"
#include "engine/batch.h"
#include "window.h"

struct kb_dq_cpu {
	struct kb_batch batch;
	struct work_struct drain;	/* runs on this CPU */
	struct kb_dq *dq;
};

struct kb_dq {
	struct kb_ring *ring;
	struct kb_dq_cpu __percpu *cpu;
};

/* Into the window current now: a rotation drains before it swaps. */
static void kb_dq_add(struct kb_dq *dq, struct kb_dq_cpu *c)
{
	struct kb_window *w;

	rcu_read_lock();
	w = kb_window_cur(dq->ring);
	kb_window_count(w, kb_batch_add(&c->batch, &w->filter));
	rcu_read_unlock();
}

static void kb_dq_drain_work(struct work_struct *work)
{
	struct kb_dq_cpu *c = container_of(work, struct kb_dq_cpu, drain);

	local_bh_disable();
	if (c->batch.n)
		kb_dq_add(c->dq, c);
	local_bh_enable();
}

struct kb_dq *kb_dq_new(struct kb_ring *r)
{
	struct kb_dq *dq;
	int cpu;

	dq = kzalloc(sizeof(*dq), GFP_KERNEL_ACCOUNT);
	if (!dq)
		return NULL;
	dq->cpu = alloc_percpu_gfp(struct kb_dq_cpu,
				   GFP_KERNEL_ACCOUNT);
	if (!dq->cpu) {
		kfree(dq);
		return NULL;
	}
	dq->ring = r;
	for_each_possible_cpu(cpu) {
		struct kb_dq_cpu *c = per_cpu_ptr(dq->cpu, cpu);

		INIT_WORK(&c->drain, kb_dq_drain_work);
		c->dq = dq;
	}
	return dq;
}

void kb_dq_put(struct kb_dq *dq, const void *key, u32 len)
{
	/* In softirq already (forwarding, input): no second disable. */
	bool task = !in_softirq();
	struct kb_dq_cpu *c;
	struct kb_window *w;

	if (task)
		local_bh_disable();
	c = this_cpu_ptr(dq->cpu);
	w = kb_window_cur(dq->ring);
	if (kb_batch_put(&c->batch, &w->filter, key, len))
		kb_window_count(w, kb_batch_add(&c->batch, &w->filter));
	if (task)
		local_bh_enable();
}

void kb_dq_drain(struct kb_dq *dq)
{
	int cpu;

	cpus_read_lock();
	/* Pairs with the hooks' stores of batch.n: what passed is seen. */
	smp_mb();
	for_each_online_cpu(cpu) {
		struct kb_dq_cpu *c = per_cpu_ptr(dq->cpu, cpu);

		if (READ_ONCE(c->batch.n))
			queue_work_on(cpu, system_highpri_wq, &c->drain);
	}
	for_each_possible_cpu(cpu) {
		struct kb_dq_cpu *c = per_cpu_ptr(dq->cpu, cpu);

		if (cpu_online(cpu))
			flush_work(&c->drain);
		else if (c->batch.n)
			kb_dq_add(dq, c);
	}
	cpus_read_unlock();
}

void kb_dq_free(struct kb_dq *dq)
{
	int cpu;

	if (!dq)
		return;
	for_each_possible_cpu(cpu) {
		struct kb_dq_cpu *c = per_cpu_ptr(dq->cpu, cpu);

		if (c->batch.n)
			kb_dq_add(dq, c);
	}
	free_percpu(dq->cpu);
	kfree(dq);
}
