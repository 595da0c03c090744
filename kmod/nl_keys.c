// SPDX-License-Identifier: GPL-2.0
/*
 * The key commands: ADD, TEST, COUNT, QUERY and DEL. Every key of a request
 * is checked before any is applied, so a bad key changes nothing; keys are
 * hashed and applied in batches so their cache misses overlap.
 */
#include <net/genetlink.h>

#include "grow.h"
#include "netlink.h"
#include "registry.h"

/* One key of a request: bytes, or a tuple for a multi filter. */
struct kb_key {
	const struct nlattr *attr;
	const void *data;
	u32 len;
	struct kb_tuple tuple;
};

/*
 * Reads key @attr for filter @f. Every key of a request is read once
 * before any is applied, so a bad key anywhere changes nothing.
 */
static int kb_parse_key(const struct kb_filter *f, const struct nlattr *attr,
			bool all_dims, struct kb_key *key,
			struct netlink_ext_ack *extack)
{
	const struct nlattr *v;
	int rem;

	key->attr = attr;
	if (!kb_filter_is_multi(f)) {
		if (nla_type(attr) != KBLOOM_KEYS_A_KEY) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "a tuple was given to a filter that is not multi");
			return -EINVAL;
		}
		key->data = nla_data(attr);
		key->len = nla_len(attr);
		return 0;
	}
	if (nla_type(attr) != KBLOOM_KEYS_A_TUPLE) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "a multi filter takes tuples, not plain keys");
		return -EINVAL;
	}
	key->tuple.mask = 0;
	nla_for_each_nested(v, attr, rem) {
		u32 d = nla_type(v) - 1;

		if (d >= f->s.dims) {
			NL_SET_ERR_MSG_ATTR(extack, v,
					    "tuple names a dimension the filter does not have");
			return -EINVAL;
		}
		if (key->tuple.mask & BIT(d)) {
			NL_SET_ERR_MSG_ATTR(extack, v, "tuple gives a dimension twice");
			return -EINVAL;
		}
		key->tuple.mask |= BIT(d);
		key->tuple.val[d] = nla_data(v);
		key->tuple.len[d] = nla_len(v);
	}
	if (all_dims && key->tuple.mask != BIT(f->s.dims) - 1) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "ADD needs a value for every dimension");
		return -EINVAL;
	}
	if (!key->tuple.mask) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "tuple gives no dimension");
		return -EINVAL;
	}
	return 0;
}

/* Checks every key of the request against @f; returns how many, or -errno. */
static int kb_check_keys(const struct kb_filter *f, struct genl_info *info,
			 bool all_dims)
{
	struct nlattr *keys = info->attrs[KBLOOM_A_KEYS], *attr;
	struct kb_key key;
	int n = 0, rem, err;

	if (!kb_filter_keyed(f)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_NAME],
				    "a transforms table takes no keys: its attachment (HOOK postrouting) writes it, EXPORT reads it");
		return -EOPNOTSUPP;
	}
	nla_for_each_nested(attr, keys, rem) {
		err = kb_parse_key(f, attr, all_dims, &key, info->extack);
		if (err)
			return err;
		n++;
	}
	if (!n) {
		NL_SET_ERR_MSG_ATTR(info->extack, keys, "KEYS holds no key");
		return -EINVAL;
	}
	return n;
}

/* Upper bound of the keys in a request, for sizing replies before RCU. */
static int kb_max_keys(struct genl_info *info)
{
	return nla_len(info->attrs[KBLOOM_A_KEYS]) / NLA_HDRLEN;
}

/* Keys hashed and applied together, so their cache misses overlap. */
#define KB_NL_BATCH	32

