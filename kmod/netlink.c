// SPDX-License-Identifier: GPL-2.0
/*
 * The kbloom generic netlink family: parses and validates requests, calls
 * the registry and the engine, builds replies. The protocol is documented
 * in uapi/kbloom.h.
 */
#include <linux/ctype.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "kcompat.h"
#include "netlink.h"
#include "attach.h"
#include "engine/digest.h"
#include "registry.h"

/* const where the kernel allows it (kcompat.h). */
static KB_NLA_RANGE_CONST struct netlink_range_validation kb_bits_range = {
	.min = KBLOOM_BITS_MIN,
	.max = KBLOOM_BITS_MAX,
};

static KB_NLA_RANGE_CONST struct netlink_range_validation kb_decrement_range = {
	.min = 1,
	.max = KBLOOM_DECREMENT_MAX,
};

/* A tuple's attribute types are dimension numbers 1..KBLOOM_DIMS_MAX. */
static const struct nla_policy kb_tuple_policy[KBLOOM_DIMS_MAX + 1] = {
	[1 ... KBLOOM_DIMS_MAX] = NLA_POLICY_RANGE(NLA_BINARY, 1, KBLOOM_KEY_MAX),
};

static const struct nla_policy kb_keys_policy[KBLOOM_KEYS_A_MAX + 1] = {
	[KBLOOM_KEYS_A_KEY] = NLA_POLICY_RANGE(NLA_BINARY, 1, KBLOOM_KEY_MAX),
	[KBLOOM_KEYS_A_TUPLE] = NLA_POLICY_NESTED(kb_tuple_policy),
};

static const struct nla_policy kb_dims_policy[KBLOOM_DIMS_A_MAX + 1] = {
	[KBLOOM_DIMS_A_NAME] = { .type = NLA_NUL_STRING,
				 .len = KBLOOM_DIM_NAME_MAX - 1 },
};

static KB_NLA_RANGE_CONST struct netlink_range_validation kb_interval_range = {
	.min = KBLOOM_INTERVAL_MIN,
	.max = KBLOOM_INTERVAL_MAX,
};

static const struct nla_policy kb_policy[KBLOOM_A_MAX + 1] = {
	[KBLOOM_A_NAME] = { .type = NLA_NUL_STRING, .len = KBLOOM_NAME_MAX - 1 },
	[KBLOOM_A_TYPE] = NLA_POLICY_RANGE(NLA_U32, 1, KBLOOM_TYPE_MAX),
	[KBLOOM_A_BITS] = NLA_POLICY_FULL_RANGE(NLA_U64, &kb_bits_range),
	[KBLOOM_A_HASHES] = NLA_POLICY_RANGE(NLA_U32, 1, KBLOOM_HASHES_MAX),
	[KBLOOM_A_HASH_KEY] = NLA_POLICY_EXACT_LEN(KBLOOM_HASH_KEY_LEN),
	[KBLOOM_A_CAPACITY] = { .type = NLA_U64 },
	[KBLOOM_A_FLAGS] = NLA_POLICY_MASK(NLA_U32, KBLOOM_F_MASK),
	[KBLOOM_A_KEYS] = NLA_POLICY_NESTED(kb_keys_policy),
	[KBLOOM_A_COUNTER_BITS] = NLA_POLICY_RANGE(NLA_U32, 1, 16),
	[KBLOOM_A_UPDATE] = NLA_POLICY_MAX(NLA_U32, KBLOOM_UPDATE_MAX),
	[KBLOOM_A_DECREMENT] = NLA_POLICY_FULL_RANGE(NLA_U32, &kb_decrement_range),
	[KBLOOM_A_SUBTABLES] = NLA_POLICY_RANGE(NLA_U32, 2, 8),
	[KBLOOM_A_BUCKET_CELLS] = NLA_POLICY_RANGE(NLA_U32, 1, 16),
	[KBLOOM_A_FP_BITS] = NLA_POLICY_RANGE(NLA_U32, 4, 24),
	[KBLOOM_A_DIMS] = NLA_POLICY_NESTED(kb_dims_policy),
	[KBLOOM_A_SRC] = { .type = NLA_NUL_STRING, .len = KBLOOM_NAME_MAX - 1 },
	[KBLOOM_A_MERGE_OP] = NLA_POLICY_MAX(NLA_U32, KBLOOM_MERGE_MAX),
	[KBLOOM_A_WINDOWS] = NLA_POLICY_RANGE(NLA_U32, 2, KBLOOM_WINDOWS_MAX),
	[KBLOOM_A_INTERVAL] = NLA_POLICY_FULL_RANGE(NLA_U64, &kb_interval_range),
	[KBLOOM_A_HOOK] = NLA_POLICY_RANGE(NLA_U32, 1, KBLOOM_HOOK_MAX),
	[KBLOOM_A_FAMILY] = NLA_POLICY_MAX(NLA_U32, KBLOOM_FAMILY_MAX),
	[KBLOOM_A_DIGEST] = NLA_POLICY_RANGE(NLA_U32, 1, KBLOOM_DIGEST_MAX),
	[KBLOOM_A_IFNAME] = { .type = NLA_NUL_STRING,
			      .len = KBLOOM_IFNAME_MAX - 1 },
	/* At most KBLOOM_PACKET_MAX: the most an attribute holds. */
	[KBLOOM_A_PACKET] = NLA_POLICY_MIN_LEN(1),
	[KBLOOM_A_LINEAR] = { .type = NLA_U32 },
	/* Reply-only attributes are refused in requests. */
	[KBLOOM_A_NKEYS] = { .type = NLA_REJECT },
	[KBLOOM_A_NPRESENT] = { .type = NLA_REJECT },
	[KBLOOM_A_RESULT] = { .type = NLA_REJECT },
	[KBLOOM_A_MEMORY] = { .type = NLA_REJECT },
	[KBLOOM_A_FILL] = { .type = NLA_REJECT },
	[KBLOOM_A_GENERATION] = { .type = NLA_REJECT },
	[KBLOOM_A_STATS] = { .type = NLA_REJECT },
	[KBLOOM_A_SATURATED] = { .type = NLA_REJECT },
	[KBLOOM_A_COUNTS] = { .type = NLA_REJECT },
	[KBLOOM_A_SRC_FILL] = { .type = NLA_REJECT },
	[KBLOOM_A_UNION_FILL] = { .type = NLA_REJECT },
	[KBLOOM_A_WINDOW_LIST] = { .type = NLA_REJECT },
	[KBLOOM_A_WINDOW_HITS] = { .type = NLA_REJECT },
	[KBLOOM_A_ATTACH] = { .type = NLA_REJECT },
	[KBLOOM_A_SKIP] = { .type = NLA_REJECT },
};

