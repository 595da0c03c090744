// SPDX-License-Identifier: GPL-2.0
/*
 * Per-network-namespace registry of named filters, and the module-wide
 * limit on how many a namespace may hold (their memory: owner.c).
 */
#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/netns/generic.h>

#include "attach.h"
#include "events.h"
#include "grow.h"
#include "kcompat.h"
#include "mapping.h"
#include "owner.h"
#include "registry.h"

static unsigned int max_filters = 1024;
module_param(max_filters, uint, 0644);
MODULE_PARM_DESC(max_filters, "Filters one network namespace may hold");

static unsigned int kb_net_id __read_mostly;

struct kb_net *kb_net(const struct net *net)
{
	return net_generic(net, kb_net_id);
}

struct kb_obj *kb_lookup(struct kb_net *kn, const char *name)
{
	struct kb_obj *obj;

	list_for_each_entry_rcu(obj, &kn->filters, node,
				lockdep_is_held(&kn->lock))
		if (!strcmp(obj->name, name))
			return obj;
	return NULL;
}

/* After a grace period: no add runs, so growth can stop and be counted. */
static void kb_obj_free(struct kb_obj *obj)
{
	u64 bytes;

	kb_grow_stop(obj);
	kb_ring_quiesce(&obj->ring);
	/* Pages still mapped stay charged until their last mapping goes. */
	bytes = kb_map_outlive(&obj->ring, obj->charged);
	kb_ring_free(&obj->ring);
	free_percpu(obj->stats);
	kb_mem_uncharge(obj->kn, bytes);
	kfree(obj);
}

/* An allocation refused by the memory cgroup (or none free): what was asked. */
static void kb_nomem_msg(struct netlink_ext_ack *extack, u64 bytes)
{
	KB_ERR_MSG_FMT(extack, KBLOOM_MSG_NOMEM,
		       "cannot allocate filter memory: filter needs %llu B",
		       bytes);
}

/* True (with the reason in @extack) when the engine refuses the shape. */
static bool kb_shape_refused(const struct kb_shape *s,
			     struct netlink_ext_ack *extack)
{
	enum kb_shape_error err = kb_filter_check_shape(s);

	if (err == KB_SHAPE_OK)
		return false;
	KB_ERR_MSG_STR(extack, kb_shape_error_msg(err));
	return true;
}

static void kb_obj_rotated(struct kb_ring *r, const struct kb_window *closed,
			   const struct kb_window *opened)
{
	struct kb_obj *obj = container_of(r, struct kb_obj, ring);

	kb_event_rotated(read_pnet(&obj->net), obj, closed, opened);
}

/* Bytes a load's saved layout takes beyond the shape's; KB_NO_PLAN. */
static u64 kb_load_mem(const struct kb_create_args *args)
{
	if (!args->loader)
		return 0;
	return kb_grow_load_mem(&args->shape, &args->saved);
}

/*
 * What differs between @obj and the filter @args asks for, as the words
 * of bloomctl create, or NULL when it is that filter (a hash key not
 * given matches any: it would have been drawn at random).
 */
static const char *kb_obj_differs(const struct kb_obj *obj,
				  const struct kb_create_args *args)
{
	const struct kb_filter *f = kb_ring_shape(&obj->ring);
	const struct kb_shape *s = &f->s, *r = &args->shape;
	const struct kb_param_def *p;
	struct kb_shape want = *r;
	siphash_key_t key = {};
	u32 i;

	/* As the filter keeps it (kb_filter_init()). */
	want.cell_bits = kb_shape_cell_bits(r);
	if (s->type != r->type)
		return "a filter of that name exists, of another type";
	if (s->m != r->m)
		return "a filter of that name exists with other bits (BITS)";
	if (s->k != r->k)
		return "a filter of that name exists with other hashes (HASHES)";
	for (p = kb_params; p < kb_params + KB_P_NUM; p++)
		if (kb_shape_get(s, p) != kb_shape_get(&want, p))
			return p->differs;
	for (i = 0; i < r->dims; i++)
		if (strcmp(obj->dim_names[i], args->dim_names[i]))
			return kb_params[KB_P_DIMS].differs;
	if (obj->capacity != args->capacity)
		return "a filter of that name exists with another capacity (CAPACITY)";
	if (obj->ring.nwindows != max(args->windows, 1U))
		return "a filter of that name exists with other windows (WINDOWS)";
	if (obj->ring.interval_ms != args->interval_ms)
		return "a filter of that name exists with another interval (INTERVAL)";
	if (!args->hash_key)
		return NULL;
	/* As kb_filter_init() reads the key bytes. */
	for (i = 0; i < 8; i++) {
		key.key[0] |= (u64)args->hash_key[i] << (8 * i);
		key.key[1] |= (u64)args->hash_key[8 + i] << (8 * i);
	}
	/*
	 * In constant time, though the caller may EXPORT the key anyway:
	 * no crypto_memneq(), which needs CONFIG_CRYPTO in the kernel.
	 */
	i = !!((key.key[0] ^ f->hkey.key[0]) | (key.key[1] ^ f->hkey.key[1]));
	memzero_explicit(&key, sizeof(key));
	if (i)
		return "a filter of that name exists with another hash key (HASH_KEY)";
	return NULL;
}