static void kb_add_keys(struct kb_filter *f, const struct nlattr *keys)
{
	struct kb_hash h[KB_NL_BATCH];
	const struct nlattr *attr;
	u32 n = 0;
	int rem;

	nla_for_each_nested(attr, keys, rem) {
		kb_filter_hash(f, nla_data(attr), nla_len(attr), &h[n++]);
		if (n == KB_NL_BATCH) {
			kb_filter_add_many(f, h, n);
			n = 0;
		}
	}
	kb_filter_add_many(f, h, n);
}

/*
 * Where TEST and QUERY put a key's answer: bit (i * stride + bit) of @map
 * for key i (TEST: stride 1, bit 0; QUERY: a row of bits per key, one
 * column per window).
 */
struct kb_hits {
	u8 *map;
	u32 stride;
	u32 bit;
};

static void kb_hit(const struct kb_hits *hits, u32 i)
{
	u32 pos = i * hits->stride + hits->bit;

	hits->map[pos / 8] |= BIT(pos % 8);
}

/* Tests keys @first.. of a batch, marking the present ones. */
static void kb_test_batch(const struct kb_filter *f, const struct kb_hash *h,
			  u32 n, u32 first, const struct kb_hits *hits)
{
	bool present[KB_NL_BATCH];
	u32 j;

	kb_filter_test_many(f, h, n, present);
	for (j = 0; j < n; j++)
		if (present[j])
			kb_hit(hits, first + j);
}

/* Marks each key of @keys present in @f (already checked against it). */
static void kb_test_keys(const struct kb_filter *f, const struct nlattr *keys,
			 const struct kb_hits *hits)
{
	struct kb_hash h[KB_NL_BATCH];
	const struct nlattr *attr;
	struct kb_key key;
	u32 n = 0, i = 0;
	int rem;

	if (kb_filter_is_multi(f)) {
		nla_for_each_nested(attr, keys, rem) {
			kb_parse_key(f, attr, false, &key, NULL);
			if (kb_filter_test_tuple(f, &key.tuple))
				kb_hit(hits, i);
			i++;
		}
		return;
	}
	nla_for_each_nested(attr, keys, rem) {
		kb_filter_hash(f, nla_data(attr), nla_len(attr), &h[n++]);
		if (n == KB_NL_BATCH) {
			kb_test_batch(f, h, n, i, hits);
			i += n;
			n = 0;
		}
	}
	kb_test_batch(f, h, n, i, hits);
}

/* Adds each key's count in @f to @counts, saturating. */
static void kb_count_keys(const struct kb_filter *f, const struct nlattr *keys,
			  u32 *counts)
{
	const struct nlattr *attr;
	u32 i = 0;
	int rem;

	nla_for_each_nested(attr, keys, rem) {
		u32 c = kb_filter_count(f, nla_data(attr), nla_len(attr));

		counts[i] = c > U32_MAX - counts[i] ? U32_MAX : counts[i] + c;
		i++;
	}
}

/*
 * Filters whose ADD takes the locked path below: scalable and dcf grow
 * there, and a stable filter's add decrements up to KBLOOM_DECREMENT_MAX
 * cells per key, so a message of thousands of keys must yield the CPU
 * between them (none of these types has windows).
 */
static bool kb_add_locked_path(const struct kb_filter *f)
{
	return kb_grows(f) || kb_filter_info(f)->caps & KB_CAP_FORGETS;
}

/*
 * ADD on a scalable, dcf or stable filter runs under the namespace lock,
 * in process context, so growth that is due (a full slice, a half-full
 * OFV counter) is made right here (kb_grow) before the next key instead
 * of overflowing, and the CPU is offered to others after every key. Each
 * add runs under RCU: a dcf's replaced OFV is freed after a grace period.
 * ENOSPC when the filter cannot grow and a key overflowed (scalable:
 * added beyond a full slice; dcf: an increment dropped); the keys are in
 * all the same. Returns 1, having done nothing, when the name now holds a
 * filter of another kind (destroyed and made again since kb_cmd_add
 * looked): the caller looks again.
 */