static struct genl_family kb_family;

/* Names the first attribute of @types[0..n) that is missing, if any. */
static bool kb_require(struct genl_info *info, const int *types, int n)
{
	struct netlink_ext_ack *extack = info->extack;
	int i;

	for (i = 0; i < n; i++) {
		if (info->attrs[types[i]])
			continue;
		switch (types[i]) {
		case KBLOOM_A_NAME:
			NL_SET_ERR_MSG(extack, "missing attribute NAME (the filter name)");
			break;
		case KBLOOM_A_TYPE:
			NL_SET_ERR_MSG(extack, "missing attribute TYPE (the filter type)");
			break;
		case KBLOOM_A_BITS:
			NL_SET_ERR_MSG(extack, "missing attribute BITS (the filter size m)");
			break;
		case KBLOOM_A_HASHES:
			NL_SET_ERR_MSG(extack, "missing attribute HASHES (k)");
			break;
		case KBLOOM_A_KEYS:
			NL_SET_ERR_MSG(extack, "missing attribute KEYS (the keys)");
			break;
		case KBLOOM_A_SRC:
			NL_SET_ERR_MSG(extack, "missing attribute SRC (the second filter)");
			break;
		case KBLOOM_A_HOOK:
			NL_SET_ERR_MSG(extack, "missing attribute HOOK (the netfilter hook)");
			break;
		case KBLOOM_A_DIGEST:
			NL_SET_ERR_MSG(extack, "missing attribute DIGEST (the digest mode)");
			break;
		case KBLOOM_A_PACKET:
			NL_SET_ERR_MSG(extack, "missing attribute PACKET (the packet bytes)");
			break;
		}
		NL_SET_ERR_ATTR_MISS(extack, NULL, types[i]);
		return false;
	}
	return true;
}

#define KB_REQUIRE(info, ...) ({					\
	static const int __types[] = { __VA_ARGS__ };			\
	kb_require(info, __types, ARRAY_SIZE(__types));			\
})

/* Names are printable, without spaces, so they round-trip through a shell. */
static bool kb_name_ok(const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	const char *s = nla_data(attr);

	if (!*s) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "filter name is empty");
		return false;
	}
	for (; *s; s++) {
		if (!isgraph(*s) || *s == '/') {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "filter name has a space, '/' or non-printable byte");
			return false;
		}
	}
	return true;
}