/* The saved layout, made before the filter is seen by anyone. */
static int kb_load_layout(struct kb_obj *obj,
			  const struct kb_create_args *args)
{
	struct kb_filter *f = kb_ring_only(&obj->ring);

	if (!args->loader || !f)
		return 0;
	return kb_grow_load(f, &args->saved);
}

/* Names the limit that refused @bytes (@why), with what figures @args may see. */
static void kb_refuse_memory(struct kb_net *kn, const struct kb_create_args *args,
			     u64 bytes, enum kb_limit why,
			     struct netlink_ext_ack *extack)
{
	u64 limit = kb_max_memory();
	struct kb_owner_usage u;

	switch (why) {
	case KB_LIMIT_USERNS:
		KB_ERR_MSG_FMT(extack, KBLOOM_MSG_USERNS_MEMORY,
			       "filter needs %llu B; past userns_memory_percent, %llu B",
			       bytes, kb_userns_limit(limit));
		break;
	case KB_LIMIT_OWNER:
		kb_owner_usage(kn->owner, limit, &u);
		KB_ERR_MSG_FMT(extack, KBLOOM_MSG_USER_MEMORY,
			       "filter needs %llu B; user_memory_percent: %llu of %llu B used",
			       bytes, u.mem, u.mem_limit);
		break;
	default:
		/* What other namespaces hold is for the initial one's admin. */
		if (args->global_figures)
			KB_ERR_MSG_FMT(extack, KBLOOM_MSG_MAX_MEMORY,
				       "filter needs %llu B; %lld of max_memory %llu in use",
				       bytes, kb_mem_all(),
				       limit);
		else
			KB_ERR_MSG_FMT(extack, KBLOOM_MSG_MAX_MEMORY,
				       "filter needs %llu B; over max_memory %llu with other namespaces",
				       bytes, limit);
	}
}

/*
 * Whether @args may be made: 0 with the bytes it is charged, 1 when this
 * very filter exists (EXIST: nothing to do), or an error and its reason.
 */
static int kb_create_check(struct kb_net *kn, const struct kb_create_args *args,
			   u64 *bytes, struct netlink_ext_ack *extack)
{
	const struct kb_type_info *info = kb_type_info(args->shape.type);
	u32 windows = max(args->windows, 1U);
	struct kb_obj *obj;
	u64 extra;

	if (kb_shape_refused(&args->shape, extack))
		return -EINVAL;
	obj = kb_lookup(kn, args->name);
	if (obj && args->exist_ok) {
		const char *diff = kb_loading(obj) ?
			"a filter of that name is being restored" :
			kb_obj_differs(obj, args);

		if (!diff)
			return 1;	/* this very filter: nothing changes */
		KB_ERR_MSG_STR(extack, diff);
		return -EEXIST;
	}
	if (obj) {
		NL_SET_ERR_MSG(extack, "a filter of that name exists in this namespace");
		return -EEXIST;
	}
	if (kn->nfilters >= READ_ONCE(max_filters)) {
		KB_ERR_MSG_FMT(extack, KBLOOM_MSG_MAX_FILTERS,
			       "namespace holds %u filters, the limit max_filters",
			       kn->nfilters);
		return -ENOSPC;
	}

	if (!(windows > 1) != !args->interval_ms) {
		NL_SET_ERR_MSG(extack, "WINDOWS and INTERVAL go together");
		return -EINVAL;
	}
	if (windows > 1 && args->interval_ms < KBLOOM_USERNS_INTERVAL_MIN &&
	    args->net->user_ns != &init_user_ns) {
		NL_SET_ERR_MSG(extack,
			       "in a netns of a user namespace, INTERVAL is 1000 ms or more");
		return -EINVAL;
	}
	if (windows > 1 && args->loader) {
		NL_SET_ERR_MSG(extack, "a filter with WINDOWS cannot be loaded");
		return -EINVAL;
	}
	/* A type without windows forgets by itself, or grows. */
	if (windows > 1 && info && !(info->caps & KB_CAP_WINDOWS)) {
		if (info->caps & KB_CAP_FORGETS)
			NL_SET_ERR_MSG(extack,
				       "a stable filter already forgets; it takes no WINDOWS");
		else if (info->grow)
			NL_SET_ERR_MSG(extack,
				       "scalable and dcf filters grow; they take no WINDOWS");
		else
			NL_SET_ERR_MSG(extack, "this filter type takes no WINDOWS");
		return -EINVAL;
	}
	/* A saved layout is charged as creating it and growing it were. */
	extra = kb_load_mem(args);
	if (extra == KB_NO_PLAN) {
		NL_SET_ERR_MSG_ATTR(extack, args->layout,
				    "the saved layout has no place in the filter's plan or passes its 1 GiB of cells");
		return -EINVAL;
	}

	*bytes = kb_ring_mem_for(&args->shape, windows) + extra +
		 sizeof(*obj) + num_possible_cpus() * sizeof(struct kb_pcpu_stats);
	return 0;
}