static int kb_add_locked(struct kb_net *kn, struct genl_info *info)
{
	struct nlattr *keys = info->attrs[KBLOOM_A_KEYS], *attr;
	struct kb_stats delta = {};
	struct kb_filter *f;
	struct kb_obj *obj;
	int n, rem, err = 0;
	bool grows;
	u64 over;

	mutex_lock(&kn->lock);
	obj = kb_find(kn, info);
	if (!obj) {
		err = -ENOENT;
		goto out;
	}
	f = kb_ring_only(&obj->ring);
	if (!f || !kb_add_locked_path(f)) {
		err = 1;
		goto out;
	}
	n = kb_check_keys(f, info, true);
	if (n < 0) {
		err = n;
		goto out;
	}
	grows = kb_grows(f);
	over = grows ? kb_grow_overflow(f) : 0;
	nla_for_each_nested(attr, keys, rem) {
		if (grows && kb_grow_due(f))
			kb_grow(obj);
		rcu_read_lock();
		kb_filter_add(f, nla_data(attr), nla_len(attr));
		rcu_read_unlock();
		cond_resched();
	}
	if (grows)
		kb_grow_settle(obj);
	kb_window_count(&obj->ring.tables[0], n);
	delta.inserts = n;
	kb_stats_add(obj, &delta);
	if (grows && kb_grow_overflow(f) != over) {
		kb_grow_explain(obj, info->extack);
		err = -ENOSPC;
	}
out:
	mutex_unlock(&kn->lock);
	return err;
}

int kb_cmd_add(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_nl_net(info);
	struct kb_stats delta = {};
	struct kb_window *w;
	struct nlattr *attr;
	struct kb_obj *obj;
	struct kb_key key;
	int n, rem, err;

again:
	rcu_read_lock();
	obj = kb_find(kn, info);
	if (!obj) {
		rcu_read_unlock();
		return -ENOENT;
	}
	w = kb_window_cur(&obj->ring);
	if (kb_add_locked_path(&w->filter)) {
		rcu_read_unlock();
		err = kb_add_locked(kn, info);
		if (err > 0)
			goto again;
		return err;
	}
	n = kb_check_keys(&w->filter, info, true);
	if (n < 0) {
		rcu_read_unlock();
		return n;
	}
	if (kb_filter_is_multi(&w->filter)) {
		nla_for_each_nested(attr, info->attrs[KBLOOM_A_KEYS], rem) {
			kb_parse_key(&w->filter, attr, true, &key, NULL);
			kb_filter_add_tuple(&w->filter, &key.tuple);
		}
	} else {
		kb_add_keys(&w->filter, info->attrs[KBLOOM_A_KEYS]);
	}
	kb_window_count(w, n);
	delta.inserts = n;
	kb_stats_add(obj, &delta);
	rcu_read_unlock();
	return 0;
}

/*
 * TEST and COUNT look up under RCU, where the digests an attached filter's
 * packet path still queues cannot be added (that may sleep): before,
 * under the lock, they are.
 */
static void kb_settle_named(struct kb_net *kn, struct genl_info *info)
{
	struct kb_obj *obj;
	bool queued;

	rcu_read_lock();
	obj = kb_find(kn, info);
	queued = obj && READ_ONCE(obj->ring.dq);
	rcu_read_unlock();
	if (!queued)
		return;
	mutex_lock(&kn->lock);
	obj = kb_find(kn, info);
	if (obj)
		kb_ring_settle(&obj->ring);
	mutex_unlock(&kn->lock);
}

/*
 * TEST and COUNT share this: a reply with NAME, NKEYS and one binary
 * attribute of @per_key bytes per key (bits when @per_key is 0); over
 * every window of a time-paged filter (present in any, counts summed).
 * NPRESENT counts the keys found.
 */