/* Looks the named filter up; the caller holds the lock or rcu_read_lock(). */
static struct kb_obj *kb_find(struct kb_net *kn, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[KBLOOM_A_NAME];
	struct kb_obj *obj = kb_lookup(kn, nla_data(attr));

	if (!obj)
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "no filter of that name in this namespace");
	return obj;
}

/* Dimension names: [a-z0-9_-], 1..KBLOOM_DIM_NAME_MAX-1 bytes, unique. */
static int kb_parse_dims(const struct nlattr *nest, struct kb_create_args *args,
			 struct netlink_ext_ack *extack)
{
	const struct nlattr *attr;
	u32 n = 0, i;
	int rem;

	nla_for_each_nested(attr, nest, rem) {
		const char *name = nla_data(attr), *c;

		if (n == KBLOOM_DIMS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "more than 8 dimensions");
			return -EINVAL;
		}
		if (!*name) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "dimension name is empty");
			return -EINVAL;
		}
		for (c = name; *c; c++) {
			if (!islower(*c) && !isdigit(*c) && *c != '_' && *c != '-') {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "dimension names use only a-z, 0-9, '_' and '-'");
				return -EINVAL;
			}
		}
		for (i = 0; i < n; i++) {
			if (!strcmp(args->dim_names[i], name)) {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "dimension named twice");
				return -EINVAL;
			}
		}
		args->dim_names[n++] = name;
	}
	args->shape.dims = n;
	return 0;
}

static u32 kb_get_u32(struct nlattr **a, int type)
{
	return a[type] ? nla_get_u32(a[type]) : 0;
}

static int kb_cmd_create(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	struct nlattr **a = info->attrs;
	struct kb_create_args args = {};
	struct kb_shape *s = &args.shape;
	int err;

	if (!KB_REQUIRE(info, KBLOOM_A_NAME, KBLOOM_A_TYPE, KBLOOM_A_BITS,
			KBLOOM_A_HASHES))
		return -EINVAL;
	if (!kb_name_ok(a[KBLOOM_A_NAME], info->extack))
		return -EINVAL;

	args.name = nla_data(a[KBLOOM_A_NAME]);
	s->type = nla_get_u32(a[KBLOOM_A_TYPE]);
	s->m = nla_get_u64(a[KBLOOM_A_BITS]);
	s->k = nla_get_u32(a[KBLOOM_A_HASHES]);
	s->cell_bits = kb_get_u32(a, KBLOOM_A_COUNTER_BITS);
	s->update = kb_get_u32(a, KBLOOM_A_UPDATE);
	s->decrement = kb_get_u32(a, KBLOOM_A_DECREMENT);
	s->subtables = kb_get_u32(a, KBLOOM_A_SUBTABLES);
	s->bucket_cells = kb_get_u32(a, KBLOOM_A_BUCKET_CELLS);
	s->fp_bits = kb_get_u32(a, KBLOOM_A_FP_BITS);
	if (a[KBLOOM_A_DIMS]) {
		err = kb_parse_dims(a[KBLOOM_A_DIMS], &args, info->extack);
		if (err)
			return err;
	}
	if (a[KBLOOM_A_CAPACITY])
		args.capacity = nla_get_u64(a[KBLOOM_A_CAPACITY]);
	if (a[KBLOOM_A_HASH_KEY])
		args.hash_key = nla_data(a[KBLOOM_A_HASH_KEY]);
	args.windows = kb_get_u32(a, KBLOOM_A_WINDOWS);
	if (a[KBLOOM_A_INTERVAL])
		args.interval_ms = nla_get_u64(a[KBLOOM_A_INTERVAL]);

	mutex_lock(&kn->lock);
	err = kb_create(kn, &args, info->extack);
	mutex_unlock(&kn->lock);
	return err;
}

static int kb_cmd_destroy(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	struct nlattr **a = info->attrs;
	u32 flags = a[KBLOOM_A_FLAGS] ? nla_get_u32(a[KBLOOM_A_FLAGS]) : 0;
	struct kb_obj *obj;
	int err = 0;

	if (!!(flags & KBLOOM_F_ALL) == !!a[KBLOOM_A_NAME]) {
		NL_SET_ERR_MSG(info->extack,
			       "give either NAME or FLAGS with KBLOOM_F_ALL");
		return -EINVAL;
	}

	mutex_lock(&kn->lock);
	if (flags & KBLOOM_F_ALL) {
		kb_destroy_all(kn);
	} else {
		obj = kb_find(kn, info);
		if (obj)
			kb_destroy(kn, obj);
		else
			err = -ENOENT;
	}
	mutex_unlock(&kn->lock);
	return err;
}

