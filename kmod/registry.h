/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-network-namespace registry of named filters. Lookups run under RCU;
 * changes take the namespace's mutex.
 */
#ifndef KBLOOM_REGISTRY_H
#define KBLOOM_REGISTRY_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/rcupdate.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>

#include "engine/filter.h"
#include "owner.h"
#include "uapi/kbloom.h"
#include "window.h"

struct kb_attach;

struct kb_pcpu_stats {
	u64_stats_t inserts;
	u64_stats_t queries;
	u64_stats_t positives;
	u64_stats_t deletes;
	struct u64_stats_sync syncp;
	/*
	 * The hook's digests, counted into inserts by kb_stats_read(): one
	 * this_cpu_inc() a packet, safe in any context, outside syncp. Not
	 * the attachment's own digested count (attach.c): that one is freed
	 * at DETACH and starts again at 0 on the next ATTACH, while the
	 * filter's inserts keep every digest it was given.
	 */
	unsigned long hooked;
};

struct kb_stats {
	u64 inserts;
	u64 queries;
	u64 positives;
	u64 deletes;
};

struct kb_obj {
	struct list_head node;		/* kb_net.filters, RCU */
	char name[KBLOOM_NAME_MAX];
	u64 capacity;			/* as given at create, for show */
	u64 generation;			/* under kb_net.lock */
	u64 serial;			/* this filter, never a later one of
					 * its name (kb_net.serials)
					 */
	u64 charged;			/* bytes charged to the memory limit;
					 * grows under grow_lock (scalable)
					 */
	char dim_names[KBLOOM_DIMS_MAX][KBLOOM_DIM_NAME_MAX];	/* multi */
	struct kb_pcpu_stats __percpu *stats;
	struct kb_attach *attach;	/* under kb_net.lock; NULL: none */
	u32 loader;			/* portid restoring it; 0: usable */
	u64 loaded;			/* bytes of cells imported so far */
	struct kb_ring ring;		/* the table, or the windows */
	possible_net_t net;		/* the netns it lives in, for events */
	struct kb_net *kn;		/* its namespace's accounting */
	/* Scalable filters' growth (grow.c). */
	struct mutex grow_lock;		/* making slices, against clear */
	struct work_struct grow_work;
	struct delayed_work grow_retry;	/* after a refusal that may pass */
	unsigned int grow_retries;	/* in a row, for the back-off */
	struct mem_cgroup *memcg;	/* charged for the slices made */
	u64 grow_want;			/* bytes the last slice asked for */
};

struct kb_net {
	struct mutex lock;		/* serialises every change */
	struct list_head filters;
	unsigned int nfilters;
	unsigned int dump_gen;		/* bumped on create/destroy */
	u64 serials;			/* filters ever created here */
	atomic64_t mem_used;		/* bytes charged by this netns */
	atomic64_t mem_mapped_gone;	/* of them, destroyed filters' that
					 * mappings hold (mapping.c)
					 */
	struct kb_owner *owner;		/* NULL: of the initial user ns */
};

struct kb_usage {
	u32 nfilters, max_filters;
	u64 mem_netns, mem_mapped_gone, mem_all, mem_limit;
	bool owned;			/* the netns has an owner: */
	struct kb_owner_usage owner;	/* its figures */
};

struct kb_create_args {
	struct net *net;
	const char *name;
	struct kb_shape shape;
	u64 capacity;
	const u8 *hash_key;		/* NULL: draw a random key */
	const char *dim_names[KBLOOM_DIMS_MAX];	/* multi: shape.dims of them */
	u32 loader;			/* KBLOOM_F_LOAD: the socket's portid */
	/*
	 * KBLOOM_F_EXIST: a filter of the name with these very parameters
	 * is success, and nothing changes.
	 */
	bool exist_ok;
	u32 windows;			/* 0 or 1: not time-paged */
	u64 interval_ms;
	/* The caller may see figures of all namespaces (init-ns admin). */
	bool global_figures;
	/* KBLOOM_F_LOAD of a scalable filter or a dcf: the saved layout. */
	const struct nlattr *layout;	/* SLICE_LIST or OFV_BITS (extack) */
	struct kb_saved saved;
};

int kb_registry_init(void);
void kb_registry_exit(void);

struct kb_net *kb_net(const struct net *net);
/* Caller holds rcu_read_lock() or kn->lock. */
struct kb_obj *kb_lookup(struct kb_net *kn, const char *name);

/* The kb_net lock must be held for these. */
int kb_create(struct kb_net *kn, const struct kb_create_args *args,
	      struct netlink_ext_ack *extack);
void kb_destroy(struct kb_net *kn, struct kb_obj *obj);
void kb_destroy_all(struct kb_net *kn);
void kb_clear(struct kb_obj *obj);

/* Created with KBLOOM_F_LOAD and not yet complete: usable by no one else. */
static inline bool kb_loading(const struct kb_obj *obj)
{
	/* Pairs with kb_loaded(): a reader seeing 0 sees the cells. */
	return smp_load_acquire(&obj->loader) != 0;
}

/* The load is complete: cells written before are seen by every reader. */
static inline void kb_loaded(struct kb_obj *obj)
{
	/* Pairs with kb_loading(). */
	smp_store_release(&obj->loader, 0);
}

/* What @kn and the module use, and the limits; kb_net.lock held. */
void kb_usage(const struct kb_net *kn, struct kb_usage *u);

void kb_stats_add(struct kb_obj *obj, const struct kb_stats *delta);
void kb_stats_read(const struct kb_obj *obj, struct kb_stats *st);

#endif /* KBLOOM_REGISTRY_H */