static int kb_query(struct genl_info *info, u8 cmd, int reply_attr,
		    size_t per_key)
{
	struct kb_net *kn = kb_nl_net(info);
	struct nlattr *keys = info->attrs[KBLOOM_A_KEYS];
	struct kb_stats delta = {};
	const struct kb_winset *set;
	const struct kb_filter *f;
	struct kb_hits hits = {};
	int max, n, i, err = -EMSGSIZE;
	struct sk_buff *msg;
	struct kb_obj *obj;
	struct nlattr *res;
	size_t len;
	void *hdr;
	u32 j;

	max = kb_max_keys(info);
	len = per_key ? max * per_key : DIV_ROUND_UP(max, 8);

	/* Sized before the lookup: nothing may sleep under RCU. */
	msg = genlmsg_new(nla_total_size(KBLOOM_NAME_MAX) +
			  2 * nla_total_size(sizeof(u32)) +
			  nla_total_size(len), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &kb_family, 0, cmd);
	if (!hdr)
		goto err_free;

	kb_settle_named(kn, info);
	rcu_read_lock();
	obj = kb_find(kn, info);
	f = obj ? kb_ring_shape(&obj->ring) : NULL;
	n = obj ? kb_check_keys(f, info, false) : -ENOENT;
	if (n > 0 && cmd == KBLOOM_CMD_COUNT && !kb_filter_can_count(f)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_NAME],
				    "COUNT needs a counting, dleft or dcf filter");
		n = -EOPNOTSUPP;
	}
	if (n < 0) {
		rcu_read_unlock();
		err = n;
		goto err_free;
	}
	len = per_key ? n * per_key : DIV_ROUND_UP(n, 8);
	res = nla_reserve(msg, reply_attr, len);
	if (!res) {
		rcu_read_unlock();
		goto err_free;
	}
	hits.map = nla_data(res);
	hits.stride = 1;
	memset(hits.map, 0, len);
	set = kb_window_set(&obj->ring);
	for (j = 0; j < set->n; j++) {
		if (per_key)
			kb_count_keys(&set->w[j]->filter, keys, nla_data(res));
		else
			kb_test_keys(&set->w[j]->filter, keys, &hits);
	}
	for (i = 0; i < n; i++) {
		if (per_key)
			delta.positives += ((u32 *)nla_data(res))[i] > 0;
		else
			delta.positives += !!(hits.map[i / 8] & BIT(i % 8));
	}
	delta.queries = n;
	kb_stats_add(obj, &delta);
	rcu_read_unlock();

	if (nla_put_string(msg, KBLOOM_A_NAME,
			   nla_data(info->attrs[KBLOOM_A_NAME])) ||
	    nla_put_u32(msg, KBLOOM_A_NKEYS, n) ||
	    nla_put_u32(msg, KBLOOM_A_NPRESENT, delta.positives))
		goto err_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

int kb_cmd_test(struct sk_buff *skb, struct genl_info *info)
{
	return kb_query(info, KBLOOM_CMD_TEST, KBLOOM_A_RESULT, 0);
}

int kb_cmd_count(struct sk_buff *skb, struct genl_info *info)
{
	return kb_query(info, KBLOOM_CMD_COUNT, KBLOOM_A_COUNTS, sizeof(u32));
}

/* The windows and, per key, the windows holding it; under the ring's lock. */
static int kb_fill_query(struct sk_buff *msg, struct kb_obj *obj,
			 const struct nlattr *keys, u32 n, u32 *positives)
{
	const struct kb_winset *set = kb_window_set(&obj->ring);
	u32 row = DIV_ROUND_UP(set->n, 8), i, j;
	struct kb_hits hits = { .stride = row * 8 };
	struct nlattr *res;

	if (kb_fill_windows(msg, set))
		return -EMSGSIZE;
	res = nla_reserve(msg, KBLOOM_A_WINDOW_HITS, n * row);
	if (!res)
		return -EMSGSIZE;
	hits.map = nla_data(res);
	memset(hits.map, 0, n * row);
	for (j = 0; j < set->n; j++) {
		hits.bit = j;
		kb_test_keys(&set->w[j]->filter, keys, &hits);
	}
	*positives = 0;
	for (i = 0; i < n; i++)
		*positives += !!memchr_inv(hits.map + i * row, 0, row);
	return 0;
}