static int kb_fill_stats(struct sk_buff *skb, const struct kb_obj *obj)
{
	struct kb_stats st;
	struct nlattr *nest;

	kb_stats_read(obj, &st);
	nest = nla_nest_start(skb, KBLOOM_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, KBLOOM_STATS_A_INSERTS, st.inserts,
			      KBLOOM_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_STATS_A_QUERIES, st.queries,
			      KBLOOM_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_STATS_A_POSITIVES, st.positives,
			      KBLOOM_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_STATS_A_DELETES, st.deletes,
			      KBLOOM_STATS_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* The type's own parameters, only those it takes (zero means not taken). */
static int kb_fill_params(struct sk_buff *skb, const struct kb_obj *obj)
{
	const struct kb_shape *s = &kb_ring_shape(&obj->ring)->s;
	const struct kb_ring *r = &obj->ring;
	struct nlattr *nest;
	u32 i;

	if (kb_ring_paged(r) &&
	    (nla_put_u32(skb, KBLOOM_A_WINDOWS, r->nwindows) ||
	     nla_put_u64_64bit(skb, KBLOOM_A_INTERVAL, r->interval_ms,
			       KBLOOM_A_PAD)))
		return -EMSGSIZE;

	if ((s->type == KBLOOM_TYPE_COUNTING || s->type == KBLOOM_TYPE_STABLE) &&
	    nla_put_u32(skb, KBLOOM_A_COUNTER_BITS, s->cell_bits))
		return -EMSGSIZE;
	if (s->type == KBLOOM_TYPE_COUNTING &&
	    nla_put_u32(skb, KBLOOM_A_UPDATE, s->update))
		return -EMSGSIZE;
	if (s->decrement && nla_put_u32(skb, KBLOOM_A_DECREMENT, s->decrement))
		return -EMSGSIZE;
	if (s->subtables &&
	    (nla_put_u32(skb, KBLOOM_A_SUBTABLES, s->subtables) ||
	     nla_put_u32(skb, KBLOOM_A_BUCKET_CELLS, s->bucket_cells) ||
	     nla_put_u32(skb, KBLOOM_A_FP_BITS, s->fp_bits)))
		return -EMSGSIZE;
	if (!s->dims)
		return 0;
	nest = nla_nest_start(skb, KBLOOM_A_DIMS);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < s->dims; i++) {
		if (nla_put_string(skb, KBLOOM_DIMS_A_NAME, obj->dim_names[i])) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Bytes of one window in WINDOW_LIST: a nest of five u64. */
#define KB_WINDOW_MSG_SIZE \
	(nla_total_size(0) + 5 * nla_total_size_64bit(sizeof(u64)))

static int kb_fill_window(struct sk_buff *skb, const struct kb_window *w)
{
	struct nlattr *nest;
	struct kb_fill fill;

	kb_filter_fill(&w->filter, &fill);
	nest = nla_nest_start(skb, KBLOOM_WINDOW_LIST_A_WINDOW);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, KBLOOM_WINDOW_A_ID, w->id,
			      KBLOOM_WINDOW_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_WINDOW_A_START, w->start_ns,
			      KBLOOM_WINDOW_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_WINDOW_A_END, READ_ONCE(w->end_ns),
			      KBLOOM_WINDOW_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_WINDOW_A_PACKETS,
			      kb_window_packets(w), KBLOOM_WINDOW_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_WINDOW_A_FILL, fill.nonzero,
			      KBLOOM_WINDOW_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* WINDOW_LIST of the windows of @set, newest first; under RCU. */
static int kb_fill_windows(struct sk_buff *skb, const struct kb_winset *set)
{
	struct nlattr *nest = nla_nest_start(skb, KBLOOM_A_WINDOW_LIST);
	u32 i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < set->n; i++) {
		if (kb_fill_window(skb, set->w[i])) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * Describes one filter; the caller holds the namespace lock. @windows:
 * with WINDOW_LIST (GET's doit, sized for it).
 */
static int kb_fill_filter(struct sk_buff *skb, const struct kb_obj *obj,
			  u32 portid, u32 seq, int flags,
			  struct netlink_callback *cb, bool windows)
{
	const struct kb_filter *f = kb_ring_shape(&obj->ring);
	struct kb_fill fill;
	void *hdr;
	int err;

	hdr = genlmsg_put(skb, portid, seq, &kb_family, flags, KBLOOM_CMD_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	rcu_read_lock();
	kb_filter_fill(&kb_window_cur(&obj->ring)->filter, &fill);
	err = windows ? kb_fill_windows(skb, kb_window_set(&obj->ring)) : 0;
	rcu_read_unlock();
	if (err ||
	    nla_put_string(skb, KBLOOM_A_NAME, obj->name) ||
	    nla_put_u32(skb, KBLOOM_A_TYPE, f->s.type) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_BITS, f->s.m, KBLOOM_A_PAD) ||
	    nla_put_u32(skb, KBLOOM_A_HASHES, f->s.k) ||
	    kb_fill_params(skb, obj) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_CAPACITY, obj->capacity,
			      KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_MEMORY, obj->charged,
			      KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_FILL, fill.nonzero, KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_SATURATED, fill.saturated,
			      KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_GENERATION, obj->generation,
			      KBLOOM_A_PAD) ||
	    kb_fill_stats(skb, obj) ||
	    kb_attach_fill(skb, obj)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int kb_cmd_get(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	struct sk_buff *msg;
	struct kb_obj *obj;
	int err;

	if (!KB_REQUIRE(info, KBLOOM_A_NAME))
		return -EINVAL;
	mutex_lock(&kn->lock);
	obj = kb_find(kn, info);
	if (!obj) {
		mutex_unlock(&kn->lock);
		return -ENOENT;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE +
			  obj->ring.nwindows * KB_WINDOW_MSG_SIZE, GFP_KERNEL);
	err = msg ? kb_fill_filter(msg, obj, info->snd_portid, info->snd_seq,
				   0, NULL, true) : -ENOMEM;
	mutex_unlock(&kn->lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: filters already dumped. */
static int kb_dump_get(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct kb_net *kn = kb_net(sock_net(skb->sk));
	struct kb_obj *obj;
	long idx = 0;
	int err = 0;

	mutex_lock(&kn->lock);
	cb->seq = kn->dump_gen;
	list_for_each_entry(obj, &kn->filters, node) {
		if (idx++ < cb->args[0])
			continue;
		err = kb_fill_filter(skb, obj, NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq, NLM_F_MULTI, cb, false);
		if (err) {
			idx--;
			break;
		}
	}
	mutex_unlock(&kn->lock);
	cb->args[0] = idx;
	/* A full buffer means "more to come", unless not even one fitted. */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ? err : skb->len;
}

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
		kb_hash_key(&f->hkey, nla_data(attr), nla_len(attr), &h[n++]);
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
		kb_hash_key(&f->hkey, nla_data(attr), nla_len(attr), &h[n++]);
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

static int kb_cmd_add(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	struct kb_stats delta = {};
	struct kb_window *w;
	struct nlattr *attr;
	struct kb_obj *obj;
	struct kb_key key;
	int n, rem;

	if (!KB_REQUIRE(info, KBLOOM_A_NAME, KBLOOM_A_KEYS))
		return -EINVAL;

	rcu_read_lock();
	obj = kb_find(kn, info);
	if (!obj) {
		rcu_read_unlock();
		return -ENOENT;
	}
	w = kb_window_cur(&obj->ring);
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
 * TEST and COUNT share this: a reply with NAME, NKEYS and one binary
 * attribute of @per_key bytes per key (bits when @per_key is 0); over
 * every window of a time-paged filter (present in any, counts summed).
 * NPRESENT counts the keys found.
 */
static int kb_query(struct genl_info *info, u8 cmd, int reply_attr,
		    size_t per_key)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
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

	if (!KB_REQUIRE(info, KBLOOM_A_NAME, KBLOOM_A_KEYS))
		return -EINVAL;
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

	rcu_read_lock();
	obj = kb_find(kn, info);
	f = obj ? kb_ring_shape(&obj->ring) : NULL;
	n = obj ? kb_check_keys(f, info, false) : -ENOENT;
	if (n > 0 && cmd == KBLOOM_CMD_COUNT && !kb_filter_can_count(f)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_NAME],
				    "COUNT needs a counting or dleft filter");
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

static int kb_cmd_test(struct sk_buff *skb, struct genl_info *info)
{
	return kb_query(info, KBLOOM_CMD_TEST, KBLOOM_A_RESULT, 0);
}

static int kb_cmd_count(struct sk_buff *skb, struct genl_info *info)
{
	return kb_query(info, KBLOOM_CMD_COUNT, KBLOOM_A_COUNTS, sizeof(u32));
}

/* The windows and, per key, the windows holding it; under RCU. */
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

static int kb_cmd_query(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	struct nlattr *keys = info->attrs[KBLOOM_A_KEYS];
	struct kb_stats delta = {};
	struct sk_buff *msg = NULL;
	struct kb_obj *obj;
	u32 nwin, positives;
	int n, err;
	void *hdr;

	if (!KB_REQUIRE(info, KBLOOM_A_NAME, KBLOOM_A_KEYS))
		return -EINVAL;
	/* The lock keeps the filter and its number of windows; RCU the set. */
	mutex_lock(&kn->lock);
	obj = kb_find(kn, info);
	n = obj ? kb_check_keys(kb_ring_shape(&obj->ring), info, false) :
		  -ENOENT;
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
	rcu_read_lock();
	err = kb_fill_query(msg, obj, keys, n, &positives);
	rcu_read_unlock();
	if (err)
		goto out;
	delta.queries = n;
	delta.positives = positives;
	kb_stats_add(obj, &delta);
	mutex_unlock(&kn->lock);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
out:
	mutex_unlock(&kn->lock);
	nlmsg_free(msg);
	return err;
}

/* DEL, MERGE and ESTIMATE need a filter of one table. */
static struct kb_filter *kb_only_table(struct kb_obj *obj,
				       struct genl_info *info)
{
	struct kb_filter *f = kb_ring_only(&obj->ring);

	if (!f)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_NAME],
				    "not supported on a filter with windows");
	return f;
}

/*
 * Deletes run under the namespace lock (not RCU) so that a failed batch
 * can be undone without another delete interleaving: keys before the
 * absent one are added back.
 */
static int kb_cmd_del(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	struct kb_stats delta = {};
	struct nlattr *attr, *bad = NULL;
	struct kb_filter *f;
	struct kb_obj *obj;
	struct kb_key key;
	int n, rem, done = 0, err = 0;

	if (!KB_REQUIRE(info, KBLOOM_A_NAME, KBLOOM_A_KEYS))
		return -EINVAL;
	mutex_lock(&kn->lock);
	obj = kb_find(kn, info);
	if (!obj) {
		err = -ENOENT;
		goto out;
	}
	f = kb_only_table(obj, info);
	if (!f) {
		err = -EOPNOTSUPP;
		goto out;
	}
	if (!kb_filter_can_delete(f)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_NAME],
				    "DEL needs a counting (plain update) or dleft filter");
		err = -EOPNOTSUPP;
		goto out;
	}
	n = kb_check_keys(f, info, false);
	if (n < 0) {
		err = n;
		goto out;
	}
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
		NL_SET_ERR_MSG_ATTR(info->extack, bad,
				    "key is certainly absent; nothing was deleted");
		goto out;
	}
	delta.deletes = done;
	kb_stats_add(obj, &delta);
out:
	mutex_unlock(&kn->lock);
	return err;
}

static int kb_cmd_clear(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	struct kb_obj *obj;

	if (!KB_REQUIRE(info, KBLOOM_A_NAME))
		return -EINVAL;
	mutex_lock(&kn->lock);
	obj = kb_find(kn, info);
	if (obj)
		kb_clear(obj);
	mutex_unlock(&kn->lock);
	return obj ? 0 : -ENOENT;
}

/*
 * Looks up NAME and SRC, two different filters, under the namespace lock;
 * 0 or -errno with the reason in extack.
 */
static int kb_find_pair(struct kb_net *kn, struct genl_info *info,
			struct kb_obj **a, struct kb_obj **b)
{
	struct nlattr *attr = info->attrs[KBLOOM_A_SRC];

	*a = kb_find(kn, info);
	if (!*a)
		return -ENOENT;
	*b = kb_lookup(kn, nla_data(attr));
	if (!*b) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "no filter named SRC in this namespace");
		return -ENOENT;
	}
	if (*a == *b) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "SRC is the filter itself");
		return -EINVAL;
	}
	return 0;
}