/* The filter @args asks for, charged @bytes, in no one's sight yet. */
static struct kb_obj *kb_create_alloc(struct kb_net *kn,
				      const struct kb_create_args *args,
				      u64 bytes, struct netlink_ext_ack *extack)
{
	u8 hkey[KBLOOM_HASH_KEY_LEN];
	struct kb_obj *obj;
	enum kb_limit why;
	int cpu, err;

	if (kn->owner && kb_owner_add_filter(kn->owner)) {
		struct kb_owner_usage u;

		kb_owner_usage(kn->owner, kb_max_memory(), &u);
		KB_ERR_MSG_FMT(extack, KBLOOM_MSG_USER_FILTERS,
			       "this user's namespaces hold %u filters, the limit user_max_filters",
			       u.nfilters);
		return ERR_PTR(-ENOSPC);
	}
	why = kb_mem_charge(kn, bytes);
	if (why) {
		kb_refuse_memory(kn, args, bytes, why, extack);
		err = -ENOMEM;
		goto err_filter;
	}

	err = -ENOMEM;
	obj = kzalloc(sizeof(*obj), GFP_KERNEL_ACCOUNT);
	if (!obj) {
		kb_nomem_msg(extack, bytes);
		goto err_uncharge;
	}
	obj->charged = bytes;
	obj->kn = kn;
	kb_grow_init(obj);
	obj->stats = alloc_percpu_gfp(struct kb_pcpu_stats, GFP_KERNEL_ACCOUNT);
	if (!obj->stats) {
		kb_nomem_msg(extack, bytes);
		goto err_obj;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(obj->stats, cpu)->syncp);

	if (args->hash_key)
		memcpy(hkey, args->hash_key, sizeof(hkey));
	else
		get_random_bytes(hkey, sizeof(hkey));
	err = kb_ring_init(&obj->ring, &args->shape, hkey,
			   max(args->windows, 1U), args->interval_ms);
	memzero_explicit(hkey, sizeof(hkey));
	if (err) {
		kb_nomem_msg(extack, bytes);
		goto err_stats;
	}
	err = kb_load_layout(obj, args);
	if (err) {
		NL_SET_ERR_MSG(extack, "cannot allocate the saved layout's memory");
		goto err_ring;
	}
	return obj;

err_ring:
	kb_ring_free(&obj->ring);
err_stats:
	free_percpu(obj->stats);
err_obj:
	kb_grow_stop(obj);
	kfree(obj);
err_uncharge:
	kb_mem_uncharge(kn, bytes);
err_filter:
	if (kn->owner)
		kb_owner_del_filters(kn->owner, 1);
	return ERR_PTR(err);
}