int kb_cmd_query(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *keys = info->attrs[KBLOOM_A_KEYS];
	struct kb_obj *obj = kb_nl_obj(info);
	struct kb_stats delta = {};
	struct sk_buff *msg = NULL;
	u32 nwin, positives;
	int n, err;
	void *hdr;

	lockdep_assert_held(&kb_nl_net(info)->lock);
	/* The lock keeps the filter and its number of windows; RCU the set. */
	n = kb_check_keys(kb_ring_shape(&obj->ring), info, false);
	if (n < 0) {
		err = n;
		goto out;
	}
	nwin = obj->ring.nwindows;
	err = -ENOMEM;
	msg = genlmsg_new(nla_total_size(KBLOOM_NAME_MAX) +
			  nla_total_size(sizeof(u32)) + nla_total_size(0) +
			  nwin * KB_WINDOW_MSG_SIZE +
			  nla_total_size(n * DIV_ROUND_UP(nwin, 8)), GFP_KERNEL);
	if (!msg)
		goto out;
	err = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &kb_family, 0, KBLOOM_CMD_QUERY);
	if (!hdr || nla_put_string(msg, KBLOOM_A_NAME, obj->name) ||
	    nla_put_u32(msg, KBLOOM_A_NKEYS, n))
		goto out;
	/* kb_fill_windows() counts cells, which may sleep: not under RCU */
	kb_ring_lock(&obj->ring);
	err = kb_fill_query(msg, obj, keys, n, &positives);
	kb_ring_unlock(&obj->ring);
	if (err)
		goto out;
	delta.queries = n;
	delta.positives = positives;
	kb_stats_add(obj, &delta);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
out:
	nlmsg_free(msg);
	return err;
}

/*
 * Deletes run under the namespace lock (not RCU) so that a failed batch
 * can be undone without another delete interleaving: keys before the
 * absent one are added back.
 */
int kb_cmd_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr, *bad = NULL;
	struct kb_obj *obj = kb_nl_obj(info);
	struct kb_stats delta = {};
	struct kb_filter *f;
	struct kb_key key;
	int n, rem, done = 0, err = 0;

	lockdep_assert_held(&kb_nl_net(info)->lock);
	f = kb_only_table(obj, info);
	if (!f)
		return -EOPNOTSUPP;
	if (kb_grow_lost(f)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_NAME],
				    "dcf dropped increments (LOST): its counts may be low, so DEL is refused until CLEAR");
		return -EOPNOTSUPP;
	}
	if (!kb_filter_can_delete(f)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_NAME],
				    "DEL needs a counting (plain update), dleft or dcf filter");
		return -EOPNOTSUPP;
	}
	n = kb_check_keys(f, info, false);
	if (n < 0)
		return n;
	/* A dcf's replaced OFV is freed after a grace period. */
	rcu_read_lock();
	nla_for_each_nested(attr, info->attrs[KBLOOM_A_KEYS], rem) {
		kb_parse_key(f, attr, false, &key, NULL); /* checked */
		err = kb_filter_del(f, key.data, key.len);
		if (err) {
			bad = attr;
			break;
		}
		done++;
	}
	if (bad) {
		nla_for_each_nested(attr, info->attrs[KBLOOM_A_KEYS], rem) {
			if (attr == bad)
				break;
			kb_filter_add(f, nla_data(attr), nla_len(attr));
		}
		rcu_read_unlock();
		NL_SET_ERR_MSG_ATTR(info->extack, bad,
				    "key is certainly absent; nothing was deleted");
		return err;
	}
	rcu_read_unlock();
	delta.deletes = done;
	kb_stats_add(obj, &delta);
	return 0;
}
