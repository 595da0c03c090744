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

#include "netlink.h"
#include "registry.h"

/* Not const: 6.1's NLA_POLICY_FULL_RANGE takes a plain pointer. */
static struct netlink_range_validation kb_bits_range = {
	.min = KBLOOM_BITS_MIN,
	.max = KBLOOM_BITS_MAX,
};

static const struct nla_policy kb_keys_policy[KBLOOM_KEYS_A_MAX + 1] = {
	[KBLOOM_KEYS_A_KEY] = NLA_POLICY_RANGE(NLA_BINARY, 1, KBLOOM_KEY_MAX),
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
	/* Reply-only attributes are refused in requests. */
	[KBLOOM_A_NKEYS] = { .type = NLA_REJECT },
	[KBLOOM_A_NPRESENT] = { .type = NLA_REJECT },
	[KBLOOM_A_RESULT] = { .type = NLA_REJECT },
	[KBLOOM_A_MEMORY] = { .type = NLA_REJECT },
	[KBLOOM_A_FILL] = { .type = NLA_REJECT },
	[KBLOOM_A_GENERATION] = { .type = NLA_REJECT },
	[KBLOOM_A_STATS] = { .type = NLA_REJECT },
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

static int kb_cmd_create(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	struct nlattr **a = info->attrs;
	struct kb_create_args args = {};
	int err;

	if (!KB_REQUIRE(info, KBLOOM_A_NAME, KBLOOM_A_TYPE, KBLOOM_A_BITS,
			KBLOOM_A_HASHES))
		return -EINVAL;
	if (!kb_name_ok(a[KBLOOM_A_NAME], info->extack))
		return -EINVAL;

	args.name = nla_data(a[KBLOOM_A_NAME]);
	args.type = nla_get_u32(a[KBLOOM_A_TYPE]);
	args.bits = nla_get_u64(a[KBLOOM_A_BITS]);
	args.hashes = nla_get_u32(a[KBLOOM_A_HASHES]);
	if (a[KBLOOM_A_CAPACITY])
		args.capacity = nla_get_u64(a[KBLOOM_A_CAPACITY]);
	if (a[KBLOOM_A_HASH_KEY])
		args.hash_key = nla_data(a[KBLOOM_A_HASH_KEY]);

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
			      KBLOOM_STATS_A_PAD)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Describes one filter; the caller holds the namespace lock. */
static int kb_fill_filter(struct sk_buff *skb, const struct kb_obj *obj,
			  u32 portid, u32 seq, int flags,
			  struct netlink_callback *cb)
{
	const struct kb_filter *f = &obj->filter;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &kb_family, flags, KBLOOM_CMD_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (nla_put_string(skb, KBLOOM_A_NAME, obj->name) ||
	    nla_put_u32(skb, KBLOOM_A_TYPE, f->type) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_BITS, f->m, KBLOOM_A_PAD) ||
	    nla_put_u32(skb, KBLOOM_A_HASHES, f->k) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_CAPACITY, obj->capacity,
			      KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_MEMORY, obj->charged,
			      KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_FILL, kb_filter_fill(f),
			      KBLOOM_A_PAD) ||
	    nla_put_u64_64bit(skb, KBLOOM_A_GENERATION, obj->generation,
			      KBLOOM_A_PAD) ||
	    kb_fill_stats(skb, obj)) {
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
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&kn->lock);
	obj = kb_find(kn, info);
	err = obj ? kb_fill_filter(msg, obj, info->snd_portid, info->snd_seq,
				   0, NULL) : -ENOENT;
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
				     cb->nlh->nlmsg_seq, NLM_F_MULTI, cb);
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

/* Counts the keys of a validated KEYS nest; 0 is refused. */
static int kb_count_keys(struct genl_info *info)
{
	struct nlattr *keys = info->attrs[KBLOOM_A_KEYS], *key;
	int n = 0, rem;

	nla_for_each_nested(key, keys, rem)
		n++;
	if (!n)
		NL_SET_ERR_MSG_ATTR(info->extack, keys, "KEYS holds no key");
	return n;
}

static int kb_cmd_add(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	struct kb_obj *obj;
	struct nlattr *key;
	int n, rem;

	if (!KB_REQUIRE(info, KBLOOM_A_NAME, KBLOOM_A_KEYS))
		return -EINVAL;
	n = kb_count_keys(info);
	if (!n)
		return -EINVAL;

	rcu_read_lock();
	obj = kb_find(kn, info);
	if (!obj) {
		rcu_read_unlock();
		return -ENOENT;
	}
	nla_for_each_nested(key, info->attrs[KBLOOM_A_KEYS], rem)
		kb_filter_add(&obj->filter, nla_data(key), nla_len(key));
	kb_stats_add(obj, n, 0, 0);
	rcu_read_unlock();
	return 0;
}

static int kb_cmd_test(struct sk_buff *skb, struct genl_info *info)
{
	struct kb_net *kn = kb_net(genl_info_net(info));
	struct nlattr *key, *res;
	struct sk_buff *msg;
	struct kb_obj *obj;
	int n, i = 0, rem, err = -EMSGSIZE;
	u32 present = 0;
	u8 *bitmap;
	void *hdr;

	if (!KB_REQUIRE(info, KBLOOM_A_NAME, KBLOOM_A_KEYS))
		return -EINVAL;
	n = kb_count_keys(info);
	if (!n)
		return -EINVAL;

	/* Sized before the lookup: nothing may sleep under RCU. */
	msg = genlmsg_new(nla_total_size(KBLOOM_NAME_MAX) +
			  2 * nla_total_size(sizeof(u32)) +
			  nla_total_size(DIV_ROUND_UP(n, 8)), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &kb_family, 0, KBLOOM_CMD_TEST);
	if (!hdr)
		goto err_free;
	res = nla_reserve(msg, KBLOOM_A_RESULT, DIV_ROUND_UP(n, 8));
	if (!res)
		goto err_free;
	bitmap = nla_data(res);
	memset(bitmap, 0, DIV_ROUND_UP(n, 8));

	rcu_read_lock();
	obj = kb_find(kn, info);
	if (!obj) {
		rcu_read_unlock();
		err = -ENOENT;
		goto err_free;
	}
	nla_for_each_nested(key, info->attrs[KBLOOM_A_KEYS], rem) {
		if (kb_filter_test(&obj->filter, nla_data(key), nla_len(key))) {
			bitmap[i / 8] |= 1U << (i % 8);
			present++;
		}
		i++;
	}
	kb_stats_add(obj, 0, n, present);
	rcu_read_unlock();

	if (nla_put_string(msg, KBLOOM_A_NAME,
			   nla_data(info->attrs[KBLOOM_A_NAME])) ||
	    nla_put_u32(msg, KBLOOM_A_NKEYS, n) ||
	    nla_put_u32(msg, KBLOOM_A_NPRESENT, present))
		goto err_free;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
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