/* From here on adds, tests and dumps see the filter. */
static void kb_create_publish(struct kb_net *kn, struct kb_obj *obj,
			      const struct kb_create_args *args)
{
	u32 i;

	kb_grow_start(obj);
	strscpy(obj->name, args->name, sizeof(obj->name));
	for (i = 0; i < args->shape.dims; i++)
		strscpy(obj->dim_names[i], args->dim_names[i],
			sizeof(obj->dim_names[i]));
	obj->capacity = args->capacity;
	obj->loader = args->loader;
	obj->generation = 1;
	obj->serial = ++kn->serials;
	write_pnet(&obj->net, args->net);
	obj->ring.rotated = kb_obj_rotated;
	list_add_tail_rcu(&obj->node, &kn->filters);
	kb_ring_start(&obj->ring);
	if (!obj->loader)
		kb_event_filter(args->net, obj, KBLOOM_CMD_CREATE);
	kn->nfilters++;
	kn->dump_gen++;
}

/* Check, allocate, publish. */
int kb_create(struct kb_net *kn, const struct kb_create_args *args,
	      struct netlink_ext_ack *extack)
{
	struct kb_obj *obj;
	u64 bytes;
	int err;

	lockdep_assert_held(&kn->lock);
	err = kb_create_check(kn, args, &bytes, extack);
	if (err)
		return err > 0 ? 0 : err;
	obj = kb_create_alloc(kn, args, bytes, extack);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	kb_create_publish(kn, obj, args);
	return 0;
}

void kb_destroy(struct kb_net *kn, struct kb_obj *obj)
{
	lockdep_assert_held(&kn->lock);
	/* no rotation may be announced after the destroy */
	kb_ring_stop(&obj->ring);
	if (!kb_loading(obj))
		kb_event_filter(read_pnet(&obj->net), obj, KBLOOM_CMD_DESTROY);
	kb_detach(obj);
	list_del_rcu(&obj->node);
	kn->nfilters--;
	if (kn->owner)
		kb_owner_del_filters(kn->owner, 1);
	kn->dump_gen++;
	/* Adds and tests run under RCU without a reference. */
	synchronize_rcu();
	kb_obj_free(obj);
}

/* Unlinks every filter of @kn onto @dead; the caller frees after a grace period. */
static void kb_unlink_all(struct kb_net *kn, struct list_head *dead)
{
	struct kb_obj *obj, *tmp;
	bool hooked = false;

	/* Every hook out, then one grace period for the calls in flight. */
	list_for_each_entry(obj, &kn->filters, node) {
		hooked |= !!obj->attach;
		kb_unhook(obj);
	}
	if (hooked)
		synchronize_net();
	list_for_each_entry_safe(obj, tmp, &kn->filters, node) {
		kb_detach_unhooked(obj);
		list_del_rcu(&obj->node);
		list_add_tail(&obj->node, dead);
	}
	if (kn->owner)
		kb_owner_del_filters(kn->owner, kn->nfilters);
	kn->nfilters = 0;
	kn->dump_gen++;
}

static void kb_free_list(struct list_head *dead)
{
	struct kb_obj *obj, *tmp;

	list_for_each_entry_safe(obj, tmp, dead, node)
		kb_obj_free(obj);
}

void kb_destroy_all(struct kb_net *kn)
{
	struct kb_obj *obj;
	LIST_HEAD(dead);

	lockdep_assert_held(&kn->lock);
	list_for_each_entry(obj, &kn->filters, node) {
		kb_ring_stop(&obj->ring);	/* as in kb_destroy() */
		if (!kb_loading(obj))
			kb_event_filter(read_pnet(&obj->net), obj,
					KBLOOM_CMD_DESTROY);
	}
	kb_unlink_all(kn, &dead);
	if (list_empty(&dead))
		return;
	synchronize_rcu();
	kb_free_list(&dead);
}

void kb_clear(struct kb_obj *obj)
{
	/* Not while a slice is being made (scalable). */
	mutex_lock(&obj->grow_lock);
	kb_ring_clear(&obj->ring);
	mutex_unlock(&obj->grow_lock);
	obj->generation++;
}

void kb_usage(const struct kb_net *kn, struct kb_usage *u)
{
	lockdep_assert_held(&kn->lock);
	u->nfilters = kn->nfilters;
	u->max_filters = READ_ONCE(max_filters);
	u->mem_netns = atomic64_read(&kn->mem_used);
	u->mem_mapped_gone = atomic64_read(&kn->mem_mapped_gone);
	u->mem_all = kb_mem_all();
	u->mem_limit = kb_max_memory();
	u->owned = !!kn->owner;
	if (u->owned)
		kb_owner_usage(kn->owner, u->mem_limit, &u->owner);
}

/*
 * The counters saturate at U64_MAX: figures a mapping's reader reports
 * (KBLOOM_IOC_COUNT) are any u64, and must never wind a counter back.
 */
