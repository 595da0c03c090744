// SPDX-License-Identifier: GPL-2.0
/*
 * Memory and filter limits per owner. A root of a user namespace may make
 * as many network namespaces, and nested user namespaces, as it likes, so
 * a limit per network namespace would not hold it; the user who made the
 * top user namespace (its owner, a uid of the initial namespace) cannot
 * multiply. Each such owner may use user_memory_percent of max_memory and
 * hold user_max_filters filters over all its namespaces, and all owners
 * together userns_memory_percent, so the initial namespace's admin always
 * keeps the rest. Namespaces of the initial user namespace have no owner
 * here: only max_memory and max_filters bound them.
 *
 * Every charge to max_memory is made here, below the registry, growth
 * and mappings, which all charge (docs/design.md, "Floors").
 */
#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>

#include "owner.h"
#include "registry.h"

static unsigned long max_memory;
module_param(max_memory, ulong, 0644);
MODULE_PARM_DESC(max_memory,
		 "Bytes of filter memory all namespaces may use (0 at load: a quarter of RAM)");

static unsigned int userns_memory_percent = 50;
module_param(userns_memory_percent, uint, 0644);
MODULE_PARM_DESC(userns_memory_percent,
		 "Percent of max_memory the namespaces of all user namespaces may use together");

static unsigned int user_memory_percent = 25;
module_param(user_memory_percent, uint, 0644);
MODULE_PARM_DESC(user_memory_percent,
		 "Percent of max_memory the namespaces of one user's user namespaces may use");

static unsigned int user_max_filters = 1024;
module_param(user_max_filters, uint, 0644);
MODULE_PARM_DESC(user_max_filters,
		 "Filters the namespaces of one user's user namespaces may hold");

struct kb_owner {
	struct hlist_node node;		/* in kb_owners, under kb_owners_lock */
	kuid_t uid;
	refcount_t ref;			/* one per kb_net of the owner */
	atomic64_t mem;
	atomic_t nfilters;
};

static DEFINE_HASHTABLE(kb_owners, 6);
static DEFINE_SPINLOCK(kb_owners_lock);
static atomic64_t kb_userns_mem = ATOMIC64_INIT(0);
static atomic64_t kb_mem_used = ATOMIC64_INIT(0);

static u64 kb_share(u64 max_memory, unsigned int percent)
{
	return mult_frac(max_memory, min(percent, 100U), 100);
}

u64 kb_userns_limit(u64 max_memory)
{
	return kb_share(max_memory, READ_ONCE(userns_memory_percent));
}

static struct kb_owner *kb_owner_find(kuid_t uid)
{
	struct kb_owner *o;

	hash_for_each_possible(kb_owners, o, node, __kuid_val(uid))
		if (uid_eq(o->uid, uid))
			return o;
	return NULL;
}

struct kb_owner *kb_owner_get(struct user_namespace *ns)
{
	struct kb_owner *o, *fresh;

	if (ns == &init_user_ns)
		return NULL;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;

	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return ERR_PTR(-ENOMEM);
	spin_lock(&kb_owners_lock);
	o = kb_owner_find(ns->owner);
	if (o) {
		refcount_inc(&o->ref);
	} else {
		o = fresh;
		fresh = NULL;
		o->uid = ns->owner;
		refcount_set(&o->ref, 1);
		hash_add(kb_owners, &o->node, __kuid_val(o->uid));
	}
	spin_unlock(&kb_owners_lock);
	kfree(fresh);
	return o;
}

void kb_owner_put(struct kb_owner *o)
{
	if (!o || !refcount_dec_and_lock(&o->ref, &kb_owners_lock))
		return;
	hash_del(&o->node);
	spin_unlock(&kb_owners_lock);
	WARN_ON(atomic64_read(&o->mem) || atomic_read(&o->nfilters));
	kfree(o);
}

/* Adds @bytes to @used unless that passes @limit. */
static bool kb_take(atomic64_t *used, u64 bytes, u64 limit)
{
	if ((u64)atomic64_add_return(bytes, used) > limit) {
		atomic64_sub(bytes, used);
		return false;
	}
	return true;
}

enum kb_limit kb_owner_charge(struct kb_owner *o, u64 bytes, u64 max_memory)
{
	if (!kb_take(&kb_userns_mem, bytes, kb_userns_limit(max_memory)))
		return KB_LIMIT_USERNS;
	if (!kb_take(&o->mem, bytes,
		     kb_share(max_memory, READ_ONCE(user_memory_percent)))) {
		atomic64_sub(bytes, &kb_userns_mem);
		return KB_LIMIT_OWNER;
	}
	return KB_LIMIT_NONE;
}

void kb_owner_uncharge(struct kb_owner *o, u64 bytes)
{
	atomic64_sub(bytes, &o->mem);
	atomic64_sub(bytes, &kb_userns_mem);
}

enum kb_limit kb_owner_add_filter(struct kb_owner *o)
{
	if (atomic_inc_return(&o->nfilters) > READ_ONCE(user_max_filters)) {
		atomic_dec(&o->nfilters);
		return KB_LIMIT_OWNER_FILTERS;
	}
	return KB_LIMIT_NONE;
}

void kb_owner_del_filters(struct kb_owner *o, unsigned int n)
{
	atomic_sub(n, &o->nfilters);
}

void kb_owner_usage(const struct kb_owner *o, u64 max_memory,
		    struct kb_owner_usage *u)
{
	u->mem = atomic64_read(&o->mem);
	u->mem_limit = kb_share(max_memory, READ_ONCE(user_memory_percent));
	u->nfilters = atomic_read(&o->nfilters);
	u->max_filters = READ_ONCE(user_max_filters);
	u->uid = __kuid_val(o->uid);
}

void kb_owner_init(void)
{
	if (!max_memory)
		max_memory = (totalram_pages() << PAGE_SHIFT) / 4;
}

u64 kb_max_memory(void)
{
	return READ_ONCE(max_memory);
}

s64 kb_mem_all(void)
{
	return atomic64_read(&kb_mem_used);
}

enum kb_limit kb_mem_charge(struct kb_net *kn, u64 bytes)
{
	u64 limit = READ_ONCE(max_memory);
	enum kb_limit why;

	if ((u64)atomic64_add_return(bytes, &kb_mem_used) > limit) {
		atomic64_sub(bytes, &kb_mem_used);
		return KB_LIMIT_MODULE;
	}
	if (kn->owner) {
		why = kb_owner_charge(kn->owner, bytes, limit);
		if (why) {
			atomic64_sub(bytes, &kb_mem_used);
			return why;
		}
	}
	atomic64_add(bytes, &kn->mem_used);
	return KB_LIMIT_NONE;
}

void kb_mem_uncharge(struct kb_net *kn, u64 bytes)
{
	atomic64_sub(bytes, &kn->mem_used);
	if (kn->owner)
		kb_owner_uncharge(kn->owner, bytes);
	atomic64_sub(bytes, &kb_mem_used);
}