/* The engine's refusals of a pair of filters, explained. */
static int kb_pair_error(struct genl_info *info, int err)
{
	if (err == -EINVAL)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_SRC],
				    "filters differ in type, shape or hash key");
	else if (err == -EOPNOTSUPP)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_NAME],
				    "not supported for this filter type (dleft, stable)");
	return err;
}

/* The one table of each of a pair of filters, or -EOPNOTSUPP. */
static int kb_pair_tables(struct genl_info *info, struct kb_obj *a,
			  struct kb_obj *b, struct kb_filter **fa,
			  struct kb_filter **fb)
{
	*fa = kb_only_table(a, info);
	*fb = *fa ? kb_ring_only(&b->ring) : NULL;
	if (*fa && !*fb)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_SRC],
				    "not supported on a filter with windows");
	return *fb ? 0 : -EOPNOTSUPP;
}

static int kb_cmd_merge(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	u32 op = kb_get_u32(info->attrs, KBLOOM_A_MERGE_OP);
	struct kb_filter *fd, *fs;
	struct kb_obj *dst, *src;
	int err;

	if (!KB_REQUIRE(info, KBLOOM_A_NAME, KBLOOM_A_SRC))
		return -EINVAL;
	mutex_lock(&kn->lock);
	err = kb_find_pair(kn, info, &dst, &src);
	if (!err)
		err = kb_pair_tables(info, dst, src, &fd, &fs);
	if (!err)
		err = kb_pair_error(info, kb_filter_merge(fd, fs, op));
	if (!err)
		dst->generation++;
	mutex_unlock(&kn->lock);
	return err;
}