static u64 kb_sat_add(u64 a, u64 b)
{
	u64 sum;

	return check_add_overflow(a, b, &sum) ? U64_MAX : sum;
}

static void kb_stat_add(u64_stats_t *p, u64 v)
{
	u64_stats_set(p, kb_sat_add(u64_stats_read(p), v));
}

void kb_stats_add(struct kb_obj *obj, const struct kb_stats *delta)
{
	struct kb_pcpu_stats *st;

	/* The packet path updates from softirq: keep it off this CPU meanwhile. */
	local_bh_disable();
	st = this_cpu_ptr(obj->stats);
	u64_stats_update_begin(&st->syncp);
	kb_stat_add(&st->inserts, delta->inserts);
	kb_stat_add(&st->queries, delta->queries);
	kb_stat_add(&st->positives, delta->positives);
	kb_stat_add(&st->deletes, delta->deletes);
	u64_stats_update_end(&st->syncp);
	local_bh_enable();
}

void kb_stats_read(const struct kb_obj *obj, struct kb_stats *sum)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct kb_pcpu_stats *st = per_cpu_ptr(obj->stats, cpu);
		struct kb_stats one;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			one.inserts = u64_stats_read(&st->inserts);
			one.queries = u64_stats_read(&st->queries);
			one.positives = u64_stats_read(&st->positives);
			one.deletes = u64_stats_read(&st->deletes);
		} while (u64_stats_fetch_retry(&st->syncp, start));
		sum->inserts = kb_sat_add(sum->inserts, one.inserts);
		sum->inserts = kb_sat_add(sum->inserts, READ_ONCE(st->hooked));
		sum->queries = kb_sat_add(sum->queries, one.queries);
		sum->positives = kb_sat_add(sum->positives, one.positives);
		sum->deletes = kb_sat_add(sum->deletes, one.deletes);
	}
}

/* A restore whose socket closed before it completed leaves nothing. */
static int kb_netlink_release(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct netlink_notify *n = ptr;
	struct kb_obj *obj, *tmp;
	struct kb_net *kn;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !n->portid)
		return NOTIFY_DONE;
	kn = kb_net(n->net);
	mutex_lock(&kn->lock);
	list_for_each_entry_safe(obj, tmp, &kn->filters, node)
		if (obj->loader == n->portid)
			kb_destroy(kn, obj);
	mutex_unlock(&kn->lock);
	return NOTIFY_DONE;
}

static struct notifier_block kb_netlink_notifier = {
	.notifier_call = kb_netlink_release,
};

static int __net_init kb_net_init(struct net *net)
{
	struct kb_net *kn = kb_net(net);

	kn->owner = kb_owner_get(net->user_ns);
	if (IS_ERR(kn->owner))
		return PTR_ERR(kn->owner);
	mutex_init(&kn->lock);
	INIT_LIST_HEAD(&kn->filters);
	atomic64_set(&kn->mem_used, 0);
	atomic64_set(&kn->mem_mapped_gone, 0);
	return 0;
}

/* One grace period for every namespace going away together. */
static void __net_exit kb_net_exit_batch(struct list_head *net_list)
{
	LIST_HEAD(dead);
	struct net *net;

	list_for_each_entry(net, net_list, exit_list) {
		struct kb_net *kn = kb_net(net);

		mutex_lock(&kn->lock);
		kb_unlink_all(kn, &dead);
		mutex_unlock(&kn->lock);
		mutex_destroy(&kn->lock);
	}
	if (!list_empty(&dead)) {
		synchronize_rcu();
		kb_free_list(&dead);
	}
	/* After the filters: freeing them uncharges their owner. */
	list_for_each_entry(net, net_list, exit_list)
		kb_owner_put(kb_net(net)->owner);
}

static struct pernet_operations kb_net_ops = {
	.init = kb_net_init,
	.exit_batch = kb_net_exit_batch,
	.id = &kb_net_id,
	.size = sizeof(struct kb_net),
};

int kb_registry_init(void)
{
	int err;

	kb_owner_init();
	err = register_pernet_subsys(&kb_net_ops);
	if (err)
		return err;
	err = netlink_register_notifier(&kb_netlink_notifier);
	if (err)
		unregister_pernet_subsys(&kb_net_ops);
	return err;
}

void kb_registry_exit(void)
{
	netlink_unregister_notifier(&kb_netlink_notifier);
	unregister_pernet_subsys(&kb_net_ops);
	WARN_ON(kb_mem_all());
}
