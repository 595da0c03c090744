/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory charging: the module's max_memory and the limits per owner, the
 * user who made the user namespace a network namespace belongs to
 * (owner.c).
 */
#ifndef KBLOOM_OWNER_H
#define KBLOOM_OWNER_H

#include <linux/types.h>

struct user_namespace;
struct kb_owner;
struct kb_net;

/* Which limit refused a charge. */
enum kb_limit {
	KB_LIMIT_NONE,
	KB_LIMIT_MODULE,	/* max_memory */
	KB_LIMIT_USERNS,	/* userns_memory_percent: all owners together */
	KB_LIMIT_OWNER,		/* user_memory_percent: this owner */
	KB_LIMIT_OWNER_FILTERS,	/* user_max_filters */
};

/* What an owner uses and may use, for STATUS and refusals. */
struct kb_owner_usage {
	u64 mem, mem_limit;
	u32 nfilters, max_filters;
	u32 uid;			/* in the initial user namespace */
};

/*
 * The owner of a netns of @ns, referenced; NULL for the initial user
 * namespace's (no limit but max_memory); ERR_PTR(-ENOMEM).
 */
struct kb_owner *kb_owner_get(struct user_namespace *ns);
void kb_owner_put(struct kb_owner *o);

/* Reserves @bytes of @o's shares of @max_memory, or says which limit. */
enum kb_limit kb_owner_charge(struct kb_owner *o, u64 bytes, u64 max_memory);
void kb_owner_uncharge(struct kb_owner *o, u64 bytes);
/* One filter more, or KB_LIMIT_OWNER_FILTERS. */
enum kb_limit kb_owner_add_filter(struct kb_owner *o);
void kb_owner_del_filters(struct kb_owner *o, unsigned int n);

void kb_owner_usage(const struct kb_owner *o, u64 max_memory,
		    struct kb_owner_usage *u);
/* The cap on all owners together, in bytes. */
u64 kb_userns_limit(u64 max_memory);

/* Sets max_memory's default (a quarter of RAM) when none was given. */
void kb_owner_init(void);
/* max_memory, and the bytes charged to it by all namespaces. */
u64 kb_max_memory(void);
s64 kb_mem_all(void);

/*
 * Reserves @bytes for the namespace @kn (registry.h) against max_memory
 * and its owner's shares, or says which limit would be passed (nothing
 * charged then). Below the registry: growth and mappings charge too.
 */
enum kb_limit kb_mem_charge(struct kb_net *kn, u64 bytes);
void kb_mem_uncharge(struct kb_net *kn, u64 bytes);

#endif /* KBLOOM_OWNER_H */