static int kb_cmd_estimate(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	struct kb_filter *f1, *f2;
	struct kb_fill fa, fb;
	struct kb_obj *a, *b;
	struct sk_buff *msg;
	u64 both;
	void *hdr;
	int err;

	if (!KB_REQUIRE(info, KBLOOM_A_NAME, KBLOOM_A_SRC))
		return -EINVAL;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	mutex_lock(&kn->lock);
	err = kb_find_pair(kn, info, &a, &b);
	if (!err)
		err = kb_pair_tables(info, a, b, &f1, &f2);
	if (!err)
		err = kb_pair_error(info, kb_filter_union_fill(f1, f2, &both));
	if (!err) {
		kb_filter_fill(f1, &fa);
		kb_filter_fill(f2, &fb);
	}
	mutex_unlock(&kn->lock);
	if (err)
		goto err_free;

	err = -EMSGSIZE;
	hdr = genlmsg_put_reply(msg, info, &kb_family, 0, KBLOOM_CMD_ESTIMATE);
	if (!hdr ||
	    nla_put_string(msg, KBLOOM_A_NAME, nla_data(info->attrs[KBLOOM_A_NAME])) ||
	    nla_put_u64_64bit(msg, KBLOOM_A_FILL, fa.nonzero, KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(msg, KBLOOM_A_SRC_FILL, fb.nonzero, KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(msg, KBLOOM_A_UNION_FILL, both, KBLOOM_A_PAD))
		goto err_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

static int kb_cmd_attach(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct kb_net *kn = kb_net(net);
	struct nlattr **a = info->attrs;
	struct kb_attach_args args = {};
	struct kb_obj *obj;
	int err;

	if (!KB_REQUIRE(info, KBLOOM_A_NAME, KBLOOM_A_HOOK, KBLOOM_A_DIGEST))
		return -EINVAL;
	args.hook = nla_get_u32(a[KBLOOM_A_HOOK]);
	args.digest = nla_get_u32(a[KBLOOM_A_DIGEST]);
	args.family = kb_get_u32(a, KBLOOM_A_FAMILY);
	if (a[KBLOOM_A_IFNAME])
		args.ifname = nla_data(a[KBLOOM_A_IFNAME]);

	mutex_lock(&kn->lock);
	obj = kb_find(kn, info);
	err = obj ? kb_attach(net, obj, &args, info->extack) : -ENOENT;
	mutex_unlock(&kn->lock);
	return err;
}

static int kb_cmd_detach(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	struct kb_obj *obj;
	int err;

	if (!KB_REQUIRE(info, KBLOOM_A_NAME))
		return -EINVAL;
	mutex_lock(&kn->lock);
	obj = kb_find(kn, info);
	err = obj ? kb_detach(obj) : -ENOENT;
	if (err == -ENOENT && obj)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[KBLOOM_A_NAME],
				    "filter is not attached");
	mutex_unlock(&kn->lock);
	return err;
}

/*
 * An skb holding @data as a NIC might leave it: @linear bytes in the head,
 * the rest in page fragments.
 */
static struct sk_buff *kb_packet_skb(const u8 *data, u32 len, u32 linear)
{
	struct sk_buff *skb = alloc_skb(linear, GFP_KERNEL);
	u32 off = linear;

	if (!skb)
		return NULL;
	skb_put_data(skb, data, linear);
	skb_reset_network_header(skb);
	while (off < len) {
		u32 chunk = min_t(u32, len - off, PAGE_SIZE);
		struct page *page;

		if (skb_shinfo(skb)->nr_frags == MAX_SKB_FRAGS)
			goto err;
		page = alloc_page(GFP_KERNEL);
		if (!page)
			goto err;
		memcpy(page_address(page), data + off, chunk);
		skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page, 0, chunk,
				PAGE_SIZE);
		off += chunk;
	}
	return skb;
err:
	kfree_skb(skb);
	return NULL;
}

static int kb_put_digest(struct sk_buff *msg, u32 mode,
			 const struct kb_digest *d)
{
	struct nlattr *keys, *tuple;
	int i;

	keys = nla_nest_start(msg, KBLOOM_A_KEYS);
	if (!keys)
		return -EMSGSIZE;
	if (mode != KBLOOM_DIGEST_MULTI) {
		if (nla_put(msg, KBLOOM_KEYS_A_KEY, d->len, d->key))
			return -EMSGSIZE;
	} else {
		tuple = nla_nest_start(msg, KBLOOM_KEYS_A_TUPLE);
		if (!tuple)
			return -EMSGSIZE;
		for (i = 0; i < KB_DIGEST_DIMS; i++)
			if (nla_put(msg, i + 1, d->dim_len[i],
				    d->key + d->dim_off[i]))
				return -EMSGSIZE;
		nla_nest_end(msg, tuple);
	}
	nla_nest_end(msg, keys);
	return 0;
}

static int kb_cmd_digest(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct sk_buff *pkt, *msg;
	struct kb_digest d;
	u32 len, linear, mode, why;
	void *hdr;

	if (!KB_REQUIRE(info, KBLOOM_A_PACKET, KBLOOM_A_DIGEST))
		return -EINVAL;
	len = nla_len(a[KBLOOM_A_PACKET]);
	linear = a[KBLOOM_A_LINEAR] ? nla_get_u32(a[KBLOOM_A_LINEAR]) : len;
	if (!linear || linear > len) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[KBLOOM_A_LINEAR],
				    "LINEAR must be 1..the length of PACKET");
		return -EINVAL;
	}
	if (DIV_ROUND_UP(len - linear, PAGE_SIZE) > MAX_SKB_FRAGS) {
		NL_SET_ERR_MSG_ATTR(info->extack, a[KBLOOM_A_LINEAR],
				    "LINEAR too small: the rest needs more page fragments than an skb has");
		return -EINVAL;
	}
	mode = nla_get_u32(a[KBLOOM_A_DIGEST]);
	pkt = kb_packet_skb(nla_data(a[KBLOOM_A_PACKET]), len, linear);
	if (!pkt)
		return -ENOMEM;
	why = kb_digest_skb(pkt, mode, &d);
	kfree_skb(pkt);

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &kb_family, 0, KBLOOM_CMD_DIGEST);
	if (!hdr || nla_put_u32(msg, KBLOOM_A_DIGEST, mode) ||
	    (why ? nla_put_u32(msg, KBLOOM_A_SKIP, why) :
		   kb_put_digest(msg, mode, &d))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

#define KB_OP(_cmd, _doit, _dumpit) {				\
	.cmd = (_cmd),						\
	.doit = (_doit),					\
	.dumpit = (_dumpit),					\
	.flags = GENL_UNS_ADMIN_PERM,				\
}

