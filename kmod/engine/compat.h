/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The few kernel primitives the filter engine uses, so the same engine
 * source compiles into the module and into host tests and benchmarks.
 */
#ifndef KBLOOM_ENGINE_COMPAT_H
#define KBLOOM_ENGINE_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/bitops.h>
#include <linux/bitmap.h>
#include <linux/math64.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/string.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/random.h>
#include <linux/atomic.h>
#include <linux/prefetch.h>
#include <linux/seqlock.h>
#include <linux/indirect_call_wrapper.h>

/*
 * Filter memory is charged to the caller's memcg, and may fail: a request
 * larger than the memcg or the machine can give is refused with ENOMEM
 * instead of calling the OOM killer (__GFP_RETRY_MAYFAIL, as the BPF
 * map's large allocations). A page or more is vmalloc memory, on 2 MiB
 * mappings where it fills them (as kvmalloc's): its pages are each their
 * own, so /dev/kbloom can map them into a process with a reference
 * (mapping.c). Less is slab memory, never mapped.
 */
static inline void *kb_zalloc_large(size_t size)
{
	gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN;

	if (size < PAGE_SIZE)
		return kzalloc(size, gfp);
	return vmalloc_huge(size, gfp | __GFP_ZERO);
}

static inline void kb_free_large(void *p)
{
	kvfree(p);
}

/* Counters shared by every CPU (scalable slices' keys). */
#define kb_atomic64_t			atomic64_t
#define kb_atomic64_read(v)		atomic64_read(v)
#define kb_atomic64_set(v, i)		atomic64_set(v, i)
#define kb_atomic64_inc_return(v)	atomic64_inc_return(v)
#define kb_atomic64_inc(v)		atomic64_inc(v)

/*
 * The dcf's lock: rare writers (carries, borrows, widening) from any
 * context, the packet path included, so interrupts go off meanwhile;
 * readers retry instead of waiting.
 */
#define kb_seqlock_t			seqlock_t
#define kb_seqlock_init(l)		seqlock_init(l)
#define kb_write_seqlock(l, flags)	write_seqlock_irqsave(l, flags)
#define kb_write_sequnlock(l, flags)	write_sequnlock_irqrestore(l, flags)
#define kb_read_seqbegin(l)		read_seqbegin(l)
#define kb_read_seqretry(l, seq)	read_seqretry(l, seq)

/* Compare-and-exchange on a 32-bit cell word; returns the value found. */
static inline u32 kb_cmpxchg32(u32 *p, u32 old, u32 new)
{
	return cmpxchg(p, old, new);
}

/* A hint to start loading a cache line a batch will need soon. */
static inline void kb_prefetch(const void *p)
{
	prefetch(p);
}

/* The same, for a line about to be written. */
static inline void kb_prefetchw(const void *p)
{
	prefetchw(p);
}

/* Random cells for the stable filter; fine in softirq context. */
static inline u32 kb_random_u32(void)
{
	return get_random_u32();
}

/* Long loops over filter memory give the CPU back now and then. */
static inline void kb_resched(void)
{
	cond_resched();
}

#else
/* Host builds: kmod/engine/host/kbloom_host_compat.h, on the include path. */
#include <kbloom_host_compat.h>
#endif /* __KERNEL__ */

#endif /* KBLOOM_ENGINE_COMPAT_H */
