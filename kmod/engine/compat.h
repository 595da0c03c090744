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
#include <linux/string.h>
#include <linux/mm.h>
#include <linux/sched.h>

/* Filter memory is charged to the caller's memcg. */
static inline void *kb_zalloc_large(size_t size)
{
	return kvzalloc(size, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
}

static inline void kb_free_large(void *p)
{
	kvfree(p);
}

/* Long loops over filter memory give the CPU back now and then. */
static inline void kb_resched(void)
{
	cond_resched();
}

#else
/* Host builds: userspace/lib/kbloom_host_compat.h, on the include path. */
#include <kbloom_host_compat.h>
#endif /* __KERNEL__ */
#endif /* KBLOOM_ENGINE_COMPAT_H */