/* Every op inherits the family's strict policy (resv_start_op is 0). */
static const struct genl_ops kb_ops[] = {
	KB_OP(KBLOOM_CMD_CREATE, kb_cmd_create, NULL),
	KB_OP(KBLOOM_CMD_DESTROY, kb_cmd_destroy, NULL),
	KB_OP(KBLOOM_CMD_GET, kb_cmd_get, kb_dump_get),
	KB_OP(KBLOOM_CMD_ADD, kb_cmd_add, NULL),
	KB_OP(KBLOOM_CMD_TEST, kb_cmd_test, NULL),
	KB_OP(KBLOOM_CMD_CLEAR, kb_cmd_clear, NULL),
	KB_OP(KBLOOM_CMD_DEL, kb_cmd_del, NULL),
	KB_OP(KBLOOM_CMD_COUNT, kb_cmd_count, NULL),
	KB_OP(KBLOOM_CMD_MERGE, kb_cmd_merge, NULL),
	KB_OP(KBLOOM_CMD_ESTIMATE, kb_cmd_estimate, NULL),
	KB_OP(KBLOOM_CMD_QUERY, kb_cmd_query, NULL),
	KB_OP(KBLOOM_CMD_ATTACH, kb_cmd_attach, NULL),
	KB_OP(KBLOOM_CMD_DETACH, kb_cmd_detach, NULL),
	KB_OP(KBLOOM_CMD_DIGEST, kb_cmd_digest, NULL),
};

static struct genl_family kb_family __ro_after_init = {
	.name = KBLOOM_GENL_NAME,
	.version = KBLOOM_GENL_VERSION,
	.maxattr = KBLOOM_A_MAX,
	.policy = kb_policy,
	.netnsok = true,
	.parallel_ops = true,	/* the registry does its own locking */
	.ops = kb_ops,
	.n_ops = ARRAY_SIZE(kb_ops),
	.module = THIS_MODULE,
};

int kb_netlink_init(void)
{
	return genl_register_family(&kb_family);
}

void kb_netlink_exit(void)
{
	genl_unregister_family(&kb_family);
}
